/* check_kernels.c: every kernel of kernels/ against a CPU reference.
 *
 * Each test copies seeded random inputs to the device, calls the launch
 * wrapper, synchronises, copies the result back and compares it with a plain
 * double-precision loop written here. The data are deliberately uneven: every
 * column has its own scale (1/8 to 8), entries are never close to zero, and
 * sizes are odd (1, 37, 130, 257, 1000 ...) and cross tile edges, so an
 * off-by-one, a swapped index or a missing __syncthreads() changes the answer.
 * Where a sum must be exact, the entries are small integers times powers of
 * two: their sums are exact in float in any order, so nothing hides in the
 * tolerance.
 *
 * The suite needs a CUDA device, real or simulated: without one every test
 * fails with a message saying so. Sizes stay small because the simulator runs
 * each CUDA thread on the CPU. tests/gpu/check_gpu_main.c runs the suite (no
 * CUDA call may come before it: Check forks a process per test, and a CUDA
 * context does not survive fork()).
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

/* ---- helpers ------------------------------------------------------------- */

static double rng_uniform(TestRng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

enum { REAL, INTEGER };

/* A random entry of size `scale`, with a random sign and never near zero:
 * REAL is (0.5 .. 1) * scale, INTEGER is (1 .. 9) * scale. */
static float entry(TestRng *r, double scale, int kind)
{
    double sign = (rng_next(r) & 1) ? -1.0 : 1.0;
    double mag = kind == INTEGER ? (double)(1 + rng_next(r) % 9) : 0.5 + 0.5 * rng_uniform(r);
    return (float)(sign * mag * scale);
}

/* Column j's scale: a power of two from 1/8 to 8, different for neighbours. */
static double column_scale(int64_t j) { return ldexp(1.0, (int)((j * 3) % 7) - 3); }

/* A (rows, cols) column-major matrix with leading dimension ld >= rows; the
 * padding rows [rows, ld) hold NaN, so a kernel that reads them is caught. */
static float *random_matrix(int64_t rows, int64_t cols, int64_t ld, uint64_t seed, int kind)
{
    TestRng r = {seed};
    size_t count = (size_t)(ld * cols > 0 ? ld * cols : 1);
    float *p = malloc(count * sizeof(float));
    ck_assert_ptr_nonnull(p);
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < ld; i++)
            p[i + j * ld] = i < rows ? entry(&r, column_scale(j), kind) : NAN;
    return p;
}

/* got[k] against want[k] for k < count, within atol + rtol * |want|; a matrix
 * (rows > 0) names the row and column of a mismatch. NaN matches NaN. */
static void check_close(const char *what, const float *got, const double *want, int64_t count,
                        int64_t rows, double rtol, double atol)
{
    for (int64_t k = 0; k < count; k++) {
        double g = got[k], tol = atol + rtol * fabs(want[k]), diff = fabs(g - want[k]);
        if (diff <= tol || (isnan(g) && isnan(want[k]))) continue;
        if (rows > 0)
            ck_abort_msg("%s: element %lld = (row %lld, column %lld): got %.9g, expected %.9g "
                         "(difference %.3g > tolerance %.3g)",
                         what, (long long)k, (long long)(k % rows), (long long)(k / rows), g,
                         want[k], diff, tol);
        ck_abort_msg("%s: element %lld: got %.9g, expected %.9g (difference %.3g > tolerance "
                     "%.3g)",
                     what, (long long)k, g, want[k], diff, tol);
    }
}

static double *new_doubles(int64_t count)
{
    double *p = malloc((size_t)(count > 0 ? count : 1) * sizeof(double));
    ck_assert_ptr_nonnull(p);
    return p;
}

static float *new_floats(int64_t count)
{
    float *p = malloc((size_t)(count > 0 ? count : 1) * sizeof(float));
    ck_assert_ptr_nonnull(p);
    return p;
}

/* ---- the device ---------------------------------------------------------- */

START_TEST(test_a_cuda_device_is_present)
{
    require_device();
    struct cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    ck_assert_msg(prop.name[0] != '\0', "device 0 has an empty name");
}
END_TEST

/* ---- elementwise.cu ------------------------------------------------------ */

static const int64_t elementwise_sizes[] = {1, 37, 257, 1000, 4099};
#define N_ELEMENTWISE_SIZES (sizeof elementwise_sizes / sizeof elementwise_sizes[0])

START_TEST(test_relu_forward_and_backward_match_cpu)
{
    require_device();
    for (size_t t = 0; t < N_ELEMENTWISE_SIZES; t++) {
        int64_t n = elementwise_sizes[t];
        size_t bytes = (size_t)n * sizeof(float);
        float *x = random_matrix(n, 1, n, 100 + t, REAL);
        float *dy = random_matrix(n, 1, n, 200 + t, REAL);
        for (int64_t i = 0; i < n; i += 5) x[i] = 0.0f; /* relu'(0) is 0, as in PyTorch */
        float *got = new_floats(n);
        double *want = new_doubles(n);
        float *dx_d = to_device(NULL, bytes), *y_d = to_device(NULL, bytes);
        float *x_d = to_device(x, bytes), *dy_d = to_device(dy, bytes);
        char what[64];

        CUDA_OK(k_relu_forward(x_d, y_d, n, 0));
        from_device(got, y_d, bytes);
        for (int64_t i = 0; i < n; i++) want[i] = x[i] > 0.0f ? x[i] : 0.0;
        snprintf(what, sizeof what, "relu forward, n = %lld", (long long)n);
        check_close(what, got, want, n, 0, 0.0, 0.0);

        CUDA_OK(k_relu_backward(y_d, dy_d, dx_d, n, 0));
        from_device(got, dx_d, bytes);
        for (int64_t i = 0; i < n; i++) want[i] = x[i] > 0.0f ? dy[i] : 0.0;
        snprintf(what, sizeof what, "relu backward dx, n = %lld", (long long)n);
        check_close(what, got, want, n, 0, 0.0, 0.0);

        CUDA_OK(k_relu_forward(x_d, x_d, n, 0)); /* in place */
        from_device(got, x_d, bytes);
        for (int64_t i = 0; i < n; i++) want[i] = x[i] > 0.0f ? x[i] : 0.0;
        snprintf(what, sizeof what, "relu forward in place, n = %lld", (long long)n);
        check_close(what, got, want, n, 0, 0.0, 0.0);

        cudaFree(x_d), cudaFree(y_d), cudaFree(dy_d), cudaFree(dx_d);
        free(x), free(dy), free(got), free(want);
    }
}
END_TEST

