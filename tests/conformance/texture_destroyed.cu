// A bug: the texture object is destroyed before the last kernel that uses
// it. What a GPU does then is not defined (zeros, stale data, a fault); the
// simulator stops the kernel and names where the object was destroyed.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void scale(cudaTextureObject_t in, float *out, float k, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = k * tex1D<float>(in, i + 0.5f);
}

int main(void)
{
    const int n = 64;
    float h[n];
    for (int i = 0; i < n; i++) h[i] = (float)i;
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaArray_t a;
    cudaMallocArray(&a, &fd, n);
    cudaMemcpy2DToArray(a, 0, 0, h, sizeof h, sizeof h, 1, cudaMemcpyHostToDevice);
    cudaResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeArray;
    res.res.array.array = a;
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    cudaTextureObject_t t;
    cudaCreateTextureObject(&t, &res, &td, NULL);
    float *out;
    cudaMalloc(&out, sizeof h);
    scale<<<1, n>>>(t, out, 2.0f, n);
    printf("first scale: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    cudaDestroyTextureObject(t);
    scale<<<1, n>>>(t, out, 3.0f, n); /* the object is gone */
    printf("second scale: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
