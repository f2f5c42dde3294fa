// The access patterns a course teaches, one kernel each, for the simulator's
// profiler: run with CUDASIM_PROFILE=FILE, each launch's row must hold the
// counts a GPU gives (profile_patterns.profile lists them, worked out by hand
// in the comments here). On a GPU, ncu --csv --metrics ... shows the same.
//
// Every global kernel runs 1024 threads as 4 blocks of 256: 32 warps, so 32
// requests per access of each kernel. A warp's 32 floats are 128 bytes: 4
// sectors of 32 bytes when they are consecutive and aligned.
#include <cstdio>

#define N 1024
#define THREADS 256

// 4 sectors per request: lanes read consecutive floats.
__global__ void copy_coalesced(const float *in, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i];
}

// Stride 2: a warp's loads span 256 bytes, 8 sectors (half of each unused).
__global__ void copy_stride2(const float *in, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[2 * i];
}

// Stride 32: each lane's float in a sector of its own, 32 sectors per request.
__global__ void copy_stride32(const float *in, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[32 * i];
}

// Offset by one float: 128 bytes from byte 4 of a sector reach into a fifth.
__global__ void copy_offset1(const float *in, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i + 1];
}

// Broadcast: every lane reads the same float, 1 sector per request.
__global__ void read_broadcast(const float *in, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[0];
}

// 64-bit accesses: a warp's float2s are 256 bytes, 8 sectors per request.
__global__ void copy_float2(const float2 *in, float2 *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i];
}

// 128-bit accesses: 512 bytes, 16 sectors per request.
__global__ void copy_float4(const float4 *in, float4 *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i];
}

// Half the lanes active: 16 floats, every other one, in 4 sectors where 2 would hold them.
__global__ void copy_even_lanes(const float *in, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x % 2 == 0) out[i] = in[i];
}

// Atomics on one counter: each warp's atomicAdd is one request to one sector.
__global__ void count_atomic(unsigned *counter)
{
    atomicAdd(counter, 1u);
}

// One warp, 32-way bank conflict: lane t uses word 32 t, all in bank 0, each a
// different word: 32 wavefronts for the store and 32 for the load.
__global__ void shared_conflict32(const float *in, float *out)
{
    __shared__ float s[32 * 32];
    int t = threadIdx.x;
    s[t * 32] = in[t];
    __syncthreads();
    out[t] = s[t * 32];
}

// One warp, 128-bit shared accesses without conflicts: 4 wavefronts each (a
// quarter-warp's 8 float4s are 128 bytes, one wavefront), the ideal.
__global__ void shared_float4(const float4 *in, float4 *out)
{
    __shared__ float4 s[32];
    int t = threadIdx.x;
    s[t] = in[t];
    __syncthreads();
    out[t] = s[(t + 1) % 32];
}

// A 64 x 64 transpose through a 32 x 32 tile, blocks of 32 x 8 threads, 2 x 2
// blocks; each thread moves 4 elements. Global loads and stores: coalesced,
// 8 warps x 4 x 4 blocks = 128 requests of 4 sectors each. Shared stores
// tile[y][x]: a warp's 32 consecutive words, 1 wavefront each. Shared loads
// tile[x][y]: a column, words 32 (or 33) apart: all in one bank without the
// padding (32 wavefronts), in 32 banks with it (1).
#define TILE 32
#define ROWS 8
#define W 64
template <int PAD>
__global__ void transpose_tile(const float *in, float *out)
{
    __shared__ float tile[TILE][TILE + PAD];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * W + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) out[(y + j) * W + x] = tile[threadIdx.x][threadIdx.y + j];
}

static double sum(const float *d, int n)
{
    float h[32 * N];
    cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
    double s = 0;
    for (int i = 0; i < n; i++) s += h[i] * (i % 7 + 1);
    return s;
}

int main()
{
    static float h[32 * N + 64];
    for (int i = 0; i < 32 * N + 64; i++) h[i] = (float)(i % 101) - 50.0f;
    float *in, *out;
    unsigned *counter;
    cudaMalloc(&in, sizeof h);
    cudaMalloc(&out, 4 * N * sizeof(float));
    cudaMalloc(&counter, sizeof(unsigned));
    cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMemset(counter, 0, sizeof(unsigned));

    copy_coalesced<<<N / THREADS, THREADS>>>(in, out);
    printf("coalesced %.1f\n", sum(out, N));
    copy_stride2<<<N / THREADS, THREADS>>>(in, out);
    printf("stride 2 %.1f\n", sum(out, N));
    copy_stride32<<<N / THREADS, THREADS>>>(in, out);
    printf("stride 32 %.1f\n", sum(out, N));
    copy_offset1<<<N / THREADS, THREADS>>>(in, out);
    printf("offset 1 %.1f\n", sum(out, N));
    read_broadcast<<<N / THREADS, THREADS>>>(in, out);
    printf("broadcast %.1f\n", sum(out, N));
    copy_float2<<<N / THREADS, THREADS>>>((const float2 *)in, (float2 *)out);
    printf("float2 %.1f\n", sum(out, 2 * N));
    copy_float4<<<N / THREADS, THREADS>>>((const float4 *)in, (float4 *)out);
    printf("float4 %.1f\n", sum(out, 4 * N));
    cudaMemset(out, 0, N * sizeof(float));
    copy_even_lanes<<<N / THREADS, THREADS>>>(in, out);
    printf("even lanes %.1f\n", sum(out, N));
    count_atomic<<<N / THREADS, THREADS>>>(counter);
    unsigned c = 0;
    cudaMemcpy(&c, counter, sizeof c, cudaMemcpyDeviceToHost);
    printf("atomic count %u\n", c);
    shared_conflict32<<<1, 32>>>(in, out);
    printf("shared conflict %.1f\n", sum(out, 32));
    shared_float4<<<1, 32>>>((const float4 *)in, (float4 *)out);
    printf("shared float4 %.1f\n", sum(out, 128));
    transpose_tile<0><<<dim3(2, 2), dim3(TILE, ROWS)>>>(in, out);
    printf("transpose, unpadded tile %.1f\n", sum(out, W * W));
    transpose_tile<1><<<dim3(2, 2), dim3(TILE, ROWS)>>>(in, out);
    printf("transpose, padded tile %.1f\n", sum(out, W * W));
    cudaFree(in);
    cudaFree(out);
    cudaFree(counter);
    return 0;
}
