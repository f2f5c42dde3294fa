/**
 * @file matmul.h
 * @brief The N x N matrix product of Lesson 02, on the CPU and on a GPU.
 *
 * C = A B for column-major A (m, k), B (k, n), C (m, n): on the CPU with
 * OpenBLAS (all cores), on a CUDA device with cuBLAS or with one of the
 * workbook's own SGEMM kernels (kernels/sgemm.cu), a series from naive to
 * register-blocked. GPU calls return as soon as the work is queued: time them
 * only after backend_synchronize(), which is the point of the lesson's demo.
 *
 * A CPU figure is only fair when OpenBLAS runs the kernel written for the
 * CPU it is on. OpenBLAS built with DYNAMIC_ARCH (Debian's is) picks its
 * kernel when the program starts, from the CPU's model number; a CPU newer
 * than the library gets a generic fallback (Prescott, SSE3 only) that can be
 * five times slower. The environment variable OPENBLAS_CORETYPE overrides
 * the choice, but only if it is set before the library starts, that is
 * before the program does. So the functions below name the kernel that runs,
 * judge it against the CPU's SIMD sets, list the kernels worth trying, and
 * measure one of them in a child process started with the variable set.
 */
#ifndef WB_MATMUL_H
#define WB_MATMUL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/core/err.h"
#include "lib/device/device.h"

/** The variant that means cuBLAS in matmul_device(). */
#define MATMUL_CUBLAS (-1)

/** @brief C = A B on the CPU with OpenBLAS. */
WB_MUST_CHECK int matmul_cpu(const float *A, const float *B, float *C, int64_t m, int64_t n, int64_t k);

/**
 * @brief C = A B on CUDA device @p d (device pointers), without waiting for it.
 *
 * @p variant is ::MATMUL_CUBLAS or a kernel of the series, 0 .. matmul_variants() - 1.
 */
WB_MUST_CHECK int matmul_device(Device d, int variant, const float *A, const float *B, float *C, int64_t m,
                  int64_t n, int64_t k);

/** @brief How many of the workbook's own SGEMM kernels there are. */
int matmul_variants(void);

/** @brief "cuBLAS" or the name of kernel @p variant ("naive", ...). */
const char *matmul_variant_name(int variant);

/** @brief How many threads OpenBLAS uses. */
int matmul_cpu_threads(void);

/* ---- which OpenBLAS kernel runs, and is it the right one ------------------------ */

/** SIMD levels, oldest first: what a CPU offers or a BLAS kernel uses. */
typedef enum MatmulSimd {
    MATMUL_SIMD_UNKNOWN = 0, /**< not known (an unknown kernel, a non-x86 CPU) */
    MATMUL_SIMD_SSE,         /**< SSE2 to SSE4.2: 4 floats per instruction */
    MATMUL_SIMD_AVX,         /**< AVX: 8 floats, no fused multiply-add */
    MATMUL_SIMD_AVX2,        /**< AVX2 with FMA: 8 floats, fused multiply-add */
    MATMUL_SIMD_AVX512,      /**< AVX-512: 16 floats */
} MatmulSimd;

/** @brief The kernel OpenBLAS runs in this process ("Haswell"), openblas_get_corename(). */
const char *matmul_blas_kernel(void);

/** @brief OpenBLAS's build line ("OpenBLAS 0.3.21 DYNAMIC_ARCH ..."), openblas_get_config(). */
const char *matmul_blas_config(void);

/** @brief Whether this OpenBLAS holds kernels for many CPUs (DYNAMIC_ARCH), so that
 *         OPENBLAS_CORETYPE can choose among them. */
bool matmul_blas_dynamic(void);

/** @brief The SIMD level OpenBLAS kernel @p kernel is written for (case ignored). */
MatmulSimd matmul_blas_kernel_simd(const char *kernel);

