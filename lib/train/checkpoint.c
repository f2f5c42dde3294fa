/* checkpoint.c: the whole training state in a safetensors file, and back.
 *
 * Loading is two steps. checkpoint_stage() reads the file and checks all of it
 * against the trainer, and makes scratch copies of everything it will change:
 * the tensors already converted to lib's layout and on the trainer's device,
 * the scalars parsed and in range, the history. Nothing of the trainer is
 * touched. checkpoint_commit() then swaps the scratch tensors' memory with the
 * live ones' and assigns the scalars: pointer and value assignments only, which
 * cannot fail half-way. Saving checks what it writes with the same rules, so that
 * what the workbook writes it also reads back. */
#include "lib/train/checkpoint.h"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/err.h"
#include "lib/core/numtext.h"

#define MAX_PARAMS 64
#define MAX_TENSORS (3 * MAX_PARAMS + 8)
#define MAX_META 32

/* ---- what a checkpoint holds besides tensors, and its rules ------------------------- */

/* The scalars of a checkpoint: read from a trainer to save, or parsed from a file. */
typedef struct Scalars {
    long long epoch, best_epoch, optim_kind, optim_step, sched_last, growth, skipped;
    long long sched_step_size, sched_t_max; /* the scheduler's arguments: its kind's two */
    bool scaler_on;
    uint64_t seed;
    double best, lr, sched_base, sched_lr, scale;
    double sched_gamma, sched_eta_min;
} Scalars;

static const char *const g_series[] = {"train_loss", "val_loss", "val_acc",  "lr",
                                       "loss_scale", "seconds",  "skipped"};
#define N_SERIES 7

static float *series(const History *h, int i)
{
    float *cols[N_SERIES] = {h->train_loss, h->val_loss, h->val_acc, h->lr,
                             h->loss_scale, h->seconds,  h->skipped};
    return cols[i];
}

/* A real in [lo, hi], or the message: "PATH: metadata "KEY" is V, expected WHAT". */
static int check_real(const char *path, const char *key, double v, double lo, double hi,
                      const char *what)
{
    /* -0 is not in a range of numbers from 0 up: the file would not say it of a rate. (Its
     * sign is read from its bits: the release build's -fno-signed-zeros may drop signbit().) */
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    if (v >= lo && v <= hi && !(bits >> 63 && lo >= 0)) return ERR_OK;
    return err_set(ERR_FORMAT, "%s: metadata \"%s\" is %.9g, expected %s", path, key, v, what);
}

/* The rules every checkpoint's scalars follow, for trainer t (the same on saving). */
static int check_scalars(const char *path, const Scalars *v, const Trainer *t)
{
    long most = t->opts.epochs < t->hist.cap ? t->opts.epochs : t->hist.cap;
    if (v->epoch < 0 || v->epoch > most)
        return err_set(ERR_FORMAT, "%s: metadata \"epoch\" is %lld, beyond this trainer's %ld "
                                   "epochs: configure at least %lld epochs to resume it",
                       path, v->epoch, most, v->epoch);
    if (v->best_epoch < 0 || v->best_epoch > v->epoch)
        return err_set(ERR_FORMAT, "%s: metadata \"best_epoch\" is %lld, expected 0 to the "
                                   "epoch, %lld",
                       path, v->best_epoch, v->epoch);
    /* A validation loss is a cross-entropy, 0 or more; inf before any epoch improved. */
    if (!(v->best >= 0.0) || (isfinite(v->best) && v->best > FLT_MAX))
        return err_set(ERR_FORMAT, "%s: metadata \"best_val_loss\" is %.9g, expected a loss "
                                   "from 0 to 3.4e38, or inf before any epoch improved",
                       path, v->best);
    /* A config's "lr" and "eta_min" are at most CHECKPOINT_MAX_LR, and no scheduler goes
     * above the larger of them (the cosine's chained form, in double, may pass it by a
     * rounding error, which the optimizer's float does not keep: sched.lr is compared as
     * a float). */
    TRY(check_real(path, "optim.lr", v->lr, 0, CHECKPOINT_MAX_LR,
                   "a learning rate from 0 to 100 (a config's largest)"));
    if (v->optim_step < 0)
        return err_set(ERR_FORMAT, "%s: metadata \"optim.step\" is %lld, expected 0 or more",
                       path, v->optim_step);
    if (t->sched) {
        /* The trainer steps its scheduler once at the end of every epoch, from a
         * scheduler made with it (last_epoch 0): another count is another schedule. */
        if (v->sched_last != v->epoch)
            return err_set(ERR_FORMAT, "%s: metadata \"sched.last_epoch\" is %lld, expected "
                                       "the epoch, %lld: the scheduler steps once per epoch, and "
                                       "another count would change the learning rates from here",
                           path, v->sched_last, v->epoch);
        TRY(check_real(path, "sched.base_lr", v->sched_base, DBL_MIN, CHECKPOINT_MAX_LR,
                       "a learning rate above 0, up to 100 (a config's largest)"));
        /* The arguments PyTorch's state_dict holds too; a config's ranges. */
        if (t->sched->kind == SCHED_STEP)
            TRY(check_real(path, "sched.gamma", v->sched_gamma, DBL_MIN, 1.0,
                           "a factor above 0, up to 1 (a config's \"gamma\")"));
        else
            TRY(check_real(path, "sched.eta_min", v->sched_eta_min, 0.0, CHECKPOINT_MAX_LR,
                           "a learning rate from 0 to 100 (a config's \"eta_min\")"));
        if (!(v->sched_lr >= 0.0 && v->sched_lr <= FLT_MAX &&
              (float)v->sched_lr <= (float)CHECKPOINT_MAX_LR))
            return err_set(ERR_FORMAT, "%s: metadata \"sched.lr\" is %.9g, expected a learning "
                                       "rate from 0 to 100 (a config's largest)",
                           path, v->sched_lr);
        /* The optimizer runs at the scheduler's rate rounded to float (sched_step() sets
         * it; checkpoint_save() writes a rate set by hand as the scheduler's, as the next
         * sched_step() would take it). */
        if ((float)v->sched_lr != (float)v->lr)
            return err_set(ERR_FORMAT, "%s: metadata \"optim.lr\" is %.9g and \"sched.lr\" "
                                       "is %.17g, expected the same rate (the optimizer's is the "
                                       "scheduler's, rounded to float)",
                           path, v->lr, v->sched_lr);
    }
    /* 0 or a subnormal scale is no scale: the scaled gradients vanish or, once 1/scale
     * overflows, turn to NaN and every step is skipped; a scale of 0 never grows back. */
    TRY(check_real(path, "scaler.scale", v->scale, FLT_MIN, FLT_MAX,
                   "a loss scale from 1.2e-38 to 3.4e38 (a normal float; 0 or a subnormal "
                   "one stops the training)"));
    if (v->growth < 0 || v->growth >= t->scaler.growth_interval)
        return err_set(ERR_FORMAT, "%s: metadata \"scaler.growth_tracker\" is %lld, expected 0 "
                                   "to %d (the growth interval less one)",
                       path, v->growth, t->scaler.growth_interval - 1);
    if (v->skipped < 0 || v->skipped > LONG_MAX)
        return err_set(ERR_FORMAT, "%s: metadata \"scaler.skipped\" is %lld, expected 0 or more",
                       path, v->skipped);
    return ERR_OK;
}

