/* half.c: f16 and bf16 on the CPU, bit for bit as PyTorch's CPU computes them.
 *
 * The scalar conversions work on the bits with integer arithmetic only: the
 * library is built with -fassociative-math and -fno-signed-zeros, which allow
 * the compiler to rewrite float expressions (folding x * 2^112 * 2^-110, or
 * dropping the sign of a zero), and a rounding routine must not be rewritten.
 * They are also branch-free (selects, not jumps), so that a loop over them
 * vectorises. The array forms use F16C / AVX-512's conversion instructions
 * where the build targets them; those round to nearest even like IEEE and
 * PyTorch, and differ only in the bits of a NaN, which are fixed up.
 */
#include "lib/core/half.h"

#include <cblas.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__F16C__) || defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "lib/core/err.h"

static inline uint32_t bits_of(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static inline float float_of(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* f32 bits -> f16 bits, rounded to nearest even. */
static inline uint16_t f16_from_bits(uint32_t u)
{
    uint32_t sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
    /* |x| >= 2^-14 (a normal f16): rebias the exponent from 127 to 15 and round
     * off the 13 low mantissa bits (adding 0xFFF, plus 1 when the kept part is
     * odd, carries exactly at more than half, or at half to even). A carry out
     * of the mantissa bumps the exponent, which is right; from 65520 on the
     * result reaches 0x7C00 or beyond and becomes inf (inf itself included). */
    uint32_t normal = (a - 0x38000000u + 0xfffu + ((a >> 13) & 1u)) >> 13;
    normal = normal < 0x7c00u ? normal : 0x7c00u;
    /* |x| < 2^-14: the 24-bit significand in units of 2^-24, rounded the same
     * way; below 2^-25 (exponent < 102) everything shifts out and gives 0. The
     * shift is clamped to 1..31 so that lanes that take the other branches
     * stay defined. */
    uint32_t e = a >> 23, m = (a & 0x7fffffu) | 0x800000u;
    uint32_t shift = e > 112u ? 14u : e < 95u ? 31u : 126u - e;
    uint32_t sub = (m + (1u << (shift - 1)) - 1u + ((m >> shift) & 1u)) >> shift;
    uint32_t out = a >= 0x38800000u ? normal : sub;
    /* NaN: PyTorch's quiet NaN with the sign kept (never rounded into inf). */
    out = a > 0x7f800000u ? 0x7e00u : out;
    return (uint16_t)(sign | out);
}

/* f16 bits -> f32 bits (exact). */
static inline uint32_t f16_to_bits(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    uint32_t normal = ((e + 112u) << 23) | (m << 13);
    /* inf, or NaN with its payload and the quiet bit set, as PyTorch widens it */
    uint32_t special = 0x7f800000u | (m << 13) | (m ? 0x400000u : 0u);
    /* subnormal (or zero): m * 2^-24 is exact in f32 */
    uint32_t sub = bits_of((float)m * 0x1p-24f);
    uint32_t out = e == 0x1fu ? special : e ? normal : sub;
    return sign | out;
}

/* f32 bits -> bf16 bits: the top half, rounded to nearest even; the carry of
 * the largest values into the exponent gives inf, as it should. */
static inline uint16_t bf16_from_bits(uint32_t u)
{
    uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    /* NaN: PyTorch's vectorised conversion stores 0xFFFF for every NaN. */
    return (uint16_t)((u & 0x7fffffffu) > 0x7f800000u ? 0xffffu : rounded);
}

uint16_t half_from_float(float x)
{
    return f16_from_bits(bits_of(x));
}

float half_to_float(uint16_t h)
{
    return float_of(f16_to_bits(h));
}

uint16_t bf16_from_float(float x)
{
    return bf16_from_bits(bits_of(x));
}

float bf16_to_float(uint16_t h)
{
    return float_of((uint32_t)h << 16);
}

/* ---- arrays ---------------------------------------------------------------- */

#if defined(__F16C__) || defined(__AVX512F__)
#define F16_ROUNDING (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

/* vcvtps2ph keeps a NaN's payload; PyTorch writes sign | 0x7E00. */
static inline __m128i f16_fix_nan128(__m128i h)
{
    __m128i nan = _mm_cmpgt_epi16(_mm_and_si128(h, _mm_set1_epi16(0x7fff)), _mm_set1_epi16(0x7c00));
    __m128i canonical =
        _mm_or_si128(_mm_and_si128(h, _mm_set1_epi16((short)0x8000)), _mm_set1_epi16(0x7e00));
    return _mm_blendv_epi8(h, canonical, nan);
}

/* The f32 NaNs PyTorch's f16 round trip gives: sign | 0x7FC00000. */
static inline __m256 f16_round_fix_nan256(__m256 x, __m256 rounded)
{
    __m256 nan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
    __m256 canonical =
        _mm256_or_ps(_mm256_and_ps(x, _mm256_castsi256_ps(_mm256_set1_epi32(INT32_MIN))),
                     _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000)));
    return _mm256_blendv_ps(rounded, canonical, nan);
}
#endif

