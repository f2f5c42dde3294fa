// Asynchronous copies from global to shared memory against a CPU reference:
// a pipeline of one thread with several stages in flight (as NVIDIA's
// globalToShmemAsyncCopy does), pipeline_consumer_wait_prior, a pipeline of
// the block's threads (cuda::pipeline_shared_state), unified and partitioned
// into producers and consumers, and cooperative groups' memcpy_async with
// wait and wait_prior. Each kernel sums tiles of a vector, tile by tile.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cstdio>
#include <cuda/pipeline>
#include <cuda_runtime.h>

#include "check.h"

#pragma nv_diag_suppress static_var_with_dynamic_init

namespace cg = cooperative_groups;

#define T 64      // threads per block (consumers)
#define TILES 8   // tiles of T floats
#define STAGES 3

// Each thread keeps STAGES copies of its own element in flight.
__global__ void thread_pipeline(const float *x, float *out)
{
    __shared__ float s[STAGES][T];
    const int t = threadIdx.x;
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    float sum = 0.0f;
    int fetched = 0;
    for (int tile = 0; tile < TILES; tile++) {
        for (; fetched < TILES && fetched < tile + STAGES; fetched++) {
            pipe.producer_acquire();
            cuda::memcpy_async(&s[fetched % STAGES][t], &x[fetched * T + t],
                               cuda::aligned_size_t<4>(sizeof(float)), pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        sum = sum * 2.0f + s[tile % STAGES][t];
        pipe.consumer_release();
    }
    out[t] = sum;
}

// The same with pipeline_consumer_wait_prior: two tiles per thread at once.
__global__ void wait_prior(const float *x, float *out)
{
    __shared__ float s[2][T];
    const int t = threadIdx.x;
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    float sum = 0.0f;
    for (int tile = 0; tile < TILES; tile += 2) {
        cuda::memcpy_async(&s[0][t], &x[tile * T + t], sizeof(float), pipe);
        pipe.producer_commit();
        cuda::memcpy_async(&s[1][t], &x[(tile + 1) * T + t], sizeof(float), pipe);
        pipe.producer_commit();
        cuda::pipeline_consumer_wait_prior<1>(pipe); // the first has landed
        sum = sum * 2.0f + s[0][t];
        cuda::pipeline_consumer_wait_prior<0>(pipe); // and the second
        sum = sum * 2.0f + s[1][t];
    }
    out[t] = sum;
}

// The block's threads share the stages: thread t sums column t of each tile,
// which another thread copied.
__global__ void block_pipeline(const float *x, float *out)
{
    __shared__ float s[STAGES][T];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
    auto block = cg::this_thread_block();
    const int t = threadIdx.x;
    auto pipe = cuda::make_pipeline(block, &state);
    float sum = 0.0f;
    int fetched = 0;
    for (int tile = 0; tile < TILES; tile++) {
        for (; fetched < TILES && fetched < tile + STAGES; fetched++) {
            pipe.producer_acquire();
            cuda::memcpy_async(&s[fetched % STAGES][(t + 7) % T], &x[fetched * T + (t + 7) % T],
                               sizeof(float), pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        sum = sum * 2.0f + s[tile % STAGES][t];
        pipe.consumer_release();
    }
    out[t] = sum;
}

// Partitioned: the last warp produces (copies whole tiles), the others consume.
__global__ void producers_consumers(const float *x, float *out)
{
    __shared__ float s[STAGES][T];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
    auto block = cg::this_thread_block();
    const int t = threadIdx.x;
    const bool producer = t >= T;
    auto pipe = cuda::make_pipeline(block, &state,
                                    producer ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer);
    if (producer) {
        for (int tile = 0; tile < TILES; tile++) {
            pipe.producer_acquire();
            for (int i = t - T; i < T; i += 32)
                cuda::memcpy_async(&s[tile % STAGES][i], &x[tile * T + i], sizeof(float), pipe);
            pipe.producer_commit();
        }
        return;
    }
    float sum = 0.0f;
    for (int tile = 0; tile < TILES; tile++) {
        pipe.consumer_wait();
        sum = sum * 2.0f + s[tile % STAGES][T - 1 - t];
        pipe.consumer_release();
    }
    out[T - 1 - t] = sum;
}

// Cooperative groups: the block copies two tiles at once, waits for the
// first (wait_prior<1>), then for both (wait).
__global__ void group_copies(const float *x, float *out)
{
    __shared__ float s[2][T];
    auto block = cg::this_thread_block();
    const int t = threadIdx.x;
    float sum = 0.0f;
    for (int tile = 0; tile < TILES; tile += 2) {
        cg::memcpy_async(block, s[0], x + tile * T, sizeof(float) * T);
        cg::memcpy_async(block, s[1], x + (tile + 1) * T, sizeof(float) * T);
        cg::wait_prior<1>(block);
        sum = sum * 2.0f + s[0][(t + 1) % T];
        cg::wait(block);
        sum = sum * 2.0f + s[1][(t + 1) % T];
        block.sync(); // before the next copies overwrite s
    }
    out[(t + 1) % T] = sum;
}

int main(void)
{
    static float hx[TILES * T], hout[T];
    for (int i = 0; i < TILES * T; i++) hx[i] = (float)((i * 13) % 17);
    float want[T];
    for (int t = 0; t < T; t++) {
        float sum = 0.0f;
        for (int tile = 0; tile < TILES; tile++) sum = sum * 2.0f + hx[tile * T + t];
        want[t] = sum;
    }
    float *x, *out;
    CHECK(cudaMalloc(&x, sizeof hx));
    CHECK(cudaMalloc(&out, sizeof hout));
    CHECK(cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice));
    const char *names[] = {"pipeline of one thread, 3 stages", "pipeline_consumer_wait_prior",
                           "pipeline of the block, 3 stages", "pipeline of 32 producers, 64 consumers",
                           "cg::memcpy_async, wait_prior and wait"};
    int bad = 0;
    for (int k = 0; k < 5; k++) {
        CHECK(cudaMemset(out, 0, sizeof hout));
        switch (k) {
        case 0: thread_pipeline<<<1, T>>>(x, out); break;
        case 1: wait_prior<<<1, T>>>(x, out); break;
        case 2: block_pipeline<<<1, T>>>(x, out); break;
        case 3: producers_consumers<<<1, T + 32>>>(x, out); break;
        case 4: group_copies<<<1, T>>>(x, out); break;
        }
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost));
        int wrong = 0;
        for (int t = 0; t < T; t++) wrong += hout[t] != want[t];
        printf("%-40s %s (element 3: %.0f)\n", names[k], wrong ? "WRONG" : "as on the CPU", hout[3]);
        bad += wrong;
    }
    CHECK(cudaFree(x));
    CHECK(cudaFree(out));
    return bad != 0;
}
