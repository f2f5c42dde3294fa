/*
 * CUB for the CUDA simulator: a block's loads and stores of a tile,
 * cub::BlockLoad and cub::BlockStore, and the direct forms
 * (LoadDirectBlocked, LoadDirectStriped, LoadDirectWarpStriped,
 * LoadDirectBlockedVectorized and the Store ones). Each algorithm makes the
 * accesses CUB's makes, so the profiler counts what Nsight Compute counts
 * for them: DIRECT reads a thread's consecutive items (uncoalesced), STRIPED
 * and the TRANSPOSE ones read consecutive items across the threads
 * (coalesced), VECTORIZE reads a thread's items as 16-, 8- or 4-byte vectors
 * where the pointer is aligned, and the TRANSPOSE ones then exchange the
 * items through TempStorage in shared memory, padded as CUB pads it (a
 * __syncthreads between for the block, a __syncwarp for a warp), so a
 * TempStorage reused without a barrier races here as on a GPU. Every
 * algorithm but STRIPED gives the blocked arrangement (thread t holds items
 * t * ITEMS_PER_THREAD ... + ITEMS_PER_THREAD - 1); a TRANSPOSE store
 * leaves the program's items rearranged, as CUB's does.
 */
#ifndef CUDASIM_CUB_BLOCK_IO_H
#define CUDASIM_CUB_BLOCK_IO_H

#include "cudasim_block.h"

