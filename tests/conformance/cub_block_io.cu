// CUB's tile loads and stores: cub::BlockLoad and cub::BlockStore with each
// algorithm (DIRECT, STRIPED, VECTORIZE, TRANSPOSE, WARP_TRANSPOSE), whole
// tiles and a tile cut short (the guarded forms, with and without a default
// for the missing items), and cub::BlockExchange between the arrangements.
// A kernel of 64 threads, 4 items each, copies a tile and records which items
// each thread held: a blocked arrangement (thread t: items 4t ... 4t + 3) for
// every algorithm but STRIPED (thread t: items t, t + 64, ...). Checked against
// the CPU; a GPU with NVIDIA's CUB prints the same.
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

#define THREADS 64
#define ITEMS 4
#define TILE (THREADS * ITEMS)

// Copies in to out through registers; held[t * ITEMS + i] = the item thread t
// held in place i. valid < TILE: the guarded forms (missing items -1 with
// a default, else left as they were: 99).
template <cub::BlockLoadAlgorithm LOAD, cub::BlockStoreAlgorithm STORE>
__global__ void copy_tile(const int *in, int *out, int *held, int valid, bool with_default)
{
    typedef cub::BlockLoad<int, THREADS, ITEMS, LOAD> Load;
    typedef cub::BlockStore<int, THREADS, ITEMS, STORE> Store;
    __shared__ typename Load::TempStorage load_temp;
    __shared__ typename Store::TempStorage store_temp;
    int items[ITEMS] = {99, 99, 99, 99};
    if (valid == TILE)
        Load(load_temp).Load(in, items);
    else if (with_default)
        Load(load_temp).Load(in, items, valid, -1);
    else
        Load(load_temp).Load(in, items, valid);
    for (int i = 0; i < ITEMS; i++) held[threadIdx.x * ITEMS + i] = items[i];
    if (valid == TILE)
        Store(store_temp).Store(out, items);
    else
        Store(store_temp).Store(out, items, valid);
}

// BlockExchange: blocked to striped and back, and to each place by rank
// (the tile reversed).
__global__ void exchange(const int *in, int *out)
{
    typedef cub::BlockExchange<int, THREADS, ITEMS> Exchange;
    __shared__ typename Exchange::TempStorage temp;
    int items[ITEMS], striped[ITEMS], ranks[ITEMS];
    cub::LoadDirectBlocked(threadIdx.x, in, items);
    Exchange(temp).BlockedToStriped(items, striped);
    cub::StoreDirectStriped<THREADS>(threadIdx.x, out, striped);
    __syncthreads();
    Exchange(temp).StripedToBlocked(striped, items);
    cub::StoreDirectBlocked(threadIdx.x, out + TILE, items);
    __syncthreads();
    for (int i = 0; i < ITEMS; i++) ranks[i] = TILE - 1 - (threadIdx.x * ITEMS + i);
    Exchange(temp).ScatterToBlocked(items, items, ranks);
    cub::StoreDirectBlocked(threadIdx.x, out + 2 * TILE, items);
    __syncthreads();
    Exchange(temp).BlockedToWarpStriped(items, items);
    cub::StoreDirectWarpStriped(threadIdx.x, out + 3 * TILE, items);
}

static int failures = 0;

