/*
 * CUB for the CUDA simulator: the device-wide reductions and scans,
 * cub::DeviceReduce and cub::DeviceScan, with CUB's two calls: the first,
 * with d_temp_storage NULL, only sets temp_storage_bytes; the second runs,
 * in kernels of the simulator that read the input, write the output and keep
 * their partial results in d_temp_storage, so memcheck, initcheck, racecheck
 * and the profiler see every access (a d_temp_storage smaller than
 * temp_storage_bytes asked for is cudaErrorInvalidValue, as in CUB). The
 * kernels carry CUB's names:
 *
 * - DeviceReduce: cub::DeviceReduceKernel (each block reduces tiles of 1024
 *   items, 256 threads loading 4 each, coalesced, into a partial in
 *   d_temp_storage) then cub::DeviceReduceSingleTileKernel (the partials, and
 *   the initial value, into *d_out); an input of one tile takes the second
 *   alone. Floats add in this order, which is not a GPU's CUB's (its tiles
 *   and vector loads are tuned per GPU): sums may differ in the last bits.
 * - DeviceScan: cub::DeviceScanInitKernel (the tiles' status words) then
 *   cub::DeviceScanKernel, one block of 128 threads per tile of 1024 items:
 *   a tile loads its items (coalesced, then exchanged through shared
 *   memory), scans them (cub::BlockScan), takes the prefix the tile before it
 *   published (a chained scan: read with an atomic after that block's
 *   __threadfence and atomic, as CUB's decoupled look-back reads it), and
 *   publishes its own before storing.
 */
#ifndef CUDASIM_CUB_DEVICE_H
#define CUDASIM_CUB_DEVICE_H

#include "cudasim_block_io.h"

