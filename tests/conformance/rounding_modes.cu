// The arithmetic intrinsics that round as their name says (_rn to nearest,
// _rz toward zero, _ru up, _rd down), as interval arithmetic uses them (the
// CUDA samples' interval): each result is printed exactly, in hexadecimal.
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

__global__ void rounded(float *f, double *d)
{
    f[0] = __fdiv_rd(1.0f, 3.0f);
    f[1] = __fdiv_ru(1.0f, 3.0f);
    f[2] = __fadd_rz(-1.0f, -1e-10f);
    f[3] = __fadd_rd(-1.0f, -1e-10f);
    f[4] = __fsqrt_ru(2.0f);
    f[5] = __fmaf_rd(0.1f, 10.0f, -1.0f);
    f[6] = __frcp_ru(3.0f);
    d[0] = __dadd_rd(1.0, 1e-20);
    d[1] = __dadd_ru(1.0, 1e-20);
    d[2] = __dsqrt_rd(2.0);
    d[3] = __dsqrt_ru(2.0);
    d[4] = __dmul_rz(-0.1, 3.0);
    d[5] = __dmul_rd(-0.1, 3.0);
    d[6] = __ddiv_ru(1.0, 10.0);
    d[7] = __fma_ru(0.1, 10.0, -1.0);
}

int main(void)
{
    float *d_f, f[7];
    double *d_d, d[8];
    CHECK(cudaMalloc(&d_f, sizeof f));
    CHECK(cudaMalloc(&d_d, sizeof d));
    rounded<<<1, 1>>>(d_f, d_d);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(f, d_f, sizeof f, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(d, d_d, sizeof d, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 7; i++) printf("f[%d] = %a\n", i, f[i]);
    for (int i = 0; i < 8; i++) printf("d[%d] = %a\n", i, d[i]);
    CHECK(cudaFree(d_f));
    CHECK(cudaFree(d_d));
    return 0;
}
