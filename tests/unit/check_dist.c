/* check_dist.c: Lesson 06's data parallelism: the sampler's shards, the gradient
 * buckets, and real launches of 1, 2 and 3 ranks (this test binary started by mpirun
 * as dist_worker_main(), see check_main.c) that must train to the same weights as one
 * process with the whole batch, resume from each other's checkpoints, and stop
 * instead of hanging when a rank skips a collective. */
#define _GNU_SOURCE /* readlink */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/core/err.h"
#include "lib/core/rng.h"
#include "lib/dist/bucket.h"
#include "lib/dist/ddp.h"
#include "lib/dist/dist.h"
#include "lib/dist/launch.h"
#include "lib/dist/sampler.h"
#include "lib/nn/layers.h"
#include "lib/nn/loss.h"
#include "lib/nn/optim.h"
#include "lib/train/checkpoint.h"
#include "lib/train/iris.h"
#include "lib/train/trainer.h"
#include "suites.h"
#include "tests/common/tmpdir.h"

/* ---- the sampler ------------------------------------------------------------------- */

START_TEST(test_shards_are_disjoint_and_cover_the_epoch)
{
    int64_t n = 23;
    for (int world = 1; world <= 5; world++)
        for (int drop = 0; drop <= 1; drop++) {
            int count[23] = {0}, extra = 0;
            int64_t len = dist_shard_len(n, world, drop);
            ck_assert_int_eq(len, drop ? n / world : (n + world - 1) / world);
            for (int r = 0; r < world; r++) {
                DistSampler s;
                ck_assert_int_eq(dist_sampler_init(&s, n, world, r, true, 9, drop), ERR_OK);
                dist_sampler_set_epoch(&s, 3);
                int32_t rows[23];
                ck_assert_int_eq(dist_sampler_rows(&s, rows), ERR_OK);
                /* rank r's rows are positions r, r + world, ... of the epoch's order */
                int32_t order[23];
                dist_sampler_order(&s, 3, order);
                for (int64_t k = 0; k < len; k++) {
                    ck_assert_int_eq(rows[k], order[(r + k * world) % n]);
                    if (r + k * world < n)
                        count[rows[k]]++;
                    else
                        extra++; /* a row repeated to even the shards out */
                }
                dist_sampler_free(&s);
            }
            /* each row once (with drop_last: at most once, the cut tail never); without
             * drop_last, len x world - n rows repeated to even the shards out */
            int seen = 0;
            for (int i = 0; i < n; i++) {
                if (!drop) ck_assert_int_eq(count[i], 1);
                ck_assert_int_le(count[i], 1);
                seen += count[i];
            }
            ck_assert_int_eq(seen, drop ? len * world : n);
            ck_assert_int_eq(extra, drop ? 0 : len * world - n);
        }
}
END_TEST

START_TEST(test_epochs_shuffle_alike_on_every_rank)
{
    DistSampler a, b;
    ck_assert_int_eq(dist_sampler_init(&a, 40, 2, 0, true, 5, false), ERR_OK);
    ck_assert_int_eq(dist_sampler_init(&b, 40, 2, 1, true, 5, false), ERR_OK);
    int32_t e1[20], e2[20], o1[20];
    dist_sampler_set_epoch(&a, 1);
    ck_assert_int_eq(dist_sampler_rows(&a, e1), ERR_OK);
    dist_sampler_set_epoch(&a, 2);
    ck_assert_int_eq(dist_sampler_rows(&a, e2), ERR_OK);
    ck_assert_msg(memcmp(e1, e2, sizeof e1) != 0, "set_epoch changed nothing: every epoch alike");
    dist_sampler_set_epoch(&b, 1);
    ck_assert_int_eq(dist_sampler_rows(&b, o1), ERR_OK);
    for (int i = 0; i < 20; i++)
        for (int j = 0; j < 20; j++) ck_assert_int_ne(e1[i], o1[j]); /* disjoint in epoch 1 */
    /* unshuffled: 0, 2, 4, ... and 1, 3, 5, ... */
    DistSampler c;
    ck_assert_int_eq(dist_sampler_init(&c, 40, 2, 1, false, 5, false), ERR_OK);
    ck_assert_int_eq(dist_sampler_rows(&c, o1), ERR_OK);
    for (int i = 0; i < 20; i++) ck_assert_int_eq(o1[i], 2 * i + 1);
    dist_sampler_free(&a), dist_sampler_free(&b), dist_sampler_free(&c);
    ck_assert_int_eq(dist_sampler_init(&c, 40, 2, 2, false, 5, false), ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err_message(), "rank 2 of 2"));
    ck_assert_int_eq(dist_sampler_init(&c, -1, 2, 0, false, 5, false), ERR_ARG);
    int32_t order[3] = {2, 0, 1}, shard[2];
    ck_assert_int_eq(dist_shard(order, 3, 0, 0, false, shard), ERR_ARG);
    ck_assert_int_eq(dist_shard(order, 0, 2, 1, false, shard), ERR_OK);
}
END_TEST

