/*
 * Part 5: the full trainer.
 *
 * A trainer made once from a config and called (trainer_call(t, 3), then
 * trainer_call(t, 0) to go on), with callbacks, a scheduler, clipping and
 * checkpoints; a second trainer resumed from the epoch-3 checkpoint that
 * ends exactly where the uninterrupted one did; mixed precision with and
 * without a GradScaler, and the underflow it prevents; bad checkpoints and
 * configs refused with one message each, and a save killed half-way;
 * reproducibility on the CPU and, on a GPU, the atomics that break it and the
 * deterministic mode that fixes it; the memory one step holds, an out of
 * memory provoked with a limit, and the same step from accumulated
 * micro-batches. With --resume FILE, only a run resumed from that checkpoint,
 * to the configured epochs.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lessons/lesson.h"
#include "lib/device/backend.h"
#include "lib/train/checkpoint.h"
#include "lib/core/err.h"
#include "lib/train/experiment.h"
#include "lib/core/fileio.h"
#include "lib/core/half.h"
#include "lib/io/plot.h"
#include "lib/nn/layers.h"
#include "lib/train/train.h"
#include "lib/core/rng.h"
#include "lib/core/timer.h"

#define PART 5
#define README "lessons/05_trainer/README.md"

typedef struct Options {
    const char *config; /* a JSON file, or NULL for the lesson's own */
    const char *device;
    const char *resume; /* a checkpoint to go on from, or NULL */
    long epochs;        /* 0: the config's */
    bool quick;
} Options;

/* The part's options; lesson37 --part 5 --help prints them from this table. */
static bool parse_options(int argc, char **argv, Options *o, int *status)
{
    const LessonOption table[] = {
        OPT_TEXT("config", &o->config, "FILE",
                 "an experiment config (JSON); default: the lesson's digits run"),
        OPT_DEVICE("device", &o->device, "D", "cpu, cuda or cuda:N (default: the config's, cpu)"),
        OPT_LONG("epochs", &o->epochs, "N", 4, 100000, "epochs of the main run (default 12)"),
        OPT_TEXT("resume", &o->resume, "FILE",
                 "load this checkpoint into the configured trainer and train on to the "
                 "configured epochs (only that)"),
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
    int rc = fileio_save_bytes(to, "copy", data, len);
    free(data);
    return rc;
}

/* On the CUDA simulator every GPU thread runs on the CPU: its times are labelled so. */
static bool g_sim_times;
static const char *time_label(void) { return g_sim_times ? "sim time" : "time"; }

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
           time_label());
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
    printf("  callbacks: best-model saver, metrics logger, checkpoint saver%s\n",
           cfg->patience ? ", early stopping" : "");
    DeviceInfo info;
    g_sim_times = !device_is_host(e->device) && device_info(e->device, &info) == ERR_OK &&
                  info.simulated;
    err_clear();
    if (g_sim_times)
        printf("  (%s is the CUDA simulator: the \"sim time\" columns are the CPU's time running "
               "every GPU thread,\n  not a GPU's; compare them with each other, not with the CPU "
               "rows of other lessons)\n", dev);
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
           "grads lost", "skipped", "final scale", time_label());
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
    Device dev;
    DeviceInfo info;
    if (device_from_string(cfg->device, &dev) == ERR_OK && device_is_host(dev))
        printf("  (the times are the CPU's, where half precision is emulated: float32 arithmetic "
               "rounded to\n  half precision. They time the emulation, not what half precision "
               "saves, and say nothing\n  about a GPU, whose products run in half precision on "
               "tensor cores: --device cuda measures\n  that on one.)\n");
    else if (device_info(dev, &info) == ERR_OK && !info.simulated)
        printf("  (the times were measured on %s, %.80s: autocast's products ran in half "
               "precision there)\n", cfg->device, info.name);
    err_clear();
    /* Adam's steps do not depend on the size of the gradients: a tiny loss weight changes
     * nothing in float32, and shows what small gradients do in float16. */
    snprintf(c.name, sizeof c.name, "%.50s-w", cfg->name);
    snprintf(c.optimizer, sizeof c.optimizer, "adam");
    c.lr = 0.003;
    c.loss_weight = 1e-6;
    c.clip_norm = 0.0;
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
    if (!rc) rc = module_call(e->model, xd, &y); /* model(x), hooks and all */
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
    printf("  %-34s %s\n", what, rc ? err_message() : "ACCEPTED (it should not be)");
}

