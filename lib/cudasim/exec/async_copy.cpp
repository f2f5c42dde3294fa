/*
 * async_copy.cpp: asynchronous copies (cuda::memcpy_async, cooperative groups'
 * memcpy_async), as a GPU makes them. A copy from global to shared memory
 * (cp.async) reads its source when it is issued (checked and counted as the
 * issuing thread's loads) and lands in shared memory when it completes: when
 * the phase of the barrier it is bound to completes (barriers.cpp), or when
 * its thread waits for the group of copies it committed it in. Until then the
 * destination holds what it held, and a thread that reads it (or writes it)
 * is reported: it reads the old bytes (or will see its write overwritten). A
 * copy that lands is a write of the issuing thread at the issuing line, for
 * the race check: another thread's read that no barrier orders with it is a
 * race. Every other copy (another pair of memory spaces, or one less than 4
 * bytes aligned) is made at once by the calling thread, as libcu++ makes it.
 */
#include <algorithm>
#include <cstring>
#include <deque>
#include <unordered_map>

#include "../internal.h"

namespace cudasim {
namespace internal {

unsigned long long g_async_pending = 0; /* words of g_words that copies will write */

namespace {

/* A copy issued and not landed yet. */
struct Copy {
    int tid; /* the issuing thread, in its block */
    uint3 idx;
    char *dst;
    size_t n;
    const void *pc;
    unsigned phase; /* bound to a barrier: the phase it completes with */
    unsigned group; /* else: the thread's group (its commits before it) */
    std::vector<char> bytes; /* what it read from its source */
};

/* The running block's copies: each thread's not bound to a barrier, in the
 * order it issued them (so by group), and each barrier's. */
std::vector<std::deque<Copy>> g_threads;
std::unordered_map<const void *, std::vector<Copy>> g_barriers;
std::vector<unsigned> g_committed; /* per thread: the groups it has committed */
unsigned long long g_block = 0;

/* Per 4-byte word of the arena: how many copies will write it, and the last
 * of them to be issued (for the reports). */
struct Word {
    uint16_t n;
    uint3 idx;
    const void *pc;
};
std::vector<Word> g_words;
bool g_landing = false; /* a landing's own write is not reported */

/* A new block: another block's copies are gone with its shared memory. */
void this_block()
{
    if (g_block == g_launch.block_serial) return;
    g_block = g_launch.block_serial;
    g_threads.assign((size_t)g_launch.nthreads, std::deque<Copy>());
    g_committed.assign((size_t)g_launch.nthreads, 0);
    g_barriers.clear();
    g_words.assign(g_words.size(), Word{0, uint3{0, 0, 0}, nullptr});
    g_async_pending = 0;
}

/* The running thread's committed groups and copies. */
unsigned &committed()
{
    this_block();
    if ((size_t)g_launch.tid >= g_committed.size()) {
        g_committed.resize(g_launch.tid + 1, 0);
        g_threads.resize(g_launch.tid + 1);
    }
    return g_committed[g_launch.tid];
}

void mark(const Copy &c, int step)
{
    size_t w0 = (size_t)(c.dst - g_arena) / 4, w1 = (size_t)(c.dst + c.n - 1 - g_arena) / 4;
    if (g_words.size() <= w1) g_words.resize(w1 + 1, Word{0, uint3{0, 0, 0}, nullptr});
    for (size_t w = w0; w <= w1; w++) {
        Word &word = g_words[w];
        if (step > 0) {
            if (word.n++ == 0) g_async_pending++;
            word.idx = c.idx;
            word.pc = c.pc;
        } else if (--word.n == 0) {
            g_async_pending--;
        }
    }
}

/* The largest of 16, 8, 4, 2, 1 that divides a. */
size_t piece_of(uintptr_t a)
{
    size_t p = 16;
    while (p > 1 && (a & (p - 1))) p >>= 1;
    return p;
}

/* The checks of n bytes at p in pieces of `piece` bytes, as kind. */
void access(const void *p, size_t n, size_t piece, int kind, int flags, const void *pc)
{
    for (size_t at = 0; at < n; at += piece)
        cudasim_library_access((const char *)p + at, piece < n - at ? piece : n - at, kind, flags, pc);
}

bool in_shared(const void *p) { return (uintptr_t)p - g_sh_lo < g_sh_span; }
bool in_global(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    return a - g_rg_lo < g_rg_span || (a - g_var_lo < g_var_span && find_variable(a));
}

/* memcheck of a copy's destination in shared memory, when it is issued: one
 * __shared__ variable must hold it all. */
void check_destination(const char *dst, size_t n, const void *pc)
{
    if (!g_launch.checking || !g_launch.check_accesses) return;
    uintptr_t a = (uintptr_t)dst, base = (uintptr_t)g_arena;
    if (a < base || a - base + n > g_arena_used) report_oob(true, a, n, STORE, pc);
    size_t g0 = (a - base) / 4, g1 = (a - base + n - 1) / 4;
    for (size_t g = g0; g <= g1; g++)
        if (!g_arena_var[g] || g_arena_var[g] != g_arena_var[g0]) report_oob(true, a, n, STORE, pc);
}

/* "(x,y,z)" */
std::string idx_text(uint3 t)
{
    char buf[48];
    snprintf(buf, sizeof buf, "(%u,%u,%u)", t.x, t.y, t.z);
    return buf;
}

/* The first word of [a, a + n) that a copy will write, or NULL. */
const Word *pending_word(uintptr_t a, size_t n, uintptr_t *at)
{
    size_t w0 = (a - (uintptr_t)g_arena) / 4, w1 = (a + n - 1 - (uintptr_t)g_arena) / 4;
    for (size_t w = w0; w <= w1 && w < g_words.size(); w++)
        if (g_words[w].n) {
            *at = (uintptr_t)g_arena + w * 4;
            return &g_words[w];
        }
    return nullptr;
}

/* The running thread's access (what: "reads", "writes", "copies into") at pc
 * of the word at `at`, which the copy of `word` has not reached: reported once
 * per pair of lines, as races are. */
void report_early(const Word &word, uintptr_t at, const char *what, const char *until,
                  const void *pc)
{
    uint64_t mine = pc_id(pc), theirs = pc_id(word.pc);
    if (hazard_reported(5, mine, theirs)) return;
    std::string my_line = source_line(pc), their_line = source_line(word.pc);
    if (!first_report(5, mine, theirs, my_line + "|" + their_line)) return;
    std::string where = shared_name(at - (uintptr_t)g_arena);
    const uint3 &b = cudasim_block_idx;
    report("data race in kernel %s, block (%u,%u,%u): thread %s %s %s at %s before the "
           "memcpy_async that thread %s issued at %s has landed there (a copy lands when its "
           "thread waits for it, with consumer_wait or cg::wait, or when its barrier's phase "
           "completes; until then %s)",
           g_launch.cfg->name, b.x, b.y, b.z, idx_text(cudasim_thread_idx).c_str(), what,
           where.c_str(), my_line.empty() ? "an unknown line" : my_line.c_str(),
           idx_text(word.idx).c_str(), their_line.empty() ? "an unknown line" : their_line.c_str(),
           until);
}

/* The copy lands: written, for the checks, by the thread that issued it. */
void land(const Copy &c)
{
    mark(c, -1);
    const int tid = g_launch.tid;
    const uint16_t wsync = g_launch.wsync;
    const uint3 idx = cudasim_thread_idx;
    g_launch.tid = c.tid;
    cudasim_thread_idx = c.idx;
    if (g_launch.fibers && c.tid < g_launch.nthreads) g_launch.wsync = g_launch.threads[c.tid].wsync;
    g_landing = true;
    access(c.dst, c.n, piece_of((uintptr_t)c.dst | c.n), STORE, CUDASIM_ACCESS_UNCOUNTED, c.pc);
    g_landing = false;
    memcpy(c.dst, c.bytes.data(), c.n);
    g_launch.tid = tid;
    g_launch.wsync = wsync;
    cudasim_thread_idx = idx;
}

} // namespace

void async_copies_land(const void *bar, unsigned phase)
{
    if (g_block != g_launch.block_serial) return;
    auto it = g_barriers.find(bar);
    if (it == g_barriers.end()) return;
    std::vector<Copy> &v = it->second;
    size_t kept = 0;
    for (size_t i = 0; i < v.size(); i++) { /* in the order they were issued */
        if (v[i].phase <= phase) land(v[i]);
        else v[kept++] = std::move(v[i]);
    }
    v.resize(kept);
}

/* A shared access while copies are under way: one that touches a word a copy
 * will write is the program's bug (the kernel goes on). */
void async_shared_access(uintptr_t a, size_t n, AccessKind kind, const void *pc)
{
    if (g_landing || g_block != g_launch.block_serial) return;
    uintptr_t at;
    const Word *w = pending_word(a, n, &at);
    if (w)
        report_early(*w, at, kind == LOAD ? "reads" : "writes",
                     kind == LOAD ? "the destination holds its old bytes"
                                  : "the copy will overwrite what is written now",
                     pc);
}

} // namespace internal
} // namespace cudasim

