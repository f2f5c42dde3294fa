/* device.c: device values, their names, and what the CUDA backend can see. */
#include "lib/device/device.h"

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

bool device_cuda_built(void) { return strcmp(backend_name(), "none") != 0; }

const char *device_backend(void) { return backend_name(); }

int device_count(int *count) { return backend_device_count(count); }

int device_from_string(const char *text, Device *out)
{
    if (!text) return err_set(ERR_ARG, "device: no device string given");
    int visible = 0, physical;
    if (strncmp(text, "cuda", 4) == 0) {
        if (backend_device_count(&visible) != ERR_OK)
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
    if (d.kind != DEVICE_CUDA)
        return err_set(ERR_DEVICE, "device_info: %s is not a CUDA device",
                       device_str(d, name, sizeof name));
    int visible;
    TRY(backend_device_count(&visible));
    Device parsed;
    int physical = -1;
    device_str(d, name, sizeof name);
    TRY(exercise_result(device_parse(name, getenv("CUDA_VISIBLE_DEVICES"), visible, &parsed,
                                     &physical),
                        "02.1", "device_parse"));
    TRY(backend_device_info(d.index, info));
    info->physical = physical;
    return ERR_OK;
}

int device_synchronize(Device d)
{
    return d.kind == DEVICE_CUDA ? backend_synchronize(d) : ERR_OK;
}
