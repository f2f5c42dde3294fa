// Surface objects: a kernel writes a 2D cudaArray through a surface
// (x in bytes), another reads it back through the surface and through a
// texture, and the boundary modes: an access outside the array with
// cudaBoundaryModeZero reads zeros and drops the write, with
// cudaBoundaryModeClamp moves to the nearest element. Also a layered and a
// 3D surface, and a surface of uchar4.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#include "check.h"

__global__ void fill(cudaSurfaceObject_t s, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) surf2Dwrite((float)(y * 100 + x), s, x * (int)sizeof(float), y);
}

__global__ void read_back(cudaSurfaceObject_t s, cudaTextureObject_t t, float *via_surf,
                          float *via_tex, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) {
        via_surf[y * w + x] = surf2Dread<float>(s, x * 4, y);
        via_tex[y * w + x] = tex2D<float>(t, x + 0.5f, y + 0.5f);
    }
}

// Outside the array: zeros and a dropped write, or the nearest element.
__global__ void boundaries(cudaSurfaceObject_t s, float *out)
{
    out[0] = surf2Dread<float>(s, -4, 0, cudaBoundaryModeZero);
    out[1] = surf2Dread<float>(s, 1000 * 4, 2, cudaBoundaryModeZero);
    out[2] = surf2Dread<float>(s, -4, 1, cudaBoundaryModeClamp);
    out[3] = surf2Dread<float>(s, 1000 * 4, 2, cudaBoundaryModeClamp);
    float v;
    surf2Dread(&v, s, 8, 50, cudaBoundaryModeClamp);
    out[4] = v;
    surf2Dwrite(-1.0f, s, 0, -1, cudaBoundaryModeZero);    // dropped
    surf2Dwrite(-2.0f, s, 4, 99, cudaBoundaryModeClamp);   // to (1, the last row)
}

__global__ void layers_and_volume(cudaSurfaceObject_t layered, cudaSurfaceObject_t vol,
                                  cudaSurfaceObject_t rgba)
{
    int x = threadIdx.x, y = threadIdx.y, z = blockIdx.x;
    surf2DLayeredwrite(z * 1000 + y * 10 + x, layered, x * 4, y, z);
    surf3Dwrite((short)(z * 100 + y * 10 + x), vol, x * 2, y, z);
    if (z == 0) surf2Dwrite(make_uchar4(x, y, 7, 255), rgba, x * 4, y);
}

__global__ void layers_read(cudaSurfaceObject_t layered, cudaSurfaceObject_t vol,
                            cudaSurfaceObject_t rgba, int *sum)
{
    int x = threadIdx.x, y = threadIdx.y, z = blockIdx.x;
    int ok = surf2DLayeredread<int>(layered, x * 4, y, z) == z * 1000 + y * 10 + x;
    ok &= surf3Dread<short>(vol, x * 2, y, z) == z * 100 + y * 10 + x;
    uchar4 c = surf2Dread<uchar4>(rgba, x * 4, y);
    ok &= c.x == x && c.y == y && c.z == 7 && c.w == 255;
    atomicAdd(sum, ok);
}

int main(void)
{
    const int W = 20, H = 12;
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaArray_t a;
    CHECK(cudaMallocArray(&a, &fd, W, H, cudaArraySurfaceLoadStore));
    cudaResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeArray;
    res.res.array.array = a;
    cudaSurfaceObject_t s;
    CHECK(cudaCreateSurfaceObject(&s, &res));
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    cudaTextureObject_t t;
    CHECK(cudaCreateTextureObject(&t, &res, &td, NULL));
    dim3 block(8, 8), grid((W + 7) / 8, (H + 7) / 8);
    fill<<<grid, block>>>(s, W, H);
    CHECK(cudaGetLastError());
    float *ds, *dt, hs[W * H], ht[W * H];
    CHECK(cudaMalloc(&ds, sizeof hs));
    CHECK(cudaMalloc(&dt, sizeof ht));
    read_back<<<grid, block>>>(s, t, ds, dt, W, H);
    CHECK(cudaMemcpy(hs, ds, sizeof hs, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(ht, dt, sizeof ht, cudaMemcpyDeviceToHost));
    int good = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            good += hs[y * W + x] == y * 100 + x && ht[y * W + x] == y * 100 + x;
    printf("surf2Dwrite then surf2Dread and tex2D: %d of %d texels as written\n", good, W * H);

    float *dout, hout[5];
    CHECK(cudaMalloc(&dout, sizeof hout));
    boundaries<<<1, 1>>>(s, dout);
    CHECK(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
    printf("zero mode: %g %g; clamp mode: %g %g %g\n", hout[0], hout[1], hout[2], hout[3], hout[4]);
    float row[W];
    CHECK(cudaMemcpy2DFromArray(row, sizeof row, a, 0, H - 1, sizeof row, 1, cudaMemcpyDeviceToHost));
    float first[2];
    CHECK(cudaMemcpy2DFromArray(first, sizeof first, a, 0, 0, sizeof first, 1, cudaMemcpyDeviceToHost));
    printf("after the writes: (1, %d) = %g, (0, 0) = %g\n", H - 1, row[1], first[0]);

    // Layered ints, a 3D volume of shorts, uchar4 texels.
    const int LW = 8, LH = 4, LD = 3;
    cudaChannelFormatDesc id = cudaCreateChannelDesc<int>(), sd = cudaCreateChannelDesc<short>(),
                          cd = cudaCreateChannelDesc<uchar4>();
    cudaArray_t la, va, ca;
    CHECK(cudaMalloc3DArray(&la, &id, make_cudaExtent(LW, LH, LD),
                            cudaArrayLayered | cudaArraySurfaceLoadStore));
    CHECK(cudaMalloc3DArray(&va, &sd, make_cudaExtent(LW, LH, LD), cudaArraySurfaceLoadStore));
    CHECK(cudaMallocArray(&ca, &cd, LW, LH, cudaArraySurfaceLoadStore));
    cudaSurfaceObject_t ls, vs, cs;
    res.res.array.array = la;
    CHECK(cudaCreateSurfaceObject(&ls, &res));
    res.res.array.array = va;
    CHECK(cudaCreateSurfaceObject(&vs, &res));
    res.res.array.array = ca;
    CHECK(cudaCreateSurfaceObject(&cs, &res));
    layers_and_volume<<<LD, dim3(LW, LH)>>>(ls, vs, cs);
    int *dsum, sum = 0;
    CHECK(cudaMalloc(&dsum, sizeof sum));
    CHECK(cudaMemset(dsum, 0, sizeof sum));
    layers_read<<<LD, dim3(LW, LH)>>>(ls, vs, cs, dsum);
    CHECK(cudaMemcpy(&sum, dsum, sizeof sum, cudaMemcpyDeviceToHost));
    printf("layered, 3D and uchar4 surfaces: %d of %d threads read what they wrote\n", sum,
           LW * LH * LD);

    for (cudaSurfaceObject_t x : {s, ls, vs, cs}) CHECK(cudaDestroySurfaceObject(x));
    CHECK(cudaDestroyTextureObject(t));
    for (cudaArray_t x : {a, la, va, ca}) CHECK(cudaFreeArray(x));
    for (void *q : {(void *)ds, (void *)dt, (void *)dout, (void *)dsum}) CHECK(cudaFree(q));
    return 0;
}
