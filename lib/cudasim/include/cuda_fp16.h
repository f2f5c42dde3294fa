/*
 * cuda_fp16.h for the CUDA simulator: the half-precision type `__half` and
 * its conversions, with CUDA's names and results, for host and device code.
 *
 * Conversions round to nearest even like `cvt.rn.f16.f32` on a GPU, and give
 * CUDA's bits where IEEE leaves a choice: every NaN becomes 0x7FFF (and
 * 0x7FFFFFFF when widened back to float). C code sees only `__half_raw`, as
 * with the real header. The simulator has no half arithmetic: a `__half`
 * converts implicitly to and from float (as in CUDA), so `a + b` computes in
 * float; convert explicitly and keep arithmetic in float, as the workbook's
 * kernels do.
 */
#ifndef CUDASIM_CUDA_FP16_H
#define CUDASIM_CUDA_FP16_H

/** The bits of a half (what C code and static initialisers see). */
typedef struct __attribute__((aligned(2))) {
    unsigned short x;
} __half_raw;

#ifdef __cplusplus
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

#endif /* __cplusplus */

#endif /* CUDASIM_CUDA_FP16_H */
