/*
 * cooperative_groups/reduce.h for the CUDA simulator: cg::reduce over a
 * thread_block_tile or a coalesced_group, with cg::plus, cg::less (the least value), cg::greater
 * (the greatest), cg::bit_and, cg::bit_or, cg::bit_xor or any function of
 * two values. Every thread of the tile gets the result. It combines values
 * as CUDA does, by a butterfly of shfl_xor (offsets N/2, N/4, ..., 1), so a
 * float sum rounds as on a GPU.
 */
#ifndef CUDASIM_CG_REDUCE_H
#define CUDASIM_CG_REDUCE_H

#include "../cooperative_groups.h"

namespace cooperative_groups {

template <typename T>
struct plus {
    T operator()(const T &a, const T &b) const { return a + b; }
};
template <typename T>
struct less {
    T operator()(const T &a, const T &b) const { return b < a ? b : a; }
};
template <typename T>
struct greater {
    T operator()(const T &a, const T &b) const { return a < b ? b : a; }
};
template <typename T>
struct bit_and {
    T operator()(const T &a, const T &b) const { return a & b; }
};
template <typename T>
struct bit_or {
    T operator()(const T &a, const T &b) const { return a | b; }
};
template <typename T>
struct bit_xor {
    T operator()(const T &a, const T &b) const { return a ^ b; }
};

namespace details {
template <typename G>
struct is_tile : std::false_type {};
template <unsigned N, typename P>
struct is_tile<thread_block_tile<N, P>> : std::true_type {};
} // namespace details

template <typename Group, typename T, typename Op>
T reduce(const Group &group, T value, Op op, const char *file = __builtin_FILE(),
         int line = __builtin_LINE())
{
    static_assert(details::is_tile<Group>::value,
                  "cg::reduce works on a thread_block_tile (tiled_partition<N>): reduce a block "
                  "through its tiles and shared memory");
    if constexpr (details::is_tile<Group>::value)
        for (unsigned mask = (unsigned)Group::size() / 2; mask > 0; mask /= 2)
            value = op(value, group.shfl_xor(value, mask, file, line));
    return value;
}

/* Over a coalesced_group (binary_partition, labeled_partition): its values combined in
 * the order of the ranks. */
template <typename T, typename Op>
T reduce(const coalesced_group &group, T value, Op op, const char *file = __builtin_FILE(),
         int line = __builtin_LINE())
{
    unsigned long long vals[32];
    unsigned lanes = cudasim_warp_gather(group.cudasim_lanes(), cudasim::bits_of(value), vals,
                                         file, line);
    bool first = true;
    T acc = value;
    for (int l = 0; l < 32; l++) {
        if (!(lanes >> l & 1)) continue;
        T o = cudasim::from_bits<T>(vals[l]);
        acc = first ? o : op(acc, o);
        first = false;
    }
    return acc;
}

} // namespace cooperative_groups

#endif /* CUDASIM_CG_REDUCE_H */
