/**
 * @file cpuinfo.h
 * @brief What the CPU is: the facts `lscpu` shows, read from /proc and /sys.
 *
 * Lesson 01 prints these next to its timing, because a time means little
 * without the machine it was taken on: the model, sockets, cores per socket,
 * threads per core, logical CPUs, caches, the SIMD instruction sets the chip
 * offers, the memory, and which of those SIMD sets this build was compiled to
 * use.
 */
#ifndef WB_CPUINFO_H
#define WB_CPUINFO_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/core/err.h"

/** The CPU facts a lesson prints. Unknown numbers are 0, unknown strings "". */
typedef struct CpuInfo {
    char model[128];        /**< "Intel(R) Core(TM) i7-12800HX" */
    char vendor[32];        /**< "GenuineIntel", "AuthenticAMD" (x86 only) */
    int logical;            /**< logical CPUs (hardware threads) */
    int sockets;            /**< physical packages */
    int cores;              /**< physical cores in all sockets */
    int threads_min;        /**< fewest threads on one core */
    int threads_max;        /**< most threads on one core (differs on hybrid CPUs) */
    char simd[256];         /**< SIMD sets offered: "SSE4.2 AVX AVX2 FMA AVX-512F ..." */
    char caches[160];       /**< "L1d 48 KiB, L2 2 MiB, L3 105 MiB" (per core or shared) */
    double mem_gib;         /**< total memory in GiB */
    bool wsl;               /**< Linux under Windows (WSL): its GPU comes through the Windows driver */
} CpuInfo;

/**
 * @brief Fill @p info from the text of a /proc/cpuinfo file.
 *
 * Takes the text rather than a path so that tests can feed any machine's
 * file. Topology comes from the `physical id` and `core id` fields; when
 * they are missing (ARM, some VMs) every logical CPU counts as one core.
 */
WB_MUST_CHECK int cpuinfo_parse(const char *proc_cpuinfo, CpuInfo *info);

/**
 * @brief Read this machine's facts from /proc/cpuinfo, /proc/meminfo and /sys.
 *
 * Returns ::ERR_UNSUPPORTED (with what could be found filled in) on systems
 * without /proc.
 */
WB_MUST_CHECK int cpuinfo_read(CpuInfo *info);

/**
 * @brief Whether the text of /proc/version (or /proc/sys/kernel/osrelease) is WSL's:
 *        a Linux kernel built by Microsoft ("...-microsoft-standard-WSL2").
 */
bool cpuinfo_is_wsl(const char *proc_version);

/** @brief The SIMD sets this binary was compiled to use, from the compiler's macros. */
const char *cpuinfo_build_simd(void);

/** @brief Print @p info as a short lscpu-like table. */
void cpuinfo_print(const CpuInfo *info, FILE *out);

#endif /* WB_CPUINFO_H */
