/* check_fused.c: k_mlp_train_fused, a whole MLP training in one launch.
 *
 * Two oracles. On Iris, lib's own CPU training (linear, ReLU, linear, mean
 * cross-entropy, SGD, itself checked against PyTorch in tests/unit) from the
 * same initial weights: every epoch's loss and the final parameters. On random
 * problems of odd sizes, a plain double-precision training written here. Then
 * the arguments it must refuse, and that two runs give the same bits.
 *
 * Why the results differ from the oracles at all: the kernel sums over the
 * samples in another order (warp shuffles, then warp by warp) and contracts
 * a * b + c into fused multiply-adds, so each gradient differs from the CPU's
 * in its last bits, and each SGD step passes that on. Epochs stay few: the
 * simulator runs every CUDA thread as a fiber and every shuffle switches
 * fibers, so the whole suite takes about two seconds there (five under
 * AddressSanitizer).
 *
 * Like check_kernels.c, the suite needs a CUDA device, real or simulated, and
 * fails without one.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "kernel_check.h"
#include "kernel_suites.h"
#include "lib/train/data.h"
#include "lib/nn/layers.h"
#include "lib/nn/loss.h"
#include "lib/nn/optim.h"
#include "lib/train/train.h"
#include "tests/common/iris.h"

/* ---- helpers ------------------------------------------------------------- */

/* Uniform in [-bound, bound). */
static float uniform(TestRng *r, double bound)
{
    return (float)(bound * (2.0 * (double)(rng_next(r) >> 11) * 0x1.0p-53 - 1.0));
}

static void *alloc(size_t bytes)
{
    void *p = malloc(bytes > 0 ? bytes : 1);
    ck_assert_ptr_nonnull(p);
    return p;
}

/* got[k] against want[k], k < count, within atol + rtol * |want|. */
static void check_close(const char *what, const float *got, const double *want, int count,
                        double rtol, double atol)
{
    for (int k = 0; k < count; k++) {
        double g = got[k], tol = atol + rtol * fabs(want[k]), diff = fabs(g - want[k]);
        ck_assert_msg(diff <= tol,
                      "%s: element %d: got %.9g, expected %.9g (difference %.3g > tolerance "
                      "%.3g)",
                      what, k, g, want[k], diff, tol);
    }
}

/* ---- a network and its data, on the host and on the device ---------------- */

/* x (n, d), y (n), then the parameters w1 (h, d), b1 (h), w2 (c, h), b2 (c),
 * all column-major. p[0..3] are w1, b1, w2, b2. */
typedef struct {
    int n, d, h, c;
    float *x;
    int32_t *y;
    float *p[4];
} Net;

static int param_count(const Net *net, int q)
{
    const int counts[4] = {net->h * net->d, net->h, net->c * net->h, net->c};
    return counts[q];
}

/* Random data and PyTorch-like initial weights (uniform in +-1/sqrt(fan_in)). */
static void net_random(Net *net, int n, int d, int h, int c, uint64_t seed)
{
    TestRng r = {seed};
    *net = (Net){n, d, h, c, alloc((size_t)n * d * sizeof(float)),
                 alloc((size_t)n * sizeof(int32_t)), {NULL, NULL, NULL, NULL}};
    for (int k = 0; k < n * d; k++) net->x[k] = uniform(&r, 2.0);
    for (int i = 0; i < n; i++) net->y[i] = (int32_t)(rng_next(&r) % (uint64_t)c);
    for (int q = 0; q < 4; q++) {
        double bound = 1.0 / sqrt(q < 2 ? (double)d : (double)h);
        net->p[q] = alloc((size_t)param_count(net, q) * sizeof(float));
        for (int k = 0; k < param_count(net, q); k++) net->p[q][k] = uniform(&r, bound);
    }
}

static void net_free(Net *net)
{
    free(net->x), free(net->y);
    for (int q = 0; q < 4; q++) free(net->p[q]);
}

/* The network on the device; out[q] receives the trained parameters and, when
 * losses is not NULL, losses[e] each epoch's loss. Returns the wrapper's result. */
