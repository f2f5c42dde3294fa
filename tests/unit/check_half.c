/* check_half.c: lib/core/half.c against PyTorch, bit for bit.
 *
 * tests/fixtures/half.txt (tests/gen_fixtures_half.py) holds PyTorch's f16 and
 * bf16 roundings of about 3800 float32 values chosen to hit every case, the
 * widening of half bit patterns, and half matrix products computed with f32
 * accumulation. Bit patterns travel as integers (a float32 as two 16-bit
 * halves), so NaN payloads and -0 arrive intact. The array forms are checked
 * against the scalar ones, which the fixture checks, for every length that
 * crosses the SIMD widths and at unaligned starts. Nothing here is timed.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/err.h"
#include "lib/core/half.h"
#include "suites.h"
#include "tests/common/fixture.h"

#define FX "half.txt"

static uint32_t bits_of(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static float float_of(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* A fixture of 16-bit integers (a bit pattern per value). */
static uint16_t fixture_u16(const Fixture *fx, int64_t i)
{
    float v = fx->data[i];
    ck_assert_msg(v >= 0.0f && v <= 65535.0f && v == floorf(v),
                  "fixture %s[%lld] = %g is not a 16-bit pattern", fx->name, (long long)i, v);
    return (uint16_t)v;
}

/* The float32 inputs of the rounding fixture, from their two halves; *n gets the count. */
static float *rounding_inputs(int64_t *n)
{
    const Fixture *hi = fixture(FX, "round.in_hi"), *lo = fixture(FX, "round.in_lo");
    ck_assert_int_eq(hi->n, lo->n);
    float *x = malloc((size_t)hi->n * sizeof(float));
    ck_assert_ptr_nonnull(x);
    for (int64_t i = 0; i < hi->n; i++)
        x[i] = float_of((uint32_t)fixture_u16(hi, i) << 16 | fixture_u16(lo, i));
    *n = hi->n;
    return x;
}

typedef uint16_t (*Encode)(float);
typedef float (*Decode)(uint16_t);

static Encode encoder(DType dt)
{
    return dt == DTYPE_F16 ? half_from_float : bf16_from_float;
}
static Decode decoder(DType dt)
{
    return dt == DTYPE_F16 ? half_to_float : bf16_to_float;
}

/* ---- scalars against PyTorch ------------------------------------------------ */

static void check_rounding(DType dt, const char *want_name)
{
    int64_t n;
    float *x = rounding_inputs(&n);
    const Fixture *want = fixture(FX, want_name);
    ck_assert_int_eq(want->n, n);
    for (int64_t i = 0; i < n; i++) {
        uint16_t got = encoder(dt)(x[i]), expected = fixture_u16(want, i);
        ck_assert_msg(got == expected, "%s of %a (bits 0x%08X): got 0x%04X, PyTorch gives 0x%04X",
                      dtype_name(dt), (double)x[i], bits_of(x[i]), got, expected);
        /* half_round is the round trip through the same bits */
        float r = x[i];
        ck_assert_int_eq(half_round(&r, 1, dt), ERR_OK);
        ck_assert_msg(bits_of(r) == bits_of(decoder(dt)(expected)),
                      "half_round(%s) of 0x%08X: got 0x%08X, expected 0x%08X", dtype_name(dt),
                      bits_of(x[i]), bits_of(r), bits_of(decoder(dt)(expected)));
    }
    free(x);
}

START_TEST(test_f16_rounding_matches_pytorch)
{
    check_rounding(DTYPE_F16, "round.f16");
}
END_TEST

START_TEST(test_bf16_rounding_matches_pytorch)
{
    check_rounding(DTYPE_BF16, "round.bf16");
}
END_TEST