START_TEST(test_sgd_step_matches_cpu)
{
    require_device();
    const float lr = 0.01f;
    for (size_t t = 0; t < N_ELEMENTWISE_SIZES; t++) {
        int64_t n = elementwise_sizes[t];
        size_t bytes = (size_t)n * sizeof(float);
        float *p = random_matrix(n, 1, n, 300 + t, REAL);
        float *g = random_matrix(n, 1, n, 400 + t, REAL);
        for (int64_t i = 0; i < n; i++) g[i] *= (float)column_scale(i) * 100.0f; /* uneven */
        float *got = new_floats(n);
        double *want = new_doubles(n);
        float *p_d = to_device(p, bytes), *g_d = to_device(g, bytes);
        CUDA_OK(k_sgd_step(p_d, g_d, n, lr, 0));
        from_device(got, p_d, bytes);
        for (int64_t i = 0; i < n; i++) want[i] = (double)p[i] - (double)lr * g[i];
        char what[64];
        snprintf(what, sizeof what, "sgd step p - lr * g, n = %lld", (long long)n);
        check_close(what, got, want, n, 0, 1e-6, 1e-6);
        cudaFree(p_d), cudaFree(g_d);
        free(p), free(g), free(got), free(want);
    }
}
END_TEST

START_TEST(test_add_bias_adds_b_j_to_column_j)
{
    require_device();
    static const int64_t shapes[][2] = {{1, 1}, {37, 5}, {257, 3}, {3, 130}, {1000, 10}};
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
        int64_t n = shapes[t][0], cols = shapes[t][1];
        float *y = random_matrix(n, cols, n, 500 + t, REAL);
        float *b = random_matrix(cols, 1, cols, 600 + t, INTEGER);
        float *got = new_floats(n * cols);
        double *want = new_doubles(n * cols);
        float *y_d = to_device(y, (size_t)(n * cols) * sizeof(float));
        float *b_d = to_device(b, (size_t)cols * sizeof(float));
        CUDA_OK(k_add_bias(y_d, b_d, n, cols, 0));
        from_device(got, y_d, (size_t)(n * cols) * sizeof(float));
        for (int64_t j = 0; j < cols; j++)
            for (int64_t i = 0; i < n; i++) want[i + j * n] = (float)(y[i + j * n] + b[j]);
        char what[64];
        snprintf(what, sizeof what, "add_bias on y (%lld, %lld)", (long long)n, (long long)cols);
        check_close(what, got, want, n * cols, n, 0.0, 0.0);
        cudaFree(y_d), cudaFree(b_d);
        free(y), free(b), free(got), free(want);
    }
}
END_TEST

START_TEST(test_fill_sets_exactly_n_values)
{
    require_device();
    for (size_t t = 0; t < N_ELEMENTWISE_SIZES; t++) {
        int64_t n = elementwise_sizes[t], total = n + 40; /* 40 guard values after the end */
        size_t bytes = (size_t)total * sizeof(float);
        float *host = new_floats(total);
        double *want = new_doubles(total);
        for (int64_t i = 0; i < total; i++) host[i] = 7.0f;
        float *p_d = to_device(host, bytes);
        CUDA_OK(k_fill(p_d, n, -3.25f, 0));
        from_device(host, p_d, bytes);
        for (int64_t i = 0; i < total; i++) want[i] = i < n ? -3.25 : 7.0;
        char what[80];
        snprintf(what, sizeof what, "fill of n = %lld (then 40 values that must stay 7)",
                 (long long)n);
        check_close(what, host, want, total, 0, 0.0, 0.0);
        cudaFree(p_d);
        free(host), free(want);
    }
}
END_TEST

START_TEST(test_elementwise_empty_and_invalid_arguments)
{
    require_device();
    float *a = to_device(NULL, 16 * sizeof(float)), *b = to_device(NULL, 16 * sizeof(float));
    /* n == 0: nothing to do, nothing launched, even with NULL pointers. */
    CUDA_OK(k_relu_forward(NULL, NULL, 0, 0));
    CUDA_OK(k_relu_backward(NULL, NULL, NULL, 0, 0));
    CUDA_OK(k_sgd_step(NULL, NULL, 0, 0.1f, 0));
    CUDA_OK(k_add_bias(NULL, NULL, 0, 4, 0));
    CUDA_OK(k_add_bias(NULL, NULL, 4, 0, 0));
    CUDA_OK(k_fill(NULL, 0, 1.0f, 0));
    /* Negative sizes, NULL data, sizes too big for int indices. */
    CUDA_INVALID(k_relu_forward(a, b, -1, 0));
    CUDA_INVALID(k_relu_forward(NULL, b, 16, 0));
    CUDA_INVALID(k_relu_forward(a, NULL, 16, 0));
    CUDA_INVALID(k_relu_backward(a, a, NULL, 16, 0));
    CUDA_INVALID(k_relu_backward(a, NULL, b, 16, 0));
    CUDA_INVALID(k_relu_backward(a, a, b, -5, 0));
    CUDA_INVALID(k_sgd_step(a, NULL, 16, 0.1f, 0));
    CUDA_INVALID(k_sgd_step(a, b, -1, 0.1f, 0));
    CUDA_INVALID(k_add_bias(a, NULL, 4, 4, 0));
    CUDA_INVALID(k_add_bias(a, b, -4, 4, 0));
    CUDA_INVALID(k_add_bias(a, b, 4, -4, 0));
    CUDA_INVALID(k_add_bias(a, b, (int64_t)1 << 20, (int64_t)1 << 12, 0));
    CUDA_INVALID(k_fill(NULL, 16, 1.0f, 0));
    CUDA_INVALID(k_fill(a, -1, 1.0f, 0));
    CUDA_INVALID(k_fill(a, (int64_t)1 << 31, 1.0f, 0));
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaGetLastError()); /* refusing left no error behind */
    cudaFree(a), cudaFree(b);
}
END_TEST