/* The scalars that follow from the history (epoch values each, checked by check_series()),
 * as the trainer keeps them. */
static int check_with_history(const char *path, const Scalars *v, const float *val_loss,
                              const float *skipped, float min_delta)
{
    /* trainer_end_epoch() takes a validation loss below the best so far by more than
     * min_delta (anything finite beats inf; NaN and inf never improve) as the new best. */
    float best = INFINITY;
    long long best_epoch = 0;
    for (long long k = 0; k < v->epoch; k++)
        if (trainer_improves(val_loss[k], best, min_delta)) best = val_loss[k], best_epoch = k + 1;
    if (v->best_epoch != best_epoch)
        return err_set(ERR_FORMAT, "%s: metadata \"best_epoch\" is %lld, expected %lld: the "
                                   "last epoch whose \"history.val_loss\" beat the best before "
                                   "it by more than min_delta (%g; 0 when no epoch has one below "
                                   "inf)",
                       path, v->best_epoch, best_epoch, (double)min_delta);
    if (v->best != (double)best && best_epoch == 0)
        return err_set(ERR_FORMAT, "%s: metadata \"best_val_loss\" is %.9g, expected inf: no "
                                   "epoch has a \"history.val_loss\" below inf",
                       path, v->best);
    if (v->best != (double)best)
        return err_set(ERR_FORMAT, "%s: metadata \"best_val_loss\" is %.9g, expected %.9g: the "
                                   "\"history.val_loss\" of the best epoch, %lld",
                       path, v->best, (double)best, best_epoch);
    /* Every epoch has at least one batch (trainer_new()), and each batch steps the
     * optimizer or, under a GradScaler, is counted in "history.skipped": an epoch without a
     * skipped step made at least one step. (Not more is known: the batches per epoch change
     * with the world size a run is resumed at, and an optimizer may have stepped before
     * the trainer was made.) */
    long long least = 0;
    for (long long k = 0; k < v->epoch; k++) least += skipped[k] == 0.0f;
    if (v->optim_step < least)
        return err_set(ERR_FORMAT, "%s: metadata \"optim.step\" is %lld, expected at least "
                                   "%lld: each epoch with no skipped step in \"history.skipped\" "
                                   "made at least one optimizer step",
                       path, v->optim_step, least);
    return ERR_OK;
}

/* "[3, 2]": the row-major index of element k of a tensor of shape (ndim, shape). */
static const char *index_str(int64_t k, int ndim, const int64_t *shape, char *buf, size_t size)
{
    int64_t idx[ST_MAX_DIMS];
    for (int d = ndim - 1; d >= 0; d--) {
        idx[d] = shape[d] ? k % shape[d] : 0;
        k = shape[d] ? k / shape[d] : 0;
    }
    return safetensors_shape_str(ndim, idx, buf, size);
}

/* Every value of a model or optimizer tensor (row-major) finite; >= 0 when @p nonneg
 * (Adam's second moments). */
static int check_tensor_values(const char *path, const char *name, const float *v, int ndim,
                               const int64_t *shape, int64_t n, bool nonneg, const char *why)
{
    for (int64_t k = 0; k < n; k++) {
        if (isfinite(v[k]) && (!nonneg || v[k] >= 0.0f)) continue;
        char at[96];
        return err_set(ERR_FORMAT, "%s: tensor \"%s\" holds %g at %s, expected %s%s", path, name,
                       (double)v[k], index_str(k, ndim, shape, at, sizeof at),
                       nonneg ? "a finite number from 0 up" : "finite numbers", why);
    }
    return ERR_OK;
}

/* What each history column may hold, epoch by epoch. */
static int check_series(const char *path, int i, const float *v, int64_t n)
{
    for (int64_t k = 0; k < n; k++) {
        float x = v[k];
        bool ok;
        const char *want;
        switch (i) {
        case 0: /* train_loss */
        case 1: /* val_loss: NaN when nothing was measured, inf when it overflowed */
            ok = isnan(x) || x >= 0.0f, want = "a loss from 0 up, inf or NaN";
            break;
        case 2: /* val_acc */
            ok = isnan(x) || (x >= 0.0f && x <= 1.0f), want = "an accuracy from 0 to 1, or NaN";
            break;
        case 6: /* skipped steps */
            ok = isfinite(x) && x >= 0.0f && x == truncf(x), want = "a whole number from 0 up";
            break;
        default: /* lr, loss_scale, seconds */
            ok = isfinite(x) && x >= 0.0f, want = "a finite number from 0 up";
            break;
        }
        if (!ok)
            return err_set(ERR_FORMAT, "%s: tensor \"history.%s\" holds %g at [%lld] (epoch "
                                       "%lld), expected %s",
                           path, g_series[i], (double)x, (long long)k, (long long)k + 1, want);
    }
    return ERR_OK;
}

/* ---- saving ---------------------------------------------------------------------- */

/* What is being written: tensors with their row-major data, and metadata. */
typedef struct Writer {
    StTensor t[MAX_TENSORS];
    float *owned[MAX_TENSORS]; /* row-major copies to free */
    int n;
    char keys[MAX_META][48];
    char vals[MAX_META][64];
    const char *meta[2 * MAX_META + 2];
    int n_meta;
} Writer;

