/*
 * Part 5: the full trainer.
 *
 * A trainer made once from a config and called (trainer_call(t, 3), then
 * trainer_call(t, 0) to go on), with callbacks, a scheduler, clipping and
 * checkpoints; a second trainer resumed from the epoch-3 checkpoint that
 * ends exactly where the uninterrupted one did; mixed precision with and
 * without a GradScaler, and the underflow it prevents; bad checkpoints and
 * configs refused with one message each; reproducibility on the CPU and, on
 * a GPU, the atomics that break it and the deterministic mode that fixes it.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lessons/lesson.h"
#include "lib/device/backend.h"
#include "lib/train/checkpoint.h"
#include "lib/core/err.h"
#include "lib/train/experiment.h"
#include "lib/core/fileio.h"
#include "lib/core/half.h"
#include "lib/io/plot.h"
#include "lib/core/rng.h"
#include "lib/core/timer.h"

#define PART 5
#define README "lessons/05_trainer/README.md"

typedef struct Options {
    const char *config; /* a JSON file, or NULL for the lesson's own */
    const char *device;
    long epochs;        /* 0: the config's */
    bool quick;
} Options;

/* The part's options; lesson37 --part 5 --help prints them from this table. */
static bool parse_options(int argc, char **argv, Options *o, int *status)
{
    const LessonOption table[] = {
        OPT_TEXT("config", &o->config, "FILE",
                 "an experiment config (JSON); default: the lesson's digits run"),
        OPT_TEXT("device", &o->device, "D", "cpu, cuda or cuda:N (default: the config's, cpu)"),
        OPT_LONG("epochs", &o->epochs, "N", 4, 100000, "epochs of the main run (default 12)"),
        OPT_SET("quick", &o->quick, "fewer epochs everywhere, for class"),
        OPT_END,
    };
    return lesson_options(PART, table, argc, argv, status);
}

/* ---- helpers ----------------------------------------------------------------------- */

static int copy_file(const char *from, const char *to)
{
    char *data;
    size_t len;
    TRY(fileio_read(from, &data, &len));
    FILE *f = fopen(to, "wb");
    int rc = f && fwrite(data, 1, len, f) == len ? ERR_OK : ERR_IO;
    if (f && fclose(f) != 0) rc = ERR_IO;
    free(data);
    return rc ? err_set(ERR_IO, "cannot write %s: %s", to, strerror(errno)) : ERR_OK;
}

static void print_epochs(const Trainer *t, long from, long to)
{
    const History *h = &t->hist;
    for (long i = from; i < to && i < h->n; i++) {
        char s[32];
        printf("    %5ld %11.4f %9.4f %7.1f%% %9.5f %9s\n", i + 1, (double)h->train_loss[i],
               (double)h->val_loss[i], 100.0 * (double)h->val_acc[i], (double)h->lr[i],
               timer_format((double)h->seconds[i], s, sizeof s));
    }
}

static void epochs_header(void)
{
    printf("    %5s %11s %9s %8s %9s %9s\n", "epoch", "train loss", "val loss", "val acc", "lr",
           "time");
}

/* Largest difference between two models' parameters. */
static double weight_diff(Module *a, Module *b)
{
    ParamRef pa[32], pb[32];
    int n = module_parameters(a, pa, 32);
    module_parameters(b, pb, 32);
    double worst = 0;
    for (int i = 0; i < n; i++) {
        Tensor *x = NULL, *y = NULL;
        if (tensor_to(pa[i].param->value, device_cpu(), &x) == ERR_OK &&
            tensor_to(pb[i].param->value, device_cpu(), &y) == ERR_OK)
            for (int64_t k = 0; k < x->numel; k++)
                worst = fmax(worst, fabs((double)tensor_f32(x)[k] - (double)tensor_f32(y)[k]));
        else
            worst = INFINITY;
        tensor_free(x);
        tensor_free(y);
    }
    return worst;
}

static void draw_metrics(const LessonContext *ctx, const char *csv)
{
    if (!ctx->plots) return;
    char png[1024];
    snprintf(png, sizeof png, "%s/05_metrics.png", ctx->out_dir);
    const char *gp = WB_ROOT "/lessons/05_trainer/metrics.gp";
    if (plot_draw(gp, csv, png, "Lesson 05: the trainer's history") != ERR_OK) {
        printf("  Plot: skipped (%s)\n", err_message());
        return;
    }
    printf("  Plot: %s\n", png);
    if (ctx->tty && !ctx->quiet && plot_draw(gp, csv, NULL, "val loss and accuracy") != ERR_OK)
        printf("  Plot in the terminal: skipped (%s)\n", err_message());
}