static int write_bytes(const char *path, const char *data, size_t len)
{
    return fileio_save_bytes(path, "checkpoint", data, len);
}

/* The checkpoint at @p from saved again to @p to with one change: metadata @p key set to
 * @p value (when key is not NULL), or the first value of tensor @p tensor set to @p x. The
 * checksum is computed afresh, as any tool that writes the file again does: what is left
 * to catch the change is the check of the values. */
static int resave_with(const char *from, const char *to, const char *key, const char *value,
                       const char *tensor, float x)
{
    SafeTensors *st = NULL;
    TRY(safetensors_load(from, &st));
    int n = safetensors_count(st), nm = safetensors_meta_count(st), k = 0, rc = ERR_OK;
    StTensor *t = calloc((size_t)n + 1, sizeof *t);
    const char **meta = calloc(2 * (size_t)nm + 2, sizeof *meta);
    float *copy = NULL;
    if (!t || !meta) rc = err_set(ERR_NOMEM, "out of memory");
    for (int i = 0; i < n && !rc; i++) {
        t[i] = *safetensors_get(st, i);
        if (tensor && !strcmp(t[i].name, tensor) && t[i].bytes >= sizeof(float)) {
            if (!(copy = malloc(t[i].bytes))) rc = err_set(ERR_NOMEM, "out of memory");
            else {
                memcpy(copy, t[i].data, t[i].bytes);
                copy[0] = x;
                t[i].data = copy;
            }
        }
    }
    for (int i = 0; i < nm && !rc; i++) {
        const char *kk = safetensors_meta_key(st, i);
        if (!strcmp(kk, "wb.crc32")) continue; /* the writer's own */
        meta[2 * k] = kk;
        meta[2 * k + 1] = key && !strcmp(kk, key) ? value : safetensors_meta(st, kk);
        k++;
    }
    if (!rc) rc = safetensors_save(to, t, n, meta, k);
    free(copy);
    free(meta);
    free(t);
    safetensors_free(st);
    return rc;
}

/* A copy of @p from without its checksum: the metadata entry "wb.crc32" taken out of the
 * header and the header padded again to a multiple of 8 bytes, what a user does when
 * told to "drop wb.crc32". */
static int drop_checksum(const char *from, const char *to)
{
    char *b;
    size_t len;
    TRY(fileio_read(from, &b, &len));
    uint64_t hl = 0;
    for (int i = 7; len >= 8 && i >= 0; i--) hl = hl << 8 | (unsigned char)b[i];
    char *at = len >= 8 && hl <= len - 8 ? strstr(b + 8, ",\"wb.crc32\":\"") : NULL;
    if (!at || at + 22 > b + 8 + hl) {
        free(b);
        return err_set(ERR_FORMAT, "%s: no checksum to drop", from);
    }
    size_t cut = 22, pad = (8 - (hl - cut) % 8) % 8; /* ,"wb.crc32":"12345678" */
    memmove(at, at + cut, (size_t)((b + 8 + hl) - (at + cut)));
    char *out = malloc(len - cut + pad);
    int rc = out ? ERR_OK : err_set(ERR_NOMEM, "out of memory");
    if (!rc) {
        uint64_t nh = hl - cut + pad;
        for (int i = 0; i < 8; i++) out[i] = (char)(nh >> (8 * i));
        memcpy(out + 8, b + 8, hl - cut);
        memset(out + 8 + hl - cut, ' ', pad);
        memcpy(out + 8 + nh, b + 8 + hl, len - 8 - hl);
        rc = write_bytes(to, out, len - cut + pad);
    }
    free(out);
    free(b);
    return rc;
}

/* The PATH.tmp-* files in @p dir that belong to @p name (what killed saves leave). */
static int count_leftovers(const char *dir, const char *name, char *one, size_t size)
{
    DIR *d = opendir(dir);
    int n = 0;
    size_t len = strlen(name);
    for (struct dirent *ent; d && (ent = readdir(d));)
        if (!strncmp(ent->d_name, name, len) && !strncmp(ent->d_name + len, ".tmp-", 5)) {
            if (n++ == 0) snprintf(one, size, "%s", ent->d_name);
        }
    if (d) closedir(d);
    return n;
}

