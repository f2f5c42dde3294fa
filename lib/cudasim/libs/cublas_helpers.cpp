/*
 * cublas_helpers.cpp: cuBLAS's helpers that copy vectors and column-major
 * matrices between host and device memory (cublasSetVector, cublasGetVector,
 * cublasSetMatrix, cublasGetMatrix) and their Async forms, as the cuBLAS
 * documentation's examples use them. The documented argument checks give
 * CUBLAS_STATUS_INVALID_VALUE; a leading dimension under the rows (which the
 * cudaMemcpy2D that cuBLAS copies with refuses) and a device side that is not a device buffer of
 * the size the shape needs (or a host side that is device memory) is "an
 * error accessing GPU memory", CUBLAS_STATUS_MAPPING_ERROR, with a report
 * saying which pointer and how many bytes. The synchronous forms run on the
 * legacy stream, the Async ones on the stream given (recorded while it
 * captures, reading the host memory when the graph runs, as a copy would).
 */
#include <cstdio>
#include <cstring>

#include "cublas_internal.h"
#include "../internal.h"

using namespace cudasim::blas;

namespace {

/* One side of a copy: rows x cols elements of elem bytes, column j at
 * p + j * ld elements (a vector: rows = n, cols = 1, each element inc apart). */
struct Side {
    const char *name;
    char *p;
    int ld, inc;
    bool device;
};

size_t side_span(const Side &s, int rows, int cols, size_t elem)
{
    if (s.inc != 1) return vector_span(rows, s.inc, elem);
    return span(rows, cols, s.ld, elem);
}

/* The pointers are where the copy's direction says: else MAPPING_ERROR. */
cublasStatus_t check_sides(const char *call, const Side &from, const Side &to, int rows, int cols,
                           size_t elem)
{
    char what[512];
    for (const Side *s : {&from, &to}) {
        size_t bytes = side_span(*s, rows, cols, elem);
        if (s->device && !cudasim_is_device_range(s->p, bytes)) {
            snprintf(what, sizeof what,
                     "%s (%p) is not a device buffer of the %zu bytes the copy needs "
                     "(cudaMalloc it, of at least that size)",
                     s->name, (void *)s->p, bytes);
            return refuse(call, CUBLAS_STATUS_MAPPING_ERROR, what);
        }
        if (!s->device && !s->p) {
            snprintf(what, sizeof what, "%s is NULL", s->name);
            return refuse(call, CUBLAS_STATUS_MAPPING_ERROR, what);
        }
        if (!s->device && cudasim_is_device_range(s->p, 1)) {
            snprintf(what, sizeof what,
                     "%s is device memory, but %s copies %s: the two pointers are swapped?",
                     s->name, call,
                     strstr(call, "Set") ? "from host to device" : "from device to host");
            return refuse(call, CUBLAS_STATUS_MAPPING_ERROR, what);
        }
    }
    return CUBLAS_STATUS_SUCCESS;
}

/* Copy element by element (column by column when both are matrices). */
cudaError_t copy(const Side &from, const Side &to, int rows, int cols, size_t elem)
{
    if (from.device) cudasim::device_operand(from.p);
    if (to.device) cudasim::device_operand(to.p);
    for (int j = 0; j < cols; j++) {
        if (from.inc == 1 && to.inc == 1) {
            char *dst = to.p + (size_t)j * to.ld * elem;
            memcpy(dst, from.p + (size_t)j * from.ld * elem, (size_t)rows * elem);
            if (to.device) cudasim::device_written(dst, (size_t)rows * elem);
            continue;
        }
        for (int i = 0; i < rows; i++) {
            char *dst = to.p + (size_t)i * to.inc * elem;
            memcpy(dst, from.p + (size_t)i * from.inc * elem, elem);
            if (to.device) cudasim::device_written(dst, elem);
        }
    }
    return cudaSuccess;
}

cublasStatus_t transfer(const char *call, cudaStream_t stream, int rows, int cols, int elemSize,
                        Side from, Side to)
{
    bool vector = cols < 0;
    if (vector) cols = 1;
    if (rows < 0 || cols < 0) return bad(call, vector ? "n is negative" : "rows or cols is negative");
    if (elemSize <= 0) return bad(call, "elemSize is not positive");
    if (vector && (from.inc <= 0 || to.inc <= 0)) return bad(call, "incx or incy is not positive");
    if (!vector && (from.ld <= 0 || to.ld <= 0)) return bad(call, "lda or ldb is not positive");
    if (rows == 0 || cols == 0) return CUBLAS_STATUS_SUCCESS;
    if (!vector && (from.ld < rows || to.ld < rows)) {
        /* cuBLAS copies with cudaMemcpy2D, which refuses a pitch under the width. */
        char what[256];
        snprintf(what, sizeof what,
                 "lda (%d) or ldb (%d) is smaller than rows (%d): the columns would overlap",
                 from.ld, to.ld, rows);
        return refuse(call, CUBLAS_STATUS_MAPPING_ERROR, what);
    }
    size_t elem = (size_t)elemSize;
    cublasStatus_t status = check_sides(call, from, to, rows, cols, elem);
    if (status != CUBLAS_STATUS_SUCCESS) return status;
    cudaError_t e = cudasim::issue_work(call, stream, [=] {
        /* A recorded copy checks its buffers again: they may have been freed since. */
        if (check_sides(call, from, to, rows, cols, elem)) return cudaErrorInvalidValue;
        return copy(from, to, rows, cols, elem);
    });
    return e == cudaSuccess ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_MAPPING_ERROR;
}

Side host(const char *name, const void *p, int ld, int inc)
{
    return Side{name, static_cast<char *>(const_cast<void *>(p)), ld, inc, false};
}
Side device(const char *name, const void *p, int ld, int inc)
{
    return Side{name, static_cast<char *>(const_cast<void *>(p)), ld, inc, true};
}

} // namespace