START_TEST(test_widening_matches_pytorch)
{
    static const char *names[] = {"f16", "bf16"};
    for (int t = 0; t < 2; t++) {
        DType dt = t == 0 ? DTYPE_F16 : DTYPE_BF16;
        char name[32];
        snprintf(name, sizeof name, "widen.%s", names[t]);
        const Fixture *h = fixture(FX, name);
        snprintf(name, sizeof name, "widen.%s_hi", names[t]);
        const Fixture *hi = fixture(FX, name);
        snprintf(name, sizeof name, "widen.%s_lo", names[t]);
        const Fixture *lo = fixture(FX, name);
        for (int64_t i = 0; i < h->n; i++) {
            uint16_t bits = fixture_u16(h, i);
            uint32_t want = (uint32_t)fixture_u16(hi, i) << 16 | fixture_u16(lo, i);
            uint32_t got = bits_of(decoder(dt)(bits));
            ck_assert_msg(got == want, "%s 0x%04X as float: got 0x%08X, PyTorch gives 0x%08X",
                          names[t], bits, got, want);
        }
    }
}
END_TEST

/* Every f16 pattern against the definition: (-1)^s 2^(e-15) (1 + m/1024), or
 * 2^-14 m/1024 for e = 0; NaN payloads are kept with the quiet bit set. */
START_TEST(test_f16_every_pattern_widens_exactly)
{
    for (uint32_t h = 0; h < 0x10000; h++) {
        uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ff, sign = h >> 15;
        float got = half_to_float((uint16_t)h);
        if (e == 0x1f && m) {
            ck_assert_msg(bits_of(got) == (sign << 31 | 0x7fc00000u | m << 13),
                          "f16 NaN 0x%04X widened to 0x%08X", h, bits_of(got));
            continue;
        }
        double want = e == 0x1f ? INFINITY : e ? ldexp(1024.0 + m, (int)e - 25) : ldexp(m, -24);
        want = sign ? -want : want;
        ck_assert_msg((double)got == want && !signbit(got) == !signbit(want),
                      "f16 0x%04X: got %a, expected %a", h, (double)got, want);
        /* every f16 value comes back to its own bits */
        ck_assert_int_eq(half_from_float(got), h);
    }
}
END_TEST

START_TEST(test_bf16_every_pattern_round_trips)
{
    for (uint32_t h = 0; h < 0x10000; h++) {
        float got = bf16_to_float((uint16_t)h);
        ck_assert_uint_eq(bits_of(got), h << 16);
        if (isnan(got))
            ck_assert_uint_eq(bf16_from_float(got), 0xffff); /* PyTorch's NaN */
        else
            ck_assert_uint_eq(bf16_from_float(got), h);
    }
}
END_TEST

START_TEST(test_limits_are_the_f16_and_bf16_limits)
{
    ck_assert(HALF_F16_MAX == half_to_float(0x7bff) && HALF_F16_MAX == 65504.0f);
    ck_assert(HALF_F16_MIN_NORMAL == half_to_float(0x0400));
    ck_assert(HALF_F16_MIN_SUBNORMAL == half_to_float(0x0001));
    ck_assert(HALF_F16_EPSILON == half_to_float(0x3c01) - 1.0f);
    ck_assert(HALF_BF16_MAX == bf16_to_float(0x7f7f));
    ck_assert(HALF_BF16_MIN_NORMAL == bf16_to_float(0x0080));
    ck_assert(HALF_BF16_EPSILON == bf16_to_float(0x3f81) - 1.0f);
    /* the edges of the f16 range, as the limits promise */
    ck_assert_uint_eq(half_from_float(65519.99f), 0x7bff);
    ck_assert_uint_eq(half_from_float(65520.0f), 0x7c00);
    ck_assert_uint_eq(half_from_float(-65520.0f), 0xfc00);
    ck_assert_uint_eq(half_from_float(HALF_F16_MIN_SUBNORMAL / 2), 0x0000);
    ck_assert_uint_eq(half_from_float(-HALF_F16_MIN_SUBNORMAL / 2), 0x8000);
    ck_assert_uint_eq(half_from_float(nextafterf(HALF_F16_MIN_SUBNORMAL / 2, 1.0f)), 0x0001);
    ck_assert_uint_eq(half_from_float(-0.0f), 0x8000);
    ck_assert_uint_eq(bf16_from_float(-0.0f), 0x8000);
}
END_TEST

