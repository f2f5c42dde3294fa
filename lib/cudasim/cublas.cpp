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
#include <vector>

#include "include/cublas_v2.h"
#include "internal.h"

struct cublasContext {
    cudaStream_t stream;
};

namespace {

/* Report what a cuBLAS call refused, and return its status. */
cublasStatus_t refuse(const char *call, cublasStatus_t status, const char *what)
{
    char msg[512];
    snprintf(msg, sizeof msg, "%s: %s (cuBLAS reports: %s)", call, what,
             cublasGetStatusString(status));
    cudasim_report(msg);
    return status;
}

cublasStatus_t bad(const char *call, const char *what)
{
    return refuse(call, CUBLAS_STATUS_INVALID_VALUE, what);
}

/* Bytes a column-major (rows, cols) operand with leading dimension ld spans. */
size_t span(int rows, int cols, int ld, size_t elem)
{
    if (rows == 0 || cols == 0) return 0;
    return ((size_t)(cols - 1) * (size_t)ld + (size_t)rows) * elem;
}

/* The checks of the shapes and the buffers that cuBLAS's gemm calls share;
 * a_elem, b_elem and c_elem are the bytes of one element of A, B and C. */
cublasStatus_t check_gemm(const char *call, cublasOperation_t transa, cublasOperation_t transb,
                          int m, int n, int k, const void *A, size_t a_elem, int lda, const void *B,
                          size_t b_elem, int ldb, const void *C, size_t c_elem, int ldc)
{
    if (m < 0 || n < 0 || k < 0) return bad(call, "a negative size");
    bool ta = transa != CUBLAS_OP_N, tb = transb != CUBLAS_OP_N;
    int a_rows = ta ? k : m, a_cols = ta ? m : k, b_rows = tb ? n : k, b_cols = tb ? k : n;
    if (lda < (a_rows > 1 ? a_rows : 1)) return bad(call, "lda is smaller than the rows of A");
    if (ldb < (b_rows > 1 ? b_rows : 1)) return bad(call, "ldb is smaller than the rows of B");
    if (ldc < (m > 1 ? m : 1)) return bad(call, "ldc is smaller than m");
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    if (k > 0 && !cudasim_is_device_range(A, span(a_rows, a_cols, lda, a_elem)))
        return bad(call, "A is not a device buffer of the size its shape and lda need");
    if (k > 0 && !cudasim_is_device_range(B, span(b_rows, b_cols, ldb, b_elem)))
        return bad(call, "B is not a device buffer of the size its shape and ldb need");
    if (!cudasim_is_device_range(C, span(m, n, ldc, c_elem)))
        return bad(call, "C is not a device buffer of the size its shape and ldc need");
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t check_sgemm(cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                           const float *A, int lda, const float *B, int ldb, float *C, int ldc)
{
    return check_gemm("cublasSgemm", transa, transb, m, n, k, A, sizeof(float), lda, B,
                      sizeof(float), ldb, C, sizeof(float), ldc);
}

/* ---- cublasGemmEx ---- */

const char *type_name(cudaDataType t)
{
    switch (t) {
    case CUDA_R_16F: return "CUDA_R_16F";
    case CUDA_R_16BF: return "CUDA_R_16BF";
    case CUDA_R_32F: return "CUDA_R_32F";
    case CUDA_R_64F: return "CUDA_R_64F";
    case CUDA_R_8I: return "CUDA_R_8I";
    case CUDA_R_32I: return "CUDA_R_32I";
    }
    return "an unknown cudaDataType";
}

/* Bytes of one element of the types GemmEx computes with here; 0 for others. */
size_t type_size(cudaDataType t)
{
    return t == CUDA_R_32F                       ? sizeof(float)
           : t == CUDA_R_16F || t == CUDA_R_16BF ? sizeof(unsigned short)
                                                 : 0;
}

/* Element i of an array of type t, as a float (exact: widening loses nothing). */
float widen(const void *p, size_t i, cudaDataType t)
{
    if (t == CUDA_R_16F) return __half2float(static_cast<const __half *>(p)[i]);
    if (t == CUDA_R_16BF) return __bfloat162float(static_cast<const __nv_bfloat16 *>(p)[i]);
    return static_cast<const float *>(p)[i];
}

/* Store v as element i of an array of type t, rounded to nearest even as a GPU does. */
void narrow(void *p, size_t i, cudaDataType t, float v)
{
    if (t == CUDA_R_16F)
        static_cast<__half *>(p)[i] = __float2half_rn(v);
    else if (t == CUDA_R_16BF)
        static_cast<__nv_bfloat16 *>(p)[i] = __float2bfloat16_rn(v);
    else
        static_cast<float *>(p)[i] = v;
}

/* A (rows, cols) operand of type t with leading dimension ld, widened to a
 * dense float matrix (leading dimension rows). */
std::vector<float> widen_matrix(const void *p, cudaDataType t, int rows, int cols, int ld)
{
    std::vector<float> out((size_t)rows * (size_t)cols);
    for (int j = 0; j < cols; j++)
        for (int i = 0; i < rows; i++)
            out[(size_t)i + (size_t)j * rows] = widen(p, (size_t)i + (size_t)j * ld, t);
    return out;
}

/* The type combinations and compute types cublasGemmEx accepts here: a
 * subset of cuBLAS's, reported as not supported otherwise. */
cublasStatus_t check_gemm_ex_types(cudaDataType Atype, cudaDataType Btype, cudaDataType Ctype,
                                   cublasComputeType_t compute, cublasGemmAlgo_t algo)
{
    char what[256];
    if (compute != CUBLAS_COMPUTE_32F && compute != CUBLAS_COMPUTE_32F_PEDANTIC) {
        snprintf(what, sizeof what,
                 "compute type %d: the simulator computes only with CUBLAS_COMPUTE_32F "
                 "(float accumulation)",
                 (int)compute);
        return refuse("cublasGemmEx", CUBLAS_STATUS_NOT_SUPPORTED, what);
    }
    if (Atype != Btype || !type_size(Atype) || (Ctype != Atype && Ctype != CUDA_R_32F)) {
        snprintf(what, sizeof what,
                 "A %s, B %s, C %s: the simulator supports A and B of one type (CUDA_R_16F, "
                 "CUDA_R_16BF or CUDA_R_32F) and C of that type or CUDA_R_32F",
                 type_name(Atype), type_name(Btype), type_name(Ctype));
        return refuse("cublasGemmEx", CUBLAS_STATUS_NOT_SUPPORTED, what);
    }
    if (algo != CUBLAS_GEMM_DEFAULT && algo != CUBLAS_GEMM_DEFAULT_TENSOR_OP) {
        snprintf(what, sizeof what,
                 "algorithm %d: the simulator has CUBLAS_GEMM_DEFAULT (and "
                 "CUBLAS_GEMM_DEFAULT_TENSOR_OP) only",
                 (int)algo);
        return refuse("cublasGemmEx", CUBLAS_STATUS_NOT_SUPPORTED, what);
    }
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
    if (!alpha || !beta) return bad("cublasSgemm", "alpha or beta is NULL");
    cublasStatus_t status = check_sgemm(transa, transb, m, n, k, A, lda, B, ldb, C, ldc);
    if (status != CUBLAS_STATUS_SUCCESS) return status;
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    /* A recorded call checks its buffers again when the graph runs: they may
     * have been freed since. */
    cudaError_t e =
        cudasim::issue_work("cublasSgemm", handle->stream, [=, alpha = *alpha, beta = *beta] {
            if (check_sgemm(transa, transb, m, n, k, A, lda, B, ldb, C, ldc))
                return cudaErrorInvalidValue;
            if (k > 0) cudasim::device_operand(A), cudasim::device_operand(B);
            cudasim::device_operand(C);
            cudasim::device_written(C, span(m, n, ldc, sizeof(float)));
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

cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
                            cublasOperation_t transb, int m, int n, int k, const void *alpha,
                            const void *A, cudaDataType Atype, int lda, const void *B,
                            cudaDataType Btype, int ldb, const void *beta, void *C,
                            cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
                            cublasGemmAlgo_t algo)
{
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    cublasStatus_t status = check_gemm_ex_types(Atype, Btype, Ctype, computeType, algo);
    if (status != CUBLAS_STATUS_SUCCESS) return status;
    if (!alpha || !beta) return bad("cublasGemmEx", "alpha or beta is NULL");
    size_t ab = type_size(Atype), cb = type_size(Ctype);
    status =
        check_gemm("cublasGemmEx", transa, transb, m, n, k, A, ab, lda, B, ab, ldb, C, cb, ldc);
    if (status != CUBLAS_STATUS_SUCCESS) return status;
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    /* With CUBLAS_COMPUTE_32F, alpha and beta are floats, read now. */
    float a_scale = *static_cast<const float *>(alpha), b_scale = *static_cast<const float *>(beta);
    cudaError_t e = cudasim::issue_work("cublasGemmEx", handle->stream, [=] {
        if (check_gemm("cublasGemmEx", transa, transb, m, n, k, A, ab, lda, B, ab, ldb, C, cb, ldc))
            return cudaErrorInvalidValue;
        if (k > 0) cudasim::device_operand(A), cudasim::device_operand(B);
        cudasim::device_operand(C);
        cudasim::device_written(C, span(m, n, ldc, cb));
        bool ta = transa != CUBLAS_OP_N, tb = transb != CUBLAS_OP_N;
        int a_rows = ta ? k : m, b_rows = tb ? n : k;
        /* Widen to float, multiply with float accumulation, round to Ctype:
         * what CUBLAS_COMPUTE_32F promises. C is read only when beta is not 0. */
        std::vector<float> a = widen_matrix(A, Atype, a_rows, ta ? m : k, lda);
        std::vector<float> b = widen_matrix(B, Btype, b_rows, tb ? k : n, ldb);
        std::vector<float> c =
            b_scale != 0.0f ? widen_matrix(C, Ctype, m, n, ldc) : std::vector<float>((size_t)m * n);
        if (k > 0)
            cblas_sgemm(CblasColMajor, ta ? CblasTrans : CblasNoTrans,
                        tb ? CblasTrans : CblasNoTrans, m, n, k, a_scale, a.data(),
                        a_rows > 1 ? a_rows : 1, b.data(), b_rows > 1 ? b_rows : 1, b_scale,
                        c.data(), m);
        else
            for (float &v : c)
                v *= b_scale;
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++)
                narrow(C, (size_t)i + (size_t)j * ldc, Ctype, c[(size_t)i + (size_t)j * m]);
        return cudaSuccess;
    });
    return e == cudaSuccess ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_EXECUTION_FAILED;
}

} // extern "C"
