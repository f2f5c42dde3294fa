/*
 * profile_model.cpp: how long the program's device work would take on a
 * named GPU: a stated model, never a measurement (docs/simulator.md, "The
 * time model").
 *
 * A kernel takes the GPU's shortest kernel (kernel_min: its launch latency on
 * the device) plus the longest of three times, a roofline:
 *   DRAM   the distinct 32-byte sectors it touched, once each, at the memory
 *          bandwidth (as if the L2 cache kept everything a launch touches);
 *   L2     every sector its requests asked for (global, texture and surface
 *          ones), at the L2 bandwidth;
 *   FP32   its floating-point operations at the FP32 peak (counted only for
 *          cuBLAS calls: the simulator does not see a kernel's arithmetic);
 *   shared its shared-memory wavefronts, one per clock of each SM (bank
 *          conflicts cost time here);
 * a grid of fewer blocks than the GPU has SMs gets only that share of each.
 * Two clocks follow the program: the host's and the device's. A launch costs
 * the host launch_cpu and queues the kernel, which starts when both the host
 * has issued it and the device has finished what came before; a graph's
 * launch costs the host one launch_cpu and each of its kernels graph_kernel
 * instead of kernel_min. A sync (cudaDeviceSynchronize, cudaStreamSynchronize,
 * cudaEventSynchronize, a copy to the host) waits for the device and costs
 * sync. A copy between host and device takes copy_latency plus its bytes at
 * the bus's bandwidth, pinned or pageable; a synchronous one (or any from
 * pageable memory) holds the host until it is done. What the model leaves
 * out: caches beyond the sector count, instruction latency and issue limits,
 * contention between kernels and copies, clock changes, and all the host's
 * own work between the calls (in a Python program, the interpreter's and the
 * framework's, often the largest part).
 */
#include <algorithm>

#include "../cudasim.h"
#include "profile.h"

namespace cudasim {
namespace internal {

namespace {
bool g_started = false;       /* cudasim_model_start, or CUDASIM_PROFILE */
double g_host = 0, g_dev = 0; /* the clocks: seconds since the model started */
bool g_in_graph = false;

/* Whether p is pinned host memory (cudaMallocHost, cudaHostAlloc). */
bool pinned(const void *p)
{
    const Alloc *a = find_alloc(p);
    return a && !a->device;
}
bool device_memory(const void *p)
{
    const Alloc *a = find_alloc(p);
    uintptr_t start;
    return (a && a->device) || find_symbol(p, &start);
}
} // namespace

const GpuModel *model_running()
{
    if (!g_started && profile_csv_wanted()) g_started = true;
    return g_started ? model_gpu() : nullptr;
}

double model_kernel_seconds(const GpuModel &g, const LaunchCounters &c, const char **bound)
{
    /* A grid of fewer blocks than the GPU has SMs runs on that many SMs only. */
    double share = c.blocks && c.blocks < (unsigned long long)g.sms ? (double)c.blocks / g.sms : 1.0;
    double dram = (double)c.dram_sectors * 32.0 / (g.mem_bw * share);
    double l2 = (double)(c.ld_sectors + c.st_sectors + c.atom_sectors + c.tex_sectors +
                         c.surf_ld_sectors + c.surf_st_sectors) *
                32.0 / (g.l2_bw * share);
    double fp = c.flops / (g.fp32 * share);
    /* Each SM's shared memory serves one wavefront per clock. */
    double sh = (double)(c.sh_ld_wavefronts + c.sh_st_wavefronts) / (g.clock * g.sms * share);
    double most = std::max(std::max(dram, l2), std::max(fp, sh));
    if (bound)
        *bound = most < 0.05 * g.kernel_min ? "launch"
                 : most == dram             ? "DRAM"
                 : most == l2               ? "L2"
                 : most == sh               ? "shared memory"
                                            : "FP32";
    return g.kernel_min + most;
}

void model_launch(double seconds)
{
    const GpuModel *g = model_running();
    if (!g) return;
    if (g_in_graph) {
        g_dev = std::max(g_dev, g_host) + seconds - g->kernel_min + g->graph_kernel;
        return;
    }
    g_host += g->launch_cpu;
    g_dev = std::max(g_dev, g_host) + seconds;
}

void model_graph(bool begin)
{
    const GpuModel *g = model_running();
    if (g && begin) g_host += g->launch_cpu;
    g_in_graph = begin;
}

void model_sync()
{
    const GpuModel *g = model_running();
    if (!g) return;
    g_host = std::max(g_host, g_dev) + g->sync;
}

void model_copy(const void *dst, const void *src, size_t n, cudaMemcpyKind kind, bool async)
{
    const GpuModel *g = model_running();
    if (!g) return;
    bool to_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice ||
                  (kind == cudaMemcpyDefault && device_memory(dst));
    bool from_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice ||
                    (kind == cudaMemcpyDefault && device_memory(src));
    if (!to_dev && !from_dev) return; /* host to host: the host's own work */
    if (to_dev && from_dev) {         /* on the device: read and write at its bandwidth */
        model_launch(g->kernel_min + 2.0 * (double)n / g->mem_bw);
        return;
    }
    bool pin = pinned(to_dev ? src : dst);
    double t = g->copy_latency + (double)n / (pin ? g->bus_pinned : g->bus_pageable);
    if (async && pin) { /* queued: the DMA engine runs it in order with the kernels */
        g_host += g->launch_cpu;
        g_dev = std::max(g_dev, g_host) + t;
        return;
    }
    /* The host waits for what came before, then for the copy (a pageable copy is
     * staged through the host, so even cudaMemcpyAsync waits). */
    g_host = std::max(g_host, g_dev) + t;
    g_dev = g_host;
}

void model_memset(size_t n, bool async)
{
    (void)async; /* a memset of device memory is queued like a kernel either way */
    const GpuModel *g = model_running();
    if (g) model_launch(g->kernel_min + (double)n / g->mem_bw);
}

void model_library(const char *call, double flops, double bytes)
{
    const GpuModel *g = model_running();
    if (!g) return;
    LaunchCounters c;
    c.flops = flops;
    c.dram_sectors = (uint64_t)(bytes / 32.0);
    const char *bound = "";
    double t = model_kernel_seconds(*g, c, &bound);
    model_launch(t);
    RowInfo r;
    r.name = call;
    r.library = true;
    r.seconds = t;
    r.bound = bound;
    profile_row(r, c);
}

} // namespace internal
} // namespace cudasim

using namespace cudasim::internal;

extern "C" int cudasim_model_start(void)
{
    profile_enable();
    g_started = true;
    g_host = g_dev = 0;
    return model_gpu() ? 0 : -1;
}

extern "C" const char *cudasim_model_gpu(void)
{
    const GpuModel *g = model_gpu();
    return g ? g->name.c_str() : nullptr;
}

extern "C" double cudasim_model_seconds(void) { return g_host; }