static void writer_free(Writer *w)
{
    for (int i = 0; i < w->n; i++) free(w->owned[i]);
}

static void meta_put(Writer *w, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void meta_put(Writer *w, const char *key, const char *fmt, ...)
{
    int i = w->n_meta++;
    snprintf(w->keys[i], sizeof w->keys[i], "%s", key);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->vals[i], sizeof w->vals[i], fmt, ap);
    va_end(ap);
    w->meta[2 * i] = w->keys[i];
    w->meta[2 * i + 1] = w->vals[i];
}

/* Add @p src (any device, column-major) as @p name, converted to PyTorch's row-major;
 * @p out (may be NULL) gets the row-major values. */
static int put_tensor(Writer *w, const char *prefix, const char *name, const Tensor *src,
                      const float **out)
{
    if (w->n == MAX_TENSORS) return err_set(ERR_ARG, "checkpoint: more than %d tensors",
                                            MAX_TENSORS);
    Tensor *cpu = NULL;
    if (!device_is_host(src->device)) TRY(tensor_to(src, device_cpu(), &cpu));
    const Tensor *h = cpu ? cpu : src;
    float *rows = malloc(sizeof(float) * (size_t)(h->numel ? h->numel : 1));
    int rc = rows ? tensor_get_rows(h, rows) : err_set(ERR_NOMEM, "checkpoint: out of memory");
    tensor_free(cpu);
    if (rc) {
        free(rows);
        return rc;
    }
    StTensor *t = &w->t[w->n];
    w->owned[w->n++] = rows;
    if (snprintf(t->name, sizeof t->name, "%s%s", prefix, name) >= (int)sizeof t->name)
        return err_set(ERR_ARG, "checkpoint: the name %s%s is too long", prefix, name);
    t->dtype = DTYPE_F32;
    t->ndim = src->ndim;
    for (int i = 0; i < src->ndim; i++) t->shape[i] = src->shape[i];
    t->data = rows;
    t->bytes = sizeof(float) * (size_t)src->numel;
    if (out) *out = rows;
    return ERR_OK;
}

/* A parameter or a buffer of the optimizer: its values must be finite to be saved (a
 * checkpoint of diverged weights could not be loaded back). */
static int put_checked(Writer *w, const char *path, const char *prefix, const char *name,
                       const Tensor *src, bool nonneg)
{
    const float *rows = NULL;
    TRY(put_tensor(w, prefix, name, src, &rows));
    const StTensor *t = &w->t[w->n - 1];
    return check_tensor_values(path, t->name, rows, t->ndim, t->shape, src->numel, nonneg,
                               ": the training has diverged (lower the learning rate, or clip "
                               "the gradients)");
}

/* A history column, epochs long. */
static int put_series(Writer *w, const char *path, int i, const float *v, long n)
{
    TRY(check_series(path, i, v, n));
    int64_t shape[1] = {n};
    Tensor *t = tensor_new(DTYPE_F32, device_cpu(), 1, shape);
    if (!t) return err_code();
    if (n) memcpy(tensor_f32(t), v, sizeof(float) * (size_t)n);
    int rc = put_tensor(w, "history.", g_series[i], t, NULL);
    tensor_free(t);
    return rc;
}

static int put_model(Writer *w, const char *path, Module *model)
{
    ParamRef p[MAX_PARAMS];
    int n = module_parameters(model, p, MAX_PARAMS);
    if (n > MAX_PARAMS) return err_set(ERR_ARG, "checkpoint: more than %d parameters", MAX_PARAMS);
    for (int i = 0; i < n; i++)
        TRY(put_checked(w, path, "model.", p[i].name, p[i].param->value, false));
    return ERR_OK;
}

static int save_written(Writer *w, const char *path)
{
    int rc = safetensors_save(path, w->t, w->n, w->meta, w->n_meta);
    writer_free(w);
    return rc;
}

/* The scalars of trainer t after epoch epoch. */
static Scalars scalars_of(const Trainer *t, long epoch)
{
    Scalars v = {0};
    v.epoch = epoch;
    v.best_epoch = t->best_epoch;
    v.best = t->best_val_loss;
    v.optim_kind = (long long)t->opt->kind;
    v.optim_step = t->opt->step;
    v.lr = t->opt->lr;
    if (t->sched) {
        SchedState ss;
        sched_state(t->sched, &ss);
        v.sched_last = ss.last_epoch, v.sched_base = ss.base_lr, v.sched_lr = ss.lr;
        v.sched_step_size = ss.step_size, v.sched_gamma = ss.gamma;
        v.sched_t_max = ss.t_max, v.sched_eta_min = ss.eta_min;
        /* A rate set by hand since the last sched_step(): that step would go on from it
         * (sched.h), and so does the resumed run. */
        if ((float)ss.lr != t->opt->lr) v.sched_lr = t->opt->lr;
    }
    v.scaler_on = t->scaler.enabled;
    v.scale = t->scaler.scale;
    v.growth = t->scaler.growth_tracker;
    v.skipped = t->scaler.skipped;
    v.seed = loader_seed(t->train);
    return v;
}

/* After a failed step of a save: the message names the file, and says the save failed. */
static int save_failed(const char *where)
{
    return strncmp(err_message(), where, strlen(where)) == 0 ? (int)err_code()
                                                             : err_context("%s", where);
}