/* ---- 1 and 2: the trainer, called twice; a resumed copy --------------------------- */

static int section_trainer(const LessonContext *ctx, const ExperimentConfig *cfg,
                           const char *root, Experiment **kept, char *at3, size_t at3_size)
{
    printf("1. A trainer made once, then called\n");
    Experiment *e = NULL;
    TRY(experiment_open(cfg, root, &e));
    e->trainer->opts.progress = !ctx->quiet;
    char dev[16];
    printf("  %s: %s, MLP %lld", e->dir, cfg->data, (long long)e->x_train->shape[1]);
    for (int i = 0; i < cfg->n_hidden; i++) printf("-%lld", (long long)cfg->hidden[i]);
    printf("-%d, %s lr %g, %s schedule, %ld epochs of batches of %lld, clip %g, %s, on %s\n",
           e->train.n_classes, cfg->optimizer, (double)cfg->lr, cfg->scheduler, cfg->epochs,
           (long long)cfg->batch_size, (double)cfg->clip_norm, cfg->precision,
           device_str(e->device, dev, sizeof dev));
    printf("  callbacks: metrics logger, checkpoint saver%s\n",
           cfg->patience ? ", early stopping" : "");
    printf("  trainer_call(t, 3): trains epochs 1 to 3\n");
    epochs_header();
    int rc = trainer_call(e->trainer, 3);
    print_epochs(e->trainer, 0, 3);
    if (!rc) {
        snprintf(at3, at3_size, "%s/checkpoint-epoch3.safetensors", e->dir);
        rc = copy_file(e->checkpoint, at3);
    }
    if (!rc) {
        printf("  trainer_call(t, 0): goes on from epoch 4 to the configured %ld\n", cfg->epochs);
        epochs_header();
        rc = trainer_call(e->trainer, 0);
        print_epochs(e->trainer, 3, e->trainer->hist.n);
    }
    if (rc) {
        experiment_free(e);
        return rc;
    }
    const Trainer *t = e->trainer;
    if (t->stop) printf("  stopped early after epoch %ld: %s\n", t->epoch, t->stop_reason);
    printf("  best: epoch %ld, validation loss %.4f, saved to %s\n", t->best_epoch,
           (double)t->best_val_loss, e->best);
    printf("  the whole state after every epoch: %s (the epoch-3 one kept as %s)\n",
           e->checkpoint, lesson_path(at3));
    printf("  metrics: %s\n", e->metrics);
    draw_metrics(ctx, e->metrics);
    *kept = e;
    return ERR_OK;
}

static int section_resume(const ExperimentConfig *cfg, const char *root, Experiment *whole,
                          const char *at3)
{
    printf("\n2. Resuming from the epoch-3 checkpoint\n");
    ExperimentConfig c = *cfg;
    snprintf(c.name, sizeof c.name, "%.50s-resumed", cfg->name);
    Experiment *e = NULL;
    TRY(experiment_open(&c, root, &e));
    e->trainer->opts.progress = false;
    int rc = experiment_resume(e, at3);
    if (!rc) {
        const Trainer *t = e->trainer;
        printf("  a new trainer from the same config, loaded from %s: epoch %ld, lr %.5f, "
               "optimizer step %lld, loss scale %g\n",
               lesson_path(at3), t->epoch, (double)t->opt->lr, (long long)t->opt->step,
               (double)grad_scaler_factor(&t->scaler));
        rc = trainer_call(e->trainer, 0);
    }
    if (!rc) {
        const History *a = &whole->trainer->hist, *b = &e->trainer->hist;
        double worst = weight_diff(whole->model, e->model), hist = 0;
        for (long i = 0; i < a->n && i < b->n; i++)
            hist = fmax(hist, fabs((double)a->val_loss[i] - (double)b->val_loss[i]));
        bool cpu = device_is_host(e->device);
        printf("  trainer_call(t, 0) ran epochs 4 to %ld; against the uninterrupted run:\n",
               e->trainer->epoch);
        printf("    epochs %ld and %ld, weights differ by %.3g, validation losses by %.3g: %s\n",
               whole->trainer->epoch, e->trainer->epoch, worst, hist,
               worst == 0 && hist == 0 && a->n == b->n
                   ? "the same run, bit for bit"
                   : cpu ? "NOT the same run (on the CPU they should be identical)"
                         : "the same run within the GPU's rounding");
    }
    experiment_free(e);
    return rc;
}

/* ---- 3: mixed precision ------------------------------------------------------------- */