/* ---- reduce.cu ----------------------------------------------------------- */

START_TEST(test_sum_columns_matches_cpu)
{
    require_device();
    static const int64_t shapes[][2] = {{1, 1}, {37, 5}, {257, 3}, {130, 1}, {1000, 7}, {5, 40}};
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
        for (int kind = REAL; kind <= INTEGER; kind++) {
            for (int accumulate = 0; accumulate <= 1; accumulate++) {
                int64_t rows = shapes[t][0], cols = shapes[t][1];
                float *x = random_matrix(rows, cols, rows, 700 + t, kind);
                float *out = random_matrix(cols, 1, cols, 800 + t, INTEGER); /* old values */
                float *got = new_floats(cols);
                double *want = new_doubles(cols);
                float *x_d = to_device(x, (size_t)(rows * cols) * sizeof(float));
                float *out_d = to_device(out, (size_t)cols * sizeof(float));
                CUDA_OK(k_sum_columns(x_d, out_d, rows, cols, accumulate, 0));
                from_device(got, out_d, (size_t)cols * sizeof(float));
                double worst_abs = 0.0; /* the float error grows with the sum of |x| */
                for (int64_t j = 0; j < cols; j++) {
                    double sum = 0.0, abs_sum = 0.0;
                    for (int64_t i = 0; i < rows; i++) {
                        sum += x[i + j * rows];
                        abs_sum += fabs(x[i + j * rows]);
                    }
                    want[j] = (accumulate ? out[j] : 0.0) + sum;
                    if (abs_sum > worst_abs) worst_abs = abs_sum;
                }
                char what[120];
                snprintf(what, sizeof what, "sum_columns of (%lld, %lld) %s data, accumulate=%d",
                         (long long)rows, (long long)cols,
                         kind == INTEGER ? "integer (exact)" : "real", accumulate);
                if (kind == INTEGER)
                    check_close(what, got, want, cols, 0, 0.0, 0.0);
                else
                    check_close(what, got, want, cols, 0, 1e-4, 1e-6 * worst_abs);
                cudaFree(x_d), cudaFree(out_d);
                free(x), free(out), free(got), free(want);
            }
        }
    }
}
END_TEST

START_TEST(test_sum_columns_empty_and_invalid_arguments)
{
    require_device();
    float old[3] = {1.0f, 2.0f, 3.0f}, got[3];
    float *out_d = to_device(old, sizeof old), *x_d = to_device(NULL, 16 * sizeof(float));
    double zeros[3] = {0.0, 0.0, 0.0}, same[3] = {1.0, 2.0, 3.0};
    /* rows == 0: the sum of nothing is 0, or the old values when accumulating. */
    CUDA_OK(k_sum_columns(NULL, out_d, 0, 3, 1, 0));
    from_device(got, out_d, sizeof got);
    check_close("sum_columns of (0, 3) with accumulate=1 (must not change out)", got, same, 3, 0,
                0.0, 0.0);
    CUDA_OK(k_sum_columns(NULL, out_d, 0, 3, 0, 0));
    from_device(got, out_d, sizeof got);
    check_close("sum_columns of (0, 3) with accumulate=0", got, zeros, 3, 0, 0.0, 0.0);
    CUDA_OK(k_sum_columns(NULL, NULL, 5, 0, 0, 0)); /* no columns: nothing to do */
    CUDA_INVALID(k_sum_columns(x_d, out_d, -1, 3, 0, 0));
    CUDA_INVALID(k_sum_columns(x_d, out_d, 4, -3, 0, 0));
    CUDA_INVALID(k_sum_columns(NULL, out_d, 4, 3, 0, 0));
    CUDA_INVALID(k_sum_columns(x_d, NULL, 4, 3, 0, 0));
    CUDA_INVALID(k_sum_columns(x_d, out_d, (int64_t)1 << 31, 1, 0, 0));
    CUDA_OK(cudaGetLastError());
    cudaFree(out_d), cudaFree(x_d);
}
END_TEST

/* A vector whose scale changes every 97 entries (1, 2 or 4). */
static float *random_vector(int64_t n, uint64_t seed, int kind)
{
    TestRng r = {seed};
    float *p = new_floats(n);
    for (int64_t i = 0; i < n; i++) p[i] = entry(&r, ldexp(1.0, (int)((i / 97) % 3)), kind);
    return p;
}

