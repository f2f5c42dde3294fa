/*
 * check_races_blocks.cpp: racecheck between the blocks of a launch. Blocks
 * run one after another here, but at the same time, and in any order, on a
 * GPU: two accesses of one word of global memory (or of a __device__
 * variable) by different blocks of a launch, at least one of them a plain
 * write, race unless something orders them. Within a launch only one thing
 * does: a block publishes what it wrote with __threadfence() followed by an
 * atomic (or volatile) write, a release, and a block that then reads that
 * address with an atomic (or volatile) read, an acquire, sees everything the
 * first block wrote before its fence (the threadFenceReduction pattern: each
 * block writes its partial sum, fences, takes a ticket; the last one reads
 * them all). Atomics never race with each other.
 *
 * Each block counts its releases (its epoch); each access kept in a cell
 * carries its block and epoch; an address that some block released to is a
 * sync object that remembers, per block, the epochs it released, and the sync
 * objects that block had acquired (so that orders chain). A later block's
 * access that conflicts with a kept one is ordered after it when the block
 * acquired a sync object to which the other block released past that epoch.
 * Blocks never run again once done, so a block's releases are all there when
 * a later block looks. (A cooperative launch's blocks run again after a grid
 * sync, which orders everything before it with everything after: the check
 * starts afresh there, races_grid_sync.)
 *
 * A read that races with another block's write is given the value the word
 * had before that block wrote it: the result of the read running first, as it
 * may on a GPU. `*total += sum` without an atomic then loses updates here too.
 * A correct program never meets such a read, and runs as it always did.
 */
#include <algorithm>
#include <unordered_map>

#include "check_races.h"

namespace cudasim {
namespace internal {

BlockOrder g_order;
Replay g_replay[4];
int g_replay_n = 0;

namespace {

struct Sync {
    std::unordered_map<unsigned long long, uint32_t> released; /* block -> epochs it released */
    std::vector<uint32_t> via; /* sync objects its releasers had acquired */
};
std::vector<Sync> g_syncs;
std::unordered_map<uintptr_t, uint32_t> g_sync_at; /* address -> index in g_syncs */
std::vector<uint32_t> g_acquired;                 /* by the running block */
unsigned long long g_order_launch = 0;

inline void order_sync()
{
    if (g_order.block != g_launch.block_serial) order_new_block();
}

/* A block's fence, then its atomic or volatile write at a: a release. */
void release(uintptr_t a)
{
    auto found = g_sync_at.find(a);
    uint32_t i;
    if (found == g_sync_at.end()) {
        i = (uint32_t)g_syncs.size();
        g_syncs.emplace_back();
        g_sync_at[a] = i;
    } else {
        i = found->second;
    }
    Sync &s = g_syncs[i];
    uint32_t &r = s.released[g_launch.block_serial];
    if (r < (uint32_t)g_order.epoch + 1) r = (uint32_t)g_order.epoch + 1;
    for (uint32_t y : g_acquired)
        if (y != i && std::find(s.via.begin(), s.via.end(), y) == s.via.end()) s.via.push_back(y);
    if (g_order.epoch < 0xffff) g_order.epoch++;
    g_order.fenced = false;
}

/* A block's atomic or volatile read at a: an acquire of what was released there. */
void acquire(uintptr_t a)
{
    if (g_syncs.empty()) return;
    auto found = g_sync_at.find(a);
    if (found == g_sync_at.end()) return;
    if (std::find(g_acquired.begin(), g_acquired.end(), found->second) == g_acquired.end())
        g_acquired.push_back(found->second);
    g_order.acquired = true;
}

std::string block_text(unsigned long long serial)
{
    const dim3 &g = g_launch.cfg->grid;
    unsigned long long i = serial - g_launch.first_block;
    char buf[64];
    snprintf(buf, sizeof buf, "(%llu,%llu,%llu)", i % g.x, i / g.x % g.y, i / ((unsigned long long)g.x * g.y));
    return buf;
}

} // namespace

void order_new_block()
{
    if (g_order_launch != g_launch.first_block) {
        g_order_launch = g_launch.first_block;
        g_syncs.clear();
        g_sync_at.clear();
    }
    g_order = BlockOrder{g_launch.block_serial, 0, false, false};
    g_acquired.clear();
}

bool ordered_before(unsigned long long block, uint16_t e)
{
    static auto &todo = *new std::vector<uint32_t>, &seen = *new std::vector<uint32_t>;
    todo.assign(g_acquired.begin(), g_acquired.end());
    seen.clear();
    while (!todo.empty()) {
        uint32_t i = todo.back();
        todo.pop_back();
        if (std::find(seen.begin(), seen.end(), i) != seen.end()) continue;
        seen.push_back(i);
        const Sync &s = g_syncs[i];
        auto r = s.released.find(block);
        if (r != s.released.end() && r->second > e) return true;
        todo.insert(todo.end(), s.via.begin(), s.via.end());
    }
    return false;
}

void replay_restore()
{
    for (int i = g_replay_n - 1; i >= 0; i--) *g_replay[i].word = g_replay[i].now;
    g_replay_n = 0;
}

void races_launch_end() { replay_restore(); }

/* A grid sync of a cooperative launch (exec/cooperative.cpp): a barrier of the
 * whole grid. Every access before it happened before every access after it,
 * so nothing of before is kept to compare with: the cells start empty, the
 * releases and acquires are forgotten, and each block's order starts again. */
void races_grid_sync()
{
    replay_restore();
    global_cells_forget();
    g_syncs.clear();
    g_sync_at.clear();
    g_acquired.clear();
    g_order.block = 0; /* (order_new_block at the next access) */
}

__attribute__((noinline, cold)) void race_between_blocks(BlockRace kind, GlobalCell &g,
                                                         uintptr_t a, size_t n, const void *pc,
                                                         bool whole)
{
    const Cell &c = g.c;
    if (kind == B_RAW && whole && n <= 16 && g_replay_n < 4) {
        uint32_t *w = (uint32_t *)a;
        g_replay[g_replay_n++] = Replay{w, *w};
        *w = g.prev;
    }
    /* the other block's access */
    unsigned long long other = kind == B_WAR ? c.r_stamp >> 24
                               : kind == B_PLAIN_AFTER_ATOMIC ? g.a_block
                                                             : c.w_stamp >> 24;
    int other_tid = kind == B_WAR ? c.r_tid : kind == B_PLAIN_AFTER_ATOMIC ? g.a_tid : c.w_tid;
    const void *other_pc = kind == B_WAR ? c.r_pc : kind == B_PLAIN_AFTER_ATOMIC ? g.a_pc : c.w_pc;
    uint64_t mine = pc_id(pc), theirs = pc_id(other_pc);
    uint64_t lo = mine < theirs ? mine : theirs, hi = mine < theirs ? theirs : mine;
    if (hazard_reported(4, lo, hi)) return;
    std::string my_line = source_line(pc), their_line = source_line(other_pc);
    if (!first_report(4, lo, hi, std::min(my_line, their_line) + "|" + std::max(my_line, their_line)))
        return;
    if (my_line.empty()) my_line = "an unknown line";
    if (their_line.empty()) their_line = "an unknown line";
    std::string where = global_name(a, whole ? 4 : n);
    /* each site: "block (1,0,0), thread (0,0,0) at prog.cu:21" */
    std::string me = "block " + block_text(g_launch.block_serial) + ", thread " +
                     thread_text(g_launch.tid) + " at " + my_line;
    std::string them = "block " + block_text(other) + ", thread " + thread_text(other_tid) +
                       " at " + their_line;
    /* what each did, and what may come of it, by kind */
    static const struct {
        const char *theirs, *mine, *why;
    } said[] = {
        {"writes", "reads", "the read may see the value before or after the write, and an update "
                            "made from it is lost"},
        {"reads", "writes", "the read may see the value before or after the write"},
        {"writes", "writes", "which value stays depends on timing"},
        {"writes", "updates with an atomic", "an atomic is atomic only with other atomics: the "
                                             "plain store may undo its update, or come after it"},
        {"updates with an atomic", "writes", "an atomic is atomic only with other atomics: the "
                                             "plain store may undo its update, or come after it"},
    };
    report("data race between blocks in kernel %s: %s %s %s, and %s %s it, with nothing ordering "
           "the two (blocks run at the same time, in any order: %s; use an atomic, or publish "
           "with __threadfence() and an atomic ticket as NVIDIA's threadFenceReduction does, or "
           "read it in the next launch%s)",
           g_launch.cfg->name, them.c_str(), said[kind].theirs, where.c_str(), me.c_str(),
           said[kind].mine, said[kind].why,
           g_launch.cfg->cooperative ? ", or after a grid sync (this_grid().sync())" : "");
}

} // namespace internal
} // namespace cudasim