START_TEST(test_a_sampled_loader_serves_the_shard)
{
    int64_t n = 10, nd[2] = {n, 1};
    Tensor *x = tensor_new(DTYPE_F32, device_cpu(), 2, nd);
    Tensor *y = tensor_new(DTYPE_I32, device_cpu(), 1, &n);
    for (int i = 0; i < n; i++) tensor_f32(x)[i] = (float)i, tensor_i32(y)[i] = i;
    DistSampler s;
    ck_assert_int_eq(dist_sampler_init(&s, n, 3, 2, true, 1, false), ERR_OK);
    LoaderOptions o = {.batch_size = 3, .seed = 1};
    Loader *l;
    ck_assert_int_eq(dist_sampler_loader(&s, x, y, device_cpu(), &o, &l), ERR_OK);
    ck_assert_int_eq(loader_batches(l), 2); /* 4 rows of the shard in batches of 3 */
    for (long epoch = 1; epoch <= 2; epoch++) {
        int32_t want[4];
        DistSampler t;
        ck_assert_int_eq(dist_sampler_init(&t, n, 3, 2, true, 1, false), ERR_OK);
        dist_sampler_set_epoch(&t, epoch);
        ck_assert_int_eq(dist_sampler_rows(&t, want), ERR_OK);
        dist_sampler_free(&t);
        ck_assert_int_eq(loader_begin(l, epoch), ERR_OK);
        int k = 0;
        for (;;) {
            Batch b;
            bool done;
            ck_assert_int_eq(loader_next(l, &b, &done), ERR_OK);
            if (done) break;
            for (int64_t i = 0; i < b.x->shape[0]; i++) ck_assert_int_eq(tensor_i32(b.y)[i], want[k++]);
        }
        ck_assert_int_eq(k, 4);
    }
    loader_free(l);
    o.shuffle = true;
    ck_assert_int_eq(dist_sampler_loader(&s, x, y, device_cpu(), &o, &l), ERR_ARG);
    dist_sampler_free(&s);
    tensor_free(x), tensor_free(y);
}
END_TEST

/* A sampler that hands out a row the dataset does not have. */
static int64_t bad_len(const void *self)
{
    (void)self;
    return 3;
}
static int bad_rows(void *self, long epoch, int32_t *rows)
{
    (void)self, (void)epoch;
    rows[0] = 0, rows[1] = 9, rows[2] = 1;
    return ERR_OK;
}

