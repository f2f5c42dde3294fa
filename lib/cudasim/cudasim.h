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

#ifdef __cplusplus
}
#endif

#endif /* CUDASIM_H */
