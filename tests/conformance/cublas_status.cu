// cuBLAS's status codes for the bad arguments its documentation lists
// (CUBLAS_STATUS_INVALID_VALUE: a negative size, an element size or stride
// of 0, a leading dimension under the rows, an operation that is not N, T or
// C, a negative batch count), and the quick returns that are not errors
// (a reduction of no elements gives 0). Each refused call leaves the device
// memory as it was.
#include <cstdio>
#include <cublas_v2.h>
#include <cuda_runtime.h>

static void show(const char *what, cublasStatus_t s)
{
    printf("%-44s %s\n", what, cublasGetStatusString(s));
}

int main(void)
{
    cublasHandle_t h;
    cublasCreate(&h);
    const int m = 4, n = 3;
    float host[m * n], *A, *x, *y, *C;
    for (int i = 0; i < m * n; i++) host[i] = (float)i;
    cudaMalloc(&A, sizeof host);
    cudaMalloc(&x, 8 * sizeof(float));
    cudaMalloc(&y, 8 * sizeof(float));
    cudaMalloc(&C, sizeof host);
    cudaMemset(x, 0, 8 * sizeof(float));
    cudaMemset(y, 0, 8 * sizeof(float));
    show("cublasSetMatrix, as meant", cublasSetMatrix(m, n, sizeof(float), host, m, A, m));
    show("cublasSetMatrix, rows -1", cublasSetMatrix(-1, n, sizeof(float), host, m, A, m));
    show("cublasSetMatrix, elemSize 0", cublasSetMatrix(m, n, 0, host, m, A, m));
    show("cublasSetMatrix, lda 0", cublasSetMatrix(m, n, sizeof(float), host, 0, A, m));
    show("cublasSetVector, incx 0", cublasSetVector(m, sizeof(float), host, 0, x, 1));
    float one = 1.0f, zero = 0.0f;
    show("cublasSgemv, lda < m", cublasSgemv(h, CUBLAS_OP_N, m, n, &one, A, m - 1, x, 1, &zero, y, 1));
    show("cublasSgemv, incx 0", cublasSgemv(h, CUBLAS_OP_N, m, n, &one, A, m, x, 0, &zero, y, 1));
    show("cublasSgemv, trans 7",
         cublasSgemv(h, (cublasOperation_t)7, m, n, &one, A, m, x, 1, &zero, y, 1));
    show("cublasSger, m -1", cublasSger(h, -1, n, &one, x, 1, y, 1, A, m));
    show("cublasSgemm, ldc < m",
         cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, m, n, &one, A, m, A, n, &zero, C, 2));
    show("cublasSgemmStridedBatched, batchCount -1",
         cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_T, m, m, 1, &one, A, m, 0, A, m, 0,
                                   &zero, C, m, 0, -1));
    float r = -1.0f;
    cublasStatus_t s = cublasSnrm2(h, 0, x, 1, &r);
    printf("%-44s %s, result %g\n", "cublasSnrm2, n 0", cublasGetStatusString(s), r);
    r = -1.0f;
    s = cublasSdot(h, -5, x, 1, y, 1, &r);
    printf("%-44s %s, result %g\n", "cublasSdot, n -5", cublasGetStatusString(s), r);
    float back[m * n];
    cublasGetMatrix(m, n, sizeof(float), A, m, back, m);
    int same = 1;
    for (int i = 0; i < m * n; i++) same &= back[i] == host[i];
    printf("A after the refused calls: %s\n", same ? "unchanged" : "CHANGED");
    cublasDestroy(h);
    return 0;
}
