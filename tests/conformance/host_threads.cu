// Host threads that call CUDA at once, as NVIDIA's simpleCallback does: four
// threads each allocate, copy, launch a kernel with a __syncthreads, copy back
// and free, all at the same time, and a stream callback starts a thread of
// its own that calls the runtime. Each thread's result must be its own.
#include <cstdio>
#include <thread>
#include <vector>
#include <cuda_runtime.h>

#include "check.h"

__global__ void scale_sum(const int *x, int *out, int n, int k)
{
    __shared__ int part[128];
    int i = threadIdx.x;
    int s = 0;
    for (int j = i; j < n; j += blockDim.x) s += x[j] * k;
    part[i] = s;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (i < w) part[i] += part[i + w];
        __syncthreads();
    }
    if (i == 0) *out = part[0];
}

static int work_on(int k, int *result)
{
    const int n = 1000;
    std::vector<int> h(n);
    for (int j = 0; j < n; j++) h[j] = j;
    int *x, *out;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMalloc(&x, n * sizeof(int)));
    CHECK(cudaMalloc(&out, sizeof(int)));
    for (int round = 0; round < 20; round++) {
        CHECK(cudaMemcpyAsync(x, h.data(), n * sizeof(int), cudaMemcpyHostToDevice, s));
        scale_sum<<<1, 128, 0, s>>>(x, out, n, k);
        CHECK(cudaMemcpyAsync(result, out, sizeof(int), cudaMemcpyDeviceToHost, s));
        CHECK(cudaStreamSynchronize(s));
    }
    CHECK(cudaFree(x));
    CHECK(cudaFree(out));
    CHECK(cudaStreamDestroy(s));
    return 0;
}

static void work(int k, int *result)
{
    if (work_on(k, result)) *result = -1;
}

static std::thread g_later;
static int g_later_result;

void CUDART_CB start_thread(cudaStream_t, cudaError_t status, void *)
{
    if (status == cudaSuccess) g_later = std::thread(work, 7, &g_later_result);
}

int main(void)
{
    int results[4] = {0, 0, 0, 0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; t++) threads.emplace_back(work, t + 1, &results[t]);
    CHECK(cudaStreamAddCallback(0, start_thread, nullptr, 0));
    for (auto &t : threads) t.join();
    g_later.join();
    for (int t = 0; t < 4; t++) printf("thread %d: %d\n", t, results[t]);
    printf("the callback's thread: %d\n", g_later_result);
    return 0;
}