/* ---- arrays against scalars ------------------------------------------------- */

#define GUARD 0xA5A5u
#define MAX_LEN 67
#define MAX_OFFSET 4

/* The array forms on x[start .. start + len) from offset `off` in the buffers,
 * against the scalars, with guards around the output. */
static void check_arrays_at(DType dt, const float *pool, int64_t pool_n, int64_t start, int len,
                            int in_off, int out_off)
{
    float src[MAX_LEN + MAX_OFFSET], fl[MAX_LEN + 2 * MAX_OFFSET];
    uint16_t h[MAX_LEN + 2 * MAX_OFFSET];
    for (int i = 0; i < len; i++)
        src[in_off + i] = pool[(start + i) % pool_n];
    for (int i = 0; i < len + 2 * MAX_OFFSET; i++)
        h[i] = GUARD;

    ck_assert_int_eq(half_encode(src + in_off, h + out_off, len, dt), ERR_OK);
    for (int i = 0; i < len + 2 * MAX_OFFSET; i++) {
        int k = i - out_off;
        uint16_t want = k >= 0 && k < len ? encoder(dt)(src[in_off + k]) : GUARD;
        ck_assert_msg(h[i] == want,
                      "half_encode(%s), length %d, offsets %d/%d: element %d is 0x%04X, "
                      "expected 0x%04X",
                      dtype_name(dt), len, in_off, out_off, k, h[i], want);
    }

    float guard = float_of(0x7fa5a5a5u);
    for (int i = 0; i < len + 2 * MAX_OFFSET; i++)
        fl[i] = guard;
    ck_assert_int_eq(half_decode(h + out_off, fl + in_off, len, dt), ERR_OK);
    for (int i = 0; i < len + 2 * MAX_OFFSET; i++) {
        int k = i - in_off;
        uint32_t want = bits_of(k >= 0 && k < len ? decoder(dt)(h[out_off + k]) : guard);
        ck_assert_msg(bits_of(fl[i]) == want,
                      "half_decode(%s), length %d, offset %d: element %d is 0x%08X, expected "
                      "0x%08X",
                      dtype_name(dt), len, in_off, k, bits_of(fl[i]), want);
    }

    for (int i = 0; i < len + 2 * MAX_OFFSET; i++)
        fl[i] = i >= out_off && i < out_off + len ? src[in_off + i - out_off] : guard;
    ck_assert_int_eq(half_round(fl + out_off, len, dt), ERR_OK);
    for (int i = 0; i < len + 2 * MAX_OFFSET; i++) {
        int k = i - out_off;
        uint32_t want =
            bits_of(k >= 0 && k < len ? decoder(dt)(encoder(dt)(src[in_off + k])) : guard);
        ck_assert_msg(bits_of(fl[i]) == want,
                      "half_round(%s), length %d, offset %d: element %d is 0x%08X, expected "
                      "0x%08X",
                      dtype_name(dt), len, out_off, k, bits_of(fl[i]), want);
    }
}

START_TEST(test_arrays_equal_scalars_for_every_length_and_offset)
{
    int64_t n;
    float *pool = rounding_inputs(&n);
    for (int t = 0; t < 2; t++)
        for (int len = 0; len <= MAX_LEN; len++)
            for (int off = 0; off < MAX_OFFSET; off++)
                /* a different window of the special values for each case, so
                 * that NaNs and ties fall in every SIMD lane */
                check_arrays_at(t ? DTYPE_BF16 : DTYPE_F16, pool, n, (int64_t)len * 53 + off * 997,
                                len, off, (off + 1 + len) % MAX_OFFSET);
    free(pool);
}
END_TEST

/* Long arrays over the whole float32 space (a stride through all bit
 * patterns): the vector loops against the scalar definition. */
