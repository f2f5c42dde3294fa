// A launch that runs unchecked on its kernel's uninstrumented twin runs its
// blocks after the first on several CPU threads at once (docs/simulator.md,
// "Blocks on every core"), where its result cannot depend on their order:
// block_sums (shared memory, barriers, no atomics) does; count_odd, with an
// atomicAdd, keeps its blocks one at a time. Each is launched ten times over
// 64 blocks; the sums must be what one block after another gives, exactly, and
// the summary counts the launches whose blocks ran on several threads
// (parallel_blocks.env pins them to 3; parallel_blocks.one.env to 1, where the
// same sums come out and no launch runs so).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void block_sums(const float *x, float *sums)
{
    __shared__ float part[128];
    int t = threadIdx.x;
    part[t] = x[blockIdx.x * 128 + t] * (1.0f + 0.5f * (float)(t % 3));
    __syncthreads();
    for (int s = 64; s > 0; s /= 2) {
        if (t < s) part[t] += part[t + s];
        __syncthreads();
    }
    if (t == 0) sums[blockIdx.x] += part[0];
}

__global__ void count_odd(const float *x, int *count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if ((int)x[i] % 2) atomicAdd(count, 1);
}

int main(void)
{
    const int blocks = 64, n = blocks * 128;
    static float h_x[n];
    for (int i = 0; i < n; i++) h_x[i] = (float)((i * 37) % 101) / 7.0f;
    float *d_x, *d_sums;
    int *d_count;
    cudaMalloc(&d_x, sizeof h_x);
    cudaMalloc(&d_sums, blocks * sizeof(float));
    cudaMalloc(&d_count, sizeof(int));
    cudaMemcpy(d_x, h_x, sizeof h_x, cudaMemcpyHostToDevice);
    cudaMemset(d_sums, 0, blocks * sizeof(float));
    cudaMemset(d_count, 0, sizeof(int));
    for (int launch = 0; launch < 10; launch++) {
        block_sums<<<blocks, 128>>>(d_x, d_sums);
        count_odd<<<blocks, 128>>>(d_x, d_count);
    }
    float h_sums[blocks];
    int h_count;
    cudaMemcpy(h_sums, d_sums, sizeof h_sums, cudaMemcpyDeviceToHost);
    cudaMemcpy(&h_count, d_count, sizeof h_count, cudaMemcpyDeviceToHost);
    double total = 0;
    for (int b = 0; b < blocks; b++) total += h_sums[b];
    printf("block 0: %.6f, block 63: %.6f, all: %.4f\n", h_sums[0], h_sums[63], total);
    printf("odd values counted: %d\n", h_count);
    cudaFree(d_x);
    cudaFree(d_sums);
    cudaFree(d_count);
    return 0;
}
