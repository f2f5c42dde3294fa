/* check_optim_kernels.c: kernels/optim.cu, and lib's optimizers and clipping on a device.
 *
 * Two oracles. The update kernels against the same update written here as a
 * plain C loop: both do IEEE float operations in the same order (fmaf where
 * PyTorch fuses, a rounded product where it does not; square roots and
 * divisions are correctly rounded on a GPU without --use_fast_math), so
 * they must agree to the bit. The norm kernels against exact sums (entries
 * that are small integers times powers of two, whose squares add up exactly
 * in float in any order) and against a double sum (real entries). Then lib
 * on a CUDA device against lib on the CPU, itself checked against PyTorch
 * in tests/unit: optimizers to the bit, clipping within a few ulps (the CPU
 * sums the squares in double, the GPU in float).
 *
 * Inputs are seeded and uneven: every element has its own scale (2^-10 to
 * 2^3), sizes are odd and cross block and grid edges. Like check_kernels.c,
 * the suite needs a CUDA device, real or simulated, and fails without one.
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
#include "lib/core/counters.h"
#include "lib/core/err.h"
#include "lib/nn/layers.h"
#include "lib/nn/optim.h"

/* ---- helpers --------------------------------------------------------------- */

static double trng_uniform(TestRng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

/* n floats of random sign: (0.5 .. 1) * 2^(k % 14 - 10), each element its own scale. */
static float *random_floats(int64_t n, uint64_t seed)
{
    TestRng r = {seed};
    float *p = malloc((size_t)(n > 0 ? n : 1) * sizeof *p);
    ck_assert_ptr_nonnull(p);
    for (int64_t k = 0; k < n; k++) {
        double sign = (rng_next(&r) & 1) ? -1.0 : 1.0;
        p[k] = (float)(sign * (0.5 + 0.5 * trng_uniform(&r)) * ldexp(1.0, (int)(k % 14) - 10));
    }
    return p;
}

/* n floats (1 .. 9) * 2^-3 of random sign: their squares add up exactly in float. */
static float *integer_floats(int64_t n, uint64_t seed)
{
    TestRng r = {seed};
    float *p = malloc((size_t)(n > 0 ? n : 1) * sizeof *p);
    ck_assert_ptr_nonnull(p);
    for (int64_t k = 0; k < n; k++)
        p[k] = (float)(((rng_next(&r) & 1) ? -1 : 1) * (int)(1 + rng_next(&r) % 9)) * 0.125f;
    return p;
}

static float *floats_to_device(const float *host, int64_t n)
{
    void *d = NULL;
    size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(float);
    CUDA_OK(cudaMalloc(&d, bytes));
    /* Without data, zeros: a kernel may read it (the simulator reports reads
     * of memory nothing wrote, as compute-sanitizer's initcheck does). */
    if (host) CUDA_OK(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
    else CUDA_OK(cudaMemset(d, 0, bytes));
    return d;
}

static void floats_from_device(float *host, const float *dev, int64_t n)
{
    CUDA_OK(cudaDeviceSynchronize()); /* reports errors of the kernels before */
    CUDA_OK(cudaMemcpy(host, dev, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
}

/* Fail unless the n floats at got and want have the same bits, naming the first that do not. */
static void assert_same_bits(const char *what, const float *got, const float *want, int64_t n)
{
    for (int64_t k = 0; k < n; k++)
        ck_assert_msg(memcmp(&got[k], &want[k], sizeof(float)) == 0,
                      "%s: element %lld of %lld: got %.9g, expected %.9g (the same bits)", what,
                      (long long)k, (long long)n, (double)got[k], (double)want[k]);
}

/* Fail unless |got - want| <= rtol |want| (NaN matching NaN). */
static void assert_rel(const char *what, double got, double want, double rtol)
{
    ck_assert_msg(got == want || fabs(got - want) <= rtol * fabs(want) ||
                      (isnan(got) && isnan(want)),
                  "%s: got %.9g, expected %.9g (relative tolerance %.2g)", what, got, want,
                  rtol);
}

static const int64_t SIZES[] = {1, 37, 256, 1000, 70001};
#define N_SIZES (int)(sizeof SIZES / sizeof SIZES[0])

/* ---- the update kernels ---------------------------------------------------- */

/* torch.optim.SGD's update in plain C: the kernel's formula, operation by operation. */
static void sgd_reference(float *p, const float *g, float *buf, int64_t n, float lr, float mom,
                          float wd, int nesterov, int first)
{
    for (int64_t i = 0; i < n; i++) {
        float d = g[i];
        if (wd != 0.0f) d = fmaf(wd, p[i], d);
        if (mom != 0.0f) {
            float b = first ? d : buf[i] * mom + d;
            buf[i] = b;
            d = nesterov ? fmaf(mom, b, d) : b;
        }
        p[i] = fmaf(-lr, d, p[i]);
    }
}

START_TEST(test_sgd_momentum_kernel_matches_cpu)
{
    require_device();
    const struct {
        float lr, momentum, weight_decay;
        int nesterov;
    } cfg[3] = {{0.03f, 0.9f, 0.01f, 1}, {0.1f, 0.5f, 0.0f, 0}, {0.07f, 0.0f, 0.02f, 0}};
    for (int s = 0; s < N_SIZES; s++) {
        int64_t n = SIZES[s];
        for (int c = 0; c < 3; c++) {
            float *p = random_floats(n, 10 + (uint64_t)s), *buf = calloc((size_t)n, sizeof *buf);
            float *dp = floats_to_device(p, n), *dbuf = floats_to_device(buf, n), *back = random_floats(n, 0);
            for (int step = 0; step < 3; step++) {
                float *g = random_floats(n, 100 + (uint64_t)(s * 10 + step));
                float *dg = floats_to_device(g, n);
                CUDA_OK(k_sgd_momentum_step(dp, dg, cfg[c].momentum != 0.0f ? dbuf : NULL, n,
                                            cfg[c].lr, cfg[c].momentum, cfg[c].weight_decay,
                                            cfg[c].nesterov, step == 0, 0));
                sgd_reference(p, g, buf, n, cfg[c].lr, cfg[c].momentum, cfg[c].weight_decay,
                              cfg[c].nesterov, step == 0);
                cudaFree(dg);
                free(g);
            }
            char what[96];
            snprintf(what, sizeof what, "SGD config %d, n = %lld: parameters", c, (long long)n);
            floats_from_device(back, dp, n);
            assert_same_bits(what, back, p, n);
            snprintf(what, sizeof what, "SGD config %d, n = %lld: momentum buffer", c,
                     (long long)n);
            floats_from_device(back, dbuf, n);
            assert_same_bits(what, back, buf, n);
            cudaFree(dp), cudaFree(dbuf);
            free(p), free(buf), free(back);
        }
    }
}
END_TEST

START_TEST(test_adam_kernel_matches_cpu)
{
    require_device();
    const float lr = 0.01f, b1 = 0.8f, b2 = 0.99f, eps = 1e-6f, wd[2] = {0.0f, 0.05f};
    for (int s = 0; s < N_SIZES; s++) {
        int64_t n = SIZES[s];
        for (int c = 0; c < 2; c++) {
            float *p = random_floats(n, 20 + (uint64_t)s), *back = random_floats(n, 0);
            float *m = calloc((size_t)n, sizeof *m), *v = calloc((size_t)n, sizeof *v);
            float *dp = floats_to_device(p, n), *dm = floats_to_device(m, n), *dv = floats_to_device(v, n);
            for (int t = 1; t <= 3; t++) {
                float *g = random_floats(n, 200 + (uint64_t)(s * 10 + t));
                float *dg = floats_to_device(g, n);
                /* PyTorch's Python-float scalars: in double, rounded when they meet floats */
                float c1 = (float)(1.0 - b1), c2 = (float)(1.0 - b2);
                float neg_step = (float)(-(lr / (1.0 - pow(b1, t))));
                float bc2_sqrt = (float)sqrt(1.0 - pow(b2, t));
                CUDA_OK(k_adam_step(dp, dg, dm, dv, n, b1, b2, c1, c2, neg_step, bc2_sqrt, eps,
                                    wd[c], 0));
                for (int64_t i = 0; i < n; i++) {
                    float d = wd[c] != 0.0f ? fmaf(wd[c], p[i], g[i]) : g[i];
                    m[i] = fmaf(c1, d, m[i] * b1);
                    v[i] = fmaf(c2 * d, d, v[i] * b2);
                    p[i] = p[i] + neg_step * m[i] / (sqrtf(v[i]) / bc2_sqrt + eps);
                }
                cudaFree(dg);
                free(g);
            }
            char what[96];
            const float *want[3] = {p, m, v};
            const float *dev[3] = {dp, dm, dv};
            const char *names[3] = {"parameters", "exp_avg", "exp_avg_sq"};
            for (int q = 0; q < 3; q++) {
                snprintf(what, sizeof what, "Adam wd %g, n = %lld: %s", (double)wd[c],
                         (long long)n, names[q]);
                floats_from_device(back, dev[q], n);
                assert_same_bits(what, back, want[q], n);
            }
            cudaFree(dp), cudaFree(dm), cudaFree(dv);
            free(p), free(m), free(v), free(back);
        }
    }
}
END_TEST

START_TEST(test_optim_kernels_refuse_bad_arguments)
{
    require_device();
    float *a = floats_to_device(NULL, 8), *b = floats_to_device(NULL, 8), *c = floats_to_device(NULL, 8);
    float *d = floats_to_device(NULL, 8);
    const unsigned long long before = launches();
    CUDA_INVALID(k_sgd_momentum_step(a, b, c, -1, 0.1f, 0.9f, 0.0f, 0, 0, 0));
    CUDA_INVALID(k_sgd_momentum_step(NULL, b, c, 8, 0.1f, 0.9f, 0.0f, 0, 0, 0));
    CUDA_INVALID(k_sgd_momentum_step(a, NULL, c, 8, 0.1f, 0.9f, 0.0f, 0, 0, 0));
    CUDA_INVALID(k_sgd_momentum_step(a, b, NULL, 8, 0.1f, 0.9f, 0.0f, 0, 0, 0)); /* needs buf */
    CUDA_INVALID(k_sgd_momentum_step(a, b, c, (int64_t)1 << 40, 0.1f, 0.9f, 0.0f, 0, 0, 0));
    CUDA_INVALID(k_adam_step(a, b, c, NULL, 8, 0.9f, 0.9f, 0.1f, 0.1f, -0.1f, 1.0f, 0, 0, 0));
    CUDA_INVALID(k_adam_step(a, b, NULL, d, 8, 0.9f, 0.9f, 0.1f, 0.1f, -0.1f, 1.0f, 0, 0, 0));
    CUDA_INVALID(k_adam_step(a, b, c, d, -3, 0.9f, 0.9f, 0.1f, 0.1f, -0.1f, 1.0f, 0, 0, 0));
    CUDA_INVALID(k_sum_squares(a, -1, b, 0));
    CUDA_INVALID(k_sum_squares(a, 8, NULL, 0));
    CUDA_INVALID(k_norm_from_partials(a, -1, b, 0));
    CUDA_INVALID(k_norm_from_partials(a, 8, NULL, 0));
    CUDA_INVALID(k_clip_scale(a, 8, NULL, 1.0f, 0));
    CUDA_INVALID(k_clip_scale(a, -8, b, 1.0f, 0));
    /* Nothing to do: nothing launched, and no buffer needed without momentum. */
    CUDA_OK(k_sgd_momentum_step(NULL, NULL, NULL, 0, 0.1f, 0.9f, 0.0f, 0, 0, 0));
    CUDA_OK(k_adam_step(NULL, NULL, NULL, NULL, 0, 0.9f, 0.9f, 0.1f, 0.1f, -0.1f, 1.0f, 0, 0, 0));
    CUDA_OK(k_sum_squares(NULL, 0, NULL, 0));
    CUDA_OK(k_clip_scale(NULL, 0, NULL, 1.0f, 0));
    ck_assert_uint_eq(launches(), before);
    CUDA_OK(k_sgd_momentum_step(a, b, NULL, 8, 0.1f, 0.0f, 0.01f, 0, 0, 0));
    CUDA_OK(cudaDeviceSynchronize());
    ck_assert_int_eq(k_sum_squares_blocks(0), 0);
    ck_assert_int_eq(k_sum_squares_blocks(1), 1);
    ck_assert_int_eq(k_sum_squares_blocks(257), 2);
    ck_assert_int_eq(k_sum_squares_blocks(1 << 20), 256);
    cudaFree(a), cudaFree(b), cudaFree(c), cudaFree(d);
}
END_TEST

/* ---- the norm and the scaling ---------------------------------------------- */

/* Three tensors' partials side by side, one norm: exact on integer entries,
 * close to a double sum on real ones, and the same bits on a second run. */
START_TEST(test_norm_kernels)
{
    require_device();
    const int64_t sizes[3] = {257, 1, 70001};
    for (int kind = 0; kind < 2; kind++) {
        float *host[3], *dev[3];
        int64_t blocks = 0;
        double exact = 0.0;
        for (int i = 0; i < 3; i++) {
            host[i] = kind ? random_floats(sizes[i], 30 + (uint64_t)i)
                           : integer_floats(sizes[i], 40 + (uint64_t)i);
            dev[i] = floats_to_device(host[i], sizes[i]);
            blocks += k_sum_squares_blocks(sizes[i]);
            for (int64_t k = 0; k < sizes[i]; k++) exact += (double)host[i][k] * host[i][k];
        }
        float *partials = floats_to_device(NULL, blocks + 1), *norm = partials + blocks;
        float got[2];
        for (int run = 0; run < 2; run++) {
            int64_t at = 0;
            for (int i = 0; i < 3; i++) {
                CUDA_OK(k_sum_squares(dev[i], sizes[i], partials + at, 0));
                at += k_sum_squares_blocks(sizes[i]);
            }
            CUDA_OK(k_norm_from_partials(partials, at, norm, 0));
            floats_from_device(&got[run], norm, 1);
        }
        if (kind == 0)
            ck_assert_msg(got[0] == (float)sqrt(exact), "integer entries: norm %.9g, exact %.9g",
                          (double)got[0], sqrt(exact));
        else /* float sums in a tree of depth ~17: a few ulps at most */
            assert_rel("real entries: norm", got[0], sqrt(exact), 1e-6);
        ck_assert_msg(memcmp(&got[0], &got[1], sizeof(float)) == 0,
                      "two runs gave %.9g and %.9g", (double)got[0], (double)got[1]);
        CUDA_OK(k_norm_from_partials(partials, 0, norm, 0)); /* no values: norm 0 */
        floats_from_device(&got[0], norm, 1);
        ck_assert_float_eq(got[0], 0.0f);
        for (int i = 0; i < 3; i++) cudaFree(dev[i]), free(host[i]);
        cudaFree(partials);
    }
}
END_TEST

START_TEST(test_clip_scale_kernel)
{
    require_device();
    const int64_t n = 1000;
    float *g = random_floats(n, 50), *back = random_floats(n, 0), *want = random_floats(n, 0);
    g[17] = INFINITY;
    const float norms[4] = {0.5f, 40.0f, INFINITY, NAN}, max_norm = 2.0f;
    for (int c = 0; c < 4; c++) {
        float *dg = floats_to_device(g, n), *dnorm = floats_to_device(&norms[c], 1);
        CUDA_OK(k_clip_scale(dg, n, dnorm, max_norm, 0));
        float coef = max_norm / (norms[c] + 1e-6f);
        for (int64_t k = 0; k < n; k++) want[k] = coef < 1.0f || isnan(coef) ? g[k] * coef : g[k];
        char what[64];
        snprintf(what, sizeof what, "clip with norm %g", (double)norms[c]);
        floats_from_device(back, dg, n);
        assert_same_bits(what, back, want, n);
        if (isinf(norms[c])) /* PyTorch's inf norm: coefficient 0, so 0, and NaN for the inf */
            ck_assert(isnan(want[17]) && want[0] == 0.0f);
        cudaFree(dg), cudaFree(dnorm);
    }
    free(g), free(back), free(want);
}
END_TEST

/* ---- lib on a device against lib on the CPU ---------------------------------- */

static Device gpu(void)
{
    int n = 0;
    ck_assert_msg(device_count(&n) == ERR_OK && n > 0, "no CUDA device (real or simulated): %s",
                  err_message());
    return device_cuda(0);
}

/* A Linear(37, 29) (1073 + 29 values) with seeded weights, on @p d. */
static Module *model_on(Device d)
{
    Rng rng;
    rng_seed(&rng, 8, 0);
    Module *m = linear_new("fc", 37, 29, &rng);
    ck_assert_ptr_nonnull(m);
    ck_assert_msg(module_to(m, d) == ERR_OK, "%s", err_message());
    return m;
}

/* Gradient @p step of a fixed sequence into every parameter of @p m (on any device). */
static void set_grads(Module *m, int step)
{
    for (int i = 0; i < m->n_params; i++) {
        Tensor *g = m->params[i].grad;
        float *h = random_floats(g->numel, 300 + (uint64_t)(step * 10 + i));
        Tensor *src = tensor_new(DTYPE_F32, device_cpu(), g->ndim, g->shape);
        memcpy(src->data, h, (size_t)g->numel * sizeof(float));
        ck_assert_int_eq(tensor_copy(g, src), ERR_OK);
        tensor_free(src);
        free(h);
    }
}

/* Fail unless the tensors (any devices) hold the same bits. */
static void assert_same_tensor(const char *what, const Tensor *a, const Tensor *b)
{
    Tensor *ha = NULL, *hb = NULL;
    ck_assert_int_eq(tensor_to(a, device_cpu(), &ha), ERR_OK);
    ck_assert_int_eq(tensor_to(b, device_cpu(), &hb), ERR_OK);
    ck_assert_int_eq(ha->numel, hb->numel);
    assert_same_bits(what, tensor_f32(ha), tensor_f32(hb), ha->numel);
    tensor_free(ha);
    tensor_free(hb);
}

static Optimizer *make_optimizer(Module *m, int kind)
{
    Optimizer *opt = kind == 0   ? optim_sgd_momentum_new(m, 0.03f, 0.9f, 0.01f, true)
                     : kind == 1 ? optim_adam_new(m, 0.003f, 0.8f, 0.99f, 1e-6f, 0.05f)
                                 : optim_sgd_momentum_new(m, 0.07f, 0.0f, 0.02f, false);
    ck_assert_msg(opt != NULL, "%s", err_message());
    return opt;
}

/* Five steps on the device give the CPU's bits, parameters and state, without a sync. */
START_TEST(test_lib_optimizers_on_device_match_cpu)
{
    const int kind = _i;
    Module *cpu = model_on(device_cpu()), *dev = model_on(gpu());
    Optimizer *ocpu = make_optimizer(cpu, kind), *odev = make_optimizer(dev, kind);
    OptimStateRef refs[4];
    for (int i = 0; i < optim_state(odev, refs, 4); i++)
        ck_assert(device_equal(refs[i].tensor->device, gpu())); /* made where the model is */
    uint64_t launched = 0, synced = 0;
    for (int step = 0; step < 5; step++) {
        set_grads(cpu, step);
        set_grads(dev, step);
        ck_assert_int_eq(optim_step(ocpu), ERR_OK);
        counters_reset();
        ck_assert_msg(optim_step(odev) == ERR_OK, "%s", err_message());
        launched += counters_get().launches;
        synced += counters_get().syncs;
    }
    ck_assert_uint_eq(launched, 10); /* one launch per parameter tensor and step */
    ck_assert_uint_eq(synced, 0);    /* and the CPU never waits */
    for (int i = 0; i < 2; i++) {
        char what[64];
        snprintf(what, sizeof what, "%s after 5 steps", cpu->params[i].name);
        assert_same_tensor(what, dev->params[i].value, cpu->params[i].value);
    }
    OptimStateRef want[4], got[4];
    int n = optim_state(ocpu, want, 4);
    ck_assert_int_eq(optim_state(odev, got, 4), n);
    for (int i = 0; i < n; i++) assert_same_tensor(want[i].name, got[i].tensor, want[i].tensor);
    optim_free(ocpu), optim_free(odev);
    module_free(cpu), module_free(dev);
}
END_TEST

/* Three steps on the CPU, then model and state to the device, two more:
 * the bits of five CPU steps. A forgotten optim_to() is a clear error. */
START_TEST(test_lib_optim_to_moves_the_state)
{
    const int kind = _i;
    Module *straight = model_on(device_cpu()), *moved = model_on(device_cpu());
    Optimizer *o1 = make_optimizer(straight, kind), *o2 = make_optimizer(moved, kind);
    for (int step = 0; step < 5; step++) {
        set_grads(straight, step);
        ck_assert_int_eq(optim_step(o1), ERR_OK);
    }
    for (int step = 0; step < 3; step++) {
        set_grads(moved, step);
        ck_assert_int_eq(optim_step(o2), ERR_OK);
    }
    ck_assert_int_eq(module_to(moved, gpu()), ERR_OK);
    if (o2->state_per_param > 0) {
        ck_assert_int_eq(optim_step(o2), ERR_DEVICE);
        ck_assert_ptr_nonnull(strstr(err_message(), "optim_to"));
    }
    ck_assert_int_eq(optim_to(o2, gpu()), ERR_OK);
    for (int step = 3; step < 5; step++) {
        set_grads(moved, step);
        ck_assert_msg(optim_step(o2) == ERR_OK, "%s", err_message());
    }
    for (int i = 0; i < 2; i++)
        assert_same_tensor("parameter after moving", moved->params[i].value,
                           straight->params[i].value);
    ck_assert_int_eq(optim_to(o2, device_cpu()), ERR_OK); /* and back */
    OptimStateRef refs[4];
    for (int i = 0; i < optim_state(o2, refs, 4); i++)
        ck_assert_int_eq(refs[i].tensor->device.kind, DEVICE_CPU);
    optim_free(o1), optim_free(o2);
    module_free(straight), module_free(moved);
}
END_TEST

/* Clipping on the device: the CPU's result within a few ulps, one sync to
 * read the norm (none without it), 2 launches per tensor and one more. */
START_TEST(test_lib_clip_grad_norm_on_device)
{
    const float max_norms[2] = {1e6f, 0.5f}; /* under, over */
    for (int c = 0; c < 3; c++) {
        Module *cpu = model_on(device_cpu()), *dev = model_on(gpu());
        /* Zero gradients, so this changes nothing: it only makes the backend's scratch
         * memory, whose allocation (or growth, a cudaFree) is not what is counted. */
        ck_assert_int_eq(clip_grad_norm(dev, INFINITY, NULL), ERR_OK);
        set_grads(cpu, c);
        if (c == 2) tensor_f32(cpu->params[0].grad)[5] = INFINITY;
        for (int i = 0; i < 2; i++)
            ck_assert_int_eq(tensor_copy(dev->params[i].grad, cpu->params[i].grad), 0);
        float max_norm = c == 2 ? 1.0f : max_norms[c], tc = 0.0f, td = 0.0f;
        ck_assert_int_eq(clip_grad_norm(cpu, max_norm, &tc), ERR_OK);
        counters_reset();
        ck_assert_msg(clip_grad_norm(dev, max_norm, &td) == ERR_OK, "%s", err_message());
        Counters k = counters_get();
        ck_assert_uint_eq(k.syncs, 1);
        ck_assert_uint_eq(k.launches, 5);
        assert_rel("total norm on the device", td, tc, 4e-7);
        for (int i = 0; i < 2; i++) {
            Tensor *h = NULL;
            ck_assert_int_eq(tensor_to(dev->params[i].grad, device_cpu(), &h), ERR_OK);
            for (int64_t k2 = 0; k2 < h->numel; k2++)
                assert_rel("clipped gradient", tensor_f32(h)[k2],
                           tensor_f32(cpu->params[i].grad)[k2], 8e-7);
            tensor_free(h);
        }
        counters_reset();
        ck_assert_int_eq(clip_grad_norm(dev, max_norm, NULL), ERR_OK);
        ck_assert_uint_eq(counters_get().syncs, 0); /* nothing waits for the GPU */
        module_free(cpu), module_free(dev);
    }
}
END_TEST

START_TEST(test_lib_clip_needs_one_device)
{
    Module *m = model_on(device_cpu());
    Tensor *g = NULL;
    ck_assert_int_eq(tensor_to(m->params[1].grad, gpu(), &g), ERR_OK);
    tensor_free(m->params[1].grad);
    m->params[1].grad = g; /* the bias gradient alone on the device */
    ck_assert_int_eq(clip_grad_norm(m, 1.0f, NULL), ERR_DEVICE);
    ck_assert_ptr_nonnull(strstr(err_message(), "module_to"));
    module_free(m);
}
END_TEST

Suite *optim_kernels_suite(void)
{
    Suite *s = suite_create("optim_kernels");
    TCase *tc = tcase_create("kernels");
    tcase_set_timeout(tc, 60); /* the simulator runs every CUDA thread on the CPU */
    tcase_add_test(tc, test_sgd_momentum_kernel_matches_cpu);
    tcase_add_test(tc, test_adam_kernel_matches_cpu);
    tcase_add_test(tc, test_optim_kernels_refuse_bad_arguments);
    tcase_add_test(tc, test_norm_kernels);
    tcase_add_test(tc, test_clip_scale_kernel);
    suite_add_tcase(s, tc);
    tc = tcase_create("lib_on_device");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_lib_optimizers_on_device_match_cpu, 0, 3);
    tcase_add_loop_test(tc, test_lib_optim_to_moves_the_state, 0, 3);
    tcase_add_test(tc, test_lib_clip_grad_norm_on_device);
    tcase_add_test(tc, test_lib_clip_needs_one_device);
    suite_add_tcase(s, tc);
    return s;
}
