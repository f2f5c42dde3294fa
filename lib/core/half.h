/**
 * @file half.h
 * @brief Half precision on the CPU: f16 and bf16 conversions, rounding, a
 *        half-precision matrix product and the checks a loss scaler needs.
 *
 * Mixed precision (Lesson 05) keeps f32 master weights and runs matrix
 * products in f16 or bf16 with f32 accumulation, as autocast and cuBLAS do on
 * a GPU. On the CPU the workbook emulates it: a value "stored in half
 * precision" is an f32 value rounded through the half type (half_round()),
 * so the CPU and a GPU see the same numbers.
 *
 * Every conversion gives the bits PyTorch's CPU gives (`x.to(torch.float16)`,
 * `x.to(torch.bfloat16)`, `h.float()`): round to nearest, ties to even;
 * overflow to ±inf; subnormals kept; -0 kept. NaN stays a quiet NaN and is
 * never rounded into inf; its bits are PyTorch's: f16 keeps the sign and
 * writes 0x7E00 (0xFE00), bf16 writes 0xFFFF for every NaN (what PyTorch's
 * vectorised CPU conversion stores). CUDA writes 0x7FFF for both
 * (`__float2half_rn`, `__float2bfloat16_rn`), so NaN bits differ between the
 * CPU and a GPU while every other value is the same.
 *
 * The array forms run inside training loops: they use F16C and AVX-512 when
 * the build targets them (-march=native on a recent x86-64) and a loop the
 * compiler can vectorise otherwise, with the same results.
 */
#ifndef WB_HALF_H
#define WB_HALF_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/core/err.h"
#include "lib/core/dtype.h"

/** Largest finite f16 value, 65504 (0x7BFF); 65520 and above round to inf. */
#define HALF_F16_MAX 65504.0f
/** Smallest positive normal f16 value, 2^-14 = 6.1035e-05 (0x0400). */
#define HALF_F16_MIN_NORMAL 0x1p-14f
/** Smallest positive subnormal f16 value, 2^-24 = 5.9605e-08 (0x0001); half of it rounds to 0. */
#define HALF_F16_MIN_SUBNORMAL 0x1p-24f
/** Distance from 1 to the next f16 value, 2^-10 (`torch.finfo(torch.float16).eps`). */
#define HALF_F16_EPSILON 0x1p-10f
/** Largest finite bf16 value, 3.3895e+38 (0x7F7F). */
#define HALF_BF16_MAX 0x1.fep127f
/** Smallest positive normal bf16 value, 2^-126 = 1.1755e-38 (0x0080), as in f32. */
#define HALF_BF16_MIN_NORMAL 0x1p-126f
/** Distance from 1 to the next bf16 value, 2^-7 (`torch.finfo(torch.bfloat16).eps`). */
#define HALF_BF16_EPSILON 0x1p-7f

/** @brief The f16 bits of @p x, rounded to nearest even (`torch.float16`). */
uint16_t half_from_float(float x);

/** @brief The f32 value of the f16 bits @p h (exact; a signalling NaN comes back quiet). */
float half_to_float(uint16_t h);

/** @brief The bf16 bits of @p x: its top 16 bits, rounded to nearest even (`torch.bfloat16`). */
uint16_t bf16_from_float(float x);

/** @brief The f32 value of the bf16 bits @p h: the bits followed by 16 zero bits (exact). */
float bf16_to_float(uint16_t h);

/**
 * @brief Convert @p n floats @p x to half bits @p h of @p dtype (::DTYPE_F16 or ::DTYPE_BF16).
 *
 * h[i] is half_from_float(x[i]) or bf16_from_float(x[i]), computed many at a
 * time. Any alignment is allowed. Returns ::ERR_ARG for another dtype, a
 * negative @p n or a NULL pointer with @p n > 0.
 */
WB_MUST_CHECK int half_encode(const float *x, uint16_t *h, int64_t n, DType dtype);

/**
 * @brief Convert @p n half bits @p h of @p dtype to floats @p x (the reverse of half_encode()).
 *
 * x[i] is half_to_float(h[i]) or bf16_to_float(h[i]); the conversion is
 * exact. Errors as for half_encode().
 */
WB_MUST_CHECK int half_decode(const uint16_t *h, float *x, int64_t n, DType dtype);

/**
 * @brief Round @p n floats in place through @p dtype and back: x[i] = float(half(x[i])).
 *
 * The emulation primitive of mixed precision: afterwards each value is what
 * storing it in f16 or bf16 keeps (`x.to(dtype).float()` in PyTorch), values
 * beyond the range become ±inf and NaN stays NaN. ::DTYPE_F32 leaves @p x
 * unchanged, so callers can pass the autocast dtype whether autocast is on or
 * off. Returns ::ERR_ARG for ::DTYPE_I32, a negative @p n or a NULL @p x with
 * @p n > 0.
 */
WB_MUST_CHECK int half_round(float *x, int64_t n, DType dtype);

/**
 * @brief C = alpha op(A) op(B) + beta C as cuBLAS computes it with half inputs and f32 compute.
 *
 * The CPU twin of `cublasGemmEx` with A and B in @p in_dtype, f32
 * accumulation (CUBLAS_COMPUTE_32F) and C in @p out_dtype. A, B and C hold
 * f32 values; the entries of A and B that op() uses are first rounded to
 * @p in_dtype (on copies: A and B are not changed), multiplied with f32
 * accumulation by OpenBLAS, and the m x n result alpha * sum + beta * C is
 * rounded to @p out_dtype. Column-major as in BLAS: op(A) is (m, k),
 * op(B) is (k, n), C is (m, n), with leading dimensions @p lda >= the rows of
 * A as stored (m, or k when @p ta), @p ldb likewise, @p ldc >= m, each at
 * least 1. @p in_dtype is ::DTYPE_F16, ::DTYPE_BF16 or ::DTYPE_F32 (a plain
 * sgemm); @p out_dtype is @p in_dtype or ::DTYPE_F32, the pairs cuBLAS
 * supports. As in BLAS, C is not read when beta is 0; with k == 0,
 * C = beta C (rounded). Sizes beyond 2^31 - 1, bad leading dimensions or
 * dtypes and NULL pointers are ::ERR_ARG, a failed allocation ::ERR_NOMEM.
 */
WB_MUST_CHECK int half_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float *A,
              int64_t lda, const float *B, int64_t ldb, float beta, float *C, int64_t ldc,
              DType in_dtype, DType out_dtype);

/**
 * @brief How many of the @p n floats at @p x are inf or NaN (0 when @p n <= 0).
 *
 * What a loss scaler asks of gradients on the CPU: any non-finite value
 * means the scale was too large and the step is skipped.
 */
int64_t half_count_nonfinite(const float *x, int64_t n);

/**
 * @brief GradScaler's unscale: g[i] *= inv_scale, and *found_inf = 1 if any g[i] was inf or NaN.
 *
 * The CPU twin of k_unscale_check() and of PyTorch's
 * `_amp_foreach_non_finite_check_and_unscale_`: every value is multiplied
 * (non-finite ones stay non-finite), and *found_inf is set to 1 when a value
 * was inf or NaN but never reset to 0, so one flag can collect the result of
 * several gradient tensors. Returns ::ERR_ARG for a negative @p n or NULL
 * pointers with @p n > 0.
 */
WB_MUST_CHECK int half_unscale_check(float *g, int64_t n, float inv_scale, int *found_inf);

#endif /* WB_HALF_H */
