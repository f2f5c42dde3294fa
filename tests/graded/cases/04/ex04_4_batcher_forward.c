/*
 * ex04_4_batcher_forward.c: the cases of exercise 04.4, batcher_forward:
 * batched inference through a callable that keeps model, device and batch size.
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out and what the harness saw) and a JUDGE half (in the judge: decide),
 * see ../graded.h.
 */
#include "suite.h"

/* ---- ex04.4 batcher_forward ---------------------------------------------------------------- */

#ifdef GRADE_RUNNER
/* The rows the batcher gets: (n, 6), uniform in [-2, 2]. */
static Tensor *batch_input(int64_t n, uint64_t seed)
{
    Tensor *x = tensor_new_2d(n, 6);
    ck_assert_ptr_nonnull(x);
    Rng rng;
    rng_seed(&rng, seed, 0);
    if (n) ck_assert_int_eq(tensor_uniform(x, &rng, -2.0f, 2.0f), ERR_OK);
    return x;
}

#ifdef GRADE_REFERENCE
/* The model's output for x in one forward on the CPU, no batcher and no hooks
 * (module_forward, so no exercise of this lesson runs). */
static void put_reference(const char *k, const Tensor *x)
{
    Module *m = small_model();
    const Tensor *y;
    ck_assert_msg(module_forward(m, x, &y) == ERR_OK, "reference forward: %s", err_message());
    put_f32(k, tensor_f32(y), y->shape[0] * y->shape[1]);
    module_free(m);
}
#endif
#endif

#ifdef GRADE_JUDGE
/* The batcher's call k on n rows in chunks of batch: it worked, and its output
 * is the reference want, in order. */
static void expect_batched(const char *k, const char *want, int64_t n, int64_t batch)
{
    expect_written(k, "batcher_forward");
    if (got_rc(k) != ERR_OK) ck_abort_msg("the batcher failed: %s", got_rc_msg(k));
    int64_t rows = got_i64(key("%s.rows", k));
    ck_assert_msg(rows == n, "the output has %lld rows, expected %lld", (long long)rows,
                  (long long)n);
    const float *got = got_f32(key("%s.y", k), n * 3), *w = ref_f32(want, n * 3);
    /* The reference ran on the CPU, the batcher on the device: close, not equal. */
    for (int64_t j = 0; j < 3; j++)
        for (int64_t i = 0; i < n; i++) {
            double g = got[i + j * n], wv = w[i + j * n];
            ck_assert_msg(isfinite(g) && fabs(g - wv) <= 1e-5 + 1e-4 * fabs(wv),
                          "output (%lld, %lld) is %g, expected %g (n = %lld, batch %lld: rows "
                          "out of order, or a chunk lost?)",
                          (long long)i, (long long)j, g, wv, (long long)n, (long long)batch);
        }
}

static void expect_inference_mode(const char *k)
{
    int64_t made = got_i64(key("%s.tensors_made", k));
    ck_assert_msg(made == 1,
                  "after the batcher, %lld tensors more are alive than before; expected 1, the "
                  "output: free each chunk's tensors (the chunk, its copy on the device, the "
                  "copy back) once its rows are put in the output",
                  (long long)made);
    ck_assert_msg(got_i64(key("%s.grad_enabled", k)),
                  "batcher_forward must restore the gradient mode");
    ck_assert_msg(!got_i64(key("%s.fc1_input", k)),
                  "after the batcher, fc1 still holds an input: run the model with gradients "
                  "disabled (module_set_grad_enabled(false)) so nothing is kept for backward");
}

static void expect_copies(const char *k, int64_t n, int64_t batch)
{
    int64_t copies = got_i64(key("%s.copies_h2d", k)), chunks = (n + batch - 1) / batch;
    ck_assert_msg(copies == chunks,
                  "n = %lld in chunks of %lld: %lld copies to the device, expected %lld (move each "
                  "chunk once)",
                  (long long)n, (long long)batch, (long long)copies, (long long)chunks);
    int64_t bytes = got_i64(key("%s.bytes_h2d", k)), want = n * 6 * (int64_t)sizeof(float);
    ck_assert_msg(bytes == want,
                  "n = %lld rows of 6 floats in chunks of %lld: %lld bytes copied to the device, "
                  "expected %lld (each chunk holds at most %lld rows, and each row is moved "
                  "once)",
                  (long long)n, (long long)batch, (long long)bytes, (long long)want,
                  (long long)batch);
}
#endif

/* batcher_chunks: (rows, batch size). */
static const int64_t chunk_cases[][2] = {{10, 4}, {12, 4}, {3, 8}, {1, 1}};

#ifdef GRADE_RUNNER
RUN(batcher_chunks)
{
    for (int k = 0; k < 4; k++) {
        Tensor *x = batch_input(chunk_cases[k][0], 99);
#ifdef GRADE_REFERENCE
        put_reference(key("c%d.want", k), x);
#else
        Module *m = small_model();
        Callable b = batcher(m, chunk_cases[k][1]);
        put_batcher_call(key("c%d", k), b, m, x);
        callable_release(b);
        module_free(m);
#endif
        tensor_free(x);
    }
}

RUN(batcher_empty)
{
    /* No rows; then 5 rows with the same batcher. */
    Tensor *none = batch_input(0, 99), *x = batch_input(5, 5);
#ifdef GRADE_REFERENCE
    put_reference("after.want", x);
#else
    Module *m = small_model();
    Callable b = batcher(m, 4);
    put_batcher_call("empty", b, m, none);
    put_batcher_call("after", b, m, x);
    callable_release(b);
    module_free(m);
#endif
    tensor_free(none);
    tensor_free(x);
}

