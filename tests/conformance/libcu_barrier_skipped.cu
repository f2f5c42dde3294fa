// A bug: a phase of the barrier is skipped. Each thread writes its value,
// arrives, and reads its neighbour's without waiting for the phase to
// complete, so the neighbour may not have written yet: a data race, which
// the race check reports with both lines (the arrival alone orders nothing).
#include <cstdio>
#include <cuda/barrier>
#include <cuda_runtime.h>

#pragma nv_diag_suppress static_var_with_dynamic_init

#define T 64

__global__ void neighbours(const int *x, int *out)
{
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ int s[T];
    const int t = threadIdx.x;
    if (t == 0) init(&bar, T);
    __syncthreads();
    s[t] = x[t];
    auto token = bar.arrive();
    int next = s[(t + 1) % T]; // BUG: read after bar.wait(std::move(token))
    bar.wait(std::move(token));
    out[t] = next;
}

int main(void)
{
    int hx[T], hout[T], *x, *out;
    for (int i = 0; i < T; i++) hx[i] = i + 1;
    cudaMalloc(&x, sizeof hx);
    cudaMalloc(&out, sizeof hout);
    cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice);
    neighbours<<<1, T>>>(x, out);
    cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost);
    int wrong = 0;
    for (int i = 0; i < T; i++) wrong += hout[i] != hx[(i + 1) % T];
    printf("neighbours: %d of %d values as intended\n", T - wrong, T);
    return 0;
}
