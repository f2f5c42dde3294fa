// A bug that first shows in a kernel's sixth launch: gather reads x at the
// indices in `at`, which the host rewrites before each launch, and before the
// sixth it makes the first one -1, before the start of x. The first four
// launches were checked and clean, so by default the simulator runs the later
// ones unchecked: the read before the start goes unreported (the limit of the
// default, docs/simulator.md). Run again with CUDASIM_CHECK=all
// (late_bug.check_all.env), every launch is checked and the read is reported.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void gather(const float *x, const int *at, float *out)
{
    int i = threadIdx.x;
    out[i] = x[at[i]];
}

int main(void)
{
    const int n = 64;
    float h_x[n];
    int h_at[n];
    for (int i = 0; i < n; i++) h_x[i] = (float)i, h_at[i] = n - 1 - i;
    float *d_x, *d_out;
    int *d_at;
    cudaMalloc(&d_x, sizeof h_x);
    cudaMalloc(&d_at, sizeof h_at);
    cudaMalloc(&d_out, sizeof h_x);
    cudaMemcpy(d_x, h_x, sizeof h_x, cudaMemcpyHostToDevice);
    for (int launch = 1; launch <= 6; launch++) {
        if (launch == 6) h_at[0] = -1; /* before the start */
        cudaMemcpy(d_at, h_at, sizeof h_at, cudaMemcpyHostToDevice);
        gather<<<1, n>>>(d_x, d_at, d_out);
        cudaError_t e = cudaDeviceSynchronize();
        printf("launch %d: %s\n", launch, e == cudaSuccess ? "no error reported" : cudaGetErrorString(e));
        if (e != cudaSuccess) break;
    }
    cudaFree(d_x);
    cudaFree(d_at);
    cudaFree(d_out);
    return 0;
}