START_TEST(test_bad_samplers_and_launches_are_refused)
{
    int64_t n = 4, nd[2] = {n, 1};
    Tensor *x = tensor_new(DTYPE_F32, device_cpu(), 2, nd);
    Tensor *y = tensor_new(DTYPE_I32, device_cpu(), 1, &n);
    LoaderOptions o = {.batch_size = 2};
    Loader *l;
    Sampler bad = {NULL, bad_len, bad_rows};
    ck_assert_int_eq(loader_new_sampled(x, y, device_cpu(), &o, bad, &l), ERR_OK);
    ck_assert_int_eq(loader_begin(l, 1), ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err_message(), "row 9 (position 1 of epoch 1)"));
    Batch batch;
    bool done = false;
    ck_assert_int_eq(loader_next(l, &batch, &done), ERR_ARG); /* a refused epoch is no epoch */
    loader_free(l);
    Sampler half = {NULL, bad_len, NULL};
    ck_assert_int_eq(loader_new_sampled(x, y, device_cpu(), &o, half, &l), ERR_ARG);
    tensor_free(x), tensor_free(y);
    /* launches: no ranks, no limit, no mpirun */
    char *argv[] = {"true", NULL};
    DistLaunch r;
    DistLaunchOptions lo = {0, 5, NULL, true};
    ck_assert_int_eq(dist_launch(&lo, argv, &r), ERR_ARG);
    lo.ranks = 1, lo.limit_s = 0;
    ck_assert_int_eq(dist_launch(&lo, argv, &r), ERR_ARG);
    lo.limit_s = 5;
    const char *had = getenv("PATH");
    char path[4096];
    snprintf(path, sizeof path, "%s", had ? had : "");
    setenv("PATH", "/nonexistent", 1);
    ck_assert_ptr_null(dist_launcher());
    int rc = dist_launch(&lo, argv, &r);
    setenv("PATH", path, 1); /* (without fork, as under make valgrind, later tests need it) */
    ck_assert_int_eq(rc, ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(err_message(), "openmpi-bin"));
}
END_TEST

/* ---- buckets ------------------------------------------------------------------------ */

START_TEST(test_buckets_follow_backward_and_round_trip)
{
    int64_t hidden[2] = {7, 5};
    Rng rng;
    rng_seed(&rng, 11, 0);
    Module *m = mlp_new("mlp", 4, hidden, 2, 3, &rng);
    ck_assert_ptr_nonnull(m);
    int np = module_parameters(m, NULL, 0);
    ParamRef refs[8];
    ck_assert_int_eq(np, 6);
    module_parameters(m, refs, np);
    for (int i = 0; i < np; i++)
        for (int64_t k = 0; k < refs[i].param->grad->numel; k++)
            tensor_f32(refs[i].param->grad)[k] = (float)(100 * i) + (float)k * 0.5f;
    Bucket *b;
    int nb;
    /* 40 floats a bucket: fc3 (15 + 3) together, then each of the bigger ones alone */
    ck_assert_int_eq(buckets_make(m, 40 * sizeof(float), &b, &nb), ERR_OK);
    ck_assert_int_ge(nb, 3);
    ck_assert_ptr_eq(b[0].entries[0].param, refs[np - 1].param); /* backward's order */
    int64_t total = 0;
    for (int i = 0; i < nb; i++) {
        total += b[i].numel;
        ck_assert_int_le(b[i].numel * 4, b[i].n_entries == 1 ? b[i].numel * 4 : 40 * 4);
        ck_assert_int_eq(bucket_flatten(&b[i]), ERR_OK);
        for (int e = 0; e < b[i].n_entries; e++) {
            const Tensor *g = b[i].entries[e].param->grad;
            ck_assert_mem_eq(tensor_f32(b[i].flat) + b[i].entries[e].offset, tensor_f32(g),
                             sizeof(float) * (size_t)g->numel);
        }
    }
    ck_assert_int_eq(total, module_num_scalars(m));
    ck_assert_int_eq(module_zero_grad(m), ERR_OK);
    for (int i = 0; i < nb; i++) ck_assert_int_eq(bucket_unflatten(&b[i]), ERR_OK);
    for (int i = 0; i < np; i++)
        for (int64_t k = 0; k < refs[i].param->grad->numel; k++)
            ck_assert_float_eq(tensor_f32(refs[i].param->grad)[k], (float)(100 * i) + (float)k * 0.5f);
    buckets_free(b, nb);
    ck_assert_int_eq(buckets_make(m, 0, &b, &nb), ERR_ARG);
    module_free(m);
}
END_TEST

/* ---- real launches ---------------------------------------------------------------- */

/* dist_worker_main's "train": every rank trains Iris with DDP and writes nothing but
 * rank 0's files. args: batch epochs save_at resume weights checkpoint overlap. */
