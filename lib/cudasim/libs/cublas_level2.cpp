/*
 * cublas_level2.cpp: cuBLAS's gemv (y = alpha op(A) x + beta y) and ger
 * (A = alpha x y^T + A), in float and double, computed by OpenBLAS on
 * simulator memory after cuBLAS's checks: m or n negative, incx or incy 0, lda
 * under max(1, m), or an operation that is not N, T or C give
 * CUBLAS_STATUS_INVALID_VALUE. y is not read when beta is 0, as in BLAS.
 */
#include <cstdio>

#include "cublas_internal.h"
#include "../internal.h"

using namespace cudasim::blas;

namespace {

/* A vector or matrix operand is a device buffer of the bytes it spans. */
bool device_operand(const char *call, const char *name, const void *p, size_t bytes)
{
    if (cudasim_is_device_range(p, bytes)) return true;
    char what[256];
    snprintf(what, sizeof what, "%s (%p) is not a device buffer of the %zu bytes its shape needs",
             name, p, bytes);
    bad(call, what);
    return false;
}

template <typename T>
bool gemv_buffers(const char *call, cublasOperation_t trans, int m, int n, const T *A, int lda,
                  const T *x, int incx, const T *y, int incy)
{
    bool t = trans != CUBLAS_OP_N;
    return device_operand(call, "A", A, span(m, n, lda, sizeof(T))) &&
           device_operand(call, "x", x, vector_span(t ? m : n, incx, sizeof(T))) &&
           device_operand(call, "y", y, vector_span(t ? n : m, incy, sizeof(T)));
}

template <typename T>
cublasStatus_t gemv(const char *call, cublasHandle_t handle, cublasOperation_t trans, int m,
                    int n, const T *alpha, const T *A, int lda, const T *x, int incx,
                    const T *beta, T *y, int incy)
{
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!valid_op(call, trans, "trans")) return CUBLAS_STATUS_INVALID_VALUE;
    if (m < 0 || n < 0) return bad(call, "m or n is negative");
    if (incx == 0 || incy == 0) return bad(call, "incx or incy is 0");
    if (lda < (m > 1 ? m : 1)) return bad(call, "lda is smaller than max(1, m)");
    Scalar<T> a, b;
    if (!scalar(handle, call, "alpha", alpha, &a) || !scalar(handle, call, "beta", beta, &b))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    if (!gemv_buffers(call, trans, m, n, A, lda, x, incx, y, incy))
        return CUBLAS_STATUS_INVALID_VALUE;
    return run(handle, call, [=] {
        if (!gemv_buffers(call, trans, m, n, A, lda, x, incx, y, incy))
            return cudaErrorInvalidValue;
        cudasim::device_operand(A), cudasim::device_operand(x), cudasim::device_operand(y);
        cudasim::device_written(y, vector_span(trans != CUBLAS_OP_N ? n : m, incy, sizeof(T)));
        Cblas<T>::gemv(CblasColMajor, cblas_op(trans), m, n, a.get(), A, lda, x, incx, b.get(), y,
                       incy);
        return cudaSuccess;
    });
}

template <typename T>
bool ger_buffers(const char *call, int m, int n, const T *x, int incx, const T *y, int incy,
                 const T *A, int lda)
{
    return device_operand(call, "x", x, vector_span(m, incx, sizeof(T))) &&
           device_operand(call, "y", y, vector_span(n, incy, sizeof(T))) &&
           device_operand(call, "A", A, span(m, n, lda, sizeof(T)));
}

template <typename T>
cublasStatus_t ger(const char *call, cublasHandle_t handle, int m, int n, const T *alpha,
                   const T *x, int incx, const T *y, int incy, T *A, int lda)
{
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (m < 0 || n < 0) return bad(call, "m or n is negative");
    if (incx == 0 || incy == 0) return bad(call, "incx or incy is 0");
    if (lda < (m > 1 ? m : 1)) return bad(call, "lda is smaller than max(1, m)");
    Scalar<T> a;
    if (!scalar(handle, call, "alpha", alpha, &a)) return CUBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    if (!ger_buffers(call, m, n, x, incx, y, incy, A, lda)) return CUBLAS_STATUS_INVALID_VALUE;
    return run(handle, call, [=] {
        if (!ger_buffers(call, m, n, x, incx, y, incy, A, lda)) return cudaErrorInvalidValue;
        cudasim::device_operand(A), cudasim::device_operand(x), cudasim::device_operand(y);
        Cblas<T>::ger(CblasColMajor, m, n, a.get(), x, incx, y, incy, A, lda);
        return cudaSuccess;
    });
}

} // namespace

extern "C" {

cublasStatus_t cublasSgemv(cublasHandle_t handle, cublasOperation_t trans, int m, int n,
                           const float *alpha, const float *A, int lda, const float *x, int incx,
                           const float *beta, float *y, int incy)
{
    return gemv("cublasSgemv", handle, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
}

cublasStatus_t cublasDgemv(cublasHandle_t handle, cublasOperation_t trans, int m, int n,
                           const double *alpha, const double *A, int lda, const double *x,
                           int incx, const double *beta, double *y, int incy)
{
    return gemv("cublasDgemv", handle, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
}

cublasStatus_t cublasSger(cublasHandle_t handle, int m, int n, const float *alpha, const float *x,
                          int incx, const float *y, int incy, float *A, int lda)
{
    return ger("cublasSger", handle, m, n, alpha, x, incx, y, incy, A, lda);
}

cublasStatus_t cublasDger(cublasHandle_t handle, int m, int n, const double *alpha,
                          const double *x, int incx, const double *y, int incy, double *A, int lda)
{
    return ger("cublasDger", handle, m, n, alpha, x, incx, y, incy, A, lda);
}

} // extern "C"