START_TEST(test_sum_matches_cpu)
{
    require_device();
    /* 140001 > 512 blocks x 256 threads: the grid-stride loop takes a second lap
     * (the largest size runs once, with integers, to keep the simulator quick). */
    static const int64_t sizes[] = {1, 37, 257, 1000, 30001, 140001};
    const size_t n_sizes = sizeof sizes / sizeof sizes[0];
    for (size_t t = 0; t < n_sizes; t++) {
        for (int kind = t + 1 < n_sizes ? REAL : INTEGER; kind <= INTEGER; kind++) {
            int64_t n = sizes[t];
            float *x = random_vector(n, 900 + t, kind);
            float junk = 12345.0f, got;
            float *x_d = to_device(x, (size_t)n * sizeof(float));
            float *out_d = to_device(&junk, sizeof junk); /* the wrapper must zero it */
            CUDA_OK(k_sum(x_d, n, out_d, 0));
            from_device(&got, out_d, sizeof got);
            double want = 0.0, abs_sum = 0.0;
            for (int64_t i = 0; i < n; i++) {
                want += x[i];
                abs_sum += fabs(x[i]);
            }
            char what[80];
            snprintf(what, sizeof what, "sum of %lld %s values", (long long)n,
                     kind == INTEGER ? "integer (exact)" : "real");
            if (kind == INTEGER)
                check_close(what, &got, &want, 1, 0, 0.0, 0.0);
            else
                check_close(what, &got, &want, 1, 0, 1e-4, 1e-6 * abs_sum);
            cudaFree(x_d), cudaFree(out_d);
            free(x);
        }
    }
}
END_TEST

START_TEST(test_sum_empty_and_invalid_arguments)
{
    require_device();
    float junk = 5.0f, got;
    double zero = 0.0;
    float *out_d = to_device(&junk, sizeof junk), *x_d = to_device(NULL, 16 * sizeof(float));
    CUDA_OK(k_sum(NULL, 0, out_d, 0)); /* the sum of nothing is 0 */
    from_device(&got, out_d, sizeof got);
    check_close("sum of 0 values", &got, &zero, 1, 0, 0.0, 0.0);
    CUDA_INVALID(k_sum(x_d, -1, out_d, 0));
    CUDA_INVALID(k_sum(x_d, 16, NULL, 0));
    CUDA_INVALID(k_sum(NULL, 16, out_d, 0));
    CUDA_INVALID(k_sum(x_d, (int64_t)1 << 31, out_d, 0));
    CUDA_OK(cudaGetLastError());
    cudaFree(out_d), cudaFree(x_d);
}
END_TEST

/* ---- softmax_ce.cu ------------------------------------------------------- */

/* Logits (n, c) with uneven column scales; every 5th row is shifted by +100,
 * which overflows exp in float unless the row maximum is subtracted first. */
static float *random_logits(int64_t n, int64_t c, uint64_t seed)
{
    float *z = random_matrix(n, c, n, seed, REAL);
    for (int64_t j = 0; j < c; j++)
        for (int64_t i = 0; i < n; i += 5) z[i + j * n] += 100.0f;
    return z;
}

static int32_t *random_targets(int64_t n, int64_t c, uint64_t seed)
{
    TestRng r = {seed};
    int32_t *t = malloc((size_t)n * sizeof(int32_t));
    ck_assert_ptr_nonnull(t);
    for (int64_t i = 0; i < n; i++) t[i] = (int32_t)(rng_next(&r) % (uint64_t)c);
    return t;
}

/* probs (n, c) and the mean loss in double: the reference for the forward kernel. */
static double softmax_ce_reference(const float *z, const int32_t *t, double *probs, int64_t n,
                                   int64_t c)
{
    double total = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double m = z[i], sum = 0.0;
        for (int64_t j = 1; j < c; j++) m = fmax(m, z[i + j * n]);
        for (int64_t j = 0; j < c; j++) sum += exp(z[i + j * n] - m);
        for (int64_t j = 0; j < c; j++) probs[i + j * n] = exp(z[i + j * n] - m) / sum;
        total += (t[i] >= 0 && t[i] < c) ? m + log(sum) - z[i + t[i] * n] : NAN;
    }
    return total / (double)n;
}

static const int64_t softmax_shapes[][2] = {{1, 1}, {1, 4}, {37, 3}, {257, 10}, {130, 37}};
#define N_SOFTMAX_SHAPES (sizeof softmax_shapes / sizeof softmax_shapes[0])

START_TEST(test_softmax_ce_forward_matches_cpu)
{
    require_device();
    for (size_t s = 0; s < N_SOFTMAX_SHAPES; s++) {
        int64_t n = softmax_shapes[s][0], c = softmax_shapes[s][1];
        size_t bytes = (size_t)(n * c) * sizeof(float);
        float *z = random_logits(n, c, 1000 + s);
        int32_t *t = random_targets(n, c, 1100 + s);
        float *got = new_floats(n * c), junk = 1e6f, loss;
        double *want = new_doubles(n * c);
        float *z_d = to_device(z, bytes), *p_d = to_device(NULL, bytes);
        float *loss_d = to_device(&junk, sizeof junk); /* the wrapper must zero it */
        int32_t *t_d = to_device(t, (size_t)n * sizeof(int32_t));
        CUDA_OK(k_softmax_ce_forward(z_d, t_d, p_d, loss_d, n, c, 0));
        from_device(got, p_d, bytes);
        from_device(&loss, loss_d, sizeof loss);
        double want_loss = softmax_ce_reference(z, t, want, n, c);
        char what[80];
        snprintf(what, sizeof what, "softmax probs of logits (%lld, %lld)", (long long)n,
                 (long long)c);
        check_close(what, got, want, n * c, n, 1e-5, 1e-7);
        snprintf(what, sizeof what, "mean cross-entropy of logits (%lld, %lld)", (long long)n,
                 (long long)c);
        check_close(what, &loss, &want_loss, 1, 0, 1e-5, 1e-6);
        cudaFree(z_d), cudaFree(p_d), cudaFree(loss_d), cudaFree(t_d);
        free(z), free(t), free(got), free(want);
    }
}
END_TEST