int checkpoint_save(const Trainer *t, long epoch, const char *path)
{
    char where[1100];
    snprintf(where, sizeof where, "%s: cannot save", path);
    if (epoch != t->hist.n)
        return err_set(ERR_ARG, "%s: epoch %ld, but the trainer's history holds %ld epochs",
                       where, epoch, t->hist.n);
    Scalars v = scalars_of(t, epoch);
    TRY(check_scalars(where, &v, t));
    TRY(check_with_history(where, &v, t->hist.val_loss, t->hist.skipped, t->opts.min_delta));
    Writer *w = calloc(1, sizeof *w);
    if (!w) return err_set(ERR_NOMEM, "%s: out of memory", where);
    int rc = put_model(w, where, t->model);
    OptimStateRef s[3 * MAX_PARAMS];
    int ns = optim_state(t->opt, s, 3 * MAX_PARAMS);
    if (t->opt->step > 0) /* buffers hold state only after the first step */
        for (int i = 0; i < ns && !rc; i++) {
            char name[160];
            snprintf(name, sizeof name, "%s.%s", t->opt->params[s[i].param].name, s[i].name);
            rc = put_checked(w, where, "optim.", name, s[i].tensor,
                             strcmp(s[i].name, "exp_avg_sq") == 0);
        }
    for (int i = 0; i < N_SERIES && !rc; i++)
        rc = put_series(w, where, i, series(&t->hist, i), t->hist.n);
    if (rc) {
        writer_free(w);
        free(w);
        return save_failed(where);
    }
    meta_put(w, "wb.format", "%s", CHECKPOINT_FORMAT);
    meta_put(w, "wb.version", "%d", CHECKPOINT_VERSION);
    meta_put(w, "epoch", "%lld", v.epoch);
    meta_put(w, "best_val_loss", "%a", v.best);
    meta_put(w, "best_epoch", "%lld", v.best_epoch);
    meta_put(w, "optim.kind", "%lld", v.optim_kind);
    meta_put(w, "optim.step", "%lld", v.optim_step);
    meta_put(w, "optim.lr", "%a", v.lr);
    meta_put(w, "sched.kind", "%s", t->sched ? sched_name(t->sched) : "none");
    if (t->sched) {
        meta_put(w, "sched.last_epoch", "%lld", v.sched_last);
        meta_put(w, "sched.base_lr", "%a", v.sched_base);
        meta_put(w, "sched.lr", "%a", v.sched_lr);
        if (t->sched->kind == SCHED_STEP) {
            meta_put(w, "sched.step_size", "%lld", v.sched_step_size);
            meta_put(w, "sched.gamma", "%a", v.sched_gamma);
        } else {
            meta_put(w, "sched.T_max", "%lld", v.sched_t_max);
            meta_put(w, "sched.eta_min", "%a", v.sched_eta_min);
        }
    }
    meta_put(w, "scaler.enabled", "%d", v.scaler_on ? 1 : 0);
    meta_put(w, "scaler.scale", "%a", v.scale);
    meta_put(w, "scaler.growth_tracker", "%lld", v.growth);
    meta_put(w, "scaler.skipped", "%lld", v.skipped);
    meta_put(w, "loader.seed", "%" PRIu64, v.seed);
    char dev[16];
    meta_put(w, "device", "%s", device_str(t->device, dev, sizeof dev));
    int n_meta = w->n_meta;
    if (t->config_json) { /* a long value: not in the fixed-size table */
        w->meta[2 * n_meta] = "config";
        w->meta[2 * n_meta + 1] = t->config_json;
        w->n_meta++;
    }
    rc = save_written(w, path);
    free(w);
    return rc;
}

int checkpoint_save_weights(Module *model, const char *path)
{
    char where[1100];
    snprintf(where, sizeof where, "%s: cannot save", path);
    Writer *w = calloc(1, sizeof *w);
    if (!w) return err_set(ERR_NOMEM, "%s: out of memory", where);
    int rc = put_model(w, where, model);
    if (rc) {
        writer_free(w);
        free(w);
        return save_failed(where);
    }
    meta_put(w, "wb.format", "%s", CHECKPOINT_WEIGHTS_FORMAT);
    meta_put(w, "wb.version", "%d", CHECKPOINT_VERSION);
    rc = save_written(w, path);
    free(w);
    return rc;
}

/* ---- reading the metadata: strictly ------------------------------------------------- */

static int meta_text(const SafeTensors *st, const char *path, const char *key, const char **out)
{
    *out = safetensors_meta(st, key);
    if (!*out) return err_set(ERR_FORMAT, "%s: missing metadata \"%s\"", path, key);
    return ERR_OK;
}

/* A whole number in [lo, hi], written as this file writes it: decimal digits, a minus
 * sign where lo < 0, nothing else (no blanks, no '+', no "1abc"). */
static int meta_whole(const SafeTensors *st, const char *path, const char *key, long long lo,
                      long long hi, long long *out)
{
    const char *v;
    TRY(meta_text(st, path, key, &v));
    const char *digits = v + (v[0] == '-' && lo < 0);
    char *end, shown[120];
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (!digits[0] || strspn(digits, "0123456789") != strlen(digits) || errno || *end || x < lo ||
        x > hi)
        return err_set(ERR_FORMAT, "%s: metadata \"%s\" is %s, expected a whole number "
                                   "from %lld to %lld",
                       path, key, err_quote(v, strlen(v), 40, shown, sizeof shown), lo, hi);
    *out = x;
    return ERR_OK;
}

/* A 64-bit unsigned whole number (a seed). */
static int meta_u64(const SafeTensors *st, const char *path, const char *key, uint64_t *out)
{
    const char *v;
    TRY(meta_text(st, path, key, &v));
    char *end, shown[120];
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (!v[0] || strspn(v, "0123456789") != strlen(v) || errno || *end)
        return err_set(ERR_FORMAT, "%s: metadata \"%s\" is %s, expected a whole number "
                                   "from 0 to %" PRIu64,
                       path, key, err_quote(v, strlen(v), 40, shown, sizeof shown), UINT64_MAX);
    *out = x;
    return ERR_OK;
}

/* A number as %a writes it (decimal is read too, and "inf"); its range is checked by
 * check_scalars(). One that is not 0 as written but 0 once read (0x1p-2000, 1e-400), or
 * beyond a double without being written "inf" (1e400), is refused as written. */
