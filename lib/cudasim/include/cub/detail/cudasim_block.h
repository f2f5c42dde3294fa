/*
 * CUB for the CUDA simulator: the block-wide collectives cub::BlockReduce and
 * cub::BlockScan. Both work as CUB's warp-based algorithms do
 * (BLOCK_REDUCE_WARP_REDUCTIONS, BLOCK_SCAN_WARP_SCANS), whatever algorithm
 * the template names:
 *
 * - BlockReduce: each warp reduces its inputs by shuffles (cudasim_warp.h),
 *   lane 0 of each warp writes the warp's total to TempStorage, a
 *   __syncthreads, and thread 0 adds the warps' totals in order. The result
 *   is thread 0's; the others get partial values, as in CUB.
 * - BlockScan: each warp scans by shuffles, its last lane writes the warp's
 *   total to TempStorage, a __syncthreads, and each thread adds the totals
 *   of the warps before its own, in order.
 *
 * TempStorage is the __shared__ variable the program declares (or, for the
 * constructor without one, a __shared__ variable of the collective's own):
 * every read and write of it is the program's, at its line, so using the
 * same TempStorage twice without a __syncthreads() between is a data race
 * that racecheck reports, as on a GPU it is one. Integer results are CUB's
 * exactly; a float reduction adds in CUB's warp-reduction order (a GPU's
 * bits), a float scan in this order (CUB's raking scan, its default, may
 * round otherwise).
 */
#ifndef CUDASIM_CUB_BLOCK_H
#define CUDASIM_CUB_BLOCK_H

#include "cudasim_warp.h"