static void kill_midway(size_t written)
{
    if (written > 2048) raise(SIGKILL); /* kill -9, in the middle of writing */
}

/* A save killed half-way (SIGKILL): the checkpoint stays as it was and loads; the
 * temporary file the save left is removed by the next save. */
static int show_killed_save(Experiment *e)
{
    const char *name = strrchr(e->checkpoint, '/') + 1;
    char one[300] = "";
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return err_set(ERR_IO, "fork: %s", strerror(errno));
    if (pid == 0) {
        safetensors_set_write_hook(kill_midway);
        int rc = checkpoint_save(e->trainer, e->trainer->hist.n, e->checkpoint);
        _exit(rc ? 3 : 0); /* not reached: the hook kills it */
    }
    int status = 0;
    waitpid(pid, &status, 0);
    bool killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    int left = count_leftovers(e->dir, name, one, sizeof one);
    SafeTensors *st = NULL;
    int intact = safetensors_load(e->checkpoint, &st);
    safetensors_free(st);
    printf("  a save killed half-way (%s): left %d temporary file%s (%s); %s is %s\n",
           killed ? "SIGKILL" : "NOT killed", left, left == 1 ? "" : "s", left ? one : "-",
           name, intact ? "DAMAGED" : "intact");
    TRY(checkpoint_save(e->trainer, e->trainer->hist.n, e->checkpoint));
    left = count_leftovers(e->dir, name, one, sizeof one);
    printf("  the next save (process %ld) removed what the killed one (process %ld) left: "
           "%d temporary file%s now\n",
           (long)getpid(), (long)pid, left, left == 1 ? "" : "s");
    return ERR_OK;
}

/* Single-bit flips at random places of @p good (len bytes), written to @p bad and loaded
 * into @p t: how many were accepted. */
static int count_flips(const char *good, size_t len, const char *bad, Trainer *t, int n,
                       int *accepted)
{
    char *copy = malloc(len);
    if (!copy) return err_set(ERR_NOMEM, "out of memory");
    Rng rng;
    rng_seed(&rng, 37, 5);
    *accepted = 0;
    int rc = ERR_OK;
    for (int i = 0; i < n && !rc; i++) {
        memcpy(copy, good, len);
        size_t at = (size_t)(rng_u32(&rng) % len);
        copy[at] ^= (char)(1u << (rng_u32(&rng) % 8));
        rc = write_bytes(bad, copy, len);
        if (!rc) *accepted += checkpoint_load(t, bad) == ERR_OK;
    }
    free(copy);
    return rc;
}

