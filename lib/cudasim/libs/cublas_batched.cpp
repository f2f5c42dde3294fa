/*
 * cublas_batched.cpp: cuBLAS's batched gemms in float and double:
 * gemmStridedBatched (matrix i of A at A + i * strideA, and so for B and C)
 * and gemmBatched (arrays of pointers to the matrices, the arrays in device
 * memory as cuBLAS wants them). Each batch is one OpenBLAS gemm, after the
 * checks of a gemm and batchCount not negative (CUBLAS_STATUS_INVALID_VALUE);
 * every matrix must lie in a device buffer, and a pointer array that is host
 * memory (the usual slip: an array built on the host and not copied) is
 * reported.
 */
#include <cstdio>
#include <memory>
#include <vector>

#include "cublas_internal.h"
#include "../internal.h"

using namespace cudasim::blas;

namespace {

template <typename T>
struct Batch {
    const T *A, *B;
    T *C;
};

/* The shapes (and alpha, beta) of a batched call; what every batch shares. */
template <typename T>
struct Gemm {
    const char *call;
    cublasOperation_t ta, tb;
    int m, n, k, lda, ldb, ldc;
    Scalar<T> alpha, beta;

    cublasStatus_t check(const Batch<T> &b) const
    {
        const size_t e = sizeof(T);
        return check_gemm(call, ta, tb, m, n, k, b.A, e, lda, b.B, e, ldb, b.C, e, ldc);
    }
    void compute(const Batch<T> &b) const
    {
        if (k > 0) cudasim::device_operand(b.A), cudasim::device_operand(b.B);
        cudasim::device_operand(b.C);
        cudasim::device_written(b.C, span(m, n, ldc, sizeof(T)));
        Cblas<T>::gemm(CblasColMajor, cblas_op(ta), cblas_op(tb), m, n, k, alpha.get(), b.A, lda,
                       b.B, ldb, beta.get(), b.C, ldc);
    }
};

/* The checks every batched call starts with; false: *status says why. */
template <typename T>
bool start(Gemm<T> &g, cublasHandle_t handle, const T *alpha, const T *beta, int batchCount,
           cublasStatus_t *status)
{
    *status = CUBLAS_STATUS_INVALID_VALUE;
    if (!handle) return *status = CUBLAS_STATUS_NOT_INITIALIZED, false;
    if (!valid_op(g.call, g.ta, "transa") || !valid_op(g.call, g.tb, "transb")) return false;
    if (g.m < 0 || g.n < 0 || g.k < 0) return bad(g.call, "a negative size"), false;
    if (batchCount < 0) return bad(g.call, "batchCount is negative"), false;
    if (!scalar(handle, g.call, "alpha", alpha, &g.alpha) ||
        !scalar(handle, g.call, "beta", beta, &g.beta))
        return false;
    /* The leading dimensions, as for one gemm (the buffers come later). */
    bool ta = g.ta != CUBLAS_OP_N, tb = g.tb != CUBLAS_OP_N;
    int a_rows = ta ? g.k : g.m, b_rows = tb ? g.n : g.k;
    if (g.lda < (a_rows > 1 ? a_rows : 1)) return bad(g.call, "lda is smaller than the rows of A"), false;
    if (g.ldb < (b_rows > 1 ? b_rows : 1)) return bad(g.call, "ldb is smaller than the rows of B"), false;
    if (g.ldc < (g.m > 1 ? g.m : 1)) return bad(g.call, "ldc is smaller than m"), false;
    *status = CUBLAS_STATUS_SUCCESS;
    return true;
}

template <typename T>
cublasStatus_t strided(Gemm<T> g, cublasHandle_t handle, const T *alpha, const T *A,
                       long long sA, const T *B, long long sB, const T *beta, T *C, long long sC,
                       int batchCount)
{
    cublasStatus_t status;
    if (!start(g, handle, alpha, beta, batchCount, &status)) return status;
    if (batchCount == 0 || g.m == 0 || g.n == 0) return CUBLAS_STATUS_SUCCESS;
    auto batch = [=](int i) { return Batch<T>{A + i * sA, B + i * sB, C + i * sC}; };
    /* The first and the last matrices bound the others. */
    if ((status = g.check(batch(0))) || (status = g.check(batch(batchCount - 1)))) return status;
    return run(handle, g.call, [=] {
        if (g.check(batch(0)) || g.check(batch(batchCount - 1))) return cudaErrorInvalidValue;
        for (int i = 0; i < batchCount; i++) g.compute(batch(i));
        return cudaSuccess;
    });
}

template <typename T>
cublasStatus_t pointers(Gemm<T> g, cublasHandle_t handle, const T *alpha, const T *const A[],
                        const T *const B[], const T *beta, T *const C[], int batchCount)
{
    cublasStatus_t status;
    if (!start(g, handle, alpha, beta, batchCount, &status)) return status;
    if (batchCount == 0 || g.m == 0 || g.n == 0) return CUBLAS_STATUS_SUCCESS;
    const void *arrays[3] = {A, B, C};
    const char *names[3] = {"Aarray", "Barray", "Carray"};
    for (int a = 0; a < 3; a++) {
        if (cudasim_is_device_range(arrays[a], (size_t)batchCount * sizeof(T *))) continue;
        char what[256];
        snprintf(what, sizeof what,
                 "%s (%p) is not a device buffer of %d pointers: cuBLAS reads the array of "
                 "pointers on the device (build it on the host, then cudaMemcpy it to a "
                 "cudaMalloc'd array)",
                 names[a], arrays[a], batchCount);
        return bad(g.call, what);
    }
    /* The matrices' pointers are in device memory: read when the call runs. */
    auto why = std::make_shared<cublasStatus_t>(CUBLAS_STATUS_SUCCESS);
    cudaError_t e = cudasim::issue_work(g.call, handle->stream, [=] {
        for (const void *p : arrays) cudasim::device_operand(p);
        std::vector<Batch<T>> batches;
        for (int i = 0; i < batchCount; i++) {
            batches.push_back(Batch<T>{A[i], B[i], C[i]});
            if ((*why = g.check(batches.back()))) return cudaErrorInvalidValue;
        }
        for (const Batch<T> &b : batches) g.compute(b);
        return cudaSuccess;
    });
    if (*why) return *why;
    return e == cudaSuccess ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_EXECUTION_FAILED;
}

template <typename T>
Gemm<T> shape(const char *call, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
              int lda, int ldb, int ldc)
{
    Gemm<T> g;
    g.call = call, g.ta = ta, g.tb = tb, g.m = m, g.n = n, g.k = k;
    g.lda = lda, g.ldb = ldb, g.ldc = ldc;
    return g;
}

} // namespace