extern "C" {

cublasStatus_t cublasSetVector(int n, int elemSize, const void *x, int incx, void *devicePtr,
                               int incy)
{
    return transfer("cublasSetVector", nullptr, n, -1, elemSize, host("x", x, 1, incx),
                    device("devicePtr", devicePtr, 1, incy));
}

cublasStatus_t cublasGetVector(int n, int elemSize, const void *x, int incx, void *y, int incy)
{
    return transfer("cublasGetVector", nullptr, n, -1, elemSize, device("x", x, 1, incx),
                    host("y", y, 1, incy));
}

cublasStatus_t cublasSetMatrix(int rows, int cols, int elemSize, const void *A, int lda, void *B,
                               int ldb)
{
    return transfer("cublasSetMatrix", nullptr, rows, cols, elemSize, host("A", A, lda, 1),
                    device("B", B, ldb, 1));
}

cublasStatus_t cublasGetMatrix(int rows, int cols, int elemSize, const void *A, int lda, void *B,
                               int ldb)
{
    return transfer("cublasGetMatrix", nullptr, rows, cols, elemSize, device("A", A, lda, 1),
                    host("B", B, ldb, 1));
}

cublasStatus_t cublasSetVectorAsync(int n, int elemSize, const void *hostPtr, int incx,
                                    void *devicePtr, int incy, cudaStream_t stream)
{
    return transfer("cublasSetVectorAsync", stream, n, -1, elemSize,
                    host("hostPtr", hostPtr, 1, incx), device("devicePtr", devicePtr, 1, incy));
}

cublasStatus_t cublasGetVectorAsync(int n, int elemSize, const void *devicePtr, int incx,
                                    void *hostPtr, int incy, cudaStream_t stream)
{
    return transfer("cublasGetVectorAsync", stream, n, -1, elemSize,
                    device("devicePtr", devicePtr, 1, incx), host("hostPtr", hostPtr, 1, incy));
}

cublasStatus_t cublasSetMatrixAsync(int rows, int cols, int elemSize, const void *A, int lda,
                                    void *B, int ldb, cudaStream_t stream)
{
    return transfer("cublasSetMatrixAsync", stream, rows, cols, elemSize, host("A", A, lda, 1),
                    device("B", B, ldb, 1));
}

cublasStatus_t cublasGetMatrixAsync(int rows, int cols, int elemSize, const void *A, int lda,
                                    void *B, int ldb, cudaStream_t stream)
{
    return transfer("cublasGetMatrixAsync", stream, rows, cols, elemSize, device("A", A, lda, 1),
                    host("B", B, ldb, 1));
}

} // extern "C"
