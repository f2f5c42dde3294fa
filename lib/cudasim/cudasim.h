/**
 * @file cudasim.h
 * @brief The CUDA simulator's own calls (only in a simulator build).
 *
 * The simulator runs real `.cu` sources on the CPU (see docs/simulator.md).
 * When it finds a bug (a read or write outside a device buffer, a barrier not
 * all threads of a block reach, a copy of the wrong kind, a launch over the
 * limits) it fails the CUDA call with the error real CUDA gives and writes a
 * report naming the kernel, the block and the thread. These functions give
 * programs and tests access to that report.
 */
#ifndef CUDASIM_H
#define CUDASIM_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief The last report of the simulator ("" when there is none). */
const char *cudasim_last_report(void);

/** @brief Forget the last report. */
void cudasim_clear_report(void);

/**
 * @brief Where reports are printed as they happen (stderr by default).
 *
 * NULL keeps them quiet; cudasim_last_report() still returns the last one.
 */
void cudasim_set_report_stream(FILE *stream);

/**
 * @brief How many kernels have been launched since the program started.
 *
 * A launch that a stream capture records counts each time its graph runs
 * (cudaGraphLaunch), not when it is recorded.
 */
unsigned long long cudasim_launch_count(void);

/**
 * @brief How many races and reads of never-written memory were reported so far.
 *
 * Kernels' accesses are checked as they happen (docs/simulator.md): a data
 * race between threads of a block, or a read of device memory that nothing
 * wrote, is reported once per pair of source lines and the kernel goes on,
 * as under compute-sanitizer; this counts those reports.
 */
unsigned long long cudasim_hazard_count(void);

/**
 * @brief How host code is kept out of device memory: "protection keys" or "mprotect".
 *
 * On a GPU the CPU cannot dereference a device pointer; in the simulator,
 * host code that reads or writes a cudaMalloc buffer dies of a SIGSEGV with a
 * message saying so. Memory protection keys (x86-64 CPUs with PKU) make that
 * check nearly free; without them (or with CUDASIM_PKEYS=0) the simulator
 * uses mprotect, which costs some microseconds per buffer a kernel touches.
 */
const char *cudasim_memory_guard(void);

/**
 * @brief Choose how host code is kept out of device memory (for tests).
 *
 * 1 asks for memory protection keys (granted where the CPU and the kernel
 * have them), 0 for mprotect. Only while no cudaMalloc buffer exists (after
 * cudaDeviceReset, say). Returns 1 when protection keys are now in use, 0 for
 * mprotect, and -1 (nothing changed) while device buffers exist.
 */
int cudasim_set_memory_guard(int protection_keys);

#ifdef __cplusplus
}
#endif

#endif /* CUDASIM_H */
