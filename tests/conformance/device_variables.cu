// __device__ and __constant__ variables in the forms programs declare them:
// with and without initial values, an array sized by its list, several in
// one declaration, static, in a namespace, aligned, a pointer, a const one.
// A kernel reads them all and updates some; the host reads them back.
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

__constant__ float weights[] = {0.5f, 0.25f, 0.125f, 0.0625f};
__constant__ int offsets[4];
__device__ int calls = 0, totals[3] = {10, 20, 30};
static __device__ double scale = 2.5;
__device__ __align__(16) float acc[4];
__device__ float *target;
const __device__ int kLimit = 7;
namespace stats {
__device__ unsigned int hits;
}

__global__ void use_them(float *out)
{
    int t = threadIdx.x;
    float w = weights[t] * (float)scale + (float)offsets[t];
    acc[t] = w;
    atomicAdd(&totals[t % 3], t);
    atomicAdd(&stats::hits, t < kLimit ? 1u : 0u);
    if (t == 0) {
        calls = calls + 1;
        *target = w;
    }
    out[t] = w;
}

int main(void)
{
    int h_off[4] = {1, 2, 3, 4};
    float *d_out, *d_target, out[4], h_acc[4], h_target;
    int h_totals[3], h_calls;
    unsigned int h_hits;
    CHECK(cudaMemcpyToSymbol(offsets, h_off, sizeof h_off));
    CHECK(cudaMalloc(&d_out, sizeof out));
    CHECK(cudaMalloc(&d_target, sizeof(float)));
    CHECK(cudaMemcpyToSymbol(target, &d_target, sizeof d_target));
    use_them<<<1, 4>>>(d_out);
    use_them<<<1, 4>>>(d_out);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpyFromSymbol(h_acc, acc, sizeof h_acc));
    CHECK(cudaMemcpyFromSymbol(h_totals, totals, sizeof h_totals));
    CHECK(cudaMemcpyFromSymbol(&h_calls, calls, sizeof h_calls));
    CHECK(cudaMemcpyFromSymbol(&h_hits, stats::hits, sizeof h_hits));
    CHECK(cudaMemcpy(&h_target, d_target, sizeof h_target, cudaMemcpyDeviceToHost));
    printf("sizeof weights %zu, totals %zu, acc %zu\n", sizeof weights, sizeof totals, sizeof acc);
    printf("out %.4f %.4f %.4f %.4f; acc %.4f %.4f\n", out[0], out[1], out[2], out[3], h_acc[0], h_acc[3]);
    printf("totals %d %d %d; calls %d; hits %u; *target %.4f\n", h_totals[0], h_totals[1],
           h_totals[2], h_calls, h_hits, h_target);
    cudaDeviceReset(); // frees every buffer still held, for the leak check at exit
    return 0;
}
