/*
 * profile_groups.cpp: a profiled launch's accesses, grouped back into the
 * warp instructions a GPU would execute, and costed.
 *
 * A GPU executes a memory instruction once for a warp: its 32 lanes' addresses
 * go to the memory system together, as one request, and what that request
 * costs (sectors of global memory, wavefronts of shared memory) follows from
 * the addresses alone (warp_access.h). The simulator runs a block's threads
 * one after another, so the lanes of a warp arrive here one at a time, each in
 * its own program order. Their accesses are grouped back into warp
 * instructions by three things: the warp (thread index / 32), the code that
 * made the access (its address: one machine instruction of the translated
 * kernel, and the piece of it) and the dynamic instance (the k-th time this
 * thread reached that code). Lane 5's third pass through a loop's load meets
 * lane 6's third pass, as on a GPU, where the warp runs the loop's third
 * iteration with both.
 *
 * Exact where every lane of a warp runs the same code the same number of
 * times, or where lanes drop out and come back (an `if` around an access,
 * loops of different lengths): the k-th instance then holds the lanes a GPU
 * has active for it. Not exact (docs/simulator.md says so) where g++ and
 * nvcc make different instructions of the same source.
 *
 * Two ways lead to the same groups:
 *
 *  - In step (most warps, most of the time). Each access is appended to its
 *    thread's log, a few words. When the warp's lanes have run (the next
 *    warp's access, or the block's end), their logs are read side by side:
 *    while every lane's next entry is the same code, those entries are one
 *    warp instruction (each lane's k-th entry is then the same code's same
 *    instance), costed at once. No table is looked up per access.
 *  - Out of step. At the first entry where the lanes' codes differ (an `if`
 *    some lanes take, a loop some leave), the warp's later accesses in the
 *    block are grouped by (warp, code, instance) in tables. The instances
 *    count from that point, the same point for every lane, so a group holds
 *    the same lanes as if they had counted from the block's start. A group
 *    is costed once all the warp's lanes came, or when the block ends.
 *
 * A texture fetch or a surface access (groups_texture) is a warp instruction
 * of the texture path, grouped by the tables: one request, and the distinct
 * 32-byte sectors of all the texels its lanes read (a linearly filtered fetch
 * reads 2, 4 or 8 each).
 */
#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "profile.h"
#include "warp_access.h"

