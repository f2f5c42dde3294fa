/*
 * ex06_2_bucket_flatten.c: the cases of exercise 06.2, bucket_flatten and
 * bucket_unflatten: gradients into a bucket and back.
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out and what the harness saw) and a JUDGE half (in the judge: decide),
 * see ../graded.h.
 */
#include "suite.h"

/* ---- ex06.2 bucket_flatten, bucket_unflatten ------------------------------------------- */

/* Gradient k of parameter p, and float i of a bucket handed to unflatten. */
static float grad_value(int p, int64_t k)
{
    return (float)(p * 100 + k) * 0.5f + 0.25f;
}
static float flat_value(int64_t i)
{
    return 1000.0f + (float)i * 0.75f;
}

/* The hand-made bucket: three gradients of 5, 1 and 7 floats at offsets 2, 9 and
 * 11 of 21 floats; floats 0-1, 7-8, 10 and 18-20 belong to no entry. */
static const int64_t bucket_sizes[3] = {5, 1, 7}, bucket_offsets[3] = {2, 9, 11};
#define BUCKET_FLOATS 21
#define UNTOUCHED (-9.5f)

#ifdef GRADE_RUNNER
typedef struct HandBucket {
    Param params[3];
    BucketEntry entries[3];
    Bucket b;
} HandBucket;

static void hand_bucket(HandBucket *h)
{
    memset(h, 0, sizeof *h);
    int64_t n = BUCKET_FLOATS;
    for (int p = 0; p < 3; p++) {
        h->params[p].value = tensor_new(DTYPE_F32, device_cpu(), 1, &bucket_sizes[p]);
        h->params[p].grad = tensor_new(DTYPE_F32, device_cpu(), 1, &bucket_sizes[p]);
        ck_assert_msg(h->params[p].value && h->params[p].grad, "grader: out of memory");
        for (int64_t k = 0; k < bucket_sizes[p]; k++) {
            tensor_f32(h->params[p].grad)[k] = grad_value(p, k);
            tensor_f32(h->params[p].value)[k] = -1.0f;
        }
        h->entries[p].param = &h->params[p];
        h->entries[p].offset = bucket_offsets[p];
    }
    h->b.entries = h->entries;
    h->b.n_entries = 3;
    h->b.numel = n;
    h->b.flat = tensor_new(DTYPE_F32, device_cpu(), 1, &n);
    ck_assert_ptr_nonnull(h->b.flat);
    for (int64_t i = 0; i < n; i++) tensor_f32(h->b.flat)[i] = UNTOUCHED;
}

static void hand_bucket_free(HandBucket *h)
{
    for (int p = 0; p < 3; p++) tensor_free(h->params[p].value), tensor_free(h->params[p].grad);
    tensor_free(h->b.flat);
}

static void put_grads(const char *k, const HandBucket *h)
{
    for (int p = 0; p < 3; p++)
        put_f32(key("%s.%d", k, p), tensor_f32(h->params[p].grad), bucket_sizes[p]);
}

RUN(flatten_places_each_gradient)
{
    HandBucket h;
    hand_bucket(&h);
    err_clear();
    put_rc("rc", bucket_flatten(&h.b));
    put_f32("flat", tensor_f32(h.b.flat), BUCKET_FLOATS);
    put_grads("grad", &h);
    hand_bucket_free(&h);
}

RUN(unflatten_restores_each_gradient)
{
    HandBucket h;
    hand_bucket(&h);
    for (int64_t i = 0; i < BUCKET_FLOATS; i++) tensor_f32(h.b.flat)[i] = flat_value(i);
    for (int p = 0; p < 3; p++)
        for (int64_t k = 0; k < bucket_sizes[p]; k++) tensor_f32(h.params[p].grad)[k] = -3.0f;
    err_clear();
    put_rc("rc", bucket_unflatten(&h.b));
    put_f32("flat", tensor_f32(h.b.flat), BUCKET_FLOATS);
    put_grads("grad", &h);
    hand_bucket_free(&h);
}
#endif

#ifdef GRADE_JUDGE
/* The entry that float i of the bucket belongs to, or -1. */
static int entry_of(int64_t i, int64_t *k)
{
    for (int p = 0; p < 3; p++)
        if (i >= bucket_offsets[p] && i < bucket_offsets[p] + bucket_sizes[p]) {
            *k = i - bucket_offsets[p];
            return p;
        }
    return -1;
}

JUDGE(flatten_places_each_gradient)
{
    expect_ok("rc", "bucket_flatten");
    const float *flat = got_f32("flat", BUCKET_FLOATS);
    for (int64_t i = 0; i < BUCKET_FLOATS; i++) {
        int64_t k = 0;
        int p = entry_of(i, &k);
        if (p < 0)
            ck_assert_msg(flat[i] == UNTOUCHED,
                          "float %lld of the bucket belongs to no entry and must be left as it "
                          "was (%g), but is %g: a copy of more floats than the gradient holds, "
                          "or at the wrong offset?",
                          (long long)i, (double)UNTOUCHED, (double)flat[i]);
        else
            ck_assert_msg(flat[i] == grad_value(p, k),
                          "float %lld of the bucket is %g, expected gradient %lld of entry %d "
                          "(%g): entry e's gradient goes to the floats from e.offset on",
                          (long long)i, (double)flat[i], (long long)k, p,
                          (double)grad_value(p, k));
    }
    for (int p = 0; p < 3; p++) {
        const float *g = got_f32(key("grad.%d", p), bucket_sizes[p]);
        for (int64_t k = 0; k < bucket_sizes[p]; k++)
            ck_assert_msg(g[k] == grad_value(p, k),
                          "bucket_flatten changed gradient %lld of entry %d (it must only read "
                          "the gradients)", (long long)k, p);
    }
}

JUDGE(unflatten_restores_each_gradient)
{
    expect_ok("rc", "bucket_unflatten");
    for (int p = 0; p < 3; p++) {
        const float *g = got_f32(key("grad.%d", p), bucket_sizes[p]);
        for (int64_t k = 0; k < bucket_sizes[p]; k++)
            ck_assert_msg(g[k] == flat_value(bucket_offsets[p] + k),
                          "gradient %lld of entry %d is %g, expected float %lld of the bucket "
                          "(%g): the gradient must be overwritten with the bucket's floats from "
                          "its offset on",
                          (long long)k, p, (double)g[k], (long long)(bucket_offsets[p] + k),
                          (double)flat_value(bucket_offsets[p] + k));
    }
    const float *flat = got_f32("flat", BUCKET_FLOATS);
    for (int64_t i = 0; i < BUCKET_FLOATS; i++)
        ck_assert_msg(flat[i] == flat_value(i),
                      "bucket_unflatten changed float %lld of the bucket (it must only read it)",
                      (long long)i);
}
#endif
