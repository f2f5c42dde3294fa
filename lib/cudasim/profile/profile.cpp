/*
 * profile.cpp: a launch's memory accesses, counted as a GPU counts them.
 *
 * A GPU executes a memory instruction once for a warp: its 32 lanes' addresses
 * go to the memory system together, as one request, and what that request
 * costs (sectors of global memory, wavefronts of shared memory) follows from
 * the addresses alone (warp_access.h). The simulator runs a block's threads
 * one after another, so the lanes of a warp arrive here one at a time, each in
 * its own program order. Their accesses are grouped back into warp
 * instructions by three things: the warp (thread index / 32), the code that
 * made the access (its address: one machine instruction of the translated
 * kernel) and the dynamic instance (the k-th time this thread reached that
 * code). Lane 5's third pass through a loop's load meets lane 6's third pass,
 * as on a GPU, where the warp runs the loop's third iteration with both.
 *
 * Exact where every lane of a warp runs the same code the same number of
 * times, or where lanes drop out and come back (an `if` around an access,
 * loops of different lengths): the k-th instance then holds the lanes a GPU
 * has active for it. Not exact (docs/simulator.md says so) where g++ and
 * nvcc make different instructions of the same source: an access g++ splits
 * or merges, a value nvcc keeps in a register and g++ reloads, or two branches
 * nvcc folds into one instruction. Accesses of other sizes than 1, 2, 4, 8
 * and 16 bytes (a struct copied whole) are split into the pieces nvcc would
 * load, the largest power of two that divides the address and the size.
 *
 * A texture fetch or a surface access (profile_texture) is a warp
 * instruction of the texture path, grouped the same way: one request, and the
 * distinct 32-byte sectors of all the texels its lanes read (a linearly
 * filtered fetch reads 2, 4 or 8 each). It is not in the grader's trace.
 *
 * A block's groups are costed when it ends (profile_block_end); a launch's
 * counters go to the CSV row and the time model when it ends. For the grader,
 * each access can also be recorded with its value (cudasim_trace_start), so
 * that a judge that never runs the kernel can check the accesses against the
 * result and recompute the counters itself
 * (tests/graded/cases/03/ex03_4_transpose.c).
 */
#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "../cudasim.h"
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

bool g_model_on = false;  /* cudasim_model_start */
bool g_tracing = false;   /* cudasim_trace_start */
int g_env_on = -1;        /* CUDASIM_PROFILE set */

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
const uint8_t kCosted = 0xff; /* a Group's kind once costed (count_block passes it by) */
std::vector<std::vector<uint64_t>> g_tex_sectors; /* by group: a texture instruction's sectors */
uint64_t g_stamp = 1;

/* The running launch. */
LaunchCounters g_counters;
/* A set of sectors: a bitmap per 4096 sectors (128 KiB of memory), found by
 * a hash table and, for the next sector, most often the map the last one was
 * in: one bit to test per sector, where a hash set took an allocation. */
class SectorSet {
    struct Map {
        uint64_t bits[64];
    };
    std::unordered_map<uint64_t, Map> maps_;
    uint64_t last_key_ = ~0ull;
    Map *last_ = nullptr;
    size_t n_ = 0;

public:
    void insert(uint64_t sector)
    {
        uint64_t key = sector >> 12;
        if (key != last_key_) {
            last_ = &maps_[key]; /* (value-initialized: all zero) */
            last_key_ = key;
        }
        uint64_t &word = last_->bits[(sector >> 6) & 63], bit = 1ull << (sector & 63);
        if (!(word & bit)) {
            word |= bit;
            n_++;
        }
    }
    size_t size() const { return n_; }
    void clear()
    {
        maps_.clear();
        last_key_ = ~0ull;
        last_ = nullptr;
        n_ = 0;
    }
};
SectorSet g_dram; /* its distinct global sectors */
LaunchCounters g_last_counters; /* the last launch that finished, for cudasim_profile_last */
double g_last_seconds = -1;     /* its modelled time */
bool g_have_last = false;

/* The trace: 12 words per access (cudasim.h, CUDASIM_TRACE_WORDS). */
std::vector<uint32_t> g_trace;
uint32_t g_trace_launch = 0;
size_t g_trace_mark = 0; /* where the running launch's accesses start */
size_t g_pending = (size_t)-1; /* a store whose value is read at the next event */
uintptr_t g_pending_addr = 0;
unsigned g_pending_size = 0;

void forget_block()
{
    g_stamp++;
    for (size_t i = 0; i < g_groups.size() && i < g_tex_sectors.size(); i++) g_tex_sectors[i].clear();
    g_groups.clear();
    g_free.clear();
}

