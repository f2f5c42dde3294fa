// A bug: the barrier counts every thread of the block, but the threads past
// the end of the data return before they arrive, so the phase never
// completes and the others wait for ever (on a GPU the kernel hangs). The
// simulator stops the block and says who waits where, and who never came.
#include <cstdio>
#include <cuda/barrier>
#include <cuda_runtime.h>

#pragma nv_diag_suppress static_var_with_dynamic_init

__global__ void scale_by_total(float *x, int n)
{
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ float total;
    const int t = threadIdx.x;
    if (t == 0) {
        init(&bar, blockDim.x); // BUG: only n threads arrive
        total = 0.0f;
    }
    __syncthreads();
    if (t >= n) return;
    atomicAdd(&total, x[t]);
    bar.arrive_and_wait();
    x[t] /= total;
}

int main(void)
{
    float h[100], *x;
    for (int i = 0; i < 100; i++) h[i] = 1.0f;
    cudaMalloc(&x, sizeof h);
    cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
    scale_by_total<<<1, 128>>>(x, 100);
    cudaError_t e = cudaDeviceSynchronize();
    printf("scale_by_total: %s\n", e == cudaSuccess ? "finished" : "failed");
    return 0;
}
