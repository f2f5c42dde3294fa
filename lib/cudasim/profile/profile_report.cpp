/*
 * profile_report.cpp: what CUDASIM_PROFILE=FILE writes.
 *
 * FILE gets one CSV row per launch: the launch's id, kernel name, grid and
 * block, then the metrics under the names `ncu --csv --metrics ...` gives
 * them, with the values a GPU counts (profile_groups.cpp, warp_access.h): global
 * requests and sectors, shared instructions and wavefronts, atomics, texture
 * and surface requests and sectors, and the
 * launch's occupancy on the model's GPU (registers from nvcc where it is
 * installed). The last columns are the time model's, and say so in their
 * names: modelled for the GPU, not measured. When the program ends, the same
 * is summed up per kernel on standard error, each figure with one line saying
 * what it means.
 *
 * FILE is written as every file of the workbook is (lib/core/fileio.h): the
 * rows are kept, and saved when the program ends through a new file renamed
 * over FILE. A FILE that is a link, a FIFO, a device, a folder or read-only
 * is refused by name at the first launch, before anything waits on it; a save
 * that fails (a full disk, ulimit -f) is reported. Either way the program
 * then ends with status 1 (or its own, when that is not 0): a profile that
 * was asked for and not written is never a silent success. A program killed
 * before it ends (a signal) leaves no profile.
 */
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <vector>

#include "../../core/fileio.h"
#include "profile.h"

