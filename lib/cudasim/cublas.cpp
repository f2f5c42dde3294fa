/*
 * cublas.cpp: the cuBLAS calls of the workbook for the CUDA simulator,
 * computed by the CPU BLAS (OpenBLAS's cblas), which is column-major like
 * cuBLAS. Arguments are checked as cuBLAS checks them, and pointers must be
 * simulated device memory large enough for the matrices. A call goes to the
 * handle's stream: while that stream captures, it is recorded (with the
 * values of alpha and beta, which cuBLAS reads when it is called) and runs
 * when the graph is launched.
 */
#include <cblas.h>

#include <cstdio>
#include <cstdlib>
#include <functional>

#include "include/cublas_v2.h"

extern "C" int cudasim_is_device_range(const void *p, size_t n);
extern "C" void cudasim_report(const char *message);
namespace cudasim {
cudaError_t issue_work(const char *call, cudaStream_t stream, std::function<cudaError_t()> work);
}

struct cublasContext {
    cudaStream_t stream;
};

namespace {

cublasStatus_t bad(const char *what)
{
    char msg[512];
    snprintf(msg, sizeof msg, "cublasSgemm: %s (cuBLAS reports: CUBLAS_STATUS_INVALID_VALUE)",
             what);
    cudasim_report(msg);
    return CUBLAS_STATUS_INVALID_VALUE;
}

/* Bytes a column-major (rows, cols) operand with leading dimension ld spans. */
size_t span(int rows, int cols, int ld)
{
    if (rows == 0 || cols == 0) return 0;
    return ((size_t)(cols - 1) * (size_t)ld + (size_t)rows) * sizeof(float);
}

/* cublasSgemm's checks of the shapes and the buffers. */
cublasStatus_t check_sgemm(cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                           const float *A, int lda, const float *B, int ldb, float *C, int ldc)
{
    if (m < 0 || n < 0 || k < 0) return bad("a negative size");
    bool ta = transa != CUBLAS_OP_N, tb = transb != CUBLAS_OP_N;
    int a_rows = ta ? k : m, a_cols = ta ? m : k, b_rows = tb ? n : k, b_cols = tb ? k : n;
    if (lda < (a_rows > 1 ? a_rows : 1)) return bad("lda is smaller than the rows of A");
    if (ldb < (b_rows > 1 ? b_rows : 1)) return bad("ldb is smaller than the rows of B");
    if (ldc < (m > 1 ? m : 1)) return bad("ldc is smaller than m");
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    if (k > 0 && !cudasim_is_device_range(A, span(a_rows, a_cols, lda)))
        return bad("A is not a device buffer of the size its shape and lda need");
    if (k > 0 && !cudasim_is_device_range(B, span(b_rows, b_cols, ldb)))
        return bad("B is not a device buffer of the size its shape and ldb need");
    if (!cudasim_is_device_range(C, span(m, n, ldc)))
        return bad("C is not a device buffer of the size its shape and ldc need");
    return CUBLAS_STATUS_SUCCESS;
}

} // namespace

extern "C" {

cublasStatus_t cublasCreate(cublasHandle_t *handle)
{
    if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) return CUBLAS_STATUS_NOT_INITIALIZED;
    *handle = new cublasContext{nullptr};
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy(cublasHandle_t handle)
{
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    delete handle;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream)
{
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->stream = stream;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetVersion(cublasHandle_t handle, int *version)
{
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!version) return CUBLAS_STATUS_INVALID_VALUE;
    *version = CUBLAS_VER_MAJOR * 10000 + CUBLAS_VER_MINOR * 100 + CUBLAS_VER_PATCH;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode)
{
    (void)mode;
    return handle ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}

const char *cublasGetStatusString(cublasStatus_t status)
{
    switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    }
    return "CUBLAS_STATUS_UNKNOWN";
}

cublasStatus_t cublasSgemm(cublasHandle_t handle, cublasOperation_t transa,
                           cublasOperation_t transb, int m, int n, int k, const float *alpha,
                           const float *A, int lda, const float *B, int ldb, const float *beta,
                           float *C, int ldc)
{
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!alpha || !beta) return bad("alpha or beta is NULL");
    cublasStatus_t status = check_sgemm(transa, transb, m, n, k, A, lda, B, ldb, C, ldc);
    if (status != CUBLAS_STATUS_SUCCESS) return status;
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    /* A recorded call checks its buffers again when the graph runs: they may
     * have been freed since. */
    cudaError_t e =
        cudasim::issue_work("cublasSgemm", handle->stream, [=, alpha = *alpha, beta = *beta] {
            if (check_sgemm(transa, transb, m, n, k, A, lda, B, ldb, C, ldc))
                return cudaErrorInvalidValue;
            bool ta = transa != CUBLAS_OP_N, tb = transb != CUBLAS_OP_N;
            cblas_sgemm(CblasColMajor, ta ? CblasTrans : CblasNoTrans,
                        tb ? CblasTrans : CblasNoTrans, m, n, k, alpha, A, lda, B, ldb, beta, C,
                        ldc);
            return cudaSuccess;
        });
    /* cuBLAS could not launch its kernel on the stream (the simulator's report
     * says why). */
    return e == cudaSuccess ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_EXECUTION_FAILED;
}

} // extern "C"
