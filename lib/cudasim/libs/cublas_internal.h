/*
 * cublas_internal.h: what the simulator's cuBLAS files share (cublas.cpp:
 * the handle and gemm; cublas_helpers.cpp: Set/GetMatrix and Set/GetVector;
 * cublas_level1.cpp; cublas_level2.cpp; cublas_batched.cpp). Every call
 * checks its arguments as cuBLAS documents them, reports what it refuses, and
 * runs as a device operation on the handle's stream (recorded while that
 * stream captures).
 */
#ifndef CUDASIM_CUBLAS_INTERNAL_H
#define CUDASIM_CUBLAS_INTERNAL_H

#include <cblas.h>

#include <cstddef>
#include <functional>

#include "../include/cublas_v2.h"

struct cublasContext {
    cudaStream_t stream;
    cublasPointerMode_t pointer_mode;
};

namespace cudasim {
namespace blas {

/* Report what a cuBLAS call refused (one line, naming the call), and return
 * its status. */
cublasStatus_t refuse(const char *call, cublasStatus_t status, const char *what);
/* The same with CUBLAS_STATUS_INVALID_VALUE. */
cublasStatus_t bad(const char *call, const char *what);

/* Bytes a column-major (rows, cols) operand with leading dimension ld spans. */
size_t span(int rows, int cols, int ld, size_t elem);
/* Bytes n elements with stride inc span (either sign: BLAS walks a negative
 * stride from the far end, the pointer still being the lowest address). */
size_t vector_span(int n, int inc, size_t elem);

/* The shapes and buffers of a gemm: a_elem, b_elem, c_elem are the bytes of
 * one element of A, B, C. */
cublasStatus_t check_gemm(const char *call, cublasOperation_t transa, cublasOperation_t transb,
                          int m, int n, int k, const void *A, size_t a_elem, int lda,
                          const void *B, size_t b_elem, int ldb, const void *C, size_t c_elem,
                          int ldc);

/* Whether op is CUBLAS_OP_N, _T or _C (reported if not). */
bool valid_op(const char *call, cublasOperation_t op, const char *which);

/* Run work as a device operation on the handle's stream (recorded while it
 * captures): CUBLAS_STATUS_EXECUTION_FAILED if it could not run. */
cublasStatus_t run(cublasHandle_t handle, const char *call, std::function<cudaError_t()> work);

/* A scalar argument (alpha, beta): read now in CUBLAS_POINTER_MODE_HOST, or
 * through the device pointer when the work runs in _DEVICE (then it must be
 * device memory). */
template <typename T>
struct Scalar {
    T value;
    const T *device;
    T get() const { return device ? *device : value; }
};
/* Take a scalar as the handle's pointer mode says; false (reported) if it is
 * NULL or not where that mode wants it. */
bool take_scalar(cublasHandle_t handle, const char *call, const char *which, const void *p,
                 size_t size, void *value, const void **device);
template <typename T>
bool scalar(cublasHandle_t handle, const char *call, const char *which, const T *p, Scalar<T> *s)
{
    const void *device = nullptr;
    s->value = T();
    if (!take_scalar(handle, call, which, p, sizeof(T), &s->value, &device)) return false;
    s->device = static_cast<const T *>(device);
    return true;
}

/* OpenBLAS's functions for float (S) and double (D), by type. */
inline CBLAS_TRANSPOSE cblas_op(cublasOperation_t op)
{
    return op == CUBLAS_OP_N ? CblasNoTrans : CblasTrans;
}
template <typename T>
struct Cblas;
#define CUDASIM_CBLAS(T, p)                                                                        \
    template <>                                                                                    \
    struct Cblas<T> {                                                                              \
        static constexpr auto gemm = cblas_##p##gemm;                                              \
        static constexpr auto gemv = cblas_##p##gemv;                                              \
        static constexpr auto ger = cblas_##p##ger;                                                \
        static constexpr auto axpy = cblas_##p##axpy;                                              \
        static constexpr auto dot = cblas_##p##dot;                                                \
        static constexpr auto nrm2 = cblas_##p##nrm2;                                              \
        static constexpr auto scal = cblas_##p##scal;                                              \
        static constexpr auto asum = cblas_##p##asum;                                              \
    };
CUDASIM_CBLAS(float, s)
CUDASIM_CBLAS(double, d)
#undef CUDASIM_CBLAS

} // namespace blas
} // namespace cudasim

#endif /* CUDASIM_CUBLAS_INTERNAL_H */
