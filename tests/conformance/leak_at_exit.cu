// A leak: two device buffers freed, two never. At exit each buffer still
// held is reported with its size and where it was allocated, as
// compute-sanitizer --leak-check full reports it, then how much leaked.
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

__global__ void fill(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = 1.0f;
}

int main(void)
{
    const int n = 1000;
    float *kept, *freed, *scratch;
    int *managed;
    CHECK(cudaMalloc(&kept, n * sizeof(float)));
    CHECK(cudaMalloc(&freed, n * sizeof(float)));
    CHECK(cudaMallocManaged(&managed, 64 * sizeof(int)));
    CHECK(cudaMalloc(&scratch, 256));
    fill<<<(n + 255) / 256, 256>>>(kept, n);
    CHECK(cudaMemcpy(freed, kept, n * sizeof(float), cudaMemcpyDeviceToDevice));
    CHECK(cudaFree(freed));
    CHECK(cudaFree(scratch));
    CHECK(cudaDeviceSynchronize());
    printf("done, two buffers still held\n");
    return 0;
}