START_TEST(test_arrays_equal_scalars_across_float32)
{
    const int64_t n = 1 << 18;
    float *x = malloc((size_t)n * sizeof(float)), *r = malloc((size_t)n * sizeof(float));
    uint16_t *h = malloc((size_t)n * sizeof(uint16_t));
    ck_assert(x && r && h);
    for (int64_t i = 0; i < n; i++)
        x[i] = float_of((uint32_t)i * 16411u + 0x9e3779b9u);
    for (int t = 0; t < 2; t++) {
        DType dt = t ? DTYPE_BF16 : DTYPE_F16;
        ck_assert_int_eq(half_encode(x, h, n, dt), ERR_OK);
        memcpy(r, x, (size_t)n * sizeof(float));
        ck_assert_int_eq(half_round(r, n, dt), ERR_OK);
        int64_t i = 0; /* the first mismatch, if any (one assertion: this runs under ASan too) */
        while (i < n && h[i] == encoder(dt)(x[i]) &&
               bits_of(r[i]) == bits_of(decoder(dt)(encoder(dt)(x[i]))))
            i++;
        ck_assert_msg(i == n, "%s of 0x%08X: array gives 0x%04X (rounded 0x%08X), scalar 0x%04X",
                      dtype_name(dt), bits_of(x[i]), h[i], bits_of(r[i]), encoder(dt)(x[i]));
        for (i = 0; i < n; i++)
            h[i] = (uint16_t)i;
        ck_assert_int_eq(half_decode(h, r, n, dt), ERR_OK);
        i = 0;
        while (i < n && bits_of(r[i]) == bits_of(decoder(dt)(h[i])))
            i++;
        ck_assert_msg(i == n, "%s 0x%04X: array widens to 0x%08X", dtype_name(dt), h[i],
                      bits_of(r[i]));
    }
    free(x), free(r), free(h);
}
END_TEST

START_TEST(test_array_arguments_are_checked)
{
    float x[2] = {1.0f, -3.0f};
    uint16_t h[2];
    ck_assert_int_eq(half_encode(x, h, 2, DTYPE_F32), ERR_ARG);
    ck_assert_int_eq(half_decode(h, x, 2, DTYPE_I32), ERR_ARG);
    ck_assert_int_eq(half_encode(x, h, -1, DTYPE_F16), ERR_ARG);
    ck_assert_int_eq(half_encode(NULL, h, 2, DTYPE_F16), ERR_ARG);
    ck_assert_int_eq(half_decode(h, NULL, 1, DTYPE_BF16), ERR_ARG);
    ck_assert_int_eq(half_encode(NULL, NULL, 0, DTYPE_BF16), ERR_OK);
    ck_assert_int_eq(half_round(x, 2, DTYPE_I32), ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err_message(), "int32"));
    ck_assert_int_eq(half_round(NULL, 1, DTYPE_F16), ERR_ARG);
    /* float32 is a rounding that keeps every value */
    x[0] = 0.1f;
    ck_assert_int_eq(half_round(x, 2, DTYPE_F32), ERR_OK);
    ck_assert(x[0] == 0.1f && x[1] == -3.0f);
}
END_TEST

/* ---- the matrix product ------------------------------------------------------ */

/* M (rows, cols) column-major stored as M or M^T with leading dimension ld
 * (more than the stored rows); the padding holds NaN, so reading it shows. */
static float *stored(const float *cm, int64_t rows, int64_t cols, bool transpose, int64_t ld)
{
    int64_t srows = transpose ? cols : rows, scols = transpose ? rows : cols;
    float *s = malloc((size_t)(ld * scols) * sizeof(float));
    ck_assert_ptr_nonnull(s);
    for (int64_t j = 0; j < scols; j++)
        for (int64_t i = 0; i < ld; i++)
            s[i + j * ld] = i >= srows ? NAN : transpose ? cm[j + i * rows] : cm[i + j * rows];
    return s;
}

