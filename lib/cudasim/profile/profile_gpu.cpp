/*
 * profile_gpu.cpp: the GPU the profiler's model is for, and a launch's
 * occupancy on it.
 *
 * Each GPU is a file of lib/cudasim/profile/gpus/, NAME.json: its name and figures,
 * each {"value": number, "source": "where it comes from"} (the vendor's
 * datasheet or whitepaper, the CUDA Programming Guide, or "assumed: ..." for
 * what no vendor publishes). CUDASIM_GPU picks one by NAME (h100 when
 * unset) or names a file of the same form by its path, read as every file of
 * the workbook is (lib/core/fileio.h: a FIFO, a device or a folder is refused
 * by name before a byte is read, and so is a file over 1 MiB). A file that is
 * missing, malformed, lacks a figure or its source, or has a figure the model
 * does not know is reported in one line naming the file, the field and the
 * fix, and the model stays off (the counts still come).
 */
#include <jansson.h>

#include <cmath>
#include <cstdlib>
#include <cstring>

#include "../../core/fileio.h"
#include "profile.h"

#ifndef CUDASIM_GPU_DIR
#define CUDASIM_GPU_DIR "lib/cudasim/profile/gpus"
#endif

namespace cudasim {
namespace internal {

namespace {

const char *const kDefaultGpu = "h100";
const char *const kKnownGpus = "h200, h100, a100, l4, t4, rtx4090, rtx4070-laptop";
const size_t kGpuFileMax = (size_t)1 << 20; /* a GPU's file is a few KiB */

/* The figures a file must give: its field, where it goes, and its scale to
 * the model's units (bytes, seconds, flops). */
struct Figure {
    const char *field;
    double GpuModel::*d;
    int GpuModel::*i;
    double scale;
    double lo, hi; /* the plausible range of the value as written */
};
const Figure kFigures[] = {
    {"compute_capability", nullptr, &GpuModel::cc, 10, 7.0, 12.1},
    {"sms", nullptr, &GpuModel::sms, 1, 1, 1024},
    {"sm_clock_MHz", &GpuModel::clock, nullptr, 1e6, 100, 10000},
    {"memory_bandwidth_GBps", &GpuModel::mem_bw, nullptr, 1e9, 10, 1e5},
    {"l2_bandwidth_GBps", &GpuModel::l2_bw, nullptr, 1e9, 10, 1e6},
    {"fp32_TFLOPS", &GpuModel::fp32, nullptr, 1e12, 0.1, 1e4},
    {"pinned_copy_GBps", &GpuModel::bus_pinned, nullptr, 1e9, 0.1, 1e4},
    {"pageable_copy_GBps", &GpuModel::bus_pageable, nullptr, 1e9, 0.1, 1e4},
    {"launch_cpu_us", &GpuModel::launch_cpu, nullptr, 1e-6, 0, 1e4},
    {"kernel_min_us", &GpuModel::kernel_min, nullptr, 1e-6, 0, 1e4},
    {"graph_kernel_us", &GpuModel::graph_kernel, nullptr, 1e-6, 0, 1e4},
    {"sync_us", &GpuModel::sync, nullptr, 1e-6, 0, 1e4},
    {"copy_latency_us", &GpuModel::copy_latency, nullptr, 1e-6, 0, 1e4},
    {"max_threads_per_sm", nullptr, &GpuModel::max_threads_sm, 1, 32, 4096},
    {"max_blocks_per_sm", nullptr, &GpuModel::max_blocks_sm, 1, 1, 64},
    {"registers_per_sm", nullptr, &GpuModel::regs_sm, 1, 1024, 1 << 20},
    {"max_registers_per_thread", nullptr, &GpuModel::max_regs_thread, 1, 16, 1024},
    {"register_allocation_unit", nullptr, &GpuModel::reg_unit, 1, 1, 4096},
    {"warp_allocation_granularity", nullptr, &GpuModel::warp_granularity, 1, 1, 64},
    {"shared_memory_per_sm_KiB", nullptr, &GpuModel::shared_sm, 1024, 1, 4096},
    {"shared_memory_per_block_optin_KiB", nullptr, &GpuModel::shared_block_optin, 1024, 1, 4096},
    {"shared_memory_reserved_per_block", nullptr, &GpuModel::shared_reserved, 1, 0, 65536},
    {"shared_memory_allocation_unit", nullptr, &GpuModel::shared_unit, 1, 1, 65536},
};

GpuModel g_gpu;
int g_gpu_state = 0; /* 0 not read yet, 1 read, -1 refused */

bool refuse(const std::string &file, const char *field, const char *what)
{
    report("%s: %s%s%s: %s; the time model is off (counts are still exact). Each figure is "
           "{\"value\": number, \"source\": \"where it comes from\"}, as in "
           CUDASIM_GPU_DIR "/%s.json",
           file.c_str(), field ? "field \"" : "", field ? field : "", field ? "\"" : "", what,
           kDefaultGpu);
    return false;
}

bool load(const std::string &key, const std::string &file, GpuModel *out)
{
    char *text = nullptr;
    size_t len = 0;
    if (fileio_read_max(file.c_str(), kGpuFileMax, "GPU file", &text, &len) != ERR_OK) {
        report("%s; the time model is off (counts are still exact): CUDASIM_GPU names one of %s, "
               "or a GPU file's path",
               err_message(), kKnownGpus);
        return false;
    }
    json_error_t err;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &err);
    free(text);
    if (!root) {
        char what[300];
        snprintf(what, sizeof what, "not JSON at line %d: %s", err.line, err.text);
        return refuse(file, nullptr, what);
    }
    GpuModel g;
    g.key = key;
    g.file = file;
    bool ok = true;
    json_t *name = json_object_get(root, "name");
    if (!json_is_string(name) || !*json_string_value(name))
        ok = refuse(file, "name", "missing or not a string: give the GPU's name");
    else
        g.name = json_string_value(name);
    for (const Figure &f : kFigures) {
        if (!ok) break;
        json_t *o = json_object_get(root, f.field);
        json_t *v = json_object_get(o, "value"), *s = json_object_get(o, "source");
        if (!json_is_object(o))
            ok = refuse(file, f.field, "missing: the model needs it");
        else if (!json_is_number(v))
            ok = refuse(file, f.field, "its \"value\" is missing or not a number");
        else if (!json_is_string(s) || strlen(json_string_value(s)) < 8)
            ok = refuse(file, f.field, "its \"source\" is missing: say where the figure comes from");
        else if (json_number_value(v) < f.lo || json_number_value(v) > f.hi) {
            char what[160];
            snprintf(what, sizeof what, "%g is outside %g to %g: check its unit", json_number_value(v),
                     f.lo, f.hi);
            ok = refuse(file, f.field, what);
        } else if (f.d) {
            g.*f.d = json_number_value(v) * f.scale;
        } else {
            g.*f.i = (int)std::lround(json_number_value(v) * f.scale);
        }
    }
    const char *field;
    json_t *value;
    json_object_foreach(root, field, value)
    {
        if (!ok) break;
        bool known = !strcmp(field, "name");
        for (const Figure &f : kFigures) known |= !strcmp(field, f.field);
        if (!known) ok = refuse(file, field, "not a figure the model knows (a misspelt name?)");
    }
    json_decref(root);
    if (ok) *out = g;
    return ok;
}

} // namespace

const GpuModel *model_gpu()
{
    if (g_gpu_state == 0) {
        const char *env = getenv("CUDASIM_GPU");
        std::string key = env && *env ? env : kDefaultGpu, file;
        if (key.find('/') != std::string::npos || key.find(".json") != std::string::npos)
            file = key;
        else
            file = std::string(CUDASIM_GPU_DIR "/") + key + ".json";
        g_gpu_state = load(key, file, &g_gpu) ? 1 : -1;
    }
    return g_gpu_state > 0 ? &g_gpu : nullptr;
}

/* As cudaOccupancyMaxActiveBlocksPerMultiprocessor: each resource's limit on
 * the blocks an SM holds at once, with the allocation units of the
 * Occupancy Calculator; the smallest is the occupancy's limiter. */
Occupancy occupancy(const GpuModel &g, unsigned threads, size_t shared_static,
                    size_t shared_dynamic, int regs)
{
    Occupancy o;
    o.regs = regs;
    int max_warps = g.max_threads_sm / 32;
    int warps = (int)((threads + 31) / 32);
    o.lim_warps = warps ? max_warps / warps : 0;
    o.lim_blocks = g.max_blocks_sm;
    size_t shared = shared_static + shared_dynamic + (size_t)g.shared_reserved;
    shared = (shared + g.shared_unit - 1) / g.shared_unit * g.shared_unit;
    o.lim_shared = shared ? (int)((size_t)g.shared_sm / shared) : g.max_blocks_sm;
    if (shared_static + shared_dynamic > (size_t)g.shared_block_optin) o.lim_shared = 0;
    if (regs >= 0) {
        if (regs > g.max_regs_thread) {
            o.lim_regs = 0;
        } else {
            int per_warp = (regs * 32 + g.reg_unit - 1) / g.reg_unit * g.reg_unit;
            int warps_fit = per_warp ? g.regs_sm / per_warp : max_warps;
            warps_fit = warps_fit / g.warp_granularity * g.warp_granularity;
            o.lim_regs = warps ? warps_fit / warps : 0;
        }
    }
    o.blocks = o.lim_warps;
    o.limiter = "threads";
    if (o.lim_regs >= 0 && o.lim_regs < o.blocks) o.blocks = o.lim_regs, o.limiter = "registers";
    if (o.lim_shared < o.blocks) o.blocks = o.lim_shared, o.limiter = "shared memory";
    if (o.lim_blocks < o.blocks) o.blocks = o.lim_blocks, o.limiter = "blocks";
    o.pct = max_warps ? 100.0 * o.blocks * warps / max_warps : 0;
    if (o.pct > 100) o.pct = 100;
    return o;
}

} // namespace internal
} // namespace cudasim
