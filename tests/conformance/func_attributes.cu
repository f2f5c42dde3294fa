// cudaFuncGetAttributes reports what nvcc records of a kernel: the most threads
// per block its __launch_bounds__ allow, and its static shared memory (its own
// __shared__ variables and those of the __device__ functions it calls), for a
// plain kernel and for each instantiation of a template. The occupancy calls
// never propose a block the kernel cannot be launched with, and a launch above
// the bound fails as on a GPU, however it is launched.
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"

__global__ void __launch_bounds__(256) reverse256(float *x)
{
    __shared__ float tile[256]; /* 1 KiB */
    tile[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    x[threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
}

__global__ void add_one(float *x) { x[threadIdx.x] += 1.0f; }

/* A __device__ function's shared memory is its callers'. */
__device__ float block_total(float v)
{
    __shared__ float partial[32];
    int t = threadIdx.y * blockDim.x + threadIdx.x, n = blockDim.x * blockDim.y;
    for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
    if (t % 32 == 0) partial[t / 32] = v;
    __syncthreads();
    float sum = 0;
    for (int w = 0; w < (n + 31) / 32; w++) sum += partial[w];
    return sum;
}

template <int TILE>
__global__ void __launch_bounds__(TILE *TILE) transpose_sum(const float *in, float *out)
{
    __shared__ float tile[TILE][TILE + 1];
    __shared__ double scale[2];
    int x = threadIdx.x, y = threadIdx.y;
    if (x == 0 && y == 0) scale[0] = scale[1] = 0.5;
    tile[y][x] = in[y * TILE + x];
    __syncthreads();
    float t = block_total(tile[x][y] * (float)scale[x % 2]);
    if (x == 0 && y == 0) out[0] = t;
}

template <typename T>
__global__ void __launch_bounds__(128) scale(T *x, T by)
{
    x[threadIdx.x] *= by;
}

static int show(const char *name, const void *k)
{
    cudaFuncAttributes a;
    CHECK(cudaFuncGetAttributes(&a, k));
    printf("%-22s maxThreadsPerBlock %4d, sharedSizeBytes %5zu\n", name, a.maxThreadsPerBlock,
           a.sharedSizeBytes);
    return 0;
}

int main(void)
{
    if (show("reverse256", (const void *)reverse256) || show("add_one", (const void *)add_one) ||
        show("transpose_sum<8>", (const void *)transpose_sum<8>) ||
        show("transpose_sum<16>", (const void *)transpose_sum<16>))
        return 1;
    cudaFuncAttributes a;
    CHECK(cudaFuncGetAttributes(&a, scale<float>)); /* the typed form */
    printf("%-22s maxThreadsPerBlock %4d, sharedSizeBytes %5zu\n", "scale<float>", a.maxThreadsPerBlock,
           a.sharedSizeBytes);

    /* The occupancy calculator's block fits the bound, and launches. */
    int min_grid = 0, block = 0;
    CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, reverse256));
    printf("cudaOccupancyMaxPotentialBlockSize(reverse256): a block of at most 256 threads: %s\n",
           block > 0 && block <= 256 ? "yes" : "no");
    float *d;
    CHECK(cudaMalloc(&d, 1024 * sizeof(float)));
    CHECK(cudaMemset(d, 0, 1024 * sizeof(float)));
    reverse256<<<1, block>>>(d);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    printf("reverse256<<<1, its block>>>: launched\n");

    /* Above the bound: the launch fails, and the next call is not affected. */
    reverse256<<<1, 512>>>(d);
    printf("reverse256<<<1, 512>>>: %s\n", cudaGetErrorString(cudaGetLastError()));
    void *args[] = {&d, &d};
    printf("cudaLaunchKernel(transpose_sum<8>, 1, (16, 16)): %s\n",
           cudaGetErrorString(cudaLaunchKernel((const void *)transpose_sum<8>, dim3(1), dim3(16, 16),
                                               args, 0, 0)));
    float by = 2.0f;
    scale<<<1, 256>>>(d, by); /* its template arguments deduced */
    printf("scale<<<1, 256>>> (T deduced): %s\n", cudaGetErrorString(cudaGetLastError()));
    add_one<<<1, 1024>>>(d);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    printf("add_one<<<1, 1024>>>: launched\n");
    CHECK(cudaFree(d));
    return 0;
}