#ifdef __AVX512F__
static inline __m256i f16_fix_nan256(__m256i h)
{
    __m256i nan = _mm256_cmpgt_epi16(_mm256_and_si256(h, _mm256_set1_epi16(0x7fff)),
                                     _mm256_set1_epi16(0x7c00));
    __m256i canonical = _mm256_or_si256(_mm256_and_si256(h, _mm256_set1_epi16((short)0x8000)),
                                        _mm256_set1_epi16(0x7e00));
    return _mm256_blendv_epi8(h, canonical, nan);
}
#endif

static void f16_encode(const float *x, uint16_t *h, int64_t n)
{
    int64_t i = 0;
#ifdef __AVX512F__
    for (; i + 16 <= n; i += 16) {
        __m256i b = _mm512_cvtps_ph(_mm512_loadu_ps(x + i), F16_ROUNDING);
        _mm256_storeu_si256((__m256i *)(h + i), f16_fix_nan256(b));
    }
#endif
#ifdef __F16C__
    for (; i + 8 <= n; i += 8) {
        __m128i b = _mm256_cvtps_ph(_mm256_loadu_ps(x + i), F16_ROUNDING);
        _mm_storeu_si128((__m128i *)(h + i), f16_fix_nan128(b));
    }
#endif
    for (; i < n; i++)
        h[i] = f16_from_bits(bits_of(x[i]));
}

/* vcvtph2ps widens exactly and quiets a signalling NaN as PyTorch does. */
static void f16_decode(const uint16_t *h, float *x, int64_t n)
{
    int64_t i = 0;
#ifdef __AVX512F__
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_ps(x + i, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(h + i))));
#endif
#ifdef __F16C__
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(x + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(h + i))));
#endif
    for (; i < n; i++)
        x[i] = float_of(f16_to_bits(h[i]));
}

static void f16_round(float *x, int64_t n)
{
    int64_t i = 0;
#ifdef __AVX512F__
    for (; i + 16 <= n; i += 16) {
        __m512 v = _mm512_loadu_ps(x + i);
        __m512 r = _mm512_cvtph_ps(_mm512_cvtps_ph(v, F16_ROUNDING));
        __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
        __m512i canonical =
            _mm512_or_si512(_mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(INT32_MIN)),
                            _mm512_set1_epi32(0x7fc00000));
        _mm512_storeu_ps(x + i, _mm512_mask_blend_ps(nan, r, _mm512_castsi512_ps(canonical)));
    }
#endif
#ifdef __F16C__
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        __m256 r = _mm256_cvtph_ps(_mm256_cvtps_ph(v, F16_ROUNDING));
        _mm256_storeu_ps(x + i, f16_round_fix_nan256(v, r));
    }
#endif
    for (; i < n; i++)
        x[i] = float_of(f16_to_bits(f16_from_bits(bits_of(x[i]))));
}

/* bf16 needs no special instructions: these loops vectorise as they are. */
static void bf16_encode(const float *x, uint16_t *h, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        h[i] = bf16_from_bits(bits_of(x[i]));
}

static void bf16_decode(const uint16_t *h, float *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        x[i] = float_of((uint32_t)h[i] << 16);
}

static void bf16_round(float *x, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        x[i] = float_of((uint32_t)bf16_from_bits(bits_of(x[i])) << 16);
}

/* The checks the array functions share. */
static int check_array(const char *op, const void *a, const void *b, int64_t n, DType dtype,
                       bool f32_ok)
{
    if (dtype != DTYPE_F16 && dtype != DTYPE_BF16 && !(f32_ok && dtype == DTYPE_F32))
        return err_set(ERR_ARG, "%s: dtype %s is not a half type (float16 or bfloat16%s)", op,
                       dtype_name(dtype), f32_ok ? ", or float32 to leave the values" : "");
    if (n < 0) return err_set(ERR_ARG, "%s: negative length %lld", op, (long long)n);
    if (n > 0 && (!a || !b))
        return err_set(ERR_ARG, "%s: NULL array for %lld values", op, (long long)n);
    return ERR_OK;
}

int half_encode(const float *x, uint16_t *h, int64_t n, DType dtype)
{
    TRY(check_array("half_encode", x, h, n, dtype, false));
    if (dtype == DTYPE_F16)
        f16_encode(x, h, n);
    else
        bf16_encode(x, h, n);
    return ERR_OK;
}

int half_decode(const uint16_t *h, float *x, int64_t n, DType dtype)
{
    TRY(check_array("half_decode", h, x, n, dtype, false));
    if (dtype == DTYPE_F16)
        f16_decode(h, x, n);
    else
        bf16_decode(h, x, n);
    return ERR_OK;
}

int half_round(float *x, int64_t n, DType dtype)
{
    TRY(check_array("half_round", x, x, n, dtype, true));
    if (dtype == DTYPE_F16)
        f16_round(x, n);
    else if (dtype == DTYPE_BF16)
        bf16_round(x, n);
    return ERR_OK;
}

/* ---- the matrix product ------------------------------------------------------ */

/* A (rows, cols) block of a column-major matrix with leading dimension ld,
 * copied densely and rounded through dtype; NULL when memory runs out. */