static int worker_train(int argc, char **argv)
{
    if (argc != 7) return 2;
    long batch = atol(argv[0]), epochs = atol(argv[1]), save_at = atol(argv[2]);
    const char *resume = argv[3], *weights = argv[4], *ckpt = argv[5];
    bool overlap = atoi(argv[6]) != 0;
    ProcessGroup *pg = NULL;
    IrisData iris = {0};
    Module *ddp = NULL;
    Loader *train = NULL, *val = NULL;
    Loss *loss = NULL;
    Optimizer *opt = NULL;
    Trainer *t = NULL;
    DistSampler s = {0};
    int rc = ERR_OK;
    TRY_OR_DONE(dist_init("cpu", &pg));
    TRY_OR_DONE(iris_data_load(iris_csv_path(), &iris));
    /* each rank draws its own weights: the broadcast in ddp_new must make them rank 0's */
    DdpOptions dopt = {.bucket_mb = 48.0 / (1 << 20), .overlap = overlap};
    if (!(ddp = ddp_new(pg, iris_mlp_new(100 + (uint64_t)pg->rank), &dopt)))
        TRY_OR_DONE(err_code());
    TRY_OR_DONE(dist_sampler_init(&s, iris.x_train->shape[0], pg->world, pg->rank, true, 7, false));
    LoaderOptions lo = {.batch_size = batch, .seed = 7};
    TRY_OR_DONE(dist_sampler_loader(&s, iris.x_train, iris.train.y, device_cpu(), &lo, &train));
    LoaderOptions vo = {.batch_size = 30};
    TRY_OR_DONE(loader_new(iris.x_test, iris.test.y, device_cpu(), &vo, &val));
    if (!(loss = loss_cross_entropy_new()) || !(opt = optim_sgd_new(ddp, 0.2f)))
        TRY_OR_DONE(err_code());
    TrainerOptions to = {.epochs = epochs, .autocast = DTYPE_F32, .loss_weight = 1.0f};
    TRY_OR_DONE(trainer_new(ddp, train, val, loss, opt, NULL, device_cpu(), &to, &t));
    if (strcmp(resume, "-") != 0) TRY_OR_DONE(checkpoint_load(t, resume));
    if (save_at > 0) {
        TRY_OR_DONE(trainer_call(t, save_at));
        if (pg->rank == 0) TRY_OR_DONE(checkpoint_save(t, save_at, ckpt));
        TRY_OR_DONE(dist_barrier(pg));
    }
    TRY_OR_DONE(trainer_call(t, 0));
    /* every rank's weights, compared on rank 0; rank 0 writes them as raw floats */
    ParamRef refs[8];
    int np = module_parameters(ddp, refs, 8);
    double mine[2] = {0, 0}, all[2 * 8];
    for (int i = 0, at = 0; i < np; i++)
        for (int64_t k = 0; k < refs[i].param->value->numel; k++, at++) {
            mine[0] += tensor_f32(refs[i].param->value)[k] * (1 + at % 7);
            mine[1] += fabs(tensor_f32(refs[i].param->value)[k]);
        }
    TRY_OR_DONE(dist_all_gather(pg, mine, sizeof mine, all));
    if (pg->rank == 0) {
        for (int r = 1; r < pg->world; r++)
            if (all[2 * r] != all[0] || all[2 * r + 1] != all[1])
                TRY_OR_DONE(err_set(ERR_IO, "rank %d's weights differ from rank 0's", r));
        FILE *f = fopen(weights, "wb");
        if (!f) TRY_OR_DONE(err_set(ERR_IO, "cannot write %s", weights));
        for (int i = 0; i < np; i++)
            fwrite(tensor_f32(refs[i].param->value), sizeof(float),
                   (size_t)refs[i].param->value->numel, f);
        fclose(f);
    }
done:
    if (rc) fprintf(stderr, "dist worker (rank %d): %s\n", pg ? pg->rank : -1, err_message());
    trainer_free(t);
    optim_free(opt);
    loss_free(loss);
    loader_free(train);
    loader_free(val);
    dist_sampler_free(&s);
    module_free(ddp);
    iris_data_free(&iris);
    dist_finalize(pg);
    return rc ? 1 : 0;
}

