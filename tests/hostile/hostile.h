/* hostile.h: the trainer the hostile inputs are thrown at (tests/hostile/run_hostile.c) and
 * the checkpoint fuzz target loads into (tests/fuzz/fuzz_safetensors.c): a small
 * synthetic run with every part a checkpoint holds (Adam's two buffers, a scheduler, a
 * GradScaler, early stopping), quick enough to make in a fraction of a second. */
#ifndef WB_TEST_HOSTILE_H
#define WB_TEST_HOSTILE_H

#include <stdio.h>

#include "lib/train/experiment.h"

static inline void hostile_config(ExperimentConfig *c, const char *name)
{
    experiment_config_default(c);
    snprintf(c->name, sizeof c->name, "%s", name);
    snprintf(c->data, sizeof c->data, "synthetic");
    c->synthetic_n = 80, c->synthetic_features = 5, c->synthetic_classes = 3;
    c->hidden[0] = 6, c->n_hidden = 1;
    snprintf(c->optimizer, sizeof c->optimizer, "adam");
    c->lr = 0.01;
    snprintf(c->scheduler, sizeof c->scheduler, "cosine");
    c->epochs = 4, c->batch_size = 32;
    snprintf(c->precision, sizeof c->precision, "float16");
    c->grad_scaler = true;
    c->clip_norm = 1.0;
    c->seed = 7;
    c->patience = 2, c->min_delta = 0.001;
}

#endif
