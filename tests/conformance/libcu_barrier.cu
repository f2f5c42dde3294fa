// cuda::barrier<thread_scope_block> against a CPU reference: phases of a
// ring exchange (arrive_and_wait), a split arrive and wait with work between,
// threads that leave with arrive_and_drop, a completion function,
// wait_parity, a barrier of thread scope, and memcpy_async into a barrier's
// phase, by one thread and by the block. (nvcc warns that a __shared__
// barrier's constructor does not run: init() is what sets it up.)
#include <cooperative_groups.h>
#include <cstdio>
#include <cuda/barrier>
#include <cuda_runtime.h>
#include <utility>

#include "check.h"

namespace cg = cooperative_groups;

#pragma nv_diag_suppress static_var_with_dynamic_init

#define T 128
#define PHASES 4

// Each phase: write, wait for everyone, read the next thread's, wait again
// (before the next phase overwrites it).
__global__ void ring(const int *x, int *out)
{
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ int s[T];
    const int t = threadIdx.x;
    if (t == 0) init(&bar, T);
    __syncthreads();
    int acc = 0, v = x[blockIdx.x * T + t];
    for (int p = 0; p < PHASES; p++) {
        s[t] = v + p;
        bar.arrive_and_wait();
        acc = acc * 3 + s[(t + 1) % T];
        cuda::barrier<cuda::thread_scope_block>::arrival_token token = bar.arrive();
        int local = acc % 7; // work between arrive and wait: none of it shared
        bar.wait(std::move(token));
        acc += local;
    }
    out[blockIdx.x * T + t] = acc;
}

// Threads of the upper half leave after the first phase; the others go on
// with a barrier that expects only them.
__global__ void leavers(int *out)
{
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ int s[T];
    const int t = threadIdx.x;
    if (t == 0) init(&bar, T);
    __syncthreads();
    s[t] = t;
    if (t >= T / 2) {
        bar.arrive_and_drop();
        return;
    }
    bar.arrive_and_wait();
    int sum = s[t + T / 2];
    for (int p = 0; p < 3; p++) {
        s[t] = sum;
        bar.arrive_and_wait();
        sum += s[(t + 1) % (T / 2)];
        bar.arrive_and_wait();
    }
    out[t] = sum;
}

// A completion function: run once per phase, by one thread, before any
// waiting thread goes on.
struct CountPhases {
    int *phases;
    __device__ void operator()() noexcept { *phases += 1; }
};

__global__ void completions(int *out)
{
    __shared__ cuda::barrier<cuda::thread_scope_block, CountPhases> bar;
    __shared__ int phases;
    if (threadIdx.x == 0) {
        phases = 0;
        init(&bar, T, CountPhases{&phases});
    }
    __syncthreads();
    int seen = 0;
    for (int p = 0; p < 5; p++) {
        bar.arrive_and_wait();
        seen += phases; // 1, 2, ..., 5
    }
    out[threadIdx.x] = seen;
}

// wait_parity: a thread that arrived in phase 1 waits for the phase of
// parity 1 to complete, so every thread's write before it is there.
__global__ void parity(int *out)
{
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ int s[T];
    const int t = threadIdx.x;
    if (t == 0) init(&bar, T);
    __syncthreads();
    bar.arrive_and_wait(); // phase 0
    s[t] = 3 * t;
    (void)bar.arrive();    // phase 1
    bar.wait_parity(true);
    out[t] = s[(t + 5) % T];
}

// memcpy_async into a barrier's phase: each thread copies its own float4
// (thread scope, and block scope), and the block copies a tile together.
__global__ void copies(const float *x, float *out)
{
    __shared__ alignas(16) float tile[4 * T], mine[4 * T]; // (C++'s alignas, as NVIDIA's samples write it)
    alignas(16) __shared__ float together[T];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    const int t = threadIdx.x;
    auto block = cg::this_thread_block();
    if (t == 0) init(&bar, T);
    __syncthreads();
    cuda::barrier<cuda::thread_scope_thread> own;
    init(&own, 1);
    cuda::memcpy_async(&mine[4 * t], &x[4 * t], cuda::aligned_size_t<16>(16), own);
    own.arrive_and_wait();
    cuda::memcpy_async(&tile[4 * t], &x[4 * t], sizeof(float4), bar);
    cuda::memcpy_async(block, together, x + 4 * T, sizeof(float) * T, bar);
    bar.arrive_and_wait();
    out[t] = mine[4 * t + 3] + tile[4 * ((t + 1) % T)] + together[T - 1 - t];
}