extern "C" {

cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
                                         cublasOperation_t transb, int m, int n, int k,
                                         const float *alpha, const float *A, int lda,
                                         long long int strideA, const float *B, int ldb,
                                         long long int strideB, const float *beta, float *C,
                                         int ldc, long long int strideC, int batchCount)
{
    return strided(shape<float>("cublasSgemmStridedBatched", transa, transb, m, n, k, lda, ldb, ldc),
                   handle, alpha, A, strideA, B, strideB, beta, C, strideC, batchCount);
}

cublasStatus_t cublasDgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
                                         cublasOperation_t transb, int m, int n, int k,
                                         const double *alpha, const double *A, int lda,
                                         long long int strideA, const double *B, int ldb,
                                         long long int strideB, const double *beta, double *C,
                                         int ldc, long long int strideC, int batchCount)
{
    return strided(shape<double>("cublasDgemmStridedBatched", transa, transb, m, n, k, lda, ldb, ldc),
                   handle, alpha, A, strideA, B, strideB, beta, C, strideC, batchCount);
}

cublasStatus_t cublasSgemmBatched(cublasHandle_t handle, cublasOperation_t transa,
                                  cublasOperation_t transb, int m, int n, int k,
                                  const float *alpha, const float *const Aarray[], int lda,
                                  const float *const Barray[], int ldb, const float *beta,
                                  float *const Carray[], int ldc, int batchCount)
{
    return pointers(shape<float>("cublasSgemmBatched", transa, transb, m, n, k, lda, ldb, ldc),
                    handle, alpha, Aarray, Barray, beta, Carray, batchCount);
}

cublasStatus_t cublasDgemmBatched(cublasHandle_t handle, cublasOperation_t transa,
                                  cublasOperation_t transb, int m, int n, int k,
                                  const double *alpha, const double *const Aarray[], int lda,
                                  const double *const Barray[], int ldb, const double *beta,
                                  double *const Carray[], int ldc, int batchCount)
{
    return pointers(shape<double>("cublasDgemmBatched", transa, transb, m, n, k, lda, ldb, ldc),
                    handle, alpha, Aarray, Barray, beta, Carray, batchCount);
}

} // extern "C"
