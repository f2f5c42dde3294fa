/*
 * suite.h: what the files of Lesson 05's graded suite share (suite.c lists its cases):
 * their includes, and the experiments that 05.4's cases and the whole lesson's run,
 * recorded (RUN halves) and judged (JUDGE halves) alike.
 */
#ifndef WB_GRADED_CASES_05_SUITE_H
#define WB_GRADED_CASES_05_SUITE_H

#define _XOPEN_SOURCE 700
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../protocol/drawn_whole.h"
#include "../graded.h"
#include "lib/train/checkpoint.h"
#include "lib/core/err.h"
#include "lib/device/tensor.h"
#include "tests/common/fixture.h"
#ifdef GRADE_JUDGE
#include <float.h>

#include "../../oracles/oracle_iris.h"
#include "../../oracles/oracle_mlp.h"
#endif
#ifdef GRADE_RUNNER
#include <unistd.h>

#include "lib/nn/amp.h"
#include "lib/train/experiment.h"
#include "lib/nn/layers.h"
#include "lib/nn/optim.h"
#include "lib/io/safetensors.h"
#include "lib/train/trainer.h"
#include "tests/common/tmpdir.h"
#endif

/* The parameters of the tiny experiments' model (one hidden layer of 16). */
static const char *const PARAMS[4] = {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"};

#ifdef GRADE_RUNNER
/* The folder of a case's experiments: made by its first experiment (tiny(), whole_open())
 * and removed by cleanup() at its end. Each file that includes this has its own, as a
 * case runs in a process of its own. */
static char g_root[64];

/* rm -rf, without a shell. */
static inline void cleanup(void)
{
    if (g_root[0] && tmpdir_remove(g_root) != 0) fprintf(stderr, "could not remove %s\n", g_root);
}

/* The model's parameters as k.NAME. */
static inline void put_weights(const char *k_in, Module *m)
{
    char k[64];
    snprintf(k, sizeof k, "%s", k_in); /* key() reuses its buffers */
    for (int i = 0; i < 4; i++) {
        Param *p = module_find_param(m, PARAMS[i]);
        ck_assert_msg(p != NULL, "grader: the model has no %s", PARAMS[i]);
        put_f32(key("%s.%s", k, PARAMS[i]), tensor_f32(p->value), p->value->numel);
    }
}

/* The history's first hist.n rows (at most its capacity). */
static inline void put_history(const char *k_in, const Trainer *t)
{
    char k[64];
    snprintf(k, sizeof k, "%s", k_in); /* key() reuses its buffers */
    long n = t->hist.n < 0 ? 0 : t->hist.n > t->hist.cap ? t->hist.cap : t->hist.n;
    put_i64(key("%s.rows", k), t->hist.n);
    put_f32(key("%s.val_loss", k), t->hist.val_loss, n);
    put_f32(key("%s.train_loss", k), t->hist.train_loss, n);
    put_f32(key("%s.val_acc", k), t->hist.val_acc, n);
    put_f32(key("%s.lr", k), t->hist.lr, n);
    put_f32(key("%s.loss_scale", k), t->hist.loss_scale, n);
    put_f32(key("%s.skipped", k), t->hist.skipped, n);
}

/* trainer_run_epochs(e, upto): records k.rc, k.epoch, k.hist_n. */
static inline void call_run(const char *k_in, Experiment *e, long upto)
{
    char k[64];
    snprintf(k, sizeof k, "%s", k_in); /* key() reuses its buffers */
    err_clear();
    put_rc(key("%s.rc", k), trainer_run_epochs(e->trainer, upto));
    put_i64(key("%s.epoch", k), e->trainer->epoch);
    put_i64(key("%s.hist_n", k), e->trainer->hist.n);
}

#endif

#ifdef GRADE_JUDGE
/* A call's return value: not the stub's, then 0. */
static inline int run_ok(const char *k_in)
{
    char k[64];
    snprintf(k, sizeof k, "%s", k_in); /* key() reuses its buffers */
    expect_written(key("%s.rc", k), "trainer_run_epochs");
    return got_rc(key("%s.rc", k)) == ERR_OK;
}

static inline long epoch_of(const char *k) { return (long)got_i64(key("%s.epoch", k)); }
static inline long hist_of(const char *k) { return (long)got_i64(key("%s.hist_n", k)); }

/* Bit for bit the same parameters. */
static inline void same_weights(const char *a, const char *b, const char *how)
{
    for (int i = 0; i < 4; i++) {
        int64_t na, nb;
        const float *pa = got_f32_n(key("%s.%s", a, PARAMS[i]), &na);
        const float *pb = got_f32_n(key("%s.%s", b, PARAMS[i]), &nb);
        ck_assert_msg(na == nb && memcmp(pa, pb, sizeof(float) * (size_t)na) == 0,
                      "%s: %s differs from the uninterrupted run's", how, PARAMS[i]);
    }
}

#endif

#endif
