/*
 * cuda_fp16.h for the CUDA simulator: the half-precision type `__half` and
 * its conversions, with CUDA's names and results, for host and device code.
 *
 * Conversions round to nearest even like `cvt.rn.f16.f32` on a GPU, and give
 * CUDA's bits where IEEE leaves a choice: every NaN becomes 0x7FFF (and
 * 0x7FFFFFFF when widened back to float). C code sees only `__half_raw`, as
 * with the real header. A `__half` converts implicitly to and from float (as
 * in CUDA), so `a + b` computes in float. The half arithmetic intrinsics
 * (`__hadd`, `__hmul`, `__hfma`, comparisons) and the pair type `__half2`
 * with its own (`__hadd2`, `__hmul2`, `__floats2half2_rn`, `__low2float`, ...)
 * compute in float and round once to half, which gives a GPU's result for
 * everything but `__hfma`, which may differ in the last bit where a double
 * rounding happens.
 */
#ifndef CUDASIM_CUDA_FP16_H
#define CUDASIM_CUDA_FP16_H

/** The bits of a half (what C code and static initialisers see). */
typedef struct __attribute__((aligned(2))) {
    unsigned short x;
} __half_raw;

#ifdef __cplusplus
#include <cmath>
#include <cstring>

struct __half;
static inline __half __float2half_rn(float a);
static inline float __half2float(__half a);

struct __attribute__((aligned(2))) __half {
  protected:
    unsigned short __x;

  public:
    __half() = default;
    __half(const __half_raw &hr) : __x(hr.x) {}
    __half &operator=(const __half_raw &hr)
    {
        __x = hr.x;
        return *this;
    }
    operator __half_raw() const
    {
        __half_raw r;
        r.x = __x;
        return r;
    }
    __half(float f) { __x = static_cast<__half_raw>(__float2half_rn(f)).x; }
    operator float() const { return __half2float(*this); }
};

typedef __half half;

namespace cudasim {
static inline unsigned int float_bits(float f)
{
    unsigned int u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}
static inline float bits_float(unsigned int u)
{
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}
} // namespace cudasim

/* Round to nearest even, on the bits (the simulator's compiler flags allow
 * float expressions to be reassociated, which a rounding must not be). */
static inline __half __float2half_rn(float a)
{
    unsigned int u = cudasim::float_bits(a), sign = (u >> 16) & 0x8000u, mag = u & 0x7fffffffu;
    unsigned int out;
    if (mag > 0x7f800000u) {
        out = 0x7fffu; /* CUDA's canonical NaN, sign dropped */
        sign = 0;
    } else if (mag >= 0x38800000u) { /* a normal half, or too large: inf */
        out = (mag - 0x38000000u + 0xfffu + ((mag >> 13) & 1u)) >> 13;
        if (out > 0x7c00u) out = 0x7c00u;
    } else if (mag < 0x33000000u) { /* below half the smallest subnormal: 0 */
        out = 0;
    } else { /* a subnormal half: the significand in units of 2^-24 */
        unsigned int shift = 126u - (mag >> 23), m = (mag & 0x7fffffu) | 0x800000u;
        out = (m + (1u << (shift - 1)) - 1u + ((m >> shift) & 1u)) >> shift;
    }
    __half_raw r;
    r.x = (unsigned short)(sign | out);
    return r;
}

static inline __half __float2half(float a)
{
    return __float2half_rn(a);
}

static inline float __half2float(__half a)
{
    unsigned int h = static_cast<__half_raw>(a).x;
    unsigned int sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, u;
    if (e == 0x1f)
        u = m ? 0x7fffffffu : sign | 0x7f800000u; /* NaN: canonical, as cvt.f32.f16 */
    else if (e)
        u = sign | ((e + 112u) << 23) | (m << 13);
    else /* subnormal or zero: m * 2^-24, exact */
        u = sign | cudasim::float_bits((float)m * 0x1p-24f);
    return cudasim::bits_float(u);
}

static inline unsigned short __half_as_ushort(__half h)
{
    return static_cast<__half_raw>(h).x;
}

static inline __half __ushort_as_half(unsigned short i)
{
    __half_raw r;
    r.x = i;
    return r;
}

static inline bool __hisnan(__half a)
{
    return (__half_as_ushort(a) & 0x7fffu) > 0x7c00u;
}

static inline int __hisinf(__half a)
{
    unsigned short h = __half_as_ushort(a);
    return h == 0x7c00u ? 1 : h == 0xfc00u ? -1 : 0;
}


/* ---- half arithmetic: computed in float (exact for +, -, *, / of halves
 * before the one rounding to half, so these are a GPU's results) --------- */