int main(void)
{
    static int hx[2 * T], hout[2 * T], want[2 * T];
    for (int i = 0; i < 2 * T; i++) hx[i] = (i * 29 + 11) % 53;
    int *x, *out;
    CHECK(cudaMalloc(&x, sizeof hx));
    CHECK(cudaMalloc(&out, sizeof hout));
    CHECK(cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice));

    ring<<<2, T>>>(x, out);
    CHECK(cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost));
    for (int b = 0; b < 2; b++)
        for (int t = 0; t < T; t++) {
            int acc = 0;
            for (int p = 0; p < PHASES; p++) {
                acc = acc * 3 + hx[b * T + (t + 1) % T] + p;
                acc += acc % 7;
            }
            want[b * T + t] = acc;
        }
    int bad = 0;
    for (int i = 0; i < 2 * T; i++) bad += hout[i] != want[i];
    printf("ring exchange, %d phases: %s (thread 5: %d)\n", PHASES, bad ? "WRONG" : "as on the CPU",
           hout[5]);
    int total = bad;

    leavers<<<1, T>>>(out);
    CHECK(cudaMemcpy(hout, out, sizeof(int) * T / 2, cudaMemcpyDeviceToHost));
    int s[T / 2], n[T / 2];
    for (int t = 0; t < T / 2; t++) s[t] = t + T / 2;
    for (int p = 0; p < 3; p++) {
        for (int t = 0; t < T / 2; t++) n[t] = s[t] + s[(t + 1) % (T / 2)];
        for (int t = 0; t < T / 2; t++) s[t] = n[t];
    }
    bad = 0;
    for (int t = 0; t < T / 2; t++) bad += hout[t] != s[t];
    printf("arrive_and_drop, half the block left: %s (thread 0: %d)\n", bad ? "WRONG" : "as on the CPU",
           hout[0]);
    total += bad;

    completions<<<1, T>>>(out);
    CHECK(cudaMemcpy(hout, out, sizeof(int) * T, cudaMemcpyDeviceToHost));
    bad = 0;
    for (int t = 0; t < T; t++) bad += hout[t] != 1 + 2 + 3 + 4 + 5;
    printf("completion function, once per phase: %s\n", bad ? "WRONG" : "yes");
    total += bad;

    parity<<<1, T>>>(out);
    CHECK(cudaMemcpy(hout, out, sizeof(int) * T, cudaMemcpyDeviceToHost));
    bad = 0;
    for (int t = 0; t < T; t++) bad += hout[t] != 3 * ((t + 5) % T);
    printf("wait_parity: %s\n", bad ? "WRONG" : "as documented");
    total += bad;

    static float hf[5 * T], hfo[T];
    for (int i = 0; i < 5 * T; i++) hf[i] = (float)(i % 19);
    float *f, *fo;
    CHECK(cudaMalloc(&f, sizeof hf));
    CHECK(cudaMalloc(&fo, sizeof hfo));
    CHECK(cudaMemcpy(f, hf, sizeof hf, cudaMemcpyHostToDevice));
    copies<<<1, T>>>(f, fo);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(hfo, fo, sizeof hfo, cudaMemcpyDeviceToHost));
    bad = 0;
    for (int t = 0; t < T; t++)
        bad += hfo[t] != hf[4 * t + 3] + hf[4 * ((t + 1) % T)] + hf[4 * T + T - 1 - t];
    printf("memcpy_async into a barrier's phase: %s\n", bad ? "WRONG" : "as on the CPU");
    total += bad;
    CHECK(cudaFree(x));
    CHECK(cudaFree(out));
    CHECK(cudaFree(f));
    CHECK(cudaFree(fo));
    return total != 0;
}
