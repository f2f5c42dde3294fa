/*
 * warp_access.h: what one warp's memory instruction costs, from its lanes'
 * addresses alone, as a GPU of compute capability 7.0 or later counts it
 * (Nsight Compute's metrics; docs/simulator.md, "What a kernel's accesses
 * cost"):
 *
 *  - global memory: the instruction is one request; its sectors are the
 *    distinct 32-byte segments (aligned to 32 bytes) that its active lanes'
 *    bytes fall in. The ideal is the fewest sectors that could hold the
 *    distinct bytes it asked for: ceil(bytes / 32).
 *  - shared memory: 32 banks of 4-byte words, word w in bank w % 32. The
 *    lanes are served in phases of 128 bytes: the whole warp for accesses of
 *    up to 4 bytes, each half-warp for 8 bytes, each quarter-warp for 16. In
 *    a phase, lanes reading the same word share it (broadcast, several words
 *    at once: multicast), and each bank delivers one word per wavefront: the
 *    phase takes as many wavefronts as the bank asked for the most distinct
 *    words. The ideal is one wavefront per 128 distinct bytes of each phase
 *    (at least one); wavefronts beyond it are bank conflicts.
 *
 * Plain C (C11 and C++17 alike, no allocation), so that the simulator's
 * profiler (profile_groups.cpp) and the grader's judge, which recomputes these
 * counts from a kernel's recorded accesses
 * (tests/graded/cases/03/ex03_4_transpose.c), share one definition.
 */
#ifndef CUDASIM_WARP_ACCESS_H
#define CUDASIM_WARP_ACCESS_H

#include <stdint.h>

#define WARP_LANES 32
#define WARP_SECTOR_BYTES 32u
#define WARP_BANKS 32u

/* One lane's part of a warp's instruction: n bytes at addr (n at most 16). */
typedef struct WarpLane {
    uint64_t addr;
    unsigned lane; /* 0 .. 31 */
} WarpLane;

/* What the instruction costs: sectors (global) or wavefronts (shared), and
 * the ideal for the same bytes. */
typedef struct WarpCost {
    unsigned actual, ideal;
} WarpCost;

