/*
 * ex03_2_predict_chunked.c: the cases of exercise 03.2, predict_chunked: batched
 * inference in chunks.
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out) and a JUDGE half (in the judge: compare), see ../graded.h.
 */
#include "suite.h"

/* ---- ex03.2 predict_chunked ------------------------------------------------------------ */

/* predict_chunked runs: a record prefix, rows, chunk, and the encoder's
 * input and output features (encoder()). */
typedef struct ChunkShape {
    const char *p;
    int64_t n, chunk, in, out;
} ChunkShape;

static const ChunkShape chunk_shapes[] = {
    {"a", 23, 5, 6, 4},  /* the last chunk is short */
    {"b", 24, 6, 6, 4},  /* it is not */
    {"c", 7, 1, 6, 4},   /* one row at a time */
    {"d", 10, 64, 6, 4}, /* one chunk bigger than the input */
};
#define N_CHUNK ((int)(sizeof chunk_shapes / sizeof chunk_shapes[0]))

static const ChunkShape memory_shapes[] = {
    {"a", 23, 5, 6, 4},
    {"b", 10, 64, 6, 4},
};
#define N_MEMORY ((int)(sizeof memory_shapes / sizeof memory_shapes[0]))

static const ChunkShape edge_shapes[] = {
    {"one", 1, 3, 6, 4},   /* a single row, a chunk bigger than it */
    {"tail", 8, 7, 6, 4},  /* a last chunk of one row */
    {"wide", 9, 4, 11, 3}, /* another input width: d comes from x */
};
#define N_EDGE ((int)(sizeof edge_shapes / sizeof edge_shapes[0]))

#define ENC_IN 6  /* the encoder of the argument checks: input features */
#define ENC_OUT 4 /* and outputs */

#ifdef GRADE_RUNNER
/* in -> 9 -> out, on the CPU. */
static Module *encoder(int64_t in, int64_t out)
{
    Rng rng;
    rng_seed(&rng, 5, 0);
    Module *layers[] = {linear_new("fc1", in, 9, &rng), relu_new("relu"),
                        linear_new("fc2", 9, out, &rng)};
    Module *m = sequential_new("encoder", 3, layers);
    ck_assert(m);
    return m;
}

/* A (rows, cols) tensor on d, every value v. */
static Tensor *filled(Device d, int64_t rows, int64_t cols, float v)
{
    Tensor *host = tensor_new_2d(rows, cols), *t = NULL;
    ck_assert_ptr_nonnull(host);
    ck_assert_int_eq(tensor_fill(host, v), ERR_OK);
    ck_assert_int_eq(tensor_to(host, d, &t), ERR_OK);
    tensor_free(host);
    return t;
}

/* Input (n, t->in) and the encoder on d, in evaluation mode. In the reference
 * runner: the one-batch outputs (p.want) and the launches of one forward
 * (p.per_forward). Otherwise predict_chunked's rc, counters (p.launches,
 * p.h2d, p.d2h, p.syncs, p.mem_before, p.mem_after, p.mem_peak) and
 * outputs (p.out). */
static void chunked_run(const ChunkShape *t, Device d)
{
    const char *p = t->p;
    int64_t n = t->n, chunk = t->chunk;
    Rng rng;
    rng_seed(&rng, 17, (uint64_t)chunk);
    Tensor *xc = tensor_new_2d(n, t->in);
    ck_assert_ptr_nonnull(xc);
    ck_assert_int_eq(tensor_uniform(xc, &rng, -2.0f, 2.0f), ERR_OK);
    Module *m = encoder(t->in, t->out);
    ck_assert_int_eq(module_to(m, d), ERR_OK);
    module_train(m, false);
    Tensor *x = NULL, *got = NULL;
    ck_assert_int_eq(tensor_to(xc, d, &x), ERR_OK);
    /* One batch: the answer (in the reference runner); in both, it sizes the
     * model's buffers for n rows, so that no forward of a chunk allocates. */
    const Tensor *y;
    ck_assert_int_eq(module_forward(m, x, &y), ERR_OK);
#ifdef GRADE_REFERENCE
    ck_assert_int_eq(tensor_to(y, device_cpu(), &got), ERR_OK);
    put_f32(key("%s.want", p), tensor_f32(got), n * t->out);
    /* What one forward of a chunk costs, in launches. */
    Tensor *one = filled(d, 1, t->in, 0.5f);
    counters_reset();
    ck_assert_int_eq(module_forward(m, one, &y), ERR_OK);
    put_i64(key("%s.per_forward", p), (int64_t)counters_get().launches);
    tensor_free(one);
#else
    Tensor *out = filled(d, n, t->out, NAN); /* rows left unwritten stay NaN */
    counters_reset();
    size_t before = counters_get().mem_in_use;
    err_clear();
    int rc = predict_chunked(m, x, chunk, out);
    Counters c = counters_get();
    put_rc(key("%s.rc", p), rc);
    put_i64(key("%s.launches", p), (int64_t)c.launches);
    put_i64(key("%s.h2d", p), (int64_t)c.copies_h2d);
    put_i64(key("%s.d2h", p), (int64_t)c.copies_d2h);
    put_i64(key("%s.syncs", p), (int64_t)c.syncs);
    put_i64(key("%s.mem_before", p), (int64_t)before);
    put_i64(key("%s.mem_after", p), (int64_t)c.mem_in_use);
    put_i64(key("%s.mem_peak", p), (int64_t)c.mem_peak);
    ck_assert_int_eq(tensor_to(out, device_cpu(), &got), ERR_OK);
    put_f32(key("%s.out", p), tensor_f32(got), n * t->out);
    tensor_free(out);
#endif
    tensor_free(got);
    tensor_free(x);
    tensor_free(xc);
    module_free(m);
}

