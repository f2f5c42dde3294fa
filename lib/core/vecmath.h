/**
 * @file vecmath.h
 * @brief expf and logf that the compiler may call 8 or 16 at a time.
 *
 * GCC can vectorize a loop that calls expf or logf when it knows a SIMD
 * version exists; glibc's libmvec has them (`_ZGVdN8v_expf`, ...), but
 * <math.h> only says so under -ffast-math, which this workbook avoids (it
 * would let the compiler assume no NaN or infinity, and mixed precision must
 * detect them). Including this header after <math.h> declares the two
 * functions SIMD-callable on GCC with glibc on x86-64, where the Makefile
 * links libmvec; elsewhere it changes nothing and the calls stay scalar. The
 * results are the same to within glibc's stated accuracy (a few ulp).
 */
#ifndef WB_VECMATH_H
#define WB_VECMATH_H

#include <math.h>

/** 1 when expf and logf are declared with SIMD versions from libmvec, else 0. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__GLIBC__) && \
    !defined(WB_NO_LIBMVEC)
#define VECMATH_SIMD 1
__attribute__((simd("notinbranch"))) float expf(float);
__attribute__((simd("notinbranch"))) float logf(float);
#else
#define VECMATH_SIMD 0
#endif

#endif /* WB_VECMATH_H */
