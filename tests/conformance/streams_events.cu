// Streams and events: pinned host memory, the work split in chunks over two
// streams (copy in, kernel, copy out), timed with events; the device's
// properties; cudaPeekAtLastError and cudaGetLastError.
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

__global__ void square(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * x[i];
}

int main(void)
{
    int device = 0;
    cudaDeviceProp prop;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaGetDeviceProperties(&prop, device));
    printf("warpSize %d, maxThreadsPerBlock %d, sharedMemPerBlock %zu\n", prop.warpSize,
           prop.maxThreadsPerBlock, prop.sharedMemPerBlock);

    const int n = 1 << 16, chunks = 4, chunk = n / chunks;
    float *h, *d;
    CHECK(cudaMallocHost(&h, n * sizeof(float)));
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    for (int i = 0; i < n; i++) h[i] = (float)(i % 100) * 0.1f;
    cudaStream_t streams[2];
    for (int s = 0; s < 2; s++) CHECK(cudaStreamCreate(&streams[s]));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start));
    for (int c = 0; c < chunks; c++) {
        cudaStream_t st = streams[c % 2];
        float *hp = h + c * chunk, *dp = d + c * chunk;
        CHECK(cudaMemcpyAsync(dp, hp, chunk * sizeof(float), cudaMemcpyHostToDevice, st));
        square<<<(chunk + 255) / 256, 256, 0, st>>>(dp, chunk);
        CHECK(cudaPeekAtLastError());
        CHECK(cudaMemcpyAsync(hp, dp, chunk * sizeof(float), cudaMemcpyDeviceToHost, st));
    }
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    for (int s = 0; s < 2; s++) CHECK(cudaStreamSynchronize(streams[s]));
    CHECK(cudaDeviceSynchronize());
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    double sum = 0;
    for (int i = 0; i < n; i++) sum += h[i];
    printf("%d chunks on 2 streams: sum of squares %.2f, h[7] = %.2f\n", chunks, sum, h[7]);
    printf("elapsed time measured: %s\n", ms >= 0 ? "yes" : "no");
    printf("last error: %s\n", cudaGetErrorString(cudaGetLastError()));
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    for (int s = 0; s < 2; s++) CHECK(cudaStreamDestroy(streams[s]));
    CHECK(cudaFreeHost(h));
    CHECK(cudaFree(d));
    return 0;
}