using namespace cudasim::internal;

extern "C" void cudasim_async_copy(void *dst, const void *src, size_t n, size_t align, void *bar,
                                   const void *pc)
{
    uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
    if (align > 1 && ((d | s | n) & (align - 1))) {
        char what[400];
        snprintf(what, sizeof what,
                 "memcpy_async of %zu bytes from %p to %p with cuda::aligned_size_t<%zu>: the "
                 "size and both addresses must be multiples of %zu (on a GPU: a misaligned "
                 "address)",
                 n, src, dst, align, align);
        cudasim_device_fault(cudaErrorMisalignedAddress, what, pc);
    }
    if (!n) return;
    size_t piece = piece_of(d | s | n);
    unsigned &group = committed();
    if (piece < 4 || !in_shared(dst) || !in_global(src)) {
        /* At once, by this thread. */
        access(src, n, piece, LOAD, 0, pc);
        access(dst, n, piece, STORE, 0, pc);
        memmove(dst, src, n);
        return;
    }
    /* Global to shared: the source is read now (memcheck, initcheck, races;
     * counted as global loads), the destination's bounds checked now and
     * written when the copy lands. */
    access(src, n, piece, LOAD, 0, pc);
    check_destination((const char *)dst, n, pc);
    uintptr_t at;
    if (g_async_pending && g_launch.checking)
        if (const Word *w = pending_word(d, n, &at))
            report_early(*w, at, "copies into",
                         "which of the two lands last, and so what stays there, is undefined", pc);
    Copy c;
    c.tid = g_launch.tid;
    c.idx = cudasim_thread_idx;
    c.dst = (char *)dst;
    c.n = n;
    c.pc = pc;
    c.phase = bar ? ((const uint32_t *)bar)[3] : 0; /* the barrier's phase under way */
    c.group = group;
    c.bytes.assign((const char *)src, (const char *)src + n);
    mark(c, +1);
    if (bar) g_barriers[bar].push_back(std::move(c));
    else g_threads[g_launch.tid].push_back(std::move(c));
}

extern "C" void cudasim_async_commit(void) { committed()++; }

extern "C" void cudasim_async_wait_prior(unsigned n)
{
    unsigned &group = committed();
    if (group <= n) return;
    const unsigned below = group - n;
    std::deque<Copy> &mine = g_threads[g_launch.tid];
    while (!mine.empty() && mine.front().group < below) {
        land(mine.front());
        mine.pop_front();
    }
}

extern "C" void cudasim_async_bind(void *bar)
{
    unsigned &group = committed();
    std::deque<Copy> &mine = g_threads[g_launch.tid];
    const unsigned phase = ((const uint32_t *)bar)[3];
    std::vector<Copy> &bound = g_barriers[bar];
    size_t first = mine.size();
    while (first > 0 && mine[first - 1].group == group) first--;
    for (size_t i = first; i < mine.size(); i++) {
        mine[i].phase = phase;
        bound.push_back(std::move(mine[i]));
    }
    mine.erase(mine.begin() + (std::ptrdiff_t)first, mine.end());
}
