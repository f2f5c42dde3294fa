/*
 * cublas.cpp: the cuBLAS handle and the gemm calls for the CUDA simulator,
 * computed by the CPU BLAS (OpenBLAS's cblas), which is column-major like
 * cuBLAS, and what the other cuBLAS files share (cublas_internal.h).
 * Arguments are checked as cuBLAS checks them, and pointers must be
 * simulated device memory large enough for the matrices. A call goes to the
 * handle's stream: while that stream captures, it is recorded (with the
 * values of alpha and beta, which cuBLAS reads when it is called in
 * CUBLAS_POINTER_MODE_HOST) and runs when the graph is launched.
 */
#include <cblas.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "cublas_internal.h"
#include "../internal.h"
#include "../profile/profile.h"

namespace cudasim {
namespace blas {

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

size_t span(int rows, int cols, int ld, size_t elem)
{
    if (rows == 0 || cols == 0) return 0;
    return ((size_t)(cols - 1) * (size_t)ld + (size_t)rows) * elem;
}

size_t vector_span(int n, int inc, size_t elem)
{
    if (n <= 0) return 0;
    size_t stride = inc < 0 ? (size_t)(-(long long)inc) : (size_t)inc;
    return ((size_t)(n - 1) * stride + 1) * elem;
}

bool valid_op(const char *call, cublasOperation_t op, const char *which)
{
    if (op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C) return true;
    char what[128];
    snprintf(what, sizeof what, "%s is %d, not CUBLAS_OP_N, CUBLAS_OP_T or CUBLAS_OP_C", which,
             (int)op);
    bad(call, what);
    return false;
}

cublasStatus_t check_gemm(const char *call, cublasOperation_t transa, cublasOperation_t transb,
                          int m, int n, int k, const void *A, size_t a_elem, int lda, const void *B,
                          size_t b_elem, int ldb, const void *C, size_t c_elem, int ldc)
{
    if (!valid_op(call, transa, "transa") || !valid_op(call, transb, "transb"))
        return CUBLAS_STATUS_INVALID_VALUE;
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

cublasStatus_t run(cublasHandle_t handle, const char *call, std::function<cudaError_t()> work)
{
    /* cuBLAS could not launch its kernel on the stream (the simulator's
     * report says why). */
    return cudasim::issue_work(call, handle->stream, std::move(work)) == cudaSuccess
               ? CUBLAS_STATUS_SUCCESS
               : CUBLAS_STATUS_EXECUTION_FAILED;
}

bool take_scalar(cublasHandle_t handle, const char *call, const char *which, const void *p,
                 size_t size, void *value, const void **device)
{
    char what[256];
    if (!p) {
        snprintf(what, sizeof what, "%s is NULL", which);
        bad(call, what);
        return false;
    }
    bool on_device = cudasim_is_device_range(p, size);
    if (handle->pointer_mode == CUBLAS_POINTER_MODE_DEVICE) {
        if (!on_device) {
            snprintf(what, sizeof what,
                     "%s is not device memory, but the handle's pointer mode is "
                     "CUBLAS_POINTER_MODE_DEVICE (cublasSetPointerMode)",
                     which);
            bad(call, what);
            return false;
        }
        *device = p;
        return true;
    }
    if (on_device) {
        snprintf(what, sizeof what,
                 "%s points to device memory, but the handle's pointer mode is "
                 "CUBLAS_POINTER_MODE_HOST: pass a host variable, or call cublasSetPointerMode("
                 "handle, CUBLAS_POINTER_MODE_DEVICE)",
                 which);
        bad(call, what);
        return false;
    }
    memcpy(value, p, size);
    return true;
}

} // namespace blas
} // namespace cudasim

using namespace cudasim::blas;

namespace {

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

/* cublasSgemm and cublasDgemm. A recorded call checks its buffers again
 * when the graph runs: they may have been freed since. */
template <typename T>
cublasStatus_t gemm(const char *call, cublasHandle_t handle, cublasOperation_t transa,
                    cublasOperation_t transb, int m, int n, int k, const T *alpha, const T *A,
                    int lda, const T *B, int ldb, const T *beta, T *C, int ldc)
{
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    Scalar<T> a, b;
    if (!scalar(handle, call, "alpha", alpha, &a) || !scalar(handle, call, "beta", beta, &b))
        return CUBLAS_STATUS_INVALID_VALUE;
    const size_t e = sizeof(T);
    cublasStatus_t status = check_gemm(call, transa, transb, m, n, k, A, e, lda, B, e, ldb, C, e, ldc);
    if (status != CUBLAS_STATUS_SUCCESS || m == 0 || n == 0) return status;
    return run(handle, call, [=] {
        if (check_gemm(call, transa, transb, m, n, k, A, e, lda, B, e, ldb, C, e, ldc))
            return cudaErrorInvalidValue;
        if (k > 0) cudasim::device_operand(A), cudasim::device_operand(B);
        cudasim::device_operand(C);
        cudasim::device_written(C, span(m, n, ldc, e));
        Cblas<T>::gemm(CblasColMajor, cblas_op(transa), cblas_op(transb), m, n, k, a.get(), A, lda,
                       B, ldb, b.get(), C, ldc);
        cudasim::internal::model_library(
            call, 2.0 * m * n * k,
            (double)e * ((double)m * k + (double)k * n + (b.get() != T(0) ? 2.0 : 1.0) * m * n));
        return cudaSuccess;
    });
}

} // namespace

extern "C" {

cublasStatus_t cublasCreate(cublasHandle_t *handle)
{
    if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) return CUBLAS_STATUS_NOT_INITIALIZED;
    *handle = new cublasContext{nullptr, CUBLAS_POINTER_MODE_HOST};
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

cublasStatus_t cublasGetStream(cublasHandle_t handle, cudaStream_t *stream)
{
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!stream) return CUBLAS_STATUS_INVALID_VALUE;
    *stream = handle->stream;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetPointerMode(cublasHandle_t handle, cublasPointerMode_t mode)
{
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE)
        return bad("cublasSetPointerMode", "the mode is neither CUBLAS_POINTER_MODE_HOST nor "
                                           "CUBLAS_POINTER_MODE_DEVICE");
    handle->pointer_mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetPointerMode(cublasHandle_t handle, cublasPointerMode_t *mode)
{
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!mode) return CUBLAS_STATUS_INVALID_VALUE;
    *mode = handle->pointer_mode;
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
    return gemm("cublasSgemm", handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C,
                ldc);
}

cublasStatus_t cublasDgemm(cublasHandle_t handle, cublasOperation_t transa,
                           cublasOperation_t transb, int m, int n, int k, const double *alpha,
                           const double *A, int lda, const double *B, int ldb, const double *beta,
                           double *C, int ldc)
{
    return gemm("cublasDgemm", handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C,
                ldc);
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
    /* With CUBLAS_COMPUTE_32F, alpha and beta are floats. */
    Scalar<float> as, bs;
    if (!scalar(handle, "cublasGemmEx", "alpha", static_cast<const float *>(alpha), &as) ||
        !scalar(handle, "cublasGemmEx", "beta", static_cast<const float *>(beta), &bs))
        return CUBLAS_STATUS_INVALID_VALUE;
    size_t ab = type_size(Atype), cb = type_size(Ctype);
    status =
        check_gemm("cublasGemmEx", transa, transb, m, n, k, A, ab, lda, B, ab, ldb, C, cb, ldc);
    if (status != CUBLAS_STATUS_SUCCESS) return status;
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    return run(handle, "cublasGemmEx", [=] {
        if (check_gemm("cublasGemmEx", transa, transb, m, n, k, A, ab, lda, B, ab, ldb, C, cb, ldc))
            return cudaErrorInvalidValue;
        if (k > 0) cudasim::device_operand(A), cudasim::device_operand(B);
        cudasim::device_operand(C);
        cudasim::device_written(C, span(m, n, ldc, cb));
        const float a_scale = as.get(), b_scale = bs.get();
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
        cudasim::internal::model_library(
            "cublasGemmEx", 2.0 * m * n * k,
            (double)ab * ((double)m * k + (double)k * n) + (b_scale != 0.0f ? 2.0 : 1.0) * cb * m * n);
        return cudaSuccess;
    });
}

} // extern "C"
