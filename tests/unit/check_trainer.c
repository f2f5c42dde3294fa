/* check_trainer.c: the trainer object, its checkpoints, and experiment configs. */
#define _XOPEN_SOURCE 700
#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/train/checkpoint.h"
#include "lib/core/err.h"
#include "lib/train/experiment.h"
#include "lib/core/fileio.h"
#include "lib/io/safetensors.h"
#include "suites.h"
#include "tests/common/fixture.h"
#include "tests/common/tmpdir.h"

static char g_root[64];

static void make_root(void)
{
    tmpdir_make(g_root, sizeof g_root, "wb-trainer");
}

static void remove_root(void)
{
    ck_assert_int_eq(tmpdir_remove(g_root), 0);
}

/* A small, quick digits run: 4 epochs of a 64-24-10 MLP. */
static ExperimentConfig small(const char *name)
{
    ExperimentConfig c;
    experiment_config_default(&c);
    snprintf(c.name, sizeof c.name, "%s", name);
    c.hidden[0] = 24;
    c.epochs = 4;
    c.lr = 0.1f;
    c.batch_size = 64;
    return c;
}

static Experiment *open_exp(const ExperimentConfig *c)
{
    Experiment *e = NULL;
    ck_assert_msg(experiment_open(c, g_root, &e) == ERR_OK, "%s", err_message());
    e->trainer->opts.progress = false;
    return e;
}

static void run(Experiment *e, long upto)
{
    ck_assert_msg(trainer_call(e->trainer, upto) == ERR_OK, "%s", err_message());
}

/* The parameters of a model, row-major, in a malloc'd buffer. */
static float *params_of(Module *m, int64_t *n)
{
    int64_t total = module_num_scalars(m);
    float *out = malloc(sizeof(float) * (size_t)total), *p = out;
    ParamRef refs[16];
    int k = module_parameters(m, refs, 16);
    for (int i = 0; i < k; i++) {
        ck_assert_int_eq(tensor_get_rows(refs[i].param->value, p), ERR_OK);
        p += refs[i].param->value->numel;
    }
    *n = total;
    return out;
}

/* Same weights and the same history (all but the wall times), bit for bit. */
static void same_run(Experiment *a, Experiment *b)
{
    int64_t na, nb;
    float *pa = params_of(a->model, &na), *pb = params_of(b->model, &nb);
    ck_assert_int_eq(na, nb);
    ck_assert_msg(memcmp(pa, pb, sizeof(float) * (size_t)na) == 0, "the weights differ");
    free(pa), free(pb);
    const History *ha = &a->trainer->hist, *hb = &b->trainer->hist;
    ck_assert_int_eq(ha->n, hb->n);
    for (long i = 0; i < ha->n; i++) {
        ck_assert_msg(ha->train_loss[i] == hb->train_loss[i], "epoch %ld: train loss %.9g vs %.9g",
                      i + 1, (double)ha->train_loss[i], (double)hb->train_loss[i]);
        ck_assert(ha->val_loss[i] == hb->val_loss[i] && ha->val_acc[i] == hb->val_acc[i]);
        ck_assert(ha->lr[i] == hb->lr[i] && ha->loss_scale[i] == hb->loss_scale[i]);
    }
    ck_assert_int_eq(a->trainer->epoch, b->trainer->epoch);
    ck_assert(a->trainer->best_val_loss == b->trainer->best_val_loss);
}

/* trainer_call(t, 2) then trainer_call(t, 0) is one trainer_call(t, 0); and a fresh trainer
 * loaded from the epoch-2 checkpoint goes on exactly as the uninterrupted run. */
static void check_resume(ExperimentConfig c)
{
    make_root();
    snprintf(c.name, sizeof c.name, "whole");
    Experiment *whole = open_exp(&c);
    run(whole, 0);
    ck_assert_int_eq(whole->trainer->epoch, c.epochs);
    ck_assert(whole->trainer->hist.val_acc[c.epochs - 1] > 0.8f); /* it learned */
    snprintf(c.name, sizeof c.name, "split");
    Experiment *split = open_exp(&c);
    run(split, 2);
    ck_assert_int_eq(split->trainer->epoch, 2);
    char saved[700];
    snprintf(saved, sizeof saved, "%s/at2.safetensors", g_root);
    ck_assert_msg(checkpoint_save(split->trainer, 2, saved) == ERR_OK, "%s", err_message());
    run(split, 0);
    same_run(whole, split);
    snprintf(c.name, sizeof c.name, "resumed");
    Experiment *resumed = open_exp(&c);
    ck_assert_msg(checkpoint_load(resumed->trainer, saved) == ERR_OK, "%s", err_message());
    ck_assert_int_eq(resumed->trainer->epoch, 2);
    run(resumed, 0);
    same_run(whole, resumed);
    experiment_free(whole), experiment_free(split), experiment_free(resumed);
    remove_root();
}

