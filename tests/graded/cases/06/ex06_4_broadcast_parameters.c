/*
 * ex06_4_broadcast_parameters.c: the cases of exercise 06.4,
 * dist_broadcast_parameters: rank root's parameters on every rank.
 *
 * Each case is a RUN half (in the runner: call the student's code, record what
 * came out and what the harness saw) and a JUDGE half (in the judge: decide),
 * see ../graded.h.
 */
#include "suite.h"

/* ---- ex06.4 dist_broadcast_parameters --------------------------------------------------- */

#define BCAST_FLOATS 57 /* Linear(5, 6) and Linear(6, 3): 30 + 6 + 18 + 3 */

#ifdef GRADE_RUNNER
static void put_params(const char *k, Module *m, bool grads)
{
    ParamRef refs[8];
    int np = module_parameters(m, refs, 8);
    float all[BCAST_FLOATS];
    int64_t at = 0;
    for (int i = 0; i < np; i++) {
        const Tensor *t = grads ? refs[i].param->grad : refs[i].param->value;
        memcpy(all + at, tensor_f32(t), sizeof(float) * (size_t)t->numel);
        at += t->numel;
    }
    ck_assert_msg(at == BCAST_FLOATS, "grader: the model has %lld floats", (long long)at);
    put_f32(k, all, at);
}

/* In every rank: a model of its own, then rank root's values everywhere. */
static void rank_broadcast(int root)
{
    ProcessGroup *pg = join();
    Rng rng;
    rng_seed(&rng, 100 + (uint64_t)pg->rank, 0);
    int64_t hidden[1] = {6};
    Module *m = mlp_new("mlp", 5, hidden, 1, 3, &rng);
    ck_assert_ptr_nonnull(m);
    ParamRef refs[8];
    int np = module_parameters(m, refs, 8);
    for (int i = 0; i < np; i++)
        for (int64_t k = 0; k < refs[i].param->grad->numel; k++)
            tensor_f32(refs[i].param->grad)[k] = -(float)(pg->rank + 1) * 0.5f - (float)k * 0.001f;
    put_params("before", m, false);
    put_params("grads_before", m, true);
    err_clear();
    put_rc("rc", dist_broadcast_parameters(pg, m, root));
    put_params("after", m, false);
    put_params("grads_after", m, true);
    err_clear();
    put_rc("bad", dist_broadcast_parameters(pg, m, pg->world));
    err_clear();
    put_rc("neg", dist_broadcast_parameters(pg, m, -1));
    put_params("after_bad", m, false);
    /* a model without parameters: nothing to send, but a bad root is still refused */
    Module *none = relu_new("relu");
    ck_assert_ptr_nonnull(none);
    err_clear();
    put_rc("none", dist_broadcast_parameters(pg, none, root));
    err_clear();
    put_rc("none_bad", dist_broadcast_parameters(pg, none, pg->world));
    module_free(none);
    /* What 200 more calls leave allocated on the root, after 50 that let MPI set itself
     * up. A barrier after each call keeps the ranks in step, so that MPI's own queues (of
     * messages that arrive before their receive) stay the same size; the root only sends. */
    for (int i = 0; i < 50; i++) {
        (void)!dist_broadcast_parameters(pg, m, root);
        (void)!dist_barrier(pg);
    }
    size_t before = mallinfo2().uordblks;
    for (int i = 0; i < 200; i++) {
        (void)!dist_broadcast_parameters(pg, m, root);
        (void)!dist_barrier(pg);
    }
    put_i64("kept_bytes", (int64_t)mallinfo2().uordblks - (int64_t)before);
    module_free(m);
    dist_finalize(pg);
}

void rank_broadcast0(void)
{
    rank_broadcast(0);
}

void rank_broadcast1(void)
{
    rank_broadcast(1);
}

RUN(broadcast_from_rank0)
{
    run_ranks("broadcast0", 2, 20);
}

RUN(broadcast_from_rank1_of_three)
{
    run_ranks("broadcast1", 3, 20);
}
#endif

#ifdef GRADE_JUDGE
static void expect_broadcast(int world, int root)
{
    expect_ranks(world, "dist_broadcast for every parameter");
    const float *src = got_f32(key("r%d.before", root), BCAST_FLOATS);
    const float *other = got_f32(key("r%d.before", root == 0 ? 1 : 0), BCAST_FLOATS);
    ck_assert_msg(memcmp(src, other, sizeof(float) * BCAST_FLOATS) != 0,
                  "grader: the ranks' models started alike");
    for (int r = 0; r < world; r++) {
        expect_ok(key("r%d.rc", r), "dist_broadcast_parameters");
        const float *after = got_f32(key("r%d.after", r), BCAST_FLOATS);
        const float *own = got_f32(key("r%d.before", r), BCAST_FLOATS);
        for (int64_t i = 0; i < BCAST_FLOATS; i++)
            if (after[i] != src[i])
                ck_abort_msg("%d ranks, root %d: float %lld of rank %d's parameters is %g, "
                             "expected rank %d's %g%s",
                             world, root, (long long)i, r, (double)after[i], root,
                             (double)src[i],
                             after[i] == own[i] ? " (it kept its own value: was every parameter "
                                                  "broadcast, from the root given?)"
                                                : "");
        const float *g0 = got_f32(key("r%d.grads_before", r), BCAST_FLOATS);
        const float *g1 = got_f32(key("r%d.grads_after", r), BCAST_FLOATS);
        ck_assert_msg(memcmp(g0, g1, sizeof(float) * BCAST_FLOATS) == 0,
                      "rank %d's gradients changed: only the parameters' values are broadcast",
                      r);
        static const char *const bad[] = {"bad", "neg"};
        for (int b = 0; b < 2; b++) {
            const char *k = key("r%d.%s", r, bad[b]);
            ck_assert_msg(got_rc(k) == ERR_ARG,
                          "dist_broadcast_parameters with root %d of %d ranks returned %d, "
                          "expected ERR_ARG (%d)",
                          b ? -1 : world, world, got_rc(k), ERR_ARG);
        }
        const float *kept = got_f32(key("r%d.after_bad", r), BCAST_FLOATS);
        ck_assert_msg(memcmp(kept, after, sizeof(float) * BCAST_FLOATS) == 0,
                      "a refused root changed rank %d's parameters", r);
        ck_assert_msg(got_rc(key("r%d.none", r)) == ERR_OK,
                      "dist_broadcast_parameters on a model without parameters returned %d, "
                      "expected 0 (nothing to send): %s",
                      got_rc(key("r%d.none", r)), got_rc_msg(key("r%d.none", r)));
        ck_assert_msg(got_rc(key("r%d.none_bad", r)) == ERR_ARG,
                      "dist_broadcast_parameters with root %d of %d ranks on a model without "
                      "parameters returned %d, expected ERR_ARG: check the root yourself, not only "
                      "through dist_broadcast", world, world, got_rc(key("r%d.none_bad", r)));
        int64_t kept_bytes = got_i64(key("r%d.kept_bytes", r));
        ck_assert_msg(r != root || kept_bytes < 16384,
                      "200 calls of dist_broadcast_parameters left %lld bytes allocated on rank "
                      "%d: free what each call allocates", (long long)kept_bytes, r);
    }
}

JUDGE(broadcast_from_rank0)
{
    expect_broadcast(2, 0);
}

JUDGE(broadcast_from_rank1_of_three)
{
    expect_broadcast(3, 1);
}
#endif