/* The loss must not depend on the order in which threads finish (atomicAdd's does: the
 * simulator runs every other block's threads last to first, a GPU in any order), or a
 * resumed training run would not report the losses of the run it continues. */
START_TEST(test_softmax_ce_forward_same_bits_every_run)
{
    require_device();
    const int64_t shapes[][2] = {{130, 10}, {1000, 7}};
    for (size_t s = 0; s < 2; s++) {
        int64_t n = shapes[s][0], c = shapes[s][1];
        size_t bytes = (size_t)(n * c) * sizeof(float);
        float *z = random_logits(n, c, 1600 + s);
        int32_t *t = random_targets(n, c, 1700 + s);
        float *z_d = to_device(z, bytes), *p_d = to_device(NULL, bytes), *loss_d = to_device(NULL, 4);
        int32_t *t_d = to_device(t, (size_t)n * sizeof(int32_t));
        uint32_t first = 0;
        for (int run = 0; run < 4; run++) {
            float loss;
            uint32_t bits;
            CUDA_OK(k_softmax_ce_forward(z_d, t_d, p_d, loss_d, n, c, 0));
            from_device(&loss, loss_d, sizeof loss);
            memcpy(&bits, &loss, sizeof bits);
            if (run == 0) first = bits;
            ck_assert_msg(bits == first, "loss of logits (%lld, %lld): run %d gave %a, run 0 "
                          "gave bits %08x: the sum depends on the order threads run in",
                          (long long)n, (long long)c, run, (double)loss, first);
        }
        cudaFree(z_d), cudaFree(p_d), cudaFree(loss_d), cudaFree(t_d);
        free(z), free(t);
    }
}
END_TEST

START_TEST(test_softmax_ce_backward_matches_cpu)
{
    require_device();
    for (size_t s = 0; s < N_SOFTMAX_SHAPES; s++) {
        int64_t n = softmax_shapes[s][0], c = softmax_shapes[s][1];
        size_t bytes = (size_t)(n * c) * sizeof(float);
        /* Any positive "probabilities" will do: the kernel only subtracts and divides. */
        float *p = random_matrix(n, c, n, 1200 + s, REAL);
        for (int64_t k = 0; k < n * c; k++) p[k] = fabsf(p[k]) / 8.0f;
        int32_t *t = random_targets(n, c, 1300 + s);
        float *got = new_floats(n * c);
        double *want = new_doubles(n * c);
        float *p_d = to_device(p, bytes), *d_d = to_device(NULL, bytes);
        int32_t *t_d = to_device(t, (size_t)n * sizeof(int32_t));
        CUDA_OK(k_softmax_ce_backward(p_d, t_d, d_d, n, c, 0));
        from_device(got, d_d, bytes);
        for (int64_t j = 0; j < c; j++)
            for (int64_t i = 0; i < n; i++)
                want[i + j * n] = ((double)p[i + j * n] - (j == t[i] ? 1.0 : 0.0)) / (double)n;
        char what[80];
        snprintf(what, sizeof what, "dlogits (%lld, %lld)", (long long)n, (long long)c);
        check_close(what, got, want, n * c, n, 1e-6, 1e-9);
        cudaFree(p_d), cudaFree(d_d), cudaFree(t_d);
        free(p), free(t), free(got), free(want);
    }
}
END_TEST

START_TEST(test_softmax_ce_bad_label_gives_nan)
{
    require_device();
    const int64_t n = 37, c = 5;
    size_t bytes = (size_t)(n * c) * sizeof(float);
    float *z = random_logits(n, c, 1400);
    int32_t *t = random_targets(n, c, 1500);
    t[3] = (int32_t)c; /* one past the last class */
    t[7] = -1;
    float *got = new_floats(n * c), loss;
    double *want = new_doubles(n * c);
    float *z_d = to_device(z, bytes), *p_d = to_device(NULL, bytes), *loss_d = to_device(NULL, 4);
    int32_t *t_d = to_device(t, (size_t)n * sizeof(int32_t));
    CUDA_OK(k_softmax_ce_forward(z_d, t_d, p_d, loss_d, n, c, 0));
    from_device(&loss, loss_d, sizeof loss);
    ck_assert_msg(isnan(loss), "labels 5 (row 3) and -1 (row 7) with 5 classes gave loss %g, "
                  "expected NaN", (double)loss);
    from_device(got, p_d, bytes);
    softmax_ce_reference(z, t, want, n, c);
    check_close("softmax probs with two bad labels (still computed)", got, want, n * c, n, 1e-5,
                1e-7);
    CUDA_OK(k_softmax_ce_backward(p_d, t_d, p_d, n, c, 0)); /* in place, as lib may do */
    from_device(got, p_d, bytes);
    for (int64_t j = 0; j < c; j++)
        for (int64_t i = 0; i < n; i++)
            want[i + j * n] = (i == 3 || i == 7)
                                  ? NAN
                                  : (want[i + j * n] - (j == t[i] ? 1.0 : 0.0)) / (double)n;
    check_close("dlogits with bad labels in rows 3 and 7 (those rows NaN)", got, want, n * c, n,
                1e-5, 1e-7);
    cudaFree(z_d), cudaFree(p_d), cudaFree(loss_d), cudaFree(t_d);
    free(z), free(t), free(got), free(want);
}
END_TEST