START_TEST(test_resume_sgd_momentum_cosine)
{
    check_resume(small("x"));
}
END_TEST

START_TEST(test_resume_adam_step_clipped)
{
    ExperimentConfig c = small("x");
    snprintf(c.optimizer, sizeof c.optimizer, "adam");
    snprintf(c.scheduler, sizeof c.scheduler, "step");
    c.lr = 0.01f, c.step_size = 1, c.gamma = 0.7f, c.clip_norm = 0.5f, c.num_workers = 1;
    check_resume(c);
}
END_TEST

/* One seed makes a run repeat exactly; another seed does not. */
START_TEST(test_best_model_saved_and_loaded_back)
{
    /* The best model's weights are saved after its epoch; loaded back into a fresh
     * model of the same config they equal the weights the run had then. */
    make_root();
    ExperimentConfig c = small("best");
    c.epochs = 3;
    Experiment *e = open_exp(&c);
    float *at_best = NULL;
    int64_t n = 0;
    for (long k = 1; k <= c.epochs; k++) {
        run(e, k);
        if (e->trainer->best_epoch == k) {
            free(at_best);
            at_best = params_of(e->model, &n);
        }
    }
    ck_assert_ptr_nonnull(at_best);
    ExperimentConfig c2 = small("fresh");
    c2.epochs = 3;
    c2.seed = c.seed + 1; /* other initial weights */
    Experiment *f = open_exp(&c2);
    ck_assert_msg(checkpoint_load_weights(f->model, e->best) == ERR_OK, "%s", err_message());
    int64_t m = 0;
    float *loaded = params_of(f->model, &m);
    ck_assert_int_eq(m, n);
    ck_assert_mem_eq(loaded, at_best, sizeof(float) * (size_t)n);
    /* A full checkpoint holds the model too: it loads the same way. */
    ck_assert_msg(checkpoint_load_weights(f->model, e->checkpoint) == ERR_OK, "%s",
                  err_message());
    free(loaded);
    free(at_best);
    experiment_free(e);
    experiment_free(f);
    remove_root();
}
END_TEST

START_TEST(test_same_seed_same_run)
{
    make_root();
    ExperimentConfig c = small("a");
    c.epochs = 2;
    Experiment *a = open_exp(&c);
    snprintf(c.name, sizeof c.name, "b");
    Experiment *b = open_exp(&c);
    run(a, 0), run(b, 0);
    same_run(a, b);
    snprintf(c.name, sizeof c.name, "c");
    c.seed = 7;
    Experiment *other = open_exp(&c);
    run(other, 0);
    ck_assert(other->trainer->hist.train_loss[1] != a->trainer->hist.train_loss[1]);
    experiment_free(a), experiment_free(b), experiment_free(other);
    remove_root();
}
END_TEST