namespace cub {
namespace cudasim_detail {

/* The value an output iterator takes, or a default for void (an iterator
 * that only writes). */
template <typename It, typename Default>
struct output_value {
    typedef typename std::iterator_traits<It>::value_type raw;
    typedef typename std::conditional<std::is_void<raw>::value, Default,
                                      typename std::remove_cv<raw>::type>::type type;
};

/* ---- reductions ---- */

static const int REDUCE_THREADS = 256, REDUCE_ITEMS = 4, REDUCE_TILE = REDUCE_THREADS * REDUCE_ITEMS;
static const int REDUCE_MAX_BLOCKS = 128;

/* A block's reduction of the tiles first, first + stride, ... of d_in[0, n)
 * (each thread 4 items per tile, striped: coalesced), in thread 0. Threads
 * with no item do not count. */
template <typename AccumT, typename InputIt, typename Op, typename Transform>
CUDASIM_CUB_INLINE AccumT reduce_tiles(InputIt d_in, long long n, long long first, long long stride,
                                       Op op, Transform transform,
                                       typename BlockReduce<AccumT, REDUCE_THREADS>::TempStorage &temp)
{
    int tid = threadIdx.x;
    AccumT acc{};
    bool any = false;
    for (long long tile = first; tile * REDUCE_TILE < n; tile += stride) {
        long long base = tile * REDUCE_TILE;
        for (int i = 0; i < REDUCE_ITEMS; i++) {
            long long at = base + tid + (long long)i * REDUCE_THREADS;
            if (at < n) {
                AccumT v = transform(d_in[at]);
                acc = any ? op(acc, v) : v;
                any = true;
            }
        }
    }
    long long first_tile_items = n - first * REDUCE_TILE;
    int valid = first_tile_items < REDUCE_THREADS ? (int)first_tile_items : REDUCE_THREADS;
    return BlockReduce<AccumT, REDUCE_THREADS>(temp).Reduce(acc, op, valid);
}

struct identity_op {
    template <typename T>
    CUDASIM_CUB_INLINE T operator()(const T &v) const
    {
        return v;
    }
};

/* cub::DeviceReduceKernel: block b's partial result, into partials[b]. */
template <typename AccumT, typename InputIt, typename Op, typename Transform>
void DeviceReduceKernel(InputIt d_in, long long n, AccumT *partials, Op op, Transform transform)
{
    typedef typename BlockReduce<AccumT, REDUCE_THREADS>::TempStorage Temp;
    CUDASIM_CUB_SHARED(Temp, temp);
    AccumT total = reduce_tiles<AccumT>(d_in, n, blockIdx.x, gridDim.x, op, transform, temp);
    /* (the whole object, padding too: the next kernel copies it whole) */
    if (threadIdx.x == 0) std::memcpy(&partials[blockIdx.x], &total, sizeof total);
}

/* cub::DeviceReduceSingleTileKernel: everything into *d_out, with init
 * first (or, with empty_init, init only for an empty input). */
template <typename AccumT, typename InputIt, typename OutputIt, typename Op, typename Transform, typename InitT>
void DeviceReduceSingleTileKernel(InputIt d_in, long long n, OutputIt d_out, Op op, Transform transform,
                                  InitT init, bool empty_init)
{
    typedef typename BlockReduce<AccumT, REDUCE_THREADS>::TempStorage Temp;
    CUDASIM_CUB_SHARED(Temp, temp);
    if (n == 0) {
        if (threadIdx.x == 0) *d_out = init;
        return;
    }
    AccumT total = reduce_tiles<AccumT>(d_in, n, 0, 1, op, transform, temp);
    if (threadIdx.x == 0) *d_out = empty_init ? total : op(init, total);
}

/* A reduction of n items: its scratch, and its kernels. */
template <typename AccumT, typename InputIt, typename OutputIt, typename Op, typename Transform, typename InitT>
inline cudaError_t reduce(void *d_temp_storage, size_t &temp_storage_bytes, InputIt d_in, OutputIt d_out,
                          long long n, Op op, Transform transform, InitT init, bool empty_init,
                          cudaStream_t stream)
{
    long long tiles = (n + REDUCE_TILE - 1) / REDUCE_TILE;
    int blocks = tiles > REDUCE_MAX_BLOCKS ? REDUCE_MAX_BLOCKS : (int)tiles;
    Scratch scratch;
    scratch.add(blocks > 1 ? blocks * sizeof(AccumT) : 1);
    if (!d_temp_storage) {
        temp_storage_bytes = scratch.total();
        return cudaSuccess;
    }
    void *piece[1];
    if (cudaError_t e = scratch.carve(d_temp_storage, temp_storage_bytes, piece)) return e;
    if (blocks <= 1)
        return launch("cub::DeviceReduceSingleTileKernel",
                      &DeviceReduceSingleTileKernel<AccumT, InputIt, OutputIt, Op, Transform, InitT>, 1,
                      REDUCE_THREADS, stream, d_in, n, d_out, op, transform, init, empty_init);
    AccumT *partials = static_cast<AccumT *>(piece[0]);
    if (cudaError_t e = launch("cub::DeviceReduceKernel",
                               &DeviceReduceKernel<AccumT, InputIt, Op, Transform>, blocks,
                               REDUCE_THREADS, stream, d_in, n, partials, op, transform))
        return e;
    return launch("cub::DeviceReduceSingleTileKernel",
                  &DeviceReduceSingleTileKernel<AccumT, AccumT *, OutputIt, Op, identity_op, InitT>, 1,
                  REDUCE_THREADS, stream, partials, (long long)blocks, d_out, op, identity_op(), init,
                  empty_init);
}

/* ArgMin and ArgMax: (index, value) pairs, the first extreme's index kept. */
template <typename Off, typename T, bool MAX>
struct arg_op {
    CUDASIM_CUB_INLINE KeyValuePair<Off, T> operator()(const KeyValuePair<Off, T> &a,
                                                       const KeyValuePair<Off, T> &b) const
    {
        bool take_b = MAX ? (a.value < b.value || (!(b.value < a.value) && b.key < a.key))
                          : (b.value < a.value || (!(a.value < b.value) && b.key < a.key));
        return take_b ? b : a;
    }
};
/* The input as (index, value) pairs. */
template <typename It, typename Off, typename T>
struct ArgIndexIterator {
    typedef std::random_access_iterator_tag iterator_category;
    typedef KeyValuePair<Off, T> value_type;
    typedef std::ptrdiff_t difference_type;
    typedef const value_type *pointer;
    typedef value_type reference;
    It it;
    CUDASIM_CUB_INLINE value_type operator[](long long i) const { return value_type((Off)i, (T)it[i]); }
};
/* Writes a pair's value to one iterator and its index to another. */
template <typename ValueIt, typename IndexIt>
struct SplitPairOutput {
    ValueIt value;
    IndexIt index;
    template <typename P>
    CUDASIM_CUB_INLINE SplitPairOutput &operator=(const P &p)
    {
        *value = p.value;
        *index = p.key;
        return *this;
    }
    CUDASIM_CUB_INLINE SplitPairOutput &operator*() { return *this; }
};

/* ---- scans ---- */

static const int SCAN_THREADS = 128, SCAN_ITEMS = 8, SCAN_TILE = SCAN_THREADS * SCAN_ITEMS;

/* cub::DeviceScanInitKernel: no tile has published its prefix yet. */
inline void DeviceScanInitKernel(unsigned *status, long long tiles)
{
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < tiles) status[t] = 0;
}

/* A tile publishes its inclusive prefix: the value, a __threadfence, then
 * its status word, with an atomic. */
template <typename AccumT>
CUDASIM_CUB_INLINE void publish(unsigned *status, AccumT *prefixes, long long tile, const AccumT &v)
{
    prefixes[tile] = v;
    __threadfence();
    atomicExch(&status[tile], 1u);
}

/* The prefix of the tiles before this one, for BlockScan's callback (called
 * by the first warp; lane 0 does the work): it waits for the tile before to
 * publish its inclusive prefix (tile 0 starts from init), then publishes its
 * own. */
template <typename AccumT, typename Op>
struct TilePrefix {
    unsigned *status;
    AccumT *prefixes;
    long long tile;
    Op op;
    AccumT init;
    CUDASIM_CUB_INLINE AccumT operator()(const AccumT &aggregate)
    {
        if (LaneId() != 0) return aggregate;
        AccumT before = init;
        if (tile > 0) {
            while (atomicAdd(&status[tile - 1], 0u) == 0) {
            }
            before = prefixes[tile - 1];
        }
        publish(status, prefixes, tile, op(before, aggregate));
        return before;
    }
};

/* cub::DeviceScanKernel: tile blockIdx.x of d_in[0, n) scanned into d_out. */
template <typename AccumT, bool INCLUSIVE, typename InputIt, typename OutputIt, typename Op>
void DeviceScanKernel(InputIt d_in, OutputIt d_out, long long n, Op op, AccumT init,
                      unsigned *status, AccumT *prefixes)
{
    typedef BlockLoad<AccumT, SCAN_THREADS, SCAN_ITEMS, BLOCK_LOAD_WARP_TRANSPOSE> Load;
    typedef BlockScan<AccumT, SCAN_THREADS, BLOCK_SCAN_WARP_SCANS> Scan;
    typedef BlockStore<AccumT, SCAN_THREADS, SCAN_ITEMS, BLOCK_STORE_WARP_TRANSPOSE> Store;
    typedef typename Load::TempStorage LoadTemp;
    typedef typename Scan::TempStorage ScanTemp;
    typedef typename Store::TempStorage StoreTemp;
    CUDASIM_CUB_SHARED(LoadTemp, load_temp);
    CUDASIM_CUB_SHARED(ScanTemp, scan_temp);
    CUDASIM_CUB_SHARED(StoreTemp, store_temp);
    long long tile = blockIdx.x, base = tile * SCAN_TILE;
    int valid = n - base < SCAN_TILE ? (int)(n - base) : SCAN_TILE;
    AccumT items[SCAN_ITEMS];
    if (valid == SCAN_TILE)
        Load(load_temp).Load(d_in + base, items);
    else
        Load(load_temp).Load(d_in + base, items, valid, (AccumT)d_in[base]);
    TilePrefix<AccumT, Op> prefix = {status, prefixes, tile, op, init};
    if (INCLUSIVE && tile == 0) {
        /* (the first tile of an inclusive scan: no prefix) */
        AccumT aggregate;
        Scan(scan_temp).InclusiveScan(items, items, op, aggregate);
        if (threadIdx.x == 0) publish(status, prefixes, tile, aggregate);
    } else if (INCLUSIVE) {
        Scan(scan_temp).InclusiveScan(items, items, op, prefix);
    } else {
        Scan(scan_temp).ExclusiveScan(items, items, op, prefix);
    }
    if (valid == SCAN_TILE)
        Store(store_temp).Store(d_out + base, items);
    else
        Store(store_temp).Store(d_out + base, items, valid);
}

template <typename AccumT, bool INCLUSIVE, typename InputIt, typename OutputIt, typename Op>
inline cudaError_t scan(void *d_temp_storage, size_t &temp_storage_bytes, InputIt d_in, OutputIt d_out,
                        long long n, Op op, AccumT init, cudaStream_t stream)
{
    long long tiles = (n + SCAN_TILE - 1) / SCAN_TILE;
    Scratch scratch;
    scratch.add((tiles ? tiles : 1) * sizeof(unsigned));
    scratch.add((tiles ? tiles : 1) * sizeof(AccumT));
    if (!d_temp_storage) {
        temp_storage_bytes = scratch.total();
        return cudaSuccess;
    }
    void *piece[2];
    if (cudaError_t e = scratch.carve(d_temp_storage, temp_storage_bytes, piece)) return e;
    if (n == 0) return cudaSuccess;
    unsigned *status = static_cast<unsigned *>(piece[0]);
    AccumT *prefixes = static_cast<AccumT *>(piece[1]);
    if (cudaError_t e = launch("cub::DeviceScanInitKernel", &DeviceScanInitKernel,
                               (unsigned)((tiles + 127) / 128), 128, stream, status, tiles))
        return e;
    return launch("cub::DeviceScanKernel", &DeviceScanKernel<AccumT, INCLUSIVE, InputIt, OutputIt, Op>,
                  (unsigned)tiles, SCAN_THREADS, stream, d_in, d_out, n, op, init, status,
                  prefixes);
}

} // namespace cudasim_detail

