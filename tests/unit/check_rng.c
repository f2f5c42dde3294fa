/* check_rng.c: PCG32 against its published demo output, and the helpers. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "lib/core/rng.h"
#include "suites.h"

/* pcg32-demo from pcg-c-basic (pcg-random.org), seed 42, sequence 54. */
START_TEST(test_pcg32_reference_stream)
{
    static const uint32_t want[6] = {0xa15c02b7u, 0x7b47f409u, 0xba1d3330u,
                                     0x83d2f293u, 0xbfa4784bu, 0xcbed606eu};
    static const char coins[] = "HHTTTHTHHHTHTTTHHHHHTTTHHHTHTHTHTTHTTTHHHHHHTTTTHHTTTTTHTTTTTTTHT";
    static const int rolls[33] = {3, 4, 1, 1, 2, 2, 3, 2, 4, 3, 2, 4, 3, 3, 5, 2, 3,
                                  1, 3, 1, 5, 1, 4, 1, 5, 6, 4, 6, 6, 2, 6, 3, 3};
    Rng rng;
    rng_seed(&rng, 42u, 54u);
    for (int i = 0; i < 6; i++) {
        uint32_t got = rng_u32(&rng);
        ck_assert_msg(got == want[i], "output %d: got 0x%08x, expected 0x%08x", i, got, want[i]);
    }
    for (int i = 0; i < 65; i++) {
        char got = rng_below(&rng, 2) ? 'H' : 'T';
        ck_assert_msg(got == coins[i], "coin %d: got %c, expected %c", i, got, coins[i]);
    }
    for (int i = 0; i < 33; i++) {
        int got = (int)rng_below(&rng, 6) + 1;
        ck_assert_msg(got == rolls[i], "roll %d: got %d, expected %d", i, got, rolls[i]);
    }
}
END_TEST

START_TEST(test_uniform_range_and_moments)
{
    Rng rng;
    rng_seed(&rng, 7, 0);
    double sum = 0, sq = 0;
    const int n = 200000;
    for (int i = 0; i < n; i++) {
        float u = rng_uniform_range(&rng, -0.5f, 0.5f);
        ck_assert(u >= -0.5f && u < 0.5f);
        sum += u;
        sq += (double)u * u;
    }
    ck_assert_double_le(fabs(sum / n), 0.005);
    ck_assert_double_le(fabs(sq / n - 1.0 / 12.0), 0.002); /* variance of U(-1/2, 1/2) */
}
END_TEST

START_TEST(test_normal_moments)
{
    Rng rng;
    rng_seed(&rng, 3, 1);
    double sum = 0, sq = 0;
    const int n = 200000;
    for (int i = 0; i < n; i++) {
        float z = rng_normal(&rng);
        ck_assert(isfinite(z));
        sum += z;
        sq += (double)z * z;
    }
    ck_assert_double_le(fabs(sum / n), 0.01);
    ck_assert_double_le(fabs(sq / n - 1.0), 0.02);
}
END_TEST

START_TEST(test_shuffle_is_a_seeded_permutation)
{
    int32_t a[50], b[50];
    for (int i = 0; i < 50; i++) a[i] = b[i] = i;
    Rng r1, r2;
    rng_seed(&r1, 99, 5);
    rng_seed(&r2, 99, 5);
    rng_shuffle_i32(&r1, a, 50);
    rng_shuffle_i32(&r2, b, 50);
    ck_assert_mem_eq(a, b, sizeof a);
    int seen[50] = {0}, moved = 0;
    for (int i = 0; i < 50; i++) {
        ck_assert(a[i] >= 0 && a[i] < 50);
        seen[a[i]]++;
        moved += a[i] != i;
    }
    for (int i = 0; i < 50; i++) ck_assert_int_eq(seen[i], 1);
    ck_assert_int_gt(moved, 25);
}
END_TEST

START_TEST(test_streams_differ)
{
    Rng a, b;
    rng_seed(&a, 1, 0);
    rng_seed(&b, 1, 1);
    int same = 0;
    for (int i = 0; i < 16; i++) same += rng_u32(&a) == rng_u32(&b);
    ck_assert_int_lt(same, 2);
}
END_TEST

Suite *rng_suite(void)
{
    Suite *s = suite_create("rng");
    TCase *tc = tcase_create("pcg32");
    tcase_add_test(tc, test_pcg32_reference_stream);
    tcase_add_test(tc, test_uniform_range_and_moments);
    tcase_add_test(tc, test_normal_moments);
    tcase_add_test(tc, test_shuffle_is_a_seeded_permutation);
    tcase_add_test(tc, test_streams_differ);
    suite_add_tcase(s, tc);
    return s;
}
