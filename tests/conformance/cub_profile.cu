// CUB's collectives as the profiler counts them: one block of 128 threads
// (4 warps), 4 ints per thread, so every global request is one warp's
// instruction. CUB's algorithms make the accesses below on a GPU too, and
// cub_profile.profile holds the counts worked out here:
//
// - BLOCK_LOAD_DIRECT / STORE_DIRECT: thread t reads ints 4t ... 4t + 3: 4
//   instructions per warp, each lane 16 bytes from the next, so 32 lanes span
//   512 bytes: 16 sectors a request, 16 requests, 256 sectors (each way).
// - STRIPED: thread t reads ints t, t + 128, ...: 32 consecutive ints a
//   request, 4 sectors: 16 requests, 64 sectors.
// - VECTORIZE: one 16-byte int4 per thread: 4 requests of 16 sectors.
// - TRANSPOSE: striped (16 requests, 64 sectors), then the tile through
//   shared memory (4 ints a thread, no padding): writing lane t's item i at
//   word i * 128 + t is one wavefront per instruction; reading word 4t + i
//   puts lanes t, t + 8, t + 16 and t + 24 in one bank: 4 wavefronts. The
//   load does 16 of each, the store 16 of each the other way round: 32
//   shared loads of 80 wavefronts, 32 stores of 80.
// - WARP_TRANSPOSE: the same counts, each warp within its own 128 ints.
// - BlockReduce Sum: each warp reduces by shuffles (no memory), lane 0 of
//   each writes its total (4 stores of one lane, 1 wavefront each), thread 0
//   reads the other three (3 loads); one global load per warp and thread
//   0's store (1 request, 1 sector).
// - BlockScan InclusiveSum (BLOCK_SCAN_WARP_SCANS): each warp's last lane
//   writes its total (4 stores), then every thread reads the four totals
//   (each warp 4 loads of one word: a broadcast, 1 wavefront each: 16).
#include <cstdio>
#include <cub/cub.cuh>

template <cub::BlockLoadAlgorithm L, cub::BlockStoreAlgorithm S>
__global__ void copy_tile(const int *in, int *out)
{
    typedef cub::BlockLoad<int, 128, 4, L> Load;
    typedef cub::BlockStore<int, 128, 4, S> Store;
    __shared__ typename Load::TempStorage load_temp;
    __shared__ typename Store::TempStorage store_temp;
    int items[4];
    Load(load_temp).Load(in, items);
    Store(store_temp).Store(out, items);
}

__global__ void block_sum(const int *in, int *out)
{
    typedef cub::BlockReduce<int, 128> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp;
    int sum = BlockReduce(temp).Sum(in[threadIdx.x]);
    if (threadIdx.x == 0) *out = sum;
}

__global__ void block_scan(const int *in, int *out)
{
    typedef cub::BlockScan<int, 128, cub::BLOCK_SCAN_WARP_SCANS> BlockScan;
    __shared__ typename BlockScan::TempStorage temp;
    int x;
    BlockScan(temp).InclusiveSum(in[threadIdx.x], x);
    out[threadIdx.x] = x;
}

int main(void)
{
    int h[512], *in, *out;
    for (int i = 0; i < 512; i++) h[i] = i;
    cudaMalloc(&in, sizeof h);
    cudaMalloc(&out, sizeof h);
    cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
    copy_tile<cub::BLOCK_LOAD_DIRECT, cub::BLOCK_STORE_DIRECT><<<1, 128>>>(in, out);
    copy_tile<cub::BLOCK_LOAD_STRIPED, cub::BLOCK_STORE_STRIPED><<<1, 128>>>(in, out);
    copy_tile<cub::BLOCK_LOAD_VECTORIZE, cub::BLOCK_STORE_VECTORIZE><<<1, 128>>>(in, out);
    copy_tile<cub::BLOCK_LOAD_TRANSPOSE, cub::BLOCK_STORE_TRANSPOSE><<<1, 128>>>(in, out);
    copy_tile<cub::BLOCK_LOAD_WARP_TRANSPOSE, cub::BLOCK_STORE_WARP_TRANSPOSE><<<1, 128>>>(in, out);
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    printf("copied: out[0] %d, out[511] %d\n", h[0], h[511]);
    block_sum<<<1, 128>>>(in, out);
    cudaMemcpy(h, out, sizeof(int), cudaMemcpyDeviceToHost);
    printf("sum of 0 ... 127: %d\n", h[0]);
    block_scan<<<1, 128>>>(in, out);
    cudaMemcpy(h, out, 128 * sizeof(int), cudaMemcpyDeviceToHost);
    printf("inclusive sums: %d %d ... %d\n", h[0], h[1], h[127]);
    cudaFree(in);
    cudaFree(out);
    return 0;
}
