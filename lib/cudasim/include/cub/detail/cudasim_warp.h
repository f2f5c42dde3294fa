/*
 * CUB for the CUDA simulator: the warp-wide collectives, cub::WarpReduce and
 * cub::WarpScan, over logical warps of 1, 2, 4, 8, 16 or 32 threads. Each
 * step is one of the simulator's warp shuffles over the logical warp's
 * lanes, as CUB's shuffle-based versions do on a GPU, so the values combine
 * in CUB's order: a reduction by shfl_down steps of 1, 2, 4, ... (lane 0's
 * result is ((x0 + x1) + (x2 + x3)) + ...), a scan by shfl_up steps
 * (Kogge-Stone). A lane of the mask that does not reach the call is reported
 * as any warp shuffle is, at the program's line. TempStorage is an empty
 * struct, as CUB's is for shuffles.
 */
#ifndef CUDASIM_CUB_WARP_H
#define CUDASIM_CUB_WARP_H

#include "cudasim_cub.h"

namespace cub {
namespace cudasim_detail {

/* The calling thread's logical warp of W lanes (W a power of 2, at most 32):
 * its mask, its first hardware lane and its lane in it. */
template <int W>
struct LogicalWarp {
    static_assert(W >= 1 && W <= 32 && (W & (W - 1)) == 0,
                  "the CUDA simulator's CUB has logical warps of 1, 2, 4, 8, 16 or 32 threads");
    unsigned mask;
    int base, lane;
    CUDASIM_CUB_INLINE LogicalWarp()
    {
        int hw = (int)LaneId();
        base = hw / W * W;
        lane = hw - base;
        mask = W == 32 ? 0xffffffffu : ((1u << W) - 1) << base;
    }
};

/* Lane 0 of the logical warp gets the reduction of its first `valid` lanes
 * (the others, partial results), by shfl_down steps: a lane takes the value
 * `offset` lanes up when that lane is at most last(lane). */
template <int W, typename T, typename Op, typename Last>
CUDASIM_CUB_INLINE T warp_reduce(T v, Op op, Last last, const Site &s)
{
    LogicalWarp<W> w;
    int my_last = last(w.lane);
    for (int offset = 1; offset < W; offset *= 2) {
        int src = w.lane + offset < W ? w.lane + offset : W - 1;
        T other = shfl_idx(w.mask, v, w.base + src, s);
        if (w.lane + offset <= my_last) v = op(v, other);
    }
    return v;
}

/* Every lane gets the inclusive scan of the lanes up to it (Kogge-Stone). */
template <int W, typename T, typename Op>
CUDASIM_CUB_INLINE T warp_inclusive_scan(T v, Op op, const Site &s)
{
    LogicalWarp<W> w;
    for (int offset = 1; offset < W; offset *= 2) {
        int src = w.lane >= offset ? w.lane - offset : w.lane;
        T other = shfl_idx(w.mask, v, w.base + src, s);
        if (w.lane >= offset) v = op(other, v);
    }
    return v;
}

/* The lane before the next set flag: the end of each lane's segment. */
template <int W>
struct SegmentEnds {
    unsigned flags; /* bit l: lane l starts (head) or ends (tail) a segment */
    bool head;
    CUDASIM_CUB_INLINE int operator()(int lane) const
    {
        for (int l = head ? lane + 1 : lane; l < W; l++)
            if (flags >> l & 1) return head ? l - 1 : l;
        return W - 1;
    }
};

} // namespace cudasim_detail

template <typename T, int LOGICAL_WARP_THREADS = 32>
class WarpReduce {
  public:
    struct TempStorage {
        NullType none;
    };
    typedef cudasim_detail::Site Site;

    CUDASIM_CUB_INLINE WarpReduce(TempStorage &) {}