using namespace cudasim::internal;

/* __threadfence() in a kernel: what the block wrote so far is published by
 * its next atomic or volatile write. */
extern "C" void cudasim_threadfence(void)
{
    if (!g_launch.checking || !g_launch.global_races) return;
    order_sync();
    g_order.fenced = true;
}

namespace cudasim {
namespace internal {

/* An atomic, or a volatile access, of global memory (or of a __device__
 * variable) at a: never a race with another such access, but a release
 * (a write after a fence) or an acquire (a read; an atomic is both); an
 * atomic is also compared with the last plain write of its words, and kept
 * for the plain writes to come. */
void strong_access(uintptr_t a, size_t n, AccessKind kind, const void *pc)
{
    /* The same atomic again by the same thread (a spinning wait, a loop): it
     * can find nothing new (other blocks do not run meanwhile), and changes
     * nothing. */
    static struct {
        uintptr_t a;
        const void *pc;
        unsigned long long block;
        int tid;
        uint16_t epoch;
    } last;
    if (kind == ATOMIC && a == last.a && pc == last.pc && g_launch.block_serial == last.block &&
        g_launch.tid == last.tid && g_order.epoch == last.epoch && !g_order.fenced)
        return;
    order_sync();
    if (kind != LOAD && g_order.fenced) release(a);
    if (kind != STORE) acquire(a);
    if (kind != ATOMIC || (a & 3) || (n & 3)) return;
    for (uintptr_t w = a; w < a + n; w += 4) {
        GlobalCell *g = global_cell(w >> 2);
        if (!g || !g_between_blocks) return;
        unsigned long long wb = g->c.w_stamp >> 24;
        if (wb && wb != g_launch.block_serial && unordered_block(wb, g->w_epoch))
            race_between_blocks(B_ATOMIC, *g, w, n, pc, true);
        g->a_block = g_launch.block_serial;
        g->a_epoch = g_order.epoch;
        g->a_tid = (uint16_t)g_launch.tid;
        g->a_pc = pc;
    }
    last = {a, pc, g_launch.block_serial, g_launch.tid, g_order.epoch};
}

} // namespace internal
} // namespace cudasim
