// Managed memory that host code touches only when it has waited for the GPU:
// after cudaDeviceSynchronize, after cudaStreamSynchronize of the kernel's
// stream, after cudaEventSynchronize of an event recorded after the kernel,
// and after a synchronous cudaMemcpy. Advice and prefetching use only what
// every device takes (the host as the place), and the GPU where
// cudaDevAttrConcurrentManagedAccess says the device allows it.
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

__global__ void scale(float *v, int n, float by)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] *= by;
}

static float sum(const float *v, int n)
{
    float s = 0.0f;
    for (int i = 0; i < n; i++) s += v[i];
    return s;
}

int main(void)
{
    const int n = 4096, threads = 256, blocks = n / threads;
    int device = 0, concurrent = 0;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, device));
    float *v, *w, *d;
    CHECK(cudaMallocManaged(&v, n * sizeof(float)));
    CHECK(cudaMallocManaged(&w, n * sizeof(float)));
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    for (int i = 0; i < n; i++) v[i] = w[i] = (float)(i % 10);

    cudaMemLocation host = {cudaMemLocationTypeHost, 0}, gpu = {cudaMemLocationTypeDevice, device};
    CHECK(cudaMemAdvise(w, n * sizeof(float), cudaMemAdviseSetReadMostly, host));
    CHECK(cudaMemAdvise(v, n * sizeof(float), cudaMemAdviseSetPreferredLocation, host));
    if (concurrent) CHECK(cudaMemPrefetchAsync(v, n * sizeof(float), gpu, 0, 0));

    scale<<<blocks, threads>>>(v, n, 2.0f);
    CHECK(cudaDeviceSynchronize());
    printf("after cudaDeviceSynchronize: %.0f\n", sum(v, n));

    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    scale<<<blocks, threads, 0, s>>>(v, n, 2.0f);
    CHECK(cudaStreamSynchronize(s));
    printf("after cudaStreamSynchronize: %.0f\n", sum(v, n));

    cudaEvent_t done;
    CHECK(cudaEventCreate(&done));
    scale<<<blocks, threads, 0, s>>>(v, n, 0.5f);
    CHECK(cudaEventRecord(done, s));
    CHECK(cudaEventSynchronize(done));
    printf("after cudaEventSynchronize: %.0f\n", sum(v, n));

    scale<<<blocks, threads>>>(w, n, 3.0f);
    CHECK(cudaMemcpy(d, v, n * sizeof(float), cudaMemcpyHostToDevice)); /* waits too */
    printf("after a synchronous cudaMemcpy: %.0f\n", sum(w, n));

    CHECK(cudaMemPrefetchAsync(w, n * sizeof(float), host, 0, s));
    CHECK(cudaStreamSynchronize(s));
    printf("prefetched to the host: %.0f\n", sum(w, n));

    CHECK(cudaEventDestroy(done));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(v));
    CHECK(cudaFree(w));
    CHECK(cudaFree(d));
    return 0;
}