static int meta_real(const SafeTensors *st, const char *path, const char *key, double *out)
{
    const char *v;
    TRY(meta_text(st, path, key, &v));
    char *end, shown[120];
    double x = strtod(v, &end);
    if (end == v || *end || strchr(" \t\n\r\f\v", v[0]))
        return err_set(ERR_FORMAT, "%s: metadata \"%s\" is %s, expected a number", path,
                       key, err_quote(v, strlen(v), 40, shown, sizeof shown));
    NumText t;
    bool literal = numtext_scan(v, strlen(v), &t); /* not "inf" or "nan" */
    bool nonzero = t.nonzero; /* a hexadecimal one: a digit before its 'p' is not 0 */
    for (const char *q = strpbrk(v, "xX"); t.hex && q && *q && *q != 'p' && *q != 'P'; q++)
        nonzero |= strchr("123456789abcdefABCDEF", *q) != NULL;
    if (literal && ((x == 0.0 && nonzero) || isinf(x)))
        return err_set(ERR_FORMAT, "%s: metadata \"%s\" is %s, which %s a double", path,
                       key, err_quote(v, strlen(v), 40, shown, sizeof shown),
                       isinf(x) ? "is beyond" : "is not 0 but underflows to 0 in");
    *out = x;
    return ERR_OK;
}

/* ---- files that are not this workbook's ---------------------------------------------- */

/* Whether the file holds every parameter of the model under one prefix other than
 * "model." (a PyTorch state_dict saved as it is: "fc1.weight"; DataParallel's
 * "module.fc1.weight"); the prefix goes to @p prefix. */
static bool other_prefix(const SafeTensors *st, const ParamRef *p, int n, char *prefix,
                         size_t size)
{
    if (n < 1) return false;
    size_t lp = strlen(p[0].name);
    for (int k = 0; k < safetensors_count(st); k++) {
        const char *name = safetensors_get(st, k)->name;
        size_t ln = strlen(name);
        if (ln < lp || strcmp(name + ln - lp, p[0].name) != 0) continue;
        if (ln > lp && name[ln - lp - 1] != '.') continue;
        size_t pl = ln - lp;
        if (pl == 6 && strncmp(name, "model.", 6) == 0) continue; /* this workbook's */
        if (pl >= size) continue;
        bool all = true;
        for (int i = 0; i < n && all; i++) {
            char full[ST_NAME_MAX];
            size_t li = strlen(p[i].name);
            all = pl + li < sizeof full;
            if (!all) break;
            memcpy(full, name, pl);
            memcpy(full + pl, p[i].name, li + 1);
            all = safetensors_find(st, full) != NULL;
        }
        if (!all) continue;
        snprintf(prefix, size, "%.*s", (int)pl, name);
        return true;
    }
    return false;
}

/* Before the checks of exercise 05.5: say what a file that is not this workbook's is. */
static int check_foreign(const SafeTensors *st, Module *model, const char *path)
{
    ParamRef p[MAX_PARAMS];
    int n = module_parameters(model, p, MAX_PARAMS);
    if (n > MAX_PARAMS) n = MAX_PARAMS;
    const char *format = safetensors_meta(st, "wb.format");
    char prefix[128], mine[ST_NAME_MAX + 8] = "";
    if (n > 0) snprintf(mine, sizeof mine, "model.%s", p[0].name);
    bool other = other_prefix(st, p, n, prefix, sizeof prefix);
    bool ours = n > 0 && safetensors_find(st, mine) != NULL;
    char theirs[160], named[320];
    snprintf(theirs, sizeof theirs, "%.60s%.90s", other ? prefix : "", n > 0 ? p[0].name : "");
    if (other && prefix[0])
        snprintf(named, sizeof named, "with the prefix \"%s\" (\"%s\")", prefix, theirs);
    else
        snprintf(named, sizeof named, "without a prefix (\"%s\")", theirs);
    if (other && !ours)
        return err_set(ERR_FORMAT, "%s: %sthe tensors are named %s, this workbook's with "
                                   "\"model.\" (\"%s\"): a prefix mismatch, as in a PyTorch "
                                   "state_dict saved as it is; rename them to \"model.NAME\"%s",
                       path, format ? "" : "not a checkpoint of this workbook (no wb.format): ",
                       named, mine,
                       format ? "" : " and add the metadata wb.format \"" CHECKPOINT_WEIGHTS_FORMAT
                                     "\", wb.version \"1\" to load its weights");
    if (format) return ERR_OK;
    if (ours)
        return err_set(ERR_FORMAT, "%s: not a checkpoint of this workbook (no wb.format): a plain "
                                   "safetensors file with this workbook's tensor names but not "
                                   "its metadata; add wb.format \"" CHECKPOINT_WEIGHTS_FORMAT
                                   "\" and wb.version \"1\" to its __metadata__ to load its "
                                   "weights",
                       path);
    const StTensor *first = safetensors_get(st, 0);
    return err_set(ERR_FORMAT, "%s: not a checkpoint of this workbook (no wb.format): a plain "
                               "safetensors file (as Python's safetensors.torch.save_file writes) "
                               "whose tensors (%s%s%s) are not this model's parameters (\"%s\", "
                               "...)",
                   path, first ? "\"" : "", first ? first->name : "no tensors at all",
                   first ? "\", ..." : "", mine);
}

/* ---- loading: check everything into scratch state --------------------------------- */

struct CheckpointStaged {
    Tensor *model[MAX_PARAMS];      /* the parameters' new values, on their devices */
    int n_params;
    Tensor *optim[3 * MAX_PARAMS];  /* the optimizer's new buffers (zero before a step) */
    int n_state;
    bool full;                      /* a whole training state, not only the weights */
    Scalars v;
    float *series[N_SERIES];        /* the history, epoch values each */
};

void checkpoint_staged_free(CheckpointStaged *s)
{
    if (!s) return;
    for (int i = 0; i < s->n_params; i++) tensor_free(s->model[i]);
    for (int i = 0; i < s->n_state; i++) tensor_free(s->optim[i]);
    for (int i = 0; i < N_SERIES; i++) free(s->series[i]);
    free(s);
}

/* A tensor of the file that must have @p like's shape, in F32. */
static int expect_like(const SafeTensors *st, const char *path, const char *name,
                       const Tensor *like, const char *what, const StTensor **out)
{
    const StTensor *f = safetensors_find(st, name);
    if (!f) return err_set(ERR_FORMAT, "%s: missing tensor \"%s\" (%s)", path, name, what);
    bool same = f->dtype == DTYPE_F32 && f->ndim == like->ndim;
    for (int i = 0; same && i < f->ndim; i++) same = f->shape[i] == like->shape[i];
    if (!same) {
        char a[96], b[96];
        return err_set(ERR_FORMAT, "%s: tensor \"%s\" is %s %s, expected F32 %s (%s)", path, name,
                       safetensors_dtype_name(f->dtype),
                       safetensors_shape_str(f->ndim, f->shape, a, sizeof a),
                       safetensors_shape_str(like->ndim, like->shape, b, sizeof b), what);
    }
    *out = f;
    return ERR_OK;
}