static cudaError_t train_on_device(const Net *net, int epochs, float lr, float *out[4],
                                   float *losses)
{
    float *x_d = to_device(net->x, (size_t)net->n * net->d * sizeof(float));
    int32_t *y_d = to_device(net->y, (size_t)net->n * sizeof(int32_t));
    float *p_d[4], *losses_d = NULL;
    for (int q = 0; q < 4; q++)
        p_d[q] = to_device(net->p[q], (size_t)param_count(net, q) * sizeof(float));
    if (losses) losses_d = to_device(NULL, (size_t)(epochs > 0 ? epochs : 1) * sizeof(float));
    cudaError_t err = k_mlp_train_fused(x_d, y_d, net->n, net->d, net->h, net->c, p_d[0], p_d[1],
                                        p_d[2], p_d[3], epochs, lr, losses_d, 0);
    if (err == cudaSuccess) {
        for (int q = 0; q < 4; q++)
            from_device(out[q], p_d[q], (size_t)param_count(net, q) * sizeof(float));
        if (losses) from_device(losses, losses_d, (size_t)epochs * sizeof(float));
    }
    cudaFree(x_d), cudaFree(y_d), cudaFree(losses_d);
    for (int q = 0; q < 4; q++) cudaFree(p_d[q]);
    return err;
}

/* ---- Iris, against lib's CPU training -------------------------------------- */

#define IRIS_EPOCHS 50
#define IRIS_LR 0.1f /* ten times the lesson's, so that 50 epochs move the weights */

/* Lesson 01's network (4-10-3, seed 42) trained by lib and by the kernel from
 * the same initial weights. Tolerance: both compute in float and differ only
 * in the order of sums (the CPU's vectorised loops; the kernel's shuffles,
 * then 4 warps) and in fused multiply-adds: their sums of 120 terms agree
 * within ~20 units in the last place of the sum of magnitudes (1.2e-6
 * relative), which 50 steps of lr 0.1 carry into the weights as 6e-6 at the
 * very most (in fact about 1e-7). 1e-5 absolute plus 1e-5 relative covers
 * that worst case; a kernel that drops ReLU's mask from the backward pass is
 * off by 6e-4 in the second epoch's loss already. */
