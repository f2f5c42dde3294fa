// Grid-wide synchronization (cooperative launch), the classic reduction:
// each block writes its partial sum, the whole grid syncs, block 0 adds the
// partial sums. The grid is sized as NVIDIA's samples size it: the blocks
// that fit on each multiprocessor at once, times the multiprocessors.
#include <cooperative_groups.h>
#include <cstdio>
namespace cg = cooperative_groups;

__global__ void sum(const int *in, int *partial, int *total, int n)
{
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    __shared__ int s[256];
    int v = 0;
    for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size())
        v += in[i];
    s[block.thread_rank()] = v;
    block.sync();
    for (int k = blockDim.x / 2; k > 0; k /= 2) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        block.sync();
    }
    if (threadIdx.x == 0) partial[grid.block_rank()] = s[0];
    grid.sync();
    if (grid.block_rank() == 0 && threadIdx.x == 0) {
        int t = 0;
        for (unsigned long long b = 0; b < grid.num_blocks(); b++) t += partial[b];
        *total = t;
    }
}

__global__ void valid(int *out)
{
    if (threadIdx.x == 0) out[blockIdx.x] = cg::this_grid().is_valid();
}

int main()
{
    const int n = 1 << 16;
    int *in, *partial, *total, *flags;
    cudaMallocManaged(&in, n * sizeof(int));
    cudaMalloc(&partial, 64 * sizeof(int));
    cudaMallocManaged(&total, sizeof(int));
    cudaMallocManaged(&flags, 2 * sizeof(int));
    long long want = 0;
    for (int i = 0; i < n; i++) {
        in[i] = i % 7 - 2;
        want += in[i];
    }
    int coop = 0, sms = 0, per_sm = 0;
    cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sum, 256, 0);
    printf("cooperative launch: attribute %d, property %d\n", coop, prop.cooperativeLaunch);
    int blocks = per_sm * sms;
    if (blocks > 64) blocks = 64;
    int nn = n;
    void *args[] = {&in, &partial, &total, &nn};
    cudaError_t e = cudaLaunchCooperativeKernel((void *)sum, dim3(blocks), dim3(256), args, 0, 0);
    cudaError_t s = cudaDeviceSynchronize();
    printf("launch: %s, %s\n", cudaGetErrorName(e), cudaGetErrorName(s));
    printf("sum %s\n", *total == want ? "matches the host's" : "differs from the host's");
    // The template form, and is_valid() with and without a cooperative launch.
    void *vargs[] = {&flags};
    e = cudaLaunchCooperativeKernel(valid, 1, 32, vargs);
    cudaDeviceSynchronize();
    printf("template form: %s\n", cudaGetErrorName(e));
    printf("is_valid in a cooperative launch: %d\n", flags[0]);
    valid<<<2, 32>>>(flags);
    cudaDeviceSynchronize();
    printf("is_valid without a cooperative launch: %d %d\n", flags[0], flags[1]);
    cudaFree(in);
    cudaFree(partial);
    cudaFree(total);
    cudaFree(flags);
    return 0;
}
