/*
 * profile.h: the simulator's profiler and its time model, as the runtime's
 * files call them (docs/simulator.md, "What a kernel's accesses cost").
 *
 *  profile.cpp         a profiled launch from its start to its row: its
 *                      counters under Nsight Compute's names; the trace of
 *                      accesses the grader recomputes them from
 *  profile_groups.cpp  every access of a profiled launch, grouped into the
 *                      warp instructions a GPU would execute, and costed
 *  profile_report.cpp  CUDASIM_PROFILE: a CSV row per launch, and a summary per
 *                      kernel when the program ends
 *  profile_gpu.cpp     the GPU the model is for (lib/cudasim/profile/gpus/NAME.json) and
 *                      the occupancy of a launch on it
 *  profile_nvcc.cpp    registers per thread, from nvcc's resource usage
 *  profile_model.cpp   the time model: kernels, copies, syncs on the named GPU
 *
 * Nothing here runs unless asked: CUDASIM_PROFILE=FILE, a program's
 * cudasim_model_start() or the grader's cudasim_trace_start() (cudasim.h).
 */
#ifndef CUDASIM_PROFILE_H
#define CUDASIM_PROFILE_H

#include <stdint.h>

#include <string>

#include "../internal.h"

namespace cudasim {
namespace internal {

/* ---- a launch's counters (profile.cpp) ------------------------------------- */

/* What one launch did, as Nsight Compute counts it on a GPU of compute
 * capability 7.0 or later (warp_access.h says how a warp's instruction is
 * costed). */
struct LaunchCounters {
    bool counted = false; /* its accesses were seen (a translated, instrumented kernel) */
    unsigned long long ld_requests = 0, ld_sectors = 0, ld_ideal = 0;       /* global loads */
    unsigned long long st_requests = 0, st_sectors = 0, st_ideal = 0;       /* global stores */
    unsigned long long atom_requests = 0, atom_sectors = 0;                 /* global atomics */
    unsigned long long sh_ld_inst = 0, sh_ld_wavefronts = 0, sh_ld_ideal = 0; /* shared loads */
    unsigned long long sh_st_inst = 0, sh_st_wavefronts = 0, sh_st_ideal = 0; /* shared stores */
    unsigned long long sh_atom_inst = 0;                                    /* shared atomics */
    unsigned long long tex_requests = 0, tex_sectors = 0;         /* texture fetches */
    unsigned long long surf_ld_requests = 0, surf_ld_sectors = 0; /* surface reads */
    unsigned long long surf_st_requests = 0, surf_st_sectors = 0; /* surface writes */
    unsigned long long dram_sectors = 0; /* distinct sectors the launch touched: its least DRAM traffic */
    double flops = 0;          /* floating-point operations, where known (cuBLAS) */
    unsigned long long blocks = 0; /* the grid's blocks (0: a library call, the whole GPU) */
};

/* Whether the profiler runs (CUDASIM_PROFILE, cudasim_model_start, tracing). */
bool profile_on();
/* Turn it on for the launches to come (cudasim_model_start). */
void profile_enable();
/* launch_begin: whether this launch is profiled (g_launch.profiling). */
void profile_launch_begin();
/* run_grid: an attempt at the grid begins (a restart forgets the last). */
void profile_grid_begin();
/* on_access: n bytes at a, in shared memory or else device memory (the
 * accesses counted), by thread g_launch.tid, from the code at pc
 * (profile_groups.cpp: on to the thread's log, or, while tracing, to
 * profile_traced_access in profile.cpp). */
void profile_access(uintptr_t a, size_t n, AccessKind kind, const void *pc, bool shared);
extern bool g_profile_tracing; /* cudasim_trace_start */
/* The pieces nvcc would load an access of n bytes at a in, each counted as a
 * warp instruction of its own: n bytes (1, 2, 4, 8 or 16), or, for a struct
 * copied whole, the largest power of two up to 16 that divides a and n. */
inline size_t access_piece(uintptr_t a, size_t n)
{
    if (n && n <= 16 && !(n & (n - 1))) return n;
    size_t piece = 16;
    while (piece > 1 && ((a | n) & (piece - 1))) piece >>= 1;
    return piece;
}
void profile_traced_access(uintptr_t a, size_t n, AccessKind kind, bool shared, const void *pc);
/* A texture fetch (the texels it reads: n addresses of `size` bytes each) or
 * a surface access (one address) by thread g_launch.tid, from the code at pc
 * (runtime/api_texture_fetch.cpp). */
enum TexPath { TEX_FETCH, SURF_LOAD, SURF_STORE };
void profile_texture(const uintptr_t *addr, unsigned n, unsigned size, TexPath path,
                     const void *pc);
/* run_grid: the running block has finished. */
void profile_block_end();
/* launch_end: the launch has finished (or stopped: finished is false). */
void profile_launch_end(bool finished);

/* ---- warp instructions (profile_groups.cpp) -------------------------------- */

/* A launch, or a new attempt at its grid, begins: its accesses are counted
 * into *c, from nothing. */
void groups_begin(LaunchCounters *c);
/* An access of size bytes (a power of two, at most 16) at addr (shared
 * memory: from the arena's start) by thread g_launch.tid, from the code at pc
 * (piece: which piece of a struct copied whole). */
void groups_access(uint64_t addr, unsigned size, AccessKind kind, bool shared, const void *pc,
                   unsigned piece);
/* A texture fetch or a surface access (profile_texture). */
void groups_texture(const uintptr_t *addr, unsigned n, unsigned size, TexPath path, const void *pc);
/* The running block ended (or stopped at a grid sync): its warp instructions
 * are costed. */
void groups_block_end();
/* The running block's accesses are forgotten, uncounted (a launch that stopped). */
void groups_forget();
/* The distinct global sectors the launch touched: its least DRAM traffic. */
size_t groups_dram_sectors();

/* ---- the GPU of the model (profile_gpu.cpp) -------------------------------- */

/* One GPU's figures (lib/cudasim/profile/gpus/NAME.json, each with its source). */
struct GpuModel {
    std::string key, name, file; /* "h100", "NVIDIA H100 SXM", the file read */
    int cc = 0;                  /* compute capability: 90 for 9.0 */
    int sms = 0;
    double clock = 0;                              /* the SMs' clock, Hz */
    double mem_bw = 0, l2_bw = 0, fp32 = 0;        /* bytes/s, bytes/s, flop/s */
    double bus_pinned = 0, bus_pageable = 0;        /* bytes/s, one direction */
    double launch_cpu = 0, kernel_min = 0, graph_kernel = 0, sync = 0, copy_latency = 0; /* s */
    int max_threads_sm = 0, max_blocks_sm = 0, regs_sm = 0, max_regs_thread = 0;
    int reg_unit = 0, warp_granularity = 0;
    int shared_sm = 0, shared_block_optin = 0, shared_reserved = 0, shared_unit = 0;
};
/* The GPU CUDASIM_GPU names (h100 when unset), read once; NULL when its file
 * is missing or wrong (reported once, one line naming the file and field). */
const GpuModel *model_gpu();

/* A launch's theoretical occupancy on a GPU, as cudaOccupancyMaxActiveBlocksPerMultiprocessor
 * computes it. A limit of -1 is unknown (registers without nvcc). */
struct Occupancy {
    int regs = -1;            /* registers per thread (nvcc), -1 unknown */
    int blocks = 0;           /* resident blocks per SM */
    int lim_warps = 0, lim_regs = -1, lim_shared = 0, lim_blocks = 0;
    double pct = 0;           /* active warps / the SM's maximum, in percent */
    const char *limiter = ""; /* "threads", "registers", "shared memory", "blocks" */
};
Occupancy occupancy(const GpuModel &g, unsigned threads, size_t shared_static,
                    size_t shared_dynamic, int regs);

/* ---- nvcc's resource usage (profile_nvcc.cpp) ------------------------------ */

/* Registers per thread of kernel `name` (its base name: no template
 * arguments or namespaces) for the model's architecture, from the nvcc output
 * CUDASIM_NVCC_RESOURCES names; -1 when unknown. *from says where it came from. */
int nvcc_registers(const std::string &name, int cc, std::string *from);

/* ---- the time model (profile_model.cpp) ------------------------------------ */

/* The GPU when the model runs (cudasim_model_start, CUDASIM_PROFILE), else NULL. */
const GpuModel *model_running();

/* Seconds a kernel with these counters takes on g, alone on the device, and
 * what bounds it ("launch", "DRAM", "L2", "FP32"). */
double model_kernel_seconds(const GpuModel &g, const LaunchCounters &c, const char **bound);
/* What the program asked of the device, for the model's clocks. */
void model_launch(double device_seconds);      /* a kernel (or a library call) */
void model_graph(bool begin);                  /* cudaGraphLaunch's nodes follow / are done */
void model_copy(const void *dst, const void *src, size_t n, cudaMemcpyKind kind, bool async);
void model_memset(size_t n, bool async);
void model_sync();                             /* the host waits for the device */
/* A library call's work (cuBLAS): flops and bytes, as one kernel of the model. */
void model_library(const char *call, double flops, double bytes);

/* ---- the CSV rows and the summary (profile_report.cpp) --------------------- */

/* What a row says of a launch besides its counters. */
struct RowInfo {
    std::string name;       /* the kernel as launched ("scale", "block_max<int, 128>") */
    dim3 grid, block;
    size_t shared_static = 0, shared_dynamic = 0;
    bool library = false;   /* a library call (cuBLAS): no accesses seen, no occupancy */
    double seconds = -1;    /* modelled, or -1 without a model */
    const char *bound = ""; /* what bounds the modelled time */
};
/* A launch's row: its counters, occupancy and modelled time (and its part of
 * the summary at exit). */
void profile_row(const RowInfo &r, const LaunchCounters &c);
/* Whether CUDASIM_PROFILE asked for rows (and the summary at exit). */
bool profile_csv_wanted();

} // namespace internal
} // namespace cudasim

#endif /* CUDASIM_PROFILE_H */