START_TEST(test_softmax_ce_empty_and_invalid_arguments)
{
    require_device();
    float junk = 1.0f, loss;
    float *loss_d = to_device(&junk, sizeof junk), *a = to_device(NULL, 64 * sizeof(float));
    int32_t *t_d = to_device(NULL, 16 * sizeof(int32_t));
    CUDA_OK(k_softmax_ce_forward(NULL, NULL, NULL, loss_d, 0, 3, 0)); /* mean of nothing */
    from_device(&loss, loss_d, sizeof loss);
    ck_assert_msg(isnan(loss), "an empty batch gave loss %g, expected NaN (as PyTorch)",
                  (double)loss);
    CUDA_OK(k_softmax_ce_backward(NULL, NULL, NULL, 0, 3, 0));
    CUDA_INVALID(k_softmax_ce_forward(a, t_d, a, loss_d, -1, 3, 0));
    CUDA_INVALID(k_softmax_ce_forward(a, t_d, a, loss_d, 4, -3, 0));
    CUDA_INVALID(k_softmax_ce_forward(a, t_d, a, loss_d, 4, 0, 0)); /* no classes */
    CUDA_INVALID(k_softmax_ce_forward(NULL, t_d, a, loss_d, 4, 3, 0));
    CUDA_INVALID(k_softmax_ce_forward(a, NULL, a, loss_d, 4, 3, 0));
    CUDA_INVALID(k_softmax_ce_forward(a, t_d, NULL, loss_d, 4, 3, 0));
    CUDA_INVALID(k_softmax_ce_forward(a, t_d, a, NULL, 4, 3, 0));
    CUDA_INVALID(k_softmax_ce_forward(a, t_d, a, loss_d, (int64_t)1 << 20, (int64_t)1 << 12, 0));
    CUDA_INVALID(k_softmax_ce_backward(a, t_d, a, -1, 3, 0));
    CUDA_INVALID(k_softmax_ce_backward(NULL, t_d, a, 4, 3, 0));
    CUDA_INVALID(k_softmax_ce_backward(a, NULL, a, 4, 3, 0));
    CUDA_INVALID(k_softmax_ce_backward(a, t_d, NULL, 4, 3, 0));
    CUDA_OK(cudaGetLastError());
    cudaFree(loss_d), cudaFree(a), cudaFree(t_d);
}
END_TEST

/* ---- sgemm.cu ------------------------------------------------------------ */

typedef struct {
    int64_t M, N, K, lda, ldb, ldc;
    float alpha, beta;
    const char *why;
} GemmCase;

static const GemmCase gemm_cases[] = {
    {37, 53, 29, 40, 31, 45, 1.5f, 0.0f, "padded leading dimensions; beta 0 (C holds NaN)"},
    {64, 64, 64, 64, 64, 64, 0.75f, -0.5f, "whole tiles"},
    {130, 70, 33, 130, 33, 130, 1.0f, 1.0f, "partial tiles in M, N and K"},
    {1, 1, 1, 1, 1, 1, 2.0f, 0.5f, "1x1x1"},
    {5, 70, 40, 5, 40, 5, -1.0f, 0.25f, "few rows, K over one tile"},
};
#define N_GEMM_CASES ((int)(sizeof gemm_cases / sizeof gemm_cases[0]))

#define C_GUARD 12345.0f /* in C's padding rows [M, ldc): must survive */

/* Loop index v * N_GEMM_CASES + c: variant v on case c. */
START_TEST(test_sgemm_matches_cpu)
{
    require_device();
    int variant = _i / N_GEMM_CASES;
    const GemmCase *g = &gemm_cases[_i % N_GEMM_CASES];
    const int64_t M = g->M, N = g->N, K = g->K, lda = g->lda, ldb = g->ldb, ldc = g->ldc;
    float *A = random_matrix(M, K, lda, 2000 + (uint64_t)_i, REAL);
    float *B = random_matrix(K, N, ldb, 3000 + (uint64_t)_i, REAL);
    float *C = random_matrix(M, N, ldc, 4000 + (uint64_t)_i, REAL);
    for (int64_t j = 0; j < N; j++)
        for (int64_t i = 0; i < ldc; i++)
            if (i >= M) C[i + j * ldc] = C_GUARD;
            else if (g->beta == 0.0f) C[i + j * ldc] = NAN; /* must not be read */
    size_t a_bytes = (size_t)(lda * K) * sizeof(float), b_bytes = (size_t)(ldb * N) * sizeof(float);
    size_t c_bytes = (size_t)(ldc * N) * sizeof(float);
    float *A_d = to_device(A, a_bytes), *B_d = to_device(B, b_bytes), *C_d = to_device(C, c_bytes);
    float *got = new_floats(ldc * N);
    double *want = new_doubles(ldc * N);

    CUDA_OK(k_sgemm(variant, M, N, K, g->alpha, A_d, lda, B_d, ldb, g->beta, C_d, ldc, 0));
    from_device(got, C_d, c_bytes);
    for (int64_t j = 0; j < N; j++)
        for (int64_t i = 0; i < ldc; i++) {
            if (i >= M) {
                want[i + j * ldc] = C_GUARD;
                continue;
            }
            double acc = 0.0;
            for (int64_t k = 0; k < K; k++) acc += (double)A[i + k * lda] * B[k + j * ldb];
            want[i + j * ldc] =
                g->alpha * acc + (g->beta != 0.0f ? (double)g->beta * C[i + j * ldc] : 0.0);
        }
    char what[200];
    snprintf(what, sizeof what,
             "sgemm variant %d (%s), M=%lld N=%lld K=%lld lda=%lld ldb=%lld ldc=%lld alpha=%g "
             "beta=%g [%s]; C",
             variant, k_sgemm_name(variant), (long long)M, (long long)N, (long long)K,
             (long long)lda, (long long)ldb, (long long)ldc, (double)g->alpha, (double)g->beta,
             g->why);
    check_close(what, got, want, ldc * N, ldc, 1e-4, 1e-4 * (double)(K + 1));

    cudaFree(A_d), cudaFree(B_d), cudaFree(C_d);
    free(A), free(B), free(C), free(got), free(want);
}
END_TEST

