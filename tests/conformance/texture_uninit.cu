// A bug: the image's array has 16 rows, but only the first 12 were copied
// into it (the copy's height is off), and the kernel fetches every row. A
// GPU returns whatever the array held; the simulator's initcheck names the
// texel and the line of the fetch, once, and the kernel goes on.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void blur_rows(cudaTextureObject_t img, float *out, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h)
        out[y * w + x] = (tex2D<float>(img, x - 0.5f, y + 0.5f) + tex2D<float>(img, x + 1.5f, y + 0.5f)) / 2;
}

int main(void)
{
    const int w = 16, h = 16;
    float host[h][w];
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) host[y][x] = (float)(x + y);
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaArray_t a;
    cudaMallocArray(&a, &fd, w, h);
    cudaMemcpy2DToArray(a, 0, 0, host, sizeof host[0], sizeof host[0], 12, cudaMemcpyHostToDevice);
    cudaResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeArray;
    res.res.array.array = a;
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    cudaTextureObject_t t;
    cudaCreateTextureObject(&t, &res, &td, NULL);
    float *out;
    cudaMalloc(&out, sizeof host);
    blur_rows<<<dim3(1, 2), dim3(16, 8)>>>(t, out, w, h);
    printf("blur_rows: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    cudaDestroyTextureObject(t);
    cudaFreeArray(a);
    cudaFree(out);
    return 0;
}
