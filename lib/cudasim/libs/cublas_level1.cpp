/*
 * cublas_level1.cpp: cuBLAS's level-1 calls a course uses, in float (S) and
 * double (D): axpy, dot, nrm2, scal, asum and iamax, computed by OpenBLAS on
 * simulator memory (iamax here: cuBLAS's index is 1-based). Quick returns
 * are cuBLAS's: nothing to do when n (or, for nrm2, scal, asum and iamax,
 * incx) is not positive, and the reductions then give 0. A vector must be a
 * device buffer of the (1 + (n - 1) |inc|) elements it spans. A reduction's
 * result goes where the handle's pointer mode says: host memory (the call
 * then waits for it, which a stream capture cannot record) or device memory.
 */
#include <cmath>
#include <cstdio>
#include <cstring>

#include "cublas_internal.h"
#include "../internal.h"

using namespace cudasim::blas;

namespace {

/* x (n elements, inc apart) is a device buffer; reported if not. */
bool device_vector(const char *call, const char *name, const void *x, int n, int inc, size_t elem)
{
    size_t bytes = vector_span(n, inc, elem);
    if (cudasim_is_device_range(x, bytes)) return true;
    char what[256];
    snprintf(what, sizeof what,
             "%s (%p) is not a device buffer of the %zu bytes that n = %d with stride %d spans",
             name, x, bytes, n, inc);
    bad(call, what);
    return false;
}

/* Where a reduction's result goes: checked against the pointer mode. */
template <typename R>
bool check_result(cublasHandle_t handle, const char *call, R *result)
{
    if (!result) return bad(call, "result is NULL"), false;
    bool device = handle->pointer_mode == CUBLAS_POINTER_MODE_DEVICE;
    if (device != (bool)cudasim_is_device_range(result, sizeof(R))) {
        bad(call, device ? "result is not device memory, but the pointer mode is "
                           "CUBLAS_POINTER_MODE_DEVICE"
                         : "result points to device memory, but the pointer mode is "
                           "CUBLAS_POINTER_MODE_HOST (cublasSetPointerMode)");
        return false;
    }
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (!device && cudaStreamIsCapturing(handle->stream, &capture) == cudaSuccess &&
        capture != cudaStreamCaptureStatusNone) {
        refuse(call, CUBLAS_STATUS_NOT_SUPPORTED,
               "the stream is capturing, and a result in host memory needs the call to wait "
               "for it: use CUBLAS_POINTER_MODE_DEVICE");
        return false;
    }
    return true;
}

/* Run a reduction: value() computes it, and it goes to *result. */
template <typename R, typename F>
cublasStatus_t reduce(cublasHandle_t handle, const char *call, R *result, const void *x,
                      const void *y, F value)
{
    return run(handle, call, [=] {
        if (x) cudasim::device_operand(x);
        if (y) cudasim::device_operand(y);
        R r = value();
        if (handle->pointer_mode == CUBLAS_POINTER_MODE_DEVICE) {
            cudasim::device_operand(result);
            cudasim::device_written(result, sizeof(R));
        }
        *result = r;
        return cudaSuccess;
    });
}

template <typename T>
cublasStatus_t axpy(const char *call, cublasHandle_t handle, int n, const T *alpha, const T *x,
                    int incx, T *y, int incy)
{
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    Scalar<T> a;
    if (!scalar(handle, call, "alpha", alpha, &a)) return CUBLAS_STATUS_INVALID_VALUE;
    if (n <= 0) return CUBLAS_STATUS_SUCCESS;
    if (!device_vector(call, "x", x, n, incx, sizeof(T)) ||
        !device_vector(call, "y", y, n, incy, sizeof(T)))
        return CUBLAS_STATUS_INVALID_VALUE;
    return run(handle, call, [=] {
        if (!device_vector(call, "x", x, n, incx, sizeof(T)) ||
            !device_vector(call, "y", y, n, incy, sizeof(T)))
            return cudaErrorInvalidValue;
        cudasim::device_operand(x), cudasim::device_operand(y);
        cudasim::device_written(y, vector_span(n, incy, sizeof(T)));
        Cblas<T>::axpy(n, a.get(), x, incx, y, incy);
        return cudaSuccess;
    });
}

template <typename T>
cublasStatus_t dot(const char *call, cublasHandle_t handle, int n, const T *x, int incx,
                   const T *y, int incy, T *result)
{
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!check_result(handle, call, result)) return CUBLAS_STATUS_INVALID_VALUE;
    if (n <= 0) return reduce(handle, call, result, nullptr, nullptr, [] { return T(0); });
    if (!device_vector(call, "x", x, n, incx, sizeof(T)) ||
        !device_vector(call, "y", y, n, incy, sizeof(T)))
        return CUBLAS_STATUS_INVALID_VALUE;
    return reduce(handle, call, result, x, y, [=] { return Cblas<T>::dot(n, x, incx, y, incy); });
}

