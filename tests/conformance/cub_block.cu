// CUB's block- and warp-wide collectives against the CPU: cub::BlockReduce
// (Sum, Reduce with an operator, the num_valid forms, several items per
// thread), cub::BlockScan (inclusive and exclusive sums, scans with an
// operator and an initial value, block aggregates, several items per thread,
// a prefix callback carried over tiles), cub::WarpReduce (whole and 16-lane
// warps, valid items, head-segmented sums) and cub::WarpScan, in blocks of
// 128, 48 (a partial warp) and 20 threads. The inputs are seeded random
// integers, so every result is exact and a GPU with NVIDIA's CUB prints the
// same; the values that CUB's documentation publishes for its snippets are
// printed too.
#include <cstdio>
#include <cstdlib>
#include <cub/cub.cuh>

#define CHECK(call)                                                                               \
    do {                                                                                          \
        cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess) {                                                                  \
            printf("%s failed: %s\n", #call, cudaGetErrorString(e_));                             \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

struct MaxOp {
    __host__ __device__ int operator()(const int &a, const int &b) const { return a > b ? a : b; }
};
struct AddOp {
    __host__ __device__ int operator()(const int &a, const int &b) const { return a + b; }
};

// Per block: Sum, Reduce(max), Sum and Reduce of the first `valid` threads,
// and Sum of 4 items per thread, each in thread 0.
template <int BLOCK>
__global__ void block_reduce(const int *in, int *out, int valid)
{
    typedef cub::BlockReduce<int, BLOCK> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp;
    const int *mine = in + blockIdx.x * BLOCK * 4;
    int x = mine[threadIdx.x];
    int r[5];
    r[0] = BlockReduce(temp).Sum(x);
    __syncthreads();
    r[1] = BlockReduce(temp).Reduce(x, MaxOp());
    __syncthreads();
    r[2] = BlockReduce(temp).Sum(x, valid);
    __syncthreads();
    r[3] = BlockReduce(temp).Reduce(x, MaxOp(), valid);
    __syncthreads();
    int items[4];
    for (int i = 0; i < 4; i++) items[i] = mine[threadIdx.x * 4 + i];
    r[4] = BlockReduce(temp).Sum(items);
    if (threadIdx.x == 0)
        for (int k = 0; k < 5; k++) out[blockIdx.x * 5 + k] = r[k];
}

// Per block of BLOCK threads: six scans of one item per thread, into out
// (6 x BLOCK per block), and the block aggregates, into agg (2 per block).
template <int BLOCK>
__global__ void block_scan(const int *in, int *out, int *agg)
{
    typedef cub::BlockScan<int, BLOCK> BlockScan;
    __shared__ typename BlockScan::TempStorage temp;
    int x = in[blockIdx.x * BLOCK + threadIdx.x];
    int *o = out + blockIdx.x * 6 * BLOCK + threadIdx.x;
    int y, a;
    BlockScan(temp).InclusiveSum(x, y);
    o[0] = y;
    __syncthreads();
    BlockScan(temp).ExclusiveSum(x, y, a);
    o[BLOCK] = y;
    if (threadIdx.x == 0) agg[blockIdx.x * 2] = a;
    __syncthreads();
    BlockScan(temp).InclusiveScan(x, y, MaxOp());
    o[2 * BLOCK] = y;
    __syncthreads();
    BlockScan(temp).ExclusiveScan(x, y, -5000, MaxOp(), a);
    o[3 * BLOCK] = y;
    if (threadIdx.x == 0) agg[blockIdx.x * 2 + 1] = a;
    __syncthreads();
    BlockScan(temp).ExclusiveScan(x, y, 7, AddOp());
    o[4 * BLOCK] = y;
    __syncthreads();
    BlockScan(temp).InclusiveScan(x, y, MaxOp(), a);
    o[5 * BLOCK] = y;
}

// 4 items per thread, blocked: their inclusive and exclusive sums.
__global__ void block_scan_items(const int *in, int *incl, int *excl)
{
    typedef cub::BlockScan<int, 64> BlockScan;
    __shared__ typename BlockScan::TempStorage temp;
    int items[4], y[4];
    for (int i = 0; i < 4; i++) items[i] = in[threadIdx.x * 4 + i];
    BlockScan(temp).InclusiveSum(items, y);
    for (int i = 0; i < 4; i++) incl[threadIdx.x * 4 + i] = y[i];
    __syncthreads();
    BlockScan(temp).ExclusiveSum(items, y);
    for (int i = 0; i < 4; i++) excl[threadIdx.x * 4 + i] = y[i];
}

// CUB's documented callback: a running total carried from tile to tile.
struct RunningTotal {
    int total;
    __device__ RunningTotal(int t) : total(t) {}
    __device__ int operator()(int block_aggregate)
    {
        int old = total;
        total += block_aggregate;
        return old;
    }
};

// One block scans n items in tiles of 128, the callback carrying the total.
__global__ void scan_tiles(int *data, int n)
{
    typedef cub::BlockScan<int, 128> BlockScan;
    __shared__ typename BlockScan::TempStorage temp;
    RunningTotal prefix(0);
    for (int base = 0; base < n; base += 128) {
        int x = data[base + threadIdx.x];
        BlockScan(temp).ExclusiveSum(x, x, prefix);
        __syncthreads();
        data[base + threadIdx.x] = x;
    }
}

// 128 threads: whole warps and 16-lane ones.
__global__ void warp_collectives(const int *in, int *out)
{
    typedef cub::WarpReduce<int> WarpReduce;
    typedef cub::WarpReduce<int, 16> HalfReduce;
    typedef cub::WarpScan<int> WarpScan;
    __shared__ typename WarpReduce::TempStorage reduce_temp[4];
    __shared__ typename HalfReduce::TempStorage half_temp[8];
    __shared__ typename WarpScan::TempStorage scan_temp[4];
    int t = threadIdx.x, warp = t / 32, x = in[t];
    int sum = WarpReduce(reduce_temp[warp]).Sum(x);
    int valid = WarpReduce(reduce_temp[warp]).Sum(x, 20);
    int hmax = HalfReduce(half_temp[t / 16]).Reduce(x, MaxOp());
    int seg = WarpReduce(reduce_temp[warp]).HeadSegmentedSum(x, t % 32 == 0 || t % 7 == 3);
    int incl, excl, total, first;
    WarpScan(scan_temp[warp]).InclusiveSum(x, incl);
    WarpScan(scan_temp[warp]).ExclusiveSum(x, excl, total);
    first = WarpScan(scan_temp[warp]).Broadcast(x, 5);
    if (t % 32 == 0) out[warp * 3] = sum, out[warp * 3 + 1] = valid;
    if (t % 16 == 0) out[12 + t / 16] = hmax;
    out[20 + t] = seg; /* (valid in the first lane of each segment) */
    out[148 + t] = incl;
    out[276 + t] = excl;
    if (t % 32 == 0) out[warp * 3 + 2] = total;
    out[404 + t] = first;
}

// The snippets of CUB's documentation, with their published values.
__global__ void documented(int *out)
{
    // BlockReduce: 128 threads of 4 items {[0,1,2,3], [4,5,6,7], ...}: 130816
    typedef cub::BlockReduce<int, 128> BlockReduce;
    __shared__ typename BlockReduce::TempStorage reduce_temp;
    int items[4];
    for (int i = 0; i < 4; i++) items[i] = threadIdx.x * 4 + i;
    int aggregate = BlockReduce(reduce_temp).Sum(items);
    if (threadIdx.x == 0) out[0] = aggregate;
    // BlockScan: ExclusiveSum of 4 ones per thread: thread t gets [4t, 4t+1, 4t+2, 4t+3]
    typedef cub::BlockScan<int, 128> BlockScan;
    __shared__ typename BlockScan::TempStorage scan_temp;
    int ones[4] = {1, 1, 1, 1};
    BlockScan(scan_temp).ExclusiveSum(ones, ones);
    if (threadIdx.x == 127)
        for (int i = 0; i < 4; i++) out[1 + i] = ones[i];
    // WarpReduce: inputs 0, 1, ..., 127 in 4 warps: 496, 1520, 2544, 3568
    typedef cub::WarpReduce<int> WarpReduce;
    __shared__ typename WarpReduce::TempStorage warp_temp[4];
    int warp_sum = WarpReduce(warp_temp[threadIdx.x / 32]).Sum(threadIdx.x);
    if (threadIdx.x % 32 == 0) out[5 + threadIdx.x / 32] = warp_sum;
    // WarpScan: InclusiveSum of ones: 1, 2, ..., 32 in each warp
    typedef cub::WarpScan<int> WarpScan;
    __shared__ typename WarpScan::TempStorage warp_scan_temp[4];
    int one;
    WarpScan(warp_scan_temp[threadIdx.x / 32]).InclusiveSum(1, one);
    if (threadIdx.x < 32) out[9 + threadIdx.x] = one;
}

static int failures = 0;
static void expect(const char *what, int index, int got, int want)
{
    if (got != want && failures++ < 10) printf("%s [%d]: %d, expected %d\n", what, index, got, want);
}

template <int BLOCK>
static void check_reduce(const int *h, int *d_in, int *d_out, int valid)
{
    const int blocks = 3;
    block_reduce<BLOCK><<<blocks, BLOCK>>>(d_in, d_out, valid);
    CHECK(cudaGetLastError());
    int r[blocks * 5];
    CHECK(cudaMemcpy(r, d_out, sizeof r, cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; b++) {
        const int *x = h + b * BLOCK * 4;
        int sum = 0, max = x[0], vsum = 0, vmax = x[0], isum = 0;
        for (int t = 0; t < BLOCK; t++) {
            sum += x[t];
            max = x[t] > max ? x[t] : max;
            if (t < valid) vsum += x[t], vmax = x[t] > vmax ? x[t] : vmax;
        }
        for (int i = 0; i < BLOCK * 4; i++) isum += x[i];
        expect("BlockReduce Sum", b, r[b * 5], sum);
        expect("BlockReduce Reduce(max)", b, r[b * 5 + 1], max);
        expect("BlockReduce Sum(num_valid)", b, r[b * 5 + 2], vsum);
        expect("BlockReduce Reduce(max, num_valid)", b, r[b * 5 + 3], vmax);
        expect("BlockReduce Sum(4 items)", b, r[b * 5 + 4], isum);
    }
    printf("BlockReduce<int, %d>, valid %d: block 0 sum %d, max %d, of the first %d: %d and %d, "
           "of 4 items each: %d\n", BLOCK, valid, r[0], r[1], valid, r[2], r[3], r[4]);
}

template <int BLOCK>
static void check_scan(const int *h, int *d_in, int *d_out, int *d_agg)
{
    const int blocks = 2;
    block_scan<BLOCK><<<blocks, BLOCK>>>(d_in, d_out, d_agg);
    CHECK(cudaGetLastError());
    static int r[blocks * 6 * BLOCK], a[blocks * 2];
    CHECK(cudaMemcpy(r, d_out, sizeof r, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(a, d_agg, sizeof a, cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; b++) {
        const int *x = h + b * BLOCK;
        const int *o = r + b * 6 * BLOCK;
        int incl = 0, excl = 0, imax = x[0], emax = -5000, esum7 = 7;
        for (int t = 0; t < BLOCK; t++) {
            incl += x[t];
            imax = x[t] > imax ? x[t] : imax;
            expect("BlockScan InclusiveSum", t, o[t], incl);
            expect("BlockScan ExclusiveSum", t, o[BLOCK + t], excl);
            expect("BlockScan InclusiveScan(max)", t, o[2 * BLOCK + t], imax);
            expect("BlockScan ExclusiveScan(-5000, max)", t, o[3 * BLOCK + t], emax);
            expect("BlockScan ExclusiveScan(7, +)", t, o[4 * BLOCK + t], esum7);
            expect("BlockScan InclusiveScan(max, aggregate)", t, o[5 * BLOCK + t], imax);
            excl += x[t];
            esum7 += x[t];
            emax = x[t] > emax ? x[t] : emax;
        }
        expect("BlockScan ExclusiveSum's aggregate", b, a[b * 2], incl);
        expect("BlockScan ExclusiveScan(max)'s aggregate", b, a[b * 2 + 1], imax);
    }
    printf("BlockScan<int, %d>: block 1's last inclusive sum %d, its aggregate %d, its running "
           "maximum %d\n", BLOCK, r[6 * BLOCK + BLOCK - 1], a[2], r[6 * BLOCK + 2 * BLOCK + BLOCK - 1]);
}

int main(void)
{
    const int n = 3 * 128 * 4;
    static int h[n];
    srand(37);
    for (int i = 0; i < n; i++) h[i] = rand() % 2001 - 1000;
    int *d_in, *d_out, *d_agg;
    CHECK(cudaMalloc(&d_in, sizeof h));
    CHECK(cudaMalloc(&d_out, 6 * sizeof h));
    CHECK(cudaMalloc(&d_agg, 64 * sizeof(int)));
    CHECK(cudaMemcpy(d_in, h, sizeof h, cudaMemcpyHostToDevice));

    check_reduce<128>(h, d_in, d_out, 77);
    check_reduce<48>(h, d_in, d_out, 40);
    check_reduce<20>(h, d_in, d_out, 13);
    check_scan<128>(h, d_in, d_out, d_agg);
    check_scan<48>(h, d_in, d_out, d_agg);
    check_scan<20>(h, d_in, d_out, d_agg);

    /* several items per thread */
    block_scan_items<<<1, 64>>>(d_in, d_out, d_out + 256);
    CHECK(cudaGetLastError());
    static int r[1024];
    CHECK(cudaMemcpy(r, d_out, 512 * sizeof(int), cudaMemcpyDeviceToHost));
    int acc = 0;
    for (int i = 0; i < 256; i++) {
        expect("BlockScan ExclusiveSum(4 items)", i, r[256 + i], acc);
        acc += h[i];
        expect("BlockScan InclusiveSum(4 items)", i, r[i], acc);
    }
    printf("BlockScan<int, 64> of 4 items each: the last inclusive sum %d\n", r[255]);

    /* a callback across 6 tiles */
    CHECK(cudaMemcpy(d_out, h, 768 * sizeof(int), cudaMemcpyHostToDevice));
    scan_tiles<<<1, 128>>>(d_out, 768);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(r, d_out, 768 * sizeof(int), cudaMemcpyDeviceToHost));
    acc = 0;
    for (int i = 0; i < 768; i++) {
        expect("BlockScan ExclusiveSum(callback)", i, r[i], acc);
        acc += h[i];
    }
    printf("BlockScan with a running-total callback over 6 tiles: the last exclusive sum %d\n", r[767]);

    /* warps */
    warp_collectives<<<1, 128>>>(d_in, d_out);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(r, d_out, 532 * sizeof(int), cudaMemcpyDeviceToHost));
    for (int w = 0; w < 4; w++) {
        int sum = 0, valid = 0, incl = 0, excl = 0;
        for (int l = 0; l < 32; l++) {
            int t = w * 32 + l;
            sum += h[t];
            if (l < 20) valid += h[t];
            expect("WarpScan ExclusiveSum", t, r[276 + t], excl);
            incl += h[t];
            excl += h[t];
            expect("WarpScan InclusiveSum", t, r[148 + t], incl);
            expect("WarpScan Broadcast(5)", t, r[404 + t], h[w * 32 + 5]);
        }
        expect("WarpReduce Sum", w, r[w * 3], sum);
        expect("WarpReduce Sum(20 valid)", w, r[w * 3 + 1], valid);
        expect("WarpScan ExclusiveSum's aggregate", w, r[w * 3 + 2], sum);
    }
    for (int hw = 0; hw < 8; hw++) {
        int m = h[hw * 16];
        for (int l = 0; l < 16; l++) m = h[hw * 16 + l] > m ? h[hw * 16 + l] : m;
        expect("WarpReduce<int, 16> Reduce(max)", hw, r[12 + hw], m);
    }
    for (int t = 0; t < 128; t++) {
        if (!(t % 32 == 0 || t % 7 == 3)) continue;
        int s = 0;
        for (int u = t; u < (t / 32 + 1) * 32; u++) {
            if (u > t && (u % 32 == 0 || u % 7 == 3)) break;
            s += h[u];
        }
        expect("WarpReduce HeadSegmentedSum", t, r[20 + t], s);
    }
    printf("WarpReduce: warp sums %d %d %d %d; WarpScan: lane 31's inclusive sum %d\n", r[0], r[3], r[6],
           r[9], r[148 + 31]);

    /* CUB's documented snippets */
    documented<<<1, 128>>>(d_out);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(r, d_out, 41 * sizeof(int), cudaMemcpyDeviceToHost));
    printf("documented BlockReduce Sum: %d\n", r[0]);
    printf("documented BlockScan ExclusiveSum, thread 127: [%d,%d,%d,%d]\n", r[1], r[2], r[3], r[4]);
    printf("documented WarpReduce Sum: %d %d %d %d\n", r[5], r[6], r[7], r[8]);
    printf("documented WarpScan InclusiveSum:");
    for (int l = 0; l < 32; l++) printf(" %d", r[9 + l]);
    printf("\n");

    printf(failures ? "%d results differ from the CPU's\n" : "every result agrees with the CPU's\n",
           failures);
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_agg);
    return failures != 0;
}
