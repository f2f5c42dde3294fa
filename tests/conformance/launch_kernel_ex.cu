// CUDA 12's extensible launch, cudaLaunchKernelEx: a configuration with the
// grid, the block, dynamic shared memory and the stream, and a list of
// attributes. A plain launch with hints that change only when a GPU runs the
// work (a priority, programmatic stream serialization), a cooperative one whose
// blocks sync the grid, and the C API's cudaLaunchKernelExC with the arguments'
// addresses.
#include <cooperative_groups.h>
#include <cstdio>

#include "check.h"
namespace cg = cooperative_groups;

__global__ void scale(float *x, float a, int n)
{
    extern __shared__ float tile[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    if (i < n) x[i] = a * tile[threadIdx.x];
}

// Each block writes its id, the grid syncs, then each block reads its neighbour's.
__global__ void neighbours(int *ids, int *seen)
{
    cg::grid_group grid = cg::this_grid();
    if (threadIdx.x == 0) ids[blockIdx.x] = (int)blockIdx.x + 100;
    grid.sync();
    if (threadIdx.x == 0) seen[blockIdx.x] = ids[(blockIdx.x + 1) % gridDim.x];
}

int main(void)
{
    const int n = 1000, threads = 128;
    float *x;
    CHECK(cudaMallocManaged(&x, n * sizeof(float)));
    for (int i = 0; i < n; i++) x[i] = (float)i;
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));

    cudaLaunchAttribute hints[2];
    hints[0].id = cudaLaunchAttributePriority;
    hints[0].val.priority = 0;
    hints[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    hints[1].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3((n + threads - 1) / threads);
    config.blockDim = dim3(threads);
    config.dynamicSmemBytes = threads * sizeof(float);
    config.stream = stream;
    config.attrs = hints;
    config.numAttrs = 2;
    CHECK(cudaLaunchKernelEx(&config, scale, x, 2, n)); // 2: an int, converted to float
    CHECK(cudaStreamSynchronize(stream));
    printf("scaled: x[1] = %.1f, x[999] = %.1f\n", x[1], x[999]);

    // The C API: the arguments' addresses.
    float a = 0.5f;
    int count = n;
    void *args[] = {&x, &a, &count};
    config.numAttrs = 0;
    CHECK(cudaLaunchKernelExC(&config, (const void *)scale, args));
    CHECK(cudaStreamSynchronize(stream));
    printf("C API: x[1] = %.1f, x[999] = %.1f\n", x[1], x[999]);

    const int blocks = 4;
    int *ids, *seen;
    CHECK(cudaMallocManaged(&ids, blocks * sizeof(int)));
    CHECK(cudaMallocManaged(&seen, blocks * sizeof(int)));
    cudaLaunchAttribute coop;
    coop.id = cudaLaunchAttributeCooperative;
    coop.val.cooperative = 1;
    cudaLaunchConfig_t grid = {};
    grid.gridDim = dim3(blocks);
    grid.blockDim = dim3(32);
    grid.attrs = &coop;
    grid.numAttrs = 1;
    CHECK(cudaLaunchKernelEx(&grid, neighbours, ids, seen));
    CHECK(cudaDeviceSynchronize());
    printf("cooperative: block 0 saw %d, block 3 saw %d\n", seen[0], seen[3]);

    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(x));
    CHECK(cudaFree(ids));
    CHECK(cudaFree(seen));
    return 0;
}
