/*
 * cublas_v2.h for the CUDA simulator: the cuBLAS handle and gemm calls (the
 * rest a course uses is in cublas_api.h), computed on the CPU by OpenBLAS
 * (lib/cudasim/cublas*.cpp). Column-major, like
 * cuBLAS; pointers must be (simulated) device memory. As the real header, it
 * brings the half types and cudaDataType along.
 */
#ifndef CUDASIM_CUBLAS_V2_H
#define CUDASIM_CUBLAS_V2_H

#include "cuda_bf16.h"
#include "cuda_fp16.h"
#include "cuda_runtime_api.h"
#include "library_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUBLAS_VER_MAJOR 13
#define CUBLAS_VER_MINOR 1
#define CUBLAS_VER_PATCH 0

typedef enum {
    CUBLAS_STATUS_SUCCESS = 0,
    CUBLAS_STATUS_NOT_INITIALIZED = 1,
    CUBLAS_STATUS_ALLOC_FAILED = 3,
    CUBLAS_STATUS_INVALID_VALUE = 7,
    CUBLAS_STATUS_ARCH_MISMATCH = 8,
    CUBLAS_STATUS_MAPPING_ERROR = 11,
    CUBLAS_STATUS_EXECUTION_FAILED = 13,
    CUBLAS_STATUS_INTERNAL_ERROR = 14,
    CUBLAS_STATUS_NOT_SUPPORTED = 15
} cublasStatus_t;

typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 } cublasOperation_t;

typedef enum { CUBLAS_DEFAULT_MATH = 0, CUBLAS_TF32_TENSOR_OP_MATH = 3 } cublasMath_t;

/* cublasGemmEx's algorithm: a hint real cuBLAS may ignore; the simulator has one. */
typedef enum { CUBLAS_GEMM_DEFAULT = -1, CUBLAS_GEMM_DEFAULT_TENSOR_OP = 99 } cublasGemmAlgo_t;

/* cublasGemmEx's arithmetic: CUBLAS_COMPUTE_32F accumulates in float (the
 * simulator computes only that one and its _PEDANTIC twin). */
typedef enum {
    CUBLAS_COMPUTE_16F = 64,
    CUBLAS_COMPUTE_32F = 68,
    CUBLAS_COMPUTE_32F_PEDANTIC = 69,
    CUBLAS_COMPUTE_64F = 70,
    CUBLAS_COMPUTE_32F_FAST_16F = 74,
    CUBLAS_COMPUTE_32F_FAST_16BF = 75,
    CUBLAS_COMPUTE_32F_FAST_TF32 = 77
} cublasComputeType_t;

typedef struct cublasContext *cublasHandle_t;

cublasStatus_t cublasCreate(cublasHandle_t *handle);
cublasStatus_t cublasDestroy(cublasHandle_t handle);
cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream);
cublasStatus_t cublasGetVersion(cublasHandle_t handle, int *version);
cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode);
const char *cublasGetStatusString(cublasStatus_t status);

cublasStatus_t cublasSgemm(cublasHandle_t handle, cublasOperation_t transa,
                           cublasOperation_t transb, int m, int n, int k, const float *alpha,
                           const float *A, int lda, const float *B, int ldb, const float *beta,
                           float *C, int ldc);

/* C = alpha op(A) op(B) + beta C with A, B and C of the given types. The
 * simulator supports A and B both CUDA_R_16F, CUDA_R_16BF or CUDA_R_32F and C
 * of their type or CUDA_R_32F, with CUBLAS_COMPUTE_32F: alpha and beta point
 * to floats, the inputs are widened to float, multiplied with float
 * accumulation and the result is rounded to Ctype. */
cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
                            cublasOperation_t transb, int m, int n, int k, const void *alpha,
                            const void *A, cudaDataType Atype, int lda, const void *B,
                            cudaDataType Btype, int ldb, const void *beta, void *C,
                            cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
                            cublasGemmAlgo_t algo);

#ifdef __cplusplus
}
#endif

#include "cublas_api.h" /* the pointer mode, helpers, levels 1 and 2, batched gemm */

#endif /* CUDASIM_CUBLAS_V2_H */