static int section_bad_input(const ExperimentConfig *cfg, const char *root, Experiment *e,
                             const char *at3)
{
    printf("\n4. Bad input: refused with one message each, and nothing changed\n");
    char *good = NULL, *plain = NULL;
    size_t len = 0, plain_len = 0;
    TRY(fileio_read(at3, &good, &len));
    char bad[700], unchecked[700];
    snprintf(bad, sizeof bad, "%s/bad.safetensors", e->dir);
    snprintf(unchecked, sizeof unchecked, "%s/unchecked.safetensors", e->dir);
    ExperimentConfig wide = *cfg, scratch = *cfg;
    snprintf(wide.name, sizeof wide.name, "%.50s-wide", cfg->name);
    snprintf(scratch.name, sizeof scratch.name, "%.50s-scratch", cfg->name);
    wide.hidden[0] *= 2;
    Experiment *other = NULL, *probe = NULL;
    unsigned char *before = NULL, *after = NULL;
    size_t n_before = 0, n_after = 0;
    int rc = experiment_open(&wide, root, &other);
    if (!rc) rc = experiment_open(&scratch, root, &probe);
    if (!rc) rc = checkpoint_state_bytes(e->trainer, &before, &n_before);
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
    /* Files written again by a tool, with a checksum that matches what they hold. */
    if (!rc) rc = resave_with(at3, bad, "optim.lr", "-0x1p-4", NULL, 0);
    if (!rc) show_refusal("a negative learning rate:", checkpoint_load(e->trainer, bad));
    if (!rc) rc = resave_with(at3, bad, "scaler.scale", "inf", NULL, 0);
    if (!rc) show_refusal("a loss scale of inf:", checkpoint_load(e->trainer, bad));
    if (!rc) rc = resave_with(at3, bad, NULL, NULL, "model.fc1.weight", NAN);
    if (!rc) show_refusal("a NaN weight:", checkpoint_load(e->trainer, bad));
    /* A plain safetensors file, as Python's save_file(model.state_dict(), path) writes it. */
    if (!rc) {
        ParamRef p[8];
        int n = module_parameters(e->model, p, 8);
        StTensor t[8];
        float *rows[8] = {0};
        for (int i = 0; i < n && !rc; i++) {
            const Tensor *v = p[i].param->value;
            Tensor *cpu = NULL;
            rc = tensor_to(v, device_cpu(), &cpu);
            if (!rc && !(rows[i] = malloc(sizeof(float) * (size_t)v->numel)))
                rc = err_set(ERR_NOMEM, "out of memory");
            if (!rc) rc = tensor_get_rows(cpu, rows[i]);
            tensor_free(cpu);
            snprintf(t[i].name, sizeof t[i].name, "%.200s", p[i].name); /* "fc1.weight" */
            t[i].dtype = DTYPE_F32, t[i].ndim = v->ndim;
            for (int d = 0; d < v->ndim; d++) t[i].shape[d] = v->shape[d];
            t[i].data = rows[i], t[i].bytes = sizeof(float) * (size_t)v->numel;
        }
        if (!rc) rc = safetensors_save(bad, t, n, NULL, 0);
        for (int i = 0; i < n; i++) free(rows[i]);
        if (!rc) show_refusal("PyTorch's state_dict, as it is:", checkpoint_load_weights(e->model, bad));
    }
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
        /* What a config holds is what its file says: written and read back, the same. */
        const char *tiny = "{\"lr\": 1e-9}";
        ExperimentConfig back = *cfg;
        char *text = NULL;
        rc = experiment_config_parse(tiny, strlen(tiny), "config.json", &c);
        if (!rc) rc = experiment_config_json(&c, false, &text);
        if (!rc) rc = experiment_config_parse(text, strlen(text), "written", &back);
        if (!rc) {
            const char *num = strstr(text, "\"lr\":") + 5;
            printf("  a config with %s: written back as \"lr\": %.*s, read again: %s\n", tiny,
                   (int)strcspn(num, ",}"), num,
                   memcmp(&back.lr, &c.lr, sizeof c.lr) == 0 ? "the same value" : "ANOTHER VALUE");
        }
        free(text);
    }
    if (!rc) rc = show_killed_save(e);
    /* What the checksum is for: single-bit flips, in the file as saved and in a copy
     * without its checksum, where only the checks of the values are left. */
    if (!rc) rc = drop_checksum(at3, unchecked);
    if (!rc) rc = fileio_read(unchecked, &plain, &plain_len);
    int flips = 200, kept = 0, kept_unchecked = 0;
    if (!rc) rc = count_flips(good, len, bad, probe->trainer, flips, &kept);
    if (!rc) rc = count_flips(plain, plain_len, bad, probe->trainer, flips, &kept_unchecked);
    if (!rc)
        printf("  %d single-bit flips: with the checksum %d accepted; without it %d accepted "
               "(an unchecked file is\n  checked only as far as its values can be: a flipped "
               "bit that leaves a weight finite is not seen)\n",
               flips, kept, kept_unchecked);
    if (!rc) rc = checkpoint_state_bytes(e->trainer, &after, &n_after);
    if (!rc) {
        bool same = n_before == n_after && memcmp(before, after, n_before) == 0;
        printf("  the trainer after all that: epoch %ld, weights %s; its optimizer, scheduler, "
               "loss scaler and\n  history %s (compared bit for bit)\n",
               e->trainer->epoch, same ? "unchanged" : "CHANGED", same ? "too" : "CHANGED");
    }
    remove(bad);
    remove(unchecked);
    free(before);
    free(after);
    free(good);
    free(plain);
    experiment_free(other);
    experiment_free(probe);
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

/* ---- 6. memory: what training holds, running out, accumulating gradients -------------- */