static int amp_row(const ExperimentConfig *base, const char *root, const char *precision,
                   bool scaler, const char *label)
{
    ExperimentConfig c = *base;
    snprintf(c.name, sizeof c.name, "%.40s-%s%s", base->name, precision, scaler ? "-scaled" : "");
    snprintf(c.precision, sizeof c.precision, "%s", precision);
    c.grad_scaler = scaler;
    c.patience = 0;
    Experiment *e = NULL;
    TRY(experiment_open(&c, root, &e));
    e->trainer->opts.progress = false;
    amp_stats_reset();
    double t0 = timer_now();
    int rc = trainer_call(e->trainer, 0);
    double secs = timer_now() - t0;
    if (!rc) {
        const Trainer *t = e->trainer;
        AmpStats st = amp_stats();
        long skipped = 0;
        for (long i = 0; i < t->hist.n; i++) skipped += (long)t->hist.skipped[i];
        char lost[32], sc[32], tm[32];
        if (st.rounded)
            snprintf(lost, sizeof lost, "%.2f%%", 100.0 * (double)st.underflowed / (double)st.rounded);
        else
            snprintf(lost, sizeof lost, "%s", device_is_host(e->device) ? "-" : "(CPU only)");
        snprintf(sc, sizeof sc, "%g", (double)grad_scaler_factor(&t->scaler));
        printf("    %-22s %7.1f%% %9.4f %15s %8ld %12s %9s\n", label,
               100.0 * (double)t->hist.val_acc[t->hist.n - 1],
               (double)t->hist.val_loss[t->hist.n - 1], lost, skipped, scaler ? sc : "-",
               timer_format(secs, tm, sizeof tm));
    }
    experiment_free(e);
    return rc;
}

static int amp_table(const ExperimentConfig *c, const char *root)
{
    printf("    %-22s %8s %9s %15s %8s %12s %9s\n", "precision", "val acc", "val loss",
           "grads lost", "skipped", "final scale", "time");
    TRY(amp_row(c, root, "float32", false, "float32"));
    TRY(amp_row(c, root, "float16", false, "float16, no scaler"));
    TRY(amp_row(c, root, "float16", true, "float16 + GradScaler"));
    return amp_row(c, root, "bfloat16", false, "bfloat16, no scaler");
}

static int section_amp(const ExperimentConfig *cfg, const char *root, bool quick)
{
    printf("\n3. Mixed precision: autocast to half precision, and a GradScaler\n");
    printf("  float16 holds values from %.1e (smallest subnormal) to %.0f; a gradient below "
           "that becomes 0.\n  bfloat16 has float32's range and fewer bits. \"grads lost\": "
           "non-zero gradient values that\n  rounding to half precision turned into 0 "
           "(counted in Linear's backward on the CPU).\n",
           (double)HALF_F16_MIN_SUBNORMAL, (double)HALF_F16_MAX);
    ExperimentConfig c = *cfg;
    c.epochs = quick ? 4 : 8;
    printf("  %s, %s, %ld epochs, the loss as it is:\n", c.data, c.optimizer, c.epochs);
    TRY(amp_table(&c, root));
    /* Adam's steps do not depend on the size of the gradients: a tiny loss weight changes
     * nothing in float32, and shows what small gradients do in float16. */
    snprintf(c.name, sizeof c.name, "%.50s-w", cfg->name);
    snprintf(c.optimizer, sizeof c.optimizer, "adam");
    c.lr = 0.003f;
    c.loss_weight = 1e-6f;
    c.clip_norm = 0.0f;
    printf("  the same with Adam and the loss weighted by %g, as a small term of a bigger loss "
           "or a\n  model whose gradients are tiny (Adam's steps do not depend on the weight, "
           "so float32 trains as before):\n",
           (double)c.loss_weight);
    TRY(amp_table(&c, root));
    /* What a forward pass keeps for the backward one: every module's output, measured on
     * a batch of batch_size rows. */
    Experiment *e = NULL;
    ExperimentConfig m = *cfg;
    snprintf(m.name, sizeof m.name, "%.50s-memory", cfg->name);
    TRY(experiment_open(&m, root, &e));
    int64_t rows = cfg->batch_size < e->x_train->shape[0] ? cfg->batch_size : e->x_train->shape[0];
    int64_t shape[2] = {rows, e->x_train->shape[1]};
    Tensor *x = tensor_new(DTYPE_F32, device_cpu(), 2, shape), *xd = NULL;
    const Tensor *y;
    int rc = x ? tensor_copy_rows(e->x_train, 0, rows, x) : (int)err_code();
    if (!rc) rc = tensor_to(x, e->device, &xd);
    if (!rc) rc = module_forward(e->model, xd, &y);
    int64_t kept = 0;
    for (int i = 0; !rc && i < e->model->n_children; i++) kept += e->model->children[i]->output->numel;
    if (!rc)
        printf("  memory: a forward pass on a batch of %lld keeps %lld activation values for the "
               "backward pass:\n  %lld KiB in float32, %lld KiB in half precision, which is how "
               "PyTorch's autocast stores them.\n  (This emulation keeps float32 tensors that "
               "hold half-precision values; on a GPU the matrix\n  products run in half precision "
               "on tensor cores.)\n",
               (long long)rows, (long long)kept, (long long)(kept * 4 / 1024),
               (long long)(kept * 2 / 1024));
    tensor_free(x);
    tensor_free(xd);
    experiment_free(e);
    return rc;
}