RUN(chunked_same_as_one_batch)
{
    Device d = the_device();
    for (int i = 0; i < N_CHUNK; i++)
        chunked_run(&chunk_shapes[i], d);
}

RUN(chunked_frees_its_buffer)
{
    Device d = the_device();
    for (int i = 0; i < N_MEMORY; i++)
        chunked_run(&memory_shapes[i], d);
}

RUN(chunked_edge_cases)
{
    Device d = the_device();
#ifndef GRADE_REFERENCE
    Module *m = encoder(ENC_IN, ENC_OUT);
    ck_assert_int_eq(module_to(m, d), ERR_OK);
    module_train(m, false);
    int64_t s0[2] = {0, ENC_IN}, s1[2] = {0, ENC_OUT};
    Tensor *x0 = tensor_new(DTYPE_F32, d, 2, s0), *o0 = tensor_new(DTYPE_F32, d, 2, s1);
    ck_assert(x0 && o0);
    Tensor *x3 = filled(d, 3, ENC_IN, 0.25f), *o3 = filled(d, 3, ENC_OUT, NAN);
    counters_reset();
    size_t before = counters_get().mem_in_use;
    err_clear();
    put_rc("empty", predict_chunked(m, x0, 4, o0));
    Counters c = counters_get();
    put_i64("empty.launches", (int64_t)c.launches);
    put_i64("empty.syncs", (int64_t)c.syncs);
    put_i64("empty.mem_before", (int64_t)before);
    put_i64("empty.mem_after", (int64_t)c.mem_in_use);
    put_i64("empty.mem_peak", (int64_t)c.mem_peak);
    const int64_t bad[2] = {0, -3};
    for (int i = 0; i < 2; i++) {
        counters_reset();
        err_clear();
        put_rc(key("chunk%d", i), predict_chunked(m, x3, bad[i], o3));
        put_i64(key("chunk%d.launches", i), (int64_t)counters_get().launches);
    }
    tensor_free(x0), tensor_free(o0), tensor_free(x3), tensor_free(o3);
    module_free(m);
#endif
    /* Then real runs, so that a body that only checks its arguments gets nothing. */
    for (int i = 0; i < N_EDGE; i++)
        chunked_run(&edge_shapes[i], d);
}
#endif

#ifdef GRADE_JUDGE
/* predict_chunked's outputs under prefix p against the one-batch forward. */
static void chunked_outputs_judge(const ChunkShape *t)
{
    const char *p = t->p;
    int64_t n = t->n, chunk = t->chunk;
    expect_ok(key("%s.rc", p), "predict_chunked");
    char what[96];
    if (t->in == ENC_IN)
        snprintf(what, sizeof what, "the outputs of %lld rows in chunks of %lld", (long long)n,
                 (long long)chunk);
    else
        snprintf(what, sizeof what, "the outputs of %lld rows of %lld features in chunks of %lld",
                 (long long)n, (long long)t->in, (long long)chunk);
    graded_note = "rows out of order, or a chunk lost or computed twice?";
    expect_close_2d(what, got_f32(key("%s.out", p), n * t->out),
                    ref_f32(key("%s.want", p), n * t->out), n, t->out, 1e-5, 1e-5);
    graded_note = NULL;
}

