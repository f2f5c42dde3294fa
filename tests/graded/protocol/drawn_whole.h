/*
 * drawn_whole.h: the inputs of a whole-lesson case, drawn for one grading run.
 *
 * Most whole-lesson cases train Lesson 01's network on Iris (Lesson 04's batches
 * a model drawn with drawn_linear()). Trained from fixed inputs (PyTorch's
 * weights, the source lesson's split) the curve is public, in tests/fixtures or
 * the reference records, and code that only wrote those numbers would pass. So
 * each case trains from inputs drawn from this grading run's seed (drawn.h):
 * which 120 of Iris's 150 rows it trains on and in what order (the other 30
 * are its test part), and the initial weights. The RUN half hands them to lib
 * and the student's code (drawn_iris_tensors(), drawn_iris_model()); the JUDGE
 * half draws the same ones and trains its own network in double on them
 * (oracle_iris.h, oracle_mlp.h), so the expected curve exists only for this
 * run and is computed where no student code runs.
 *
 * The rows are numbered as a pool: the file's training rows in file order,
 * then its test rows (how lib's dataset_load_csv() hands them over).
 */
#ifndef WB_GRADED_DRAWN_WHOLE_H
#define WB_GRADED_DRAWN_WHOLE_H

#include <stdint.h>

#include "drawn.h"

#define IRIS_POOL 150     /* rows in the file */
#define IRIS_TRAIN 120    /* rows a drawn split trains on */
#define IRIS_FEATURES 4   /* Linear(4, 10) */
#define IRIS_HIDDEN 10    /* ReLU */
#define IRIS_CLASSES 3    /* Linear(10, 3) */

/* One draw: the pool's rows in their drawn order (the first IRIS_TRAIN are the
 * training part, in the order it is trained on; the rest the test part), and
 * the network's initial weights as lib holds them (w: (out, in), column-major). */
typedef struct DrawnIris {
    int32_t order[IRIS_POOL];
    float w1[IRIS_HIDDEN * IRIS_FEATURES], b1[IRIS_HIDDEN];
    float w2[IRIS_CLASSES * IRIS_HIDDEN], b2[IRIS_CLASSES];
} DrawnIris;

/* Linear(in, out)'s weights as PyTorch draws them, uniform within 1/sqrt(in), in
 * steps of 2^-22 (floats, which the judge's double holds exactly; steps that fine
 * make no weight a round number a table of known inputs would recognise). */
static inline void drawn_linear(Drawn *r, int64_t in, int64_t out, float *w, float *b)
{
    int64_t k = 0; /* the largest with k^2 in <= 2^44, in integers: the same in both halves */
    for (int64_t step = (int64_t)1 << 22; step; step >>= 1)
        if ((k + step) * (k + step) * in <= (int64_t)1 << 44) k += step;
    for (int64_t j = 0; j < out * in; j++) w[j] = (float)drawn_int(r, -k, k) / 4194304.0f;
    for (int64_t j = 0; j < out; j++) b[j] = (float)drawn_int(r, -k, k) / 4194304.0f;
}

/* The draw named @p what (each case its own name, so each its own inputs). */
static inline void drawn_iris(const char *what, DrawnIris *d)
{
    Drawn r = drawn_start(what);
    for (int i = 0; i < IRIS_POOL; i++) d->order[i] = i;
    for (int i = IRIS_POOL - 1; i > 0; i--) { /* Fisher-Yates */
        int j = (int)drawn_int(&r, 0, i);
        int32_t t = d->order[i];
        d->order[i] = d->order[j];
        d->order[j] = t;
    }
    drawn_linear(&r, IRIS_FEATURES, IRIS_HIDDEN, d->w1, d->b1);
    drawn_linear(&r, IRIS_HIDDEN, IRIS_CLASSES, d->w2, d->b2);
}

/* What drawn_iris() draws, in words. */
#define DRAWN_IRIS_SHAPE                                                                           \
    "Iris split 120/30 at random, the training rows in a random order, random initial weights"

/* The sentence a whole-lesson case's failure ends with: what was drawn (@p shape),
 * and how to meet the same inputs again. */
static inline const char *drawn_whole_note(const char *lesson, const char *shape)
{
    static char note[400];
    snprintf(note, sizeof note,
             "on inputs drawn for this grading run (%s); GRADE_SEED=%llu make grade LESSON=%s "
             "draws the same ones again",
             shape, (unsigned long long)grade_seed(), lesson);
    return note;
}