/* ---- 4: bad input ------------------------------------------------------------------ */

static void show_refusal(const char *what, int rc)
{
    printf("  %-32s %s\n", what, rc ? err_message() : "ACCEPTED (it should not be)");
}

static int write_bytes(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f) return err_set(ERR_IO, "cannot write %s: %s", path, strerror(errno));
    size_t w = fwrite(data, 1, len, f);
    if (fclose(f) != 0 || w != len) return err_set(ERR_IO, "cannot write %s", path);
    return ERR_OK;
}

static int section_bad_input(const ExperimentConfig *cfg, const char *root, Experiment *e,
                             const char *at3)
{
    printf("\n4. Bad input: refused with one message each, and nothing changed\n");
    char *good;
    size_t len;
    TRY(fileio_read(at3, &good, &len));
    char bad[700];
    snprintf(bad, sizeof bad, "%s/bad.safetensors", e->dir);
    Module *probe = e->model;
    ExperimentConfig wide = *cfg;
    snprintf(wide.name, sizeof wide.name, "%.50s-wide", cfg->name);
    wide.hidden[0] *= 2;
    Experiment *other = NULL;
    int rc = experiment_open(&wide, root, &other);
    Tensor *before = NULL;
    ParamRef p[4];
    module_parameters(probe, p, 4);
    if (!rc) rc = tensor_to(p[0].param->value, device_cpu(), &before);
    if (!rc) {
        good[len - 5] ^= 0x04; /* one bit of the last tensor's data */
        rc = write_bytes(bad, good, len);
        if (!rc) show_refusal("a bit flipped in a checkpoint:", checkpoint_load(e->trainer, bad));
        good[len - 5] ^= 0x04;
    }
    if (!rc) {
        rc = write_bytes(bad, good, len / 2);
        if (!rc) show_refusal("a checkpoint cut in half:", checkpoint_load(e->trainer, bad));
    }
    if (!rc) show_refusal("the checkpoint of another model:", checkpoint_load(other->trainer, at3));
    const char *typo = "{\n  \"epochs\": 10,\n  \"momentun\": 0.9\n}\n";
    const char *type = "{\n  \"epochs\": \"10\"\n}\n";
    ExperimentConfig c = *cfg;
    if (!rc) {
        show_refusal("a config with a typo:", experiment_config_parse(typo, strlen(typo),
                                                                       "config.json", &c));
        show_refusal("a config with a wrong type:", experiment_config_parse(type, strlen(type),
                                                                             "config.json", &c));
    }
    if (!rc) {
        Tensor *after = NULL;
        rc = tensor_to(p[0].param->value, device_cpu(), &after);
        if (!rc)
            printf("  the trainer after all that: epoch %ld, weights %s\n", e->trainer->epoch,
                   memcmp(before->data, after->data, sizeof(float) * (size_t)before->numel) == 0
                       ? "unchanged"
                       : "CHANGED");
        tensor_free(after);
    }
    remove(bad);
    tensor_free(before);
    free(good);
    experiment_free(other);
    return rc;
}

/* ---- 5: reproducibility -------------------------------------------------------------- */

