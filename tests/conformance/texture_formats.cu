// What a texture fetch returns for each kind of texel: 8- and 16-bit
// integers read as they are (cudaReadModeElementType) or as floats in
// [0, 1] and [-1, 1] (cudaReadModeNormalizedFloat: u / 255, max(s / 127, -1)),
// the kinds that are normalized whatever the read mode, 32-bit integers
// (never promoted, as CUDA documents), 16-bit floats, and linear filtering
// of normalized integers. Values worked out by hand in the comments; those
// a GPU's conversion may round in the last bits are printed to 6 digits.
// (texture_misuse.cu has the formats and descriptors CUDA refuses.)
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#include "check.h"

template <class T>
__global__ void fetch_point(cudaTextureObject_t tex, T *out, int n)
{
    int i = threadIdx.x;
    if (i < n) out[i] = tex1D<T>(tex, i + 0.5f);
}

__global__ void fetch_at(cudaTextureObject_t tex, float x, float4 *out)
{
    *out = tex1D<float4>(tex, x);
}

// A texture over a 1D array of n elements, copied from host.
static cudaTextureObject_t make(cudaArray_t *arr, cudaChannelFormatDesc d, const void *h,
                                size_t bytes, int n, cudaTextureReadMode read,
                                cudaTextureFilterMode filter = cudaFilterModePoint)
{
    cudaTextureObject_t t = 0;
    if (cudaMallocArray(arr, &d, n) != cudaSuccess) return 0;
    if (cudaMemcpy2DToArray(*arr, 0, 0, h, bytes, bytes, 1, cudaMemcpyHostToDevice) != cudaSuccess)
        return 0;
    cudaResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeArray;
    res.res.array.array = *arr;
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = cudaAddressModeClamp;
    td.readMode = read;
    td.filterMode = filter;
    if (cudaCreateTextureObject(&t, &res, &td, NULL) != cudaSuccess) return 0;
    return t;
}

