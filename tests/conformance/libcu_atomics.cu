// libcu++'s atomics against a CPU reference: cuda::atomic_ref over global
// memory (a histogram, a float sum, a maximum by compare-exchange),
// cuda::atomic of block scope in shared memory (fetch_add, the operators,
// fetch_min, fetch_max, exchange), and cuda::std::atomic in global memory.
// Every value is an integer, so the order of the additions (which varies on a
// GPU) changes nothing and a GPU prints the same.
#include <cstdio>
#include <cuda/atomic>
#include <cuda/std/atomic>
#include <cuda_runtime.h>

#include "check.h"

#define N 4096
#define BINS 16

__global__ void histogram(const int *x, int *bins, float *sum, float *maximum)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    cuda::atomic_ref<int, cuda::thread_scope_device> bin(bins[x[i] % BINS]);
    bin.fetch_add(1, cuda::memory_order_relaxed);
    cuda::atomic_ref<float, cuda::thread_scope_device> total(*sum);
    total.fetch_add((float)x[i]);
    cuda::atomic_ref<float> top(*maximum);
    float seen = top.load();
    while (seen < (float)x[i] && !top.compare_exchange_weak(seen, (float)x[i])) {
    }
}

struct BlockStats {
    int count, low, high, last;
};

__global__ void block_counts(const int *x, BlockStats *out)
{
    __shared__ cuda::atomic<int, cuda::thread_scope_block> count;
    __shared__ cuda::atomic<int, cuda::thread_scope_block> low, high, last;
    if (threadIdx.x == 0) {
        count.store(0);
        low = 1 << 30;
        high = -1;
        last.store(-1);
    }
    __syncthreads();
    int v = x[blockIdx.x * blockDim.x + threadIdx.x];
    count.fetch_add(1);
    ++count;
    count += 2;
    count--;
    low.fetch_min(v);
    high.fetch_max(v);
    (void)last.exchange(v); // some thread's value is the last one
    __syncthreads();
    if (threadIdx.x == 0) {
        cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_block);
        out[blockIdx.x] = BlockStats{count.load(), low.load(), high.load(), last.load()};
    }
}

__global__ void tickets(cuda::std::atomic<unsigned long long> *next, unsigned long long *mine)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    mine[i] = next->fetch_add(3ull, cuda::std::memory_order_acq_rel);
}

int main(void)
{
    static int hx[N];
    for (int i = 0; i < N; i++) hx[i] = (i * 37 + i / 5) % 97;
    int *x, *bins;
    float *sum, *maximum;
    CHECK(cudaMalloc(&x, sizeof hx));
    CHECK(cudaMalloc(&bins, BINS * sizeof(int)));
    CHECK(cudaMalloc(&sum, sizeof(float)));
    CHECK(cudaMalloc(&maximum, sizeof(float)));
    CHECK(cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(bins, 0, BINS * sizeof(int)));
    CHECK(cudaMemset(sum, 0, sizeof(float)));
    CHECK(cudaMemset(maximum, 0, sizeof(float)));
    histogram<<<N / 256, 256>>>(x, bins, sum, maximum);
    CHECK(cudaGetLastError());
    int hbins[BINS], want[BINS] = {0};
    float hsum, hmax;
    CHECK(cudaMemcpy(hbins, bins, sizeof hbins, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&hsum, sum, sizeof hsum, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&hmax, maximum, sizeof hmax, cudaMemcpyDeviceToHost));
    long long wsum = 0;
    int wmax = 0;
    for (int i = 0; i < N; i++) {
        want[hx[i] % BINS]++;
        wsum += hx[i];
        wmax = hx[i] > wmax ? hx[i] : wmax;
    }
    int bad = 0;
    for (int b = 0; b < BINS; b++) bad += hbins[b] != want[b];
    printf("atomic_ref histogram: %s; bin 5 holds %d\n", bad ? "WRONG" : "as on the CPU", hbins[5]);
    printf("atomic_ref<float> sum %.0f (CPU %lld), maximum %.0f (CPU %d)\n", hsum, wsum, hmax, wmax);
    bad += hsum != (float)wsum || hmax != (float)wmax;

    BlockStats *stats, hs[N / 256];
    CHECK(cudaMalloc(&stats, sizeof hs));
    block_counts<<<N / 256, 256>>>(x, stats);
    CHECK(cudaMemcpy(hs, stats, sizeof hs, cudaMemcpyDeviceToHost));
    int bad_blocks = 0;
    for (int b = 0; b < N / 256; b++) {
        int lo = 1 << 30, hi = -1;
        for (int t = 0; t < 256; t++) {
            int v = hx[b * 256 + t];
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        bool last_seen = false;
        for (int t = 0; t < 256; t++) last_seen |= hx[b * 256 + t] == hs[b].last;
        bad_blocks += hs[b].count != 256 * 3 || hs[b].low != lo || hs[b].high != hi || !last_seen;
    }
    printf("block-scope atomics in shared memory: %s; block 0: count %d, min %d, max %d\n",
           bad_blocks ? "WRONG" : "as on the CPU", hs[0].count, hs[0].low, hs[0].high);
    bad += bad_blocks;

    cuda::std::atomic<unsigned long long> *next;
    unsigned long long *mine, hmine[N];
    CHECK(cudaMalloc(&next, sizeof *next));
    CHECK(cudaMalloc(&mine, sizeof hmine));
    CHECK(cudaMemset(next, 0, sizeof *next));
    tickets<<<N / 256, 256>>>(next, mine);
    CHECK(cudaMemcpy(hmine, mine, sizeof hmine, cudaMemcpyDeviceToHost));
    static bool taken[N];
    int dup = 0;
    for (int i = 0; i < N; i++) {
        if (hmine[i] % 3 || hmine[i] / 3 >= N || taken[hmine[i] / 3]) dup++;
        else taken[hmine[i] / 3] = true;
    }
    printf("cuda::std::atomic tickets: %s\n", dup ? "WRONG" : "each of 0, 3, ..., 12285 once");
    bad += dup;
    CHECK(cudaFree(x));
    CHECK(cudaFree(bins));
    CHECK(cudaFree(sum));
    CHECK(cudaFree(maximum));
    CHECK(cudaFree(stats));
    CHECK(cudaFree(next));
    CHECK(cudaFree(mine));
    return bad != 0;
}