template <cub::BlockLoadAlgorithm LOAD, cub::BlockStoreAlgorithm STORE>
static void check(const char *name, bool striped, const int *h, const int *d_in, int *d_out, int *d_held,
                  int valid, bool with_default)
{
    int fill[TILE];
    for (int i = 0; i < TILE; i++) fill[i] = -7;
    CHECK(cudaMemcpy(d_out, fill, sizeof fill, cudaMemcpyHostToDevice));
    copy_tile<LOAD, STORE><<<1, THREADS>>>(d_in, d_out, d_held, valid, with_default);
    CHECK(cudaGetLastError());
    int out[TILE], held[TILE];
    CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(held, d_held, sizeof held, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int t = 0; t < THREADS; t++)
        for (int i = 0; i < ITEMS; i++) {
            int at = striped ? t + i * THREADS : t * ITEMS + i;
            int want = at < valid ? h[at] : with_default ? -1 : 99;
            if (held[t * ITEMS + i] != want && bad++ < 3)
                printf("%s: thread %d's item %d is %d, expected %d\n", name, t, i, held[t * ITEMS + i], want);
        }
    for (int k = 0; k < TILE; k++) {
        int want = k < valid ? h[k] : -7;
        if (out[k] != want && bad++ < 6) printf("%s: out[%d] = %d, expected %d\n", name, k, out[k], want);
    }
    failures += bad != 0;
    printf("%-26s %s valid %3d%s: thread 37 held %d %d %d %d%s\n", name, striped ? "striped," : "blocked,",
           valid, with_default ? " (default -1)" : "", held[148], held[149], held[150], held[151],
           bad ? " (WRONG)" : "");
}

#define BOTH(L, S, striped, h, in, out, held)                                                     \
    check<cub::L, cub::S>(#L, striped, h, in, out, held, TILE, false);                            \
    check<cub::L, cub::S>(#L, striped, h, in, out, held, 150, false);                             \
    check<cub::L, cub::S>(#L, striped, h, in, out, held, 150, true)

int main(void)
{
    int h[TILE];
    srand(11);
    for (int i = 0; i < TILE; i++) h[i] = rand() % 1000;
    int *d_in, *d_out, *d_held;
    CHECK(cudaMalloc(&d_in, sizeof h));
    CHECK(cudaMalloc(&d_out, 4 * sizeof h));
    CHECK(cudaMalloc(&d_held, sizeof h));
    CHECK(cudaMemcpy(d_in, h, sizeof h, cudaMemcpyHostToDevice));

    BOTH(BLOCK_LOAD_DIRECT, BLOCK_STORE_DIRECT, false, h, d_in, d_out, d_held);
    BOTH(BLOCK_LOAD_STRIPED, BLOCK_STORE_STRIPED, true, h, d_in, d_out, d_held);
    BOTH(BLOCK_LOAD_VECTORIZE, BLOCK_STORE_VECTORIZE, false, h, d_in, d_out, d_held);
    BOTH(BLOCK_LOAD_TRANSPOSE, BLOCK_STORE_TRANSPOSE, false, h, d_in, d_out, d_held);
    BOTH(BLOCK_LOAD_WARP_TRANSPOSE, BLOCK_STORE_WARP_TRANSPOSE, false, h, d_in, d_out, d_held);

    exchange<<<1, THREADS>>>(d_in, d_out);
    CHECK(cudaGetLastError());
    int out[4 * TILE], bad = 0;
    CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    for (int k = 0; k < TILE; k++) {
        /* striped stored striped, and blocked stored blocked: the input */
        if (out[k] != h[k] && bad++ < 3) printf("BlockedToStriped: out[%d] = %d, not %d\n", k, out[k], h[k]);
        if (out[TILE + k] != h[k] && bad++ < 3)
            printf("StripedToBlocked: out[%d] = %d, not %d\n", k, out[TILE + k], h[k]);
        if (out[2 * TILE + k] != h[TILE - 1 - k] && bad++ < 3)
            printf("ScatterToBlocked: out[%d] = %d, not %d\n", k, out[2 * TILE + k], h[TILE - 1 - k]);
        if (out[3 * TILE + k] != h[TILE - 1 - k] && bad++ < 3)
            printf("BlockedToWarpStriped: out[%d] = %d, not %d\n", k, out[3 * TILE + k], h[TILE - 1 - k]);
    }
    failures += bad != 0;
    printf("BlockExchange: blocked to striped and back, by rank, to warp-striped: %s\n",
           bad ? "WRONG" : "as the CPU's");
    printf(failures ? "%d cases differ from the CPU's\n" : "every case agrees with the CPU's\n", failures);
    cudaDeviceReset(); // frees every buffer still held, for the leak check at exit
    return failures != 0;
}