namespace cub {

enum BlockReduceAlgorithm {
    BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY,
    BLOCK_REDUCE_RAKING,
    BLOCK_REDUCE_WARP_REDUCTIONS,
};

enum BlockScanAlgorithm {
    BLOCK_SCAN_RAKING,
    BLOCK_SCAN_RAKING_MEMOIZE,
    BLOCK_SCAN_WARP_SCANS,
};

namespace cudasim_detail {

/* A block collective's own __shared__ storage (the constructors without
 * TempStorage): one per type, as CUB's PrivateStorage() is. */
template <typename S>
CUDASIM_CUB_INLINE S &private_storage(const char *what, const Site &s)
{
    static cudasim::SharedSlot slot;
    return cudasim::shared_var<S>(slot, 0, what, s.file, s.line);
}

/* The thread's place in a block of BLOCK_THREADS, and its warp's lanes. */
template <int BLOCK_THREADS>
struct BlockPlace {
    static const int WARPS = (BLOCK_THREADS + 31) / 32;
    int tid, warp, lane, warp_lanes; /* warp_lanes: the threads of its warp */
    CUDASIM_CUB_INLINE explicit BlockPlace(int linear_tid)
        : tid(linear_tid), warp(linear_tid / 32), lane(linear_tid % 32),
          warp_lanes(BLOCK_THREADS - warp * 32 < 32 ? BLOCK_THREADS - warp * 32 : 32)
    {
    }
};

} // namespace cudasim_detail

template <typename T, int BLOCK_DIM_X, BlockReduceAlgorithm ALGORITHM = BLOCK_REDUCE_WARP_REDUCTIONS,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class BlockReduce {
    static const int BLOCK_THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
    typedef cudasim_detail::BlockPlace<BLOCK_THREADS> Place;

  public:
    struct TempStorage {
        T warp_aggregates[Place::WARPS];
    };
    typedef cudasim_detail::Site Site;

    CUDASIM_CUB_INLINE BlockReduce(Site s = Site())
        : temp_(cudasim_detail::private_storage<TempStorage>("cub::BlockReduce's TempStorage", s)),
          place_(RowMajorTid(BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z))
    {
    }
    CUDASIM_CUB_INLINE BlockReduce(TempStorage &temp_storage)
        : temp_(temp_storage), place_(RowMajorTid(BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z))
    {
    }

    /* The block's sum, in thread 0. */
    CUDASIM_CUB_INLINE T Sum(T input, Site s = Site())
    {
        return reduce(input, cudasim_detail::sum_op(), BLOCK_THREADS, s);
    }
    template <int ITEMS_PER_THREAD>
    CUDASIM_CUB_INLINE T Sum(T (&inputs)[ITEMS_PER_THREAD], Site s = Site())
    {
        return reduce(cudasim_detail::thread_reduce(inputs, cudasim_detail::sum_op()),
                      cudasim_detail::sum_op(), BLOCK_THREADS, s);
    }
    /* The sum of the first num_valid threads' inputs, in thread 0. */
    CUDASIM_CUB_INLINE T Sum(T input, int num_valid, Site s = Site())
    {
        return reduce(input, cudasim_detail::sum_op(), num_valid, s);
    }
    template <typename ReductionOp>
    CUDASIM_CUB_INLINE T Reduce(T input, ReductionOp reduction_op, Site s = Site())
    {
        return reduce(input, reduction_op, BLOCK_THREADS, s);
    }
    template <int ITEMS_PER_THREAD, typename ReductionOp>
    CUDASIM_CUB_INLINE T Reduce(T (&inputs)[ITEMS_PER_THREAD], ReductionOp reduction_op,
                                Site s = Site())
    {
        return reduce(cudasim_detail::thread_reduce(inputs, reduction_op), reduction_op,
                      BLOCK_THREADS, s);
    }
    template <typename ReductionOp>
    CUDASIM_CUB_INLINE T Reduce(T input, ReductionOp reduction_op, int num_valid, Site s = Site())
    {
        return reduce(input, reduction_op, num_valid, s);
    }

  private:
    TempStorage &temp_;
    Place place_;

    template <typename Op>
    CUDASIM_CUB_INLINE T reduce(T input, Op op, int num_valid, const Site &s)
    {
        const bool full = num_valid >= BLOCK_THREADS;
        int warp_valid = full ? place_.warp_lanes : num_valid - place_.warp * 32;
        if (warp_valid > place_.warp_lanes) warp_valid = place_.warp_lanes;
        int last = warp_valid - 1;
        T total = cudasim_detail::warp_reduce<32>(input, op, [last](int) { return last; }, s);
        if (place_.lane == 0) temp_.warp_aggregates[place_.warp] = total;
        cudasim_detail::sync_block(s);
        if (place_.tid == 0)
            for (int w = 1; w < Place::WARPS; w++)
                if (full || w * 32 < num_valid) total = op(total, temp_.warp_aggregates[w]);
        return total;
    }
};

template <typename T, int BLOCK_DIM_X, BlockScanAlgorithm ALGORITHM = BLOCK_SCAN_RAKING,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class BlockScan {
    static const int BLOCK_THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
    typedef cudasim_detail::BlockPlace<BLOCK_THREADS> Place;
    typedef cudasim_detail::sum_op Plus;

  public:
    struct TempStorage {
        T warp_aggregates[Place::WARPS];
        T block_prefix;
    };
    typedef cudasim_detail::Site Site;

    CUDASIM_CUB_INLINE BlockScan(Site s = Site())
        : temp_(cudasim_detail::private_storage<TempStorage>("cub::BlockScan's TempStorage", s)),
          place_(RowMajorTid(BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z))
    {
    }
    CUDASIM_CUB_INLINE BlockScan(TempStorage &temp_storage)
        : temp_(temp_storage), place_(RowMajorTid(BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z))
    {
    }

    /* ---- one item per thread ---- */
    CUDASIM_CUB_INLINE void InclusiveSum(T input, T &output, Site s = Site())
    {
        T aggregate;
        one(input, output, aggregate, Plus(), INCLUSIVE, T{}, none(), s);
    }
    CUDASIM_CUB_INLINE void InclusiveSum(T input, T &output, T &block_aggregate, Site s = Site())
    {
        one(input, output, block_aggregate, Plus(), INCLUSIVE, T{}, none(), s);
    }
    template <typename PrefixOp>
    CUDASIM_CUB_INLINE void InclusiveSum(T input, T &output, PrefixOp &block_prefix_callback_op,
                                         Site s = Site())
    {
        T aggregate;
        one(input, output, aggregate, Plus(), INCLUSIVE, T{}, &block_prefix_callback_op, s);
    }
    CUDASIM_CUB_INLINE void ExclusiveSum(T input, T &output, Site s = Site())
    {
        T aggregate;
        one(input, output, aggregate, Plus(), EXCLUSIVE_INIT, T{}, none(), s);
    }
    CUDASIM_CUB_INLINE void ExclusiveSum(T input, T &output, T &block_aggregate, Site s = Site())
    {
        one(input, output, block_aggregate, Plus(), EXCLUSIVE_INIT, T{}, none(), s);
    }
    template <typename PrefixOp>
    CUDASIM_CUB_INLINE void ExclusiveSum(T input, T &output, PrefixOp &block_prefix_callback_op,
                                         Site s = Site())
    {
        T aggregate;
        one(input, output, aggregate, Plus(), EXCLUSIVE, T{}, &block_prefix_callback_op, s);
    }
    template <typename ScanOp>
    CUDASIM_CUB_INLINE void InclusiveScan(T input, T &output, ScanOp scan_op, Site s = Site())
    {
        T aggregate;
        one(input, output, aggregate, scan_op, INCLUSIVE, T{}, none(), s);
    }
    template <typename ScanOp>
    CUDASIM_CUB_INLINE void InclusiveScan(T input, T &output, ScanOp scan_op, T &block_aggregate,
                                          Site s = Site())
    {
        one(input, output, block_aggregate, scan_op, INCLUSIVE, T{}, none(), s);
    }
    template <typename ScanOp, typename PrefixOp,
              typename = typename std::enable_if<!std::is_same<PrefixOp, T>::value>::type>
    CUDASIM_CUB_INLINE void InclusiveScan(T input, T &output, ScanOp scan_op,
                                          PrefixOp &block_prefix_callback_op, Site s = Site())
    {
        T aggregate;
        one(input, output, aggregate, scan_op, INCLUSIVE, T{}, &block_prefix_callback_op, s);
    }
    /* Without an initial value, thread 0's output is undefined (CUB's
     * words); here it is its input. */
    template <typename ScanOp>
    CUDASIM_CUB_INLINE void ExclusiveScan(T input, T &output, ScanOp scan_op, Site s = Site())
    {
        T aggregate;
        one(input, output, aggregate, scan_op, EXCLUSIVE, T{}, none(), s);
    }
    template <typename ScanOp>
    CUDASIM_CUB_INLINE void ExclusiveScan(T input, T &output, T initial_value, ScanOp scan_op,
                                          Site s = Site())
    {
        T aggregate;
        one(input, output, aggregate, scan_op, EXCLUSIVE_INIT, initial_value, none(), s);
    }
    template <typename ScanOp>
    CUDASIM_CUB_INLINE void ExclusiveScan(T input, T &output, T initial_value, ScanOp scan_op,
                                          T &block_aggregate, Site s = Site())
    {
        one(input, output, block_aggregate, scan_op, EXCLUSIVE_INIT, initial_value, none(), s);
    }
    template <typename ScanOp, typename PrefixOp,
              typename = typename std::enable_if<!std::is_same<PrefixOp, T>::value>::type>
    CUDASIM_CUB_INLINE void ExclusiveScan(T input, T &output, ScanOp scan_op,
                                          PrefixOp &block_prefix_callback_op, Site s = Site())
    {
        T aggregate;
        one(input, output, aggregate, scan_op, EXCLUSIVE, T{}, &block_prefix_callback_op, s);
    }

    /* ---- ITEMS_PER_THREAD items per thread (a blocked arrangement) ---- */
    template <int N>
    CUDASIM_CUB_INLINE void InclusiveSum(T (&input)[N], T (&output)[N], Site s = Site())
    {
        T aggregate;
        many(input, output, aggregate, Plus(), INCLUSIVE, T{}, none(), s);
    }
    template <int N>
    CUDASIM_CUB_INLINE void InclusiveSum(T (&input)[N], T (&output)[N], T &block_aggregate,
                                         Site s = Site())
    {
        many(input, output, block_aggregate, Plus(), INCLUSIVE, T{}, none(), s);
    }
    template <int N, typename PrefixOp>
    CUDASIM_CUB_INLINE void InclusiveSum(T (&input)[N], T (&output)[N],
                                         PrefixOp &block_prefix_callback_op, Site s = Site())
    {
        T aggregate;
        many(input, output, aggregate, Plus(), INCLUSIVE, T{}, &block_prefix_callback_op, s);
    }
    template <int N>
    CUDASIM_CUB_INLINE void ExclusiveSum(T (&input)[N], T (&output)[N], Site s = Site())
    {
        T aggregate;
        many(input, output, aggregate, Plus(), EXCLUSIVE_INIT, T{}, none(), s);
    }
    template <int N>
    CUDASIM_CUB_INLINE void ExclusiveSum(T (&input)[N], T (&output)[N], T &block_aggregate,
                                         Site s = Site())
    {
        many(input, output, block_aggregate, Plus(), EXCLUSIVE_INIT, T{}, none(), s);
    }
    template <int N, typename PrefixOp>
    CUDASIM_CUB_INLINE void ExclusiveSum(T (&input)[N], T (&output)[N],
                                         PrefixOp &block_prefix_callback_op, Site s = Site())
    {
        T aggregate;
        many(input, output, aggregate, Plus(), EXCLUSIVE, T{}, &block_prefix_callback_op, s);
    }
    template <int N, typename ScanOp>
    CUDASIM_CUB_INLINE void InclusiveScan(T (&input)[N], T (&output)[N], ScanOp scan_op,
                                          Site s = Site())
    {
        T aggregate;
        many(input, output, aggregate, scan_op, INCLUSIVE, T{}, none(), s);
    }
    template <int N, typename ScanOp>
    CUDASIM_CUB_INLINE void InclusiveScan(T (&input)[N], T (&output)[N], ScanOp scan_op,
                                          T &block_aggregate, Site s = Site())
    {
        many(input, output, block_aggregate, scan_op, INCLUSIVE, T{}, none(), s);
    }
    template <int N, typename ScanOp, typename PrefixOp,
              typename = typename std::enable_if<!std::is_same<PrefixOp, T>::value>::type>
    CUDASIM_CUB_INLINE void InclusiveScan(T (&input)[N], T (&output)[N], ScanOp scan_op,
                                          PrefixOp &block_prefix_callback_op, Site s = Site())
    {
        T aggregate;
        many(input, output, aggregate, scan_op, INCLUSIVE, T{}, &block_prefix_callback_op, s);
    }
    template <int N, typename ScanOp>
    CUDASIM_CUB_INLINE void ExclusiveScan(T (&input)[N], T (&output)[N], ScanOp scan_op,
                                          Site s = Site())
    {
        T aggregate;
        many(input, output, aggregate, scan_op, EXCLUSIVE, T{}, none(), s);
    }
    template <int N, typename ScanOp>
    CUDASIM_CUB_INLINE void ExclusiveScan(T (&input)[N], T (&output)[N], T initial_value,
                                          ScanOp scan_op, Site s = Site())
    {
        T aggregate;
        many(input, output, aggregate, scan_op, EXCLUSIVE_INIT, initial_value, none(), s);
    }
    template <int N, typename ScanOp>
    CUDASIM_CUB_INLINE void ExclusiveScan(T (&input)[N], T (&output)[N], T initial_value,
                                          ScanOp scan_op, T &block_aggregate, Site s = Site())
    {
        many(input, output, block_aggregate, scan_op, EXCLUSIVE_INIT, initial_value, none(), s);
    }
    template <int N, typename ScanOp, typename PrefixOp,
              typename = typename std::enable_if<!std::is_same<PrefixOp, T>::value>::type>
    CUDASIM_CUB_INLINE void ExclusiveScan(T (&input)[N], T (&output)[N], ScanOp scan_op,
                                          PrefixOp &block_prefix_callback_op, Site s = Site())
    {
        T aggregate;
        many(input, output, aggregate, scan_op, EXCLUSIVE, T{}, &block_prefix_callback_op, s);
    }

  private:
    TempStorage &temp_;
    Place place_;

    /* What a scan gives: the inclusive scan, the exclusive one without an
     * initial value (thread 0: undefined, a callback's prefix if there is
     * one), or the exclusive one from an initial value. */
    enum Mode { INCLUSIVE, EXCLUSIVE, EXCLUSIVE_INIT };
    struct NoPrefix {
        T operator()(const T &a) const { return a; }
    };
    static NoPrefix *none() { return nullptr; }

    /* The block's scan of one value per thread: this thread's inclusive and
     * exclusive results (exclusive: valid where has_excl) and the block's
     * aggregate. A callback (prefix non-null) is called by the first warp
     * with the aggregate; lane 0's answer comes before everything. */
    template <typename Op, typename PrefixOp>
    CUDASIM_CUB_INLINE void scan(T input, T &incl, T &excl, bool &has_excl, T &aggregate, Op op,
                                 PrefixOp *prefix, const Site &s)
    {
        T in_warp = cudasim_detail::warp_inclusive_scan<32>(input, op, s);
        /* the lane before's inclusive value: this lane's exclusive one in the warp */
        T before = cudasim_detail::shfl_idx(0xffffffffu, in_warp,
                                            (int)LaneId() - (place_.lane ? 1 : 0), s);
        if (place_.lane == place_.warp_lanes - 1) temp_.warp_aggregates[place_.warp] = in_warp;
        cudasim_detail::sync_block(s);
        T warp_prefix = in_warp;
        aggregate = temp_.warp_aggregates[0];
        for (int w = 1; w < Place::WARPS; w++) {
            if (w == place_.warp) warp_prefix = aggregate;
            aggregate = op(aggregate, temp_.warp_aggregates[w]);
        }
        if (place_.warp == 0) {
            incl = in_warp;
            excl = before;
            has_excl = place_.lane != 0;
        } else {
            incl = op(warp_prefix, in_warp);
            excl = place_.lane ? op(warp_prefix, before) : warp_prefix;
            has_excl = true;
        }
        if (prefix) {
            if (place_.warp == 0) {
                T p = (*prefix)(aggregate);
                p = cudasim_detail::shfl_idx(0xffffffffu, p, (int)LaneId() - place_.lane, s);
                if (place_.lane == 0) temp_.block_prefix = p;
            }
            cudasim_detail::sync_block(s);
            T p = temp_.block_prefix;
            incl = op(p, incl);
            excl = has_excl ? op(p, excl) : p;
            has_excl = true;
        }
    }

    template <typename Op, typename PrefixOp>
    CUDASIM_CUB_INLINE void one(T input, T &output, T &aggregate, Op op, Mode mode, T init,
                                PrefixOp *prefix, const Site &s)
    {
        T incl, excl;
        bool has_excl;
        scan(input, incl, excl, has_excl, aggregate, op, prefix, s);
        if (mode == INCLUSIVE)
            output = incl;
        else if (mode == EXCLUSIVE)
            output = has_excl ? excl : input;
        else
            output = has_excl ? op(init, excl) : init;
    }

    /* Several items: each thread's items reduced, their scan across the
     * block, then each thread's items scanned from its prefix. */
    template <int N, typename Op, typename PrefixOp>
    CUDASIM_CUB_INLINE void many(T (&input)[N], T (&output)[N], T &aggregate, Op op, Mode mode,
                                 T init, PrefixOp *prefix, const Site &s)
    {
        T partial = cudasim_detail::thread_reduce(input, op);
        T incl, excl;
        bool has_excl;
        scan(partial, incl, excl, has_excl, aggregate, op, prefix, s);
        if (mode == EXCLUSIVE_INIT) {
            excl = has_excl ? op(init, excl) : init;
            has_excl = true;
        }
        if (mode == INCLUSIVE) {
            T acc = has_excl ? op(excl, input[0]) : input[0];
            output[0] = acc;
            for (int i = 1; i < N; i++) output[i] = acc = op(acc, input[i]);
        } else {
            T acc = has_excl ? excl : input[0];
            T next = has_excl ? op(acc, input[0]) : input[0];
            output[0] = acc;
            for (int i = 1; i < N; i++) {
                acc = next;
                next = op(acc, input[i]);
                output[i] = acc;
            }
        }
    }
};

} // namespace cub

#endif /* CUDASIM_CUB_BLOCK_H */