START_TEST(test_sgemm_with_k_zero_scales_c)
{
    require_device();
    const int64_t M = 20, N = 30;
    size_t bytes = (size_t)(M * N) * sizeof(float);
    float *C = random_matrix(M, N, M, 5000, REAL), *got = new_floats(M * N);
    double *want = new_doubles(M * N);
    for (int variant = 0; variant < K_SGEMM_VARIANTS; variant++) {
        char what[80];
        float *C_d = to_device(C, bytes);
        /* K == 0: A * B is zero, so C = beta * C; A and B are not needed. */
        CUDA_OK(k_sgemm(variant, M, N, 0, 1.0f, NULL, M, NULL, 1, -2.0f, C_d, M, 0));
        from_device(got, C_d, bytes);
        for (int64_t k = 0; k < M * N; k++) want[k] = -2.0 * C[k];
        snprintf(what, sizeof what, "sgemm variant %d with K = 0, beta = -2", variant);
        check_close(what, got, want, M * N, M, 0.0, 0.0);
        /* ... and with beta == 0, C becomes 0 even where it held NaN. */
        float nan_value = NAN;
        CUDA_OK(cudaMemcpy(C_d, &nan_value, sizeof nan_value, cudaMemcpyHostToDevice));
        CUDA_OK(k_sgemm(variant, M, N, 0, 1.0f, NULL, M, NULL, 1, 0.0f, C_d, M, 0));
        from_device(got, C_d, bytes);
        for (int64_t k = 0; k < M * N; k++) want[k] = 0.0;
        snprintf(what, sizeof what, "sgemm variant %d with K = 0, beta = 0", variant);
        check_close(what, got, want, M * N, M, 0.0, 0.0);
        cudaFree(C_d);
    }
    free(C), free(got), free(want);
}
END_TEST

START_TEST(test_sgemm_invalid_arguments_and_names)
{
    require_device();
    float *A = to_device(NULL, 64 * sizeof(float)), *B = to_device(NULL, 64 * sizeof(float));
    float *C = to_device(NULL, 64 * sizeof(float));
    for (int v = 0; v < K_SGEMM_VARIANTS; v++) {
        /* Empty products: nothing to do, nothing launched. */
        CUDA_OK(k_sgemm(v, 0, 4, 4, 1.0f, NULL, 1, NULL, 4, 0.0f, NULL, 1, 0));
        CUDA_OK(k_sgemm(v, 4, 0, 4, 1.0f, NULL, 4, NULL, 4, 0.0f, NULL, 4, 0));
        /* Negative sizes, leading dimensions below the BLAS minimum, NULL data. */
        CUDA_INVALID(k_sgemm(v, -1, 4, 4, 1.0f, A, 4, B, 4, 0.0f, C, 4, 0));
        CUDA_INVALID(k_sgemm(v, 4, -1, 4, 1.0f, A, 4, B, 4, 0.0f, C, 4, 0));
        CUDA_INVALID(k_sgemm(v, 4, 4, -1, 1.0f, A, 4, B, 4, 0.0f, C, 4, 0));
        CUDA_INVALID(k_sgemm(v, 4, 4, 4, 1.0f, A, 3, B, 4, 0.0f, C, 4, 0));  /* lda < M */
        CUDA_INVALID(k_sgemm(v, 4, 4, 5, 1.0f, A, 4, B, 4, 0.0f, C, 4, 0));  /* ldb < K */
        CUDA_INVALID(k_sgemm(v, 4, 4, 4, 1.0f, A, 4, B, 4, 0.0f, C, 3, 0));  /* ldc < M */
        CUDA_INVALID(k_sgemm(v, 0, 4, 4, 1.0f, A, 0, B, 4, 0.0f, C, 1, 0));  /* lda < 1 */
        CUDA_INVALID(k_sgemm(v, 4, 4, 4, 1.0f, NULL, 4, B, 4, 0.0f, C, 4, 0));
        CUDA_INVALID(k_sgemm(v, 4, 4, 4, 1.0f, A, 4, NULL, 4, 0.0f, C, 4, 0));
        CUDA_INVALID(k_sgemm(v, 4, 4, 4, 1.0f, A, 4, B, 4, 0.0f, NULL, 4, 0));
        /* Too big for the kernels' int indices (nothing is launched, so the small
         * buffers are never touched). */
        CUDA_INVALID(k_sgemm(v, 10, 10, (int64_t)1 << 12, 1.0f, A, (int64_t)1 << 20, B,
                             (int64_t)1 << 12, 0.0f, C, 10, 0));
        CUDA_INVALID(k_sgemm(v, 1, 10, (int64_t)1 << 31, 1.0f, A, 1, B, (int64_t)1 << 31, 0.0f,
                             C, 1, 0));
    }
    CUDA_INVALID(k_sgemm(-1, 4, 4, 4, 1.0f, A, 4, B, 4, 0.0f, C, 4, 0));
    CUDA_INVALID(k_sgemm(K_SGEMM_VARIANTS, 4, 4, 4, 1.0f, A, 4, B, 4, 0.0f, C, 4, 0));
    CUDA_OK(cudaGetLastError());
    ck_assert_str_eq(k_sgemm_name(0), "naive");
    ck_assert_str_eq(k_sgemm_name(1), "tiled (shared memory)");
    ck_assert_str_eq(k_sgemm_name(2), "register-blocked 4x4");
    ck_assert_str_eq(k_sgemm_name(3), "unknown");
    ck_assert_str_eq(k_sgemm_name(-1), "unknown");
    cudaFree(A), cudaFree(B), cudaFree(C);
}
END_TEST

