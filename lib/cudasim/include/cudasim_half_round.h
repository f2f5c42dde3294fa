/*
 * cudasim_half_round.h: the rounding of the CUDA simulator's 16-bit float
 * types (cuda_fp16.h's __half, cuda_bf16.h's __nv_bfloat16), on integers.
 * Not a CUDA header: the two CUDA headers include it.
 *
 * A format is given by its fraction bits MAN: 10 for half (5 exponent bits),
 * 7 for bfloat16 (8 exponent bits). An exact value, sign and m * 2^e with
 * m an integer, is rounded once, in one of IEEE's four modes, and encoded:
 * subnormals, overflow to inf (or to the largest finite value where the
 * mode rounds towards zero) and -0 as IEEE 754 defines them. Everything here
 * is integer arithmetic, so no compiler flag (reassociation, no signed
 * zeros) can change a result. What needs it computes the exact value first:
 * a fused multiply-add adds the exact product and the addend in 128 bits.
 */
#ifndef CUDASIM_HALF_ROUND_H
#define CUDASIM_HALF_ROUND_H

#include <climits>
#include <cstring>

namespace cudasim {
namespace fp {

__extension__ typedef unsigned __int128 u128;
__extension__ typedef __int128 i128;

enum Mode { RN, RZ, RD, RU }; /* to nearest even, towards zero, down, up */

/* The constants of the format with MAN fraction bits (and 15 - MAN exponent bits). */
template <int MAN>
struct Fmt {
    static constexpr int kExp = 15 - MAN;
    static constexpr int kBias = (1 << (kExp - 1)) - 1;
    static constexpr int kEmin = 1 - kBias; /* the exponent of the smallest normal */
    static constexpr unsigned kInf = ((1u << kExp) - 1) << MAN;
    static constexpr unsigned short kNaN = 0x7fff; /* CUDA's canonical NaN, in both types */
    static constexpr unsigned short kOne = (unsigned short)(kBias << MAN);
};

static inline int top_bit(u128 m) /* the index of m's highest set bit; m != 0 */
{
    unsigned long long hi = (unsigned long long)(m >> 64), lo = (unsigned long long)m;
    return hi ? 127 - __builtin_clzll(hi) : 63 - __builtin_clzll(lo);
}

/* m >> shift (shift >= 1), with the first bit shifted out (*round_bit) and
 * whether any below it is set (*sticky). */
static inline u128 shift_out(u128 m, int shift, bool *round_bit, bool *sticky)
{
    if (shift > 128) {
        *round_bit = false;
        *sticky = m != 0;
        return 0;
    }
    *round_bit = (m >> (shift - 1)) & 1;
    *sticky = shift >= 2 && (m & (((u128)1 << (shift - 1)) - 1)) != 0;
    return shift >= 128 ? 0 : m >> shift;
}

/* Whether a magnitude cut off as shift_out says goes up to the next one (odd:
 * its last kept bit is 1). */
static inline bool rounds_up(Mode mode, bool neg, bool odd, bool round_bit, bool sticky)
{
    switch (mode) {
    case RN: return round_bit && (sticky || odd);
    case RU: return !neg && (round_bit || sticky);
    case RD: return neg && (round_bit || sticky);
    default: return false;
    }
}

/* The bits of (neg ? -1 : 1) * m * 2^e rounded to the format in mode. */
template <int MAN>
static inline unsigned short round_exact(bool neg, u128 m, int e, Mode mode)
{
    typedef Fmt<MAN> F;
    unsigned sign = neg ? 0x8000u : 0u;
    if (m == 0) return (unsigned short)sign;
    int top = top_bit(m), E = top + e;        /* the value is in [2^E, 2^(E+1)) */
    int q = (E > F::kEmin ? E : F::kEmin) - MAN; /* the exponent of the result's last bit */
    int shift = q - e;                        /* bits of m below that */
    bool round_bit = false, sticky = false;
    u128 kept = shift <= 0 ? m << -shift /* exact: fewer than MAN + 2 bits */
                           : shift_out(m, shift, &round_bit, &sticky);
    kept += rounds_up(mode, neg, kept & 1, round_bit, sticky);
    /* kept holds the hidden bit of a normal result, which carries into the
     * exponent field; a subnormal result has exponent field 0. */
    long long bits = ((long long)(q + MAN + F::kBias - 1) << MAN) + (long long)kept;
    if (bits >= (long long)F::kInf) {
        bool to_inf = mode == RN || (mode == RU && !neg) || (mode == RD && neg);
        bits = to_inf ? F::kInf : F::kInf - 1;
    }
    return (unsigned short)(sign | (unsigned)bits);
}

/* The value of a finite h: (*neg ? -1 : 1) * *m * 2^*e. False for inf and NaN. */
template <int MAN>
static inline bool decode(unsigned short h, bool *neg, unsigned *m, int *e)
{
    typedef Fmt<MAN> F;
    unsigned ex = (h >> MAN) & ((1u << F::kExp) - 1), frac = h & ((1u << MAN) - 1);
    *neg = h >> 15;
    *m = 0, *e = 0;
    if (ex == (1u << F::kExp) - 1) return false;
    *m = ex ? frac | 1u << MAN : frac;
    *e = (ex ? (int)ex : 1) - F::kBias - MAN;
    return true;
}

template <int MAN>
static inline bool is_nan(unsigned short h)
{
    return (h & 0x7fffu) > Fmt<MAN>::kInf;
}

/* A double (exactly: a float or an integer converts to one without loss). */
template <int MAN>
static inline unsigned short from_double(double x, Mode mode)
{
    unsigned long long u;
    std::memcpy(&u, &x, sizeof u);
    bool neg = u >> 63;
    unsigned ex = (unsigned)(u >> 52) & 0x7ffu;
    unsigned long long frac = u & ((1ull << 52) - 1);
    if (ex == 0x7ffu)
        return frac ? Fmt<MAN>::kNaN : (unsigned short)((neg ? 0x8000u : 0u) | Fmt<MAN>::kInf);
    u128 m = ex ? frac | 1ull << 52 : frac;
    return round_exact<MAN>(neg, m, (ex ? (int)ex : 1) - 1075, mode);
}

static inline unsigned float_bits(float f)
{
    unsigned u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}
static inline float bits_float(unsigned u)
{
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

/* A float to nearest even: the conversion every kernel makes, on the bits
 * directly (what from_double gives, faster). NaN becomes CUDA's 0x7FFF. */
template <int MAN>
static inline unsigned short from_float_rn(float a);
template <>
inline unsigned short from_float_rn<10>(float a)
{
    unsigned u = float_bits(a), sign = (u >> 16) & 0x8000u, mag = u & 0x7fffffffu, out;
    if (mag > 0x7f800000u) {
        return Fmt<10>::kNaN;
    } else if (mag >= 0x38800000u) { /* a normal half, or too large: inf */
        out = (mag - 0x38000000u + 0xfffu + ((mag >> 13) & 1u)) >> 13;
        if (out > 0x7c00u) out = 0x7c00u;
    } else if (mag < 0x33000000u) { /* below half the smallest subnormal: 0 */
        out = 0;
    } else { /* a subnormal half: the significand in units of 2^-24 */
        unsigned shift = 126u - (mag >> 23), m = (mag & 0x7fffffu) | 0x800000u;
        out = (m + (1u << (shift - 1)) - 1u + ((m >> shift) & 1u)) >> shift;
    }
    return (unsigned short)(sign | out);
}
template <>
inline unsigned short from_float_rn<7>(float a)
{
    unsigned u = float_bits(a);
    if ((u & 0x7fffffffu) > 0x7f800000u) return Fmt<7>::kNaN;
    return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/* Widening to float, exact. A half NaN becomes 0x7FFFFFFF (as cvt.f32.f16),
 * a bfloat16 NaN keeps its payload (its 16 bits, then 16 zero bits). */
template <int MAN>
static inline float to_float(unsigned short h);
template <>
inline float to_float<10>(unsigned short h)
{
    unsigned sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, u;
    if (e == 0x1f)
        u = m ? 0x7fffffffu : sign | 0x7f800000u;
    else if (e)
        u = sign | ((e + 112u) << 23) | (m << 13);
    else /* subnormal or zero: m * 2^-24, exact */
        u = sign | float_bits((float)m * 0x1p-24f);
    return bits_float(u);
}
template <>
inline float to_float<7>(unsigned short h)
{
    return bits_float((unsigned)h << 16);
}

template <int MAN>
static inline unsigned short from_int(long long i, Mode mode)
{
    unsigned long long mag = i < 0 ? 0ull - (unsigned long long)i : (unsigned long long)i;
    return round_exact<MAN>(i < 0, mag, 0, mode);
}

template <int MAN>
static inline unsigned short from_uint(unsigned long long u, Mode mode)
{
    return round_exact<MAN>(false, u, 0, mode);
}

/* h rounded to an integer in mode and clamped to [lo, hi]; NaN gives nan. */
template <int MAN>
static inline i128 to_int(unsigned short h, Mode mode, i128 lo, i128 hi, i128 nan)
{
    bool neg;
    unsigned m;
    int e;
    if (!decode<MAN>(h, &neg, &m, &e)) return is_nan<MAN>(h) ? nan : neg ? lo : hi;
    i128 mag;
    if (e >= 0) {
        mag = e > 100 ? (i128)1 << 100 : (i128)m << e; /* (beyond any integer type) */
    } else {
        bool round_bit, sticky;
        u128 q = shift_out(m, -e, &round_bit, &sticky);
        mag = (i128)(q + rounds_up(mode, neg, q & 1, round_bit, sticky));
    }
    i128 v = neg ? -mag : mag;
    return v < lo ? lo : v > hi ? hi : v;
}

/* a * b + c rounded once to nearest even, as the fma instructions do. */
template <int MAN>
static inline unsigned short fma(unsigned short a, unsigned short b, unsigned short c)
{
    typedef Fmt<MAN> F;
    bool na, nb, nc;
    unsigned ma, mb, mc;
    int ea, eb, ec;
    bool fa = decode<MAN>(a, &na, &ma, &ea), fb = decode<MAN>(b, &nb, &mb, &eb);
    bool fc = decode<MAN>(c, &nc, &mc, &ec);
    bool np = na != nb;
    if (is_nan<MAN>(a) || is_nan<MAN>(b) || is_nan<MAN>(c)) return F::kNaN;
    if (!fa || !fb) { /* an infinite product, or inf * 0 */
        if ((fa && ma == 0) || (fb && mb == 0)) return F::kNaN;
        if (!fc && nc != np) return F::kNaN; /* inf - inf */
        return (unsigned short)((np ? 0x8000u : 0u) | F::kInf);
    }
    if (!fc) return c;
    unsigned long long mp = (unsigned long long)ma * mb;
    int ep = ea + eb;
    if (mp == 0) /* an exact zero product: c, or a zero whose sign is IEEE's */
        return mc ? c : (unsigned short)(np && nc ? 0x8000u : 0u);
    if (mc == 0) return round_exact<MAN>(np, mp, ep, RN);
    /* The exact sum, at the lower of the two exponents. A term more than 72
     * bits below the other (each has at most 48 bits) cannot reach the
     * rounding point: it stands for a 1 far below the other's last bit,
     * which keeps the direction in which it moves the sum. */
    i128 p = np ? -(i128)mp : (i128)mp, q = nc ? -(i128)mc : (i128)mc;
    int e;
    if (ep - ec > 72) {
        p *= (i128)1 << 72, q = nc ? -1 : 1, e = ep - 72;
    } else if (ec - ep > 72) {
        q *= (i128)1 << 72, p = np ? -1 : 1, e = ec - 72;
    } else {
        e = ep < ec ? ep : ec;
        p *= (i128)1 << (ep - e), q *= (i128)1 << (ec - e);
    }
    i128 s = p + q;
    if (s == 0) return 0; /* exact cancellation: +0 */
    return round_exact<MAN>(s < 0, (u128)(s < 0 ? -s : s), e, RN);
}

} // namespace fp
} // namespace cudasim

#endif /* CUDASIM_HALF_ROUND_H */
