/*
 * CUB for the CUDA simulator: cub::DeviceRadixSort, keys alone or keys with
 * values, ascending or descending, between given buffers or in a
 * DoubleBuffer, with CUB's two calls. It is a stable least-significant-digit
 * radix sort of 4 bits a pass over [begin_bit, end_bit) of the keys as CUB
 * orders them (an unsigned key as it is; a signed one with its sign bit
 * flipped; a float with its sign bit flipped when positive and every bit
 * when negative, -0.0 counting as +0.0; every bit flipped again when
 * descending), and each pass is three kernels of the simulator, named as in
 * CUB's upsweep/downsweep sort:
 *
 * - cub::DeviceRadixSortUpsweepKernel: each block counts the digits of a tile
 *   of 512 keys (shared-memory atomics) into d_temp_storage;
 * - cub::RadixSortScanBinsKernel: one block scans the counts (digit by
 *   digit, tile by tile) into each tile's first place for each digit;
 * - cub::DeviceRadixSortDownsweepKernel: each block loads its tile again
 *   (coalesced, exchanged through shared memory), ranks each key among the
 *   tile's keys of its digit (a cub::BlockScan of the threads' counts) and
 *   writes keys and values to their places.
 *
 * The passes move the data between the output and an alternate buffer in
 * d_temp_storage (between the two of a DoubleBuffer, whose selector then
 * says which holds the result), so the sort reads its input once and
 * d_keys_in is never written.
 */
#ifndef CUDASIM_CUB_RADIX_SORT_H
#define CUDASIM_CUB_RADIX_SORT_H

#include "cudasim_block_io.h"

struct __half;
struct __nv_bfloat16;

