// A bug: every thread of a block writes the block's result to the same
// global address (meant: only thread 0), and thread 0 reads it back without
// a barrier. Which value stays depends on timing.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void block_label(int *label, int *copy)
{
    label[blockIdx.x] = threadIdx.x; /* every thread writes it */
    if (threadIdx.x == 0) copy[blockIdx.x] = label[blockIdx.x];
}

int main(void)
{
    int *label, *copy;
    cudaMalloc(&label, 4 * sizeof(int));
    cudaMalloc(&copy, 4 * sizeof(int));
    block_label<<<4, 64>>>(label, copy);
    cudaError_t e = cudaDeviceSynchronize();
    printf("block_label: %s\n", cudaGetErrorString(e));
    return 0;
}
