// Half precision as the blog posts write it: __half arithmetic intrinsics
// and __half2 pairs (two values per 32-bit word).
#include <cstdio>
#include <cuda_fp16.h>

__global__ void halfs(const __half *a, const __half *b, float *out, __half2 *h2, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half s = __hadd(a[i], b[i]);
    __half p = __hmul(a[i], b[i]);
    __half m = __hmax(a[i], b[i]);
    m += __hsub(p, s);
    out[i] = __half2float(s) + __half2float(p) + (__hlt(a[i], b[i]) ? 1000.0f : 0.0f) + __half2float(m) / 8;
    __half2 v = __floats2half2_rn(__half2float(a[i]), 1.5f);
    h2[i] = __hfma2(v, v, __halves2half2(b[i], __float2half(0.1f)));
}

int main()
{
    const int n = 8;
    __half ha[n], hb[n];
    for (int i = 0; i < n; i++) { ha[i] = __float2half(0.3f * i); hb[i] = __float2half(1.25f); }
    __half *da, *db;
    __half2 *dh2;
    float *df;
    cudaMalloc(&da, sizeof ha);
    cudaMalloc(&db, sizeof hb);
    cudaMalloc(&dh2, n * sizeof(__half2));
    cudaMalloc(&df, n * sizeof(float));
    cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice);
    cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice);
    halfs<<<1, n>>>(da, db, df, dh2, n);
    float hf[n];
    __half2 hh2[n];
    cudaMemcpy(hf, df, sizeof hf, cudaMemcpyDeviceToHost);
    cudaMemcpy(hh2, dh2, sizeof hh2, cudaMemcpyDeviceToHost);
    printf("sizeof(__half2) = %zu\n", sizeof(__half2));
    for (int i = 0; i < n; i++)
        printf("%d: %.6f  (%.6f, %.6f)\n", i, hf[i], __low2float(hh2[i]), __high2float(hh2[i]));
    cudaDeviceReset(); // frees every buffer still held, for the leak check at exit
    return 0;
}