namespace cub {
namespace cudasim_detail {

template <typename K>
struct is_radix_float : std::is_floating_point<K> {
};
template <>
struct is_radix_float<__half> : std::true_type {
};
template <>
struct is_radix_float<__nv_bfloat16> : std::true_type {
};

template <int BYTES>
struct unsigned_of;
template <>
struct unsigned_of<1> {
    typedef uint8_t type;
};
template <>
struct unsigned_of<2> {
    typedef uint16_t type;
};
template <>
struct unsigned_of<4> {
    typedef uint32_t type;
};
template <>
struct unsigned_of<8> {
    typedef uint64_t type;
};

/* A key's bits in the order the sort sorts them. */
template <typename K>
struct RadixKey {
    typedef typename unsigned_of<sizeof(K)>::type U;
    static const U SIGN = (U)((U)1 << (sizeof(K) * 8 - 1));
    static_assert(std::is_arithmetic<K>::value || is_radix_float<K>::value,
                  "cub::DeviceRadixSort on the CUDA simulator sorts keys of the built-in numeric "
                  "types, __half and __nv_bfloat16 (no decomposer)");
    static CUDASIM_CUB_INLINE U bits(const K &key, bool descending)
    {
        U u;
        std::memcpy(&u, &key, sizeof u);
        if constexpr (is_radix_float<K>::value) {
            if (u == SIGN) u = 0; /* -0.0 sorts as +0.0 */
            u = (u & SIGN) ? (U)~u : (U)(u ^ SIGN);
        } else if constexpr (std::is_signed<K>::value) {
            u ^= SIGN;
        }
        return descending ? (U)~u : u;
    }
    static CUDASIM_CUB_INLINE int digit(const K &key, int bit, int nbits, bool descending)
    {
        return (int)((bits(key, descending) >> bit) & ((1u << nbits) - 1));
    }
};

static const int SORT_THREADS = 128, SORT_ITEMS = 4, SORT_TILE = SORT_THREADS * SORT_ITEMS;
static const int RADIX_BITS = 4, RADIX = 1 << RADIX_BITS;

/* One pass over bits [bit, bit + nbits). */
struct Pass {
    long long n, tiles;
    int bit, nbits;
    bool descending;
};

/* cub::DeviceRadixSortUpsweepKernel: the tile's count of each digit, into
 * counts[digit * tiles + tile]. */
template <typename K>
void DeviceRadixSortUpsweepKernel(const K *keys, unsigned *counts, Pass p)
{
    typedef unsigned Histogram[RADIX];
    CUDASIM_CUB_SHARED(Histogram, histogram);
    int tid = threadIdx.x;
    long long tile = blockIdx.x, base = tile * SORT_TILE;
    if (tid < RADIX) histogram[tid] = 0;
    __syncthreads();
    for (int i = 0; i < SORT_ITEMS; i++) {
        long long at = base + tid + (long long)i * SORT_THREADS;
        if (at < p.n) atomicAdd(&histogram[RadixKey<K>::digit(keys[at], p.bit, p.nbits, p.descending)], 1u);
    }
    __syncthreads();
    if (tid < RADIX) counts[tid * p.tiles + tile] = histogram[tid];
}

/* Running total for the scan of the counts, chunk after chunk. */
struct RunningTotal {
    unsigned total;
    CUDASIM_CUB_INLINE unsigned operator()(unsigned chunk)
    {
        unsigned before = total;
        total += chunk;
        return before;
    }
};

/* cub::RadixSortScanBinsKernel: counts[0, n) replaced by their exclusive
 * sums (one block). */
inline void RadixSortScanBinsKernel(unsigned *counts, long long n)
{
    typedef BlockScan<unsigned, SORT_THREADS> Scan;
    typedef typename Scan::TempStorage ScanTemp;
    CUDASIM_CUB_SHARED(ScanTemp, temp);
    RunningTotal running = {0};
    for (long long base = 0; base < n; base += SORT_TILE) {
        unsigned items[SORT_ITEMS];
        int valid = n - base < SORT_TILE ? (int)(n - base) : SORT_TILE;
        LoadDirectBlocked(threadIdx.x, counts + base, items, valid, 0u);
        Scan(temp).ExclusiveSum(items, items, running);
        __syncthreads();
        StoreDirectBlocked(threadIdx.x, counts + base, items, valid);
    }
}

/* cub::DeviceRadixSortDownsweepKernel: each key (and value) of the tile to
 * its place: the first place of its digit in this tile (offsets), plus the
 * keys of that digit before it in the tile. */
template <typename K, typename V>
void DeviceRadixSortDownsweepKernel(const K *keys_in, K *keys_out, const V *values_in, V *values_out,
                                    const unsigned *offsets, Pass p)
{
    typedef BlockLoad<K, SORT_THREADS, SORT_ITEMS, BLOCK_LOAD_WARP_TRANSPOSE> LoadKeys;
    typedef BlockLoad<V, SORT_THREADS, SORT_ITEMS, BLOCK_LOAD_WARP_TRANSPOSE> LoadValues;
    typedef BlockScan<unsigned, SORT_THREADS> Scan;
    typedef typename LoadKeys::TempStorage KeysTemp;
    typedef typename LoadValues::TempStorage ValuesTemp;
    typedef typename Scan::TempStorage ScanTemp;
    typedef unsigned Ranks[RADIX * SORT_THREADS]; /* [digit][thread], then their scan */
    CUDASIM_CUB_SHARED(KeysTemp, keys_temp);
    CUDASIM_CUB_SHARED(ValuesTemp, values_temp);
    CUDASIM_CUB_SHARED(ScanTemp, scan_temp);
    CUDASIM_CUB_SHARED(Ranks, ranks);
    constexpr bool pairs = !std::is_same<V, NullType>::value;
    int tid = threadIdx.x;
    long long tile = blockIdx.x, base = tile * SORT_TILE;
    int valid = p.n - base < SORT_TILE ? (int)(p.n - base) : SORT_TILE;

    K keys[SORT_ITEMS];
    V values[SORT_ITEMS];
    LoadKeys(keys_temp).Load(keys_in + base, keys, valid);
    if constexpr (pairs) LoadValues(values_temp).Load(values_in + base, values, valid);

    /* this thread's count of each digit, and each item's rank among them */
    int digit[SORT_ITEMS] = {};
    unsigned mine[RADIX] = {}, rank[SORT_ITEMS];
    for (int i = 0; i < SORT_ITEMS; i++) {
        if (tid * SORT_ITEMS + i >= valid) continue;
        digit[i] = RadixKey<K>::digit(keys[i], p.bit, p.nbits, p.descending);
        rank[i] = mine[digit[i]]++;
    }
    for (int d = 0; d < RADIX; d++) ranks[d * SORT_THREADS + tid] = mine[d];
    __syncthreads();
    unsigned scanned[RADIX];
    for (int j = 0; j < RADIX; j++) scanned[j] = ranks[tid * RADIX + j];
    Scan(scan_temp).ExclusiveSum(scanned, scanned);
    __syncthreads();
    for (int j = 0; j < RADIX; j++) ranks[tid * RADIX + j] = scanned[j];
    __syncthreads();
    for (int i = 0; i < SORT_ITEMS; i++) {
        if (tid * SORT_ITEMS + i >= valid) continue;
        int d = digit[i];
        unsigned in_tile = ranks[d * SORT_THREADS + tid] - ranks[d * SORT_THREADS] + rank[i];
        unsigned to = offsets[d * p.tiles + tile] + in_tile;
        keys_out[to] = keys[i];
        if constexpr (pairs) values_out[to] = values[i];
    }
}

/* The sort: its scratch, and its passes. keys_alt and values_alt are the
 * buffers to move the data through (NULL: in d_temp_storage); a DoubleBuffer
 * sort gives them, and selector then says where the result is. */
template <typename K, typename V>
inline cudaError_t radix_sort(void *d_temp_storage, size_t &temp_storage_bytes, const K *keys_in,
                              K *keys_out, K *keys_alt, const V *values_in, V *values_out, V *values_alt,
                              long long n, int begin_bit, int end_bit, bool descending, int *selector,
                              cudaStream_t stream)
{
    const bool pairs = !std::is_same<V, NullType>::value;
    Pass p = {n, (n + SORT_TILE - 1) / SORT_TILE, 0, 0, descending};
    Scratch scratch;
    scratch.add((p.tiles ? p.tiles : 1) * RADIX * sizeof(unsigned));
    if (!keys_alt) scratch.add((n ? n : 1) * sizeof(K));
    if (pairs && !values_alt) scratch.add((n ? n : 1) * sizeof(V));
    if (!d_temp_storage) {
        temp_storage_bytes = scratch.total();
        return cudaSuccess;
    }
    void *piece[3];
    if (cudaError_t e = scratch.carve(d_temp_storage, temp_storage_bytes, piece)) return e;
    if (n == 0) return cudaSuccess;
    unsigned *counts = static_cast<unsigned *>(piece[0]);
    int passes = end_bit > begin_bit ? (end_bit - begin_bit + RADIX_BITS - 1) / RADIX_BITS : 0;
    if (!keys_alt) {
        keys_alt = static_cast<K *>(piece[1]);
        if (pairs) values_alt = static_cast<V *>(piece[2]);
        if (passes == 0) { /* nothing to sort by: the input, copied */
            if (cudaError_t e = cudaMemcpyAsync(keys_out, keys_in, n * sizeof(K), cudaMemcpyDeviceToDevice,
                                                stream))
                return e;
            if (pairs)
                return cudaMemcpyAsync(values_out, values_in, n * sizeof(V), cudaMemcpyDeviceToDevice,
                                       stream);
            return cudaSuccess;
        }
    }
    const K *ksrc = keys_in;
    const V *vsrc = values_in;
    for (int pass = 0; pass < passes; pass++) {
        /* the last pass writes the output */
        bool to_out = (passes - 1 - pass) % 2 == 0;
        K *kdst = to_out ? keys_out : keys_alt;
        V *vdst = to_out ? values_out : values_alt;
        p.bit = begin_bit + pass * RADIX_BITS;
        p.nbits = end_bit - p.bit < RADIX_BITS ? end_bit - p.bit : RADIX_BITS;
        if (cudaError_t e = launch("cub::DeviceRadixSortUpsweepKernel", &DeviceRadixSortUpsweepKernel<K>,
                                   (unsigned)p.tiles, SORT_THREADS, stream, ksrc, counts, p))
            return e;
        if (cudaError_t e = launch("cub::RadixSortScanBinsKernel", &RadixSortScanBinsKernel, 1,
                                   SORT_THREADS, stream, counts, p.tiles * RADIX))
            return e;
        if (cudaError_t e = launch("cub::DeviceRadixSortDownsweepKernel",
                                   &DeviceRadixSortDownsweepKernel<K, V>, (unsigned)p.tiles, SORT_THREADS,
                                   stream, ksrc, kdst, vsrc, vdst, (const unsigned *)counts, p))
            return e;
        ksrc = kdst;
        vsrc = vdst;
    }
    if (selector) *selector ^= passes & 1;
    return cudaSuccess;
}

/* A DoubleBuffer's sort: from Current() to wherever the passes end. */
template <typename K, typename V>
inline cudaError_t radix_sort_double(void *d_temp_storage, size_t &temp_storage_bytes, DoubleBuffer<K> &keys,
                                     DoubleBuffer<V> *values, long long n, int begin_bit, int end_bit,
                                     bool descending, cudaStream_t stream)
{
    /* The passes end in Current() when their number is even, else in
     * Alternate(): with "out" the buffer they end in, alt the other. */
    int passes = end_bit > begin_bit ? (end_bit - begin_bit + RADIX_BITS - 1) / RADIX_BITS : 0;
    bool odd = passes & 1;
    K *kout = odd ? keys.Alternate() : keys.Current(), *kalt = odd ? keys.Current() : keys.Alternate();
    V *vout = nullptr, *valt = nullptr;
    const V *vin = nullptr;
    if (values) {
        vin = values->Current();
        vout = odd ? values->Alternate() : values->Current();
        valt = odd ? values->Current() : values->Alternate();
    }
    if (!d_temp_storage)
        return radix_sort<K, V>(nullptr, temp_storage_bytes, keys.Current(), kout, kalt, vin, vout, valt, n,
                                begin_bit, end_bit, descending, nullptr, stream);
    cudaError_t e = radix_sort<K, V>(d_temp_storage, temp_storage_bytes, keys.Current(), kout, kalt, vin,
                                     vout, valt, n, begin_bit, end_bit, descending, &keys.selector, stream);
    if (e == cudaSuccess && values && n > 0) values->selector = keys.selector;
    return e;
}

} // namespace cudasim_detail

struct DeviceRadixSort {
    template <typename KeyT, typename ValueT, typename NumItemsT>
    static cudaError_t SortPairs(void *d_temp_storage, size_t &temp_storage_bytes, const KeyT *d_keys_in,
                                 KeyT *d_keys_out, const ValueT *d_values_in, ValueT *d_values_out,
                                 NumItemsT num_items, int begin_bit = 0, int end_bit = sizeof(KeyT) * 8,
                                 cudaStream_t stream = 0)
    {
        return cudasim_detail::radix_sort<KeyT, ValueT>(d_temp_storage, temp_storage_bytes, d_keys_in,
                                                        d_keys_out, nullptr, d_values_in, d_values_out,
                                                        nullptr, (long long)num_items, begin_bit, end_bit,
                                                        false, nullptr, stream);
    }
    template <typename KeyT, typename ValueT, typename NumItemsT>
    static cudaError_t SortPairs(void *d_temp_storage, size_t &temp_storage_bytes, DoubleBuffer<KeyT> &d_keys,
                                 DoubleBuffer<ValueT> &d_values, NumItemsT num_items, int begin_bit = 0,
                                 int end_bit = sizeof(KeyT) * 8, cudaStream_t stream = 0)
    {
        return cudasim_detail::radix_sort_double<KeyT, ValueT>(d_temp_storage, temp_storage_bytes, d_keys,
                                                               &d_values, (long long)num_items, begin_bit,
                                                               end_bit, false, stream);
    }
    template <typename KeyT, typename ValueT, typename NumItemsT>
    static cudaError_t SortPairsDescending(void *d_temp_storage, size_t &temp_storage_bytes,
                                           const KeyT *d_keys_in, KeyT *d_keys_out, const ValueT *d_values_in,
                                           ValueT *d_values_out, NumItemsT num_items, int begin_bit = 0,
                                           int end_bit = sizeof(KeyT) * 8, cudaStream_t stream = 0)
    {
        return cudasim_detail::radix_sort<KeyT, ValueT>(d_temp_storage, temp_storage_bytes, d_keys_in,
                                                        d_keys_out, nullptr, d_values_in, d_values_out,
                                                        nullptr, (long long)num_items, begin_bit, end_bit,
                                                        true, nullptr, stream);
    }
    template <typename KeyT, typename ValueT, typename NumItemsT>
    static cudaError_t SortPairsDescending(void *d_temp_storage, size_t &temp_storage_bytes,
                                           DoubleBuffer<KeyT> &d_keys, DoubleBuffer<ValueT> &d_values,
                                           NumItemsT num_items, int begin_bit = 0,
                                           int end_bit = sizeof(KeyT) * 8, cudaStream_t stream = 0)
    {
        return cudasim_detail::radix_sort_double<KeyT, ValueT>(d_temp_storage, temp_storage_bytes, d_keys,
                                                               &d_values, (long long)num_items, begin_bit,
                                                               end_bit, true, stream);
    }
    template <typename KeyT, typename NumItemsT>
    static cudaError_t SortKeys(void *d_temp_storage, size_t &temp_storage_bytes, const KeyT *d_keys_in,
                                KeyT *d_keys_out, NumItemsT num_items, int begin_bit = 0,
                                int end_bit = sizeof(KeyT) * 8, cudaStream_t stream = 0)
    {
        return cudasim_detail::radix_sort<KeyT, NullType>(d_temp_storage, temp_storage_bytes, d_keys_in,
                                                          d_keys_out, nullptr, nullptr, nullptr, nullptr,
                                                          (long long)num_items, begin_bit, end_bit, false,
                                                          nullptr, stream);
    }
    template <typename KeyT, typename NumItemsT>
    static cudaError_t SortKeys(void *d_temp_storage, size_t &temp_storage_bytes, DoubleBuffer<KeyT> &d_keys,
                                NumItemsT num_items, int begin_bit = 0, int end_bit = sizeof(KeyT) * 8,
                                cudaStream_t stream = 0)
    {
        return cudasim_detail::radix_sort_double<KeyT, NullType>(d_temp_storage, temp_storage_bytes, d_keys,
                                                                 nullptr, (long long)num_items, begin_bit,
                                                                 end_bit, false, stream);
    }
    template <typename KeyT, typename NumItemsT>
    static cudaError_t SortKeysDescending(void *d_temp_storage, size_t &temp_storage_bytes,
                                          const KeyT *d_keys_in, KeyT *d_keys_out, NumItemsT num_items,
                                          int begin_bit = 0, int end_bit = sizeof(KeyT) * 8,
                                          cudaStream_t stream = 0)
    {
        return cudasim_detail::radix_sort<KeyT, NullType>(d_temp_storage, temp_storage_bytes, d_keys_in,
                                                          d_keys_out, nullptr, nullptr, nullptr, nullptr,
                                                          (long long)num_items, begin_bit, end_bit, true,
                                                          nullptr, stream);
    }
    template <typename KeyT, typename NumItemsT>
    static cudaError_t SortKeysDescending(void *d_temp_storage, size_t &temp_storage_bytes,
                                          DoubleBuffer<KeyT> &d_keys, NumItemsT num_items, int begin_bit = 0,
                                          int end_bit = sizeof(KeyT) * 8, cudaStream_t stream = 0)
    {
        return cudasim_detail::radix_sort_double<KeyT, NullType>(d_temp_storage, temp_storage_bytes, d_keys,
                                                                 nullptr, (long long)num_items, begin_bit,
                                                                 end_bit, true, stream);
    }
};

} // namespace cub

#endif /* CUDASIM_CUB_RADIX_SORT_H */
