// A fault in a launch whose blocks run on several CPU threads at once
// (docs/simulator.md, "Blocks on every core") is reported as one block after
// another reports it: the fault of the lowest block that faults. scatter's
// first five launches write inside the buffer; before the sixth the host
// plants indices far past its end for blocks 9 and 40. Every block before 9
// has run by the time 9 faults, whichever thread ran it, so the report names
// block 9, with three threads (parallel_fault.env) as with one
// (parallel_fault.one.env).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void scatter(float *y, const int *at)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    y[at[i]] = (float)i;
}

int main(void)
{
    const int blocks = 48, n = blocks * 64;
    static int h_at[n];
    float *d_y;
    int *d_at;
    cudaMalloc(&d_y, n * sizeof(float));
    cudaMalloc(&d_at, sizeof h_at);
    for (int launch = 1; launch <= 6; launch++) {
        for (int i = 0; i < n; i++) h_at[i] = n - 1 - i;
        if (launch == 6) h_at[9 * 64 + 5] = h_at[40 * 64 + 7] = 1 << 24;
        cudaMemcpy(d_at, h_at, sizeof h_at, cudaMemcpyHostToDevice);
        scatter<<<blocks, 64>>>(d_y, d_at);
        cudaError_t e = cudaDeviceSynchronize();
        printf("launch %d: %s\n", launch, cudaGetErrorString(e));
        if (e != cudaSuccess) break;
    }
    return 0;
}