/* dist_worker_main's "hang": the last rank never joins the all-reduce. */
static int worker_hang(void)
{
    ProcessGroup *pg = NULL;
    if (dist_init("cpu", &pg) != ERR_OK) return 1;
    if (pg->rank == pg->world - 1) {
        sleep(600); /* the launcher's limit must end this */
    } else {
        int64_t n = 4;
        Tensor *t = tensor_new(DTYPE_F32, device_cpu(), 1, &n);
        int rc = dist_all_reduce_sum(pg, t);
        (void)rc;
        tensor_free(t);
    }
    dist_finalize(pg);
    return 0;
}

int dist_worker_main(int argc, char **argv)
{
    if (argc >= 1 && strcmp(argv[0], "train") == 0) return worker_train(argc - 1, argv + 1);
    if (argc >= 1 && strcmp(argv[0], "hang") == 0) return worker_hang();
    fprintf(stderr, "unit_tests --dist-worker: train ARGS or hang\n");
    return 2;
}

static char g_dir[256];

static void setup_dir(void)
{
    tmpdir_make(g_dir, sizeof g_dir, "wb-dist");
}

static void teardown_dir(void)
{
    tmpdir_remove(g_dir);
}

/* Launch this binary as @p ranks dist workers; fails the test unless all returned 0. */
static void launch(int ranks, char **args, double limit, DistLaunch *r)
{
    static char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    ck_assert_int_gt(len, 0);
    self[len] = '\0';
    char *argv[16] = {self, "--dist-worker"};
    int k = 2;
    for (int i = 0; args[i]; i++) argv[k++] = args[i];
    argv[k] = NULL;
    char log[320];
    snprintf(log, sizeof log, "%s/ranks.log", g_dir);
    /* (Under SAN=1, dist_launch turns the ranks' leak check off: Open MPI's own.) */
    DistLaunchOptions o = {ranks, limit, log, true};
    ck_assert_msg(dist_launch(&o, argv, r) == ERR_OK, "%s", err_message());
}

static void train(int ranks, const char *batch, const char *epochs, const char *save_at,
                  const char *resume, const char *weights, const char *ckpt, const char *overlap)
{
    char *args[] = {"train", (char *)batch, (char *)epochs, (char *)save_at, (char *)resume,
                    (char *)weights, (char *)ckpt, (char *)overlap, NULL};
    DistLaunch r;
    launch(ranks, args, 60, &r);
    if (r.status != 0 || r.timed_out) {
        char log[320], text[2048] = "";
        snprintf(log, sizeof log, "%s/ranks.log", g_dir);
        FILE *f = fopen(log, "r");
        if (f) text[fread(text, 1, sizeof text - 1, f)] = '\0', fclose(f);
        ck_abort_msg("%d ranks: status %d%s; their output:\n%s", ranks, r.status,
                     r.timed_out ? " (timed out)" : "", text);
    }
}

/* The weights a worker wrote (the Iris MLP has 83 of them). */
static void weights(const char *name, float *w)
{
    char path[320];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "rank 0 wrote no %s", name);
    ck_assert_int_eq(fread(w, sizeof(float), 83, f), 83);
    fclose(f);
}

static float max_diff(const float *a, const float *b)
{
    float m = 0;
    for (int i = 0; i < 83; i++) m = fmaxf(m, fabsf(a[i] - b[i]));
    return m;
}

static char *at(const char *name)
{
    static char paths[4][320];
    static int next;
    char *p = paths[next++ % 4];
    snprintf(p, 320, "%s/%s", g_dir, name);
    return p;
}

/* The tolerance: the two runs add the same gradients in another order (the mean of two
 * means of 8, against one mean of 16), a few ulps per step, over 5 epochs of 8 steps. */
#define SAME_TRAINING 1e-6f