/* Every bad file is refused with a message naming it, and the trainer is untouched. */
START_TEST(test_bad_checkpoints_change_nothing)
{
    make_root();
    ExperimentConfig c = small("src");
    c.epochs = 2;
    Experiment *src = open_exp(&c);
    run(src, 1);
    char good[700], bad[700];
    snprintf(good, sizeof good, "%s/src/checkpoint.safetensors", g_root);
    snprintf(bad, sizeof bad, "%s/bad.safetensors", g_root);
    char *bytes;
    size_t len;
    ck_assert_int_eq(fileio_read(good, &bytes, &len), ERR_OK);
    snprintf(c.name, sizeof c.name, "dst");
    Experiment *dst = open_exp(&c);
    int64_t n0;
    float *before = params_of(dst->model, &n0);
    struct {
        const char *what, *expect;
        size_t cut, flip;
    } cases[] = {
        {"truncated", "truncated", len / 2, 0},
        {"a flipped bit in the data", "checksum", len, len - 9},
        {"a flipped bit in the header", "", len, 40},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char *copy = malloc(len);
        memcpy(copy, bytes, len);
        if (cases[k].flip) copy[cases[k].flip] ^= 0x10;
        FILE *f = fopen(bad, "wb");
        fwrite(copy, 1, cases[k].cut, f);
        fclose(f);
        free(copy);
        int rc = checkpoint_load(dst->trainer, bad);
        ck_assert_msg(rc != ERR_OK, "%s: loaded", cases[k].what);
        ck_assert_msg(strstr(err_message(), bad) && strstr(err_message(), cases[k].expect),
                      "%s: %s", cases[k].what, err_message());
    }
    /* Another model: 32 hidden units instead of 24. */
    ExperimentConfig other = c;
    snprintf(other.name, sizeof other.name, "wide");
    other.hidden[0] = 32;
    Experiment *wide = open_exp(&other);
    int rc = checkpoint_load(wide->trainer, good);
    ck_assert_int_eq(rc, ERR_FORMAT);
    ck_assert_msg(strstr(err_message(), "model.fc1.weight") && strstr(err_message(), "another model"),
                  "%s", err_message());
    /* Another optimizer. */
    ExperimentConfig adam = c;
    snprintf(adam.name, sizeof adam.name, "adam");
    snprintf(adam.optimizer, sizeof adam.optimizer, "adam");
    Experiment *ea = open_exp(&adam);
    ck_assert_int_eq(checkpoint_load(ea->trainer, good), ERR_FORMAT);
    ck_assert_msg(strstr(err_message(), "optimizer"), "%s", err_message());
    /* A newer format version. */
    SafeTensors *st;
    ck_assert_int_eq(safetensors_load(good, &st), ERR_OK);
    StTensor ts[64];
    int nt = safetensors_count(st);
    for (int i = 0; i < nt; i++) ts[i] = *safetensors_get(st, i);
    const char *meta[] = {"wb.format", CHECKPOINT_FORMAT, "wb.version", "2"};
    ck_assert_int_eq(safetensors_save(bad, ts, nt, meta, 2), ERR_OK);
    safetensors_free(st);
    ck_assert_int_eq(checkpoint_load(dst->trainer, bad), ERR_FORMAT);
    ck_assert_msg(strstr(err_message(), "version 2"), "%s", err_message());
    int64_t n1;
    float *after = params_of(dst->model, &n1);
    ck_assert_msg(memcmp(before, after, sizeof(float) * (size_t)n0) == 0,
                  "a refused checkpoint changed the model");
    ck_assert_int_eq(dst->trainer->epoch, 0);
    free(before), free(after), free(bytes);
    experiment_free(src), experiment_free(dst), experiment_free(wide), experiment_free(ea);
    remove_root();
}
END_TEST

static void die_halfway(size_t written)
{
    if (written > 4096) raise(SIGKILL);
}

/* A kill in the middle of a save leaves the last checkpoint as it was. */
START_TEST(test_kill_during_save_keeps_the_last_checkpoint)
{
    make_root();
    ExperimentConfig c = small("k");
    c.hidden[0] = 256; /* a checkpoint of some size, written in several chunks */
    c.epochs = 3;
    Experiment *e = open_exp(&c);
    run(e, 1);
    char *before;
    size_t len;
    ck_assert_int_eq(fileio_read(e->checkpoint, &before, &len), ERR_OK);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        safetensors_set_write_hook(die_halfway);
        int rc = trainer_call(e->trainer, 2); /* its checkpoint save is killed */
        _exit(rc == 0 ? 0 : 3);
    }
    int status;
    waitpid(pid, &status, 0);
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "the save was not killed");
    char *after;
    size_t len2;
    ck_assert_int_eq(fileio_read(e->checkpoint, &after, &len2), ERR_OK);
    ck_assert(len == len2 && memcmp(before, after, len) == 0);
    snprintf(c.name, sizeof c.name, "k2");
    Experiment *again = open_exp(&c);
    ck_assert_msg(checkpoint_load(again->trainer, e->checkpoint) == ERR_OK, "%s", err_message());
    ck_assert_int_eq(again->trainer->epoch, 1);
    free(before), free(after);
    experiment_free(e), experiment_free(again);
    remove_root();
}
END_TEST

/* A loss that becomes NaN in f32 stops the trainer with a clear error, and nothing of that
 * epoch is saved: the checkpoint on disk is the last good epoch's. */
START_TEST(test_nan_loss_stops_cleanly)
{
    make_root();
    ExperimentConfig c = small("nan");
    snprintf(c.scheduler, sizeof c.scheduler, "none");
    Experiment *e = open_exp(&c);
    run(e, 1);
    ck_assert_int_eq(optim_set_lr(e->opt, 1e18f), ERR_OK); /* far too big: the weights blow up */
    int rc = trainer_call(e->trainer, 0);
    ck_assert_int_eq(rc, ERR_NUMERIC);
    ck_assert_msg(strstr(err_message(), "epoch 2") && strstr(err_message(), "diverged") &&
                      strstr(err_message(), "learning rate"),
                  "%s", err_message());
    ck_assert(e->trainer->stop);
    ck_assert_int_eq(e->trainer->epoch, 1);
    snprintf(c.name, sizeof c.name, "nan2");
    Experiment *again = open_exp(&c);
    ck_assert_int_eq(checkpoint_load(again->trainer, e->checkpoint), ERR_OK);
    ck_assert_int_eq(again->trainer->epoch, 1);
    ck_assert(isfinite(again->trainer->hist.train_loss[0]));
    experiment_free(again);
    experiment_free(e);
    remove_root();
}
END_TEST

