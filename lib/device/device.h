/**
 * @file device.h
 * @brief Where a tensor lives: the CPU or one CUDA device, named as in PyTorch.
 *
 * Device strings follow PyTorch: `cpu`, `cuda` (device 0 of those visible)
 * and `cuda:N`. As in PyTorch, N counts the devices the program can see:
 * with `CUDA_VISIBLE_DEVICES=2`, `cuda:0` is the machine's GPU 2 and there
 * is no `cuda:1`. A build without a CUDA backend, a machine without a
 * driver or without a GPU are all normal: asking for `cuda` then gives a
 * one-line ::ERR_DEVICE that says which, and the CPU keeps working.
 */
#ifndef WB_DEVICE_H
#define WB_DEVICE_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/core/err.h"

/** The kind of processor a device is. */
typedef enum DeviceKind {
    DEVICE_CPU = 0, /**< host memory, plain C */
    DEVICE_CUDA     /**< a CUDA device (a real GPU or the simulator) */
} DeviceKind;

/** A device: its kind and, for CUDA, its index among the visible devices. */
typedef struct Device {
    DeviceKind kind; /**< CPU or CUDA */
    int index;       /**< CUDA device index as the program sees it; 0 for the CPU */
} Device;

/** The direction of a copy between two devices, as cudaMemcpy needs it. */
typedef enum CopyKind {
    COPY_HOST_TO_HOST = 0,  /**< CPU to CPU: a memcpy */
    COPY_HOST_TO_DEVICE,    /**< CPU to GPU (cudaMemcpyHostToDevice) */
    COPY_DEVICE_TO_HOST,    /**< GPU to CPU (cudaMemcpyDeviceToHost): the CPU waits */
    COPY_DEVICE_TO_DEVICE,  /**< within one GPU (cudaMemcpyDeviceToDevice) */
    COPY_PEER               /**< from one GPU to another (cudaMemcpyPeer) */
} CopyKind;

/** What a CUDA device is, as Lesson 02 prints it. */
typedef struct DeviceInfo {
    char name[256];          /**< "NVIDIA H200", or "CUDA simulator (CPU)" */
    int physical;            /**< index among all the machine's GPUs (-1: unknown) */
    size_t total_memory;     /**< bytes */
    size_t free_memory;      /**< bytes free now */
    int sm_count;            /**< streaming multiprocessors */
    int cc_major;            /**< compute capability, major (9 for 9.0) */
    int cc_minor;            /**< compute capability, minor */
    int driver_version;      /**< CUDA version the driver supports, 12040 for 12.4 */
    int runtime_version;     /**< CUDA runtime version this program uses */
    int cublas_version;      /**< cuBLAS version, 130100 for 13.1.0 */
    bool simulated;          /**< the CUDA simulator, not a GPU */
} DeviceInfo;

/** @brief The CPU device. */
Device device_cpu(void);

/** @brief Device @p index of the visible CUDA devices (not checked). */
Device device_cuda(int index);

/** @brief True when @p a and @p b are the same device. */
bool device_equal(Device a, Device b);

/**
 * @brief Write PyTorch's name for @p d ("cpu", "cuda:0") into @p buf.
 *
 * Returns @p buf, so it can be used inside a printf argument list.
 */
const char *device_str(Device d, char *buf, size_t size);

/** @brief True when this build has a CUDA backend (a GPU's or the simulator's). */
bool device_cuda_built(void);

/**
 * @brief ::ERR_OK when this build has a backend for @p d's kind; otherwise the one-line
 *        ::ERR_DEVICE that says so (no CUDA backend: built without nvcc).
 */
WB_MUST_CHECK int device_check(Device d);

/** @brief "CUDA", "CUDA simulator" or "none": what runs this build's CUDA code. */
const char *device_backend(void);

/**
 * @brief How many CUDA devices this program can see.
 *
 * Returns ::ERR_DEVICE with a one-line reason when there are none: no CUDA
 * backend in this build, no driver, a driver too old, or no GPU (and then
 * @p *count is 0).
 */
WB_MUST_CHECK int device_count(int *count);

/** What a device string may be, for messages: the spelling device_spelled() accepts. */
#define DEVICE_SPELLING "\"cpu\", \"cuda\" or \"cuda:N\" (N the GPU's number, 0 for the first)"

/**
 * @brief True when @p text is spelled as a device: "cpu", "cuda" or "cuda:N" with N of one
 *        to four decimal digits.
 *
 * Only the spelling, as a config file or a command line is read (a typo is refused
 * there, naming the key or the option); whether that GPU is there is device_from_string()'s
 * to say when the device is opened.
 */
bool device_spelled(const char *text);

/**
 * @brief Parse a device string against the devices this program can see.
 *
 * Reads CUDA_VISIBLE_DEVICES and asks the backend how many devices are
 * visible, then calls device_parse(). Errors name the string, what is
 * visible and the fix.
 */
WB_MUST_CHECK int device_from_string(const char *text, Device *out);

/**
 * @brief Wait until @p d has finished all the work queued on it: torch.cuda.synchronize().
 *
 * Counted as a sync (counters.h) on a GPU; on the CPU there is nothing to
 * wait for, and nothing is counted.
 */
WB_MUST_CHECK int device_synchronize(Device d);

/** @brief The facts of CUDA device @p d (::ERR_DEVICE for the CPU or a missing device). */
WB_MUST_CHECK int device_info(Device d, DeviceInfo *info);

/**
 * @brief True when @p d's memory is the host's (the CPU): the CPU reads it directly,
 *        and reading it waits for nothing.
 *
 * The one fact about a device that code above the device layer may ask, where a
 * strategy depends on it (read a loss every step, or sum it on the device).
 */