    /* The sum of the logical warp's inputs, in its lane 0. */
    CUDASIM_CUB_INLINE T Sum(T input, Site s = Site())
    {
        return Reduce(input, cudasim_detail::sum_op(), LOGICAL_WARP_THREADS, s);
    }
    /* The same, of its first valid_items lanes. */
    CUDASIM_CUB_INLINE T Sum(T input, int valid_items, Site s = Site())
    {
        return Reduce(input, cudasim_detail::sum_op(), valid_items, s);
    }
    template <typename ReductionOp>
    CUDASIM_CUB_INLINE T Reduce(T input, ReductionOp reduction_op, Site s = Site())
    {
        return Reduce(input, reduction_op, LOGICAL_WARP_THREADS, s);
    }
    template <typename ReductionOp>
    CUDASIM_CUB_INLINE T Reduce(T input, ReductionOp reduction_op, int valid_items, Site s = Site())
    {
        int last = valid_items - 1;
        return cudasim_detail::warp_reduce<LOGICAL_WARP_THREADS>(
            input, reduction_op, [last](int) { return last; }, s);
    }
    /* Sums of segments: the first lane of each segment gets its sum. */
    template <typename FlagT>
    CUDASIM_CUB_INLINE T HeadSegmentedSum(T input, FlagT head_flag, Site s = Site())
    {
        return HeadSegmentedReduce(input, head_flag, cudasim_detail::sum_op(), s);
    }
    template <typename FlagT>
    CUDASIM_CUB_INLINE T TailSegmentedSum(T input, FlagT tail_flag, Site s = Site())
    {
        return TailSegmentedReduce(input, tail_flag, cudasim_detail::sum_op(), s);
    }
    template <typename FlagT, typename ReductionOp>
    CUDASIM_CUB_INLINE T HeadSegmentedReduce(T input, FlagT head_flag, ReductionOp reduction_op,
                                             Site s = Site())
    {
        return segmented(input, head_flag ? true : false, true, reduction_op, s);
    }
    template <typename FlagT, typename ReductionOp>
    CUDASIM_CUB_INLINE T TailSegmentedReduce(T input, FlagT tail_flag, ReductionOp reduction_op,
                                             Site s = Site())
    {
        return segmented(input, tail_flag ? true : false, false, reduction_op, s);
    }

  private:
    template <typename ReductionOp>
    CUDASIM_CUB_INLINE T segmented(T input, bool flag, bool head, ReductionOp op, const Site &s)
    {
        cudasim_detail::LogicalWarp<LOGICAL_WARP_THREADS> w;
        unsigned ballot =
            (unsigned)cudasim_warp_op(cudasim::BALLOT, w.mask, flag, 0, 32, s.file, s.line);
        cudasim_detail::SegmentEnds<LOGICAL_WARP_THREADS> ends = {ballot >> w.base, head};
        return cudasim_detail::warp_reduce<LOGICAL_WARP_THREADS>(input, op, ends, s);
    }
};

template <typename T, int LOGICAL_WARP_THREADS = 32>
class WarpScan {
  public:
    struct TempStorage {
        NullType none;
    };
    typedef cudasim_detail::Site Site;

    CUDASIM_CUB_INLINE WarpScan(TempStorage &) {}