/* Its launches: one tensor_copy_rows, one forward and one tensor_put_rows per chunk. */
static void chunked_launches_judge(const ChunkShape *t)
{
    const char *p = t->p;
    int64_t n = t->n, chunk = t->chunk;
    unsigned long long per_forward = (unsigned long long)ref_i64(key("%s.per_forward", p));
    unsigned long long launches = (unsigned long long)got_i64(key("%s.launches", p));
    int64_t chunks = (n + chunk - 1) / chunk;
    unsigned long long expected = (unsigned long long)chunks * (per_forward + 2);
    ck_assert_msg(launches == expected,
                  "%lld rows in chunks of %lld: %llu launches, expected %llu (%lld chunks, each "
                  "one tensor_copy_rows, one forward of %llu launches and one tensor_put_rows)",
                  (long long)n, (long long)chunk, launches, expected, (long long)chunks,
                  per_forward);
}

JUDGE(chunked_same_as_one_batch)
{
    for (int i = 0; i < N_CHUNK; i++) {
        const char *p = chunk_shapes[i].p;
        int64_t n = chunk_shapes[i].n, chunk = chunk_shapes[i].chunk;
        chunked_outputs_judge(&chunk_shapes[i]);
        chunked_launches_judge(&chunk_shapes[i]);
        unsigned long long h2d = (unsigned long long)got_i64(key("%s.h2d", p)),
                           d2h = (unsigned long long)got_i64(key("%s.d2h", p));
        ck_assert_msg(d2h == 0 && h2d == 0,
                      "predict_chunked copied between the CPU and the GPU (%llu to, %llu from): "
                      "the data is on the device already",
                      h2d, d2h);
        unsigned long long syncs = (unsigned long long)got_i64(key("%s.syncs", p));
        ck_assert_msg(syncs <= 1,
                      "%lld chunks made %llu syncs, expected at most 1 (the buffer's release at "
                      "the end): make the buffer once, before the loop, and free it after",
                      (long long)((n + chunk - 1) / chunk), syncs);
    }
}

JUDGE(chunked_frees_its_buffer)
{
    for (int i = 0; i < N_MEMORY; i++) {
        const char *p = memory_shapes[i].p;
        int64_t n = memory_shapes[i].n, chunk = memory_shapes[i].chunk;
        chunked_outputs_judge(&memory_shapes[i]);
        long long before = got_i64(key("%s.mem_before", p)),
                  after = got_i64(key("%s.mem_after", p)), peak = got_i64(key("%s.mem_peak", p));
        ck_assert_msg(after == before,
                      "%lld rows in chunks of %lld: the device memory in use went from %lld to "
                      "%lld bytes (the test's input and output included): predict_chunked must "
                      "free its buffer (tensor_free) before it returns",
                      (long long)n, (long long)chunk, before, after);
        long long allowed = (long long)chunk * memory_shapes[i].in * (long long)sizeof(float);
        ck_assert_msg(peak - before <= allowed,
                      "%lld rows in chunks of %lld: predict_chunked had %lld bytes of device "
                      "memory allocated at once, expected at most %lld (one (chunk, %d) buffer "
                      "of floats, made once: not a buffer per chunk, nor one for all the rows)",
                      (long long)n, (long long)chunk, peak - before, allowed,
                      (int)memory_shapes[i].in);
    }
}

JUDGE(chunked_edge_cases)
{
    expect_ok("empty", "predict_chunked");
    unsigned long long launches = (unsigned long long)got_i64("empty.launches");
    ck_assert_msg(launches == 0, "an empty input must launch nothing (%llu launches)", launches);
    long long before = got_i64("empty.mem_before"), after = got_i64("empty.mem_after"),
              peak = got_i64("empty.mem_peak");
    unsigned long long syncs = (unsigned long long)got_i64("empty.syncs");
    ck_assert_msg(after == before && peak == before && syncs == 0,
                  "an empty input must do nothing, but predict_chunked allocated %lld bytes of "
                  "device memory (%lld still in use after it) and waited for the GPU %llu times "
                  "(on a GPU, freeing memory waits for it): return before making the buffer when "
                  "x has no rows",
                  peak - before, after - before, syncs);
    const int bad[2] = {0, -3};
    for (int i = 0; i < 2; i++) {
        int rc = got_rc(key("chunk%d", i));
        ck_assert_msg(rc == ERR_ARG, "chunk = %d must be an ERR_ARG (got %s)", bad[i],
                      err_name((ErrCode)rc));
        unsigned long long l = (unsigned long long)got_i64(key("chunk%d.launches", i));
        ck_assert_msg(l == 0,
                      "predict_chunked(chunk = %d) launched %llu kernels before returning "
                      "ERR_ARG: check chunk before any work",
                      bad[i], l);
    }
    for (int i = 0; i < N_EDGE; i++) {
        chunked_outputs_judge(&edge_shapes[i]);
        chunked_launches_judge(&edge_shapes[i]);
    }
}
#endif

