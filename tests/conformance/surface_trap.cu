// A bug: the grid is rounded up to whole 16x16 blocks, and the kernel writes
// its surface without the bounds test, so the threads past the image's
// right edge write outside the array. With cudaBoundaryModeTrap (the
// default) such a write traps: the simulator stops the kernel and names the
// thread, the line and the element.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void invert(cudaSurfaceObject_t img, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    /* missing: if (x >= w || y >= h) return; */
    uchar4 p = surf2Dread<uchar4>(img, x * 4, y, cudaBoundaryModeClamp);
    surf2Dwrite(make_uchar4(255 - p.x, 255 - p.y, 255 - p.z, p.w), img, x * 4, y);
}

int main(void)
{
    const int w = 40, h = 16;
    uchar4 host[h][w];
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) host[y][x] = make_uchar4(x, y, x + y, 255);
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<uchar4>();
    cudaArray_t a;
    cudaMallocArray(&a, &cd, w, h, cudaArraySurfaceLoadStore);
    cudaMemcpy2DToArray(a, 0, 0, host, sizeof host[0], sizeof host[0], h, cudaMemcpyHostToDevice);
    cudaResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeArray;
    res.res.array.array = a;
    cudaSurfaceObject_t s;
    cudaCreateSurfaceObject(&s, &res);
    invert<<<dim3((w + 15) / 16, (h + 15) / 16), dim3(16, 16)>>>(s, w, h);
    printf("invert: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