bool device_is_host(Device d);

/**
 * @brief Allocate @p bytes on @p d (not zeroed): host memory, or cudaMalloc on a GPU.
 *
 * ::ERR_DEVICE for a kind of device this build has no backend for, ::ERR_NOMEM
 * naming the request and the fix.
 */
WB_MUST_CHECK int device_alloc(Device d, size_t bytes, void **ptr);

/** @brief Release memory from device_alloc() (NULL is allowed). */
void device_free(Device d, void *ptr, size_t bytes);

/** What device_alloc() holds on one device (torch.cuda.memory_allocated and friends). */
typedef struct DeviceMemory {
    size_t in_use; /**< bytes allocated now (memory_allocated) */
    size_t peak;   /**< the most in use since the last reset (max_memory_allocated) */
    size_t limit;  /**< the limit set by device_set_memory_limit(); 0: none */
} DeviceMemory;

/**
 * @brief The memory device_alloc() holds on @p d: every tensor's buffer, in bytes as
 *        asked for (what the backend adds for alignment or its own use is not counted).
 */
DeviceMemory device_memory(Device d);

/** @brief Start the peak of @p d again from what is in use now (reset_peak_memory_stats). */
void device_reset_peak_memory(Device d);

/**
 * @brief Refuse allocations on @p d beyond @p bytes in use in all (0: no limit).
 *
 * What `torch.cuda.set_per_process_memory_fraction` does: an allocation that
 * would go past the limit fails with ::ERR_NOMEM and an out-of-memory message,
 * as if the device had only that much. It lets a lesson run out of memory on
 * purpose, on the CPU as on a GPU.
 */
void device_set_memory_limit(Device d, size_t bytes);

/**
 * @brief Copy @p bytes from @p src on @p from to @p dst on @p to: `tensor.to(device)`'s
 *        copy, by the device that is not the CPU; a copy to the CPU waits for the device.
 */
WB_MUST_CHECK int device_copy(void *dst, Device to, const void *src, Device from, size_t bytes);

/* ---- Exercises of Lesson 02 (lessons/02_device_transfer/exercises.c) ---- */

/**
 * @brief Exercise 02.1: parse a PyTorch device string.
 *
 * @p text is "cpu", "cuda" (meaning cuda:0) or "cuda:N" with N a decimal
 * number; @p visible is how many CUDA devices the program sees, and
 * @p visible_env the value of CUDA_VISIBLE_DEVICES (NULL when it is not
 * set). Sets @p *out, and @p *physical to the machine's index of that GPU:
 * the N-th entry of CUDA_VISIBLE_DEVICES when it is set (-1 if that entry
 * is not a GPU's number: only decimal digits are, so a GPU UUID, "1a", an
 * empty entry and a negative one such as "-2" give -1, as CUDA counts a
 * negative index invalid), N otherwise, and -1 for the CPU.
 *
 * Errors (::ERR_ARG for a malformed string, ::ERR_DEVICE for a device that
 * is not there), with these messages:
 * - `unknown device "gpu": use "cpu", "cuda" or "cuda:N"`
 * - `cuda:1 requested but CUDA_VISIBLE_DEVICES=0 shows only 1 device`
 *   (with two: `... shows only 2 devices`)
 * - `cuda:3 requested but only 2 CUDA devices are visible`
 *   (with one: `... only 1 CUDA device is visible`)
 * - `cuda requested but no CUDA device is visible`
 */
WB_MUST_CHECK int device_parse(const char *text, const char *visible_env, int visible, Device *out,
                 int *physical);

/**
 * @brief Exercise 02.2: the kind of copy that moves data from @p from to @p to.
 *
 * CPU to CPU, CPU to GPU, GPU to CPU, within one GPU, or between two GPUs
 * (peer). Sets @p *kind and returns 0.
 */
WB_MUST_CHECK int copy_kind(Device from, Device to, CopyKind *kind);

/**
 * @brief The simulator's time model of device @p d: its clock and the GPU it models.
 *
 * On the CUDA simulator, the first call starts a model of the named GPU
 * (CUDASIM_GPU, h100 by default; docs/simulator.md, "The time model") and each
 * call sets @p *seconds to how long the device work issued since would have
 * kept the host busy on it, and @p gpu to its name ("NVIDIA H100 SXM"). A
 * difference of two readings is a modelled time, never a measured one.
 * Returns ::ERR_UNSUPPORTED, saying why, on the CPU and on a real GPU (their
 * times are measured) and when the model's GPU file is wrong.
 */
WB_MUST_CHECK int device_model_clock(Device d, double *seconds, char *gpu, size_t size);

/* ---- Exercise of Lesson 03 (lessons/03_why_gpu_slower/exercises.c) ------ */

/**
 * @brief Exercise 03.3: the time one call of @p work takes on device @p d, measured rightly.
 *
 * Calls `work(ctx)` @p repeats times (at least 1) and sets @p *seconds to
 * the elapsed time divided by @p repeats. GPU work is only queued when a
 * call returns, so: wait for the device (device_synchronize) before the
 * first clock read (timer_now), so that work queued earlier is not counted,
 * and again after the last call and before the second read, so that all of
 * this work is. An error from @p work is returned as it is; @p repeats < 1
 * is an ::ERR_ARG. On the CPU the syncs cost nothing and the same code is
 * right.
 */
WB_MUST_CHECK int time_on_device(Device d, int (*work)(void *ctx), void *ctx, long repeats, double *seconds);

#endif /* WB_DEVICE_H */
