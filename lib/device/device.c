/* device.c: device values, their names, and what the CUDA backend can see. */
#include "lib/device/device.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/device/backend.h"
#include "lib/core/err.h"

Device device_cpu(void)
{
    Device d = {DEVICE_CPU, 0};
    return d;
}

Device device_cuda(int index)
{
    Device d = {DEVICE_CUDA, index};
    return d;
}

bool device_equal(Device a, Device b)
{
    if (a.kind != b.kind) return false;
    return a.kind == DEVICE_CPU || a.index == b.index;
}

const char *device_str(Device d, char *buf, size_t size)
{
    if (d.kind == DEVICE_CPU)
        snprintf(buf, size, "cpu");
    else
        snprintf(buf, size, "cuda:%d", d.index);
    return buf;
}

/* ---- the backend table of a device (backend_of, in backend.h) ---------------- */

/* The table of d, or the one refusal of a kind this build has no backend for. */
static int ops_of(Device d, const BackendOps **ops)
{
    *ops = backend_of(d);
    if (*ops) return ERR_OK;
    char name[16];
    return err_set(ERR_DEVICE, "%s: this build has no CUDA backend (nvcc was not found when it "
                               "was built): use \"cpu\", or install the CUDA toolkit and rebuild",
                   device_str(d, name, sizeof name));
}

int device_check(Device d)
{
    const BackendOps *ops;
    return ops_of(d, &ops);
}

bool device_cuda_built(void) { return backend_cuda() != NULL; }

const char *device_backend(void) { return backend_cuda() ? backend_cuda()->name : "none"; }

bool device_is_host(Device d)
{
    const BackendOps *ops = backend_of(d);
    return ops && ops->host_memory;
}

int device_count(int *count)
{
    const BackendOps *ops;
    *count = 0;
    TRY(ops_of(device_cuda(0), &ops));
    return ops->device_count(count);
}

bool device_spelled(const char *text)
{
    if (!text) return false;
    if (strcmp(text, "cpu") == 0 || strcmp(text, "cuda") == 0) return true;
    size_t nd = strncmp(text, "cuda:", 5) == 0 ? strspn(text + 5, "0123456789") : 0;
    return nd >= 1 && nd <= 4 && text[5 + nd] == '\0';
}

int device_from_string(const char *text, Device *out)
{
    if (!text) return err_set(ERR_ARG, "device: no device string given");
    int visible = 0, physical;
    if (strncmp(text, "cuda", 4) == 0) {
        if (device_count(&visible) != ERR_OK)
            return err_context("device \"%s\"", text); /* no backend, driver or GPU */
    }
    return exercise_result(device_parse(text, getenv("CUDA_VISIBLE_DEVICES"), visible, out,
                                        &physical),
                           "02.1", "device_parse");
}

int device_info(Device d, DeviceInfo *info)
{
    memset(info, 0, sizeof *info);
    char name[16];
    const BackendOps *ops;
    TRY(ops_of(d, &ops));
    if (ops->host_memory)
        return err_set(ERR_DEVICE, "device_info: %s is not a CUDA device",
                       device_str(d, name, sizeof name));
    int visible;
    TRY(ops->device_count(&visible));
    Device parsed;
    int physical = -1;
    device_str(d, name, sizeof name);
    TRY(exercise_result(device_parse(name, getenv("CUDA_VISIBLE_DEVICES"), visible, &parsed,
                                     &physical),
                        "02.1", "device_parse"));
    TRY(ops->device_info(d.index, info));
    info->physical = physical;
    return ERR_OK;
}

int device_synchronize(Device d)
{
    const BackendOps *ops;
    TRY(ops_of(d, &ops));
    return ops->synchronize(d);
}

int device_model_clock(Device d, double *seconds, char *gpu, size_t size)
{
    const BackendOps *ops;
    TRY(ops_of(d, &ops));
    if (!ops->model_clock)
        return err_set(ERR_UNSUPPORTED, "%s has no time model: its times are measured",
                       ops->name);
    return ops->model_clock(d, seconds, gpu, size);
}

/* ---- memory: what device_alloc holds on each device, and a limit ------------------- */

#define MEMORY_SLOTS 16 /* the CPU, and CUDA devices 0..14 */
static DeviceMemory g_memory[MEMORY_SLOTS];
static pthread_mutex_t g_memory_lock = PTHREAD_MUTEX_INITIALIZER; /* the loader's worker allocates too */

static DeviceMemory *memory_slot(Device d)
{
    int i = d.kind == DEVICE_CPU ? 0 : 1 + d.index;
    return i >= 0 && i < MEMORY_SLOTS ? &g_memory[i] : NULL;
}