namespace cub {

enum BlockLoadAlgorithm {
    BLOCK_LOAD_DIRECT,
    BLOCK_LOAD_STRIPED,
    BLOCK_LOAD_VECTORIZE,
    BLOCK_LOAD_TRANSPOSE,
    BLOCK_LOAD_WARP_TRANSPOSE,
    BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED,
};

enum BlockStoreAlgorithm {
    BLOCK_STORE_DIRECT,
    BLOCK_STORE_STRIPED,
    BLOCK_STORE_VECTORIZE,
    BLOCK_STORE_TRANSPOSE,
    BLOCK_STORE_WARP_TRANSPOSE,
    BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED,
};

/* ---- the direct forms ---- */

template <typename T, int N, typename It>
CUDASIM_CUB_INLINE void LoadDirectBlocked(int linear_tid, It block_src_it, T (&dst_items)[N])
{
    for (int i = 0; i < N; i++) dst_items[i] = block_src_it[linear_tid * N + i];
}
template <typename T, int N, typename It>
CUDASIM_CUB_INLINE void LoadDirectBlocked(int linear_tid, It block_src_it, T (&dst_items)[N],
                                          int block_items_end)
{
    for (int i = 0; i < N; i++)
        if (linear_tid * N + i < block_items_end) dst_items[i] = block_src_it[linear_tid * N + i];
}
template <typename T, typename DefaultT, int N, typename It>
CUDASIM_CUB_INLINE void LoadDirectBlocked(int linear_tid, It block_src_it, T (&dst_items)[N],
                                          int block_items_end, DefaultT oob_default)
{
    for (int i = 0; i < N; i++) dst_items[i] = oob_default;
    LoadDirectBlocked(linear_tid, block_src_it, dst_items, block_items_end);
}
template <int BLOCK_THREADS, typename T, int N, typename It>
CUDASIM_CUB_INLINE void LoadDirectStriped(int linear_tid, It block_src_it, T (&dst_items)[N])
{
    for (int i = 0; i < N; i++) dst_items[i] = block_src_it[linear_tid + i * BLOCK_THREADS];
}
template <int BLOCK_THREADS, typename T, int N, typename It>
CUDASIM_CUB_INLINE void LoadDirectStriped(int linear_tid, It block_src_it, T (&dst_items)[N],
                                          int block_items_end)
{
    for (int i = 0; i < N; i++)
        if (linear_tid + i * BLOCK_THREADS < block_items_end)
            dst_items[i] = block_src_it[linear_tid + i * BLOCK_THREADS];
}
template <int BLOCK_THREADS, typename T, typename DefaultT, int N, typename It>
CUDASIM_CUB_INLINE void LoadDirectStriped(int linear_tid, It block_src_it, T (&dst_items)[N],
                                          int block_items_end, DefaultT oob_default)
{
    for (int i = 0; i < N; i++) dst_items[i] = oob_default;
    LoadDirectStriped<BLOCK_THREADS>(linear_tid, block_src_it, dst_items, block_items_end);
}
/* Each warp's 32 * N items striped across its lanes. */
template <typename T, int N, typename It>
CUDASIM_CUB_INLINE void LoadDirectWarpStriped(int linear_tid, It block_src_it, T (&dst_items)[N])
{
    int lane = linear_tid % 32, offset = linear_tid / 32 * 32 * N + lane;
    for (int i = 0; i < N; i++) dst_items[i] = block_src_it[offset + i * 32];
}
template <typename T, int N, typename It>
CUDASIM_CUB_INLINE void LoadDirectWarpStriped(int linear_tid, It block_src_it, T (&dst_items)[N],
                                              int block_items_end)
{
    int lane = linear_tid % 32, offset = linear_tid / 32 * 32 * N + lane;
    for (int i = 0; i < N; i++)
        if (offset + i * 32 < block_items_end) dst_items[i] = block_src_it[offset + i * 32];
}
template <typename T, typename DefaultT, int N, typename It>
CUDASIM_CUB_INLINE void LoadDirectWarpStriped(int linear_tid, It block_src_it, T (&dst_items)[N],
                                              int block_items_end, DefaultT oob_default)
{
    for (int i = 0; i < N; i++) dst_items[i] = oob_default;
    LoadDirectWarpStriped(linear_tid, block_src_it, dst_items, block_items_end);
}

template <typename T, int N, typename It>
CUDASIM_CUB_INLINE void StoreDirectBlocked(int linear_tid, It block_dst_it, T (&src_items)[N])
{
    for (int i = 0; i < N; i++) block_dst_it[linear_tid * N + i] = src_items[i];
}
template <typename T, int N, typename It>
CUDASIM_CUB_INLINE void StoreDirectBlocked(int linear_tid, It block_dst_it, T (&src_items)[N],
                                           int valid_items)
{
    for (int i = 0; i < N; i++)
        if (linear_tid * N + i < valid_items) block_dst_it[linear_tid * N + i] = src_items[i];
}
template <int BLOCK_THREADS, typename T, int N, typename It>
CUDASIM_CUB_INLINE void StoreDirectStriped(int linear_tid, It block_dst_it, T (&src_items)[N])
{
    for (int i = 0; i < N; i++) block_dst_it[linear_tid + i * BLOCK_THREADS] = src_items[i];
}
template <int BLOCK_THREADS, typename T, int N, typename It>
CUDASIM_CUB_INLINE void StoreDirectStriped(int linear_tid, It block_dst_it, T (&src_items)[N],
                                           int valid_items)
{
    for (int i = 0; i < N; i++)
        if (linear_tid + i * BLOCK_THREADS < valid_items)
            block_dst_it[linear_tid + i * BLOCK_THREADS] = src_items[i];
}
template <typename T, int N, typename It>
CUDASIM_CUB_INLINE void StoreDirectWarpStriped(int linear_tid, It block_dst_it, T (&src_items)[N])
{
    int lane = linear_tid % 32, offset = linear_tid / 32 * 32 * N + lane;
    for (int i = 0; i < N; i++) block_dst_it[offset + i * 32] = src_items[i];
}
template <typename T, int N, typename It>
CUDASIM_CUB_INLINE void StoreDirectWarpStriped(int linear_tid, It block_dst_it, T (&src_items)[N],
                                               int valid_items)
{
    int lane = linear_tid % 32, offset = linear_tid / 32 * 32 * N + lane;
    for (int i = 0; i < N; i++)
        if (offset + i * 32 < valid_items) block_dst_it[offset + i * 32] = src_items[i];
}

namespace cudasim_detail {

/* The vector a thread's N items move as (CUB's: 4, 2 or 1 words of 4, 2 or
 * 1 bytes), or none when the pointer is not aligned to it. */
template <typename T, int N>
struct Vector {
    static const int WORD = sizeof(T) % 4 == 0 ? 4 : sizeof(T) % 2 == 0 ? 2 : 1;
    static const int WORDS = (int)(sizeof(T) * N / WORD);
    static const int SIZE = WORDS % 4 == 0 ? 4 : WORDS % 2 == 0 ? 2 : 1;
    static const int PER_THREAD = WORDS / SIZE;
    struct alignas(WORD * SIZE) Type {
        unsigned char bytes[WORD * SIZE];
    };
};

} // namespace cudasim_detail

template <typename T, int N>
CUDASIM_CUB_INLINE void LoadDirectBlockedVectorized(int linear_tid, T *block_src_ptr, T (&dst_items)[N])
{
    typedef cudasim_detail::Vector<T, N> V;
    typedef typename V::Type Vec;
    if ((uintptr_t)block_src_ptr % alignof(Vec) != 0) {
        LoadDirectBlocked(linear_tid, block_src_ptr, dst_items);
        return;
    }
    Vec v[V::PER_THREAD];
    const Vec *p = reinterpret_cast<const Vec *>(block_src_ptr) + linear_tid * V::PER_THREAD;
    for (int i = 0; i < V::PER_THREAD; i++) v[i] = p[i];
    std::memcpy(dst_items, v, sizeof dst_items);
}
template <typename T, int N>
CUDASIM_CUB_INLINE void StoreDirectBlockedVectorized(int linear_tid, T *block_dst_ptr, T (&src_items)[N])
{
    typedef cudasim_detail::Vector<T, N> V;
    typedef typename V::Type Vec;
    if ((uintptr_t)block_dst_ptr % alignof(Vec) != 0) {
        StoreDirectBlocked(linear_tid, block_dst_ptr, src_items);
        return;
    }
    Vec v[V::PER_THREAD];
    std::memcpy(v, src_items, sizeof v);
    Vec *p = reinterpret_cast<Vec *>(block_dst_ptr) + linear_tid * V::PER_THREAD;
    for (int i = 0; i < V::PER_THREAD; i++) p[i] = v[i];
}

namespace cudasim_detail {

/* CUB's BlockExchange storage: a tile of items in shared memory, with one
 * item of padding per 32 when ITEMS_PER_THREAD is a power of 2 above 4 (so
 * that a thread's consecutive items fall in different banks). */
template <typename T, int BLOCK_THREADS, int N>
struct Exchange {
    static const bool PADDING = N > 4 && (N & (N - 1)) == 0;
    static const int ITEMS = BLOCK_THREADS * N;
    struct TempStorage {
        T buff[ITEMS + (PADDING ? ITEMS / 32 : 0)];
    };
    static CUDASIM_CUB_INLINE int at(int i) { return PADDING ? i + i / 32 : i; }