START_TEST(test_fused_matches_lib_training_on_iris)
{
    require_device();
    Dataset train, test;
    Tensor *xtr;
    iris_scaled(&train, &test, &xtr, NULL);
    const int n = (int)xtr->shape[0], d = (int)xtr->shape[1], h = 10, c = train.n_classes;
    ck_assert_int_eq(n, 120);
    ck_assert_int_eq(d, 4);
    ck_assert_int_eq(c, 3);

    Rng rng;
    rng_seed(&rng, 42, 0);
    Module *layers[] = {linear_new("fc1", d, h, &rng), relu_new("relu"),
                        linear_new("fc2", h, c, &rng)};
    Module *model = sequential_new("mlp", 3, layers);
    ck_assert_ptr_nonnull(model);
    Loss *loss = loss_cross_entropy_new();
    Optimizer *opt = optim_sgd_new(model, IRIS_LR);
    ck_assert_ptr_nonnull(loss);
    ck_assert_ptr_nonnull(opt);

    /* The kernel's copy of the initial weights, before lib trains them. */
    static const char *const names[4] = {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"};
    Net net = {n, d, h, c, tensor_f32(xtr), tensor_i32(train.y), {NULL, NULL, NULL, NULL}};
    Param *params[4];
    float *got[4];
    for (int q = 0; q < 4; q++) {
        params[q] = module_find_param(model, names[q]);
        ck_assert_ptr_nonnull(params[q]);
        ck_assert_int_eq(params[q]->value->numel, param_count(&net, q));
        net.p[q] = tensor_f32(params[q]->value);
        got[q] = alloc((size_t)param_count(&net, q) * sizeof(float));
    }
    float got_losses[IRIS_EPOCHS];
    CUDA_OK(train_on_device(&net, IRIS_EPOCHS, IRIS_LR, got, got_losses));

    double want_losses[IRIS_EPOCHS];
    for (int e = 0; e < IRIS_EPOCHS; e++) {
        float value;
        ck_assert_int_eq(train_step(model, loss, opt, xtr, train.y, &value), 0);
        want_losses[e] = value;
    }
    ck_assert_msg(want_losses[IRIS_EPOCHS - 1] < want_losses[0] - 0.05,
                  "lib's loss went from %g to %g: the test should see it learn",
                  want_losses[0], want_losses[IRIS_EPOCHS - 1]);
    check_close("Iris, loss of each epoch", got_losses, want_losses, IRIS_EPOCHS, 1e-5, 1e-5);
    for (int q = 0; q < 4; q++) {
        int count = param_count(&net, q);
        double *want = alloc((size_t)count * sizeof(double));
        for (int k = 0; k < count; k++) want[k] = net.p[q][k]; /* trained by lib now */
        char what[64];
        snprintf(what, sizeof what, "Iris, trained %s", names[q]);
        check_close(what, got[q], want, count, 1e-5, 1e-5);
        free(want), free(got[q]);
    }
    optim_free(opt);
    loss_free(loss);
    module_free(model);
    iris_free(&train, &test, xtr, NULL);
}
END_TEST

/* ---- odd sizes, against a double-precision training ------------------------ */

/* The smallest |pre-activation| a ReLU may see for the comparison to hold:
 * float and double must take the same branch of ReLU's backward (a sample on
 * the other side of 0 changes a weight by ~lr / n). The kernel's
 * pre-activations differ from the reference's by the weights' differences
 * (~1e-7) times |x| <= 2 over d <= 16 inputs, plus float rounding: well
 * under 1e-5. */
#define RELU_MARGIN 1e-5

/* Trains the network in double: p[q] (double copies of net->p) are updated in
 * place and losses[e] receives each epoch's loss. Returns the smallest
 * |pre-activation| seen, so the test knows whether ReLU was ever ambiguous. */
static double train_reference(const Net *net, int epochs, double lr, double *p[4],
                              double *losses)
{
    const int n = net->n, d = net->d, h = net->h, c = net->c;
    double *pre = alloc((size_t)n * h * sizeof(double));
    double *dz = alloc((size_t)n * c * sizeof(double)), *z = alloc((size_t)c * sizeof(double));
    double *g[4];
    for (int q = 0; q < 4; q++) g[q] = alloc((size_t)param_count(net, q) * sizeof(double));
    double closest = INFINITY;
    for (int e = 0; e < epochs; e++) {
        double total = 0.0;
        for (int q = 0; q < 4; q++) memset(g[q], 0, (size_t)param_count(net, q) * sizeof(double));
        for (int i = 0; i < n; i++) {
            /* forward: pre = w1 x + b1, logits z = w2 relu(pre) + b2 */
            for (int o = 0; o < h; o++) {
                double s = p[1][o];
                for (int k = 0; k < d; k++) s += p[0][o + k * h] * net->x[i + k * n];
                pre[i + o * n] = s;
                if (fabs(s) < closest) closest = fabs(s);
            }
            double zmax = -INFINITY, sum = 0.0;
            for (int j = 0; j < c; j++) {
                z[j] = p[3][j];
                for (int o = 0; o < h; o++) z[j] += p[2][j + o * c] * fmax(pre[i + o * n], 0.0);
                zmax = fmax(zmax, z[j]);
            }
            for (int j = 0; j < c; j++) sum += exp(z[j] - zmax);
            total += zmax + log(sum) - z[net->y[i]];
            for (int j = 0; j < c; j++)
                dz[i + j * n] = (exp(z[j] - zmax) / sum - (j == net->y[i])) / n;
        }
        losses[e] = total / n;
        for (int i = 0; i < n; i++)
            for (int o = 0; o < h; o++) {
                double a = fmax(pre[i + o * n], 0.0), da = 0.0;
                for (int j = 0; j < c; j++) {
                    g[2][j + o * c] += dz[i + j * n] * a; /* dw2 */
                    da += dz[i + j * n] * p[2][j + o * c];
                }
                double dh = pre[i + o * n] > 0.0 ? da : 0.0;
                for (int k = 0; k < d; k++) g[0][o + k * h] += dh * net->x[i + k * n]; /* dw1 */
                g[1][o] += dh;                                                         /* db1 */
            }
        for (int i = 0; i < n; i++)
            for (int j = 0; j < c; j++) g[3][j] += dz[i + j * n]; /* db2 */
        for (int q = 0; q < 4; q++)
            for (int k = 0; k < param_count(net, q); k++) p[q][k] -= lr * g[q][k];
    }
    free(pre), free(dz), free(z);
    for (int q = 0; q < 4; q++) free(g[q]);
    return closest;
}

/* Sizes that take every path of the kernel: n off the warp size, one sample,
 * each register width M (records of c + d + 1 slots rounded up to 4, 8, 16,
 * 32, 64), hidden units in chunks with double-buffered sums, every limit. */
static const struct {
    int n, d, h, c, epochs;
    uint64_t seed; /* data for which no pre-activation comes within RELU_MARGIN of 0 */
    const char *why;
} shapes[] = {
    {45, 3, 7, 5, 20, 1000, "n = 45 (a warp and a half), 9-slot records"},
    {1, 1, 1, 1, 5, 1001, "one sample, one input, one unit, one class (loss 0)"},
    {70, 2, 5, 2, 20, 1002, "5-slot records, three warps"},
    {33, 16, 2, 16, 10, 1003, "a warp of one sample; the widest records (33 slots)"},
    {200, 10, 20, 10, 5, 1004, "21-slot records, seven warps"},
    {600, 8, 50, 7, 3, 3005, "19 warps: the hidden units go in 4 chunks"},
    {1024, 16, 64, 16, 2, 3006, "every limit at once: 22 chunks of hidden units"},
};
#define N_SHAPES (int)(sizeof shapes / sizeof shapes[0])
#define SHAPES_LR 0.5f

/* Tolerance: the reference is exact to ~1e-15; the kernel rounds each sum of
 * n <= 1024 terms to float: 5 levels of shuffles, then <= 32 warps in a row,
 * within ~40 units in the last place of the sum of magnitudes (2.4e-6
 * relative), and each epoch carries lr times that into the weights: 2.4e-5
 * after 20 epochs of lr 0.5 at the very most (in fact ~2e-7). 1e-4 relative
 * plus absolute covers the worst case four times over, and a wrong or missing
 * term in a gradient is off by 1e-3 and more. */
START_TEST(test_fused_odd_sizes_match_double_reference)
{
    require_device();
    const int t = _i;
    const int n = shapes[t].n, d = shapes[t].d, h = shapes[t].h, c = shapes[t].c;
    const int epochs = shapes[t].epochs;
    Net net;
    net_random(&net, n, d, h, c, shapes[t].seed);
    float *got[4], *got_losses = alloc((size_t)epochs * sizeof(float));
    double *want[4], *want_losses = alloc((size_t)epochs * sizeof(double));
    for (int q = 0; q < 4; q++) {
        got[q] = alloc((size_t)param_count(&net, q) * sizeof(float));
        want[q] = alloc((size_t)param_count(&net, q) * sizeof(double));
        for (int k = 0; k < param_count(&net, q); k++) want[q][k] = net.p[q][k];
    }
    CUDA_OK(train_on_device(&net, epochs, SHAPES_LR, got, got_losses));
    double closest = train_reference(&net, epochs, SHAPES_LR, want, want_losses);
    ck_assert_msg(closest >= RELU_MARGIN,
                  "test data: a pre-activation %.3g from 0 makes ReLU's backward ambiguous "
                  "between float and double; pick another seed for n=%d d=%d h=%d c=%d",
                  closest, n, d, h, c);

    static const char *const names[4] = {"w1", "b1", "w2", "b2"};
    char what[160];
    snprintf(what, sizeof what, "n=%d d=%d h=%d c=%d, %d epochs (%s): losses", n, d, h, c,
             epochs, shapes[t].why);
    check_close(what, got_losses, want_losses, epochs, 1e-4, 1e-4);
    for (int q = 0; q < 4; q++) {
        snprintf(what, sizeof what, "n=%d d=%d h=%d c=%d, %d epochs (%s): trained %s", n, d, h,
                 c, epochs, shapes[t].why, names[q]);
        check_close(what, got[q], want[q], param_count(&net, q), 1e-4, 1e-4);
        free(got[q]), free(want[q]);
    }
    free(got_losses), free(want_losses);
    net_free(&net);
}
END_TEST

/* ---- arguments --------------------------------------------------------------- */

START_TEST(test_fused_invalid_arguments_launch_nothing)
{
    require_device();
    Net net;
    net_random(&net, 40, 3, 5, 4, 77);
    const size_t big = 4096 * sizeof(float);
    float *x = to_device(net.x, (size_t)40 * 3 * sizeof(float));
    int32_t *y = to_device(net.y, (size_t)40 * sizeof(int32_t));
    float *w1 = to_device(NULL, big), *b1 = to_device(NULL, big), *w2 = to_device(NULL, big);
    float *b2 = to_device(NULL, big), *losses = to_device(NULL, big);
    float *sentinel = alloc(big), *back = alloc(big);
    for (int k = 0; k < 4096; k++) sentinel[k] = (float)k + 0.5f;
    float *params[5] = {w1, b1, w2, b2, losses};
    for (int q = 0; q < 5; q++)
        CUDA_OK(cudaMemcpy(params[q], sentinel, big, cudaMemcpyHostToDevice));
    const unsigned long long before = launches();

    /* Sizes outside the limits (the buffers are big enough for any of them,
     * so a launch would write somewhere we look). */
    CUDA_INVALID(k_mlp_train_fused(x, y, 0, 3, 5, 4, w1, b1, w2, b2, 1, 0.1f, losses, 0));
    CUDA_INVALID(k_mlp_train_fused(x, y, -1, 3, 5, 4, w1, b1, w2, b2, 1, 0.1f, losses, 0));
    CUDA_INVALID(k_mlp_train_fused(x, y, 1025, 3, 5, 4, w1, b1, w2, b2, 1, 0.1f, losses, 0));
    CUDA_INVALID(k_mlp_train_fused(x, y, 40, 0, 5, 4, w1, b1, w2, b2, 1, 0.1f, losses, 0));
    CUDA_INVALID(k_mlp_train_fused(x, y, 40, 17, 5, 4, w1, b1, w2, b2, 1, 0.1f, losses, 0));
    CUDA_INVALID(k_mlp_train_fused(x, y, 40, 3, 0, 4, w1, b1, w2, b2, 1, 0.1f, losses, 0));
    CUDA_INVALID(k_mlp_train_fused(x, y, 40, 3, 65, 4, w1, b1, w2, b2, 1, 0.1f, losses, 0));
    CUDA_INVALID(k_mlp_train_fused(x, y, 40, 3, 5, 0, w1, b1, w2, b2, 1, 0.1f, losses, 0));
    CUDA_INVALID(k_mlp_train_fused(x, y, 40, 3, 5, 17, w1, b1, w2, b2, 1, 0.1f, losses, 0));
    CUDA_INVALID(k_mlp_train_fused(x, y, 40, 3, 5, 4, w1, b1, w2, b2, -1, 0.1f, losses, 0));
    /* NULL pointers (losses alone may be NULL). */
    CUDA_INVALID(k_mlp_train_fused(NULL, y, 40, 3, 5, 4, w1, b1, w2, b2, 1, 0.1f, losses, 0));
    CUDA_INVALID(k_mlp_train_fused(x, NULL, 40, 3, 5, 4, w1, b1, w2, b2, 1, 0.1f, losses, 0));
    CUDA_INVALID(k_mlp_train_fused(x, y, 40, 3, 5, 4, NULL, b1, w2, b2, 1, 0.1f, losses, 0));
    CUDA_INVALID(k_mlp_train_fused(x, y, 40, 3, 5, 4, w1, NULL, w2, b2, 1, 0.1f, losses, 0));
    CUDA_INVALID(k_mlp_train_fused(x, y, 40, 3, 5, 4, w1, b1, NULL, b2, 1, 0.1f, losses, 0));
    CUDA_INVALID(k_mlp_train_fused(x, y, 40, 3, 5, 4, w1, b1, w2, NULL, 1, 0.1f, losses, 0));
    /* No epochs: nothing to do, nothing launched. */
    CUDA_OK(k_mlp_train_fused(x, y, 40, 3, 5, 4, w1, b1, w2, b2, 0, 0.1f, losses, 0));
    CUDA_OK(k_mlp_train_fused(x, y, 40, 3, 5, 4, w1, b1, w2, b2, 0, 0.1f, NULL, 0));

    CUDA_OK(cudaGetLastError());
    ck_assert_uint_eq(launches(), before);
    for (int q = 0; q < 5; q++) {
        from_device(back, params[q], big);
        ck_assert_msg(memcmp(back, sentinel, big) == 0,
                      "a refused call (or epochs = 0) changed device buffer %d", q);
    }
    cudaFree(x), cudaFree(y), cudaFree(w1), cudaFree(b1), cudaFree(w2), cudaFree(b2);
    cudaFree(losses);
    free(sentinel), free(back);
    net_free(&net);
}
END_TEST

/* A label outside [0, c) is not checked on the host (that would need a copy
 * back); the kernel makes the loss and the weights NaN, loudly. */
START_TEST(test_fused_bad_label_gives_nan)
{
    require_device();
    static const int32_t bad[2] = {4, -1};
    for (int b = 0; b < 2; b++) {
        Net net;
        net_random(&net, 40, 3, 5, 4, 78);
        net.y[17] = bad[b];
        float *got[4], losses[3];
        for (int q = 0; q < 4; q++) got[q] = alloc((size_t)param_count(&net, q) * sizeof(float));
        CUDA_OK(train_on_device(&net, 3, 0.1f, got, losses));
        for (int e = 0; e < 3; e++)
            ck_assert_msg(isnan(losses[e]), "label %d: loss of epoch %d is %g, not NaN",
                          (int)bad[b], e, (double)losses[e]);
        ck_assert_msg(isnan(got[3][0]), "label %d: b2 is %g after training, not NaN", (int)bad[b],
                      (double)got[3][0]);
        for (int q = 0; q < 4; q++) free(got[q]);
        net_free(&net);
    }
}
END_TEST

/* ---- determinism ------------------------------------------------------------- */

/* No atomics: every sum has one order, so the same inputs give the same bits,
 * with or without the losses asked for. On the simulator threads never run at
 * once and this holds trivially; on a GPU it is the real test. */
START_TEST(test_fused_runs_are_bit_identical)
{
    require_device();
    static const int sizes[][4] = {{300, 5, 12, 4}, {600, 8, 50, 7}};
    for (int t = 0; t < 2; t++) {
        Net net;
        net_random(&net, sizes[t][0], sizes[t][1], sizes[t][2], sizes[t][3], 90 + (uint64_t)t);
        const int epochs = 4;
        float *runs[3][4], losses[2][4];
        for (int run = 0; run < 3; run++) {
            for (int q = 0; q < 4; q++)
                runs[run][q] = alloc((size_t)param_count(&net, q) * sizeof(float));
            /* runs 0 and 2 write the losses, run 1 does not */
            CUDA_OK(train_on_device(&net, epochs, 0.5f, runs[run],
                                    run == 1 ? NULL : losses[run / 2]));
        }
        ck_assert_msg(memcmp(losses[0], losses[1], sizeof losses[0]) == 0,
                      "n=%d: two runs gave different losses", net.n);
        for (int run = 1; run < 3; run++)
            for (int q = 0; q < 4; q++)
                ck_assert_msg(memcmp(runs[0][q], runs[run][q],
                                     (size_t)param_count(&net, q) * sizeof(float)) == 0,
                              "n=%d: run %d gave other bits than run 0 for parameter %d", net.n,
                              run, q);
        ck_assert_msg(memcmp(runs[0][0], net.p[0], sizeof(float)) != 0,
                      "n=%d: the weights did not move", net.n);
        for (int run = 0; run < 3; run++)
            for (int q = 0; q < 4; q++) free(runs[run][q]);
        net_free(&net);
    }
}
END_TEST

/* ---- the suite ----------------------------------------------------------- */

Suite *fused_suite(void)
{
    Suite *s = suite_create("mlp_fused");
    TCase *tc = tcase_create("mlp_fused");
    tcase_set_timeout(tc, 60); /* the simulator runs every CUDA thread on the CPU */
    tcase_add_test(tc, test_fused_matches_lib_training_on_iris);
    tcase_add_loop_test(tc, test_fused_odd_sizes_match_double_reference, 0, N_SHAPES);
    tcase_add_test(tc, test_fused_invalid_arguments_launch_nothing);
    tcase_add_test(tc, test_fused_bad_label_gives_nan);
    tcase_add_test(tc, test_fused_runs_are_bit_identical);
    suite_add_tcase(s, tc);
    return s;
}