/* ---- Lesson 03's transpose (exercise 03.4; the answer is linked here) ----- */

static const int64_t transpose_shapes[][2] = {{1, 1}, {3, 5}, {32, 32}, {33, 1}, {70, 45}, {64, 96}};

START_TEST(test_transpose_matches_cpu)
{
    require_device();
#ifdef CUDASIM
    (void)cudasim_model_start(); /* the profiler counts each launch's accesses from now on */
#endif
    for (size_t t = 0; t < sizeof transpose_shapes / sizeof *transpose_shapes; t++) {
        int64_t rows = transpose_shapes[t][0], cols = transpose_shapes[t][1], n = rows * cols;
        size_t bytes = (size_t)n * sizeof(float);
        float *x = random_matrix(rows, cols, rows, 300 + t, REAL), *got = new_floats(n);
        double *want = new_doubles(n);
        float *x_d = to_device(x, bytes), *y_d = to_device(NULL, bytes);
        CUDA_OK(k_transpose(x_d, y_d, rows, cols, 0));
        from_device(got, y_d, bytes);
        for (int64_t j = 0; j < cols; j++)
            for (int64_t i = 0; i < rows; i++) want[j + i * cols] = x[i + j * rows];
        char what[64];
        snprintf(what, sizeof what, "transpose of (%lld, %lld)", (long long)rows, (long long)cols);
        check_close(what, got, want, n, 0, 0.0, 0.0);
#ifdef CUDASIM
        if (rows % 32 == 0 && cols % 32 == 0) {
            /* Whole tiles: each warp instruction moves 32 floats, 128 bytes, in 4 sectors
             * of global memory or 1 wavefront of shared memory, the padding keeping the
             * tile's columns in 32 banks. */
            CudasimCounters c;
            unsigned long long inst = (unsigned long long)(n / 32);
            ck_assert_int_eq(cudasim_profile_last(&c), 0);
            ck_assert_msg(c.counted && c.ld_requests == inst && c.ld_sectors == 4 * inst &&
                              c.st_requests == inst && c.st_sectors == 4 * inst &&
                              c.sh_st_inst == inst && c.sh_st_wavefronts == inst &&
                              c.sh_ld_inst == inst && c.sh_ld_wavefronts == inst,
                          "%s: loads %llu requests, %llu sectors; stores %llu, %llu; shared "
                          "stores %llu instructions, %llu wavefronts; loads %llu, %llu; expected "
                          "%llu requests or instructions, 4 sectors or 1 wavefront each",
                          what, c.ld_requests, c.ld_sectors, c.st_requests, c.st_sectors,
                          c.sh_st_inst, c.sh_st_wavefronts, c.sh_ld_inst, c.sh_ld_wavefronts,
                          inst);
        }
#endif
        cudaFree(x_d), cudaFree(y_d);
        free(x), free(got), free(want);
    }
    float *a = to_device(NULL, 64);
    CUDA_INVALID(k_transpose(a, a, -1, 4, 0));
    CUDA_INVALID(k_transpose(a, a, 65536, 65536, 0));
    CUDA_INVALID(k_transpose(NULL, a, 4, 4, 0));
    unsigned long long before = launches();
    CUDA_OK(k_transpose(NULL, NULL, 0, 4, 0));
    ck_assert_uint_eq(launches(), before);
    cudaFree(a);
}
END_TEST

/* ---- the suite ----------------------------------------------------------- */

Suite *kernels_suite(void)
{
    Suite *s = suite_create("kernels");
    TCase *tc = tcase_create("elementwise");
    tcase_set_timeout(tc, 60); /* the simulator runs every CUDA thread on the CPU */
    tcase_add_test(tc, test_a_cuda_device_is_present);
    tcase_add_test(tc, test_relu_forward_and_backward_match_cpu);
    tcase_add_test(tc, test_sgd_step_matches_cpu);
    tcase_add_test(tc, test_add_bias_adds_b_j_to_column_j);
    tcase_add_test(tc, test_fill_sets_exactly_n_values);
    tcase_add_test(tc, test_elementwise_empty_and_invalid_arguments);
    suite_add_tcase(s, tc);

    tc = tcase_create("reduce");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_sum_columns_matches_cpu);
    tcase_add_test(tc, test_sum_columns_empty_and_invalid_arguments);
    tcase_add_test(tc, test_sum_matches_cpu);
    tcase_add_test(tc, test_sum_empty_and_invalid_arguments);
    suite_add_tcase(s, tc);

    tc = tcase_create("softmax_ce");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_softmax_ce_forward_matches_cpu);
    tcase_add_test(tc, test_softmax_ce_forward_same_bits_every_run);
    tcase_add_test(tc, test_softmax_ce_backward_matches_cpu);
    tcase_add_test(tc, test_softmax_ce_bad_label_gives_nan);
    tcase_add_test(tc, test_softmax_ce_empty_and_invalid_arguments);
    suite_add_tcase(s, tc);

    tc = tcase_create("sgemm");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_sgemm_matches_cpu, 0, K_SGEMM_VARIANTS * N_GEMM_CASES);
    tcase_add_test(tc, test_sgemm_with_k_zero_scales_c);
    tcase_add_test(tc, test_sgemm_invalid_arguments_and_names);
    suite_add_tcase(s, tc);

    tc = tcase_create("transpose");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_transpose_matches_cpu);
    suite_add_tcase(s, tc);
    return s;
}
