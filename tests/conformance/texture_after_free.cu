// A bug: the buffer behind a texture object is freed, and a kernel still
// fetches through the object. On a GPU the fetch reads whatever the memory
// holds now, or faults; the simulator stops the kernel, as memcheck stops an
// access to freed memory, and names the cudaFree.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void gather(cudaTextureObject_t table, const int *idx, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<float>(table, idx[i]);
}

int main(void)
{
    const int n = 256;
    float h[n];
    int hidx[n];
    for (int i = 0; i < n; i++) h[i] = 0.25f * i, hidx[i] = (i * 37) % n;
    float *table, *out;
    int *idx;
    cudaMalloc(&table, sizeof h);
    cudaMalloc(&out, sizeof h);
    cudaMalloc(&idx, sizeof hidx);
    cudaMemcpy(table, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMemcpy(idx, hidx, sizeof hidx, cudaMemcpyHostToDevice);
    cudaResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = table;
    res.res.linear.desc = cudaCreateChannelDesc<float>();
    res.res.linear.sizeInBytes = sizeof h;
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    cudaTextureObject_t t;
    cudaCreateTextureObject(&t, &res, &td, NULL);
    gather<<<2, 128>>>(t, idx, out, n);
    printf("first gather: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    cudaFree(table); /* too early: the texture still reads it */
    gather<<<2, 128>>>(t, idx, out, n);
    printf("second gather: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
