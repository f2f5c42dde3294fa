/*
 * CUB for the CUDA simulator: the public collectives and algorithms of CUB 3
 * that the simulator does not have, declared unavailable, so that a program
 * using one fails to compile with one line naming it and what there is
 * (GCC's `unavailable` attribute: the first error names it), never with a
 * bare "not a member of cub". They are complete types (a collective with a
 * TempStorage and any constructor, an algorithm with its calls), so that
 * little else is said after that line.
 * Their enums are here, so that a program naming an algorithm reaches that
 * line.
 */
#ifndef CUDASIM_CUB_MISSING_H
#define CUDASIM_CUB_MISSING_H

#include "cudasim_block.h"

#define CUDASIM_CUB_HAS                                                                           \
    "the CUDA simulator's CUB has BlockReduce, BlockScan, BlockLoad, BlockStore, BlockExchange, " \
    "WarpReduce, WarpScan, DeviceReduce, DeviceScan, DeviceRadixSort and CachingDeviceAllocator"
#define CUDASIM_CUB_MISSING(name)                                                                 \
    __attribute__((unavailable("cub::" #name " is not in the CUDA simulator: " CUDASIM_CUB_HAS)))

/* What a missing collective has: storage, and any constructor. */
#define CUDASIM_CUB_COLLECTIVE(name)                                                              \
  public:                                                                                         \
    struct TempStorage {                                                                          \
    };                                                                                            \
    template <typename... A>                                                                      \
    name(A &&...)                                                                                 \
    {                                                                                             \
    }
/* A call of a missing algorithm. */
#define CUDASIM_CUB_CALL(name)                                                                    \
    template <typename... A>                                                                      \
    static cudaError_t name(A &&...)                                                              \
    {                                                                                             \
        return cudaErrorNotSupported;                                                             \
    }

namespace cub {

enum BlockHistogramAlgorithm { BLOCK_HISTO_SORT, BLOCK_HISTO_ATOMIC };
enum WarpLoadAlgorithm { WARP_LOAD_DIRECT, WARP_LOAD_STRIPED, WARP_LOAD_VECTORIZE, WARP_LOAD_TRANSPOSE };
enum WarpStoreAlgorithm { WARP_STORE_DIRECT, WARP_STORE_STRIPED, WARP_STORE_VECTORIZE, WARP_STORE_TRANSPOSE };
enum WarpExchangeAlgorithm { WARP_EXCHANGE_SMEM, WARP_EXCHANGE_SHUFFLE };

template <typename T, int BLOCK_DIM_X, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class CUDASIM_CUB_MISSING(BlockAdjacentDifference) BlockAdjacentDifference {
    CUDASIM_CUB_COLLECTIVE(BlockAdjacentDifference)
};
template <typename T, int BLOCK_DIM_X, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class CUDASIM_CUB_MISSING(BlockDiscontinuity) BlockDiscontinuity {
    CUDASIM_CUB_COLLECTIVE(BlockDiscontinuity)
};
template <typename T, int BLOCK_DIM_X, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class CUDASIM_CUB_MISSING(BlockShuffle) BlockShuffle {
    CUDASIM_CUB_COLLECTIVE(BlockShuffle)
};
template <typename T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, int BINS,
          BlockHistogramAlgorithm ALGORITHM = BLOCK_HISTO_SORT, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class CUDASIM_CUB_MISSING(BlockHistogram) BlockHistogram {
    CUDASIM_CUB_COLLECTIVE(BlockHistogram)
};
template <typename KeyT, int BLOCK_DIM_X, int ITEMS_PER_THREAD, typename ValueT = NullType,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class CUDASIM_CUB_MISSING(BlockMergeSort) BlockMergeSort {
    CUDASIM_CUB_COLLECTIVE(BlockMergeSort)
};
template <typename KeyT, int BLOCK_DIM_X, int ITEMS_PER_THREAD, typename ValueT = NullType,
          int RADIX_BITS = 4, bool MEMOIZE_OUTER_SCAN = true,
          BlockScanAlgorithm INNER_SCAN_ALGORITHM = BLOCK_SCAN_WARP_SCANS, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1>
class CUDASIM_CUB_MISSING(BlockRadixSort) BlockRadixSort {
    CUDASIM_CUB_COLLECTIVE(BlockRadixSort)
};
template <int BLOCK_DIM_X, int RADIX_BITS, bool IS_DESCENDING, bool MEMOIZE_OUTER_SCAN = true,
          BlockScanAlgorithm INNER_SCAN_ALGORITHM = BLOCK_SCAN_WARP_SCANS, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1>
class CUDASIM_CUB_MISSING(BlockRadixRank) BlockRadixRank {
    CUDASIM_CUB_COLLECTIVE(BlockRadixRank)
};
template <typename ItemT, int BLOCK_DIM_X, int RUNS_PER_THREAD, int DECODED_ITEMS_PER_THREAD,
          typename DecodedOffsetT = uint32_t, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class CUDASIM_CUB_MISSING(BlockRunLengthDecode) BlockRunLengthDecode {
    CUDASIM_CUB_COLLECTIVE(BlockRunLengthDecode)
};
template <typename InputT, int ITEMS_PER_THREAD, int LOGICAL_WARP_THREADS = 32,
          WarpExchangeAlgorithm WARP_EXCHANGE_ALGORITHM = WARP_EXCHANGE_SMEM>
class CUDASIM_CUB_MISSING(WarpExchange) WarpExchange {
    CUDASIM_CUB_COLLECTIVE(WarpExchange)
};
template <typename InputT, int ITEMS_PER_THREAD, WarpLoadAlgorithm ALGORITHM = WARP_LOAD_DIRECT,
          int LOGICAL_WARP_THREADS = 32>
class CUDASIM_CUB_MISSING(WarpLoad) WarpLoad {
    CUDASIM_CUB_COLLECTIVE(WarpLoad)
};
template <typename T, int ITEMS_PER_THREAD, WarpStoreAlgorithm ALGORITHM = WARP_STORE_DIRECT,
          int LOGICAL_WARP_THREADS = 32>
class CUDASIM_CUB_MISSING(WarpStore) WarpStore {
    CUDASIM_CUB_COLLECTIVE(WarpStore)
};
template <typename KeyT, int ITEMS_PER_THREAD, int LOGICAL_WARP_THREADS = 32, typename ValueT = NullType>
class CUDASIM_CUB_MISSING(WarpMergeSort) WarpMergeSort {
    CUDASIM_CUB_COLLECTIVE(WarpMergeSort)
};
template <typename InputIteratorT, typename OffsetT = std::ptrdiff_t, typename OutputValueT = void>
class CUDASIM_CUB_MISSING(ArgIndexInputIterator) ArgIndexInputIterator {
    CUDASIM_CUB_COLLECTIVE(ArgIndexInputIterator)
};

struct CUDASIM_CUB_MISSING(DeviceAdjacentDifference) DeviceAdjacentDifference {
    CUDASIM_CUB_CALL(SubtractLeft) CUDASIM_CUB_CALL(SubtractLeftCopy)
    CUDASIM_CUB_CALL(SubtractRight) CUDASIM_CUB_CALL(SubtractRightCopy)
};
struct CUDASIM_CUB_MISSING(DeviceCopy) DeviceCopy {
    CUDASIM_CUB_CALL(Batched)
};
struct CUDASIM_CUB_MISSING(DeviceFor) DeviceFor {
    CUDASIM_CUB_CALL(Bulk) CUDASIM_CUB_CALL(ForEach) CUDASIM_CUB_CALL(ForEachN)
    CUDASIM_CUB_CALL(ForEachCopy) CUDASIM_CUB_CALL(ForEachCopyN) CUDASIM_CUB_CALL(ForEachInExtents)
};
struct CUDASIM_CUB_MISSING(DeviceHistogram) DeviceHistogram {
    CUDASIM_CUB_CALL(HistogramEven) CUDASIM_CUB_CALL(HistogramRange)
    CUDASIM_CUB_CALL(MultiHistogramEven) CUDASIM_CUB_CALL(MultiHistogramRange)
};
struct CUDASIM_CUB_MISSING(DeviceMemcpy) DeviceMemcpy {
    CUDASIM_CUB_CALL(Batched)
};
struct CUDASIM_CUB_MISSING(DeviceMerge) DeviceMerge {
    CUDASIM_CUB_CALL(MergeKeys) CUDASIM_CUB_CALL(MergePairs)
};
struct CUDASIM_CUB_MISSING(DeviceMergeSort) DeviceMergeSort {
    CUDASIM_CUB_CALL(SortPairs) CUDASIM_CUB_CALL(SortPairsCopy) CUDASIM_CUB_CALL(SortKeys)
    CUDASIM_CUB_CALL(SortKeysCopy) CUDASIM_CUB_CALL(StableSortPairs)
    CUDASIM_CUB_CALL(StableSortKeys) CUDASIM_CUB_CALL(StableSortKeysCopy)
};
struct CUDASIM_CUB_MISSING(DevicePartition) DevicePartition {
    CUDASIM_CUB_CALL(Flagged) CUDASIM_CUB_CALL(If)
};
struct CUDASIM_CUB_MISSING(DeviceRunLengthEncode) DeviceRunLengthEncode {
    CUDASIM_CUB_CALL(Encode) CUDASIM_CUB_CALL(NonTrivialRuns)
};
struct CUDASIM_CUB_MISSING(DeviceSegmentedRadixSort) DeviceSegmentedRadixSort {
    CUDASIM_CUB_CALL(SortPairs) CUDASIM_CUB_CALL(SortPairsDescending) CUDASIM_CUB_CALL(SortKeys)
    CUDASIM_CUB_CALL(SortKeysDescending)
};
struct CUDASIM_CUB_MISSING(DeviceSegmentedReduce) DeviceSegmentedReduce {
    CUDASIM_CUB_CALL(Reduce) CUDASIM_CUB_CALL(Sum) CUDASIM_CUB_CALL(Min) CUDASIM_CUB_CALL(Max)
    CUDASIM_CUB_CALL(ArgMin) CUDASIM_CUB_CALL(ArgMax)
};
struct CUDASIM_CUB_MISSING(DeviceSegmentedSort) DeviceSegmentedSort {
    CUDASIM_CUB_CALL(SortPairs) CUDASIM_CUB_CALL(SortKeys) CUDASIM_CUB_CALL(StableSortPairs)
    CUDASIM_CUB_CALL(StableSortKeys) CUDASIM_CUB_CALL(SortPairsDescending)
    CUDASIM_CUB_CALL(SortKeysDescending) CUDASIM_CUB_CALL(StableSortPairsDescending)
    CUDASIM_CUB_CALL(StableSortKeysDescending)
};
struct CUDASIM_CUB_MISSING(DeviceSelect) DeviceSelect {
    CUDASIM_CUB_CALL(Flagged) CUDASIM_CUB_CALL(FlaggedIf) CUDASIM_CUB_CALL(If)
    CUDASIM_CUB_CALL(Unique) CUDASIM_CUB_CALL(UniqueByKey)
};
struct CUDASIM_CUB_MISSING(DeviceTransform) DeviceTransform {
    CUDASIM_CUB_CALL(Transform) CUDASIM_CUB_CALL(TransformStableArgumentAddresses)
    CUDASIM_CUB_CALL(Fill) CUDASIM_CUB_CALL(Generate)
};

} // namespace cub

#undef CUDASIM_CUB_MISSING
#undef CUDASIM_CUB_COLLECTIVE
#undef CUDASIM_CUB_CALL

#endif /* CUDASIM_CUB_MISSING_H */
