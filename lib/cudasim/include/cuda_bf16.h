/*
 * cuda_bf16.h for the CUDA simulator: the bfloat16 type `__nv_bfloat16`, its
 * pair `__nv_bfloat162`, their conversions, arithmetic and comparisons, with
 * CUDA's names and a GPU's results bit for bit, for host and device code.
 *
 * The same operations as cuda_fp16.h's, with the same rules (each result
 * rounded to bfloat16, `__hfma` rounding once, NaN results CUDA's canonical
 * 0x7FFF; see that header). Widening to float appends 16 zero bits (exact,
 * a NaN keeps its payload). C code sees only `__nv_bfloat16_raw`, as with
 * the real header.
 */
#ifndef CUDASIM_CUDA_BF16_H
#define CUDASIM_CUDA_BF16_H

#include "cuda_fp16.h"

/** The bits of a bfloat16 (what C code and static initialisers see). */
typedef struct __attribute__((aligned(2))) {
    unsigned short x;
} __nv_bfloat16_raw;

/** The bits of a pair of bfloat16 values. */
typedef struct __attribute__((aligned(4))) {
    unsigned short x, y;
} __nv_bfloat162_raw;

#ifdef __cplusplus

struct __attribute__((aligned(2))) __nv_bfloat16 {
    CUDASIM_HALF_MEMBERS(__nv_bfloat16, __nv_bfloat16_raw, 7)
};
typedef __nv_bfloat16 nv_bfloat16;

CUDASIM_HALF_SCALAR(__nv_bfloat16, __nv_bfloat16_raw, 7, bfloat16)

/** Two bfloat16 values in 32 bits: x the low one. */
struct __attribute__((aligned(4))) __nv_bfloat162 {
    __nv_bfloat16 x, y;
    __nv_bfloat162() = default;
    constexpr __nv_bfloat162(const __nv_bfloat16 &a, const __nv_bfloat16 &b) : x(a), y(b) {}
    __nv_bfloat162(const __nv_bfloat162_raw &r)
        : x(__nv_bfloat16_raw{r.x}), y(__nv_bfloat16_raw{r.y})
    {
    }
    operator __nv_bfloat162_raw() const
    {
        __nv_bfloat162_raw r;
        r.x = static_cast<__nv_bfloat16_raw>(x).x;
        r.y = static_cast<__nv_bfloat16_raw>(y).x;
        return r;
    }
};
typedef __nv_bfloat162 nv_bfloat162;

CUDASIM_HALF_PAIR(__nv_bfloat162, __nv_bfloat16, 7, bfloat16, bfloat162)
CUDASIM_HALF_ATOMICS(__nv_bfloat16, __nv_bfloat162)

#endif /* __cplusplus */

#endif /* CUDASIM_CUDA_BF16_H */