START_TEST(test_two_ranks_train_as_one_with_twice_the_batch)
{
    if (!dist_mpi_built() || !dist_launcher()) {
        printf("check_dist: no MPI here: launches skipped\n");
        return;
    }
    float one[83], two[83], two_overlap[83], wrong[83];
    train(1, "16", "5", "0", "-", at("one.bin"), "-", "0");
    train(2, "8", "5", "0", "-", at("two.bin"), "-", "0");
    train(2, "8", "5", "0", "-", at("two_overlap.bin"), "-", "1");
    train(2, "16", "5", "0", "-", at("wrong.bin"), "-", "0");
    weights("one.bin", one), weights("two.bin", two), weights("two_overlap.bin", two_overlap);
    weights("wrong.bin", wrong);
    ck_assert_msg(max_diff(one, two) < SAME_TRAINING, "2 ranks x 8 vs 1 x 16: %g apart",
                  (double)max_diff(one, two));
    ck_assert_msg(max_diff(two, two_overlap) < SAME_TRAINING, "overlap changed the sums: %g",
                  (double)max_diff(two, two_overlap));
    /* a batch of 16 per rank is another training: the comparison can tell */
    ck_assert_msg(max_diff(one, wrong) > 1e-3f, "2 x 16 trained as 1 x 16 (%g)",
                  (double)max_diff(one, wrong));
}
END_TEST

START_TEST(test_a_checkpoint_resumes_on_another_world_size)
{
    if (!dist_mpi_built() || !dist_launcher()) return;
    float straight[83], resumed[83], back[83];
    /* 2 ranks stop at epoch 2 (rank 0 saves), 1 rank goes on to 4: as 1 rank all along */
    train(1, "16", "4", "0", "-", at("straight.bin"), "-", "0");
    train(2, "8", "4", "2", "-", at("unused.bin"), at("at2.safetensors"), "0");
    train(1, "16", "4", "0", at("at2.safetensors"), at("resumed.bin"), "-", "0");
    /* and the way back: 1 rank's checkpoint resumed on 2 */
    train(1, "16", "4", "2", "-", at("unused.bin"), at("one_at2.safetensors"), "0");
    train(2, "8", "4", "0", at("one_at2.safetensors"), at("back.bin"), "-", "0");
    weights("straight.bin", straight), weights("resumed.bin", resumed), weights("back.bin", back);
    ck_assert_msg(max_diff(straight, resumed) < SAME_TRAINING, "2 -> 1 ranks: %g apart",
                  (double)max_diff(straight, resumed));
    ck_assert_msg(max_diff(straight, back) < SAME_TRAINING, "1 -> 2 ranks: %g apart",
                  (double)max_diff(straight, back));
}
END_TEST

START_TEST(test_a_rank_that_skips_a_collective_is_stopped)
{
    if (!dist_mpi_built() || !dist_launcher()) return;
    char *args[] = {"hang", NULL};
    DistLaunch r;
    launch(2, args, 3.0, &r);
    ck_assert_msg(r.timed_out, "the launch ended by itself (status %d)", r.status);
    ck_assert_double_lt(r.seconds, 3.0 + 8.0);
}
END_TEST

Suite *dist_suite(void)
{
    Suite *s = suite_create("dist");
    TCase *tc = tcase_create("sampler and buckets");
    tcase_add_test(tc, test_shards_are_disjoint_and_cover_the_epoch);
    tcase_add_test(tc, test_epochs_shuffle_alike_on_every_rank);
    tcase_add_test(tc, test_a_sampled_loader_serves_the_shard);
    tcase_add_test(tc, test_buckets_follow_backward_and_round_trip);
    tcase_add_test(tc, test_bad_samplers_and_launches_are_refused);
    suite_add_tcase(s, tc);
    tc = tcase_create("launches");
    tcase_add_checked_fixture(tc, setup_dir, teardown_dir);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_two_ranks_train_as_one_with_twice_the_batch);
    tcase_add_test(tc, test_a_checkpoint_resumes_on_another_world_size);
    tcase_add_test(tc, test_a_rank_that_skips_a_collective_is_stopped);
    suite_add_tcase(s, tc);
    return s;
}