static int gpu_sums(Device d, bool deterministic, int runs, int *distinct, float *first)
{
    int64_t n = 1 << 22;
    Tensor *x = tensor_new_2d(n, 1), *gx = NULL;
    Rng rng;
    rng_seed(&rng, 5, 0);
    int rc = x ? tensor_uniform(x, &rng, -1.0f, 1.0f) : (int)err_code();
    float *out = NULL, seen[16];
    if (!rc) rc = tensor_to(x, d, &gx);
    if (!rc) rc = device_alloc(d, sizeof(float), (void **)&out);
    *distinct = 0;
    for (int r = 0; r < runs && !rc; r++) {
        float v = 0;
        rc = backend_of(d)->sum(d, tensor_f32(gx), n, out, deterministic);
        if (!rc) rc = device_copy(&v, device_cpu(), out, d, sizeof v);
        bool isnew = true;
        for (int k = 0; k < *distinct; k++) isnew &= memcmp(&seen[k], &v, sizeof v) != 0;
        if (isnew && *distinct < 16) seen[(*distinct)++] = v;
        if (r == 0) *first = v;
    }
    device_free(d, out, sizeof(float));
    tensor_free(x);
    tensor_free(gx);
    return rc;
}

static int section_reproducible(const ExperimentConfig *cfg, const char *root, Experiment *e)
{
    printf("\n5. Reproducibility\n");
    ExperimentConfig c = *cfg;
    snprintf(c.name, sizeof c.name, "%.50s-again", cfg->name);
    Experiment *again = NULL;
    TRY(experiment_open(&c, root, &again));
    again->trainer->opts.progress = false;
    int rc = trainer_call(again->trainer, 0);
    if (!rc) {
        double d = weight_diff(e->model, again->model);
        char dev[16];
        printf("  the same config and seed again on %s: the weights differ by %.3g%s\n",
               device_str(e->device, dev, sizeof dev), d,
               d == 0 ? " (one seed, one run)" : "");
    }
    experiment_free(again);
    if (rc) return rc;
    int n = 0;
    Device gpu;
    if (device_count(&n) != ERR_OK || device_from_string("cuda", &gpu) != ERR_OK) {
        printf("  a GPU sum with atomics against the deterministic one: skipped (%s)\n",
               err_message());
        return ERR_OK;
    }
    DeviceInfo info;
    bool sim = device_info(gpu, &info) == ERR_OK && info.simulated;
    int runs = 8, d_atomic = 0, d_ordered = 0;
    float a0 = 0, o0 = 0;
    TRY(gpu_sums(gpu, false, runs, &d_atomic, &a0));
    TRY(gpu_sums(gpu, true, runs, &d_ordered, &o0));
    printf("  the sum of 4M floats on %s, %d times: with atomics %d different result%s (%.9g, "
           "...),\n  in a fixed order (deterministic mode) %d (%.9g)%s\n",
           sim ? "the CUDA simulator" : info.name, runs, d_atomic, d_atomic == 1 ? "" : "s",
           (double)a0, d_ordered, (double)o0,
           sim ? "; the simulator runs blocks one after another, so this sum never varies there" : "");
    return ERR_OK;
}

/* ---- the part -------------------------------------------------------------------------- */

static void lesson_config(ExperimentConfig *c, bool quick)
{
    experiment_config_default(c);
    snprintf(c->name, sizeof c->name, "lesson05");
    c->hidden[0] = 64;
    c->lr = 0.1f;
    c->epochs = quick ? 6 : 12;
    c->clip_norm = 1.0f;
    c->patience = 4;
    c->min_delta = 0.001f;
    c->num_workers = 1;
}

int lesson05_run(const LessonContext *ctx, int argc, char **argv)
{
    Options o = {NULL, NULL, 0, false};
    int rc;
    if (!parse_options(argc, argv, &o, &rc)) return rc;
    lesson_heading(PART, "The full trainer", README);
    ExperimentConfig cfg;
    lesson_config(&cfg, o.quick);
    if (o.config && (rc = experiment_config_load(o.config, &cfg))) {
        lesson_error(PART, err_message());
        return LESSON_BAD_INPUT;
    }
    if (o.device) snprintf(cfg.device, sizeof cfg.device, "%s", o.device);
    if (o.epochs) cfg.epochs = o.epochs;
    char root[600];
    snprintf(root, sizeof root, "%s/experiments", ctx->out_dir);
    Experiment *e = NULL;
    char at3[700] = "";
    rc = section_trainer(ctx, &cfg, root, &e, at3, sizeof at3);
    if (!rc) rc = section_resume(&cfg, root, e, at3);
    if (!rc) rc = section_amp(&cfg, root, o.quick);
    if (!rc) rc = section_bad_input(&cfg, root, e, at3);
    if (!rc) rc = section_reproducible(&cfg, root, e);
    experiment_free(e);
    if (rc) {
        lesson_error(PART, err_message());
        return err_code() == ERR_FORMAT ? LESSON_BAD_INPUT : LESSON_FAILED;
    }
    return LESSON_OK;
}