static void check_gemm_exact(DType dt, const char *case_name)
{
    char name[64];
#define FXC(key) (snprintf(name, sizeof name, "mm.%s.%s", case_name, key), fixture(FX, name))
    const Fixture *a = FXC("a"), *b = FXC("b"), *c0 = FXC("c0"), *ab = FXC("alpha_beta"),
                  *want = FXC("c");
#undef FXC
    int64_t m = a->shape[0], k = a->shape[1], n = b->shape[1];
    float alpha = ab->data[0], beta = ab->data[1];
    for (int t = 0; t < 4; t++) {
        bool ta = t & 1, tb = t & 2;
        int64_t lda = (ta ? k : m) + 3, ldb = (tb ? n : k) + 1, ldc = m + 2;
        float *A = stored(a->cm, m, k, ta, lda), *B = stored(b->cm, k, n, tb, ldb);
        float *A0 = stored(a->cm, m, k, ta, lda);
        for (int out = 0; out < 2; out++) {
            DType out_dt = out ? DTYPE_F32 : dt;
            float *C = stored(c0->cm, m, n, false, ldc);
            ck_assert_int_eq(
                half_gemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, dt, out_dt),
                ERR_OK);
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = 0; i < ldc; i++) {
                    float got = C[i + j * ldc];
                    if (i >= m) {
                        ck_assert_msg(isnan(got), "half_gemm wrote C's padding (%lld, %lld)",
                                      (long long)i, (long long)j);
                        continue;
                    }
                    /* f32 out: the exact sum (these inputs make every f32 sum
                     * exact), computed here in double from the rounded inputs */
                    double exact = (double)beta * c0->cm[i + j * m];
                    for (int64_t p = 0; p < k; p++)
                        exact += (double)alpha * decoder(dt)(encoder(dt)(a->cm[i + p * m])) *
                                 decoder(dt)(encoder(dt)(b->cm[p + j * k]));
                    float expected = out ? (float)exact : want->cm[i + j * m];
                    ck_assert_msg(bits_of(got) == bits_of(expected),
                                  "half_gemm %s (ta %d, tb %d, out %s): C(%lld, %lld) = %a, "
                                  "expected %a",
                                  case_name, ta, tb, dtype_name(out_dt), (long long)i, (long long)j,
                                  (double)got, (double)expected);
                }
            free(C);
        }
        /* A is rounded on a copy (the NaN padding has the same bits in both) */
        ck_assert_msg(memcmp(A, A0, (size_t)(lda * (ta ? m : k)) * sizeof(float)) == 0,
                      "half_gemm changed A");
        free(A), free(A0), free(B);
    }
}

START_TEST(test_gemm_f16_matches_pytorch_exactly)
{
    check_gemm_exact(DTYPE_F16, "f16_exact");
}
END_TEST

START_TEST(test_gemm_bf16_matches_pytorch_exactly)
{
    check_gemm_exact(DTYPE_BF16, "bf16_exact");
}
END_TEST

/* General inputs: the code under test rounds them; a result may differ from
 * PyTorch's by one half ulp where OpenBLAS's f32 sum rounds the other way. */
START_TEST(test_gemm_general_inputs_within_one_ulp)
{
    static const char *cases[] = {"f16_randn", "bf16_randn"};
    for (int t = 0; t < 2; t++) {
        DType dt = t ? DTYPE_BF16 : DTYPE_F16;
        char name[64];
        snprintf(name, sizeof name, "mm.%s.a", cases[t]);
        const Fixture *a = fixture(FX, name);
        snprintf(name, sizeof name, "mm.%s.b", cases[t]);
        const Fixture *b = fixture(FX, name);
        snprintf(name, sizeof name, "mm.%s.c", cases[t]);
        const Fixture *want = fixture(FX, name);
        int64_t m = a->shape[0], k = a->shape[1], n = b->shape[1];
        float *C = malloc((size_t)(m * n) * sizeof(float));
        ck_assert_ptr_nonnull(C);
        ck_assert_int_eq(
            half_gemm(false, false, m, n, k, 1.0f, a->cm, m, b->cm, k, 0.0f, C, m, dt, dt), ERR_OK);
        int off = 0;
        for (int64_t i = 0; i < m * n; i++) {
            int d = (int)encoder(dt)(C[i]) - (int)encoder(dt)(want->cm[i]);
            ck_assert_msg(d >= -1 && d <= 1 && !signbit(C[i]) == !signbit(want->cm[i]),
                          "half_gemm %s: element %lld = %a, PyTorch %a", cases[t], (long long)i,
                          (double)C[i], (double)want->cm[i]);
            off += d != 0;
        }
        ck_assert_msg(off <= m * n / 20, "half_gemm %s: %d of %lld results one ulp off", cases[t],
                      off, (long long)(m * n));
        free(C);
    }
}
END_TEST