#ifdef GRADE_RUNNER
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/err.h"
#include "lib/nn/module.h"
#include "lib/train/data.h"
#include "lib/train/iris.h"

/* The drawn split on lib's side, on the CPU: features scaled by lib's Scaler
 * (exercise 01.1) fitted on the training part, labels int32. */
typedef struct IrisTensors {
    Tensor *x_train, *y_train, *x_test, *y_test;
} IrisTensors;

/* Rows order[from .. from + n) of the pool (train rows, then test rows) as a raw
 * (n, 4) feature tensor and its labels. */
static inline void drawn_iris_rows(const Dataset *train, const Dataset *test, const int32_t *order,
                                   int64_t n, Tensor **x, Tensor **y)
{
    *x = tensor_new_2d(n, IRIS_FEATURES);
    *y = tensor_new(DTYPE_I32, device_cpu(), 1, (int64_t[]){n});
    ck_assert_msg(*x && *y, "grader: %s", err_message());
    int64_t nt = train->x->shape[0];
    for (int64_t i = 0; i < n; i++) {
        const Dataset *from = order[i] < nt ? train : test;
        int64_t row = order[i] < nt ? order[i] : order[i] - nt, rows = from->x->shape[0];
        for (int64_t j = 0; j < IRIS_FEATURES; j++)
            tensor_f32(*x)[i + j * n] = tensor_f32(from->x)[row + j * rows];
        tensor_i32(*y)[i] = tensor_i32(from->y)[row];
    }
}

/* Load Iris with lib's reader and make the drawn split of @p d; fails the case
 * (with lib's message, a stub's "not written yet" included) on an error. */
static inline void drawn_iris_tensors(const DrawnIris *d, IrisTensors *t)
{
    Dataset train, test;
    ck_assert_msg(dataset_load_csv(iris_csv_path(), iris_spec(), &train, &test) == ERR_OK,
                  "loading Iris: %s", err_message());
    ck_assert_msg(train.x->shape[0] + test.x->shape[0] == IRIS_POOL &&
                      train.x->shape[1] == IRIS_FEATURES,
                  "grader: Iris has %lld + %lld rows, expected %d in all",
                  (long long)train.x->shape[0], (long long)test.x->shape[0], IRIS_POOL);
    Tensor *raw_train, *raw_test;
    drawn_iris_rows(&train, &test, d->order, IRIS_TRAIN, &raw_train, &t->y_train);
    drawn_iris_rows(&train, &test, d->order + IRIS_TRAIN, IRIS_POOL - IRIS_TRAIN, &raw_test,
                    &t->y_test);
    Scaler sc = {0};
    ck_assert_msg(scaler_fit(&sc, raw_train) == ERR_OK, "scaling Iris: %s", err_message());
    ck_assert_msg(scaler_transform(&sc, raw_train, &t->x_train) == ERR_OK &&
                      scaler_transform(&sc, raw_test, &t->x_test) == ERR_OK,
                  "scaling Iris: %s", err_message());
    scaler_free(&sc);
    tensor_free(raw_train);
    tensor_free(raw_test);
    dataset_free(&train);
    dataset_free(&test);
}

static inline void drawn_iris_tensors_free(IrisTensors *t)
{
    tensor_free(t->x_train);
    tensor_free(t->y_train);
    tensor_free(t->x_test);
    tensor_free(t->y_test);
    memset(t, 0, sizeof *t);
}

/* Copy n floats into the parameter @p name of @p model (on the CPU). */
static inline void drawn_set_param(Module *model, const char *name, const float *v, int64_t n)
{
    Param *p = module_find_param(model, name);
    ck_assert_msg(p && p->value->numel == n, "grader: the model has no %s of %lld values", name,
                  (long long)n);
    memcpy(tensor_f32(p->value), v, sizeof(float) * (size_t)n);
}

/* Lesson 01's network (lib's iris_mlp_new()) with the drawn initial weights, on the CPU. */
static inline Module *drawn_iris_model(const DrawnIris *d)
{
    Module *model = iris_mlp_new(0);
    ck_assert_msg(model != NULL, "grader: %s", err_message());
    drawn_set_param(model, "fc1.weight", d->w1, IRIS_HIDDEN * IRIS_FEATURES);
    drawn_set_param(model, "fc1.bias", d->b1, IRIS_HIDDEN);
    drawn_set_param(model, "fc2.weight", d->w2, IRIS_CLASSES * IRIS_HIDDEN);
    drawn_set_param(model, "fc2.bias", d->b2, IRIS_CLASSES);
    return model;
}
#endif

#endif