/* The row-major values of f (checked: F32, like's shape) checked and put into a new
 * tensor in lib's layout on like's device. */
static int stage_tensor(const char *path, const StTensor *f, const Tensor *like, bool nonneg,
                        Tensor **out)
{
    *out = NULL;
    TRY(check_tensor_values(path, f->name, f->data, f->ndim, f->shape, like->numel, nonneg, ""));
    Tensor *cpu = tensor_new(DTYPE_F32, device_cpu(), like->ndim, like->shape);
    if (!cpu) return err_context("%s: tensor \"%s\"", path, f->name);
    int rc = ERR_OK;
    TRY_OR_DONE(tensor_set_rows(cpu, f->data));
    if (device_is_host(like->device)) {
        *out = cpu; /* already where it goes */
        return ERR_OK;
    }
    TRY_OR_DONE(tensor_to(cpu, like->device, out));
done:
    tensor_free(cpu);
    return rc ? err_context("%s: tensor \"%s\"", path, f->name) : ERR_OK;
}

/* The model's parameters from the file into s (after exercise 05.5 has checked them). */
static int stage_model(const SafeTensors *st, Module *model, const char *path,
                       CheckpointStaged *s)
{
    ParamRef p[MAX_PARAMS];
    int n = module_parameters(model, p, MAX_PARAMS);
    if (n > MAX_PARAMS) return err_set(ERR_ARG, "checkpoint: more than %d parameters", MAX_PARAMS);
    for (int i = 0; i < n; i++) {
        char name[ST_NAME_MAX];
        if (snprintf(name, sizeof name, "model.%s", p[i].name) >= (int)sizeof name)
            return err_set(ERR_ARG, "checkpoint: the name %s is too long", p[i].name);
        const StTensor *f;
        TRY(expect_like(st, path, name, p[i].param->value, "a parameter of the model", &f));
        TRY(stage_tensor(path, f, p[i].param->value, false, &s->model[s->n_params]));
        s->n_params++;
    }
    return ERR_OK;
}

/* Everything of a full checkpoint besides the model: checked, and staged in s. */
static int stage_state(const SafeTensors *st, Trainer *t, const char *path, CheckpointStaged *s)
{
    if (strcmp(safetensors_meta(st, "wb.format"), CHECKPOINT_FORMAT) != 0)
        return err_set(ERR_FORMAT, "%s: holds only a model's weights (%s), not a training "
                                   "state: load it with checkpoint_load_weights",
                       path, CHECKPOINT_WEIGHTS_FORMAT);
    Scalars *v = &s->v;
    TRY(meta_whole(st, path, "epoch", 0, INT32_MAX, &v->epoch));
    TRY(meta_whole(st, path, "best_epoch", 0, INT32_MAX, &v->best_epoch));
    TRY(meta_real(st, path, "best_val_loss", &v->best));
    TRY(meta_whole(st, path, "optim.kind", 0, 16, &v->optim_kind));
    if (v->optim_kind != (long long)t->opt->kind)
        return err_set(ERR_FORMAT, "%s: metadata \"optim.kind\": the checkpoint's optimizer is of "
                                   "another kind (%lld) than this trainer's %s (%d): make the "
                                   "trainer as the saved run was",
                       path, v->optim_kind, optim_name(t->opt), (int)t->opt->kind);
    TRY(meta_whole(st, path, "optim.step", 0, INT64_MAX / 2, &v->optim_step));
    TRY(meta_real(st, path, "optim.lr", &v->lr));
    const char *sk = safetensors_meta(st, "sched.kind");
    const char *mine = t->sched ? sched_name(t->sched) : "none";
    if (!sk || strcmp(sk, mine) != 0)
        return err_set(ERR_FORMAT, "%s: metadata \"sched.kind\": the checkpoint's scheduler is "
                                   "%.40s, this trainer's is %s",
                       path, sk ? sk : "(missing)", mine);
    if (t->sched) {
        TRY(meta_whole(st, path, "sched.last_epoch", 0, INT64_MAX / 2, &v->sched_last));
        TRY(meta_real(st, path, "sched.base_lr", &v->sched_base));
        TRY(meta_real(st, path, "sched.lr", &v->sched_lr));
        if (t->sched->kind == SCHED_STEP) {
            TRY(meta_whole(st, path, "sched.step_size", 1, INT32_MAX, &v->sched_step_size));
            TRY(meta_real(st, path, "sched.gamma", &v->sched_gamma));
        } else {
            TRY(meta_whole(st, path, "sched.T_max", 1, INT32_MAX, &v->sched_t_max));
            TRY(meta_real(st, path, "sched.eta_min", &v->sched_eta_min));
        }
    }
    long long on;
    TRY(meta_whole(st, path, "scaler.enabled", 0, 1, &on));
    v->scaler_on = on != 0;
    if (v->scaler_on != t->scaler.enabled)
        return err_set(ERR_FORMAT, "%s: metadata \"scaler.enabled\": the checkpoint was made %s a "
                                   "GradScaler, this trainer runs %s one",
                       path, v->scaler_on ? "with" : "without",
                       t->scaler.enabled ? "with" : "without");
    TRY(meta_real(st, path, "scaler.scale", &v->scale));
    TRY(meta_whole(st, path, "scaler.growth_tracker", 0, INT32_MAX, &v->growth));
    TRY(meta_whole(st, path, "scaler.skipped", 0, INT64_MAX / 2, &v->skipped));
    TRY(meta_u64(st, path, "loader.seed", &v->seed));
    if (v->seed != loader_seed(t->train))
        return err_set(ERR_FORMAT, "%s: metadata \"loader.seed\": the checkpoint's loader seed is "
                                   "%" PRIu64 ", this trainer's is %" PRIu64 ": the resumed run "
                                   "would see other batches",
                       path, v->seed, loader_seed(t->train));
    TRY(check_scalars(path, v, t));

    /* The optimizer's buffers: from the file once it has stepped, zero before. */
    OptimStateRef r[3 * MAX_PARAMS];
    int ns = optim_state(t->opt, r, 3 * MAX_PARAMS);
    if (ns > 3 * MAX_PARAMS) return err_set(ERR_ARG, "checkpoint: more than %d buffers",
                                            3 * MAX_PARAMS);
    for (int i = 0; i < ns; i++) {
        const Tensor *like = r[i].tensor;
        if (v->optim_step > 0) {
            char name[200];
            snprintf(name, sizeof name, "optim.%s.%s", t->opt->params[r[i].param].name, r[i].name);
            const StTensor *f;
            TRY(expect_like(st, path, name, like, "the optimizer's state", &f));
            TRY(stage_tensor(path, f, like, strcmp(r[i].name, "exp_avg_sq") == 0,
                             &s->optim[s->n_state]));
        } else if (!(s->optim[s->n_state] =
                         tensor_new(DTYPE_F32, like->device, like->ndim, like->shape))) {
            return err_context("%s: the optimizer's state", path);
        }
        s->n_state++;
    }

    /* The history: one value per epoch in each column. */
    int64_t shape[1] = {v->epoch};
    Tensor *like = tensor_new(DTYPE_F32, device_cpu(), 1, shape);
    if (!like) return err_code();
    int rc = ERR_OK;
    for (int i = 0; i < N_SERIES; i++) {
        char name[64];
        snprintf(name, sizeof name, "history.%s", g_series[i]);
        const StTensor *f = NULL;
        TRY_OR_DONE(expect_like(st, path, name, like, "the history, one value per epoch", &f));
        TRY_OR_DONE(check_series(path, i, f->data, v->epoch));
        if (!(s->series[i] = malloc(sizeof(float) * (size_t)(v->epoch ? v->epoch : 1)))) {
            rc = err_set(ERR_NOMEM, "%s: out of memory for the history", path);
            goto done;
        }
        if (v->epoch) memcpy(s->series[i], f->data, sizeof(float) * (size_t)v->epoch);
    }
    rc = check_with_history(path, v, s->series[1], s->series[6], t->opts.min_delta);
done:
    tensor_free(like);
    return rc;
}