struct DeviceReduce {
    template <typename InputIt, typename OutputIt, typename NumItemsT, typename ReductionOpT, typename T>
    static cudaError_t Reduce(void *d_temp_storage, size_t &temp_storage_bytes, InputIt d_in,
                              OutputIt d_out, NumItemsT num_items, ReductionOpT reduction_op, T init,
                              cudaStream_t stream = 0)
    {
        return cudasim_detail::reduce<T>(d_temp_storage, temp_storage_bytes, d_in, d_out,
                                         (long long)num_items, reduction_op,
                                         cudasim_detail::identity_op(), init, false, stream);
    }
    template <typename InputIt, typename OutputIt, typename NumItemsT>
    static cudaError_t Sum(void *d_temp_storage, size_t &temp_storage_bytes, InputIt d_in, OutputIt d_out,
                           NumItemsT num_items, cudaStream_t stream = 0)
    {
        typedef typename cudasim_detail::value_of<InputIt>::type In;
        typedef typename cudasim_detail::output_value<OutputIt, In>::type Out;
        return cudasim_detail::reduce<Out>(d_temp_storage, temp_storage_bytes, d_in, d_out,
                                           (long long)num_items, cudasim_detail::sum_op(),
                                           cudasim_detail::identity_op(), Out{}, false, stream);
    }
    template <typename InputIt, typename OutputIt, typename NumItemsT>
    static cudaError_t Max(void *d_temp_storage, size_t &temp_storage_bytes, InputIt d_in, OutputIt d_out,
                           NumItemsT num_items, cudaStream_t stream = 0)
    {
        typedef typename cudasim_detail::value_of<InputIt>::type In;
        return cudasim_detail::reduce<In>(d_temp_storage, temp_storage_bytes, d_in, d_out,
                                          (long long)num_items, cudasim_detail::max_op(),
                                          cudasim_detail::identity_op(), std::numeric_limits<In>::lowest(),
                                          false, stream);
    }
    template <typename InputIt, typename OutputIt, typename NumItemsT>
    static cudaError_t Min(void *d_temp_storage, size_t &temp_storage_bytes, InputIt d_in, OutputIt d_out,
                           NumItemsT num_items, cudaStream_t stream = 0)
    {
        typedef typename cudasim_detail::value_of<InputIt>::type In;
        return cudasim_detail::reduce<In>(d_temp_storage, temp_storage_bytes, d_in, d_out,
                                          (long long)num_items, cudasim_detail::min_op(),
                                          cudasim_detail::identity_op(), std::numeric_limits<In>::max(),
                                          false, stream);
    }
    template <typename InputIt, typename OutputIt, typename NumItemsT, typename ReductionOpT,
              typename TransformOpT, typename T>
    static cudaError_t TransformReduce(void *d_temp_storage, size_t &temp_storage_bytes, InputIt d_in,
                                       OutputIt d_out, NumItemsT num_items, ReductionOpT reduction_op,
                                       TransformOpT transform_op, T init, cudaStream_t stream = 0)
    {
        return cudasim_detail::reduce<T>(d_temp_storage, temp_storage_bytes, d_in, d_out,
                                         (long long)num_items, reduction_op, transform_op, init, false,
                                         stream);
    }
    /* The greatest item and the index of its first occurrence. */
    template <typename InputIt, typename ExtremumOutIt, typename IndexOutIt>
    static cudaError_t ArgMax(void *d_temp_storage, size_t &temp_storage_bytes, InputIt d_in,
                              ExtremumOutIt d_max_out, IndexOutIt d_index_out, long long num_items,
                              cudaStream_t stream = 0)
    {
        return arg<true>(d_temp_storage, temp_storage_bytes, d_in, d_max_out, d_index_out, num_items,
                         stream);
    }
    template <typename InputIt, typename ExtremumOutIt, typename IndexOutIt>
    static cudaError_t ArgMin(void *d_temp_storage, size_t &temp_storage_bytes, InputIt d_in,
                              ExtremumOutIt d_min_out, IndexOutIt d_index_out, long long num_items,
                              cudaStream_t stream = 0)
    {
        return arg<false>(d_temp_storage, temp_storage_bytes, d_in, d_min_out, d_index_out, num_items,
                          stream);
    }
    /* The older form: one KeyValuePair<int, T> (index, value). */
    template <typename InputIt, typename OutputIt>
    static cudaError_t ArgMax(void *d_temp_storage, size_t &temp_storage_bytes, InputIt d_in,
                              OutputIt d_out, int num_items, cudaStream_t stream = 0)
    {
        return arg_pair<true>(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, stream);
    }
    template <typename InputIt, typename OutputIt>
    static cudaError_t ArgMin(void *d_temp_storage, size_t &temp_storage_bytes, InputIt d_in,
                              OutputIt d_out, int num_items, cudaStream_t stream = 0)
    {
        return arg_pair<false>(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, stream);
    }

