/**
 * @file device.h
 * @brief Where a tensor lives: the CPU or one CUDA device, named as in PyTorch.
 *
 * Device strings follow PyTorch: `cpu`, `cuda` (the current device) and
 * `cuda:N`. This build knows the CPU; CUDA devices come with the GPU backend,
 * and asking for one without it is a clear ::ERR_DEVICE, not a crash.
 */
#ifndef WB_DEVICE_H
#define WB_DEVICE_H

#include <stdbool.h>
#include <stddef.h>

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

/** @brief The CPU device. */
Device device_cpu(void);

/** @brief True when @p a and @p b are the same device. */
bool device_equal(Device a, Device b);

/**
 * @brief Write PyTorch's name for @p d ("cpu", "cuda:0") into @p buf.
 *
 * Returns @p buf, so it can be used inside a printf argument list.
 */
const char *device_str(Device d, char *buf, size_t size);

/** @brief True when this build has a CUDA backend (a GPU or the simulator). */
bool device_cuda_built(void);

#endif /* WB_DEVICE_H */