/* The checks every load makes first: the file is this workbook's, fits the model
 * (exercise 05.5), and every parameter's values are staged. */
static int stage_weights(const SafeTensors *st, Module *model, const char *path,
                         CheckpointStaged *s)
{
    TRY(check_foreign(st, model, path));
    TRY(exercise_result(checkpoint_validate(st, model, path), "05.5", "checkpoint_validate"));
    return stage_model(st, model, path, s);
}

int checkpoint_stage(Trainer *t, const char *path, CheckpointStaged **out)
{
    *out = NULL;
    SafeTensors *st = NULL;
    TRY(safetensors_load(path, &st));
    int rc = ERR_OK;
    CheckpointStaged *s = calloc(1, sizeof *s);
    if (!s) {
        rc = err_set(ERR_NOMEM, "%s: out of memory", path);
        goto done;
    }
    TRY_OR_DONE(stage_weights(st, t->model, path, s));
    TRY_OR_DONE(stage_state(st, t, path, s));
    s->full = true;
    *out = s;
    s = NULL;
done:
    safetensors_free(st);
    checkpoint_staged_free(s); /* NULL once handed out */
    return rc;
}

void checkpoint_preview(const CheckpointStaged *s, const Trainer *t, Trainer *out)
{
    *out = *t;
    out->epoch = (long)s->v.epoch;
    out->best_epoch = (long)s->v.best_epoch;
    out->best_val_loss = (float)s->v.best;
    out->stop = false;
    out->stop_reason[0] = '\0';
    out->hist.n = (long)s->v.epoch;
    float **cols[N_SERIES] = {&out->hist.train_loss, &out->hist.val_loss, &out->hist.val_acc,
                              &out->hist.lr,         &out->hist.loss_scale, &out->hist.seconds,
                              &out->hist.skipped};
    for (int i = 0; i < N_SERIES; i++) *cols[i] = s->series[i];
}

/* ---- applying: nothing here can fail ------------------------------------------------ */

/* Exchange the memory of two tensors of one dtype, shape and device. */
static void swap_data(Tensor *a, Tensor *b)
{
    void *data = a->data;
    size_t capacity = a->capacity;
    a->data = b->data, a->capacity = b->capacity;
    b->data = data, b->capacity = capacity;
}

static void commit_model(Module *model, CheckpointStaged *s)
{
    ParamRef p[MAX_PARAMS];
    module_parameters(model, p, MAX_PARAMS);
    for (int i = 0; i < s->n_params; i++) swap_data(p[i].param->value, s->model[i]);
}

void checkpoint_commit(Trainer *t, CheckpointStaged *s)
{
    commit_model(t->model, s);
    OptimStateRef r[3 * MAX_PARAMS];
    optim_state(t->opt, r, 3 * MAX_PARAMS);
    for (int i = 0; i < s->n_state; i++) swap_data(r[i].tensor, s->optim[i]);
    const Scalars *v = &s->v;
    t->opt->step = v->optim_step;
    t->opt->lr = (float)v->lr;
    if (t->sched) {
        t->sched->state.last_epoch = v->sched_last;
        t->sched->state.base_lr = v->sched_base;
        t->sched->state.lr = v->sched_lr;
        /* The saved arguments, over the config's: PyTorch's load_state_dict() does so. */
        t->sched->state.step_size = (int)v->sched_step_size;
        t->sched->state.gamma = v->sched_gamma;
        t->sched->state.t_max = (int)v->sched_t_max;
        t->sched->state.eta_min = v->sched_eta_min;
    }
    t->scaler.scale = (float)v->scale;
    t->scaler.growth_tracker = (int)v->growth;
    t->scaler.skipped = (long)v->skipped;
    t->scaler.found_inf = t->scaler.unscaled = false;
    t->epoch = (long)v->epoch;
    t->best_epoch = (long)v->best_epoch;
    t->best_val_loss = (float)v->best;
    t->stop = false;
    t->stop_reason[0] = '\0';
    t->hist.n = (long)v->epoch;
    for (int i = 0; i < N_SERIES; i++) {
        float *col = series(&t->hist, i);
        if (v->epoch) memcpy(col, s->series[i], sizeof(float) * (size_t)v->epoch);
        memset(col + v->epoch, 0, sizeof(float) * (size_t)(t->hist.cap - v->epoch));
    }
    checkpoint_staged_free(s); /* it holds the old tensors' memory now */
}

