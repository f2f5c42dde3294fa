/*
 * check_races.cpp: racecheck within a block. For each word of shared memory,
 * and of global memory, the last write and the reads since the last barrier
 * are kept with their threads and code; a write and a read, or two writes, by
 * different threads with no barrier between them (in one warp: no __syncwarp
 * or warp operation either) is reported with both lines, whatever order the
 * simulator ran the threads in. The cells of global memory last the whole
 * launch, for the check between blocks (check_races_blocks.cpp).
 */
#include <algorithm>

#include "check_races.h"

namespace cudasim {
namespace internal {

std::string thread_text(int tid)
{
    const dim3 &b = cudasim_block_dim;
    char buf[64];
    snprintf(buf, sizeof buf, "(%u,%u,%u)", tid % b.x, tid / b.x % b.y, tid / (b.x * b.y));
    return buf;
}

/* A race between the running thread's access at pc and thread `other`'s at
 * other_pc (a pc id), on the word at a. */
__attribute__((noinline, cold)) void report_race(Race kind, bool shared, uintptr_t a, size_t n, int other, uint16_t other_wsync,
                 const void *other_code, const void *pc)
{
    (void)other_wsync;
    uint64_t mine = pc_id(pc), other_pc = pc_id(other_code);
    uint64_t lo = mine < other_pc ? mine : other_pc, hi = mine < other_pc ? other_pc : mine;
    int k = kind == WAW ? 3 : 2;
    if (hazard_reported(k, lo, hi)) return;
    std::string my_line = source_line(pc), their_line = source_line(other_code);
    if (!first_report(k, lo, hi, std::min(my_line, their_line) + "|" + std::max(my_line, their_line)))
        return;
    std::string where = shared ? shared_name(a - (uintptr_t)g_arena) : global_name(a, n);
    std::string me = thread_text(g_launch.tid), them = thread_text(other);
    if (my_line.empty()) my_line = "an unknown line";
    if (their_line.empty()) their_line = "an unknown line";
    const char *barrier = (other >> 5) == (g_launch.tid >> 5) ? "__syncwarp() or __syncthreads()"
                                                              : "__syncthreads()";
    const uint3 &b = cudasim_block_idx;
    if (kind == WAW)
        report("data race in kernel %s, block (%u,%u,%u): threads %s and %s both write %s, at %s and "
               "%s, with no %s between them (which value stays depends on timing: use an atomic, "
               "or a barrier)",
               g_launch.cfg->name, b.x, b.y, b.z, them.c_str(), me.c_str(), where.c_str(),
               their_line.c_str(), my_line.c_str(), barrier);
    else
        report("data race in kernel %s, block (%u,%u,%u): thread %s writes %s at %s and thread %s "
               "reads it at %s, with no %s between them (the read may see the value before or "
               "after the write)",
               g_launch.cfg->name, b.x, b.y, b.z, (kind == RAW ? them : me).c_str(), where.c_str(),
               (kind == RAW ? their_line : my_line).c_str(), (kind == RAW ? me : them).c_str(),
               (kind == RAW ? my_line : their_line).c_str(), barrier);
}

bool g_between_blocks = false;

namespace {

/* Race cells of global memory: a hash table of the words the launch touched,
 * emptied (in effect) when the next launch starts, so that a block's access
 * finds what earlier blocks did. A launch that touches more than
 * kLaunchWordsMax words is checked a block at a time from then on (the table
 * emptied as each block starts, races between blocks no longer looked for),
 * and a block that touches more than kGlobalWordsMax is checked no further
 * for races on global memory. */
std::vector<GlobalCell> g_gtab;
size_t g_gmask = 0; /* the part of g_gtab in use, less one */
size_t g_gcount = 0;
unsigned long long g_gtag = 0;    /* the tag of the cells in use */
unsigned long long g_glaunch = 0; /* the launch (its first block) the table is for */
bool g_gfull = false, g_per_block = false;
/* The last cell found (a thread often comes back to its word: a sum, a spin). */
uintptr_t g_last_word = ~(uintptr_t)0;
GlobalCell *g_last_cell = nullptr;
const size_t kGlobalFirst = 4096, kGlobalWordsMax = (size_t)1 << 19,
             kLaunchWordsMax = (size_t)1 << 16;
const unsigned long long kBlockTag = 1ull << 63; /* per-block tags: serial | kBlockTag */

inline size_t global_hash(uintptr_t word) { return (size_t)((word * 0x9E3779B97F4A7C15ull) >> 24); }

/* Start an empty table (small, so that a small launch stays in the cache). */
void start_table(unsigned long long tag)
{
    g_last_cell = nullptr;
    g_gtag = tag;
    g_gcount = 0;
    g_gfull = false;
    g_gmask = kGlobalFirst - 1;
    if (g_gtab.size() < kGlobalFirst) g_gtab.resize(kGlobalFirst);
}

void grow_table()
{
    g_last_cell = nullptr;
    static auto &kept = *new std::vector<GlobalCell>; /* (its memory kept for the next time) */
    kept.clear();
    for (size_t i = 0; i <= g_gmask; i++)
        if (g_gtab[i].tag == g_gtag) {
            kept.push_back(g_gtab[i]);
            g_gtab[i].tag = 0;
        }
    g_gmask = 2 * g_gmask + 1;
    if (g_gtab.size() <= g_gmask) g_gtab.resize(g_gmask + 1);
    for (const GlobalCell &e : kept) {
        size_t h = global_hash(e.word) & g_gmask;
        while (g_gtab[h].tag == g_gtag) h = (h + 1) & g_gmask;
        g_gtab[h] = e;
    }
}

} // namespace

/* A grid sync of a cooperative launch: what every block did before it is
 * ordered before what any block does after it, as between two launches: the
 * cells start empty again (a tag of their own, the launch's table kept). */
void global_cells_forget()
{
    static unsigned long long syncs = 0;
    if (g_glaunch != g_launch.first_block || g_per_block) return; /* nothing kept across blocks */
    start_table(g_launch.first_block | (++syncs & 0x3fffff) << 40);
}

/* The table holds what this launch touched (or, past kLaunchWordsMax words,
 * this block); it starts small each launch and doubles as it fills. */
GlobalCell *global_cell(uintptr_t word)
{
    if (g_order.block != g_launch.block_serial) order_new_block();
    if (g_glaunch != g_launch.first_block) {
        g_glaunch = g_launch.first_block;
        g_per_block = false;
        g_between_blocks = true;
        start_table(g_launch.first_block);
    } else if (g_per_block && g_gtag != (g_launch.block_serial | kBlockTag)) {
        start_table(g_launch.block_serial | kBlockTag);
    }
    if (g_gfull) return nullptr;
    if (word == g_last_word && g_last_cell) return g_last_cell;
    if (2 * (g_gcount + 1) > g_gmask + 1) {
        if (g_gmask + 1 < 2 * (g_per_block ? kGlobalWordsMax : kLaunchWordsMax)) {
            grow_table();
        } else if (!g_per_block) {
            g_per_block = true;
            g_between_blocks = false;
            start_table(g_launch.block_serial | kBlockTag);
        } else {
            g_gfull = true;
            return nullptr;
        }
    }
    for (size_t h = global_hash(word) & g_gmask;; h = (h + 1) & g_gmask) {
        GlobalCell &e = g_gtab[h];
        if (e.tag != g_gtag) {
            e.word = word;
            e.tag = g_gtag;
            e.c.w_stamp = e.c.r_stamp = 0;
            e.c.r2_tid = kNone;
            e.a_block = 0;
            g_gcount++;
        } else if (e.word != word) {
            continue;
        }
        g_last_word = word;
        return g_last_cell = &e;
    }
}

namespace {
/* The device buffers a launch's arguments point into (start addresses). */
std::vector<uintptr_t> g_arg_buffers;
void note_arg_buffer(const void *p)
{
    uintptr_t start;
    const Alloc *a = find_alloc(p, &start);
    if (a && a->device) g_arg_buffers.push_back(start);
}
} // namespace

/* g_launch.readonly: the buffers that only pointers to const reach. */
void find_read_only_buffers(const cudasim::Args *args)
{
    g_launch.readonly_n = 0;
    if (!g_launch.global_races) return;
    g_arg_buffers.clear();
    args->writable_pointers(note_arg_buffer);
    std::vector<uintptr_t> writable = g_arg_buffers;
    g_arg_buffers.clear();
    args->pointers(note_arg_buffer);
    for (uintptr_t start : g_arg_buffers) {
        if (std::find(writable.begin(), writable.end(), start) != writable.end()) continue;
        bool seen = false;
        for (int i = 0; i < g_launch.readonly_n; i++)
            seen = seen || g_launch.readonly[i].lo == start;
        if (seen || g_launch.readonly_n == 8) continue;
        g_launch.readonly[g_launch.readonly_n++] = ReadOnly{start, g_allocs[start].size};
    }
}

} // namespace internal
} // namespace cudasim