/* A model, its loss and optimizer, made on @p d from the seed of @p cfg (the same weights
 * every time), and SGD with momentum 0.9 (one buffer per weight). */
typedef struct MemRun {
    Module *model;
    Loss *loss;
    Optimizer *opt;
} MemRun;

static void mem_run_free(MemRun *r)
{
    optim_free(r->opt);
    loss_free(r->loss);
    module_free(r->model);
    *r = (MemRun){0};
}

static int mem_model(const ExperimentConfig *cfg, const Experiment *e, MemRun *r)
{
    Rng rng;
    rng_seed(&rng, cfg->seed, 0);
    r->model = mlp_new("mlp", e->train.n_features, cfg->hidden, cfg->n_hidden,
                       e->train.n_classes, &rng);
    if (!r->model) return err_code();
    return module_to(r->model, e->device);
}

static int mem_optimizer(const ExperimentConfig *cfg, MemRun *r)
{
    r->loss = loss_cross_entropy_new();
    if (r->loss) r->opt = optim_sgd_momentum_new(r->model, (float)cfg->lr, 0.9f, 0.0f, false);
    return r->loss && r->opt ? ERR_OK : (int)err_code();
}

/* Rows [start, start + n) of the training data on the lesson's device: features and labels. */
static int mem_batch(const Experiment *e, int64_t start, int64_t n, Tensor **x, Tensor **y)
{
    Tensor *host = tensor_new_2d(n, e->train.n_features);
    int rc = host ? tensor_copy_rows(e->x_train, start, n, host) : (int)err_code();
    Tensor *labels = rc ? NULL : tensor_new(DTYPE_I32, device_cpu(), 1, (int64_t[]){n});
    if (!rc && !labels) rc = err_code();
    if (!rc) memcpy(tensor_i32(labels), tensor_i32(e->train.y) + start, sizeof(int32_t) * (size_t)n);
    if (!rc) rc = tensor_to(host, e->device, x);
    if (!rc) rc = tensor_to(labels, e->device, y);
    tensor_free(host);
    tensor_free(labels);
    return rc;
}

static void mem_row(const char *phase, Device d, size_t base)
{
    DeviceMemory m = device_memory(d);
    printf("    %-52s %9.1f KiB %9.1f KiB\n", phase, (double)(m.in_use - base) / 1024.0,
           (double)(m.peak - base) / 1024.0);
}

/* The model's weights, copied to the CPU, one after the other. */
static int mem_weights(Module *m, float **out, int64_t *n)
{
    ParamRef p[8];
    int k = module_parameters(m, p, 8);
    *n = 0;
    for (int i = 0; i < k; i++) *n += p[i].param->value->numel;
    if (!(*out = malloc(sizeof(float) * (size_t)*n))) return err_set(ERR_NOMEM, "out of memory");
    for (int i = 0, at = 0; i < k; at += (int)p[i].param->value->numel, i++) {
        Tensor *c = NULL;
        TRY(tensor_to(p[i].param->value, device_cpu(), &c));
        int rc = tensor_get_rows(c, *out + at);
        tensor_free(c);
        TRY(rc);
    }
    return ERR_OK;
}