static float *rounded_copy(const float *src, int64_t rows, int64_t cols, int64_t ld, DType dtype)
{
    if ((uint64_t)rows * (uint64_t)cols > SIZE_MAX / sizeof(float)) return NULL;
    float *dst = malloc((size_t)(rows * cols) * sizeof(float));
    if (!dst) return NULL;
    for (int64_t j = 0; j < cols; j++)
        memcpy(dst + j * rows, src + j * ld, (size_t)rows * sizeof(float));
    if (half_round(dst, rows * cols, dtype) != ERR_OK) {
        free(dst);
        return NULL;
    }
    return dst;
}

int half_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float *A,
              int64_t lda, const float *B, int64_t ldb, float beta, float *C, int64_t ldc,
              DType in_dtype, DType out_dtype)
{
    if (in_dtype != DTYPE_F16 && in_dtype != DTYPE_BF16 && in_dtype != DTYPE_F32)
        return err_set(ERR_ARG, "half_gemm: input dtype %s (float16, bfloat16 or float32)",
                       dtype_name(in_dtype));
    if (out_dtype != in_dtype && out_dtype != DTYPE_F32)
        return err_set(ERR_ARG,
                       "half_gemm: %s inputs give a %s or float32 result, not %s (as in "
                       "cublasGemmEx)",
                       dtype_name(in_dtype), dtype_name(in_dtype), dtype_name(out_dtype));
    if (m < 0 || n < 0 || k < 0 || m > INT_MAX || n > INT_MAX || k > INT_MAX)
        return err_set(ERR_ARG, "half_gemm: sizes (m %lld, n %lld, k %lld) out of 0 .. 2^31 - 1",
                       (long long)m, (long long)n, (long long)k);
    int64_t a_rows = ta ? k : m, a_cols = ta ? m : k, b_rows = tb ? n : k, b_cols = tb ? k : n;
    if (lda < (a_rows > 1 ? a_rows : 1) || ldb < (b_rows > 1 ? b_rows : 1) ||
        ldc < (m > 1 ? m : 1) || lda > INT_MAX || ldb > INT_MAX || ldc > INT_MAX)
        return err_set(ERR_ARG,
                       "half_gemm: leading dimensions lda %lld, ldb %lld, ldc %lld must be at "
                       "least the rows of A (%lld), B (%lld) and C (%lld), and at least 1",
                       (long long)lda, (long long)ldb, (long long)ldc, (long long)a_rows,
                       (long long)b_rows, (long long)m);
    if (m == 0 || n == 0) return ERR_OK;
    if (!C || (k > 0 && (!A || !B)))
        return err_set(ERR_ARG, "half_gemm: NULL matrix for a (%lld, %lld) x (%lld, %lld) product",
                       (long long)m, (long long)k, (long long)k, (long long)n);
    if (k == 0) { /* no products: C = beta C, not read when beta is 0 */
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < m; i++)
                C[i + j * ldc] = beta == 0.0f ? 0.0f : beta * C[i + j * ldc];
    } else {
        const float *a = A, *b = B;
        float *a_copy = NULL, *b_copy = NULL;
        if (in_dtype != DTYPE_F32) {
            a = a_copy = rounded_copy(A, a_rows, a_cols, lda, in_dtype);
            b = b_copy = rounded_copy(B, b_rows, b_cols, ldb, in_dtype);
            if (!a_copy || !b_copy) {
                free(a_copy), free(b_copy);
                return err_set(ERR_NOMEM,
                               "half_gemm: no memory for %s copies of A (%lld, %lld) "
                               "and B (%lld, %lld)",
                               dtype_name(in_dtype), (long long)a_rows, (long long)a_cols,
                               (long long)b_rows, (long long)b_cols);
            }
            lda = a_rows, ldb = b_rows;
        }
        cblas_sgemm(CblasColMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                    (int)m, (int)n, (int)k, alpha, a, (int)lda, b, (int)ldb, beta, C, (int)ldc);
        free(a_copy), free(b_copy);
    }
    if (out_dtype != DTYPE_F32)
        for (int64_t j = 0; j < n; j++) TRY(half_round(C + j * ldc, m, out_dtype));
    return ERR_OK;
}

/* ---- the loss scaler's checks ------------------------------------------------- */

/* inf and NaN are the values whose exponent bits are all ones. */
static inline bool nonfinite(float x)
{
    return (bits_of(x) & 0x7f800000u) == 0x7f800000u;
}

int64_t half_count_nonfinite(const float *x, int64_t n)
{
    int64_t count = 0;
    for (int64_t i = 0; i < n; i++)
        count += nonfinite(x[i]);
    return count;
}

int half_unscale_check(float *g, int64_t n, float inv_scale, int *found_inf)
{
    if (n < 0) return err_set(ERR_ARG, "half_unscale_check: negative length %lld", (long long)n);
    if (n > 0 && (!g || !found_inf))
        return err_set(ERR_ARG, "half_unscale_check: NULL gradient or flag for %lld values",
                       (long long)n);
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        bad |= nonfinite(g[i]);
        g[i] *= inv_scale;
    }
    if (bad) *found_inf = 1;
    return ERR_OK;
}