/* Early stopping ends the run; the metrics file has one row per epoch done. */
START_TEST(test_early_stopping_and_metrics)
{
    make_root();
    ExperimentConfig c = small("es");
    c.epochs = 40;
    c.lr = 0.2f;
    snprintf(c.scheduler, sizeof c.scheduler, "none");
    c.patience = 2, c.min_delta = 0.05f;
    Experiment *e = open_exp(&c);
    run(e, 0);
    ck_assert(e->trainer->stop && e->trainer->epoch < 40);
    ck_assert_msg(strstr(e->trainer->stop_reason, "no improvement"), "%s", e->trainer->stop_reason);
    /* One best: the trainer's (the best model saved) is early stopping's, min_delta and all. */
    char want[64];
    snprintf(want, sizeof want, "(best %.4f at epoch %ld)", (double)e->trainer->best_val_loss,
             e->trainer->best_epoch);
    ck_assert_msg(strstr(e->trainer->stop_reason, want), "the trainer's best %s, early "
                  "stopping's reason: %s", want, e->trainer->stop_reason);
    char *text;
    size_t len;
    ck_assert_int_eq(fileio_read(e->metrics, &text, &len), ERR_OK);
    long lines = 0;
    for (size_t i = 0; i < len; i++) lines += text[i] == '\n';
    ck_assert_int_eq(lines, e->trainer->epoch + 1);
    free(text);
    experiment_free(e);
    remove_root();
}
END_TEST

/* An improvement smaller than min_delta is not a new best: the trainer, the best model, the
 * checkpoint (which checks the best against the history) and early stopping name one best. */
START_TEST(test_the_best_needs_more_than_min_delta)
{
    make_root();
    ExperimentConfig c = small("best");
    c.epochs = 5, c.patience = 2, c.min_delta = 0.01;
    snprintf(c.scheduler, sizeof c.scheduler, "none");
    Experiment *e = open_exp(&c);
    const float val[] = {1.0f, 0.5f, 0.495f, 0.6f};
    const long best[] = {1, 2, 2, 2};
    for (long k = 1; k <= 4; k++) {
        EpochStats st = {0.7f, val[k - 1], 0.5f, e->trainer->opt->lr, 0};
        e->trainer->epoch_start = 0;
        e->trainer->opt->step = k; /* as if the epoch had trained: one step */
        ck_assert_msg(trainer_end_epoch(e->trainer, k, &st) == ERR_OK, "%s", err_message());
        e->trainer->epoch = k;
        ck_assert_int_eq(e->trainer->best_epoch, best[k - 1]);
    }
    ck_assert(e->trainer->best_val_loss == 0.5f);
    ck_assert_msg(strstr(e->trainer->stop_reason, "(best 0.5000 at epoch 2)"), "%s",
                  e->trainer->stop_reason);
    snprintf(c.name, sizeof c.name, "again");
    Experiment *f = NULL;
    ck_assert_msg(experiment_open_resumed(&c, g_root, e->checkpoint, &f) == ERR_OK, "%s",
                  err_message());
    ck_assert_int_eq(f->trainer->best_epoch, 2);
    experiment_free(f);
    c.min_delta = 0; /* under another rule the saved best is not the history's */
    ck_assert_int_eq(experiment_open_resumed(&c, g_root, e->checkpoint, &f), ERR_FORMAT);
    ck_assert_msg(strstr(err_message(), "min_delta"), "%s", err_message());
    experiment_free(e);
    remove_root();
}
END_TEST

/* A run of 12 epochs resumed with 15 configured: its scheduler keeps the checkpoint's T_max
 * (or step_size), as PyTorch's load_state_dict() does, and the rates of epochs 13 to 15 are
 * PyTorch's (tests/fixtures/sched_resume.txt, by tests/gen_fixtures.py): for the cosine, 0,
 * then back up, not 0 three times (a T_max of 15 from the config would keep the rate at 0). */