/* The value a store wrote, now that it has (no access of the kernel can come
 * between: each goes through profile_access first). */
void finish_pending()
{
    if (g_pending == (size_t)-1) return;
    uint32_t *w = &g_trace[g_pending + 8];
    memcpy(w, (const void *)g_pending_addr, g_pending_size);
    g_pending = (size_t)-1;
}

void trace(uintptr_t a, unsigned size, AccessKind kind, bool shared, uint32_t pcid, unsigned piece)
{
    size_t at = g_trace.size();
    const dim3 &gd = g_launch.cfg->grid;
    const uint3 &b = cudasim_block_idx;
    uint64_t addr = shared ? a - (uintptr_t)g_arena : a;
    uint32_t w[CUDASIM_TRACE_WORDS] = {
        g_trace_launch,
        (uint32_t)(b.x + gd.x * (b.y + gd.y * b.z)),
        (uint32_t)g_launch.tid,
        pcid,
        (uint32_t)kind | (uint32_t)shared << 4 | size << 8 | piece << 16,
        (uint32_t)addr,
        (uint32_t)(addr >> 32),
        0, 0, 0, 0, 0};
    g_trace.insert(g_trace.end(), w, w + CUDASIM_TRACE_WORDS);
    if (kind == LOAD) {
        memcpy(&g_trace[at + 8], (const void *)a, size);
    } else { /* a store or an atomic: its value once it is written */
        g_pending = at;
        g_pending_addr = a;
        g_pending_size = size;
    }
}

/* The group of the running thread's next visit to code (made if new). */
Group &group_for(uint32_t code, uint8_t kind, bool shared, unsigned size, uint32_t *at = nullptr)
{
    size_t tid = (size_t)g_launch.tid, warp = tid / WARP_LANES;
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
    if (at) *at = index;
    return g_groups[index];
}

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
    LaunchCounters &c = g_counters;
    /* The costs sort the lanes' addresses by insertion, which is quick for
     * lanes in rising order and slow for falling: every other block runs its
     * threads last to first, so its lanes come reversed; put back in order
     * (the cost does not depend on the lanes' order). */
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

void add(uintptr_t a, unsigned size, AccessKind kind, bool shared, uint32_t pcid, unsigned piece)
{
    if (g_tracing) trace(a, size, kind, shared, pcid, piece);
    uint32_t at;
    Group &g = group_for(code_of(pcid, piece), (uint8_t)kind, shared, size, &at);
    if (g.n < WARP_LANES) {
        uint64_t addr = shared ? a - (uintptr_t)g_arena : a;
        g.lanes[g.n].addr = addr;
        g.lanes[g.n].lane = (unsigned)(g_launch.tid % WARP_LANES);
        g.n++;
    }
    /* Every lane of the warp came: no other can join it (each lane visits
     * each instance once), so it is costed now and its room reused, which
     * keeps the groups waiting for lanes few (a block's groups all waiting
     * until its end took megabytes, a cache miss per access). */
    int base = g_launch.tid - g_launch.tid % WARP_LANES;
    unsigned lanes = g_launch.nthreads - base < WARP_LANES ? (unsigned)(g_launch.nthreads - base) : WARP_LANES;
    if (g.n == lanes) {
        cost_group(g);
        g.kind = kCosted;
        g_free.push_back(at);
    }
}

/* Cost each warp instruction of the block that ended. */
void count_block()
{
    LaunchCounters &c = g_counters;
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
    forget_block();
}

} // namespace

void profile_enable() { g_model_on = true; }

bool profile_on()
{
    if (g_env_on < 0) g_env_on = profile_csv_wanted();
    return g_env_on || g_model_on || g_tracing;
}

void profile_launch_begin()
{
    g_launch.profiling = g_launch.instrumented && profile_on();
    g_counters = LaunchCounters();
    g_counters.counted = g_launch.profiling;
    const dim3 &grid = g_launch.cfg->grid;
    g_counters.blocks = (unsigned long long)grid.x * grid.y * grid.z;
    g_dram.clear();
    forget_block();
    g_trace_mark = g_trace.size();
}

void profile_grid_begin()
{
    /* Again from the start (with fibers): what the first attempt counted goes. */
    bool counted = g_counters.counted;
    unsigned long long blocks = g_counters.blocks;
    g_counters = LaunchCounters();
    g_counters.counted = counted;
    g_counters.blocks = blocks;
    g_dram.clear();
    forget_block();
    if (g_tracing) {
        g_pending = (size_t)-1;
        g_trace.resize(g_trace_mark);
    }
}

