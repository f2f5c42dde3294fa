/*
 * curand.h for the CUDA simulator: cuRAND's host API for the generators a
 * course uses, XORWOW (CURAND_RNG_PSEUDO_DEFAULT, _XORWOW) and
 * Philox4_32_10, on simulator memory (lib/cudasim/libs/curand_host.cpp). A
 * generator fills a device buffer (curandCreateGenerator) or a host one
 * (curandCreateGeneratorHost) with NVIDIA's sequences for its seed and
 * offset, laid out as cuRAND lays them out: curandGenerate,
 * curandGenerateUniform, curandGenerateNormal and curandGenerateLogNormal.
 * Other generator types are refused when created (CURAND_STATUS_TYPE_ERROR,
 * with a report); the double-precision and discrete generation calls are
 * refused when the program is compiled.
 */
#ifndef CUDASIM_CURAND_H
#define CUDASIM_CURAND_H

#include <stddef.h>

#include "cuda_runtime_api.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CURAND_VER_MAJOR 10
#define CURAND_VER_MINOR 4
#define CURAND_VER_PATCH 0
#define CURAND_VERSION (CURAND_VER_MAJOR * 1000 + CURAND_VER_MINOR * 100 + CURAND_VER_PATCH)

typedef enum curandStatus {
    CURAND_STATUS_SUCCESS = 0,
    CURAND_STATUS_VERSION_MISMATCH = 100,
    CURAND_STATUS_NOT_INITIALIZED = 101,
    CURAND_STATUS_ALLOCATION_FAILED = 102,
    CURAND_STATUS_TYPE_ERROR = 103,
    CURAND_STATUS_OUT_OF_RANGE = 104,
    CURAND_STATUS_LENGTH_NOT_MULTIPLE = 105,
    CURAND_STATUS_DOUBLE_PRECISION_REQUIRED = 106,
    CURAND_STATUS_LAUNCH_FAILURE = 201,
    CURAND_STATUS_PREEXISTING_FAILURE = 202,
    CURAND_STATUS_INITIALIZATION_FAILED = 203,
    CURAND_STATUS_ARCH_MISMATCH = 204,
    CURAND_STATUS_INTERNAL_ERROR = 999
} curandStatus_t;

typedef enum curandRngType {
    CURAND_RNG_TEST = 0,
    CURAND_RNG_PSEUDO_DEFAULT = 100,
    CURAND_RNG_PSEUDO_XORWOW = 101,
    CURAND_RNG_PSEUDO_MRG32K3A = 121,
    CURAND_RNG_PSEUDO_MTGP32 = 141,
    CURAND_RNG_PSEUDO_MT19937 = 142,
    CURAND_RNG_PSEUDO_PHILOX4_32_10 = 161,
    CURAND_RNG_QUASI_DEFAULT = 200,
    CURAND_RNG_QUASI_SOBOL32 = 201,
    CURAND_RNG_QUASI_SCRAMBLED_SOBOL32 = 202,
    CURAND_RNG_QUASI_SOBOL64 = 203,
    CURAND_RNG_QUASI_SCRAMBLED_SOBOL64 = 204
} curandRngType_t;

typedef enum curandOrdering {
    CURAND_ORDERING_PSEUDO_BEST = 100,
    CURAND_ORDERING_PSEUDO_DEFAULT = 101,
    CURAND_ORDERING_PSEUDO_SEEDED = 102,
    CURAND_ORDERING_PSEUDO_LEGACY = 103,
    CURAND_ORDERING_PSEUDO_DYNAMIC = 104,
    CURAND_ORDERING_QUASI_DEFAULT = 201
} curandOrdering_t;

typedef struct curandGenerator_st *curandGenerator_t;

curandStatus_t curandCreateGenerator(curandGenerator_t *generator, curandRngType_t rng_type);
curandStatus_t curandCreateGeneratorHost(curandGenerator_t *generator, curandRngType_t rng_type);
curandStatus_t curandDestroyGenerator(curandGenerator_t generator);
curandStatus_t curandGetVersion(int *version);
curandStatus_t curandSetStream(curandGenerator_t generator, cudaStream_t stream);
curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t generator,
                                                  unsigned long long seed);
curandStatus_t curandSetGeneratorOffset(curandGenerator_t generator, unsigned long long offset);
curandStatus_t curandSetGeneratorOrdering(curandGenerator_t generator, curandOrdering_t order);
curandStatus_t curandGenerate(curandGenerator_t generator, unsigned int *outputPtr, size_t num);
curandStatus_t curandGenerateUniform(curandGenerator_t generator, float *outputPtr, size_t num);
curandStatus_t curandGenerateNormal(curandGenerator_t generator, float *outputPtr, size_t n,
                                    float mean, float stddev);
curandStatus_t curandGenerateLogNormal(curandGenerator_t generator, float *outputPtr, size_t n,
                                       float mean, float stddev);

/* Not in the simulator: a program that calls one does not compile, and the
 * compiler's message names it. */
#define CUDASIM_CURAND_REFUSED(what)                                                               \
    __attribute__((error(what " is not in the CUDA simulator's cuRAND, which generates "          \
                             "32-bit numbers, uniform, normal and log-normal floats")))
curandStatus_t curandGenerateUniformDouble(curandGenerator_t generator, double *outputPtr,
                                           size_t num)
    CUDASIM_CURAND_REFUSED("curandGenerateUniformDouble");
curandStatus_t curandGenerateNormalDouble(curandGenerator_t generator, double *outputPtr,
                                          size_t n, double mean, double stddev)
    CUDASIM_CURAND_REFUSED("curandGenerateNormalDouble");
curandStatus_t curandGenerateLogNormalDouble(curandGenerator_t generator, double *outputPtr,
                                             size_t n, double mean, double stddev)
    CUDASIM_CURAND_REFUSED("curandGenerateLogNormalDouble");
curandStatus_t curandGenerateLongLong(curandGenerator_t generator, unsigned long long *outputPtr,
                                      size_t num) CUDASIM_CURAND_REFUSED("curandGenerateLongLong");
curandStatus_t curandGeneratePoisson(curandGenerator_t generator, unsigned int *outputPtr,
                                     size_t n, double lambda)
    CUDASIM_CURAND_REFUSED("curandGeneratePoisson");
curandStatus_t curandSetQuasiRandomGeneratorDimensions(curandGenerator_t generator,
                                                       unsigned int num_dimensions)
    CUDASIM_CURAND_REFUSED("curandSetQuasiRandomGeneratorDimensions (quasirandom generators)");
#undef CUDASIM_CURAND_REFUSED

#ifdef __cplusplus
}
#endif

#endif /* CUDASIM_CURAND_H */