    CUDASIM_CUB_INLINE void InclusiveSum(T input, T &inclusive_output, Site s = Site())
    {
        InclusiveScan(input, inclusive_output, cudasim_detail::sum_op(), s);
    }
    CUDASIM_CUB_INLINE void InclusiveSum(T input, T &inclusive_output, T &warp_aggregate,
                                         Site s = Site())
    {
        InclusiveScan(input, inclusive_output, cudasim_detail::sum_op(), warp_aggregate, s);
    }
    /* (lane 0's exclusive sum is 0) */
    CUDASIM_CUB_INLINE void ExclusiveSum(T input, T &exclusive_output, Site s = Site())
    {
        ExclusiveScan(input, exclusive_output, T{}, cudasim_detail::sum_op(), s);
    }
    CUDASIM_CUB_INLINE void ExclusiveSum(T input, T &exclusive_output, T &warp_aggregate,
                                         Site s = Site())
    {
        ExclusiveScan(input, exclusive_output, T{}, cudasim_detail::sum_op(), warp_aggregate, s);
    }
    template <typename ScanOp>
    CUDASIM_CUB_INLINE void InclusiveScan(T input, T &inclusive_output, ScanOp scan_op,
                                          Site s = Site())
    {
        inclusive_output = cudasim_detail::warp_inclusive_scan<LOGICAL_WARP_THREADS>(input, scan_op, s);
    }
    template <typename ScanOp>
    CUDASIM_CUB_INLINE void InclusiveScan(T input, T &inclusive_output, ScanOp scan_op,
                                          T &warp_aggregate, Site s = Site())
    {
        InclusiveScan(input, inclusive_output, scan_op, s);
        warp_aggregate = Broadcast(inclusive_output, LOGICAL_WARP_THREADS - 1, s);
    }
    /* Lane 0's output is undefined without an initial value (here: its input). */
    template <typename ScanOp>
    CUDASIM_CUB_INLINE void ExclusiveScan(T input, T &exclusive_output, ScanOp scan_op,
                                          Site s = Site())
    {
        T inclusive;
        InclusiveScan(input, inclusive, scan_op, s);
        exclusive_output = up_one(inclusive, input, s);
    }
    template <typename ScanOp>
    CUDASIM_CUB_INLINE void ExclusiveScan(T input, T &exclusive_output, T initial_value,
                                          ScanOp scan_op, Site s = Site())
    {
        T inclusive;
        InclusiveScan(input, inclusive, scan_op, s);
        T before = up_one(inclusive, initial_value, s);
        exclusive_output = cudasim_detail::LogicalWarp<LOGICAL_WARP_THREADS>().lane == 0
                               ? initial_value
                               : scan_op(initial_value, before);
    }
    template <typename ScanOp>
    CUDASIM_CUB_INLINE void ExclusiveScan(T input, T &exclusive_output, ScanOp scan_op,
                                          T &warp_aggregate, Site s = Site())
    {
        T inclusive;
        InclusiveScan(input, inclusive, scan_op, warp_aggregate, s);
        exclusive_output = up_one(inclusive, input, s);
    }
    template <typename ScanOp>
    CUDASIM_CUB_INLINE void ExclusiveScan(T input, T &exclusive_output, T initial_value,
                                          ScanOp scan_op, T &warp_aggregate, Site s = Site())
    {
        T inclusive;
        InclusiveScan(input, inclusive, scan_op, warp_aggregate, s);
        T before = up_one(inclusive, initial_value, s);
        exclusive_output = cudasim_detail::LogicalWarp<LOGICAL_WARP_THREADS>().lane == 0
                               ? initial_value
                               : scan_op(initial_value, before);
    }
    template <typename ScanOp>
    CUDASIM_CUB_INLINE void Scan(T input, T &inclusive_output, T &exclusive_output, ScanOp scan_op,
                                 Site s = Site())
    {
        InclusiveScan(input, inclusive_output, scan_op, s);
        exclusive_output = up_one(inclusive_output, input, s);
    }
    /* Every lane gets src_lane's input. */
    CUDASIM_CUB_INLINE T Broadcast(T input, unsigned int src_lane, Site s = Site())
    {
        cudasim_detail::LogicalWarp<LOGICAL_WARP_THREADS> w;
        return cudasim_detail::shfl_idx(w.mask, input, w.base + (int)src_lane, s);
    }

  private:
    /* The value of the lane before (lane 0: first). */
    CUDASIM_CUB_INLINE T up_one(const T &v, const T &first, const Site &s)
    {
        cudasim_detail::LogicalWarp<LOGICAL_WARP_THREADS> w;
        T other = cudasim_detail::shfl_idx(w.mask, v, w.base + (w.lane ? w.lane - 1 : 0), s);
        return w.lane ? other : first;
    }
};

} // namespace cub

#endif /* CUDASIM_CUB_WARP_H */