void profile_access(uintptr_t a, size_t n, AccessKind kind, const void *pc)
{
    bool shared = a - g_sh_lo < g_sh_span;
    if (!shared && !(a - g_rg_lo < g_rg_span)) return; /* a thread's locals, host memory */
    if (g_tracing) finish_pending();
    uint32_t pcid = pc_id(pc);
    if (n && n <= 16 && !(n & (n - 1))) return add(a, (unsigned)n, kind, shared, pcid, 0);
    /* A struct copied whole: the pieces nvcc would use. */
    size_t piece = 16;
    while (piece > 1 && ((a | n) & (piece - 1))) piece >>= 1;
    for (size_t k = 0; k * piece < n; k++)
        add(a + k * piece, (unsigned)piece, kind, shared, pcid, (unsigned)(k & 0xffff));
}

void profile_texture(const uintptr_t *addr, unsigned n, unsigned size, TexPath path,
                     const void *pc)
{
    uint32_t at;
    group_for(code_of(pc_id(pc), 0), (uint8_t)(kTexKind + path), false, size, &at);
    if (at >= g_tex_sectors.size()) g_tex_sectors.resize(at + 1);
    std::vector<uint64_t> &s = g_tex_sectors[at];
    for (unsigned i = 0; i < n; i++)
        for (uint64_t x = addr[i] / WARP_SECTOR_BYTES; x <= (addr[i] + size - 1) / WARP_SECTOR_BYTES; x++)
            s.push_back(x);
}

void profile_block_end()
{
    if (g_tracing) finish_pending();
    count_block();
}

void profile_launch_end(bool finished)
{
    if (g_tracing) {
        finish_pending();
        g_trace_launch++;
    }
    if (!profile_on()) return;
    if (!finished) {
        forget_block();
        g_launch.profiling = false;
        return;
    }
    if (g_launch.profiling) count_block();
    g_launch.profiling = false;
    g_counters.dram_sectors = g_dram.size();
    g_last_counters = g_counters;
    g_have_last = true;
    const cudasim::LaunchConfig *cfg = g_launch.cfg;
    RowInfo r;
    r.name = cfg->name;
    r.grid = cfg->grid;
    r.block = cfg->block;
    r.shared_static = g_launch.static_shared;
    r.shared_dynamic = cfg->shared_bytes;
    if (const GpuModel *g = model_running()) {
        r.seconds = model_kernel_seconds(*g, g_counters, &r.bound);
        model_launch(r.seconds);
    }
    g_last_seconds = r.seconds;
    profile_row(r, g_counters);
}

} // namespace internal
} // namespace cudasim

using namespace cudasim::internal;

extern "C" int cudasim_profile_last(CudasimCounters *out)
{
    if (!g_have_last || !out) return -1;
    const LaunchCounters &c = g_last_counters;
    out->counted = c.counted;
    out->ld_requests = c.ld_requests;
    out->ld_sectors = c.ld_sectors;
    out->ld_ideal = c.ld_ideal;
    out->st_requests = c.st_requests;
    out->st_sectors = c.st_sectors;
    out->st_ideal = c.st_ideal;
    out->atom_requests = c.atom_requests;
    out->atom_sectors = c.atom_sectors;
    out->sh_ld_inst = c.sh_ld_inst;
    out->sh_ld_wavefronts = c.sh_ld_wavefronts;
    out->sh_st_inst = c.sh_st_inst;
    out->sh_st_wavefronts = c.sh_st_wavefronts;
    out->sh_atom_inst = c.sh_atom_inst;
    out->dram_sectors = c.dram_sectors;
    out->modelled_seconds = g_last_seconds;
    out->tex_requests = c.tex_requests;
    out->tex_sectors = c.tex_sectors;
    out->surf_ld_requests = c.surf_ld_requests;
    out->surf_ld_sectors = c.surf_ld_sectors;
    out->surf_st_requests = c.surf_st_requests;
    out->surf_st_sectors = c.surf_st_sectors;
    return 0;
}

extern "C" void cudasim_trace_start(void)
{
    g_tracing = true;
    g_trace.clear();
    g_trace_launch = 0;
    g_pending = (size_t)-1;
}

extern "C" const uint32_t *cudasim_trace_words(size_t *n)
{
    if (n) *n = g_trace.size();
    return g_trace.data();
}

extern "C" void cudasim_trace_stop(void)
{
    finish_pending();
    g_tracing = false;
}