  private:
    template <bool MAX, typename InputIt, typename ValueOutIt, typename IndexOutIt>
    static cudaError_t arg(void *d_temp_storage, size_t &temp_storage_bytes, InputIt d_in,
                           ValueOutIt d_value_out, IndexOutIt d_index_out, long long num_items,
                           cudaStream_t stream)
    {
        typedef typename cudasim_detail::value_of<InputIt>::type T;
        typedef KeyValuePair<long long, T> Pair;
        cudasim_detail::ArgIndexIterator<InputIt, long long, T> in = {d_in};
        cudasim_detail::SplitPairOutput<ValueOutIt, IndexOutIt> out = {d_value_out, d_index_out};
        Pair empty(1, MAX ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max());
        return cudasim_detail::reduce<Pair>(d_temp_storage, temp_storage_bytes, in, out, num_items,
                                            cudasim_detail::arg_op<long long, T, MAX>(),
                                            cudasim_detail::identity_op(), empty, true, stream);
    }
    template <bool MAX, typename InputIt, typename OutputIt>
    static cudaError_t arg_pair(void *d_temp_storage, size_t &temp_storage_bytes, InputIt d_in,
                                OutputIt d_out, int num_items, cudaStream_t stream)
    {
        typedef typename cudasim_detail::value_of<InputIt>::type In;
        typedef typename cudasim_detail::output_value<OutputIt, KeyValuePair<int, In>>::type Pair;
        typedef typename Pair::Value T;
        cudasim_detail::ArgIndexIterator<InputIt, int, T> in = {d_in};
        Pair empty(1, MAX ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max());
        return cudasim_detail::reduce<Pair>(d_temp_storage, temp_storage_bytes, in, d_out,
                                            (long long)num_items, cudasim_detail::arg_op<int, T, MAX>(),
                                            cudasim_detail::identity_op(), empty, true, stream);
    }
};

