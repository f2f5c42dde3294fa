// Vectorised loads and stores, aligned as they must be: float2, float4,
// double2 and int4 through reinterpret_cast, a float4 __shared__ tile, and a
// struct of four floats (4-byte aligned) copied whole from an odd offset,
// which is fine: its alignment is a float's.
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

struct Quad {
    float a, b, c, d;
};

__global__ void vectors(const float *f, const double *d, const int *k, float *out)
{
    int t = threadIdx.x;
    __shared__ float4 tile[64];
    float4 v4 = reinterpret_cast<const float4 *>(f)[t];
    float2 v2 = reinterpret_cast<const float2 *>(f)[t];
    double2 d2 = reinterpret_cast<const double2 *>(d)[t];
    int4 k4 = reinterpret_cast<const int4 *>(k)[t];
    tile[t] = v4;
    __syncthreads();
    float4 w = tile[63 - t];
    Quad q = reinterpret_cast<const Quad *>(f + 1)[t]; /* 4-byte aligned: allowed */
    float r = w.x + w.y + w.z + w.w + v2.x - v2.y + (float)(d2.x * d2.y) + (float)(k4.x + k4.w) +
              q.a - q.d;
    reinterpret_cast<float2 *>(out)[t] = make_float2(r, v4.z);
}

int main(void)
{
    const int n = 64;
    static float f[4 * n + 4];
    static double d[2 * n];
    static int k[4 * n];
    for (int i = 0; i < 4 * n + 4; i++) f[i] = (float)(i % 13) * 0.5f;
    for (int i = 0; i < 2 * n; i++) d[i] = 1.0 + i * 0.25;
    for (int i = 0; i < 4 * n; i++) k[i] = i * 3 - 100;
    float *df, *dout;
    double *dd;
    int *dk;
    CHECK(cudaMalloc(&df, sizeof f));
    CHECK(cudaMalloc(&dd, sizeof d));
    CHECK(cudaMalloc(&dk, sizeof k));
    CHECK(cudaMalloc(&dout, 2 * n * sizeof(float)));
    CHECK(cudaMemcpy(df, f, sizeof f, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dd, d, sizeof d, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dk, k, sizeof k, cudaMemcpyHostToDevice));
    vectors<<<1, n>>>(df, dd, dk, dout);
    CHECK(cudaGetLastError());
    float out[2 * n];
    CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    double sum = 0;
    for (int i = 0; i < 2 * n; i++) sum += out[i];
    printf("out[0..3] = %.3f %.3f %.3f %.3f, sum %.3f\n", out[0], out[1], out[2], out[3], sum);
    cudaDeviceReset(); // frees every buffer still held, for the leak check at exit
    return 0;
}
