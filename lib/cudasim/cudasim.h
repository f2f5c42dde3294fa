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

#include <stddef.h>
#include <stdint.h>
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
 * @brief How many launches had their accesses checked, and how many ran unchecked.
 *
 * Under the default checks a kernel's launches of one shape (grid, block,
 * shared memory, the arguments' values and buffers) run unchecked once four
 * of them ran clean; `CUDASIM_CHECK=all` checks every launch
 * (docs/simulator.md, "Checked, then run"). Either pointer may be NULL.
 */
void cudasim_check_counts(unsigned long long *checked, unsigned long long *unchecked);

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

/* ---- what a kernel's accesses cost (docs/simulator.md) ---------------------------- */

/**
 * @brief One launch's counters, as Nsight Compute counts them on a GPU.
 *
 * Each field is the value of the metric named beside it: global loads, stores
 * and atomics in requests (one per warp instruction) and 32-byte sectors,
 * shared loads and stores in warp instructions and wavefronts, texture
 * fetches and surface reads and writes in requests and sectors. An `_ideal`
 * field is the fewest sectors (wavefronts) the same bytes could have taken:
 * sectors beyond it are uncoalesced accesses, wavefronts beyond it bank
 * conflicts. `counted` is 0 for a kernel whose accesses the simulator did not
 * see (one not built by its translator).
 */
typedef struct CudasimCounters {
    int counted;                         /**< 1 when the launch's accesses were seen */
    unsigned long long ld_requests;      /**< l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum */
    unsigned long long ld_sectors;       /**< l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum */
    unsigned long long ld_ideal;         /**< the fewest sectors for the bytes loaded */
    unsigned long long st_requests;      /**< l1tex__t_requests_pipe_lsu_mem_global_op_st.sum */
    unsigned long long st_sectors;       /**< l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum */
    unsigned long long st_ideal;         /**< the fewest sectors for the bytes stored */
    unsigned long long atom_requests;    /**< l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum */
    unsigned long long atom_sectors;     /**< l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum */
    unsigned long long sh_ld_inst;       /**< smsp__inst_executed_op_shared_ld.sum */
    unsigned long long sh_ld_wavefronts; /**< l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum */
    unsigned long long sh_st_inst;       /**< smsp__inst_executed_op_shared_st.sum */
    unsigned long long sh_st_wavefronts; /**< l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum */
    unsigned long long sh_atom_inst;     /**< smsp__inst_executed_op_shared_atom.sum */
    unsigned long long dram_sectors;     /**< distinct global sectors: the least DRAM traffic / 32 */
    double modelled_seconds;             /**< its time on the model's GPU (modelled), or -1 */
    unsigned long long tex_requests;     /**< l1tex__t_requests_pipe_tex_mem_texture.sum */
    unsigned long long tex_sectors;      /**< l1tex__t_sectors_pipe_tex_mem_texture.sum */
    unsigned long long surf_ld_requests; /**< l1tex__t_requests_pipe_tex_mem_surface_op_ld.sum */
    unsigned long long surf_ld_sectors;  /**< l1tex__t_sectors_pipe_tex_mem_surface_op_ld.sum */
    unsigned long long surf_st_requests; /**< l1tex__t_requests_pipe_tex_mem_surface_op_st.sum */
    unsigned long long surf_st_sectors;  /**< l1tex__t_sectors_pipe_tex_mem_surface_op_st.sum */
} CudasimCounters;

/**
 * @brief The counters of the last launch that finished while the profiler ran.
 *
 * The profiler runs with `CUDASIM_PROFILE=FILE` in the environment (a CSV row
 * per launch in FILE), after cudasim_model_start(), and while a trace is
 * recorded. Returns 0, or -1 when no profiled launch has finished yet.
 */
int cudasim_profile_last(CudasimCounters *out);

/**
 * @brief Start the time model for the GPU that `CUDASIM_GPU` names (h100 when unset).
 *
 * From now on every launch is profiled and every launch, copy and sync moves
 * the model's clock (cudasim_model_seconds()). Returns 0, or -1 when the
 * GPU's file is missing or wrong (the report says which field).
 */
int cudasim_model_start(void);

/** @brief The name of the GPU the model is for ("NVIDIA H100 SXM"), or NULL without one. */
const char *cudasim_model_gpu(void);

/**
 * @brief The model's clock: seconds the program's device work would have kept
 * the host busy on the modelled GPU since cudasim_model_start().
 *
 * Launches, copies and syncs move it as the model says (docs/simulator.md,
 * "The time model"); the host's own work between them does not (on the
 * simulator that is the simulator's time, not a GPU's). A figure from it is
 * modelled, never measured, and is printed as such.
 */
double cudasim_model_seconds(void);

/** The words of one access in a trace (cudasim_trace_words()). */
#define CUDASIM_TRACE_WORDS 12

/**
 * @brief Record every access of the launches to come, with its value (for the grader).
 *
 * Each access is CUDASIM_TRACE_WORDS 32-bit words: the launch (from 0), the
 * block (linear index), the thread (linear index in its block), the code that
 * made it (a number), kind (0 load, 1 store, 2 atomic) | shared << 4 |
 * bytes << 8 | piece << 16, the address (two words, low first: shared memory
 * from the start of the block's, global memory as it is), and the bytes read or
 * written (four words). Starting again forgets the last trace.
 */
void cudasim_trace_start(void);

/** @brief The trace so far: *n words (a multiple of CUDASIM_TRACE_WORDS). */
const uint32_t *cudasim_trace_words(size_t *n);

/** @brief Stop recording (the trace stays until the next cudasim_trace_start()). */
void cudasim_trace_stop(void);

#ifdef __cplusplus
}
#endif

#endif /* CUDASIM_H */