/* Bytes as a person reads them: 512 B, 3.5 KiB, 12.0 MiB, 1.50 GiB. */
static const char *bytes_str(size_t b, char *buf, size_t size)
{
    if (b < 1024) snprintf(buf, size, "%zu B", b);
    else if (b < ((size_t)1 << 20)) snprintf(buf, size, "%.1f KiB", (double)b / 1024.0);
    else if (b < ((size_t)1 << 30)) snprintf(buf, size, "%.1f MiB", (double)b / 1048576.0);
    else snprintf(buf, size, "%.2f GiB", (double)b / 1073741824.0);
    return buf;
}

DeviceMemory device_memory(Device d)
{
    DeviceMemory m = {0, 0, 0};
    pthread_mutex_lock(&g_memory_lock);
    const DeviceMemory *s = memory_slot(d);
    if (s) m = *s;
    pthread_mutex_unlock(&g_memory_lock);
    return m;
}

void device_reset_peak_memory(Device d)
{
    pthread_mutex_lock(&g_memory_lock);
    DeviceMemory *s = memory_slot(d);
    if (s) s->peak = s->in_use;
    pthread_mutex_unlock(&g_memory_lock);
}

void device_set_memory_limit(Device d, size_t bytes)
{
    pthread_mutex_lock(&g_memory_lock);
    DeviceMemory *s = memory_slot(d);
    if (s) s->limit = bytes;
    pthread_mutex_unlock(&g_memory_lock);
}

int device_alloc(Device d, size_t bytes, void **ptr)
{
    const BackendOps *ops;
    *ptr = NULL;
    TRY(ops_of(d, &ops));
    pthread_mutex_lock(&g_memory_lock);
    DeviceMemory *s = memory_slot(d);
    DeviceMemory was = s ? *s : (DeviceMemory){0, 0, 0};
    bool over = s && s->limit && (bytes > s->limit || s->in_use > s->limit - bytes);
    if (s && !over) { /* counted before the backend is asked, given back if it refuses */
        s->in_use += bytes;
        if (s->in_use > s->peak) s->peak = s->in_use;
    }
    pthread_mutex_unlock(&g_memory_lock);
    if (over) {
        char name[24], ask[24], free_b[24], limit[24], held[24];
        return err_set(ERR_NOMEM, "out of memory on %s: tried to allocate %s with %s free of the "
                                  "%s this program may use (device_set_memory_limit, as "
                                  "torch.cuda.set_per_process_memory_fraction; %s already "
                                  "allocated); try a smaller batch, gradient accumulation "
                                  "(exercise 05.6), mixed precision, or freeing tensors you no "
                                  "longer need",
                       device_str(d, name, sizeof name), bytes_str(bytes, ask, sizeof ask),
                       bytes_str(was.limit - was.in_use, free_b, sizeof free_b),
                       bytes_str(was.limit, limit, sizeof limit),
                       bytes_str(was.in_use, held, sizeof held));
    }
    int rc = ops->alloc(d, bytes, ptr);
    if (rc && s) {
        pthread_mutex_lock(&g_memory_lock);
        s->in_use -= bytes;
        if (s->peak == was.in_use + bytes && was.peak < s->peak) /* nothing was allocated */
            s->peak = was.peak > s->in_use ? was.peak : s->in_use;
        pthread_mutex_unlock(&g_memory_lock);
    }
    return rc;
}

void device_free(Device d, void *ptr, size_t bytes)
{
    const BackendOps *ops = backend_of(d);
    if (!ops || !ptr) return;
    ops->free(d, ptr, bytes);
    pthread_mutex_lock(&g_memory_lock);
    DeviceMemory *s = memory_slot(d);
    if (s) s->in_use = s->in_use >= bytes ? s->in_use - bytes : 0;
    pthread_mutex_unlock(&g_memory_lock);
}

int device_copy(void *dst, Device to, const void *src, Device from, size_t bytes)
{
    if (to.kind == DEVICE_CPU && from.kind == DEVICE_CPU) { /* a loss read every step */
        if (bytes) memcpy(dst, src, bytes);
        return ERR_OK;
    }
    const BackendOps *ops_to, *ops_from;
    TRY(ops_of(to, &ops_to));
    TRY(ops_of(from, &ops_from));
    if (bytes == 0) return ERR_OK;
    /* The device that is not the host's does the copy (both, for the CPU to itself). */
    return (ops_to->host_memory ? ops_from : ops_to)->copy(dst, to, src, from, bytes);
}