    /* striped (item i of thread t: t + i * BLOCK_THREADS) to blocked, and
     * back; in and out may be one array */
    template <typename OutT>
    static CUDASIM_CUB_INLINE void striped_to_blocked(TempStorage &s, int tid, const T (&in)[N],
                                                      OutT (&out)[N], const Site &site)
    {
        for (int i = 0; i < N; i++) s.buff[at(i * BLOCK_THREADS + tid)] = in[i];
        sync_block(site);
        for (int i = 0; i < N; i++) out[i] = s.buff[at(tid * N + i)];
    }
    template <typename OutT>
    static CUDASIM_CUB_INLINE void blocked_to_striped(TempStorage &s, int tid, const T (&in)[N],
                                                      OutT (&out)[N], const Site &site)
    {
        for (int i = 0; i < N; i++) s.buff[at(tid * N + i)] = in[i];
        sync_block(site);
        for (int i = 0; i < N; i++) out[i] = s.buff[at(i * BLOCK_THREADS + tid)];
    }
    /* within each warp's part of the tile, with a __syncwarp between */
    template <typename OutT>
    static CUDASIM_CUB_INLINE void warp_striped_to_blocked(TempStorage &s, int tid, const T (&in)[N],
                                                           OutT (&out)[N], const Site &site)
    {
        int lane = tid % 32, base = tid / 32 * 32 * N;
        for (int i = 0; i < N; i++) s.buff[at(base + i * 32 + lane)] = in[i];
        sync_warp(0xffffffffu, site);
        for (int i = 0; i < N; i++) out[i] = s.buff[at(base + lane * N + i)];
    }
    template <typename OutT>
    static CUDASIM_CUB_INLINE void blocked_to_warp_striped(TempStorage &s, int tid, const T (&in)[N],
                                                           OutT (&out)[N], const Site &site)
    {
        int lane = tid % 32, base = tid / 32 * 32 * N;
        for (int i = 0; i < N; i++) s.buff[at(base + lane * N + i)] = in[i];
        sync_warp(0xffffffffu, site);
        for (int i = 0; i < N; i++) out[i] = s.buff[at(base + i * 32 + lane)];
    }
    /* each item to the place its rank gives, then read blocked or striped */
    template <typename OutT, typename OffsetT>
    static CUDASIM_CUB_INLINE void scatter(TempStorage &s, int tid, const T (&in)[N], OutT (&out)[N],
                                           const OffsetT (&ranks)[N], bool striped, const Site &site)
    {
        for (int i = 0; i < N; i++) s.buff[at((int)ranks[i])] = in[i];
        sync_block(site);
        for (int i = 0; i < N; i++) out[i] = s.buff[at(striped ? i * BLOCK_THREADS + tid : tid * N + i)];
    }
};

} // namespace cudasim_detail

template <typename T, int BLOCK_DIM_X, int ITEMS_PER_THREAD,
          BlockLoadAlgorithm ALGORITHM = BLOCK_LOAD_DIRECT, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class BlockLoad {
    static const int BLOCK_THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
    static const bool WARP = ALGORITHM == BLOCK_LOAD_WARP_TRANSPOSE ||
                             ALGORITHM == BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED;
    typedef cudasim_detail::Exchange<T, BLOCK_THREADS, ITEMS_PER_THREAD> Exchange;
    static_assert(!WARP || BLOCK_THREADS % 32 == 0,
                  "BLOCK_LOAD_WARP_TRANSPOSE needs a block of whole warps (as in CUB)");

  public:
    typedef typename std::conditional<ALGORITHM == BLOCK_LOAD_TRANSPOSE || WARP,
                                      typename Exchange::TempStorage, NullType>::type TempStorage;
    typedef cudasim_detail::Site Site;

    CUDASIM_CUB_INLINE BlockLoad(Site s = Site())
        : temp_(cudasim_detail::private_storage<TempStorage>("cub::BlockLoad's TempStorage", s)),
          tid_(RowMajorTid(BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z))
    {
    }
    CUDASIM_CUB_INLINE BlockLoad(TempStorage &temp_storage)
        : temp_(temp_storage), tid_(RowMajorTid(BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z))
    {
    }

    template <typename It>
    CUDASIM_CUB_INLINE void Load(It block_src_it, T (&dst_items)[ITEMS_PER_THREAD], Site s = Site())
    {
        if constexpr (ALGORITHM == BLOCK_LOAD_DIRECT) {
            LoadDirectBlocked(tid_, block_src_it, dst_items);
        } else if constexpr (ALGORITHM == BLOCK_LOAD_STRIPED) {
            LoadDirectStriped<BLOCK_THREADS>(tid_, block_src_it, dst_items);
        } else if constexpr (ALGORITHM == BLOCK_LOAD_VECTORIZE) {
            if constexpr (std::is_pointer<It>::value)
                LoadDirectBlockedVectorized(tid_, const_cast<T *>(&*block_src_it), dst_items);
            else
                LoadDirectBlocked(tid_, block_src_it, dst_items);
        } else if constexpr (ALGORITHM == BLOCK_LOAD_TRANSPOSE) {
            LoadDirectStriped<BLOCK_THREADS>(tid_, block_src_it, dst_items);
            exchange(dst_items, s);
        } else {
            LoadDirectWarpStriped(tid_, block_src_it, dst_items);
            exchange(dst_items, s);
        }
    }
    /* Only the first block_items_end items are read. */
    template <typename It>
    CUDASIM_CUB_INLINE void Load(It block_src_it, T (&dst_items)[ITEMS_PER_THREAD], int block_items_end,
                                 Site s = Site())
    {
        if constexpr (ALGORITHM == BLOCK_LOAD_DIRECT || ALGORITHM == BLOCK_LOAD_VECTORIZE) {
            LoadDirectBlocked(tid_, block_src_it, dst_items, block_items_end);
        } else if constexpr (ALGORITHM == BLOCK_LOAD_STRIPED) {
            LoadDirectStriped<BLOCK_THREADS>(tid_, block_src_it, dst_items, block_items_end);
        } else if constexpr (ALGORITHM == BLOCK_LOAD_TRANSPOSE) {
            LoadDirectStriped<BLOCK_THREADS>(tid_, block_src_it, dst_items, block_items_end);
            exchange(dst_items, s);
        } else {
            LoadDirectWarpStriped(tid_, block_src_it, dst_items, block_items_end);
            exchange(dst_items, s);
        }
    }
    /* The same, the items past it set to oob_default. */
    template <typename It, typename DefaultT>
    CUDASIM_CUB_INLINE void Load(It block_src_it, T (&dst_items)[ITEMS_PER_THREAD], int block_items_end,
                                 DefaultT oob_default, Site s = Site())
    {
        for (int i = 0; i < ITEMS_PER_THREAD; i++) dst_items[i] = oob_default;
        Load(block_src_it, dst_items, block_items_end, s);
    }

  private:
    TempStorage &temp_;
    int tid_;

    CUDASIM_CUB_INLINE void exchange(T (&items)[ITEMS_PER_THREAD], const Site &s)
    {
        if constexpr (WARP)
            Exchange::warp_striped_to_blocked(temp_, tid_, items, items, s);
        else if constexpr (ALGORITHM == BLOCK_LOAD_TRANSPOSE)
            Exchange::striped_to_blocked(temp_, tid_, items, items, s);
    }
};

template <typename T, int BLOCK_DIM_X, int ITEMS_PER_THREAD,
          BlockStoreAlgorithm ALGORITHM = BLOCK_STORE_DIRECT, int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class BlockStore {
    static const int BLOCK_THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
    static const bool WARP = ALGORITHM == BLOCK_STORE_WARP_TRANSPOSE ||
                             ALGORITHM == BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED;
    typedef cudasim_detail::Exchange<T, BLOCK_THREADS, ITEMS_PER_THREAD> Exchange;
    static_assert(!WARP || BLOCK_THREADS % 32 == 0,
                  "BLOCK_STORE_WARP_TRANSPOSE needs a block of whole warps (as in CUB)");

  public:
    typedef typename std::conditional<ALGORITHM == BLOCK_STORE_TRANSPOSE || WARP,
                                      typename Exchange::TempStorage, NullType>::type TempStorage;
    typedef cudasim_detail::Site Site;

    CUDASIM_CUB_INLINE BlockStore(Site s = Site())
        : temp_(cudasim_detail::private_storage<TempStorage>("cub::BlockStore's TempStorage", s)),
          tid_(RowMajorTid(BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z))
    {
    }
    CUDASIM_CUB_INLINE BlockStore(TempStorage &temp_storage)
        : temp_(temp_storage), tid_(RowMajorTid(BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z))
    {
    }

    template <typename It>
    CUDASIM_CUB_INLINE void Store(It block_dst_it, T (&src_items)[ITEMS_PER_THREAD], Site s = Site())
    {
        if constexpr (ALGORITHM == BLOCK_STORE_DIRECT) {
            StoreDirectBlocked(tid_, block_dst_it, src_items);
        } else if constexpr (ALGORITHM == BLOCK_STORE_STRIPED) {
            StoreDirectStriped<BLOCK_THREADS>(tid_, block_dst_it, src_items);
        } else if constexpr (ALGORITHM == BLOCK_STORE_VECTORIZE) {
            if constexpr (std::is_pointer<It>::value)
                StoreDirectBlockedVectorized(tid_, &*block_dst_it, src_items);
            else
                StoreDirectBlocked(tid_, block_dst_it, src_items);
        } else if constexpr (ALGORITHM == BLOCK_STORE_TRANSPOSE) {
            Exchange::blocked_to_striped(temp_, tid_, src_items, src_items, s);
            StoreDirectStriped<BLOCK_THREADS>(tid_, block_dst_it, src_items);
        } else {
            Exchange::blocked_to_warp_striped(temp_, tid_, src_items, src_items, s);
            StoreDirectWarpStriped(tid_, block_dst_it, src_items);
        }
    }
    /* Only the first valid_items items are written. */
    template <typename It>
    CUDASIM_CUB_INLINE void Store(It block_dst_it, T (&src_items)[ITEMS_PER_THREAD], int valid_items,
                                  Site s = Site())
    {
        if constexpr (ALGORITHM == BLOCK_STORE_DIRECT || ALGORITHM == BLOCK_STORE_VECTORIZE) {
            StoreDirectBlocked(tid_, block_dst_it, src_items, valid_items);
        } else if constexpr (ALGORITHM == BLOCK_STORE_STRIPED) {
            StoreDirectStriped<BLOCK_THREADS>(tid_, block_dst_it, src_items, valid_items);
        } else if constexpr (ALGORITHM == BLOCK_STORE_TRANSPOSE) {
            Exchange::blocked_to_striped(temp_, tid_, src_items, src_items, s);
            StoreDirectStriped<BLOCK_THREADS>(tid_, block_dst_it, src_items, valid_items);
        } else {
            Exchange::blocked_to_warp_striped(temp_, tid_, src_items, src_items, s);
            StoreDirectWarpStriped(tid_, block_dst_it, src_items, valid_items);
        }
    }

  private:
    TempStorage &temp_;
    int tid_;
};

/* Items between the arrangements: blocked, striped, warp-striped, or by
 * rank, through TempStorage in shared memory (CUB's BlockExchange;
 * WARP_TIME_SLICING changes nothing here but the name). */
template <typename T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, bool WARP_TIME_SLICING = false,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class BlockExchange {
    static const int BLOCK_THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
    typedef cudasim_detail::Exchange<T, BLOCK_THREADS, ITEMS_PER_THREAD> Exchange;
    typedef T Items[ITEMS_PER_THREAD];

  public:
    typedef typename Exchange::TempStorage TempStorage;
    typedef cudasim_detail::Site Site;

    CUDASIM_CUB_INLINE BlockExchange(Site s = Site())
        : temp_(cudasim_detail::private_storage<TempStorage>("cub::BlockExchange's TempStorage", s)),
          tid_(RowMajorTid(BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z))
    {
    }
    CUDASIM_CUB_INLINE BlockExchange(TempStorage &temp_storage)
        : temp_(temp_storage), tid_(RowMajorTid(BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_DIM_Z))
    {
    }

    template <typename OutputT>
    CUDASIM_CUB_INLINE void StripedToBlocked(const Items &input_items, OutputT (&output_items)[ITEMS_PER_THREAD],
                                             Site s = Site())
    {
        Exchange::striped_to_blocked(temp_, tid_, input_items, output_items, s);
    }
    template <typename OutputT>
    CUDASIM_CUB_INLINE void BlockedToStriped(const Items &input_items, OutputT (&output_items)[ITEMS_PER_THREAD],
                                             Site s = Site())
    {
        Exchange::blocked_to_striped(temp_, tid_, input_items, output_items, s);
    }
    template <typename OutputT>
    CUDASIM_CUB_INLINE void WarpStripedToBlocked(const Items &input_items,
                                                 OutputT (&output_items)[ITEMS_PER_THREAD], Site s = Site())
    {
        Exchange::warp_striped_to_blocked(temp_, tid_, input_items, output_items, s);
    }
    template <typename OutputT>
    CUDASIM_CUB_INLINE void BlockedToWarpStriped(const Items &input_items,
                                                 OutputT (&output_items)[ITEMS_PER_THREAD], Site s = Site())
    {
        Exchange::blocked_to_warp_striped(temp_, tid_, input_items, output_items, s);
    }
    template <typename OutputT, typename OffsetT>
    CUDASIM_CUB_INLINE void ScatterToBlocked(const Items &input_items, OutputT (&output_items)[ITEMS_PER_THREAD],
                                             OffsetT (&ranks)[ITEMS_PER_THREAD], Site s = Site())
    {
        Exchange::scatter(temp_, tid_, input_items, output_items, ranks, false, s);
    }
    template <typename OutputT, typename OffsetT>
    CUDASIM_CUB_INLINE void ScatterToStriped(const Items &input_items, OutputT (&output_items)[ITEMS_PER_THREAD],
                                             OffsetT (&ranks)[ITEMS_PER_THREAD], Site s = Site())
    {
        Exchange::scatter(temp_, tid_, input_items, output_items, ranks, true, s);
    }
    /* The forms that rearrange one array in place. */
    CUDASIM_CUB_INLINE void StripedToBlocked(Items &items, Site s = Site()) { StripedToBlocked(items, items, s); }
    CUDASIM_CUB_INLINE void BlockedToStriped(Items &items, Site s = Site()) { BlockedToStriped(items, items, s); }
    CUDASIM_CUB_INLINE void WarpStripedToBlocked(Items &items, Site s = Site())
    {
        WarpStripedToBlocked(items, items, s);
    }
    CUDASIM_CUB_INLINE void BlockedToWarpStriped(Items &items, Site s = Site())
    {
        BlockedToWarpStriped(items, items, s);
    }

  private:
    TempStorage &temp_;
    int tid_;
};

} // namespace cub

#endif /* CUDASIM_CUB_BLOCK_IO_H */
