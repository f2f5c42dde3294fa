/*
 * cooperative_groups.h for the CUDA simulator: the groups a course uses.
 * thread_block (this_thread_block(): sync, thread_rank, size, the block's
 * and thread's indices), thread_block_tile<N> for N = 1, 2, 4, ..., 32
 * (tiled_partition<N>: sync, the shuffles shfl, shfl_up, shfl_down,
 * shfl_xor, and the votes any, all, ballot), thread_group from
 * tiled_partition(parent, n), and grid_group (this_grid(): its indices, and
 * sync() in a cooperative launch, exec/cooperative.cpp). Every
 * operation is the simulator's __syncthreads or warp operation over the
 * group's lanes, so a group that some of its threads do not reach is
 * reported as those are, at the program's line. cg::reduce is in
 * <cooperative_groups/reduce.h>.
 *
 * coalesced_threads() (the lanes __activemask() gives), labeled_partition
 * and binary_partition are coalesced_groups.
 *
 * Not here, refused when compiled: the tiles of more than 32 threads.
 */
#ifndef CUDASIM_COOPERATIVE_GROUPS_H
#define CUDASIM_COOPERATIVE_GROUPS_H

#ifndef CUDASIM_KERNEL_H
#error "cooperative_groups.h is CUDA C++: include it in a .cu file"
#endif

#include <type_traits>

namespace cooperative_groups {

namespace details {
/* The calling thread's rank in its block, and the block's size. */
inline unsigned block_rank()
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
inline unsigned block_size() { return blockDim.x * blockDim.y * blockDim.z; }
/* The lanes of the calling thread's warp in its group of n (a power of 2). */
inline unsigned lanes_of(unsigned n)
{
    if (n >= 32) return 0xffffffffu;
    unsigned base = block_rank() % 32 / n * n;
    return ((1u << n) - 1) << base;
}
} // namespace details

/* A group of n threads of the block: the whole block, or a part of a warp. */
class thread_group {
  public:
    unsigned long long size() const { return size_; }
    unsigned long long num_threads() const { return size_; }
    unsigned long long thread_rank() const { return details::block_rank() % size_; }
    void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE()) const
    {
        if (size_ == details::block_size())
            cudasim_syncthreads(file, line);
        else
            cudasim_warp_op(cudasim::WARP_SYNC, details::lanes_of(size_), 0, 0, 32, file, line);
    }

  protected:
    explicit thread_group(unsigned size) : size_(size) {}
    unsigned size_;
};

class thread_block : public thread_group {
  public:
    thread_block() : thread_group(details::block_size()) {}
    unsigned long long thread_rank() const { return details::block_rank(); }
    void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE()) const
    {
        cudasim_syncthreads(file, line);
    }
    dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
    dim3 dim_threads() const { return dim3(blockDim.x, blockDim.y, blockDim.z); }
    dim3 group_dim() const { return dim_threads(); }
};

inline thread_block this_thread_block() { return thread_block(); }

