// What the profiler counts of texture fetches and surface accesses, under
// Nsight Compute's names (texture_profile.profile), worked out by hand:
// each warp's fetch is one request of the texture path, whose sectors are
// the distinct 32-byte sectors of the texels its lanes read. 1024 threads
// are 32 warps.
//  - tex1Dfetch of consecutive floats of linear memory: 32 requests of 4
//    sectors (128), and the 32 stores of the result, 4 sectors each;
//  - the same at a stride of 8 floats: each lane its own sector, 32 each;
//  - every lane the same texel: 1 sector each;
//  - a surface written, then read, by rows of a 32x32 array of floats: 32
//    requests each way (sectors are not checked: a GPU lays an array out in
//    tiles of its own, the simulator in rows);
//  - tex2D over pitched memory (rows of 32 floats at a pitch of 512 bytes),
//    point-sampled, one row per warp: 4 sectors each.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#include "check.h"

__global__ void fetch_coalesced(cudaTextureObject_t t, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tex1Dfetch<float>(t, i);
}

__global__ void fetch_stride8(cudaTextureObject_t t, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tex1Dfetch<float>(t, (i * 8) % 4096);
}

__global__ void fetch_same(cudaTextureObject_t t, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = tex1Dfetch<float>(t, 7);
}

__global__ void surface_rows(cudaSurfaceObject_t s)
{
    int x = threadIdx.x, y = blockIdx.x * blockDim.y + threadIdx.y;
    surf2Dwrite((float)(x + y), s, x * 4, y);
}

__global__ void surface_read(cudaSurfaceObject_t s, float *out)
{
    int x = threadIdx.x, y = blockIdx.x * blockDim.y + threadIdx.y;
    out[y * 32 + x] = surf2Dread<float>(s, x * 4, y);
}

__global__ void fetch_pitched(cudaTextureObject_t t, float *out)
{
    int x = threadIdx.x, y = blockIdx.x * blockDim.y + threadIdx.y;
    out[y * 32 + x] = tex2D<float>(t, x + 0.5f, y + 0.5f);
}

int main(void)
{
    const int n = 4096;
    float h[n], *d, *out;
    for (int i = 0; i < n; i++) h[i] = (float)i;
    CHECK(cudaMalloc(&d, sizeof h));
    CHECK(cudaMalloc(&out, sizeof h));
    CHECK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
    cudaResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = d;
    res.res.linear.desc = cudaCreateChannelDesc<float>();
    res.res.linear.sizeInBytes = sizeof h;
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    cudaTextureObject_t t;
    CHECK(cudaCreateTextureObject(&t, &res, &td, NULL));
    fetch_coalesced<<<4, 256>>>(t, out);
    fetch_stride8<<<4, 256>>>(t, out);
    fetch_same<<<4, 256>>>(t, out);

    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaArray_t a;
    CHECK(cudaMallocArray(&a, &fd, 32, 32, cudaArraySurfaceLoadStore));
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeArray;
    res.res.array.array = a;
    cudaSurfaceObject_t s;
    CHECK(cudaCreateSurfaceObject(&s, &res));
    surface_rows<<<4, dim3(32, 8)>>>(s);
    surface_read<<<4, dim3(32, 8)>>>(s, out);

    float *p;
    size_t pitch;
    CHECK(cudaMallocPitch(&p, &pitch, 32 * sizeof(float), 32));
    CHECK(cudaMemcpy2D(p, pitch, h, 32 * sizeof(float), 32 * sizeof(float), 32,
                       cudaMemcpyHostToDevice));
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypePitch2D;
    res.res.pitch2D.devPtr = p;
    res.res.pitch2D.desc = fd;
    res.res.pitch2D.width = 32;
    res.res.pitch2D.height = 32;
    res.res.pitch2D.pitchInBytes = pitch;
    cudaTextureObject_t tp;
    CHECK(cudaCreateTextureObject(&tp, &res, &td, NULL));
    fetch_pitched<<<4, dim3(32, 8)>>>(tp, out);
    CHECK(cudaDeviceSynchronize());
    float check[4];
    CHECK(cudaMemcpy(check, out + 33, sizeof check, cudaMemcpyDeviceToHost));
    printf("out[33..36]: %g %g %g %g\n", check[0], check[1], check[2], check[3]);
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaDestroyTextureObject(tp));
    CHECK(cudaDestroySurfaceObject(s));
    CHECK(cudaFreeArray(a));
    CHECK(cudaFree(d));
    CHECK(cudaFree(out));
    CHECK(cudaFree(p));
    return 0;
}
