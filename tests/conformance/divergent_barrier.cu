// A bug: __syncthreads inside a branch that only some threads of the block
// take. On a GPU this hangs or gives garbage; the simulator stops the launch
// and says which threads reached the barrier and which did not.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void halves(float *x)
{
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = x[t];
    if (t < 32) {
        __syncthreads(); /* the other half never gets here */
        x[t] = s[t + 32];
    }
}

int main(void)
{
    float h[64], *d;
    for (int i = 0; i < 64; i++) h[i] = (float)i;
    cudaMalloc(&d, sizeof h);
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    halves<<<1, 64>>>(d);
    cudaError_t e = cudaDeviceSynchronize();
    printf("halves: %s\n", e == cudaSuccess ? "no error reported" : "the launch failed");
    return 0;
}