static int section_memory(const ExperimentConfig *cfg, const Experiment *e)
{
    Device d = e->device;
    char name[24];
    device_str(d, name, sizeof name);
    int64_t rows = e->x_train->shape[0] < 1024 ? e->x_train->shape[0] : 1024, half = rows / 2;
    printf("\n6. Memory: what a training step holds, running out, and accumulating gradients\n");
    printf("  tensor memory on %s (device_memory: what tensors asked for; PyTorch's "
           "memory_allocated and\n  max_memory_allocated), beyond what the lesson held "
           "before, for one step of SGD with momentum\n  on a batch of %lld rows:\n",
           name, (long long)rows);
    printf("    %-52s %13s %13s\n", "", "allocated", "peak");
    size_t base = device_memory(d).in_use;
    device_reset_peak_memory(d);
    MemRun a = {0};
    Tensor *x = NULL, *y = NULL, *xs[2] = {NULL, NULL}, *ys[2] = {NULL, NULL};
    float *full_w = NULL, *acc_w = NULL;
    int64_t nw = 0;
    float full_loss = 0, acc_loss = 0;
    const Tensor *logits, *dlogits;
    int rc = mem_model(cfg, e, &a);
    if (!rc) mem_row("the model (weights and their gradients)", d, base);
    if (!rc) rc = mem_optimizer(cfg, &a);
    if (!rc) mem_row("+ the optimizer (a momentum buffer per weight)", d, base);
    size_t fixed = device_memory(d).in_use - base;
    if (!rc) rc = mem_batch(e, 0, rows, &x, &y);
    if (!rc) mem_row("+ the batch (inputs and labels)", d, base);
    if (!rc) rc = optim_zero_grad(a.opt);
    if (!rc) rc = module_call(a.model, x, &logits);
    if (!rc) rc = loss_forward(a.loss, logits, y, &full_loss);
    if (!rc) mem_row("after forward and loss (activations kept for backward)", d, base);
    if (!rc) rc = loss_backward(a.loss, &dlogits);
    if (!rc) rc = module_backward(a.model, dlogits, NULL);
    if (!rc) mem_row("after backward (each layer's input gradient)", d, base);
    if (!rc) rc = optim_step(a.opt);
    if (!rc) mem_row("after the optimizer step", d, base);
    size_t peak_full = device_memory(d).peak - base;
    if (!rc) rc = mem_weights(a.model, &full_w, &nw);
    tensor_free(x), tensor_free(y), x = y = NULL;
    mem_run_free(&a);
    if (!rc) mem_row("all of it freed", d, base);
    if (!rc)
        printf("  (freed memory goes back at once: lib keeps no cache, so there is nothing for "
               "an empty_cache()\n  to give back)\n");

    /* Out of memory on purpose: a limit between what the whole batch needs and what half
     * of it does, as torch.cuda.set_per_process_memory_fraction sets one. */
    size_t limit = fixed + (peak_full - fixed) * 3 / 4;
    if (!rc) {
        device_set_memory_limit(d, base + limit);
        printf("  with a limit of %.1f KiB above that (device_set_memory_limit), the same step "
               "on the whole batch:\n", (double)limit / 1024.0);
        rc = mem_model(cfg, e, &a);
        if (!rc) rc = mem_optimizer(cfg, &a);
        if (!rc) rc = mem_batch(e, 0, rows, &x, &y);
        if (!rc) rc = train_step(a.model, a.loss, a.opt, x, y, NULL);
        if (rc == ERR_NOMEM) printf("    refused: %s\n", err_message());
        else if (!rc) printf("    NOT refused: the limit is too high for this model\n");
        if (rc == ERR_NOMEM) rc = ERR_OK;
        tensor_free(x), tensor_free(y), x = y = NULL;
        mem_run_free(&a);
    }
    /* The recovery: the same model from the start, half the rows at a time, one step. */
    if (!rc) rc = mem_model(cfg, e, &a);
    if (!rc) rc = mem_optimizer(cfg, &a);
    if (!rc) device_reset_peak_memory(d);
    if (!rc) rc = mem_batch(e, 0, half, &xs[0], &ys[0]);
    if (!rc) rc = mem_batch(e, half, rows - half, &xs[1], &ys[1]);
    if (!rc)
        rc = train_step_accumulated(a.model, a.loss, a.opt, (const Tensor *const *)xs,
                                    (const Tensor *const *)ys, 2, &acc_loss);
    size_t peak_acc = device_memory(d).peak - base;
    device_set_memory_limit(d, 0);
    if (!rc) rc = mem_weights(a.model, &acc_w, &nw);
    if (!rc) {
        double diff = 0, largest = 0;
        for (int64_t i = 0; i < nw; i++) {
            diff = fmax(diff, fabs((double)acc_w[i] - (double)full_w[i]));
            largest = fmax(largest, fabs((double)full_w[i]));
        }
        double tol = 1e-6 * largest;
        printf("  two micro-batches of %lld and %lld rows, their gradients accumulated "
               "(train_step_accumulated, exercise 05.6):\n    peak %.1f KiB, under the limit; "
               "loss %.6f against the whole batch's %.6f;\n    the weights after the step "
               "differ from the whole batch's by at most %.2g (%s the tolerance %.2g,\n    "
               "a millionth of the largest weight: the sums are added in another order)\n",
               (long long)half, (long long)(rows - half), (double)peak_acc / 1024.0,
               (double)acc_loss, (double)full_loss, diff, diff <= tol ? "within" : "BEYOND", tol);
    }
    for (int i = 0; i < 2; i++) tensor_free(xs[i]), tensor_free(ys[i]);
    mem_run_free(&a);
    free(full_w);
    free(acc_w);
    return rc;
}

