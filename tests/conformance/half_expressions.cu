// Half-precision expressions as a blog post writes them, with the __half
// operators: (a + b) * c and a + b + c round every operation to half on a
// GPU, so they differ from the same expression computed in float and
// rounded once at the end (the count says how often). A running sum of
// products in __half, beside the same sum in float.
#include <cstdio>
#include <cuda_fp16.h>

#include "check.h"

__global__ void expressions(const __half *a, const __half *b, const __half *c, __half *r1,
                            __half *r2, int *differ, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    r1[i] = (a[i] + b[i]) * c[i];
    r2[i] = a[i] + b[i] + c[i];
    float fa = __half2float(a[i]), fb = __half2float(b[i]), fc = __half2float(c[i]);
    if (__half_as_ushort(r1[i]) != __half_as_ushort(__float2half((fa + fb) * fc))) atomicAdd(&differ[0], 1);
    if (__half_as_ushort(r2[i]) != __half_as_ushort(__float2half(fa + fb + fc))) atomicAdd(&differ[1], 1);
}

__global__ void running_sum(const __half *a, const __half *c, int n, __half *hsum, float *fsum)
{
    __half s = 0;
    float f = 0.0f;
    for (int i = 0; i < n; i++) {
        s += a[i] * c[i];
        f += __half2float(a[i]) * __half2float(c[i]);
    }
    *hsum = s;
    *fsum = f;
}

int main(void)
{
    const int n = 4096;
    static __half a[n], b[n], c[n], r1[n], r2[n];
    unsigned int k = 12345; // a fixed sequence: every run and every GPU sees the same inputs
    for (int i = 0; i < n; i++) {
        k = k * 1103515245u + 12345u;
        a[i] = __float2half((float)(int)(k >> 16 & 2047) / 37.0f - 20.0f);
        k = k * 1103515245u + 12345u;
        b[i] = __float2half((float)(int)(k >> 16 & 2047) / 101.0f);
        k = k * 1103515245u + 12345u;
        c[i] = __float2half((float)(int)(k >> 16 & 255) / 64.0f - 1.5f);
    }
    __half *da, *db, *dc, *d1, *d2, *dh;
    float *df, fsum;
    int *dd, differ[2] = {0, 0};
    CHECK(cudaMalloc(&da, sizeof a));
    CHECK(cudaMalloc(&db, sizeof b));
    CHECK(cudaMalloc(&dc, sizeof c));
    CHECK(cudaMalloc(&d1, sizeof r1));
    CHECK(cudaMalloc(&d2, sizeof r2));
    CHECK(cudaMalloc(&dh, sizeof(__half)));
    CHECK(cudaMalloc(&df, sizeof(float)));
    CHECK(cudaMalloc(&dd, sizeof differ));
    CHECK(cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dc, c, sizeof c, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dd, differ, sizeof differ, cudaMemcpyHostToDevice));
    expressions<<<n / 256, 256>>>(da, db, dc, d1, d2, dd, n);
    running_sum<<<1, 1>>>(da, dc, n, dh, df);
    CHECK(cudaGetLastError());
    __half hsum;
    CHECK(cudaMemcpy(r1, d1, sizeof r1, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(r2, d2, sizeof r2, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(differ, dd, sizeof differ, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&hsum, dh, sizeof hsum, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&fsum, df, sizeof fsum, cudaMemcpyDeviceToHost));
    unsigned int bits1 = 0, bits2 = 0;
    for (int i = 0; i < n; i++) {
        bits1 += __half_as_ushort(r1[i]) * (unsigned)(i + 1);
        bits2 += __half_as_ushort(r2[i]) * (unsigned)(i + 1);
    }
    printf("(a + b) * c: %d results, checksum %08x; %d differ from (float)(a + b) * c rounded once\n",
           n, bits1, differ[0]);
    printf("a + b + c:   %d results, checksum %08x; %d differ from (float)a + b + c rounded once\n",
           n, bits2, differ[1]);
    printf("r1[0..3] = %.6f %.6f %.6f %.6f\n", __half2float(r1[0]), __half2float(r1[1]),
           __half2float(r1[2]), __half2float(r1[3]));
    printf("running sum of a * c: %.4f in __half, %.4f in float\n", __half2float(hsum), fsum);
    cudaDeviceReset(); // frees every buffer still held, for the leak check at exit
    return 0;
}