/** @brief The best SIMD level in @p simd, a CpuInfo::simd list ("SSE4.2 AVX AVX2 FMA ..."). */
MatmulSimd matmul_cpu_simd(const char *simd);

/** @brief "AVX-512", "AVX2", ...: a level as a person names it. */
const char *matmul_simd_name(MatmulSimd level);

/**
 * @brief Whether @p kernel is a fallback on a CPU offering @p simd: a kernel for an
 *        older SIMD level than the CPU has (Prescott on an AVX2 or AVX-512 CPU).
 *
 * False when either level is unknown: only a known mismatch counts.
 */
bool matmul_blas_is_fallback(const char *kernel, const char *simd);

/**
 * @brief The OpenBLAS kernels worth measuring on a CPU offering @p simd from vendor
 *        @p vendor ("GenuineIntel", "AuthenticAMD", or ""), best guess first.
 *
 * AVX-512: SkylakeX, Cooperlake (with AVX-512 BF16), Haswell; AVX2 with FMA: Haswell,
 * and Zen on AMD; AVX: Sandybridge. Only kernels whose instructions the CPU has are
 * listed. Writes at most @p max names to @p out and returns how many.
 */
int matmul_blas_candidates(const char *simd, const char *vendor, const char **out, int max);

/* ---- measuring the CPU's product ---------------------------------------------- */

/** One measured N x N product on the CPU. */
typedef struct MatmulRate {
    char kernel[32];   /**< the OpenBLAS kernel that ran ("Haswell") */
    int threads;       /**< OpenBLAS's threads */
    int64_t n;         /**< the size: N x N times N x N */
    int reps;          /**< timed products (after one untimed warm-up) */
    double median_s;   /**< seconds per product: the median of the reps */
    double min_s;      /**< the fastest rep */
    double max_s;      /**< the slowest rep */
    double error;      /**< spot check: largest error against double dot products, relative
                            to the size of the terms */
} MatmulRate;

/** @brief GFLOP/s of @p r at its median time (2 N^3 operations per product). */
double matmul_rate_gflops(const MatmulRate *r);

/**
 * @brief Time C = A B for random N x N matrices in this process with its kernel:
 *        one untimed warm-up product (threads started, memory touched), then @p reps
 *        timed ones; the result is spot-checked against double-precision dot products.
 */
WB_MUST_CHECK int matmul_cpu_measure(int64_t n, int reps, MatmulRate *r);

/**
 * @brief How far the column-major N x N product @p C is from A B: the largest
 * |C[i, j] - ref| / (the sum of |terms|) over 64 entries, computed in double
 * as dot products (a check that depends on no BLAS).
 */
double matmul_spot_check(const float *A, const float *B, const float *C, int64_t n);

/** @brief @p r as the one line a child prints ("wb-blas-rate kernel=... median=..."). */
void matmul_rate_format(const MatmulRate *r, char *buf, size_t size);

/**
 * @brief Find the line of matmul_rate_format() in @p text (a child's whole output) and
 *        read it into @p r; ::ERR_FORMAT when there is none or it is malformed.
 */
WB_MUST_CHECK int matmul_rate_parse(const char *text, MatmulRate *r);

/**
 * @brief Run @p argv (argv[0] a path; normally this program, "/proc/self/exe", with an
 *        option that makes it call matmul_cpu_measure() and print matmul_rate_format())
 *        in a child process, with OPENBLAS_CORETYPE=@p coretype in its environment
 *        (@p coretype NULL: the environment as it is), and read its rate into @p r.
 *
 * Kills the child after @p timeout_s seconds. A child that crashes (a kernel using
 * instructions this CPU lacks dies of SIGILL) or prints no rate is an ::ERR_DEVICE
 * naming the signal or the child's last line.
 */
WB_MUST_CHECK int matmul_cpu_measure_child(char *const argv[], const char *coretype,
                                           double timeout_s, MatmulRate *r);

#endif /* WB_MATMUL_H */
