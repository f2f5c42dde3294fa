// Grid-wide synchronization: a kernel of several phases, each reading what
// other blocks wrote in the phase before, a grid sync between them (a
// 1-D stencil iterated in place with two buffers, then a scan of block sums).
// Shared memory is each block's own across the syncs.
#include <cooperative_groups.h>
#include <cstdio>
namespace cg = cooperative_groups;

__global__ void phases(int *a, int *b, int *block_sums, int *prefix, int n, int steps)
{
    cg::grid_group grid = cg::this_grid();
    __shared__ int mine[128]; // this block's values, kept across the grid syncs
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    mine[threadIdx.x] = i;
    for (int s = 0; s < steps; s++) {
        // each thread reads its neighbours, which other blocks own at the edges
        int left = i > 0 ? a[i - 1] : 0, right = i + 1 < n ? a[i + 1] : 0;
        b[i] = left + a[i] + right;
        grid.sync();
        int *t = a;
        a = b;
        b = t;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        int s = 0;
        for (int k = 0; k < blockDim.x; k++) s += a[blockIdx.x * blockDim.x + k];
        block_sums[blockIdx.x] = s;
    }
    cg::sync(grid);
    if (threadIdx.x == 0) {
        int s = 0;
        for (int k = 0; k < (int)blockIdx.x; k++) s += block_sums[k];
        prefix[blockIdx.x] = s;
    }
    grid.sync();
    // the shared memory is still this block's
    if (mine[threadIdx.x] != i) prefix[blockIdx.x] = -1;
}

int main()
{
    const int threads = 128, blocks = 8, n = threads * blocks, steps = 5;
    int *a, *b, *sums, *prefix;
    cudaMallocManaged(&a, n * sizeof(int));
    cudaMallocManaged(&b, n * sizeof(int));
    cudaMallocManaged(&sums, blocks * sizeof(int));
    cudaMallocManaged(&prefix, blocks * sizeof(int));
    static int h[2][n];
    for (int i = 0; i < n; i++) h[0][i] = a[i] = i % 5 == 0;
    for (int s = 0; s < steps; s++)
        for (int i = 0; i < n; i++)
            h[(s + 1) % 2][i] = (i > 0 ? h[s % 2][i - 1] : 0) + h[s % 2][i] + (i + 1 < n ? h[s % 2][i + 1] : 0);
    const int *want = h[steps % 2];
    int nn = n, ss = steps;
    void *args[] = {&a, &b, &sums, &prefix, &nn, &ss};
    cudaError_t e = cudaLaunchCooperativeKernel((void *)phases, blocks, threads, args, 0, 0);
    cudaDeviceSynchronize();
    printf("launch: %s\n", cudaGetErrorName(e));
    const int *got = steps % 2 ? b : a;
    int bad = 0;
    for (int i = 0; i < n; i++) bad += got[i] != want[i];
    printf("stencil after %d steps: %d of %d wrong\n", steps, bad, n);
    int run = 0;
    bad = 0;
    for (int k = 0; k < blocks; k++) {
        bad += prefix[k] != run;
        for (int j = 0; j < threads; j++) run += want[k * threads + j];
    }
    printf("prefix of block sums: %d of %d wrong\n", bad, blocks);
    cudaFree(a);
    cudaFree(b);
    cudaFree(sums);
    cudaFree(prefix);
    return 0;
}
