/*
 * cuda_fp16.h for the CUDA simulator: the half-precision type `__half`, its
 * pair `__half2`, their conversions, arithmetic and comparisons, with CUDA's
 * names and a GPU's results bit for bit, for host and device code.
 *
 * Every operation rounds its result to half as a GPU's half instructions do,
 * so `a + b + c` on halves is two half additions, `(a + b) * c` rounds the
 * sum before the product, and a half running sum stalls where it stalls on a
 * GPU (cudasim_half_ops.h says how, cudasim_half_round.h rounds). `__hfma`
 * rounds the exact a * b + c once. Conversions from float, double and the
 * integer types round to nearest even (`_rz`, `_rd`, `_ru`: as named);
 * conversions to integers round towards zero and saturate (the named forms:
 * as named), NaN giving 0. Every NaN a conversion or operation produces is
 * CUDA's canonical 0x7FFF (0x7FFFFFFF when widened to float). As in CUDA a
 * `__half` converts implicitly to and from float, double and the integer
 * types, and mixing it with a float in one operator is ambiguous (`h + 1.0f`
 * is refused by nvcc as by g++): write `h + __float2half(1.0f)` or
 * `__half2float(h) + 1.0f`. C code sees only `__half_raw`, as with the real
 * header.
 */
#ifndef CUDASIM_CUDA_FP16_H
#define CUDASIM_CUDA_FP16_H

/** The bits of a half (what C code and static initialisers see). */
typedef struct __attribute__((aligned(2))) {
    unsigned short x;
} __half_raw;

/** The bits of a pair of halves. */
typedef struct __attribute__((aligned(4))) {
    unsigned short x, y;
} __half2_raw;

#ifdef __cplusplus
#include <cmath>

#include "cuda_runtime_api.h"
#include "cudasim_half_ops.h"

struct __attribute__((aligned(2))) __half {
    CUDASIM_HALF_MEMBERS(__half, __half_raw, 10)
};
typedef __half half;

CUDASIM_HALF_SCALAR(__half, __half_raw, 10, half)

/* Math functions: computed in float and rounded once (a GPU's approximate
 * instructions may differ in the last bit). */
static inline __half hsqrt(__half a) { return __float2half_rn(sqrtf(__half2float(a))); }
static inline __half hexp(__half a) { return __float2half_rn(expf(__half2float(a))); }
static inline __half hlog(__half a) { return __float2half_rn(logf(__half2float(a))); }

/** Two halves in 32 bits: x the low one. */
struct __attribute__((aligned(4))) __half2 {
    __half x, y;
    __half2() = default;
    constexpr __half2(const __half &a, const __half &b) : x(a), y(b) {}
    __half2(const __half2_raw &r) : x(__half_raw{r.x}), y(__half_raw{r.y}) {}
    operator __half2_raw() const
    {
        __half2_raw r;
        r.x = static_cast<__half_raw>(x).x;
        r.y = static_cast<__half_raw>(y).x;
        return r;
    }
};
typedef __half2 half2;

CUDASIM_HALF_PAIR(__half2, __half, 10, half, half2)
CUDASIM_HALF_ATOMICS(__half, __half2)

#endif /* __cplusplus */

#endif /* CUDASIM_CUDA_FP16_H */