#define CUDASIM_H(x) __half2float(x)
static inline __half __hadd(__half a, __half b) { return __float2half_rn(CUDASIM_H(a) + CUDASIM_H(b)); }
static inline __half __hsub(__half a, __half b) { return __float2half_rn(CUDASIM_H(a) - CUDASIM_H(b)); }
static inline __half __hmul(__half a, __half b) { return __float2half_rn(CUDASIM_H(a) * CUDASIM_H(b)); }
static inline __half __hdiv(__half a, __half b) { return __float2half_rn(CUDASIM_H(a) / CUDASIM_H(b)); }
static inline __half __hfma(__half a, __half b, __half c)
{
    return __float2half_rn((float)((double)CUDASIM_H(a) * CUDASIM_H(b) + CUDASIM_H(c)));
}
static inline __half __hneg(__half a) { return __ushort_as_half((unsigned short)(__half_as_ushort(a) ^ 0x8000u)); }
static inline __half __habs(__half a) { return __ushort_as_half((unsigned short)(__half_as_ushort(a) & 0x7fffu)); }
static inline bool __heq(__half a, __half b) { return CUDASIM_H(a) == CUDASIM_H(b); }
static inline bool __hne(__half a, __half b) { return CUDASIM_H(a) != CUDASIM_H(b) && !__hisnan(a) && !__hisnan(b); }
static inline bool __hlt(__half a, __half b) { return CUDASIM_H(a) < CUDASIM_H(b); }
static inline bool __hle(__half a, __half b) { return CUDASIM_H(a) <= CUDASIM_H(b); }
static inline bool __hgt(__half a, __half b) { return CUDASIM_H(a) > CUDASIM_H(b); }
static inline bool __hge(__half a, __half b) { return CUDASIM_H(a) >= CUDASIM_H(b); }
static inline __half __hmax(__half a, __half b) { return __hisnan(a) ? b : __hisnan(b) ? a : __hgt(a, b) ? a : b; }
static inline __half __hmin(__half a, __half b) { return __hisnan(a) ? b : __hisnan(b) ? a : __hlt(a, b) ? a : b; }
static inline __half hsqrt(__half a) { return __float2half_rn(sqrtf(CUDASIM_H(a))); }
static inline __half hexp(__half a) { return __float2half_rn(expf(CUDASIM_H(a))); }
static inline __half hlog(__half a) { return __float2half_rn(logf(CUDASIM_H(a))); }
static inline __half __int2half_rn(int i) { return __float2half_rn((float)i); }
static inline int __half2int_rz(__half a) { return (int)CUDASIM_H(a); }
static inline int __half2int_rn(__half a) { return (int)nearbyintf(CUDASIM_H(a)); }
/* x += y and friends (a + b itself computes in float, then converts back) */
static inline __half &operator+=(__half &a, __half b) { return a = __hadd(a, b); }
static inline __half &operator-=(__half &a, __half b) { return a = __hsub(a, b); }
static inline __half &operator*=(__half &a, __half b) { return a = __hmul(a, b); }
static inline __half &operator/=(__half &a, __half b) { return a = __hdiv(a, b); }

/* ---- __half2: two halves, 4-byte aligned ------------------------------ */
struct __attribute__((aligned(4))) __half2 {
    __half x, y;
    __half2() = default;
    __half2(__half a, __half b) : x(a), y(b) {}
};
typedef __half2 half2;

static inline __half2 __halves2half2(__half a, __half b) { return __half2(a, b); }
static inline __half2 make_half2(__half a, __half b) { return __half2(a, b); }
static inline __half2 __half2half2(__half a) { return __half2(a, a); }
static inline __half2 __float2half2_rn(float a) { return __half2(__float2half_rn(a), __float2half_rn(a)); }
static inline __half2 __floats2half2_rn(float a, float b) { return __half2(__float2half_rn(a), __float2half_rn(b)); }
static inline float __low2float(__half2 a) { return __half2float(a.x); }
static inline float __high2float(__half2 a) { return __half2float(a.y); }
static inline __half __low2half(__half2 a) { return a.x; }
static inline __half __high2half(__half2 a) { return a.y; }
static inline __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
static inline __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
#define CUDASIM_H2(name, op) \
    static inline __half2 name(__half2 a, __half2 b) { return __half2(op(a.x, b.x), op(a.y, b.y)); }
CUDASIM_H2(__hadd2, __hadd)
CUDASIM_H2(__hsub2, __hsub)
CUDASIM_H2(__hmul2, __hmul)
CUDASIM_H2(__h2div, __hdiv)
CUDASIM_H2(__hmax2, __hmax)
CUDASIM_H2(__hmin2, __hmin)
#undef CUDASIM_H2
static inline __half2 __hfma2(__half2 a, __half2 b, __half2 c)
{
    return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
static inline __half2 __hneg2(__half2 a) { return __half2(__hneg(a.x), __hneg(a.y)); }
static inline __half2 operator+(__half2 a, __half2 b) { return __hadd2(a, b); }
static inline __half2 operator-(__half2 a, __half2 b) { return __hsub2(a, b); }
static inline __half2 operator*(__half2 a, __half2 b) { return __hmul2(a, b); }
static inline __half2 operator/(__half2 a, __half2 b) { return __h2div(a, b); }
static inline __half2 &operator+=(__half2 &a, __half2 b) { return a = __hadd2(a, b); }
static inline __half2 &operator*=(__half2 &a, __half2 b) { return a = __hmul2(a, b); }
#undef CUDASIM_H

#endif /* __cplusplus */

#endif /* CUDASIM_CUDA_FP16_H */
