/*
 * cudasim_half_ops.h: what cuda_fp16.h's __half and cuda_bf16.h's
 * __nv_bfloat16 share, written once as macros that each of the two CUDA
 * headers instantiates for its type. Not a CUDA header.
 *
 * Every operation rounds its own result to the type, as a GPU's half
 * instructions do: a + b + c is __hadd(__hadd(a, b), c), never a float sum
 * rounded at the end. Sums, differences, products and quotients are computed
 * in float and rounded once: float's 24 bits are at least twice the type's
 * precision plus two, so float's own rounding never changes the second one
 * (the result is the correctly rounded one, which is what CUDA documents for
 * __hadd, __hsub, __hmul and __hdiv). A fused multiply-add rounds the exact
 * a * b + c once (cudasim_half_round.h). NaN results are CUDA's canonical
 * 0x7FFF. The names and the rules for NaN, -0 and saturation are those of
 * CUDA's cuda_fp16.h and cuda_bf16.h.
 */
#ifndef CUDASIM_HALF_OPS_H
#define CUDASIM_HALF_OPS_H

#include <limits>

#include "cudasim_half_round.h"

/* The members of the scalar type T (bits RAW): construction from and
 * conversion to the arithmetic types, rounding as CUDA's constructors do
 * (to nearest even from float, double and integers; towards zero, saturating,
 * to integers; NaN to 0, or 0x8000000000000000 for the 64-bit ones). */
#define CUDASIM_HALF_MEMBERS(T, RAW, MAN)                                                           \
  protected:                                                                                        \
    unsigned short __x;                                                                             \
    template <typename I>                                                                           \
    I cudasim_int() const                                                                           \
    {                                                                                               \
        typedef cudasim::fp::i128 W;                                                                \
        W lo = std::numeric_limits<I>::min(), hi = std::numeric_limits<I>::max();                   \
        W nan = sizeof(I) == 8 ? (W)0x8000000000000000ull : (W)0;                                   \
        return (I)cudasim::fp::to_int<MAN>(__x, cudasim::fp::RZ, lo, hi, nan);                      \
    }                                                                                               \
                                                                                                    \
  public:                                                                                           \
    T() = default;                                                                                  \
    constexpr T(const RAW &hr) : __x(hr.x) {}                                                       \
    T &operator=(const RAW &hr)                                                                     \
    {                                                                                               \
        __x = hr.x;                                                                                 \
        return *this;                                                                               \
    }                                                                                               \
    operator RAW() const                                                                            \
    {                                                                                               \
        RAW r;                                                                                      \
        r.x = __x;                                                                                  \
        return r;                                                                                   \
    }                                                                                               \
    T(float f) : __x(cudasim::fp::from_float_rn<MAN>(f)) {}                                         \
    T(double f) : __x(cudasim::fp::from_double<MAN>(f, cudasim::fp::RN)) {}                        \
    T(short i) : __x(cudasim::fp::from_int<MAN>(i, cudasim::fp::RN)) {}                             \
    T(int i) : __x(cudasim::fp::from_int<MAN>(i, cudasim::fp::RN)) {}                               \
    T(long i) : __x(cudasim::fp::from_int<MAN>(i, cudasim::fp::RN)) {}                              \
    T(long long i) : __x(cudasim::fp::from_int<MAN>(i, cudasim::fp::RN)) {}                         \
    T(unsigned short i) : __x(cudasim::fp::from_uint<MAN>(i, cudasim::fp::RN)) {}                   \
    T(unsigned int i) : __x(cudasim::fp::from_uint<MAN>(i, cudasim::fp::RN)) {}                     \
    T(unsigned long i) : __x(cudasim::fp::from_uint<MAN>(i, cudasim::fp::RN)) {}                    \
    T(unsigned long long i) : __x(cudasim::fp::from_uint<MAN>(i, cudasim::fp::RN)) {}               \
    T &operator=(float v) { return *this = T(v); }                                                  \
    T &operator=(double v) { return *this = T(v); }                                                 \
    T &operator=(short v) { return *this = T(v); }                                                  \
    T &operator=(int v) { return *this = T(v); }                                                    \
    T &operator=(long v) { return *this = T(v); }                                                   \
    T &operator=(long long v) { return *this = T(v); }                                              \
    T &operator=(unsigned short v) { return *this = T(v); }                                         \
    T &operator=(unsigned int v) { return *this = T(v); }                                           \
    T &operator=(unsigned long v) { return *this = T(v); }                                          \
    T &operator=(unsigned long long v) { return *this = T(v); }                                     \
    operator float() const { return cudasim::fp::to_float<MAN>(__x); }                              \
    operator char() const { return cudasim_int<char>(); }                                           \
    operator signed char() const { return cudasim_int<signed char>(); }                             \
    operator unsigned char() const { return cudasim_int<unsigned char>(); }                         \
    operator short() const { return cudasim_int<short>(); }                                         \
    operator unsigned short() const { return cudasim_int<unsigned short>(); }                       \
    operator int() const { return cudasim_int<int>(); }                                             \
    operator unsigned int() const { return cudasim_int<unsigned int>(); }                           \
    operator long() const { return cudasim_int<long>(); }                                           \
    operator unsigned long() const { return cudasim_int<unsigned long>(); }                         \
    operator long long() const { return cudasim_int<long long>(); }                                 \
    operator unsigned long long() const { return cudasim_int<unsigned long long>(); }