/* N consecutive threads of a warp (the parent is only part of the type). */
template <unsigned N, typename Parent = void>
class thread_block_tile : public thread_group {
    static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0,
                  "the CUDA simulator has thread_block_tile<N> for N = 1, 2, 4, 8, 16, 32 (tiles "
                  "of more than a warp need block_tile_memory, which it does not have)");

  public:
    thread_block_tile() : thread_group(N) {}
    template <typename P>
    thread_block_tile(const thread_block_tile<N, P> &) : thread_group(N)
    {
    }
    static constexpr unsigned long long size() { return N; }
    static constexpr unsigned long long num_threads() { return N; }
    unsigned long long thread_rank() const { return details::block_rank() % N; }
    unsigned long long meta_group_rank() const { return details::block_rank() / N; }
    unsigned long long meta_group_size() const { return (details::block_size() + N - 1) / N; }
    void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE()) const
    {
        cudasim_warp_op(cudasim::WARP_SYNC, details::lanes_of(N), 0, 0, 32, file, line);
    }
    template <typename T>
    T shfl(T v, int src, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const
    {
        return cudasim::shfl(cudasim::SHFL_IDX, details::lanes_of(N), v, file, line, src, N);
    }
    template <typename T>
    T shfl_up(T v, unsigned delta, const char *file = __builtin_FILE(),
              int line = __builtin_LINE()) const
    {
        return cudasim::shfl(cudasim::SHFL_UP, details::lanes_of(N), v, file, line, (int)delta, N);
    }
    template <typename T>
    T shfl_down(T v, unsigned delta, const char *file = __builtin_FILE(),
                int line = __builtin_LINE()) const
    {
        return cudasim::shfl(cudasim::SHFL_DOWN, details::lanes_of(N), v, file, line, (int)delta,
                             N);
    }
    template <typename T>
    T shfl_xor(T v, unsigned mask, const char *file = __builtin_FILE(),
               int line = __builtin_LINE()) const
    {
        return cudasim::shfl(cudasim::SHFL_XOR, details::lanes_of(N), v, file, line, (int)mask, N);
    }
    int any(int p, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const
    {
        return (int)cudasim_warp_op(cudasim::ANY, details::lanes_of(N), p != 0, 0, 32, file, line);
    }
    int all(int p, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const
    {
        return (int)cudasim_warp_op(cudasim::ALL, details::lanes_of(N), p != 0, 0, 32, file, line);
    }
    /* Bit i: the predicate of the tile's thread of rank i. */
    unsigned ballot(int p, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const
    {
        unsigned all = (unsigned)cudasim_warp_op(cudasim::BALLOT, details::lanes_of(N), p != 0, 0,
                                                 32, file, line);
        return N == 32 ? all : all >> (details::block_rank() % 32 / N * N);
    }
};

template <unsigned N, typename Parent>
thread_block_tile<N, Parent> tiled_partition(const Parent &)
{
    return thread_block_tile<N, Parent>();
}

/* tiled_partition(parent, n): groups of n threads (a power of 2 up to 32, or
 * the whole block). */
class cudasim_tile : public thread_group {
  public:
    explicit cudasim_tile(unsigned n) : thread_group(n) {}
};
inline thread_group tiled_partition(const thread_group &, unsigned n)
{
    return cudasim_tile(n);
}

template <typename Group>
void sync(const Group &g, const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    g.sync(file, line);
}

/* The grid: its indices, and its sync (a cooperative launch's only). */
class grid_group {
  public:
    unsigned long long num_blocks() const
    {
        return (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
    }
    unsigned long long block_rank() const
    {
        return blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    }
    unsigned long long size() const { return num_blocks() * details::block_size(); }
    unsigned long long num_threads() const { return size(); }
    unsigned long long thread_rank() const
    {
        return block_rank() * details::block_size() + details::block_rank();
    }
    dim3 group_dim() const { return dim3(gridDim.x, gridDim.y, gridDim.z); }
    dim3 dim_blocks() const { return group_dim(); }
    dim3 block_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    /* a cooperative launch's grid (cudaLaunchCooperativeKernel), which alone may sync */
    bool is_valid() const { return cudasim_grid_valid() != 0; }
    /* every thread of every block of the grid waits here until all have come */
    void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE()) const
    {
        cudasim_grid_sync(file, line);
    }
};
inline grid_group this_grid() { return grid_group(); }

/* The lanes of a warp that run together (coalesced_threads(): __activemask()), or a
 * part of them (labeled_partition, binary_partition). Ranks are in lane order; every
 * operation is a warp operation over the group's lanes. */
class coalesced_group : public thread_group {
  public:
    explicit coalesced_group(unsigned lanes) : thread_group(__builtin_popcount(lanes)), lanes_(lanes) {}
    unsigned long long size() const { return size_; }
    unsigned long long num_threads() const { return size_; }
    unsigned long long thread_rank() const
    {
        return __builtin_popcount(lanes_ & ((1u << details::block_rank() % 32) - 1));
    }
    unsigned long long meta_group_rank() const { return 0; }
    unsigned long long meta_group_size() const { return 1; }
    void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE()) const
    {
        cudasim_warp_op(cudasim::WARP_SYNC, lanes_, 0, 0, 32, file, line);
    }
    template <typename T>
    T shfl(T v, unsigned src_rank, const char *file = __builtin_FILE(),
           int line = __builtin_LINE()) const
    {
        return cudasim::shfl(cudasim::SHFL_IDX, lanes_, v, file, line, lane_of(src_rank % size_));
    }
    template <typename T>
    T shfl_up(T v, unsigned delta, const char *file = __builtin_FILE(),
              int line = __builtin_LINE()) const
    {
        unsigned r = (unsigned)thread_rank();
        return cudasim::shfl(cudasim::SHFL_IDX, lanes_, v, file, line, lane_of(r >= delta ? r - delta : r));
    }
    template <typename T>
    T shfl_down(T v, unsigned delta, const char *file = __builtin_FILE(),
                int line = __builtin_LINE()) const
    {
        unsigned r = (unsigned)thread_rank();
        return cudasim::shfl(cudasim::SHFL_IDX, lanes_, v, file, line,
                             lane_of(r + delta < size_ ? r + delta : r));
    }
    int any(int p, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const
    {
        return (int)cudasim_warp_op(cudasim::ANY, lanes_, p != 0, 0, 32, file, line);
    }
    int all(int p, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const
    {
        return (int)cudasim_warp_op(cudasim::ALL, lanes_, p != 0, 0, 32, file, line);
    }
    /* Bit i: the predicate of the group's thread of rank i. */
    unsigned ballot(int p, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const
    {
        unsigned all = (unsigned)cudasim_warp_op(cudasim::BALLOT, lanes_, p != 0, 0, 32, file, line);
        unsigned r = 0, i = 0;
        for (int l = 0; l < 32; l++)
            if (lanes_ >> l & 1) r |= (all >> l & 1u) << i++;
        return r;
    }
    unsigned cudasim_lanes() const { return lanes_; }

  private:
    unsigned lane_of(unsigned rank) const
    {
        unsigned m = lanes_;
        for (unsigned i = 0; i < rank && m; i++) m &= m - 1;
        return m ? (unsigned)__builtin_ctz(m) : details::block_rank() % 32;
    }
    unsigned lanes_;
};
inline coalesced_group coalesced_threads(const char *file = __builtin_FILE(),
                                         int line = __builtin_LINE())
{
    return coalesced_group(cudasim_activemask(file, line));
}
namespace details {
inline unsigned lanes_of_group(const coalesced_group &g) { return g.cudasim_lanes(); }
template <unsigned N, typename P>
inline unsigned lanes_of_group(const thread_block_tile<N, P> &) { return lanes_of(N); }
} // namespace details
/* The threads of the group with the same label (__match_any_sync). */
template <typename Group, typename Label>
coalesced_group labeled_partition(const Group &g, Label label, const char *file = __builtin_FILE(),
                                  int line = __builtin_LINE())
{
    return coalesced_group(cudasim::match_any(details::lanes_of_group(g), label, file, line));
}
/* The threads of the group whose predicate is as this thread's. */
template <typename Group>
coalesced_group binary_partition(const Group &g, bool pred, const char *file = __builtin_FILE(),
                                 int line = __builtin_LINE())
{
    unsigned lanes = details::lanes_of_group(g);
    unsigned yes = (unsigned)cudasim_warp_op(cudasim::BALLOT, lanes, pred, 0, 32, file, line);
    return coalesced_group(pred ? yes & lanes : lanes & ~yes);
}

} // namespace cooperative_groups

#endif /* CUDASIM_COOPERATIVE_GROUPS_H */