struct DeviceScan {
    template <typename InputIt, typename OutputIt, typename NumItemsT>
    static cudaError_t InclusiveSum(void *d_temp_storage, size_t &temp_storage_bytes, InputIt d_in,
                                    OutputIt d_out, NumItemsT num_items, cudaStream_t stream = 0)
    {
        typedef typename cudasim_detail::value_of<InputIt>::type T;
        return cudasim_detail::scan<T, true>(d_temp_storage, temp_storage_bytes, d_in, d_out,
                                             (long long)num_items, cudasim_detail::sum_op(), T{},
                                             stream);
    }
    template <typename It, typename NumItemsT>
    static cudaError_t InclusiveSum(void *d_temp_storage, size_t &temp_storage_bytes, It d_data,
                                    NumItemsT num_items, cudaStream_t stream = 0)
    {
        return InclusiveSum(d_temp_storage, temp_storage_bytes, d_data, d_data, num_items, stream);
    }
    template <typename InputIt, typename OutputIt, typename NumItemsT>
    static cudaError_t ExclusiveSum(void *d_temp_storage, size_t &temp_storage_bytes, InputIt d_in,
                                    OutputIt d_out, NumItemsT num_items, cudaStream_t stream = 0)
    {
        typedef typename cudasim_detail::value_of<InputIt>::type T;
        return cudasim_detail::scan<T, false>(d_temp_storage, temp_storage_bytes, d_in, d_out,
                                              (long long)num_items, cudasim_detail::sum_op(), T{},
                                              stream);
    }
    template <typename It, typename NumItemsT>
    static cudaError_t ExclusiveSum(void *d_temp_storage, size_t &temp_storage_bytes, It d_data,
                                    NumItemsT num_items, cudaStream_t stream = 0)
    {
        return ExclusiveSum(d_temp_storage, temp_storage_bytes, d_data, d_data, num_items, stream);
    }
    template <typename InputIt, typename OutputIt, typename ScanOpT, typename NumItemsT>
    static cudaError_t InclusiveScan(void *d_temp_storage, size_t &temp_storage_bytes, InputIt d_in,
                                     OutputIt d_out, ScanOpT scan_op, NumItemsT num_items,
                                     cudaStream_t stream = 0)
    {
        typedef typename cudasim_detail::value_of<InputIt>::type T;
        return cudasim_detail::scan<T, true>(d_temp_storage, temp_storage_bytes, d_in, d_out,
                                             (long long)num_items, scan_op, T{}, stream);
    }
    template <typename It, typename ScanOpT, typename NumItemsT>
    static cudaError_t InclusiveScan(void *d_temp_storage, size_t &temp_storage_bytes, It d_data,
                                     ScanOpT scan_op, NumItemsT num_items, cudaStream_t stream = 0)
    {
        return InclusiveScan(d_temp_storage, temp_storage_bytes, d_data, d_data, scan_op, num_items, stream);
    }
    template <typename InputIt, typename OutputIt, typename ScanOpT, typename InitValueT, typename NumItemsT>
    static cudaError_t ExclusiveScan(void *d_temp_storage, size_t &temp_storage_bytes, InputIt d_in,
                                     OutputIt d_out, ScanOpT scan_op, InitValueT init_value,
                                     NumItemsT num_items, cudaStream_t stream = 0)
    {
        return cudasim_detail::scan<InitValueT, false>(d_temp_storage, temp_storage_bytes, d_in, d_out,
                                                       (long long)num_items, scan_op, init_value,
                                                       stream);
    }
    template <typename It, typename ScanOpT, typename InitValueT, typename NumItemsT>
    static cudaError_t ExclusiveScan(void *d_temp_storage, size_t &temp_storage_bytes, It d_data,
                                     ScanOpT scan_op, InitValueT init_value, NumItemsT num_items,
                                     cudaStream_t stream = 0)
    {
        return ExclusiveScan(d_temp_storage, temp_storage_bytes, d_data, d_data, scan_op, init_value,
                             num_items, stream);
    }
};

} // namespace cub

#endif /* CUDASIM_CUB_DEVICE_H */
