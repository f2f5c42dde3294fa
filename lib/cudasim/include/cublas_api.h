/*
 * cublas_api.h for the CUDA simulator: the cuBLAS calls beyond gemm that a
 * course uses (cublas_v2.h includes it, as the real one does): the pointer
 * mode, the helpers that copy matrices and vectors between host and device
 * (and their Async forms), level 1 (axpy, dot, nrm2, scal, asum, iamax),
 * level 2 (gemv, ger) and the batched gemms, in float (S) and double (D).
 * Each is computed by OpenBLAS on simulator memory (lib/cudasim/cublas_*.cpp)
 * after cuBLAS's own argument checks, with its status codes.
 */
#ifndef CUDASIM_CUBLAS_API_H
#define CUDASIM_CUBLAS_API_H

#ifdef __cplusplus
extern "C" {
#endif

/* Where alpha, beta and the results of reductions (dot, nrm2, asum, iamax)
 * live: host memory (the default) or device memory. */
typedef enum { CUBLAS_POINTER_MODE_HOST = 0, CUBLAS_POINTER_MODE_DEVICE = 1 } cublasPointerMode_t;

cublasStatus_t cublasGetStream(cublasHandle_t handle, cudaStream_t *stream);
cublasStatus_t cublasSetPointerMode(cublasHandle_t handle, cublasPointerMode_t mode);
cublasStatus_t cublasGetPointerMode(cublasHandle_t handle, cublasPointerMode_t *mode);

/* ---- helpers: host <-> device, column-major, elemSize bytes an element ---- */
cublasStatus_t cublasSetVector(int n, int elemSize, const void *x, int incx, void *devicePtr,
                               int incy);
cublasStatus_t cublasGetVector(int n, int elemSize, const void *x, int incx, void *y, int incy);
cublasStatus_t cublasSetMatrix(int rows, int cols, int elemSize, const void *A, int lda, void *B,
                               int ldb);
cublasStatus_t cublasGetMatrix(int rows, int cols, int elemSize, const void *A, int lda, void *B,
                               int ldb);
cublasStatus_t cublasSetVectorAsync(int n, int elemSize, const void *hostPtr, int incx,
                                    void *devicePtr, int incy, cudaStream_t stream);
cublasStatus_t cublasGetVectorAsync(int n, int elemSize, const void *devicePtr, int incx,
                                    void *hostPtr, int incy, cudaStream_t stream);
cublasStatus_t cublasSetMatrixAsync(int rows, int cols, int elemSize, const void *A, int lda,
                                    void *B, int ldb, cudaStream_t stream);
cublasStatus_t cublasGetMatrixAsync(int rows, int cols, int elemSize, const void *A, int lda,
                                    void *B, int ldb, cudaStream_t stream);

/* ---- level 1 ---- */
cublasStatus_t cublasSaxpy(cublasHandle_t handle, int n, const float *alpha, const float *x,
                           int incx, float *y, int incy);
cublasStatus_t cublasDaxpy(cublasHandle_t handle, int n, const double *alpha, const double *x,
                           int incx, double *y, int incy);
cublasStatus_t cublasSdot(cublasHandle_t handle, int n, const float *x, int incx, const float *y,
                          int incy, float *result);
cublasStatus_t cublasDdot(cublasHandle_t handle, int n, const double *x, int incx,
                          const double *y, int incy, double *result);
cublasStatus_t cublasSnrm2(cublasHandle_t handle, int n, const float *x, int incx, float *result);
cublasStatus_t cublasDnrm2(cublasHandle_t handle, int n, const double *x, int incx,
                           double *result);
cublasStatus_t cublasSscal(cublasHandle_t handle, int n, const float *alpha, float *x, int incx);
cublasStatus_t cublasDscal(cublasHandle_t handle, int n, const double *alpha, double *x, int incx);
cublasStatus_t cublasSasum(cublasHandle_t handle, int n, const float *x, int incx, float *result);
cublasStatus_t cublasDasum(cublasHandle_t handle, int n, const double *x, int incx,
                           double *result);
/* The 1-based index of the first element of largest magnitude (0 when n or
 * incx is not positive). */
cublasStatus_t cublasIsamax(cublasHandle_t handle, int n, const float *x, int incx, int *result);
cublasStatus_t cublasIdamax(cublasHandle_t handle, int n, const double *x, int incx, int *result);

/* ---- level 2 ---- */
cublasStatus_t cublasSgemv(cublasHandle_t handle, cublasOperation_t trans, int m, int n,
                           const float *alpha, const float *A, int lda, const float *x, int incx,
                           const float *beta, float *y, int incy);
cublasStatus_t cublasDgemv(cublasHandle_t handle, cublasOperation_t trans, int m, int n,
                           const double *alpha, const double *A, int lda, const double *x,
                           int incx, const double *beta, double *y, int incy);
cublasStatus_t cublasSger(cublasHandle_t handle, int m, int n, const float *alpha, const float *x,
                          int incx, const float *y, int incy, float *A, int lda);
cublasStatus_t cublasDger(cublasHandle_t handle, int m, int n, const double *alpha,
                          const double *x, int incx, const double *y, int incy, double *A,
                          int lda);

/* ---- level 3 ---- */
cublasStatus_t cublasDgemm(cublasHandle_t handle, cublasOperation_t transa,
                           cublasOperation_t transb, int m, int n, int k, const double *alpha,
                           const double *A, int lda, const double *B, int ldb, const double *beta,
                           double *C, int ldc);
/* batchCount gemms; matrix i at A + i * strideA (and so for B, C). */
cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
                                         cublasOperation_t transb, int m, int n, int k,
                                         const float *alpha, const float *A, int lda,
                                         long long int strideA, const float *B, int ldb,
                                         long long int strideB, const float *beta, float *C,
                                         int ldc, long long int strideC, int batchCount);
cublasStatus_t cublasDgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
                                         cublasOperation_t transb, int m, int n, int k,
                                         const double *alpha, const double *A, int lda,
                                         long long int strideA, const double *B, int ldb,
                                         long long int strideB, const double *beta, double *C,
                                         int ldc, long long int strideC, int batchCount);
/* batchCount gemms whose matrices are given by arrays of device pointers,
 * the arrays themselves in device memory. */
cublasStatus_t cublasSgemmBatched(cublasHandle_t handle, cublasOperation_t transa,
                                  cublasOperation_t transb, int m, int n, int k,
                                  const float *alpha, const float *const Aarray[], int lda,
                                  const float *const Barray[], int ldb, const float *beta,
                                  float *const Carray[], int ldc, int batchCount);
cublasStatus_t cublasDgemmBatched(cublasHandle_t handle, cublasOperation_t transa,
                                  cublasOperation_t transb, int m, int n, int k,
                                  const double *alpha, const double *const Aarray[], int lda,
                                  const double *const Barray[], int ldb, const double *beta,
                                  double *const Carray[], int ldc, int batchCount);

#ifdef __cplusplus
}
#endif

#endif /* CUDASIM_CUBLAS_API_H */
