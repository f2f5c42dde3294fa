/* device.c: device values and their names. */
#include "device.h"

#include <stdio.h>

Device device_cpu(void)
{
    Device d = {DEVICE_CPU, 0};
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

bool device_cuda_built(void) { return false; }
