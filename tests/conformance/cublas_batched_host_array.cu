// A bug: cublasSgemmBatched is given the arrays of matrix pointers as built
// on the host; cuBLAS reads them on the device, so they must be copied to
// device memory first. On a GPU the call faults (or reads garbage); the
// simulator refuses it and says which array.
#include <cstdio>
#include <cublas_v2.h>
#include <cuda_runtime.h>

int main(void)
{
    const int n = 4, batches = 2;
    cublasHandle_t h;
    cublasCreate(&h);
    float *d;
    cudaMalloc(&d, 3 * batches * n * n * sizeof(float));
    cudaMemset(d, 0, 3 * batches * n * n * sizeof(float));
    const float *A[batches], *B[batches];
    float *C[batches];
    for (int b = 0; b < batches; b++) {
        A[b] = d + b * n * n;
        B[b] = d + (batches + b) * n * n;
        C[b] = d + (2 * batches + b) * n * n;
    }
    float one = 1.0f, zero = 0.0f;
    cublasStatus_t s = cublasSgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, A, n, B, n,
                                          &zero, C, n, batches); /* A, B, C: host arrays */
    printf("cublasSgemmBatched: %s\n", s == CUBLAS_STATUS_SUCCESS ? "done" : "failed");
    cublasDestroy(h);
    return 0;
}