RUN(batcher_grad_off)
{
    /* Gradients already disabled by the caller (inside its own no_grad). */
    Tensor *x = batch_input(10, 3);
#ifdef GRADE_REFERENCE
    put_reference("off.want", x);
#else
    Module *m = small_model();
    Callable b = batcher(m, 4);
    module_set_grad_enabled(false);
    put_batcher_call("off", b, m, x);
    module_set_grad_enabled(true);
    callable_release(b);
    module_free(m);
#endif
    tensor_free(x);
}
#endif

#if defined(GRADE_RUNNER) && !defined(GRADE_REFERENCE)
/* The model's ReLU, made to fail at its fail_at-th forward from now (0: never). */
static ModuleOps failing_ops;
static int (*relu_forward_op)(Module *, const Tensor *, const Tensor **);
static int relu_calls, fail_at;

static int failing_forward(Module *self, const Tensor *x, const Tensor **y)
{
    if (++relu_calls == fail_at)
        return err_set(ERR_NUMERIC, "the grader's layer fails on chunk %d", relu_calls);
    return relu_forward_op(self, x, y);
}

RUN(batcher_model_fails)
{
    Module *m = small_model();
    Module *relu = m->children[1];
    failing_ops = *relu->ops;
    relu_forward_op = relu->ops->forward;
    failing_ops.forward = failing_forward;
    relu->ops = &failing_ops;
    Callable b = batcher(m, 4);
    Tensor *x = batch_input(12, 12);
    /* Once through (so the model's own buffers on the device exist), then a
     * call whose second chunk fails, then one more that works. */
    put_batcher_call("first", b, m, x);
    relu_calls = 0, fail_at = 2;
    size_t before = counters_get().mem_in_use;
    put_batcher_call("fails", b, m, x);
    put_i64("fails.mem_before", (int64_t)before);
    put_i64("fails.mem_after", (int64_t)counters_get().mem_in_use);
    /* And once more, without a failure. */
    fail_at = 0;
    before = counters_get().mem_in_use;
    put_batcher_call("again", b, m, x);
    put_i64("again.mem_before", (int64_t)before);
    put_i64("again.mem_after", (int64_t)counters_get().mem_in_use);
    callable_release(b);
    module_free(m);
    tensor_free(x);
}
#elif defined(GRADE_RUNNER)
RUN(batcher_model_fails) {}
#endif

#ifdef GRADE_JUDGE
JUDGE(batcher_chunks)
{
    for (int k = 0; k < 4; k++) {
        int64_t n = chunk_cases[k][0], batch = chunk_cases[k][1];
        const char *c = key("c%d", k);
        expect_written(c, "batcher_forward");
        if (got_rc(c) != ERR_OK) ck_abort_msg("the batcher failed: %s", got_rc_msg(c));
        expect_inference_mode(c);
        expect_batched(c, key("c%d.want", k), n, batch);
        expect_copies(c, n, batch);
    }
}

JUDGE(batcher_empty)
{
    expect_written("empty", "batcher_forward");
    if (got_rc("empty") != ERR_OK) ck_abort_msg("the batcher failed: %s", got_rc_msg("empty"));
    ck_assert_msg(got_i64("empty.rows") == 0, "an empty input must give an empty output");
    int64_t copies = got_i64("empty.copies_h2d"), launches = got_i64("empty.launches");
    ck_assert_msg(copies == 0 && launches == 0,
                  "an empty input must not copy or launch anything (%lld copies, %lld launches)",
                  (long long)copies, (long long)launches);
    expect_inference_mode("empty");
    expect_batched("after", "after.want", 5, 4);
    expect_inference_mode("after");
    expect_copies("after", 5, 4);
}

JUDGE(batcher_grad_off)
{
    expect_batched("off", "off.want", 10, 4);
    ck_assert_msg(!got_i64("off.grad_enabled"),
                  "gradients were disabled before the call and are enabled after it: save "
                  "module_grad_enabled() at the start and restore that value, do not just turn "
                  "gradients back on");
    ck_assert_msg(!got_i64("off.fc1_input"),
                  "after the batcher, fc1 still holds an input: run the model with gradients "
                  "disabled");
    expect_copies("off", 10, 4);
}

JUDGE(batcher_model_fails)
{
    expect_written("first", "batcher_forward");
    if (got_rc("first") != ERR_OK) ck_abort_msg("the batcher failed: %s", got_rc_msg("first"));
    expect_written("fails", "batcher_forward");
    int rc = got_rc("fails");
    ck_assert_msg(rc != ERR_OK,
                  "the model failed on the second of 3 chunks (\"the grader's layer fails on "
                  "chunk 2\"), but the batcher returned 0: return the model's error");
    ck_assert_msg(got_i64("fails.grad_enabled"),
                  "the model failed on the second chunk and the gradient mode stayed disabled "
                  "after the batcher returned: restore it also on an error (the batcher "
                  "returned \"%s\")",
                  got_rc_msg("fails"));
    expect_written("again", "batcher_forward");
    if (got_rc("again") != ERR_OK)
        ck_abort_msg("after a call in which the model failed, the next call failed too: %s",
                     got_rc_msg("again"));
    int64_t before = got_i64("again.mem_before"), after = got_i64("again.mem_after");
    ck_assert_msg(after == before,
                  "a call of the batcher left %lld more bytes of device memory allocated than "
                  "before it: free each chunk's tensors on the device once the chunk is done",
                  (long long)(after - before));
    before = got_i64("fails.mem_before"), after = got_i64("fails.mem_after");
    ck_assert_msg(after == before,
                  "the model failed on the second chunk and %lld bytes of device memory were "
                  "still allocated after the batcher returned: free every temporary tensor, "
                  "also on an error",
                  (long long)(after - before));
}
#endif