START_TEST(test_gemm_edge_cases_and_errors)
{
    float A[6] = {1, 2, 3, 4, 5, 6}, B[6] = {1, 1, 1, 1, 1, 1};
    float C[4] = {NAN, NAN, NAN, NAN};
    /* k == 0 with beta == 0: C = 0, never read */
    ck_assert_int_eq(
        half_gemm(false, false, 2, 2, 0, 1.0f, NULL, 2, NULL, 1, 0.0f, C, 2, DTYPE_F16, DTYPE_F16),
        ERR_OK);
    for (int i = 0; i < 4; i++)
        ck_assert_uint_eq(bits_of(C[i]), 0);
    /* k == 0 otherwise: C = beta C, rounded */
    C[0] = 1.0f, C[1] = 1.0f / 3.0f, C[2] = -2.0f, C[3] = 70000.0f;
    ck_assert_int_eq(
        half_gemm(false, false, 2, 2, 0, 1.0f, NULL, 2, NULL, 1, 1.0f, C, 2, DTYPE_F16, DTYPE_F16),
        ERR_OK);
    ck_assert(C[0] == 1.0f && C[1] == half_to_float(half_from_float(1.0f / 3.0f)) &&
              C[2] == -2.0f && isinf(C[3]));
    /* nothing to do */
    ck_assert_int_eq(half_gemm(false, false, 0, 2, 3, 1.0f, NULL, 1, NULL, 3, 0.0f, NULL, 1,
                               DTYPE_BF16, DTYPE_BF16),
                     ERR_OK);
    /* errors */
    ck_assert_int_eq(
        half_gemm(false, false, 2, 2, 3, 1.0f, A, 1, B, 3, 0.0f, C, 2, DTYPE_F16, DTYPE_F16),
        ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err_message(), "lda 1"));
    ck_assert_int_eq(
        half_gemm(true, false, 2, 2, 3, 1.0f, A, 2, B, 3, 0.0f, C, 2, DTYPE_F16, DTYPE_F16),
        ERR_ARG);
    ck_assert_int_eq(
        half_gemm(false, false, 2, 2, 3, 1.0f, A, 2, B, 3, 0.0f, C, 2, DTYPE_F16, DTYPE_BF16),
        ERR_ARG);
    ck_assert_int_eq(
        half_gemm(false, false, 2, 2, 3, 1.0f, A, 2, B, 3, 0.0f, C, 2, DTYPE_I32, DTYPE_F32),
        ERR_ARG);
    ck_assert_int_eq(
        half_gemm(false, false, -1, 2, 3, 1.0f, A, 2, B, 3, 0.0f, C, 2, DTYPE_F16, DTYPE_F16),
        ERR_ARG);
    ck_assert_int_eq(
        half_gemm(false, false, 2, 2, 3, 1.0f, NULL, 2, B, 3, 0.0f, C, 2, DTYPE_F16, DTYPE_F16),
        ERR_ARG);
    /* f32 in and out is a plain sgemm: A (2, 3) B (3, 2) of ones */
    ck_assert_int_eq(
        half_gemm(false, false, 2, 2, 3, 1.0f, A, 2, B, 3, 0.0f, C, 2, DTYPE_F32, DTYPE_F32),
        ERR_OK);
    ck_assert(C[0] == 9.0f && C[1] == 12.0f && C[2] == 9.0f && C[3] == 12.0f);
}
END_TEST