int main(void)
{
    cudaArray_t a;
    float4 *d4, h4;
    float *df, hf[4];
    CHECK(cudaMalloc(&d4, sizeof(float4)));
    CHECK(cudaMalloc(&df, 4 * sizeof(float)));

    // uchar4 texels: as they are, then normalized (0 -> 0, 255 -> 1, 51 -> 0.2).
    uchar4 px[2] = {make_uchar4(0, 51, 128, 255), make_uchar4(255, 255, 0, 0)};
    uchar4 *du, hu;
    CHECK(cudaMalloc(&du, sizeof(uchar4)));
    cudaTextureObject_t t = make(&a, cudaCreateChannelDesc<uchar4>(), px, sizeof px, 2,
                                 cudaReadModeElementType);
    if (!t) return 1;
    fetch_point<uchar4><<<1, 1>>>(t, du, 1);
    CHECK(cudaMemcpy(&hu, du, sizeof hu, cudaMemcpyDeviceToHost));
    printf("uchar4 as uchar4: %d %d %d %d\n", hu.x, hu.y, hu.z, hu.w);
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFreeArray(a));
    t = make(&a, cudaCreateChannelDesc<uchar4>(), px, sizeof px, 2, cudaReadModeNormalizedFloat);
    if (!t) return 1;
    fetch_point<float4><<<1, 1>>>(t, d4, 1);
    CHECK(cudaMemcpy(&h4, d4, sizeof h4, cudaMemcpyDeviceToHost));
    printf("uchar4 normalized: %.6g %.6g %.6g %.6g\n", h4.x, h4.y, h4.z, h4.w);
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFreeArray(a));

    // Linear filtering of normalized texels, a quarter of the way: x = 0.75
    // puts x - 0.5 at 0.25 (64/256): 0.75 * t0 + 0.25 * t1, channel by channel:
    // (0.75 * 0 + 0.25 * 255) / 255 = 0.25, 0.2 * 0.75 + 0.25 = 0.4, ...
    t = make(&a, cudaCreateChannelDesc<uchar4>(), px, sizeof px, 2, cudaReadModeNormalizedFloat,
             cudaFilterModeLinear);
    if (!t) return 1;
    fetch_at<<<1, 1>>>(t, 0.75f, d4);
    CHECK(cudaMemcpy(&h4, d4, sizeof h4, cudaMemcpyDeviceToHost));
    printf("uchar4 normalized, linear at 0.75: %.6g %.6g %.6g %.6g\n", h4.x, h4.y, h4.z, h4.w);
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFreeArray(a));

    // Signed chars normalized: -128 -> -1 (clamped), -127 -> -1, 127 -> 1, 0 -> 0.
    signed char sc[4] = {-128, -127, 127, 0};
    t = make(&a, cudaCreateChannelDesc<signed char>(), sc, sizeof sc, 4, cudaReadModeNormalizedFloat);
    if (!t) return 1;
    fetch_point<float><<<1, 4>>>(t, df, 4);
    CHECK(cudaMemcpy(hf, df, sizeof hf, cudaMemcpyDeviceToHost));
    printf("signed char normalized: %.6g %.6g %.6g %.6g\n", hf[0], hf[1], hf[2], hf[3]);
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFreeArray(a));

    // A kind normalized whatever the read mode: 16-bit unsigned, 65535 -> 1.
    unsigned short us[4] = {0, 65535, 32768, 13107};
    t = make(&a, cudaCreateChannelDesc<cudaChannelFormatKindUnsignedNormalized16X1>(), us,
             sizeof us, 4, cudaReadModeElementType);
    if (!t) return 1;
    fetch_point<float><<<1, 4>>>(t, df, 4);
    CHECK(cudaMemcpy(hf, df, sizeof hf, cudaMemcpyDeviceToHost));
    printf("unsigned normalized 16X1: %.6g %.6g %.6g %.6g\n", hf[0], hf[1], hf[2], hf[3]);
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFreeArray(a));

    // 32-bit integers are never promoted, even read as normalized floats.
    int iv[4] = {-5, 7, 2147483647, -2147483647 - 1}, *di, hi[4];
    CHECK(cudaMalloc(&di, sizeof iv));
    t = make(&a, cudaCreateChannelDesc<int>(), iv, sizeof iv, 4, cudaReadModeNormalizedFloat);
    if (!t) return 1;
    fetch_point<int><<<1, 4>>>(t, di, 4);
    CHECK(cudaMemcpy(hi, di, sizeof hi, cudaMemcpyDeviceToHost));
    printf("int read normalized: %d %d %d %d\n", hi[0], hi[1], hi[2], hi[3]);
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFreeArray(a));

    // 16-bit floats (0x3c00 = 1, 0xc000 = -2, 0x3555 = 0.333251953125, 0x0001 = 2^-24).
    unsigned short hv[4] = {0x3c00, 0xc000, 0x3555, 0x0001};
    t = make(&a, cudaCreateChannelDescHalf(), hv, sizeof hv, 4, cudaReadModeElementType);
    if (!t) return 1;
    fetch_point<float><<<1, 4>>>(t, df, 4);
    CHECK(cudaMemcpy(hf, df, sizeof hf, cudaMemcpyDeviceToHost));
    printf("half: %.9g %.9g %.9g %.9g\n", hf[0], hf[1], hf[2], hf[3]);
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFreeArray(a));

    // The channel descriptor of an array, as it was made.
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<ushort2>();
    CHECK(cudaMallocArray(&a, &cd, 4));
    cudaChannelFormatDesc got;
    CHECK(cudaGetChannelDesc(&got, a));
    printf("channel descriptor: %d %d %d %d, kind %d\n", got.x, got.y, got.z, got.w, (int)got.f);
    CHECK(cudaFreeArray(a));
    CHECK(cudaFree(d4));
    CHECK(cudaFree(df));
    CHECK(cudaFree(du));
    CHECK(cudaFree(di));
    return 0;
}