namespace cudasim {
namespace internal {

namespace {

FILE *g_csv = nullptr;         /* the rows, kept until the save at exit */
bool g_csv_failed = false;     /* the file was refused, or its save failed */
std::string g_csv_error;       /* why, for the summary */
unsigned long long g_rows = 0;

/* One kernel's launches, summed for the summary at exit. */
struct Agg {
    unsigned long long launches = 0;
    LaunchCounters c;
    bool counted = true, library = false;
    RowInfo last;
    Occupancy occ;
    bool have_occ = false;
    std::string regs_from;
    double seconds = 0;
    std::map<std::string, unsigned long long> bounds;
};
std::map<std::string, Agg> g_aggs;
std::vector<std::string> g_order; /* kernels in the order they first ran */

const char *const kColumns[] = {
    "ID", "Kernel Name", "Grid Size", "Block Size",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum",
    "smsp__inst_executed_op_shared_ld.sum",
    "smsp__inst_executed_op_shared_st.sum",
    "smsp__inst_executed_op_shared_atom.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__t_requests_pipe_tex_mem_texture.sum",
    "l1tex__t_sectors_pipe_tex_mem_texture.sum",
    "l1tex__t_requests_pipe_tex_mem_surface_op_ld.sum",
    "l1tex__t_sectors_pipe_tex_mem_surface_op_ld.sum",
    "l1tex__t_requests_pipe_tex_mem_surface_op_st.sum",
    "l1tex__t_sectors_pipe_tex_mem_surface_op_st.sum",
    "launch__registers_per_thread",
    "launch__shared_mem_per_block_static",
    "launch__shared_mem_per_block_dynamic",
    "launch__occupancy_limit_warps",
    "launch__occupancy_limit_registers",
    "launch__occupancy_limit_shared_mem",
    "launch__occupancy_limit_blocks",
    "sm__maximum_warps_per_active_cycle_pct",
    "Ideal Sectors Global Loads",
    "Ideal Sectors Global Stores",
    "Ideal Wavefronts Shared Loads",
    "Ideal Wavefronts Shared Stores",
    "Model GPU",
    "Modelled Duration (us), not measured",
    "Modelled Bound",
};

/* A CSV field: quoted, with inner quotes doubled. */
void field(FILE *f, const std::string &s, bool last = false)
{
    fputc('"', f);
    for (char ch : s) {
        if (ch == '"') fputc('"', f);
        fputc(ch, f);
    }
    fputs(last ? "\"\n" : "\",", f);
}
std::string num(unsigned long long v) { return std::to_string(v); }
std::string dims(const dim3 &d)
{
    char b[64];
    snprintf(b, sizeof b, "(%u, %u, %u)", d.x, d.y, d.z);
    return b;
}

/* The file is looked at before the first row: what cannot be saved there is said now,
 * not when the program ends. */
bool open_csv()
{
    if (g_csv) return true;
    if (g_csv_failed) return false;
    const char *path = getenv("CUDASIM_PROFILE");
    if (fileio_save_check(path, "profile") == ERR_OK) g_csv = fileio_save_stream(path, "profile");
    if (!g_csv) {
        g_csv_failed = true;
        g_csv_error = err_message();
        report("CUDASIM_PROFILE: %s; no profile is written", g_csv_error.c_str());
        return false;
    }
    for (size_t i = 0; i < sizeof kColumns / sizeof *kColumns; i++)
        field(g_csv, kColumns[i], i + 1 == sizeof kColumns / sizeof *kColumns);
    return true;
}

void write_row(const RowInfo &r, const LaunchCounters &c, const Occupancy *o, const GpuModel *g)
{
    if (!open_csv()) return;
    auto cnt = [&](unsigned long long v) { return c.counted ? num(v) : std::string(); };
    field(g_csv, num(g_rows));
    field(g_csv, r.name);
    field(g_csv, r.library ? "" : dims(r.grid));
    field(g_csv, r.library ? "" : dims(r.block));
    for (unsigned long long v : {c.ld_requests, c.ld_sectors, c.st_requests, c.st_sectors,
                                 c.atom_requests, c.atom_sectors, c.sh_ld_inst, c.sh_st_inst,
                                 c.sh_atom_inst, c.sh_ld_wavefronts, c.sh_st_wavefronts,
                                 c.tex_requests, c.tex_sectors, c.surf_ld_requests,
                                 c.surf_ld_sectors, c.surf_st_requests, c.surf_st_sectors})
        field(g_csv, cnt(v));
    field(g_csv, o && o->regs >= 0 ? num((unsigned)o->regs) : "");
    field(g_csv, r.library ? "" : num(r.shared_static));
    field(g_csv, r.library ? "" : num(r.shared_dynamic));
    field(g_csv, o ? num((unsigned)o->lim_warps) : "");
    field(g_csv, o && o->lim_regs >= 0 ? num((unsigned)o->lim_regs) : "");
    field(g_csv, o ? num((unsigned)o->lim_shared) : "");
    field(g_csv, o ? num((unsigned)o->lim_blocks) : "");
    char pct[32] = "";
    if (o) snprintf(pct, sizeof pct, "%.2f", o->pct);
    field(g_csv, pct);
    for (unsigned long long v : {c.ld_ideal, c.st_ideal, c.sh_ld_ideal, c.sh_st_ideal})
        field(g_csv, cnt(v));
    field(g_csv, g ? g->name + " (modelled, not measured)" : "");
    char us[32] = "";
    if (r.seconds >= 0) snprintf(us, sizeof us, "%.3f", r.seconds * 1e6);
    field(g_csv, us);
    field(g_csv, r.bound, true);
}

/* ---- the summary at exit --------------------------------------------------------- */

/* "1 request", "2 requests" */
std::string count(unsigned long long n, const char *one, const char *many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

void say_global(const char *what, unsigned long long req, unsigned long long sec,
                unsigned long long ideal)
{
    if (!req) return;
    double per = (double)sec / (double)req, want = (double)ideal / (double)req;
    fprintf(stderr, "    global %-7s %s, %s: %.2f sectors per request, ideal %.2f\n", what,
            count(req, "request", "requests").c_str(), count(sec, "sector", "sectors").c_str(),
            per, want);
    if (sec <= ideal)
        fprintf(stderr, "                   coalesced: each warp's %s touched no more 32-byte sectors "
                        "than its bytes need\n", what);
    else
        fprintf(stderr, "                   %.2fx the sectors its bytes need: the lanes' addresses are "
                        "strided, scattered or misaligned, and the GPU moves whole sectors\n",
                per / want);
}

void say_shared(const char *what, unsigned long long inst, unsigned long long wf,
                unsigned long long ideal)
{
    if (!inst) return;
    fprintf(stderr, "    shared %-7s %s, %s: %.2f per instruction, ideal %.2f\n", what,
            count(inst, "instruction", "instructions").c_str(),
            count(wf, "wavefront", "wavefronts").c_str(), (double)wf / (double)inst,
            (double)ideal / (double)inst);
    if (wf <= ideal)
        fprintf(stderr, "                   no bank conflicts: the lanes' words fall in different "
                        "banks, or are the same word\n");
    else
        fprintf(stderr, "                   %.2f wavefronts per instruction are bank conflicts: lanes ask "
                        "one bank for different words, served one after another (pad the array: "
                        "tile[32][33])\n",
                (double)(wf - ideal) / (double)inst);
}

void say_texture(const char *what, unsigned long long req, unsigned long long sec)
{
    if (!req) return;
    fprintf(stderr, "    %-14s %s, %s: %.2f sectors per request (a cudaArray's texels "
                    "counted in rows, where a GPU lays them out in tiles)\n",
            what, count(req, "request", "requests").c_str(), count(sec, "sector", "sectors").c_str(),
            (double)sec / (double)req);
}

void summary()
{
    if (g_aggs.empty()) return;
    fflush(stdout); /* what the program printed comes first */
    const GpuModel *g = model_gpu();
    const char *path = getenv("CUDASIM_PROFILE");
    std::string where = g_csv_failed ? "NOT saved: " + g_csv_error
                                     : std::string("one row per launch in ") + (path ? path : "?");
    fprintf(stderr, "\ncudasim profile (%s): counts as a GPU counts them%s%s%s\n", where.c_str(),
            g ? "; occupancy and times for " : "", g ? g->name.c_str() : "",
            g ? " (CUDASIM_GPU), times modelled, not measured" : "");
    for (const std::string &name : g_order) {
        const Agg &a = g_aggs[name];
        fprintf(stderr, "  %s %s: %s", a.library ? "library call" : "kernel", name.c_str(),
                count(a.launches, "launch", "launches").c_str());
        if (!a.library)
            fprintf(stderr, ", grid (%u,%u,%u), block (%u,%u,%u)", a.last.grid.x, a.last.grid.y,
                    a.last.grid.z, a.last.block.x, a.last.block.y, a.last.block.z);
        fputc('\n', stderr);
        const LaunchCounters &c = a.c;
        if (!a.library && !a.counted)
            fprintf(stderr, "    (its accesses were not seen: it was not built by the simulator's "
                            "translator)\n");
        if (a.counted && !a.library) {
            say_global("loads", c.ld_requests, c.ld_sectors, c.ld_ideal);
            say_global("stores", c.st_requests, c.st_sectors, c.st_ideal);
            if (c.atom_requests)
                fprintf(stderr, "    global atomics %s, %s\n",
                        count(c.atom_requests, "request", "requests").c_str(),
                        count(c.atom_sectors, "sector", "sectors").c_str());
            say_shared("loads", c.sh_ld_inst, c.sh_ld_wavefronts, c.sh_ld_ideal);
            say_shared("stores", c.sh_st_inst, c.sh_st_wavefronts, c.sh_st_ideal);
            if (c.sh_atom_inst)
                fprintf(stderr, "    shared atomics %s\n",
                        count(c.sh_atom_inst, "instruction", "instructions").c_str());
            say_texture("texture", c.tex_requests, c.tex_sectors);
            say_texture("surf ld", c.surf_ld_requests, c.surf_ld_sectors);
            say_texture("surf st", c.surf_st_requests, c.surf_st_sectors);
            if (!c.ld_requests && !c.st_requests && !c.atom_requests && !c.sh_ld_inst &&
                !c.sh_st_inst && !c.sh_atom_inst && !c.tex_requests && !c.surf_ld_requests &&
                !c.surf_st_requests)
                fprintf(stderr, "    no accesses to global or shared memory\n");
        }
        if (a.have_occ) {
            const Occupancy &o = a.occ;
            unsigned warps = (a.last.block.x * a.last.block.y * a.last.block.z + 31) / 32;
            fprintf(stderr, "    occupancy      %s%.0f%% (%s of %s per SM), limited by %s; ",
                    o.regs < 0 ? "at most " : "", o.pct,
                    count((unsigned)o.blocks, "block", "blocks").c_str(),
                    count(warps, "warp", "warps").c_str(), o.limiter);
            if (o.regs >= 0)
                fprintf(stderr, "%d registers per thread (%s)\n", o.regs, a.regs_from.c_str());
            else
                fprintf(stderr, "registers per thread %s, so their limit is not counted\n",
                        a.regs_from.c_str());
            fprintf(stderr, "                   the warps an SM keeps in flight to hide memory latency, "
                            "of the most it can hold\n");
        }
        if (g && a.seconds > 0) {
            std::string bound;
            unsigned long long most = 0;
            for (auto &b : a.bounds)
                if (b.second > most) most = b.second, bound = b.first;
            fprintf(stderr, "    time           %.2f us per launch, modelled for %s, not measured "
                            "(bound: %s)\n",
                    a.seconds / (double)a.launches * 1e6, g->name.c_str(), bound.c_str());
            fprintf(stderr, "                   %s\n",
                    bound == "launch" ? "the work is too small to matter: the fixed cost of a kernel is the time"
                    : bound == "DRAM" ? "memory bound: its distinct bytes at the GPU's memory bandwidth"
                    : bound == "L2"   ? "bound by the sectors its requests move through the L2 cache: coalesce them"
                    : bound == "shared memory" ? "bound by its shared-memory wavefronts, one per clock per SM: bank conflicts add to them"
                                      : "compute bound: its floating-point operations at the FP32 peak");
        }
    }
}

/* When the program ends (exit, or a return from main): the save, then the summary, which
 * says whether the profile was saved. A profile not written makes a status of 0 a 1, passed
 * on by _exit after stdio's buffers are flushed as exit would flush them (what it skips: the
 * destructors of the simulator's tables, and a sanitizer's leak check). */
void finish(int status, void *)
{
    if (g_csv && fclose(g_csv) != 0) {
        g_csv_failed = true;
        g_csv_error = err_message();
    }
    g_csv = nullptr;
    summary();
    if (g_csv_failed && status == 0) {
        fflush(nullptr);
        _exit(1);
    }
}

} // namespace

bool profile_csv_wanted()
{
    const char *p = getenv("CUDASIM_PROFILE");
    return p && *p;
}

void profile_row(const RowInfo &r, const LaunchCounters &c)
{
    if (!profile_csv_wanted()) return;
    if (g_aggs.empty() && !g_csv && !g_csv_failed) on_exit(finish, nullptr);
    const GpuModel *g = model_running();
    Occupancy occ;
    std::string from;
    bool have = g && !r.library;
    if (have) {
        std::string base = r.name.substr(0, r.name.find('<'));
        size_t colon = base.rfind("::");
        if (colon != std::string::npos) base = base.substr(colon + 2);
        int regs = nvcc_registers(base, g->cc, &from);
        occ = occupancy(*g, r.block.x * r.block.y * r.block.z, r.shared_static, r.shared_dynamic,
                        regs);
    }
    write_row(r, c, have ? &occ : nullptr, g);
    g_rows++;
    auto ins = g_aggs.emplace(r.name, Agg());
    if (ins.second) g_order.push_back(r.name);
    Agg &a = ins.first->second;
    a.launches++;
    a.counted &= c.counted;
    a.library = r.library;
    a.last = r;
    if (have) a.occ = occ, a.have_occ = true, a.regs_from = from;
    if (r.seconds >= 0) a.seconds += r.seconds, a.bounds[r.bound]++;
    LaunchCounters &s = a.c;
    s.ld_requests += c.ld_requests, s.ld_sectors += c.ld_sectors, s.ld_ideal += c.ld_ideal;
    s.st_requests += c.st_requests, s.st_sectors += c.st_sectors, s.st_ideal += c.st_ideal;
    s.atom_requests += c.atom_requests, s.atom_sectors += c.atom_sectors;
    s.sh_ld_inst += c.sh_ld_inst, s.sh_ld_wavefronts += c.sh_ld_wavefronts, s.sh_ld_ideal += c.sh_ld_ideal;
    s.sh_st_inst += c.sh_st_inst, s.sh_st_wavefronts += c.sh_st_wavefronts, s.sh_st_ideal += c.sh_st_ideal;
    s.sh_atom_inst += c.sh_atom_inst;
    s.tex_requests += c.tex_requests, s.tex_sectors += c.tex_sectors;
    s.surf_ld_requests += c.surf_ld_requests, s.surf_ld_sectors += c.surf_ld_sectors;
    s.surf_st_requests += c.surf_st_requests, s.surf_st_sectors += c.surf_st_sectors;
    s.dram_sectors += c.dram_sectors;
    s.flops += c.flops;
}

} // namespace internal
} // namespace cudasim
