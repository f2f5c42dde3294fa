/*
 * Lesson 02 exercises: reference answers (the C part; the kernel is in
 * exercises.cu). Same functions as lessons/02_device_transfer/exercises.c.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "lib/device/device.h"
#include "lib/core/err.h"
#include "lib/device/tensor.h"

/* ex02.1 Parsing device strings ---------------------------------------------- */

/* The n-th entry of a CUDA_VISIBLE_DEVICES list ("2,0,3"), or -1 if it is not
 * a number (a GPU UUID) or there is no such entry. */
static int nth_entry(const char *list, int n)
{
    const char *p = list;
    for (int i = 0; i < n && p; i++) {
        p = strchr(p, ',');
        if (p) p++;
    }
    if (!p) return -1;
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p || (*end != ',' && *end != '\0') || v < 0) return -1;
    return (int)v;
}

int device_parse(const char *text, const char *visible_env, int visible, Device *out,
                 int *physical)
{
    if (strcmp(text, "cpu") == 0) {
        *out = device_cpu();
        *physical = -1;
        return 0;
    }
    int index = 0;
    if (strcmp(text, "cuda") != 0) {
        const char *digits = text + 5;
        if (strncmp(text, "cuda:", 5) != 0 || !*digits)
            return err_set(ERR_ARG, "unknown device \"%s\": use \"cpu\", \"cuda\" or \"cuda:N\"",
                           text);
        for (const char *c = digits; *c; c++)
            if (!isdigit((unsigned char)*c))
                return err_set(ERR_ARG, "unknown device \"%s\": use \"cpu\", \"cuda\" or "
                                        "\"cuda:N\"",
                               text);
        if (strlen(digits) > 6)
            return err_set(ERR_ARG, "unknown device \"%s\": the index is too large", text);
        index = atoi(digits);
    }
    if (visible <= 0)
        return err_set(ERR_DEVICE, "%s requested but no CUDA device is visible", text);
    if (index >= visible) {
        if (visible_env)
            return err_set(ERR_DEVICE, "%s requested but CUDA_VISIBLE_DEVICES=%s shows only %d "
                                       "device%s",
                           text, visible_env, visible, visible == 1 ? "" : "s");
        return err_set(ERR_DEVICE, "%s requested but only %d CUDA device%s %s visible", text,
                       visible, visible == 1 ? "" : "s", visible == 1 ? "is" : "are");
    }
    *out = device_cuda(index);
    *physical = visible_env ? nth_entry(visible_env, index) : index;
    return 0;
}

/* ex02.2 The direction of a copy ----------------------------------------------- */

int copy_kind(Device from, Device to, CopyKind *kind)
{
    if (from.kind == DEVICE_CPU)
        *kind = to.kind == DEVICE_CPU ? COPY_HOST_TO_HOST : COPY_HOST_TO_DEVICE;
    else if (to.kind == DEVICE_CPU)
        *kind = COPY_DEVICE_TO_HOST;
    else
        *kind = from.index == to.index ? COPY_DEVICE_TO_DEVICE : COPY_PEER;
    return 0;
}

/* ex02.3 The same-device rule ----------------------------------------------------- */

int tensor_same_device(const char *op, const Tensor *a, const Tensor *b)
{
    if (device_equal(a->device, b->device)) return 0;
    char da[16], db[16];
    return err_set(ERR_DEVICE, "%s: expected all tensors to be on the same device, but found %s "
                               "and %s",
                   op, device_str(a->device, da, sizeof da), device_str(b->device, db, sizeof db));
}
