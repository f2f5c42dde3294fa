/*
 * suite.h: what the files of Lesson 02's graded suite share (suite.c lists its cases):
 * their includes, a Device that was never set and how the judge names a device, and
 * the kernels launched so far (02.4 and the whole lesson).
 */
#ifndef WB_GRADED_CASES_02_SUITE_H
#define WB_GRADED_CASES_02_SUITE_H

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "../../protocol/drawn.h"
#include "../../protocol/drawn_whole.h"
#include "../graded.h"
#include "lib/device/device.h"
#include "lib/core/err.h"
#include "lib/device/tensor.h"
#ifdef GRADE_JUDGE
#include "../../oracles/oracle_iris.h"
#include "../../oracles/oracle_mlp.h"
#endif
#ifdef GRADE_RUNNER
#include "kernels/kernels.h"
#include "lib/train/data.h"
#include "lib/nn/layers.h"
#include "lib/nn/loss.h"
#include "lib/nn/module.h"
#include "lib/nn/optim.h"
#include "lib/train/train.h"
#ifdef CUDASIM
#include "lib/cudasim/cudasim.h"
#endif
#endif

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* What a device starts as before device_parse sets it: no device at all. */
#define POISON_KIND 77
#define POISON_INDEX (-7)

#ifdef GRADE_JUDGE
/* PyTorch's name of a recorded device ("cpu", "cuda:1"), or what it is instead. */
static inline const char *device_name(int64_t kind, int64_t index, char *buf, size_t size)
{
    if (kind == DEVICE_CPU)
        snprintf(buf, size, "cpu");
    else if (kind == DEVICE_CUDA)
        snprintf(buf, size, "cuda:%lld", (long long)index);
    else if (kind == POISON_KIND && index == POISON_INDEX)
        snprintf(buf, size, "nothing (the Device was not set)");
    else
        snprintf(buf, size, "a Device of kind %lld, index %lld", (long long)kind, (long long)index);
    return buf;
}

#endif

#ifdef GRADE_RUNNER
#include "../kernel_run.h"

static inline void put_launches(const char *name, long long before)
{
    if (before >= 0) put_i64(name, launches() - before);
}

#endif

#endif