/* ---- the loss scaler's checks ------------------------------------------------- */

START_TEST(test_nonfinite_count_and_unscale_check)
{
    enum { N = 37 };
    const float bad_values[] = {INFINITY, -INFINITY, NAN, float_of(0x7f800001u)};
    const int positions[] = {0, N / 2, N - 1, -1}; /* -1: no bad value */
    for (int b = 0; b < 4; b++)
        for (int p = 0; p < 4; p++) {
            float g[N], want[N];
            for (int i = 0; i < N; i++)
                g[i] = (float)(i - 18) * 1024.0f + 0.75f;
            if (positions[p] >= 0) g[positions[p]] = bad_values[b];
            for (int i = 0; i < N; i++)
                want[i] = g[i] * 0x1p-16f;
            ck_assert_int_eq(half_count_nonfinite(g, N), positions[p] >= 0);
            int found = 0;
            ck_assert_int_eq(half_unscale_check(g, N, 0x1p-16f, &found), ERR_OK);
            ck_assert_msg(found == (positions[p] >= 0), "bad value %g at %d: found_inf = %d",
                          (double)bad_values[b], positions[p], found);
            for (int i = 0; i < N; i++)
                ck_assert_msg(bits_of(g[i]) == bits_of(want[i]) || (isnan(g[i]) && isnan(want[i])),
                              "g[%d] = %a, expected %a", i, (double)g[i], (double)want[i]);
            /* the flag collects: a clean tensor afterwards does not reset it */
            found = 1;
            ck_assert_int_eq(half_unscale_check(want, N / 2 - 1, 1.0f, &found), ERR_OK);
            ck_assert_int_eq(found, 1);
        }
    /* values past 65504 are finite floats: only inf and NaN count */
    float big[3] = {1e30f, -HALF_BF16_MAX, 65536.0f};
    ck_assert_int_eq(half_count_nonfinite(big, 3), 0);
    ck_assert_int_eq(half_count_nonfinite(NULL, 0), 0);
    int found = 0;
    ck_assert_int_eq(half_unscale_check(NULL, 0, 0.5f, &found), ERR_OK);
    ck_assert_int_eq(half_unscale_check(big, -1, 0.5f, &found), ERR_ARG);
    ck_assert_int_eq(half_unscale_check(big, 3, 0.5f, NULL), ERR_ARG);
    ck_assert_int_eq(found, 0);
}
END_TEST

Suite *half_suite(void)
{
    Suite *s = suite_create("half");
    TCase *tc = tcase_create("half");
    tcase_add_test(tc, test_f16_rounding_matches_pytorch);
    tcase_add_test(tc, test_bf16_rounding_matches_pytorch);
    tcase_add_test(tc, test_widening_matches_pytorch);
    tcase_add_test(tc, test_f16_every_pattern_widens_exactly);
    tcase_add_test(tc, test_bf16_every_pattern_round_trips);
    tcase_add_test(tc, test_limits_are_the_f16_and_bf16_limits);
    tcase_add_test(tc, test_arrays_equal_scalars_for_every_length_and_offset);
    tcase_add_test(tc, test_arrays_equal_scalars_across_float32);
    tcase_add_test(tc, test_array_arguments_are_checked);
    tcase_add_test(tc, test_gemm_f16_matches_pytorch_exactly);
    tcase_add_test(tc, test_gemm_bf16_matches_pytorch_exactly);
    tcase_add_test(tc, test_gemm_general_inputs_within_one_ulp);
    tcase_add_test(tc, test_gemm_edge_cases_and_errors);
    tcase_add_test(tc, test_nonfinite_count_and_unscale_check);
    suite_add_tcase(s, tc);
    return s;
}