START_TEST(test_resume_past_the_schedules_end_follows_pytorch)
{
    static const char *const cases[] = {"cosine", "steplr"};
    const char *name = cases[_i];
    char key[64];
    snprintf(key, sizeof key, "%s.hyper", name);
    const float *h = fixture("sched_resume.txt", key)->data; /* lr, saved, resumed, other */
    snprintf(key, sizeof key, "%s.lrs", name);
    const Fixture *want = fixture("sched_resume.txt", key);
    make_root();
    ExperimentConfig c = small("saved");
    snprintf(c.scheduler, sizeof c.scheduler, "%s", _i == 0 ? "cosine" : "step");
    c.lr = h[0], c.epochs = 12;
    if (_i == 0) c.eta_min = h[3];
    else c.step_size = (int)h[1], c.gamma = h[3];
    ck_assert_int_eq(_i == 0 ? c.epochs : c.step_size, (long)h[1]);
    Experiment *saved = open_exp(&c);
    run(saved, 0);
    snprintf(c.name, sizeof c.name, "resumed");
    c.epochs = want->n;
    if (_i == 1) c.step_size = (int)h[2];
    ck_assert_int_eq(_i == 0 ? c.epochs : c.step_size, (long)h[2]);
    Experiment *e = NULL;
    ck_assert_msg(experiment_open_resumed(&c, g_root, saved->checkpoint, &e) == ERR_OK, "%s",
                  err_message());
    e->trainer->opts.progress = false;
    ck_assert(sched_past_end(e->trainer->sched, c.epochs) == (_i == 0));
    run(e, 0);
    ck_assert_int_eq(e->trainer->hist.n, want->n);
    assert_close(name, e->trainer->hist.lr, want->data, want->n, 1e-12, 1.2e-7);
    experiment_free(saved), experiment_free(e);
    remove_root();
}
END_TEST

/* Configs: typos, wrong types and bad combinations, each named with file and line. */
START_TEST(test_config_errors)
{
    ExperimentConfig c;
    experiment_config_default(&c);
    struct {
        const char *text, *expect;
    } bad[] = {
        {"{\"epochs\": 5,\n \"lerning_rate\": 0.1}", "cfg.json:2: unknown key \"lerning_rate\""},
        {"{\"epochs\": \"20\"}", "\"epochs\" must be a whole number, got the string \"20\""},
        {"{\"optimizer\": \"adma\"}", "did you mean \"adam\""},
        {"{\"grad_scaler\": true}", "\"precision\": \"float16\""},
        {"{\"epochs\": 5,}", "cfg.json:1:"},
        {"{\"hidden\": [64, 0]}", "\"hidden[1]\""},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ExperimentConfig before = c;
        int rc = experiment_config_parse(bad[i].text, strlen(bad[i].text), "cfg.json", &c);
        ck_assert_msg(rc == ERR_FORMAT, "%s: accepted", bad[i].text);
        ck_assert_msg(strstr(err_message(), bad[i].expect), "%s: %s", bad[i].text, err_message());
        ck_assert_msg(memcmp(&before, &c, sizeof c) == 0, "%s: changed the config", bad[i].text);
    }
    const char *good = "{\"epochs\": 7, \"hidden\": [32, 16], \"optimizer\": \"adam\"}";
    ck_assert_int_eq(experiment_config_parse(good, strlen(good), "cfg.json", &c), ERR_OK);
    ck_assert_int_eq(c.epochs, 7);
    ck_assert_int_eq(c.n_hidden, 2);
    char *json;
    ck_assert_int_eq(experiment_config_json(&c, true, &json), ERR_OK);
    ExperimentConfig back;
    experiment_config_default(&back);
    ck_assert_int_eq(experiment_config_parse(json, strlen(json), "round trip", &back), ERR_OK);
    ck_assert(memcmp(&back, &c, sizeof c) == 0);
    free(json);
}
END_TEST

Suite *trainer_suite(void)
{
    Suite *s = suite_create("trainer");
    TCase *tc = tcase_create("runs");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_resume_sgd_momentum_cosine);
    tcase_add_test(tc, test_resume_adam_step_clipped);
    tcase_add_test(tc, test_same_seed_same_run);
    tcase_add_test(tc, test_bad_checkpoints_change_nothing);
    tcase_add_test(tc, test_kill_during_save_keeps_the_last_checkpoint);
    tcase_add_test(tc, test_nan_loss_stops_cleanly);
    tcase_add_test(tc, test_early_stopping_and_metrics);
    tcase_add_loop_test(tc, test_resume_past_the_schedules_end_follows_pytorch, 0, 2);
    tcase_add_test(tc, test_the_best_needs_more_than_min_delta);
    tcase_add_test(tc, test_config_errors);
    tcase_add_test(tc, test_best_model_saved_and_loaded_back);
    suite_add_tcase(s, tc);
    return s;
}