/* Sort a few 64-bit values in place (n is at most a few hundred). */
static inline void warp_sort_u64(uint64_t *v, unsigned n)
{
    for (unsigned i = 1; i < n; i++) {
        uint64_t x = v[i];
        unsigned j = i;
        while (j > 0 && v[j - 1] > x) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

/* The distinct bytes of lanes[0 .. n-1], each `size` bytes long. */
static inline uint64_t warp_distinct_bytes(const WarpLane *lanes, unsigned n, unsigned size)
{
    uint64_t start[WARP_LANES];
    unsigned k = 0;
    for (unsigned i = 0; i < n && k < WARP_LANES; i++) start[k++] = lanes[i].addr;
    warp_sort_u64(start, k);
    uint64_t bytes = 0, end = 0;
    for (unsigned i = 0; i < k; i++) {
        uint64_t lo = start[i], hi = start[i] + size;
        if (i > 0 && lo < end) lo = end; /* overlaps what the lanes before covered */
        if (hi > lo) bytes += hi - lo;
        if (i == 0 || hi > end) end = hi;
    }
    return bytes;
}

/* A global instruction's cost: its distinct sectors (also in *n_out, when
 * not NULL), and the ideal for its distinct bytes, ceil(bytes / 32). */
static inline WarpCost warp_sectors_cost(unsigned distinct, uint64_t bytes, unsigned *n_out)
{
    WarpCost c;
    if (n_out) *n_out = distinct;
    c.actual = distinct;
    c.ideal = (unsigned)((bytes + WARP_SECTOR_BYTES - 1) / WARP_SECTOR_BYTES);
    return c;
}

/* Whether the lanes' addresses rise (or stay) from one lane to the next, as
 * they do for most instructions of most kernels: their costs then follow in
 * one pass, without sorting. */
static inline int warp_rising(const WarpLane *lanes, unsigned n)
{
    for (unsigned i = 1; i < n; i++)
        if (lanes[i].addr < lanes[i - 1].addr) return 0;
    return 1;
}

/* warp_global_cost (below) of lanes whose addresses rise: each lane's sectors
 * start at or after the last lane's first, so a sector is new exactly when it
 * lies past the highest seen, and so is a byte. */
static inline WarpCost warp_global_cost_rising(const WarpLane *lanes, unsigned n, unsigned size,
                                               uint64_t *sectors_out, unsigned *n_out)
{
    unsigned distinct = 0, sz = size ? size : 1;
    uint64_t next_sector = 0, end = 0, bytes = 0; /* (the first lane: nothing seen) */
    for (unsigned i = 0; i < n && i < WARP_LANES; i++) {
        uint64_t first = lanes[i].addr / WARP_SECTOR_BYTES;
        uint64_t last = (lanes[i].addr + sz - 1) / WARP_SECTOR_BYTES;
        if (i > 0 && first < next_sector) first = next_sector;
        for (uint64_t x = first; x <= last && distinct < 2 * WARP_LANES; x++) {
            if (sectors_out) sectors_out[distinct] = x;
            distinct++;
        }
        if (i == 0 || last + 1 > next_sector) next_sector = last + 1;
        uint64_t lo = lanes[i].addr, hi = lanes[i].addr + size;
        if (i > 0 && lo < end) lo = end;
        if (hi > lo) bytes += hi - lo;
        if (i == 0 || hi > end) end = hi;
    }
    return warp_sectors_cost(distinct, bytes, n_out);
}

/* The sectors a global instruction touches (each lane's size bytes at its
 * address), by sorting: warp_global_cost for lanes in any order. */
static inline WarpCost warp_global_cost_sorting(const WarpLane *lanes, unsigned n, unsigned size,
                                                uint64_t *sectors_out, unsigned *n_out)
{
    uint64_t s[2 * WARP_LANES];
    unsigned k = 0;
    for (unsigned i = 0; i < n && i < WARP_LANES; i++) {
        uint64_t first = lanes[i].addr / WARP_SECTOR_BYTES;
        uint64_t last = (lanes[i].addr + (size ? size : 1) - 1) / WARP_SECTOR_BYTES;
        for (uint64_t x = first; x <= last && k < 2 * WARP_LANES; x++) s[k++] = x;
    }
    warp_sort_u64(s, k);
    unsigned distinct = 0;
    for (unsigned i = 0; i < k; i++)
        if (i == 0 || s[i] != s[i - 1]) s[distinct++] = s[i];
    if (sectors_out)
        for (unsigned i = 0; i < distinct; i++) sectors_out[i] = s[i];
    return warp_sectors_cost(distinct, warp_distinct_bytes(lanes, n, size), n_out);
}

/* The sectors a global instruction touches (each lane's size bytes at its
 * address); *sectors_out, when not NULL, receives them (at most 2 * n).
 * Returns the cost: distinct sectors, and the ideal ceil(bytes / 32). */
static inline WarpCost warp_global_cost(const WarpLane *lanes, unsigned n, unsigned size,
                                        uint64_t *sectors_out, unsigned *n_out)
{
    /* The same bytes for every lane (a broadcast), or each lane's right after
     * the last one's (a row read along): one span of bytes (that does not
     * wrap past the top of the address space, as none the simulator sees). */
    uint64_t a = n ? lanes[0].addr : 0, step = n > 1 ? lanes[1].addr - a : 0;
    if (n && size && size <= 16 && (step == 0 || step == size) && a + (uint64_t)n * size > a) {
        unsigned i = 2;
        while (i < n && lanes[i].addr - lanes[i - 1].addr == step) i++;
        if (i >= n) {
            uint64_t bytes = step ? (uint64_t)n * size : size;
            uint64_t first = a / WARP_SECTOR_BYTES, last = (a + bytes - 1) / WARP_SECTOR_BYTES;
            if (sectors_out)
                for (uint64_t x = first; x <= last; x++) sectors_out[x - first] = x;
            return warp_sectors_cost((unsigned)(last - first + 1), bytes, n_out);
        }
    }
    if (warp_rising(lanes, n)) return warp_global_cost_rising(lanes, n, size, sectors_out, n_out);
    return warp_global_cost_sorting(lanes, n, size, sectors_out, n_out);
}

/* How many lanes a phase of a shared access of `size` bytes serves: 128 bytes' worth. */
static inline unsigned warp_phase_lanes(unsigned size)
{
    return size <= 4 ? 32u : size <= 8 ? 16u : 8u;
}

/* The wavefronts a shared-memory instruction needs, by sorting each phase's
 * words: warp_shared_cost for any lanes. */
static inline WarpCost warp_shared_cost_sorting(const WarpLane *lanes, unsigned n, unsigned size)
{
    WarpCost c = {0, 0};
    unsigned per = warp_phase_lanes(size), phases = WARP_LANES / per;
    unsigned shift = per == 32 ? 5 : per == 16 ? 4 : 3; /* lane / per, without a division */
    for (unsigned p = 0; p < phases; p++) {
        uint64_t words[WARP_LANES * 5]; /* 16 bytes span 5 words when unaligned */
        WarpLane in[WARP_LANES];
        unsigned k = 0, m = 0;
        for (unsigned i = 0; i < n && i < WARP_LANES; i++) {
            if (lanes[i].lane >> shift != p) continue;
            in[m++] = lanes[i];
            uint64_t first = lanes[i].addr / 4, last = (lanes[i].addr + (size ? size : 1) - 1) / 4;
            for (uint64_t w = first; w <= last && k < WARP_LANES * 5; w++) words[k++] = w;
        }
        if (!m) continue;
        warp_sort_u64(words, k);
        unsigned per_bank[WARP_BANKS] = {0}, most = 0;
        for (unsigned i = 0; i < k; i++) {
            if (i > 0 && words[i] == words[i - 1]) continue; /* broadcast: one word, many lanes */
            unsigned b = (unsigned)(words[i] % WARP_BANKS);
            if (++per_bank[b] > most) most = per_bank[b];
        }
        uint64_t bytes = warp_distinct_bytes(in, m, size);
        unsigned ideal = (unsigned)((bytes + 127) / 128);
        c.actual += most;
        c.ideal += ideal ? ideal : 1;
    }
    return c;
}

/* The wavefronts a shared-memory instruction needs, addresses counted from
 * the start of the block's shared memory (whose word 0 is in bank 0). Lanes
 * of up to 4 bytes each are one phase; when their addresses rise and their
 * words lie within 32 consecutive ones, every bank holds at most one of the
 * words asked for (one wavefront) and their bytes at most 128 (the ideal,
 * one): a broadcast, a row read along, most of a kernel's shared accesses. */
static inline WarpCost warp_shared_cost(const WarpLane *lanes, unsigned n, unsigned size)
{
    if (n && size && size <= 4 && (lanes[n - 1].addr + size - 1) / 4 - lanes[0].addr / 4 < WARP_BANKS &&
        warp_rising(lanes, n)) {
        WarpCost one = {1, 1};
        return one;
    }
    return warp_shared_cost_sorting(lanes, n, size);
}

#endif /* CUDASIM_WARP_ACCESS_H */