int checkpoint_load(Trainer *t, const char *path)
{
    CheckpointStaged *s = NULL;
    TRY(checkpoint_stage(t, path, &s));
    checkpoint_commit(t, s);
    return ERR_OK;
}

int checkpoint_load_weights(Module *model, const char *path)
{
    SafeTensors *st = NULL;
    TRY(safetensors_load(path, &st));
    int rc = ERR_OK;
    CheckpointStaged *s = calloc(1, sizeof *s);
    if (!s) {
        rc = err_set(ERR_NOMEM, "%s: out of memory", path);
        goto done;
    }
    TRY_OR_DONE(stage_weights(st, model, path, s));
    commit_model(model, s); /* cannot fail */
done:
    safetensors_free(st);
    checkpoint_staged_free(s); /* the old values, after the commit */
    return rc;
}

/* ---- the state as bytes ------------------------------------------------------------- */

typedef struct Bytes {
    unsigned char *p;
    size_t n, cap;
    bool failed;
} Bytes;

static void add(Bytes *b, const void *v, size_t n)
{
    if (b->failed || n == 0) return;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 4096;
        while (cap < b->n + n) cap *= 2;
        unsigned char *p = realloc(b->p, cap);
        if (!p) {
            b->failed = true;
            return;
        }
        b->p = p, b->cap = cap;
    }
    memcpy(b->p + b->n, v, n);
    b->n += n;
}

#define ADD(b, x) add(b, &(x), sizeof(x))

static int add_tensor(Bytes *b, const Tensor *t)
{
    Tensor *cpu = NULL;
    if (!device_is_host(t->device)) TRY(tensor_to(t, device_cpu(), &cpu));
    const Tensor *h = cpu ? cpu : t;
    add(b, h->data, (size_t)h->numel * dtype_size(h->dtype));
    tensor_free(cpu);
    return ERR_OK;
}

int checkpoint_state_bytes(const Trainer *t, unsigned char **bytes, size_t *len)
{
    *bytes = NULL;
    *len = 0;
    Bytes b = {0};
    ParamRef p[MAX_PARAMS];
    int n = module_parameters(t->model, p, MAX_PARAMS), rc = ERR_OK;
    for (int i = 0; i < n && i < MAX_PARAMS; i++) TRY_OR_DONE(add_tensor(&b, p[i].param->value));
    OptimStateRef r[3 * MAX_PARAMS];
    int ns = optim_state(t->opt, r, 3 * MAX_PARAMS);
    for (int i = 0; i < ns && i < 3 * MAX_PARAMS; i++) TRY_OR_DONE(add_tensor(&b, r[i].tensor));
    ADD(&b, t->opt->step), ADD(&b, t->opt->lr);
    if (t->sched) {
        const SchedState *ss = &t->sched->state;
        ADD(&b, ss->last_epoch), ADD(&b, ss->base_lr), ADD(&b, ss->lr);
        ADD(&b, ss->step_size), ADD(&b, ss->gamma), ADD(&b, ss->t_max), ADD(&b, ss->eta_min);
    }
    const GradScaler *g = &t->scaler;
    ADD(&b, g->enabled), ADD(&b, g->scale), ADD(&b, g->growth_factor), ADD(&b, g->backoff_factor);
    ADD(&b, g->growth_interval), ADD(&b, g->growth_tracker), ADD(&b, g->found_inf);
    ADD(&b, g->unscaled), ADD(&b, g->skipped);
    ADD(&b, t->epoch), ADD(&b, t->best_val_loss), ADD(&b, t->best_epoch), ADD(&b, t->stop);
    add(&b, t->stop_reason, strlen(t->stop_reason) + 1);
    ADD(&b, t->hist.n), ADD(&b, t->hist.cap);
    for (int i = 0; i < N_SERIES; i++)
        add(&b, series(&t->hist, i), sizeof(float) * (size_t)t->hist.cap);
    if (b.failed) rc = err_set(ERR_NOMEM, "checkpoint_state_bytes: out of memory");
done:
    if (rc) {
        free(b.p);
        return rc;
    }
    *bytes = b.p;
    *len = b.n;
    return ERR_OK;
}

/* ---- callbacks that save --------------------------------------------------- */

typedef struct CheckpointSaver {
    char path[1024];
    long every; /* a full checkpoint every this many epochs */
    bool best;  /* instead: the model's weights after each epoch that is the best so far */
} CheckpointSaver;

static int checkpoint_saver_call(void *state, const Value *args, int nargs, Value *out)
{
    (void)nargs;
    CheckpointSaver *c = state;
    Trainer *t = args[0].as.p;
    *out = value_none();
    /* t->epoch is the epoch before this one: the callback runs inside end_epoch */
    long epoch = t->hist.n;
    if (c->best) return t->best_epoch == epoch ? checkpoint_save_weights(t->model, c->path) : ERR_OK;
    if (epoch % c->every != 0) return ERR_OK;
    return checkpoint_save(t, epoch, c->path);
}

static const CallableClass checkpoint_saver_class = {"CheckpointSaver", 1,
                                                     checkpoint_saver_call, free};

static int saver_new(const char *path, long every, bool best, Callable *out)
{
    CheckpointSaver *c = calloc(1, sizeof *c);
    if (!c) return err_set(ERR_NOMEM, "checkpoint saver: out of memory");
    if (snprintf(c->path, sizeof c->path, "%s", path) >= (int)sizeof c->path) {
        free(c);
        return err_set(ERR_ARG, "checkpoint saver: the path is too long");
    }
    c->every = every;
    c->best = best;
    int rc = callable_new(&checkpoint_saver_class, c, out);
    if (rc) free(c);
    return rc;
}

int checkpoint_saver_new(const char *path, long every, Callable *out)
{
    if (every < 1) return err_set(ERR_ARG, "checkpoint saver: every is %ld, at least 1", every);
    return saver_new(path, every, false, out);
}

int best_model_saver_new(const char *path, Callable *out) { return saver_new(path, 1, true, out); }
