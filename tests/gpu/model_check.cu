// The time model's check (make gpu-check): the same cases timed on a GPU and
// modelled on the simulator, one line each, "case,seconds,how". Built by nvcc
// and run on a GPU, every time is measured (CUDA events around kernels, the
// host's clock around launches, syncs and copies): how = measured. Built for
// the simulator (make sim-run) with the time model on, the same cases give the
// model's times for the GPU that CUDASIM_GPU names: how = modelled.
// tests/gpu/model_check.py sets the two side by side with the model's error.
//
// usage: model_check [LOG2_N]   (the elements of the kernels' arrays: 2^LOG2_N floats, default 22)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#ifdef CUDASIM
#include "cudasim.h"
#endif

__global__ void empty() {}

__global__ void copy_coalesced(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}

// Lane i reads element 32 i (wrapping): every load its own sector.
__global__ void copy_stride32(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[(int)(((long long)i * 32) % n + (long long)i * 32 / n)];
}

// A w x w transpose: coalesced loads, stores w floats apart.
__global__ void transpose_naive(const float *in, float *out, int w)
{
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) out[x * w + y + j] = in[(y + j) * w + x];
}

// The same through a padded 32 x 32 tile: both sides coalesced, no bank conflicts.
__global__ void transpose_tiled(const float *in, float *out, int w)
{
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += 8) out[(y + j) * w + x] = tile[threadIdx.x][threadIdx.y + j];
}

static double now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

#ifdef CUDASIM
static const bool kModel = true;
static double clock_s() { return cudasim_model_seconds(); }
#else
static const bool kModel = false;
static double clock_s() { return now(); }
#endif

static void check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        fprintf(stderr, "model_check: %s: %s\n", what, cudaGetErrorString(e));
        exit(1);
    }
}

static void line(const char *name, double seconds)
{
    printf("%s,%.9g,%s\n", name, seconds, kModel ? "modelled" : "measured");
    fflush(stdout);
}

// A kernel's own time: CUDA events on a GPU (the mean of `reps` launches), the
// model's duration of the launch on the simulator.
template <typename F>
static void kernel_case(const char *name, F launch, int reps)
{
#ifdef CUDASIM
    (void)reps;
    launch();
    check(cudaDeviceSynchronize(), name);
    CudasimCounters c;
    if (cudasim_profile_last(&c) == 0) line(name, c.modelled_seconds);
#else
    launch(); /* warm up */
    cudaEvent_t a, b;
    check(cudaEventCreate(&a), name);
    check(cudaEventCreate(&b), name);
    check(cudaEventRecord(a), name);
    for (int r = 0; r < reps; r++) launch();
    check(cudaEventRecord(b), name);
    check(cudaEventSynchronize(b), name);
    float ms = 0;
    check(cudaEventElapsedTime(&ms, a, b), name);
    line(name, ms * 1e-3 / reps);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
#endif
}

// What the host sees: its clock around `reps` calls of `op` and a last sync.
template <typename F>
static void host_case(const char *name, F op, int reps)
{
    op(); /* warm up */
    check(cudaDeviceSynchronize(), name);
    double t0 = clock_s();
    for (int r = 0; r < reps; r++) op();
    check(cudaDeviceSynchronize(), name);
    line(name, (clock_s() - t0) / reps);
}

int main(int argc, char **argv)
{
    int log2n = argc > 1 ? atoi(argv[1]) : 22;
    if (log2n < 12 || log2n > 28) {
        fprintf(stderr, "usage: model_check [LOG2_N], LOG2_N from 12 to 28\n");
        return 2;
    }
#ifdef CUDASIM
    if (cudasim_model_start() != 0) return 1; /* the report says why */
    fprintf(stderr, "model_check: modelled for %s\n", cudasim_model_gpu());
#endif
    int n = 1 << log2n, w = 1 << (log2n / 2);
    size_t bytes = (size_t)n * sizeof(float);
    std::vector<float> h(n);
    for (int i = 0; i < n; i++) h[i] = (float)(i % 977);
    float *in, *out, *pinned, *one;
    check(cudaMalloc(&in, bytes), "cudaMalloc");
    check(cudaMalloc(&out, bytes), "cudaMalloc");
    check(cudaMalloc(&one, sizeof(float)), "cudaMalloc");
    check(cudaMallocHost(&pinned, bytes), "cudaMallocHost");
    check(cudaMemcpy(in, h.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    check(cudaMemset(one, 0, sizeof(float)), "cudaMemset");
    float value = 0;

    host_case("launch_queued", [] { empty<<<1, 1>>>(); }, 1000);
    host_case("launch_and_sync", [] { empty<<<1, 1>>>(); cudaDeviceSynchronize(); }, 200);
    host_case("read_4_bytes", [&] { cudaMemcpy(&value, one, sizeof value, cudaMemcpyDeviceToHost); }, 200);
    host_case("h2d_pageable", [&] { cudaMemcpy(in, h.data(), bytes, cudaMemcpyHostToDevice); }, 5);
    host_case("h2d_pinned", [&] { cudaMemcpy(in, pinned, bytes, cudaMemcpyHostToDevice); }, 5);
    int blocks = (n + 255) / 256;
    kernel_case("copy_coalesced", [&] { copy_coalesced<<<blocks, 256>>>(in, out, n); }, 20);
    kernel_case("copy_stride32", [&] { copy_stride32<<<blocks, 256>>>(in, out, n); }, 20);
    dim3 grid(w / 32, w / 32), block(32, 8);
    kernel_case("transpose_naive", [&] { transpose_naive<<<grid, block>>>(in, out, w); }, 20);
    kernel_case("transpose_tiled", [&] { transpose_tiled<<<grid, block>>>(in, out, w); }, 20);
    check(cudaGetLastError(), "the kernels");
    cudaFree(in);
    cudaFree(out);
    cudaFree(one);
    cudaFreeHost(pinned);
    return 0;
}
