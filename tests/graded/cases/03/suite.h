/*
 * suite.h: what the files of Lesson 03's graded suite share (suite.c lists its cases):
 * their includes, the device and the training set-up of the RUN halves, and the
 * tolerance within which the JUDGE halves take a float for the reference's.
 */
#ifndef WB_GRADED_CASES_03_SUITE_H
#define WB_GRADED_CASES_03_SUITE_H

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "../../protocol/drawn_whole.h"
#include "../graded.h"
#include "lib/core/err.h"
#ifdef GRADE_JUDGE
#include "../../oracles/oracle_iris.h"
#include "../../oracles/oracle_mlp.h"
#endif
#ifdef GRADE_RUNNER
#include "kernels/kernels.h"
#ifdef CUDASIM
#include "lib/cudasim/cudasim.h"
#endif
#include "lib/device/backend.h"
#include "lib/core/callable.h"
#include "lib/core/counters.h"
#include "lib/device/device.h"
#include "lib/train/iris.h"
#include "lib/nn/layers.h"
#include "lib/nn/module.h"
#include "lib/core/timer.h"
#include "lib/train/train.h"
#endif

/* ---- the RUN halves: set-up shared by the cases --------------------------------------- */

#ifdef GRADE_RUNNER
static inline Device the_device(void)
{
    int n = 0;
    ck_assert_msg(device_count(&n) == ERR_OK && n > 0, "no CUDA device (real or simulated): %s",
                  err_message());
    return device_cuda(0);
}

/* Iris and Lesson 01's network, on device d. */
typedef struct Setup {
    IrisData iris;
    Module *model;
    Loss *loss;
    Optimizer *opt;
    Tensor *x, *y;
} Setup;

static inline void setup(Setup *s, Device d)
{
    memset(s, 0, sizeof *s);
    ck_assert_msg(iris_data_load(iris_csv_path(), &s->iris) == ERR_OK, "%s",
                  err_message());
    s->model = iris_mlp_new(42);
    ck_assert_msg(s->model && module_to(s->model, d) == ERR_OK, "%s", err_message());
    ck_assert_int_eq(tensor_to(s->iris.x_train, d, &s->x), ERR_OK);
    ck_assert_int_eq(tensor_to(s->iris.train.y, d, &s->y), ERR_OK);
    s->loss = loss_cross_entropy_new();
    s->opt = optim_sgd_new(s->model, 0.05f);
    ck_assert(s->loss && s->opt);
}

static inline void teardown(Setup *s)
{
    optim_free(s->opt);
    loss_free(s->loss);
    module_free(s->model);
    tensor_free(s->x);
    tensor_free(s->y);
    iris_data_free(&s->iris);
}
#endif

/* ---- the JUDGE halves: shared checks ---------------------------------------------------- */

#ifdef GRADE_JUDGE
/* Reference values may come from another machine (a package built on one,
 * graded on another): a float agrees within this. One more or one less
 * training step moves the losses and the bias by far more. */
#define REF_ATOL 1e-5
#define REF_RTOL 1e-4

static inline int agrees(double got, double want)
{
    return isfinite(got) && fabs(got - want) <= REF_ATOL + REF_RTOL * fabs(want);
}
#endif

#endif
