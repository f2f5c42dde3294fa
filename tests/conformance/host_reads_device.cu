// A bug: host code reads device memory directly instead of copying it back.
// On a GPU the CPU cannot dereference a cudaMalloc pointer: the program dies
// of a segmentation fault, and so it does on the simulator, which says why.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void iota(int *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = i;
}

int main(void)
{
    int *d;
    cudaMalloc(&d, 100 * sizeof(int));
    iota<<<1, 100>>>(d, 100);
    cudaDeviceSynchronize();
    printf("computed; now the host reads d[5] directly\n");
    fflush(stdout);
    printf("d[5] = %d\n", d[5]); /* should be a cudaMemcpy */
    return 0;
}
