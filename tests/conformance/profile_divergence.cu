// The profiler's counts where the lanes of a warp part ways (CUDASIM_PROFILE;
// the counts are in profile_divergence.profile). The simulator groups a warp's
// accesses side by side while its lanes make the same ones, and by code and
// instance from the first access where they differ (profile_groups.cpp): each
// kernel here makes the lanes differ in another way, and the counts must be
// those of a GPU, which runs the warp's instructions with the lanes active for
// each. Two blocks of 64 threads each: 4 warps, the second block's threads run
// last to first.
#include <cstdio>

#define THREADS 64
#define BLOCKS 2
#define N (THREADS * BLOCKS)

// Loops of different lengths: lane t makes t % 4 + 1 loads. The k-th load of a
// warp has the lanes with t % 4 >= k active (32, 24, 16, 8), and each still
// reaches the 4 sectors of the warp's 32 consecutive floats: per warp 4
// requests, 16 sectors; then 1 store of 4 sectors.
__global__ void tail_loop(const float *in, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float s = 0;
    for (int k = 0; k <= (int)(threadIdx.x % 4); k++) s += in[k * N + i];
    out[i] = s;
}

// Lane 0 of each warp makes no access: 31 lanes, still 4 sectors each way.
__global__ void skip_lane0(const float *in, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x % 32 != 0) out[i] = in[i] * 2;
}

// Two loads that every lane makes, then a load that only the odd lanes make
// (16 floats, every other one: still 4 sectors), then a store by all: per warp
// 3 load requests of 4 sectors and 1 store of 4.
__global__ void late_divergence(const float *in, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float a = in[i], b = in[i + N];
    if (threadIdx.x & 1) b += in[i + 2 * N];
    out[i] = a + b;
}

// Half a warp works before a barrier, the other half after it: each half's
// load is 16 consecutive floats (2 sectors) and its shared store 16
// consecutive words (1 wavefront); then every lane reads its neighbour's word
// (32 words, one per bank: 1 wavefront) and stores 4 sectors. Per warp: 2
// load requests of 2 sectors, 1 store of 4; 2 shared stores and 1 shared load
// of 1 wavefront each.
__global__ void halves_at_a_barrier(const float *in, float *out)
{
    __shared__ float s[THREADS];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    if (t % 32 < 16) s[t] = in[i];
    __syncthreads();
    if (t % 32 >= 16) s[t] = in[i] + 1;
    __syncthreads();
    out[i] = s[t ^ 1];
}

static double sum(const float *d)
{
    float h[N];
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    double s = 0;
    for (int i = 0; i < N; i++) s += h[i] * (i % 7 + 1);
    return s;
}

int main()
{
    static float h[4 * N];
    for (int i = 0; i < 4 * N; i++) h[i] = (float)(i % 13) - 6.0f;
    float *in, *out;
    cudaMalloc(&in, sizeof h);
    cudaMalloc(&out, N * sizeof(float));
    cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);

    tail_loop<<<BLOCKS, THREADS>>>(in, out);
    printf("tail loop %.1f\n", sum(out));
    cudaMemset(out, 0, N * sizeof(float));
    skip_lane0<<<BLOCKS, THREADS>>>(in, out);
    printf("skip lane 0 %.1f\n", sum(out));
    late_divergence<<<BLOCKS, THREADS>>>(in, out);
    printf("late divergence %.1f\n", sum(out));
    halves_at_a_barrier<<<BLOCKS, THREADS>>>(in, out);
    printf("halves at a barrier %.1f\n", sum(out));
    cudaFree(in);
    cudaFree(out);
    return 0;
}
