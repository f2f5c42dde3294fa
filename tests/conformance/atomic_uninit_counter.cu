// A bug: the counter that atomicAdd increments was allocated but never set to
// zero. cudaMalloc does not clear memory: on a GPU the count starts from
// whatever was there (here the simulator's initcheck names the read).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void count_positive(const float *x, int n, int *count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] > 0.0f) atomicAdd(count, 1);
}

int main(void)
{
    const int n = 256;
    float h[n], *d_x;
    int *d_count;
    for (int i = 0; i < n; i++) h[i] = (float)(i % 4) - 1.5f; /* half of them positive */
    cudaMalloc(&d_x, sizeof h);
    cudaMalloc(&d_count, sizeof(int)); /* missing: cudaMemset(d_count, 0, sizeof(int)) */
    cudaMemcpy(d_x, h, sizeof h, cudaMemcpyHostToDevice);
    count_positive<<<2, 128>>>(d_x, n, d_count);
    cudaError_t e = cudaDeviceSynchronize();
    printf("count_positive: %s\n", cudaGetErrorString(e));
    return 0;
}