/* Conversions between T and one integer type IT (named ITN in CUDA's
 * names: int, uint, ll, ...), in the four rounding modes, both ways. */
#define CUDASIM_HALF_INT_MODE(T, MAN, N, IT, ITN, MODE, M)                                          \
    static inline T __##ITN##2##N##_##MODE(IT i)                                                    \
    {                                                                                               \
        return std::numeric_limits<IT>::is_signed                                                   \
                   ? __ushort_as_##N(cudasim::fp::from_int<MAN>((long long)i, cudasim::fp::M))      \
                   : __ushort_as_##N(cudasim::fp::from_uint<MAN>((unsigned long long)i,             \
                                                                 cudasim::fp::M));                  \
    }                                                                                               \
    static inline IT __##N##2##ITN##_##MODE(T h)                                                    \
    {                                                                                               \
        typedef cudasim::fp::i128 W;                                                                \
        W nan = sizeof(IT) == 8 ? (W)0x8000000000000000ull : (W)0;                                  \
        return (IT)cudasim::fp::to_int<MAN>(__##N##_as_ushort(h), cudasim::fp::M,                   \
                                            std::numeric_limits<IT>::min(),                         \
                                            std::numeric_limits<IT>::max(), nan);                   \
    }
#define CUDASIM_HALF_INT(T, MAN, N, IT, ITN)                                                        \
    CUDASIM_HALF_INT_MODE(T, MAN, N, IT, ITN, rn, RN)                                               \
    CUDASIM_HALF_INT_MODE(T, MAN, N, IT, ITN, rz, RZ)                                               \
    CUDASIM_HALF_INT_MODE(T, MAN, N, IT, ITN, rd, RD)                                               \
    CUDASIM_HALF_INT_MODE(T, MAN, N, IT, ITN, ru, RU)

/* The functions and operators of the scalar type T (bits RAW, MAN fraction
 * bits, N its name in CUDA's function names: half or bfloat16). */