namespace cudasim {
namespace internal {

namespace {

/* One warp instruction: the lanes that took part, each with its address
 * (shared memory: from the arena's start, whose word 0 is in bank 0). A
 * texture or surface instruction's kind is kTexKind + its TexPath, and its
 * sectors are in g_tex_sectors. */
struct Group {
    uint8_t kind, shared;
    unsigned size, n;
    WarpLane lanes[WARP_LANES];
};
const uint8_t kTexKind = 8;
const uint8_t kCosted = 0xff; /* a Group's kind once costed (count_groups passes it by) */

LaunchCounters *g_counters; /* the running launch's */

/* A set of sectors: a bitmap per 4096 sectors (128 KiB of memory), found by
 * a hash table behind a small cache of the maps used last (a kernel that
 * reads a row of one matrix and a column of another goes back and forth
 * between two or three maps): one bit to test per sector, most often. */
class SectorSet {
    struct Map {
        uint64_t bits[64];
    };
    struct Recent {
        uint64_t key = ~0ull;
        Map *map = nullptr; /* (the table's nodes stay where they are) */
    };
    static const unsigned kRecent = 16;
    std::unordered_map<uint64_t, Map> maps_;
    Recent recent_[kRecent];
    size_t n_ = 0;

public:
    void insert(uint64_t sector)
    {
        uint64_t key = sector >> 12;
        Recent &r = recent_[key % kRecent];
        if (r.key != key) {
            r.map = &maps_[key]; /* (value-initialized: all zero) */
            r.key = key;
        }
        uint64_t &word = r.map->bits[(sector >> 6) & 63], bit = 1ull << (sector & 63);
        if (!(word & bit)) {
            word |= bit;
            n_++;
        }
    }
    size_t size() const { return n_; }
    void clear()
    {
        maps_.clear();
        for (Recent &r : recent_) r = Recent();
        n_ = 0;
    }
};
SectorSet g_dram; /* the launch's distinct global sectors */

/* One instruction more, of cost w: its count, its cost and its ideal. */
void tally(unsigned long long &n, unsigned long long &cost, unsigned long long &ideal, WarpCost w)
{
    n++;
    cost += w.actual;
    ideal += w.ideal;
}

/* Count one warp instruction of global or shared memory (not the texture path's). */
void cost_group(const Group &in)
{
    LaunchCounters &c = *g_counters;
    /* The costs sort the lanes' addresses by insertion, which is quick for
     * lanes in rising order and slow for falling (the cost does not depend
     * on the lanes' order). */
    Group rev;
    const Group *gp = &in;
    if (in.n > 1 && in.lanes[0].addr > in.lanes[in.n - 1].addr) {
        rev.kind = in.kind, rev.shared = in.shared, rev.size = in.size, rev.n = in.n;
        for (unsigned i = 0; i < in.n; i++) rev.lanes[i] = in.lanes[in.n - 1 - i];
        gp = &rev;
    }
    const Group &g = *gp;
    if (g.shared) {
        WarpCost w = warp_shared_cost(g.lanes, g.n, g.size);
        if (g.kind == LOAD) tally(c.sh_ld_inst, c.sh_ld_wavefronts, c.sh_ld_ideal, w);
        else if (g.kind == STORE) tally(c.sh_st_inst, c.sh_st_wavefronts, c.sh_st_ideal, w);
        else c.sh_atom_inst++;
        return;
    }
    uint64_t sectors[2 * WARP_LANES];
    unsigned ns = 0;
    unsigned long long atom_ideal = 0; /* (no column: an atomic's ideal is not counted) */
    WarpCost w = warp_global_cost(g.lanes, g.n, g.size, sectors, &ns);
    for (unsigned i = 0; i < ns; i++) g_dram.insert(sectors[i]);
    if (g.kind == LOAD) tally(c.ld_requests, c.ld_sectors, c.ld_ideal, w);
    else if (g.kind == STORE) tally(c.st_requests, c.st_sectors, c.st_ideal, w);
    else tally(c.atom_requests, c.atom_sectors, atom_ideal, w);
}

/* ---- out of step: groups by (warp, code, instance) ------------------------- */

/* Code (an access's instruction, and its piece) by a dense number: the tables
 * below are indexed by it. pc_id numbers instructions densely; a piece other
 * than the first (a struct copied whole) gets a number of its own. */
std::vector<uint32_t> g_code_of_pc;                /* pc_id -> code + 1, or 0 */
std::unordered_map<uint64_t, uint32_t> g_code_of_piece;
uint32_t g_codes = 0;

uint32_t code_of(uint32_t pcid, unsigned piece)
{
    if (piece == 0) {
        if (pcid >= g_code_of_pc.size()) g_code_of_pc.resize(pcid + 1 + pcid / 2, 0);
        uint32_t &c = g_code_of_pc[pcid];
        if (!c) c = ++g_codes;
        return c - 1;
    }
    auto ins = g_code_of_piece.emplace((uint64_t)pcid << 16 | piece, g_codes);
    if (ins.second) g_codes++;
    return ins.first->second;
}

/* The running block, in tables that a new block's number (g_stamp) empties
 * without clearing them: each thread's count of its visits to each code, and
 * each warp's groups by code and instance. */
struct Visits {
    uint64_t stamp;
    uint32_t n;
};
struct Slot {
    uint64_t stamp = 0;
    std::vector<uint32_t> group; /* by instance: an index into g_groups, or UINT32_MAX */
};
std::vector<std::vector<Visits>> g_visits; /* [thread][code] */
std::vector<std::vector<Slot>> g_slots;    /* [warp][code] */
std::vector<Group> g_groups;
std::vector<uint32_t> g_free; /* groups costed as soon as every lane came, for reuse */
std::vector<std::vector<uint64_t>> g_tex_sectors; /* by group: a texture instruction's sectors */
uint64_t g_stamp = 1;

/* The group of thread tid's next visit to code (made if new). */
Group &group_for(size_t tid, uint32_t code, uint8_t kind, bool shared, unsigned size, uint32_t *at)
{
    size_t warp = tid / WARP_LANES;
    if (tid >= g_visits.size()) g_visits.resize(tid + 1);
    if (warp >= g_slots.size()) g_slots.resize(warp + 1);
    std::vector<Visits> &tv = g_visits[tid];
    if (code >= tv.size()) tv.resize(code + 1, Visits{0, 0});
    Visits &v = tv[code];
    if (v.stamp != g_stamp) v = Visits{g_stamp, 0};
    uint32_t instance = v.n++;
    std::vector<Slot> &ws = g_slots[warp];
    if (code >= ws.size()) ws.resize(code + 1);
    Slot &slot = ws[code];
    if (slot.stamp != g_stamp) {
        slot.stamp = g_stamp;
        slot.group.clear();
    }
    if (instance >= slot.group.size()) slot.group.resize(instance + 1, UINT32_MAX);
    uint32_t &index = slot.group[instance];
    if (index == UINT32_MAX) {
        if (!g_free.empty()) {
            index = g_free.back();
            g_free.pop_back();
        } else {
            index = (uint32_t)g_groups.size();
            g_groups.emplace_back();
        }
        Group &g = g_groups[index];
        g.kind = kind;
        g.shared = shared;
        g.size = size;
        g.n = 0;
    }
    *at = index;
    return g_groups[index];
}

/* The lanes of warp w: 32, or fewer in a block's last warp. */
unsigned lanes_of(size_t warp)
{
    size_t base = warp * WARP_LANES, n = (size_t)g_launch.nthreads;
    return n - base < WARP_LANES ? (unsigned)(n - base) : WARP_LANES;
}

/* Thread tid's access, into its group. */
void group_add(size_t tid, uint32_t code, uint8_t kind, bool shared, unsigned size, uint64_t addr)
{
    uint32_t at;
    Group &g = group_for(tid, code, kind, shared, size, &at);
    if (g.n < WARP_LANES) {
        g.lanes[g.n].addr = addr;
        g.lanes[g.n].lane = (unsigned)(tid % WARP_LANES);
        g.n++;
    }
    /* Every lane of the warp came: no other can join it (each lane visits
     * each instance once), so it is costed now and its room reused, which
     * keeps the groups waiting for lanes few. */
    if (g.n == lanes_of(tid / WARP_LANES)) {
        cost_group(g);
        g.kind = kCosted;
        g_free.push_back(at);
    }
}

/* Cost each warp instruction of the tables that waits. */
void count_groups()
{
    LaunchCounters &c = *g_counters;
    for (size_t gi = 0; gi < g_groups.size(); gi++) {
        const Group &g = g_groups[gi];
        if (g.kind == kCosted) continue;
        if (g.kind >= kTexKind) { /* the texture path: its texels' distinct sectors */
            std::vector<uint64_t> &s = g_tex_sectors[gi];
            std::sort(s.begin(), s.end());
            unsigned long long n = (unsigned long long)(std::unique(s.begin(), s.end()) - s.begin());
            for (unsigned long long i = 0; i < n; i++) g_dram.insert(s[i]);
            TexPath path = (TexPath)(g.kind - kTexKind);
            unsigned long long &req = path == TEX_FETCH ? c.tex_requests
                                      : path == SURF_LOAD ? c.surf_ld_requests : c.surf_st_requests;
            unsigned long long &sec = path == TEX_FETCH ? c.tex_sectors
                                      : path == SURF_LOAD ? c.surf_ld_sectors : c.surf_st_sectors;
            req++;
            sec += n;
            s.clear();
            continue;
        }
        cost_group(g);
    }
}

/* ---- in step: each thread's log, read side by side ------------------------- */

/* One access of a warp's lead lane (below): its code and what it was, in one
 * word (the code's address below 2^47, as user space's are on x86-64 and
 * AArch64: kind, shared, log2 of the size and the piece above it), and its
 * address. */
struct Entry {
    uint64_t key;
    uint64_t addr;
};
const unsigned kPcBits = 47, kPieces = 1u << 11;
inline uint64_t key_of(const void *pc, uint8_t kind, bool shared, unsigned size, unsigned piece)
{
    return (uint64_t)(uintptr_t)pc | ((uint64_t)kind | (uint64_t)shared << 2 |
                                      (uint64_t)__builtin_ctz(size) << 3 | (uint64_t)piece << 6)
                                         << kPcBits;
}
inline const void *key_pc(uint64_t k) { return (const void *)(uintptr_t)(k & ((1ull << kPcBits) - 1)); }
inline uint8_t key_kind(uint64_t k) { return (uint8_t)(k >> kPcBits & 3); }
inline bool key_shared(uint64_t k) { return k >> (kPcBits + 2) & 1; }
inline unsigned key_size(uint64_t k) { return 1u << (k >> (kPcBits + 3) & 7); }
inline unsigned key_piece(uint64_t k) { return (unsigned)(k >> (kPcBits + 6)); }

/* A thread's log. The first lane of a warp to log (its lead) keeps whole
 * entries; each other lane, as it makes its j-th access, compares it with the
 * lead's j-th and keeps only its address's distance from the lead's: a
 * quarter of the bytes to write and read back, where most of the profiler's
 * time went to its logs. An access that is not the lead's j-th code (or lies
 * 2 GiB from it, or comes before the lead's) puts the warp out of step. */
struct Log {
    std::vector<Entry> e;   /* the lead's */
    std::vector<int32_t> d; /* another lane's */
    size_t head = 0;        /* the entries before it are grouped */

