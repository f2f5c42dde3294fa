/*
 * ex06_3_bucket_average.c: the cases of exercise 06.3, bucket_average: a bucket
 * averaged over 2 and 3 real ranks.
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out and what the harness saw) and a JUDGE half (in the judge: decide),
 * see ../graded.h.
 */
#include "suite.h"

/* ---- ex06.3 bucket_average ---------------------------------------------------------- */

/* The value rank r holds at float i of the bucket it averages: drawn from the seed of
 * this grading run (grade_seed(), protocol.h), so that no formula written in advance
 * gives the mean. Multiples of 1/64 in [-8, 8): the sums over the ranks are exact. */
static float rank_value(uint64_t seed, int r, int64_t i)
{
    uint64_t h = seed ^ ((uint64_t)(r + 1) * 0x9E3779B97F4A7C15ull) ^
                 ((uint64_t)(i + 1) * 0xBF58476D1CE4E5B9ull);
    h ^= h >> 31;
    h *= 0x94D049BB133111EBull;
    h ^= h >> 29;
    h *= 0xD6E8FEB86659FD93ull;
    h ^= h >> 32;
    return (float)((int64_t)(h % 1024) - 512) / 64.0f;
}
#define AVERAGE_FLOATS 37

#ifdef GRADE_RUNNER
/* In every rank: a bucket of rank_value(seed, rank, i), averaged, and the all-reduces
 * that took (lib counts them, dist_counts()). */
void rank_average(void)
{
    uint64_t seed = grade_seed();
    ck_assert_msg(seed != 0, "grader: GRADE_SEED is not set (the judge sets it)");
    ProcessGroup *pg = join();
    int64_t n = AVERAGE_FLOATS;
    Bucket b = {0};
    b.numel = n;
    Tensor *flat = tensor_new(DTYPE_F32, device_cpu(), 1, &n);
    ck_assert_ptr_nonnull(flat);
    b.flat = flat;
    for (int64_t i = 0; i < n; i++) tensor_f32(flat)[i] = rank_value(seed, pg->rank, i);
    put_i64("world", pg->world);
    DistCounts before = dist_counts();
    err_clear();
    put_rc("rc", bucket_average(pg, &b));
    DistCounts after = dist_counts();
    put_i64("ar.calls", (int64_t)(after.all_reduces - before.all_reduces));
    put_i64("ar.floats", (int64_t)(after.floats_reduced - before.floats_reduced));
    put_i64("ar.on_flat", after.last_reduced == flat->data);
    put_f32("flat", tensor_f32(flat), n);
    tensor_free(flat);
    dist_finalize(pg);
}

RUN(average_on_two_ranks)
{
    run_ranks("average", 2, 20);
}

RUN(average_on_three_ranks)
{
    run_ranks("average", 3, 20);
}
#endif

#ifdef GRADE_JUDGE
static void expect_average(int world)
{
    uint64_t seed = grade_seed();
    ck_assert_msg(seed != 0, "grader: GRADE_SEED is not set");
    expect_ranks(world, "dist_all_reduce_sum");
    for (int r = 0; r < world; r++) {
        const char *k = key("r%d.rc", r);
        expect_ok(k, "bucket_average");
        ck_assert_msg(got_i64(key("r%d.world", r)) == world, "grader: rank %d saw another world",
                      r);
        int64_t calls = got_i64(key("r%d.ar.calls", r));
        int64_t floats = got_i64(key("r%d.ar.floats", r));
        ck_assert_msg(calls == 1 && floats == AVERAGE_FLOATS && got_i64(key("r%d.ar.on_flat", r)),
                      "%d ranks: rank %d's bucket_average made %lld all-reduces of %lld floats in "
                      "all%s; expected one, of the bucket's flat tensor (%d floats): "
                      "dist_all_reduce_sum(pg, b->flat), then dist_scale()",
                      world, r, (long long)calls, (long long)floats,
                      calls > 0 && !got_i64(key("r%d.ar.on_flat", r))
                          ? ", the last not of the bucket's flat tensor"
                          : "",
                      AVERAGE_FLOATS);
        const float *got = got_f32(key("r%d.flat", r), AVERAGE_FLOATS);
        for (int64_t i = 0; i < AVERAGE_FLOATS; i++) {
            double sum = 0;
            for (int q = 0; q < world; q++) sum += rank_value(seed, q, i);
            double want = sum / world;
            if (fabs((double)got[i] - want) > 1e-5 * (1 + fabs(want))) {
                const char *why = fabs((double)got[i] - sum) <= 1e-5 * (1 + fabs(sum))
                                      ? ": that is the sum; divide it by the world size"
                                  : fabs((double)got[i] - rank_value(seed, r, i) / world) < 1e-5
                                      ? ": that is this rank's own value divided, without the "
                                        "all-reduce"
                                  : fabs((double)got[i] - sum / 2) <= 1e-5 * (1 + fabs(sum))
                                      ? ": that is the sum divided by 2; divide by pg->world"
                                      : "";
                ck_abort_msg("%d ranks: float %lld of rank %d's bucket is %g, expected the mean "
                             "over the ranks, %g%s (the values come from this grading run's "
                             "seed: GRADE_SEED=%llu make grade repeats them)",
                             world, (long long)i, r, (double)got[i], want, why,
                             (unsigned long long)seed);
            }
        }
    }
}

JUDGE(average_on_two_ranks)
{
    expect_average(2);
}

JUDGE(average_on_three_ranks)
{
    expect_average(3);
}
#endif
