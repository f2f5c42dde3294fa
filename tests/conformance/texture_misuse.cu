// Textures, surfaces and arrays used wrongly on the host: each call fails
// with CUDA's error and a report that names what is wrong, and changes
// nothing (the program goes on). And coordinates no texture has (infinite,
// NaN, far outside): a fetch, never a crash.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#include "check.h"

__global__ void odd_coordinates(cudaTextureObject_t t, float *out)
{
    float c[4] = {INFINITY, -INFINITY, NAN, 3.0e38f};
    int i = threadIdx.x;
    out[i] = tex2D<float>(t, c[i], c[3 - i]);
}

#define TRY(call) printf("%-28s %s\n", #call, cudaGetErrorName(call)), cudaGetLastError()

int main(void)
{
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>(),
                          ud = cudaCreateChannelDesc<unsigned char>(),
                          three = cudaCreateChannelDesc(32, 32, 32, 0, cudaChannelFormatKindFloat);
    cudaArray_t a, b;
    CHECK(cudaMallocArray(&a, &fd, 8, 4));
    CHECK(cudaMallocArray(&b, &ud, 8));
    cudaArray_t c;
    TRY(cudaMallocArray(&c, &three, 8));           // no 3-channel formats
    float h[4][8] = {};
    TRY(cudaMemcpy2DToArray(a, 16, 0, h, 32, 32, 4, cudaMemcpyHostToDevice)); // 4 floats past a row
    TRY(cudaMemcpy2DToArray(a, 0, 0, h, 32, 32, 4, cudaMemcpyDeviceToHost));  // the wrong kind
    cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = make_cudaPitchedPtr(h, 32, 8, 4);
    p.dstArray = a;
    p.extent = make_cudaExtent((size_t)1 << 62, 4, 1);  // more bytes than there are
    p.kind = cudaMemcpyHostToDevice;
    TRY(cudaMemcpy3D(&p));
    CHECK(cudaMemcpy2DToArray(a, 0, 0, h, 32, 32, 4, cudaMemcpyHostToDevice));
    cudaResourceDesc ro;
    memset(&ro, 0, sizeof ro);
    ro.resType = cudaResourceTypeArray;
    ro.res.array.array = a;
    cudaTextureDesc to;
    memset(&to, 0, sizeof to);
    to.filterMode = cudaFilterModeLinear;
    to.normalizedCoords = 1;
    cudaTextureObject_t tw;
    CHECK(cudaCreateTextureObject(&tw, &ro, &to, NULL)); // wrap, linear
    float *dodd, hodd[4];
    CHECK(cudaMalloc(&dodd, sizeof hodd));
    odd_coordinates<<<1, 4>>>(tw, dodd);
    CHECK(cudaMemcpy(hodd, dodd, sizeof hodd, cudaMemcpyDeviceToHost));
    printf("odd coordinates fetched: %s\n", cudaGetErrorName(cudaGetLastError()));
    CHECK(cudaDestroyTextureObject(tw));
    CHECK(cudaFree(dodd));

    cudaResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeArray;
    res.res.array.array = b;
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.filterMode = cudaFilterModeLinear;
    cudaTextureObject_t t;
    TRY(cudaCreateTextureObject(&t, &res, &td, NULL)); // linear filtering of integers
    cudaSurfaceObject_t s;
    TRY(cudaCreateSurfaceObject(&s, &res));            // no cudaArraySurfaceLoadStore

    float *d;
    CHECK(cudaMalloc(&d, 4096));
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = d + 1;                     // not aligned to 512 bytes
    res.res.linear.desc = fd;
    res.res.linear.sizeInBytes = 1024;
    memset(&td, 0, sizeof td);
    TRY(cudaCreateTextureObject(&t, &res, &td, NULL));
    res.res.linear.devPtr = d;
    res.res.linear.sizeInBytes = 8192;                 // more than the buffer holds
    TRY(cudaCreateTextureObject(&t, &res, &td, NULL));
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypePitch2D;
    res.res.pitch2D.devPtr = d;
    res.res.pitch2D.desc = fd;
    res.res.pitch2D.width = 10;
    res.res.pitch2D.height = 10;
    res.res.pitch2D.pitchInBytes = 40;                 // not a multiple of 32
    TRY(cudaCreateTextureObject(&t, &res, &td, NULL));

    res.res.pitch2D.pitchInBytes = 64;
    CHECK(cudaCreateTextureObject(&t, &res, &td, NULL));
    CHECK(cudaDestroyTextureObject(t));
    TRY(cudaDestroyTextureObject(t));                  // twice
    CHECK(cudaFreeArray(b));
    TRY(cudaFreeArray(b));                             // twice
    CHECK(cudaFreeArray(a));
    CHECK(cudaFree(d));
    printf("done\n");
    return 0;
}