#define CUDASIM_HALF_SCALAR(T, RAW, MAN, N)                                                         \
    static inline unsigned short __##N##_as_ushort(T h) { return static_cast<RAW>(h).x; }           \
    static inline T __ushort_as_##N(unsigned short u)                                               \
    {                                                                                               \
        RAW r;                                                                                      \
        r.x = u;                                                                                    \
        return r;                                                                                   \
    }                                                                                               \
    static inline short __##N##_as_short(T h) { return (short)__##N##_as_ushort(h); }               \
    static inline T __short_as_##N(short i) { return __ushort_as_##N((unsigned short)i); }          \
    static inline bool __hisnan(T a) { return cudasim::fp::is_nan<MAN>(__##N##_as_ushort(a)); }     \
    static inline int __hisinf(T a)                                                                 \
    {                                                                                               \
        unsigned u = __##N##_as_ushort(a), inf = cudasim::fp::Fmt<MAN>::kInf;                       \
        return u == inf ? 1 : u == (0x8000u | inf) ? -1 : 0;                                        \
    }                                                                                               \
    static inline float __##N##2float(T a) { return cudasim::fp::to_float<MAN>(__##N##_as_ushort(a)); } \
    static inline T __float2##N##_rn(float a) { return __ushort_as_##N(cudasim::fp::from_float_rn<MAN>(a)); } \
    static inline T __float2##N(float a) { return __float2##N##_rn(a); }                            \
    static inline T __float2##N##_rz(float a)                                                       \
    {                                                                                               \
        return __ushort_as_##N(cudasim::fp::from_double<MAN>(a, cudasim::fp::RZ));                  \
    }                                                                                               \
    static inline T __float2##N##_rd(float a)                                                       \
    {                                                                                               \
        return __ushort_as_##N(cudasim::fp::from_double<MAN>(a, cudasim::fp::RD));                  \
    }                                                                                               \
    static inline T __float2##N##_ru(float a)                                                       \
    {                                                                                               \
        return __ushort_as_##N(cudasim::fp::from_double<MAN>(a, cudasim::fp::RU));                  \
    }                                                                                               \
    static inline T __double2##N(double a)                                                          \
    {                                                                                               \
        return __ushort_as_##N(cudasim::fp::from_double<MAN>(a, cudasim::fp::RN));                  \
    }                                                                                               \
    CUDASIM_HALF_INT(T, MAN, N, short, short)                                                       \
    CUDASIM_HALF_INT(T, MAN, N, unsigned short, ushort)                                             \
    CUDASIM_HALF_INT(T, MAN, N, int, int)                                                           \
    CUDASIM_HALF_INT(T, MAN, N, unsigned int, uint)                                                 \
    CUDASIM_HALF_INT(T, MAN, N, long long, ll)                                                      \
    CUDASIM_HALF_INT(T, MAN, N, unsigned long long, ull)                                            \
    /* arithmetic: each result rounded to T */                                                      \
    static inline T __hadd(T a, T b) { return __float2##N##_rn(__##N##2float(a) + __##N##2float(b)); } \
    static inline T __hsub(T a, T b) { return __float2##N##_rn(__##N##2float(a) - __##N##2float(b)); } \
    static inline T __hmul(T a, T b) { return __float2##N##_rn(__##N##2float(a) * __##N##2float(b)); } \
    static inline T __hdiv(T a, T b) { return __float2##N##_rn(__##N##2float(a) / __##N##2float(b)); } \
    static inline T __hadd_rn(T a, T b) { return __hadd(a, b); }                                    \
    static inline T __hsub_rn(T a, T b) { return __hsub(a, b); }                                    \
    static inline T __hmul_rn(T a, T b) { return __hmul(a, b); }                                    \
    static inline T __hfma(T a, T b, T c)                                                           \
    {                                                                                               \
        return __ushort_as_##N(cudasim::fp::fma<MAN>(__##N##_as_ushort(a), __##N##_as_ushort(b),    \
                                                      __##N##_as_ushort(c)));                      \
    }                                                                                               \
    static inline T __hneg(T a) /* NaN: the canonical NaN, as CUDA's host code gives */            \
    {                                                                                               \
        unsigned short u = __##N##_as_ushort(a);                                                    \
        return __ushort_as_##N(__hisnan(a) ? cudasim::fp::Fmt<MAN>::kNaN : (unsigned short)(u ^ 0x8000u)); \
    }                                                                                               \
    static inline T __habs(T a)                                                                     \
    {                                                                                               \
        unsigned short u = __##N##_as_ushort(a);                                                    \
        return __ushort_as_##N(__hisnan(a) ? cudasim::fp::Fmt<MAN>::kNaN : (unsigned short)(u & 0x7fffu)); \
    }                                                                                               \
    /* comparisons: ordered ones are false, unordered (...u) true, with a NaN */                   \
    static inline bool __heq(T a, T b) { return __##N##2float(a) == __##N##2float(b) && !__hisnan(a) && !__hisnan(b); } \
    static inline bool __hne(T a, T b) { return __##N##2float(a) != __##N##2float(b) && !__hisnan(a) && !__hisnan(b); } \
    static inline bool __hlt(T a, T b) { return __##N##2float(a) < __##N##2float(b); }              \
    static inline bool __hle(T a, T b) { return __##N##2float(a) <= __##N##2float(b); }             \
    static inline bool __hgt(T a, T b) { return __##N##2float(a) > __##N##2float(b); }              \
    static inline bool __hge(T a, T b) { return __##N##2float(a) >= __##N##2float(b); }             \
    static inline bool __hequ(T a, T b) { return !__hne(a, b); }                                    \
    static inline bool __hneu(T a, T b) { return !__heq(a, b); }                                    \
    static inline bool __hltu(T a, T b) { return !__hge(a, b); }                                    \
    static inline bool __hleu(T a, T b) { return !__hgt(a, b); }                                    \
    static inline bool __hgtu(T a, T b) { return !__hle(a, b); }                                    \
    static inline bool __hgeu(T a, T b) { return !__hlt(a, b); }                                    \
    /* max and min: a NaN loses to a number (both NaN: canonical NaN); +0 > -0 */                  \
    static inline bool cudasim_above(T a, T b) /* a > b, with +0 > -0 */                            \
    {                                                                                               \
        unsigned short ua = __##N##_as_ushort(a), ub = __##N##_as_ushort(b);                        \
        if (!((ua | ub) & 0x7fffu)) return ua < ub;                                                 \
        return __hgt(a, b);                                                                         \
    }                                                                                               \
    static inline T __hmax(T a, T b)                                                                \
    {                                                                                               \
        if (__hisnan(a) && __hisnan(b)) return __ushort_as_##N(cudasim::fp::Fmt<MAN>::kNaN);        \
        if (__hisnan(a) || __hisnan(b)) return __hisnan(a) ? b : a;                                 \
        return cudasim_above(b, a) ? b : a;                                                         \
    }                                                                                               \
    static inline T __hmin(T a, T b)                                                                \
    {                                                                                               \
        if (__hisnan(a) && __hisnan(b)) return __ushort_as_##N(cudasim::fp::Fmt<MAN>::kNaN);        \
        if (__hisnan(a) || __hisnan(b)) return __hisnan(a) ? b : a;                                 \
        return cudasim_above(a, b) ? b : a;                                                         \
    }                                                                                               \
    static inline T __hmax_nan(T a, T b)                                                            \
    {                                                                                               \
        if (__hisnan(a) || __hisnan(b)) return __ushort_as_##N(cudasim::fp::Fmt<MAN>::kNaN);        \
        return __hmax(a, b);                                                                        \
    }                                                                                               \
    static inline T __hmin_nan(T a, T b)                                                            \
    {                                                                                               \
        if (__hisnan(a) || __hisnan(b)) return __ushort_as_##N(cudasim::fp::Fmt<MAN>::kNaN);        \
        return __hmin(a, b);                                                                        \
    }                                                                                               \
    /* saturation to [+0, 1]: NaN and -0 give +0 */                                                 \
    static inline T cudasim_sat(T a)                                                                \
    {                                                                                               \
        return __hmin(__hmax(a, __ushort_as_##N(0)), __ushort_as_##N(cudasim::fp::Fmt<MAN>::kOne)); \
    }                                                                                               \
    static inline T __hadd_sat(T a, T b) { return cudasim_sat(__hadd(a, b)); }                      \
    static inline T __hsub_sat(T a, T b) { return cudasim_sat(__hsub(a, b)); }                      \
    static inline T __hmul_sat(T a, T b) { return cudasim_sat(__hmul(a, b)); }                      \
    static inline T __hfma_sat(T a, T b, T c) { return cudasim_sat(__hfma(a, b, c)); }              \
    /* the operators: each one the intrinsic of its name */                                         \
    static inline T operator+(const T &a, const T &b) { return __hadd(a, b); }                      \
    static inline T operator-(const T &a, const T &b) { return __hsub(a, b); }                      \
    static inline T operator*(const T &a, const T &b) { return __hmul(a, b); }                      \
    static inline T operator/(const T &a, const T &b) { return __hdiv(a, b); }                      \
    static inline T &operator+=(T &a, const T &b) { return a = __hadd(a, b); }                      \
    static inline T &operator-=(T &a, const T &b) { return a = __hsub(a, b); }                      \
    static inline T &operator*=(T &a, const T &b) { return a = __hmul(a, b); }                      \
    static inline T &operator/=(T &a, const T &b) { return a = __hdiv(a, b); }                      \
    static inline T operator+(const T &a) { return a; }                                             \
    static inline T operator-(const T &a) { return __hneg(a); }                                     \
    static inline T &operator++(T &a) { return a += __ushort_as_##N(cudasim::fp::Fmt<MAN>::kOne); } \
    static inline T &operator--(T &a) { return a -= __ushort_as_##N(cudasim::fp::Fmt<MAN>::kOne); } \
    static inline T operator++(T &a, int)                                                           \
    {                                                                                               \
        T old = a;                                                                                  \
        ++a;                                                                                        \
        return old;                                                                                 \
    }                                                                                               \
    static inline T operator--(T &a, int)                                                           \
    {                                                                                               \
        T old = a;                                                                                  \
        --a;                                                                                        \
        return old;                                                                                 \
    }                                                                                               \
    static inline bool operator==(const T &a, const T &b) { return __heq(a, b); }                   \
    static inline bool operator!=(const T &a, const T &b) { return __hneu(a, b); }                  \
    static inline bool operator<(const T &a, const T &b) { return __hlt(a, b); }                    \
    static inline bool operator<=(const T &a, const T &b) { return __hle(a, b); }                   \
    static inline bool operator>(const T &a, const T &b) { return __hgt(a, b); }                    \
    static inline bool operator>=(const T &a, const T &b) { return __hge(a, b); }

/* The functions and operators of the pair type T2 (two T, x the low one),
 * lane by lane (P: its name in CUDA's function names, half2 or bfloat162). */
#define CUDASIM_HALF_LANES(T2, name, op)                                                            \
    static inline T2 name(T2 a, T2 b) { return T2(op(a.x, b.x), op(a.y, b.y)); }
#define CUDASIM_HALF_CMP2(T2, N, MAN, name, bname, op)                                              \
    static inline T2 name(T2 a, T2 b) /* 1.0 or 0.0 per lane */                                     \
    {                                                                                               \
        unsigned short one = cudasim::fp::Fmt<MAN>::kOne;                                           \
        return T2(__ushort_as_##N(op(a.x, b.x) ? one : 0), __ushort_as_##N(op(a.y, b.y) ? one : 0)); \
    }                                                                                               \
    static inline bool bname(T2 a, T2 b) { return op(a.x, b.x) && op(a.y, b.y); } /* both lanes */
#define CUDASIM_HALF_PAIR(T2, T, MAN, N, P)                                                         \
    static inline T2 __halves2##P(T a, T b) { return T2(a, b); }                                    \
    static inline T2 make_##P(T a, T b) { return T2(a, b); }                                        \
    static inline T2 __##N##2##P(T a) { return T2(a, a); }                                          \
    static inline T2 __float2##P##_rn(float a) { return T2(__float2##N##_rn(a), __float2##N##_rn(a)); } \
    static inline T2 __floats2##P##_rn(float a, float b)                                            \
    {                                                                                               \
        return T2(__float2##N##_rn(a), __float2##N##_rn(b));                                        \
    }                                                                                               \
    static inline T2 __float22##P##_rn(float2 a) { return __floats2##P##_rn(a.x, a.y); }           \
    static inline float2 __##P##2float2(T2 a) { return make_float2(__##N##2float(a.x), __##N##2float(a.y)); } \
    static inline float __low2float(T2 a) { return __##N##2float(a.x); }                            \
    static inline float __high2float(T2 a) { return __##N##2float(a.y); }                           \
    static inline T __low2##N(T2 a) { return a.x; }                                                 \
    static inline T __high2##N(T2 a) { return a.y; }                                                \
    static inline T2 __low2##P(T2 a) { return T2(a.x, a.x); }                                       \
    static inline T2 __high2##P(T2 a) { return T2(a.y, a.y); }                                      \
    static inline T2 __lows2##P(T2 a, T2 b) { return T2(a.x, b.x); }                                \
    static inline T2 __highs2##P(T2 a, T2 b) { return T2(a.y, b.y); }                              \
    static inline T2 __lowhigh2highlow(T2 a) { return T2(a.y, a.x); }                               \
    CUDASIM_HALF_LANES(T2, __hadd2, __hadd)                                                         \
    CUDASIM_HALF_LANES(T2, __hsub2, __hsub)                                                         \
    CUDASIM_HALF_LANES(T2, __hmul2, __hmul)                                                         \
    CUDASIM_HALF_LANES(T2, __h2div, __hdiv)                                                         \
    CUDASIM_HALF_LANES(T2, __hadd2_rn, __hadd)                                                      \
    CUDASIM_HALF_LANES(T2, __hsub2_rn, __hsub)                                                      \
    CUDASIM_HALF_LANES(T2, __hmul2_rn, __hmul)                                                      \
    CUDASIM_HALF_LANES(T2, __hadd2_sat, __hadd_sat)                                                 \
    CUDASIM_HALF_LANES(T2, __hsub2_sat, __hsub_sat)                                                 \
    CUDASIM_HALF_LANES(T2, __hmul2_sat, __hmul_sat)                                                 \
    CUDASIM_HALF_LANES(T2, __hmax2, __hmax)                                                         \
    CUDASIM_HALF_LANES(T2, __hmin2, __hmin)                                                         \
    CUDASIM_HALF_LANES(T2, __hmax2_nan, __hmax_nan)                                                 \
    CUDASIM_HALF_LANES(T2, __hmin2_nan, __hmin_nan)                                                 \
    static inline T2 __hfma2(T2 a, T2 b, T2 c) { return T2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); } \
    static inline T2 __hfma2_sat(T2 a, T2 b, T2 c)                                                  \
    {                                                                                               \
        return T2(__hfma_sat(a.x, b.x, c.x), __hfma_sat(a.y, b.y, c.y));                            \
    }                                                                                               \
    static inline T2 __hneg2(T2 a) { return T2(__hneg(a.x), __hneg(a.y)); }                         \
    static inline T2 __habs2(T2 a) { return T2(__habs(a.x), __habs(a.y)); }                         \
    static inline T2 __hisnan2(T2 a)                                                                \
    {                                                                                               \
        unsigned short one = cudasim::fp::Fmt<MAN>::kOne;                                           \
        return T2(__ushort_as_##N(__hisnan(a.x) ? one : 0), __ushort_as_##N(__hisnan(a.y) ? one : 0)); \
    }                                                                                               \
    CUDASIM_HALF_CMP2(T2, N, MAN, __heq2, __hbeq2, __heq)                                           \
    CUDASIM_HALF_CMP2(T2, N, MAN, __hne2, __hbne2, __hne)                                           \
    CUDASIM_HALF_CMP2(T2, N, MAN, __hlt2, __hblt2, __hlt)                                           \
    CUDASIM_HALF_CMP2(T2, N, MAN, __hle2, __hble2, __hle)                                           \
    CUDASIM_HALF_CMP2(T2, N, MAN, __hgt2, __hbgt2, __hgt)                                           \
    CUDASIM_HALF_CMP2(T2, N, MAN, __hge2, __hbge2, __hge)                                           \
    CUDASIM_HALF_CMP2(T2, N, MAN, __hequ2, __hbequ2, __hequ)                                        \
    CUDASIM_HALF_CMP2(T2, N, MAN, __hneu2, __hbneu2, __hneu)                                        \
    CUDASIM_HALF_CMP2(T2, N, MAN, __hltu2, __hbltu2, __hltu)                                        \
    CUDASIM_HALF_CMP2(T2, N, MAN, __hleu2, __hbleu2, __hleu)                                        \
    CUDASIM_HALF_CMP2(T2, N, MAN, __hgtu2, __hbgtu2, __hgtu)                                        \
    CUDASIM_HALF_CMP2(T2, N, MAN, __hgeu2, __hbgeu2, __hgeu)                                        \
    static inline T2 operator+(const T2 &a, const T2 &b) { return __hadd2(a, b); }                  \
    static inline T2 operator-(const T2 &a, const T2 &b) { return __hsub2(a, b); }                  \
    static inline T2 operator*(const T2 &a, const T2 &b) { return __hmul2(a, b); }                  \
    static inline T2 operator/(const T2 &a, const T2 &b) { return __h2div(a, b); }                  \
    static inline T2 &operator+=(T2 &a, const T2 &b) { return a = __hadd2(a, b); }                  \
    static inline T2 &operator-=(T2 &a, const T2 &b) { return a = __hsub2(a, b); }                  \
    static inline T2 &operator*=(T2 &a, const T2 &b) { return a = __hmul2(a, b); }                  \
    static inline T2 &operator/=(T2 &a, const T2 &b) { return a = __h2div(a, b); }                  \
    static inline T2 operator+(const T2 &a) { return a; }                                           \
    static inline T2 operator-(const T2 &a) { return __hneg2(a); }                                  \
    static inline bool operator==(const T2 &a, const T2 &b) { return __hbeq2(a, b); }               \
    static inline bool operator!=(const T2 &a, const T2 &b) { return __hbneu2(a, b); }              \
    static inline bool operator<(const T2 &a, const T2 &b) { return __hblt2(a, b); }                \
    static inline bool operator<=(const T2 &a, const T2 &b) { return __hble2(a, b); }               \
    static inline bool operator>(const T2 &a, const T2 &b) { return __hbgt2(a, b); }                \
    static inline bool operator>=(const T2 &a, const T2 &b) { return __hbge2(a, b); }

/* atomicAdd on T and on its pair T2, in device code (a translated file, where kernel.h
 * came first): each half of the pair added and rounded to nearest even on its own, as
 * __hadd does (a GPU makes each half's addition atomic, not the pair's). Checked as the
 * other atomics are (exec/kernel.h): bounds, initialization, never a race. */
#ifdef CUDASIM_KERNEL_H
extern "C" void cudasim_atomic_access(const volatile void *p, size_t n, const void *pc);
#define CUDASIM_HALF_ATOMIC_ONE(name, T, add)                                                      \
    static __attribute__((noinline, no_sanitize_thread, unused)) T name(T *address, T val)        \
    {                                                                                              \
        cudasim_atomic_access(address, sizeof(T), __builtin_return_address(0));                    \
        T old = *address;                                                                          \
        *address = add(old, val);                                                                  \
        return old;                                                                                \
    }
#define CUDASIM_HALF_ATOMICS(T, T2)                                                                \
    CUDASIM_HALF_ATOMIC_ONE(atomicAdd, T, __hadd)                                                  \
    CUDASIM_HALF_ATOMIC_ONE(atomicAdd_block, T, __hadd)                                            \
    CUDASIM_HALF_ATOMIC_ONE(atomicAdd_system, T, __hadd)                                           \
    CUDASIM_HALF_ATOMIC_ONE(atomicAdd, T2, __hadd2)                                                \
    CUDASIM_HALF_ATOMIC_ONE(atomicAdd_block, T2, __hadd2)                                          \
    CUDASIM_HALF_ATOMIC_ONE(atomicAdd_system, T2, __hadd2)
#else
#define CUDASIM_HALF_ATOMICS(T, T2)
#endif

#endif /* CUDASIM_HALF_OPS_H */
