// The same tree reduction with the barrier inside the loop forgotten: a
// race on shared memory. One block, so on the simulator the threads could
// run in an order that hides it; the race detector reports it all the same.
#include <cstdio>
#include <cuda_runtime.h>

#define BLOCK 128

__global__ void block_sum(const float *in, float *out)
{
    __shared__ float partial[BLOCK];
    int t = threadIdx.x;
    partial[t] = in[t];
    __syncthreads();
    for (int stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (t < stride) partial[t] += partial[t + stride];
        /* missing: __syncthreads(); */
    }
    if (t == 0) *out = partial[0];
}

int main(void)
{
    float h[BLOCK], sum = 0;
    for (int i = 0; i < BLOCK; i++) h[i] = (float)(i % 5);
    float *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h);
    cudaMalloc(&d_out, sizeof(float));
    cudaMemcpy(d_in, h, sizeof h, cudaMemcpyHostToDevice);
    block_sum<<<1, BLOCK>>>(d_in, d_out);
    cudaError_t err = cudaDeviceSynchronize();
    cudaMemcpy(&sum, d_out, sizeof sum, cudaMemcpyDeviceToHost);
    printf("launch: %s\n", cudaGetErrorString(err));
    cudaFree(d_in);
    cudaFree(d_out);
    return 0;
}
