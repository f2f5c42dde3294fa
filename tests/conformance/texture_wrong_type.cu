// A bug: an 8-bit image is read as floats with tex2D<float>, but its texture
// was created with cudaReadModeElementType, which returns the bytes as
// integers (cudaReadModeNormalizedFloat would return floats in [0, 1]). The
// simulator says so once, converts the value, and the kernel goes on.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void brightness(cudaTextureObject_t img, float *out, int w, int h)
{
    int x = threadIdx.x, y = threadIdx.y;
    if (x < w && y < h) out[y * w + x] = tex2D<float>(img, x + 0.5f, y + 0.5f);
}

int main(void)
{
    const int w = 8, h = 4;
    unsigned char host[h][w];
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) host[y][x] = (unsigned char)(32 * y + x);
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<unsigned char>();
    cudaArray_t a;
    cudaMallocArray(&a, &cd, w, h);
    cudaMemcpy2DToArray(a, 0, 0, host, w, w, h, cudaMemcpyHostToDevice);
    cudaResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeArray;
    res.res.array.array = a;
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.readMode = cudaReadModeElementType; /* the bug: cudaReadModeNormalizedFloat was meant */
    cudaTextureObject_t t;
    cudaCreateTextureObject(&t, &res, &td, NULL);
    float *out;
    cudaMalloc(&out, sizeof(float) * w * h);
    brightness<<<1, dim3(w, h)>>>(t, out, w, h);
    printf("brightness: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