/* ---- --resume FILE ------------------------------------------------------------------------ */

/* The configured trainer, loaded from @p path and trained on to the configured epochs: a
 * refused file ends the part before any training, with its one message. */
static int run_resumed(const LessonContext *ctx, const ExperimentConfig *cfg, const char *root,
                       const char *path)
{
    char shown[600]; /* as every message shows it: control and bidi characters escaped */
    printf("Resuming from %s\n", err_escape(path, strlen(path), 400, shown, sizeof shown));
    Experiment *e = NULL;
    TRY(experiment_open_resumed(cfg, root, path, &e)); /* refused: the folder is untouched */
    e->trainer->opts.progress = !ctx->quiet;
    int rc = ERR_OK;
    const Trainer *t = e->trainer;
    printf("  %s: epoch %ld of %ld, lr %.5f, optimizer step %lld, loss scale %g, best epoch %ld\n",
           e->dir, t->epoch, t->opts.epochs, (double)t->opt->lr, (long long)t->opt->step,
           (double)grad_scaler_factor(&t->scaler), t->best_epoch);
    long from = t->epoch;
    if (t->sched && from < t->opts.epochs && sched_past_end(t->sched, t->opts.epochs))
        printf("  epochs %ld to %ld are past the schedule's end (the checkpoint's T_max %d, which "
               "a resume keeps, as PyTorch's load_state_dict does): the rate climbs back along "
               "the cosine\n",
               from + 1 > t->sched->state.t_max ? from + 1 : (long)t->sched->state.t_max + 1,
               t->opts.epochs, t->sched->state.t_max);
    if (from >= t->opts.epochs)
        printf("  nothing to train: the checkpoint is at the configured %ld epochs (--epochs N "
               "for more)\n",
               t->opts.epochs);
    else {
        epochs_header();
        rc = trainer_call(e->trainer, 0);
        print_epochs(e->trainer, from, e->trainer->hist.n);
    }
    if (!rc) {
        if (t->stop) printf("  stopped early after epoch %ld: %s\n", t->epoch, t->stop_reason);
        printf("  best: epoch %ld, validation loss %.4f; the whole state: %s\n", t->best_epoch,
               (double)t->best_val_loss, e->checkpoint);
    }
    experiment_free(e);
    return rc;
}

/* ---- the part -------------------------------------------------------------------------- */

static void lesson_config(ExperimentConfig *c, bool quick)
{
    experiment_config_default(c);
    snprintf(c->name, sizeof c->name, "lesson05");
    c->hidden[0] = 64;
    c->lr = 0.1;
    c->epochs = quick ? 6 : 12;
    c->clip_norm = 1.0;
    c->patience = 4;
    c->min_delta = 0.001;
    c->num_workers = 1;
}

int lesson05_run(const LessonContext *ctx, int argc, char **argv)
{
    Options o = {NULL, NULL, NULL, 0, false};
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
    if (o.resume) {
        rc = run_resumed(ctx, &cfg, root, o.resume);
        if (rc) lesson_error(PART, err_message());
        return rc ? err_code() == ERR_FORMAT || err_code() == ERR_IO ? LESSON_BAD_INPUT
                                                                       : LESSON_FAILED
                  : LESSON_OK;
    }
    Experiment *e = NULL;
    char at3[700] = "";
    rc = section_trainer(ctx, &cfg, root, &e, at3, sizeof at3);
    if (!rc) rc = section_resume(&cfg, root, e, at3);
    if (!rc) rc = section_amp(&cfg, root, o.quick);
    if (!rc) rc = section_bad_input(&cfg, root, e, at3);
    if (!rc) rc = section_reproducible(&cfg, root, e);
    if (!rc) rc = section_memory(&cfg, e);
    experiment_free(e);
    if (rc) {
        lesson_error(PART, err_message());
        return err_code() == ERR_FORMAT ? LESSON_BAD_INPUT : LESSON_FAILED;
    }
    return LESSON_OK;
}
