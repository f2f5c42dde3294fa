/*
 * profile.cpp: a profiled launch, from its start to its row: whether it is
 * profiled, its counters (its accesses grouped into warp instructions and
 * costed by profile_groups.cpp), the row and the time model at its end.
 *
 * For the grader, each access can also be recorded with its value
 * (cudasim_trace_start), so that a judge that never runs the kernel can check
 * the accesses against the result and recompute the counters itself
 * (tests/graded/cases/03/ex03_4_transpose.c). Texture fetches are not in the
 * trace.
 */
#include <cstring>
#include <vector>

#include "../cudasim.h"
#include "profile.h"

namespace cudasim {
namespace internal {

namespace {


bool g_model_on = false;  /* cudasim_model_start */
int g_env_on = -1;        /* CUDASIM_PROFILE set */

LaunchCounters g_counters;      /* the running launch's */
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

} // namespace

bool g_profile_tracing = false; /* cudasim_trace_start */

void profile_enable() { g_model_on = true; }

bool profile_on()
{
    if (g_env_on < 0) g_env_on = profile_csv_wanted();
    return g_env_on || g_model_on || g_profile_tracing;
}

void profile_launch_begin()
{
    g_launch.profiling = g_launch.instrumented && profile_on();
    g_counters = LaunchCounters();
    g_counters.counted = g_launch.profiling;
    const dim3 &grid = g_launch.cfg->grid;
    g_counters.blocks = (unsigned long long)grid.x * grid.y * grid.z;
    groups_begin(&g_counters);
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
    groups_begin(&g_counters);
    if (g_profile_tracing) {
        g_pending = (size_t)-1;
        g_trace.resize(g_trace_mark);
    }
}

/* An access while tracing: finishes the last store's value, traced and counted. */
void profile_traced_access(uintptr_t a, size_t n, AccessKind kind, bool shared,
                           const void *pc)
{
    finish_pending();
    uint32_t pcid = pc_id(pc);
    size_t piece = access_piece(a, n);
    for (size_t k = 0; k * piece < n; k++) {
        trace(a + k * piece, (unsigned)piece, kind, shared, pcid, (unsigned)(k & 0xffff));
        groups_access(shared ? a + k * piece - (uintptr_t)g_arena : a + k * piece, (unsigned)piece,
                      kind, shared, pc, (unsigned)(k & 0xffff));
    }
}

void profile_texture(const uintptr_t *addr, unsigned n, unsigned size, TexPath path,
                     const void *pc)
{
    groups_texture(addr, n, size, path, pc);
}

void profile_block_end()
{
    if (g_profile_tracing) finish_pending();
    groups_block_end();
}

void profile_launch_end(bool finished)
{
    if (g_profile_tracing) {
        finish_pending();
        g_trace_launch++;
    }
    if (!profile_on()) return;
    if (!finished) {
        groups_forget();
        g_launch.profiling = false;
        return;
    }
    if (g_launch.profiling) groups_block_end();
    g_launch.profiling = false;
    g_counters.dram_sectors = groups_dram_sectors();
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
    g_profile_tracing = true;
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
    g_profile_tracing = false;
}
