/*
 * cuda_bf16.h for the CUDA simulator: the bfloat16 type `__nv_bfloat16` and
 * its conversions, with CUDA's names and results, for host and device code.
 *
 * Rounding to bfloat16 keeps the top 16 bits of a float, rounded to nearest
 * even like `cvt.rn.bf16.f32`; every NaN becomes CUDA's 0x7FFF, never inf.
 * Widening appends 16 zero bits (exact, NaN payloads kept). C code sees only
 * `__nv_bfloat16_raw`, as with the real header. As with `__half`
 * (cuda_fp16.h), there is no bfloat16 arithmetic: values convert to float.
 */
#ifndef CUDASIM_CUDA_BF16_H
#define CUDASIM_CUDA_BF16_H

#include "cuda_fp16.h"

/** The bits of a bfloat16 (what C code and static initialisers see). */
typedef struct __attribute__((aligned(2))) {
    unsigned short x;
} __nv_bfloat16_raw;

#ifdef __cplusplus

struct __nv_bfloat16;
static inline __nv_bfloat16 __float2bfloat16_rn(float a);
static inline float __bfloat162float(__nv_bfloat16 a);

struct __attribute__((aligned(2))) __nv_bfloat16 {
  protected:
    unsigned short __x;

  public:
    __nv_bfloat16() = default;
    __nv_bfloat16(const __nv_bfloat16_raw &hr) : __x(hr.x) {}
    __nv_bfloat16 &operator=(const __nv_bfloat16_raw &hr)
    {
        __x = hr.x;
        return *this;
    }
    operator __nv_bfloat16_raw() const
    {
        __nv_bfloat16_raw r;
        r.x = __x;
        return r;
    }
    __nv_bfloat16(float f) { __x = static_cast<__nv_bfloat16_raw>(__float2bfloat16_rn(f)).x; }
    operator float() const { return __bfloat162float(*this); }
};

typedef __nv_bfloat16 nv_bfloat16;

static inline __nv_bfloat16 __float2bfloat16_rn(float a)
{
    unsigned int u = cudasim::float_bits(a);
    __nv_bfloat16_raw r;
    r.x = (u & 0x7fffffffu) > 0x7f800000u
              ? (unsigned short)0x7fffu
              : (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
    return r;
}

static inline __nv_bfloat16 __float2bfloat16(float a)
{
    return __float2bfloat16_rn(a);
}

static inline float __bfloat162float(__nv_bfloat16 a)
{
    return cudasim::bits_float((unsigned int)static_cast<__nv_bfloat16_raw>(a).x << 16);
}

static inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 h)
{
    return static_cast<__nv_bfloat16_raw>(h).x;
}

static inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short i)
{
    __nv_bfloat16_raw r;
    r.x = i;
    return r;
}

static inline bool __hisnan(__nv_bfloat16 a)
{
    return (__bfloat16_as_ushort(a) & 0x7fffu) > 0x7f80u;
}

static inline int __hisinf(__nv_bfloat16 a)
{
    unsigned short h = __bfloat16_as_ushort(a);
    return h == 0x7f80u ? 1 : h == 0xff80u ? -1 : 0;
}

#endif /* __cplusplus */

#endif /* CUDASIM_CUDA_BF16_H */
