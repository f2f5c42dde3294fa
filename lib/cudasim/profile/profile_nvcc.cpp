/*
 * profile_nvcc.cpp: registers per thread of each kernel, from nvcc.
 *
 * How many registers a kernel's thread needs is decided by ptxas, nvcc's
 * assembler, for one architecture; nothing in the simulator can know it. So
 * it is read from what nvcc printed when it compiled the same source with
 * `--resource-usage -arch=sm_XX` (the Makefile's sim-run does, where nvcc is
 * installed, caching the output by the source's content): lines such as
 *
 *   ptxas info    : Compiling entry function '_Z6kernelPfi' for 'sm_90'
 *   ptxas info    : Used 10 registers, used 0 barriers, 32 bytes smem
 *
 * or what `cuobjdump -res-usage` prints of a built program ("arch = sm_90",
 * "Function _Z6kernelPfi:", "REG:10 STACK:0 SHARED:32 ..."). CUDASIM_NVCC_RESOURCES
 * names the file, read as every file of the workbook is (lib/core/fileio.h: a
 * FIFO, a device or a file over 64 MiB is refused by name, never waited on).
 * Without it, or without the kernel for the model's architecture, the count is
 * unknown and the occupancy says so; no number is made up.
 */
#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

#include "../../core/fileio.h"
#include "profile.h"

namespace cudasim {
namespace internal {

namespace {

/* kernel base name -> architecture (90) -> the registers its instantiations use (the most) */
std::map<std::string, std::map<int, int>> g_regs;
std::string g_regs_file;
bool g_regs_read = false;

/* "void ns::k<int, 4>(float const*, int)" -> "k": the name the simulator's launches carry. */
std::string base_name(const char *mangled)
{
    int status = 0;
    char *d = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
    std::string s = status == 0 && d ? d : mangled;
    free(d);
    std::string out;
    int depth = 0;
    for (char c : s) {
        if (c == '<') depth++;
        else if (c == '>') depth--;
        else if (c == '(' && depth == 0) break;
        else if (depth == 0) out += c;
    }
    size_t cut = out.rfind("::");
    if (cut != std::string::npos) out = out.substr(cut + 2);
    cut = out.rfind(' ');
    if (cut != std::string::npos) out = out.substr(cut + 1);
    return out;
}

void read_resources()
{
    g_regs_read = true;
    const char *path = getenv("CUDASIM_NVCC_RESOURCES");
    if (!path || !*path) return;
    char *text = nullptr;
    size_t len = 0;
    if (fileio_read_max(path, (size_t)64 << 20, "file of nvcc's resource usage", &text, &len) != ERR_OK) {
        /* no counts: the occupancy says the registers are unknown, and this says why */
        report("CUDASIM_NVCC_RESOURCES: %s; registers per thread are unknown", err_message());
        return;
    }
    g_regs_file = path;
    char kernel[1024] = "";
    int arch = 0;
    for (char *next = text, *line; (line = next);) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        const char *p;
        if ((p = strstr(line, "Compiling entry function '"))) {
            p += strlen("Compiling entry function '");
            const char *q = strchr(p, '\'');
            if (!q || (size_t)(q - p) >= sizeof kernel) continue;
            memcpy(kernel, p, (size_t)(q - p));
            kernel[q - p] = 0;
            const char *sm = strstr(q, "'sm_");
            arch = sm ? atoi(sm + 4) : 0;
        } else if ((p = strstr(line, "arch = sm_"))) { /* cuobjdump -res-usage */
            arch = atoi(p + strlen("arch = sm_"));
        } else if ((p = strstr(line, "Function ")) && strchr(p, ':')) {
            p += strlen("Function ");
            const char *q = strchr(p, ':');
            if ((size_t)(q - p) >= sizeof kernel) continue;
            memcpy(kernel, p, (size_t)(q - p));
            kernel[q - p] = 0;
        } else if (*kernel && (((p = strstr(line, "Used ")) && strstr(p, " registers")) ||
                               (p = strstr(line, "REG:")))) {
            int regs = atoi(p + (p[0] == 'U' ? 5 : 4));
            int &slot = g_regs[base_name(kernel)].emplace(arch, regs).first->second;
            if (regs > slot) slot = regs;
            kernel[0] = 0;
        }
    }
    free(text);
}

} // namespace

int nvcc_registers(const std::string &name, int cc, std::string *from)
{
    if (!g_regs_read) read_resources();
    auto k = g_regs.find(name);
    if (k != g_regs.end()) {
        auto a = k->second.find(cc);
        if (a != k->second.end()) {
            if (from) *from = "nvcc --resource-usage, sm_" + std::to_string(cc);
            return a->second;
        }
    }
    if (from)
        *from = g_regs_file.empty() ? "unknown: no nvcc output (nvcc not installed?)"
                                    : "unknown: nvcc's output has no sm_" + std::to_string(cc) +
                                          " entry for it";
    return -1;
}

} // namespace internal
} // namespace cudasim