    /* The entries not yet grouped, of the lead's log or another lane's. */
    size_t left(bool is_lead) const { return (is_lead ? e.size() : d.size()) - head; }
    void clear()
    {
        e.clear();
        d.clear();
        head = 0;
    }
};
struct WarpState {
    uint64_t stamp = 0; /* the block it is of (else: in step, nothing waits) */
    bool out_of_step = false;
    bool waiting = false; /* on g_waiting, until the block ends */
    int lead = -1;        /* the lane whose log has whole entries; -1: the logs are empty */
};
std::vector<Log> g_logs;        /* [thread] */
std::vector<WarpState> g_warps; /* [warp] */
std::vector<uint32_t> g_waiting; /* warps whose logs hold entries */
size_t g_last_warp = SIZE_MAX;   /* the warp of the last access */
/* The thread of the last access, and how its next one is logged. */
size_t g_tid = SIZE_MAX;
enum Mode { TABLES, LEAD, FOLLOW } g_mode = TABLES; /* (LEAD also: the warp has no lead yet) */
Log *g_log = nullptr;             /* its log (LEAD, FOLLOW) */
const Entry *g_follow = nullptr;  /* FOLLOW: the lead's entries not yet grouped, */
size_t g_follow_n = 0, g_j = 0;   /* how many, and how many of them this lane matched */
/* Entries a warp's lead may hold before the warp goes the tables' way (a lane
 * that waits for another forever would otherwise keep them all). */
const size_t kMaxWaiting = (size_t)1 << 20;

WarpState &warp_state(size_t warp)
{
    if (warp >= g_warps.size()) g_warps.resize(warp + 1);
    WarpState &w = g_warps[warp];
    if (w.stamp != g_stamp) w = WarpState{g_stamp, false, false, -1};
    return w;
}

/* The rest of warp w's logs into the tables, each lane's in its order; the
 * warp's later accesses in this block go there directly. */
void out_of_step(size_t warp, WarpState &ws)
{
    ws.out_of_step = true;
    if (g_tid / WARP_LANES == warp) g_mode = TABLES;
    size_t base = warp * WARP_LANES;
    unsigned n = lanes_of(warp);
    if (ws.lead >= 0) {
        const Log &lead = g_logs[base + (unsigned)ws.lead];
        for (unsigned l = 0; l < n; l++) {
            const Log &log = g_logs[base + l];
            bool is_lead = (int)l == ws.lead;
            size_t count = log.left(is_lead);
            for (size_t j = 0; j < count; j++) {
                const Entry &x = lead.e[lead.head + j];
                uint64_t k = x.key, addr = is_lead ? x.addr : x.addr + (int64_t)log.d[log.head + j];
                group_add(base + l, code_of(pc_id(key_pc(k)), key_piece(k)), key_kind(k),
                          key_shared(k), key_size(k), addr);
            }
        }
    }
    for (unsigned l = 0; l < n; l++) g_logs[base + l].clear();
    ws.lead = -1;
}

/* Warp w's lanes have run (or the block ended: final): group what its logs
 * hold, side by side, as far as every lane came. */
void read_logs(size_t warp, bool final)
{
    WarpState &ws = warp_state(warp);
    if (ws.out_of_step || ws.lead < 0) return;
    size_t base = warp * WARP_LANES;
    unsigned n = lanes_of(warp), lead_lane = (unsigned)ws.lead;
    Log &lead = g_logs[base + lead_lane];
    const Entry *first = lead.e.data() + lead.head;
    size_t ahead = lead.left(true);
    size_t common = ahead;        /* as far as every lane came */
    size_t common_active = ahead; /* as far as every lane with entries came */
    const int32_t *at[WARP_LANES];
    unsigned active[WARP_LANES], m = 0; /* the lanes with entries */
    for (unsigned l = 0; l < n; l++) {
        size_t count = l == lead_lane ? ahead : g_logs[base + l].left(false);
        if (l != lead_lane) at[l] = g_logs[base + l].d.data() + g_logs[base + l].head;
        common = std::min(common, count);
        if (count) {
            common_active = std::min(common_active, count);
            active[m++] = l;
        }
    }
    if (final && common < ahead) {
        /* the block ended: lanes that made no access more are not active for the rest */
        common = common_active;
    } else {
        m = n;
        for (unsigned l = 0; l < n; l++) active[l] = l;
    }
    Group g;
    g.n = m;
    for (unsigned i = 0; i < m; i++) g.lanes[i].lane = active[i];
    for (size_t k = 0; k < common; k++) {
        uint64_t key = first[k].key, a = first[k].addr;
        for (unsigned i = 0; i < m; i++) {
            unsigned l = active[i];
            g.lanes[i].addr = l == lead_lane ? a : a + (int64_t)at[l][k];
        }
        g.kind = key_kind(key);
        g.shared = key_shared(key);
        g.size = key_size(key);
        cost_group(g);
    }
    for (unsigned i = 0; i < m; i++) {
        unsigned l = active[i];
        Log &log = g_logs[base + l];
        log.head += common;
        if (!log.left(l == lead_lane)) log.clear();
    }
    size_t left = ahead - common; /* (no lane is ahead of the lead) */
    if (!left) {
        ws.lead = -1;
    } else if (final || left > kMaxWaiting) {
        out_of_step(warp, ws);
    } else if (!ws.waiting) { /* a lane has not come yet: wait for it */
        ws.waiting = true;
        g_waiting.push_back((uint32_t)warp);
    }
}

/* Group what every warp's logs still hold (the block ended). */
void read_all_logs()
{
    if (g_last_warp != SIZE_MAX) read_logs(g_last_warp, true);
    std::vector<uint32_t> waiting;
    waiting.swap(g_waiting);
    for (uint32_t w : waiting) read_logs(w, true);
}

/* Another thread's access: the warp before it, if another, has run. */
void next_thread(size_t tid)
{
    size_t warp = tid / WARP_LANES;
    if (warp != g_last_warp) {
        if (g_last_warp != SIZE_MAX) read_logs(g_last_warp, false);
        g_last_warp = warp;
    }
    if (tid >= g_logs.size()) g_logs.resize(tid + 1);
    g_tid = tid;
    g_log = &g_logs[tid];
    const WarpState &ws = warp_state(warp);
    if (ws.out_of_step) {
        g_mode = TABLES;
    } else if (ws.lead < 0 || (size_t)ws.lead == tid % WARP_LANES) {
        g_mode = LEAD;
    } else {
        const Log &lead = g_logs[warp * WARP_LANES + (unsigned)ws.lead];
        g_mode = FOLLOW;
        g_follow = lead.e.data() + lead.head;
        g_follow_n = lead.left(true);
        g_j = g_log->left(false);
    }
}

/* Forget the running block: its tables (by the stamp), its logs. */
void forget_block()
{
    for (size_t i = 0; i < g_groups.size() && i < g_tex_sectors.size(); i++) g_tex_sectors[i].clear();
    g_groups.clear();
    g_free.clear();
    if (g_last_warp != SIZE_MAX) g_waiting.push_back((uint32_t)g_last_warp);
    for (uint32_t w : g_waiting) {
        size_t base = (size_t)w * WARP_LANES, end = std::min(base + WARP_LANES, g_logs.size());
        for (size_t t = base; t < end; t++) g_logs[t].clear();
    }
    g_waiting.clear();
    g_last_warp = g_tid = SIZE_MAX;
    g_mode = TABLES;
    g_stamp++;
}

/* An access (its code fits a key) into the running thread's log, its warp
 * in step: whether it went there (a follower's that differs from the lead's
 * does not; nor one that would grow the log, unless it may). */
__attribute__((always_inline)) inline bool logged(uint64_t key, uint64_t addr, bool may_grow)
{
    if (g_mode == FOLLOW) {
        std::vector<int32_t> &d = g_log->d;
        if (g_j >= g_follow_n || g_follow[g_j].key != key || (!may_grow && d.size() == d.capacity()))
            return false;
        int64_t dist = (int64_t)(addr - g_follow[g_j].addr);
        if (dist != (int32_t)dist) return false; /* (2 GiB apart) */
        d.push_back((int32_t)dist);
        g_j++;
        return true;
    }
    if (!may_grow && g_log->e.size() == g_log->e.capacity()) return false;
    g_warps[g_tid / WARP_LANES].lead = (int)(g_tid % WARP_LANES);
    g_log->e.push_back(Entry{key, addr});
    return true;
}

/* An access into its thread's log, or its group. */
__attribute__((noinline)) void log_access(uint64_t addr, unsigned size, AccessKind kind,
                                                      bool shared, const void *pc, unsigned piece)
{
    size_t tid = (size_t)g_launch.tid;
    if (tid != g_tid) next_thread(tid);
    if (g_mode != TABLES) {
        if ((uintptr_t)pc >> kPcBits == 0 && piece < kPieces &&
            logged(key_of(pc, (uint8_t)kind, shared, size, piece), addr, true))
            return;
        out_of_step(tid / WARP_LANES, g_warps[tid / WARP_LANES]);
    }
    group_add(tid, code_of(pc_id(pc), piece), (uint8_t)kind, shared, size, addr);
}

} // namespace

void groups_begin(LaunchCounters *c)
{
    g_counters = c;
    g_dram.clear();
    forget_block();
    if (g_logs.size() < (size_t)g_launch.nthreads) g_logs.resize((size_t)g_launch.nthreads);
}

void groups_access(uint64_t addr, unsigned size, AccessKind kind, bool shared, const void *pc,
                   unsigned piece)
{
    log_access(addr, size, kind, shared, pc, piece);
}

/* Any access of the profiled launch (profile_access keeps the common ones). */
__attribute__((noinline)) void any_access(uintptr_t a, size_t n, AccessKind kind, const void *pc,
                                          bool shared)
{
    if (g_profile_tracing) return profile_traced_access(a, n, kind, shared, pc);
    uint64_t at = shared ? a - (uintptr_t)g_arena : a;
    size_t piece = access_piece(a, n);
    for (size_t k = 0; k * piece < n; k++)
        log_access(at + k * piece, (unsigned)piece, kind, shared, pc, (unsigned)(k & 0xffff));
}

/* Here rather than in profile.cpp, so that an access of a power of two bytes
 * by the thread of the last one (nearly all) reaches its log in a few
 * instructions, without a call; any other goes to any_access. */
void profile_access(uintptr_t a, size_t n, AccessKind kind, const void *pc, bool shared)
{
    if (__builtin_expect(g_profile_tracing || !n || n > 16 || (n & (n - 1)) ||
                             (size_t)g_launch.tid != g_tid || g_mode == TABLES ||
                             (uintptr_t)pc >> kPcBits,
                         0))
        return any_access(a, n, kind, pc, shared);
    uint64_t at = shared ? a - (uintptr_t)g_arena : a;
    if (!logged(key_of(pc, (uint8_t)kind, shared, (unsigned)n, 0), at, false))
        any_access(a, n, kind, pc, shared);
}

void groups_texture(const uintptr_t *addr, unsigned n, unsigned size, TexPath path, const void *pc)
{
    uint32_t at;
    group_for((size_t)g_launch.tid, code_of(pc_id(pc), 0), (uint8_t)(kTexKind + path), false, size,
              &at);
    if (at >= g_tex_sectors.size()) g_tex_sectors.resize(at + 1);
    std::vector<uint64_t> &s = g_tex_sectors[at];
    for (unsigned i = 0; i < n; i++)
        for (uint64_t x = addr[i] / WARP_SECTOR_BYTES; x <= (addr[i] + size - 1) / WARP_SECTOR_BYTES; x++)
            s.push_back(x);
}

void groups_block_end()
{
    read_all_logs();
    count_groups();
    forget_block();
}

void groups_forget() { forget_block(); }

size_t groups_dram_sectors() { return g_dram.size(); }

} // namespace internal
} // namespace cudasim
