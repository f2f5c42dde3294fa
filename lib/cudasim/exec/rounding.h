/*
 * rounding.h: CUDA's arithmetic intrinsics with a rounding mode in their
 * name (__dadd_rd, __fmul_ru, __fsqrt_rz, __fma_rd, ...), for the simulator's
 * kernels (kernel.h includes it). A GPU rounds each such operation as its
 * name says: _rn to nearest even, _rz toward zero, _ru up, _rd down. Here the
 * CPU's rounding mode is set around the one operation (fesetround), whose
 * operands are read and result written through volatile variables so that
 * the operation happens between the two mode changes; interval arithmetic
 * (the CUDA samples' interval) gets its bounds as on a GPU.
 */
#ifndef CUDASIM_ROUNDING_H
#define CUDASIM_ROUNDING_H

#include <cfenv>
#include <cmath>

namespace cudasim {
template <class T, class Op>
static inline T rounded(int mode, T a, T b, T c, Op op)
{
    volatile T va = a, vb = b, vc = c;
    int before = fegetround();
    fesetround(mode);
    volatile T r = op(va, vb, vc);
    fesetround(before);
    return r;
}
} // namespace cudasim

/* name(a), name(a, b) or name(a, b, c): expr rounded by mode. */
#define CUDASIM_OP(T, name, mode, expr)                                                           \
    static inline T name##_op(T a, T b, T c) { (void)b; (void)c; return expr; }
#define CUDASIM_R1(T, name, mode, expr)                                                           \
    CUDASIM_OP(T, name, mode, expr)                                                               \
    static inline T name(T a) { return cudasim::rounded<T>(mode, a, 0, 0, name##_op); }
#define CUDASIM_R2(T, name, mode, expr)                                                           \
    CUDASIM_OP(T, name, mode, expr)                                                               \
    static inline T name(T a, T b) { return cudasim::rounded<T>(mode, a, b, 0, name##_op); }
#define CUDASIM_R3(T, name, mode, expr)                                                           \
    CUDASIM_OP(T, name, mode, expr)                                                               \
    static inline T name(T a, T b, T c) { return cudasim::rounded<T>(mode, a, b, c, name##_op); }
/* The _rz, _ru and _rd forms of one operation of n operands. */
#define CUDASIM_ROUNDED(n, T, op, expr)                                                           \
    CUDASIM_R##n(T, op##_rz, FE_TOWARDZERO, expr)                                                 \
    CUDASIM_R##n(T, op##_ru, FE_UPWARD, expr)                                                     \
    CUDASIM_R##n(T, op##_rd, FE_DOWNWARD, expr)

/* float: kernel.h has the _rn forms */
CUDASIM_ROUNDED(2, float, __fadd, a + b)
CUDASIM_ROUNDED(2, float, __fsub, a - b)
CUDASIM_ROUNDED(2, float, __fmul, a * b)
CUDASIM_ROUNDED(2, float, __fdiv, a / b)
CUDASIM_ROUNDED(1, float, __frcp, 1.0f / a)
CUDASIM_ROUNDED(1, float, __fsqrt, sqrtf(a))
CUDASIM_ROUNDED(3, float, __fmaf, fmaf(a, b, c))
/* double: kernel.h has __dadd_rn, __dmul_rn and __fma_rn */
CUDASIM_R2(double, __dsub_rn, FE_TONEAREST, a - b)
CUDASIM_R2(double, __ddiv_rn, FE_TONEAREST, a / b)
CUDASIM_R1(double, __drcp_rn, FE_TONEAREST, 1.0 / a)
CUDASIM_R1(double, __dsqrt_rn, FE_TONEAREST, sqrt(a))
CUDASIM_ROUNDED(2, double, __dadd, a + b)
CUDASIM_ROUNDED(2, double, __dsub, a - b)
CUDASIM_ROUNDED(2, double, __dmul, a * b)
CUDASIM_ROUNDED(2, double, __ddiv, a / b)
CUDASIM_ROUNDED(1, double, __drcp, 1.0 / a)
CUDASIM_ROUNDED(1, double, __dsqrt, sqrt(a))
CUDASIM_ROUNDED(3, double, __fma, fma(a, b, c))

#undef CUDASIM_ROUNDED
#undef CUDASIM_R3
#undef CUDASIM_R2
#undef CUDASIM_R1
#undef CUDASIM_OP

#endif /* CUDASIM_ROUNDING_H */
