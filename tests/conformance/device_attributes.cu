// What CUDA 13 asks instead of the removed fields and forms: clock rates and
// the compute mode through cudaDeviceGetAttribute, and managed memory
// prefetched to a cudaMemLocation (the device, then the host) with
// cudaMemPrefetchAsync's flags, where the device allows prefetching. It
// prints only what is true of every GPU.
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

__global__ void twice(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2.0f;
}

int main(void)
{
    int device = 0, clock_khz = 0, memory_khz = 0, mode = -1, major = 0, minor = 0;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
    CHECK(cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, device));
    CHECK(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, device));
    CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    printf("clock rates known: %s\n", clock_khz > 0 && memory_khz > 0 ? "yes" : "no");
    printf("compute mode lets this process run: %s\n",
           mode != cudaComputeModeProhibited ? "yes" : "no");
    printf("compute capability 7.5 or later: %s\n", 10 * major + minor >= 75 ? "yes" : "no");

    const int n = 1024;
    float *x;
    CHECK(cudaMallocManaged(&x, n * sizeof(float)));
    for (int i = 0; i < n; i++) x[i] = (float)i;
    // Prefetching needs a device with concurrent managed access (not the
    // simulator's, nor a GPU under Windows): asked first, as CUDA requires.
    int concurrent = 0;
    CHECK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, device));
    cudaMemLocation to_gpu = {cudaMemLocationTypeDevice, device};
    cudaMemLocation to_cpu = {cudaMemLocationTypeHost, 0};
    if (concurrent) CHECK(cudaMemPrefetchAsync(x, n * sizeof(float), to_gpu, 0, 0));
    twice<<<(n + 255) / 256, 256>>>(x, n);
    CHECK(cudaGetLastError());
    if (concurrent) CHECK(cudaMemPrefetchAsync(x, n * sizeof(float), to_cpu, 0, 0));
    CHECK(cudaDeviceSynchronize());
    double sum = 0;
    for (int i = 0; i < n; i++) sum += x[i];
    printf("sum of 2*i for i < %d: %.1f\n", n, sum);
    CHECK(cudaFree(x));
    return 0;
}