/* nrm2, asum and iamax: one vector, nothing when n or incx is not positive. */
template <typename R, typename T, typename F>
cublasStatus_t reduce_one(const char *call, cublasHandle_t handle, int n, const T *x, int incx,
                          R *result, F value)
{
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!check_result(handle, call, result)) return CUBLAS_STATUS_INVALID_VALUE;
    if (n <= 0 || incx <= 0) return reduce(handle, call, result, nullptr, nullptr, [] { return R(0); });
    if (!device_vector(call, "x", x, n, incx, sizeof(T))) return CUBLAS_STATUS_INVALID_VALUE;
    return reduce(handle, call, result, x, nullptr, value);
}

template <typename T>
cublasStatus_t scal(const char *call, cublasHandle_t handle, int n, const T *alpha, T *x, int incx)
{
    if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
    Scalar<T> a;
    if (!scalar(handle, call, "alpha", alpha, &a)) return CUBLAS_STATUS_INVALID_VALUE;
    if (n <= 0 || incx <= 0) return CUBLAS_STATUS_SUCCESS;
    if (!device_vector(call, "x", x, n, incx, sizeof(T))) return CUBLAS_STATUS_INVALID_VALUE;
    return run(handle, call, [=] {
        if (!device_vector(call, "x", x, n, incx, sizeof(T))) return cudaErrorInvalidValue;
        cudasim::device_operand(x);
        Cblas<T>::scal(n, a.get(), x, incx);
        return cudaSuccess;
    });
}

/* cuBLAS's amax: the first element of largest magnitude, counted from 1. */
template <typename T>
int iamax(int n, const T *x, int incx)
{
    int best = 0;
    T most = std::fabs(x[0]);
    for (int i = 1; i < n; i++) {
        T v = std::fabs(x[(size_t)i * incx]);
        if (v > most) most = v, best = i;
    }
    return best + 1;
}

} // namespace

extern "C" {

cublasStatus_t cublasSaxpy(cublasHandle_t handle, int n, const float *alpha, const float *x,
                           int incx, float *y, int incy)
{
    return axpy("cublasSaxpy", handle, n, alpha, x, incx, y, incy);
}
cublasStatus_t cublasDaxpy(cublasHandle_t handle, int n, const double *alpha, const double *x,
                           int incx, double *y, int incy)
{
    return axpy("cublasDaxpy", handle, n, alpha, x, incx, y, incy);
}

cublasStatus_t cublasSdot(cublasHandle_t handle, int n, const float *x, int incx, const float *y,
                          int incy, float *result)
{
    return dot("cublasSdot", handle, n, x, incx, y, incy, result);
}
cublasStatus_t cublasDdot(cublasHandle_t handle, int n, const double *x, int incx,
                          const double *y, int incy, double *result)
{
    return dot("cublasDdot", handle, n, x, incx, y, incy, result);
}

cublasStatus_t cublasSnrm2(cublasHandle_t handle, int n, const float *x, int incx, float *result)
{
    return reduce_one("cublasSnrm2", handle, n, x, incx, result,
                      [=] { return Cblas<float>::nrm2(n, x, incx); });
}
cublasStatus_t cublasDnrm2(cublasHandle_t handle, int n, const double *x, int incx, double *result)
{
    return reduce_one("cublasDnrm2", handle, n, x, incx, result,
                      [=] { return Cblas<double>::nrm2(n, x, incx); });
}

cublasStatus_t cublasSscal(cublasHandle_t handle, int n, const float *alpha, float *x, int incx)
{
    return scal("cublasSscal", handle, n, alpha, x, incx);
}
cublasStatus_t cublasDscal(cublasHandle_t handle, int n, const double *alpha, double *x, int incx)
{
    return scal("cublasDscal", handle, n, alpha, x, incx);
}

cublasStatus_t cublasSasum(cublasHandle_t handle, int n, const float *x, int incx, float *result)
{
    return reduce_one("cublasSasum", handle, n, x, incx, result,
                      [=] { return Cblas<float>::asum(n, x, incx); });
}
cublasStatus_t cublasDasum(cublasHandle_t handle, int n, const double *x, int incx, double *result)
{
    return reduce_one("cublasDasum", handle, n, x, incx, result,
                      [=] { return Cblas<double>::asum(n, x, incx); });
}

cublasStatus_t cublasIsamax(cublasHandle_t handle, int n, const float *x, int incx, int *result)
{
    return reduce_one("cublasIsamax", handle, n, x, incx, result, [=] { return iamax(n, x, incx); });
}
cublasStatus_t cublasIdamax(cublasHandle_t handle, int n, const double *x, int incx, int *result)
{
    return reduce_one("cublasIdamax", handle, n, x, incx, result, [=] { return iamax(n, x, incx); });
}

} // extern "C"
