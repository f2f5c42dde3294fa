/* checkpoint.c: the whole training state in a safetensors file, and back. */
#include "lib/train/checkpoint.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/err.h"

#define MAX_PARAMS 64
#define MAX_TENSORS (3 * MAX_PARAMS + 8)
#define MAX_META 32

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

/* Add @p src (any device, column-major) as @p name, converted to PyTorch's row-major. */
static int put_tensor(Writer *w, const char *prefix, const char *name, const Tensor *src)
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
    return ERR_OK;
}

/* A history column, epochs long. */
static int put_series(Writer *w, const char *name, const float *v, long n)
{
    int64_t shape[1] = {n};
    Tensor *t = tensor_new(DTYPE_F32, device_cpu(), 1, shape);
    if (!t) return err_code();
    memcpy(tensor_f32(t), v, sizeof(float) * (size_t)n);
    int rc = put_tensor(w, "history.", name, t);
    tensor_free(t);
    return rc;
}

static int put_model(Writer *w, Module *model, ParamRef *p, int *np)
{
    int n = module_parameters(model, p, MAX_PARAMS);
    if (n > MAX_PARAMS) return err_set(ERR_ARG, "checkpoint: more than %d parameters", MAX_PARAMS);
    *np = n;
    for (int i = 0; i < n; i++) TRY(put_tensor(w, "model.", p[i].name, p[i].param->value));
    return ERR_OK;
}

static const char *const g_series[] = {"train_loss", "val_loss", "val_acc",  "lr",
                                       "loss_scale", "seconds",  "skipped"};
#define N_SERIES 7

static float *series(const History *h, int i)
{
    float *cols[N_SERIES] = {h->train_loss, h->val_loss, h->val_acc, h->lr,
                             h->loss_scale, h->seconds,  h->skipped};
    return cols[i];
}

static int save_written(Writer *w, const char *path)
{
    int rc = safetensors_save(path, w->t, w->n, w->meta, w->n_meta);
    writer_free(w);
    return rc;
}

int checkpoint_save(const Trainer *t, long epoch, const char *path)
{
    Writer *w = calloc(1, sizeof *w);
    if (!w) return err_set(ERR_NOMEM, "checkpoint: out of memory");
    ParamRef p[MAX_PARAMS];
    int np = 0, rc = put_model(w, t->model, p, &np);
    OptimStateRef s[3 * MAX_PARAMS];
    int ns = optim_state(t->opt, s, 3 * MAX_PARAMS);
    if (t->opt->step > 0) /* buffers hold state only after the first step */
        for (int i = 0; i < ns && !rc; i++) {
            char name[160];
            snprintf(name, sizeof name, "%s.%s", t->opt->params[s[i].param].name, s[i].name);
            rc = put_tensor(w, "optim.", name, s[i].tensor);
        }
    for (int i = 0; i < N_SERIES && !rc; i++)
        rc = put_series(w, g_series[i], series(&t->hist, i), t->hist.n);
    if (rc) {
        writer_free(w);
        free(w);
        return err_context("%s: cannot save", path);
    }
    meta_put(w, "wb.format", "%s", CHECKPOINT_FORMAT);
    meta_put(w, "wb.version", "%d", CHECKPOINT_VERSION);
    meta_put(w, "epoch", "%ld", epoch);
    meta_put(w, "best_val_loss", "%a", (double)t->best_val_loss);
    meta_put(w, "best_epoch", "%ld", t->best_epoch);
    meta_put(w, "optim.kind", "%d", (int)t->opt->kind);
    meta_put(w, "optim.step", "%" PRId64, t->opt->step);
    meta_put(w, "optim.lr", "%a", (double)t->opt->lr);
    meta_put(w, "sched.kind", "%s", t->sched ? sched_name(t->sched) : "none");
    if (t->sched) {
        SchedState ss;
        sched_state(t->sched, &ss);
        meta_put(w, "sched.last_epoch", "%" PRId64, ss.last_epoch);
        meta_put(w, "sched.base_lr", "%a", ss.base_lr);
        meta_put(w, "sched.lr", "%a", ss.lr);
    }
    meta_put(w, "scaler.enabled", "%d", t->scaler.enabled ? 1 : 0);
    meta_put(w, "scaler.scale", "%a", (double)t->scaler.scale);
    meta_put(w, "scaler.growth_tracker", "%d", t->scaler.growth_tracker);
    meta_put(w, "scaler.skipped", "%ld", t->scaler.skipped);
    meta_put(w, "loader.seed", "%" PRIu64, loader_seed(t->train));
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
    Writer *w = calloc(1, sizeof *w);
    if (!w) return err_set(ERR_NOMEM, "checkpoint: out of memory");
    ParamRef p[MAX_PARAMS];
    int np, rc = put_model(w, model, p, &np);
    if (rc) {
        writer_free(w);
        free(w);
        return err_context("%s: cannot save", path);
    }
    meta_put(w, "wb.format", "%s", CHECKPOINT_WEIGHTS_FORMAT);
    meta_put(w, "wb.version", "%d", CHECKPOINT_VERSION);
    rc = save_written(w, path);
    free(w);
    return rc;
}

/* ---- reading ----------------------------------------------------------------------- */

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

/* A metadata field that must be there and parse as a whole number in [lo, hi]. */
static int meta_long(const SafeTensors *st, const char *path, const char *key, long long lo,
                     long long hi, long long *out)
{
    const char *v = safetensors_meta(st, key);
    if (!v) return err_set(ERR_FORMAT, "%s: missing metadata \"%s\"", path, key);
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || end == v || *end || x < lo || x > hi)
        return err_set(ERR_FORMAT, "%s: metadata \"%s\" is \"%s\", expected a whole number from "
                                   "%lld to %lld",
                       path, key, v, lo, hi);
    *out = x;
    return ERR_OK;
}

/* A float written with %a (or in decimal), finite unless @p any. */
static int meta_double(const SafeTensors *st, const char *path, const char *key, bool any,
                       double *out)
{
    const char *v = safetensors_meta(st, key);
    if (!v) return err_set(ERR_FORMAT, "%s: missing metadata \"%s\"", path, key);
    char *end;
    double x = strtod(v, &end);
    if (end == v || *end || (!any && !isfinite(x)))
        return err_set(ERR_FORMAT, "%s: metadata \"%s\" is \"%s\", expected a %snumber", path,
                       key, v, any ? "" : "finite ");
    *out = x;
    return ERR_OK;
}

/* Copy the row-major @p f into @p dst (any device). */
static int restore(Tensor *dst, const StTensor *f)
{
    Tensor *cpu = tensor_new(DTYPE_F32, device_cpu(), dst->ndim, dst->shape);
    if (!cpu) return err_code();
    int rc = ERR_OK;
    TRY_OR_DONE(tensor_set_rows(cpu, f->data));
    TRY_OR_DONE(tensor_copy(dst, cpu));
done:
    tensor_free(cpu);
    return rc;
}

/* Everything checkpoint_load() reads, checked before anything is changed. */
typedef struct Loaded {
    const StTensor *model[MAX_PARAMS];
    const StTensor *optim[3 * MAX_PARAMS];
    const StTensor *series[N_SERIES];
    long long epoch, best_epoch, optim_step, sched_last, growth, skipped, scaler_on;
    double best, lr, sched_base, sched_lr, scale;
    int n_params, n_state;
} Loaded;

static int check_all(const SafeTensors *st, Trainer *t, const char *path, Loaded *L)
{
    TRY(exercise_result(checkpoint_validate(st, t->model, path), "05.5", "checkpoint_validate"));
    if (strcmp(safetensors_meta(st, "wb.format"), CHECKPOINT_FORMAT) != 0)
        return err_set(ERR_FORMAT, "%s: holds only a model's weights (%s), not a training "
                                   "state: load it with checkpoint_load_weights",
                       path, CHECKPOINT_WEIGHTS_FORMAT);
    ParamRef p[MAX_PARAMS];
    L->n_params = module_parameters(t->model, p, MAX_PARAMS);
    for (int i = 0; i < L->n_params; i++) {
        char name[ST_NAME_MAX];
        if (snprintf(name, sizeof name, "model.%s", p[i].name) >= (int)sizeof name)
            return err_set(ERR_ARG, "checkpoint: the name %s is too long", p[i].name);
        L->model[i] = safetensors_find(st, name);
    }
    TRY(meta_long(st, path, "epoch", 0, t->opts.epochs, &L->epoch));
    TRY(meta_long(st, path, "best_epoch", 0, L->epoch, &L->best_epoch));
    TRY(meta_double(st, path, "best_val_loss", true, &L->best));
    long long kind;
    TRY(meta_long(st, path, "optim.kind", 0, 16, &kind));
    if (kind != (long long)t->opt->kind)
        return err_set(ERR_FORMAT, "%s: the checkpoint's optimizer is of another kind (%lld) "
                                   "than this trainer's %s (%d): make the trainer as the "
                                   "saved run was",
                       path, kind, optim_name(t->opt), (int)t->opt->kind);
    TRY(meta_long(st, path, "optim.step", 0, INT64_MAX / 2, &L->optim_step));
    TRY(meta_double(st, path, "optim.lr", false, &L->lr));
    OptimStateRef s[3 * MAX_PARAMS];
    L->n_state = L->optim_step > 0 ? optim_state(t->opt, s, 3 * MAX_PARAMS) : 0;
    for (int i = 0; i < L->n_state; i++) {
        char name[200];
        snprintf(name, sizeof name, "optim.%s.%s", t->opt->params[s[i].param].name, s[i].name);
        TRY(expect_like(st, path, name, s[i].tensor, "the optimizer's state", &L->optim[i]));
    }
    const char *sk = safetensors_meta(st, "sched.kind");
    const char *mine = t->sched ? sched_name(t->sched) : "none";
    if (!sk || strcmp(sk, mine) != 0)
        return err_set(ERR_FORMAT, "%s: the checkpoint's scheduler is %s, this trainer's is %s",
                       path, sk ? sk : "(missing)", mine);
    if (t->sched) {
        TRY(meta_long(st, path, "sched.last_epoch", 0, INT64_MAX / 2, &L->sched_last));
        TRY(meta_double(st, path, "sched.base_lr", false, &L->sched_base));
        TRY(meta_double(st, path, "sched.lr", false, &L->sched_lr));
    }
    TRY(meta_long(st, path, "scaler.enabled", 0, 1, &L->scaler_on));
    if ((L->scaler_on != 0) != t->scaler.enabled)
        return err_set(ERR_FORMAT, "%s: the checkpoint was made %s a GradScaler, this trainer "
                                   "runs %s one",
                       path, L->scaler_on ? "with" : "without",
                       t->scaler.enabled ? "with" : "without");
    TRY(meta_double(st, path, "scaler.scale", false, &L->scale));
    TRY(meta_long(st, path, "scaler.growth_tracker", 0, INT32_MAX, &L->growth));
    TRY(meta_long(st, path, "scaler.skipped", 0, INT64_MAX / 2, &L->skipped));
    long long seed;
    TRY(meta_long(st, path, "loader.seed", 0, INT64_MAX, &seed));
    if ((uint64_t)seed != loader_seed(t->train))
        return err_set(ERR_FORMAT, "%s: the checkpoint's loader seed is %lld, this trainer's "
                                   "is %llu: the resumed run would see other batches",
                       path, seed, (unsigned long long)loader_seed(t->train));
    int64_t shape[1] = {L->epoch};
    Tensor *like = tensor_new(DTYPE_F32, device_cpu(), 1, shape);
    if (!like) return err_code();
    int rc = ERR_OK;
    for (int i = 0; i < N_SERIES && !rc; i++) {
        char name[64];
        snprintf(name, sizeof name, "history.%s", g_series[i]);
        rc = expect_like(st, path, name, like, "the history, one value per epoch", &L->series[i]);
    }
    tensor_free(like);
    return rc;
}

int checkpoint_load(Trainer *t, const char *path)
{
    SafeTensors *st = NULL;
    TRY(safetensors_load(path, &st));
    Loaded L;
    memset(&L, 0, sizeof L);
    int rc = ERR_OK;
    TRY_OR_DONE(check_all(st, t, path, &L));
    /* Everything is checked: from here on only copies, which do not fail on valid data. */
    ParamRef p[MAX_PARAMS];
    module_parameters(t->model, p, MAX_PARAMS);
    for (int i = 0; i < L.n_params; i++) TRY_OR_DONE(restore(p[i].param->value, L.model[i]));
    OptimStateRef s[3 * MAX_PARAMS];
    optim_state(t->opt, s, 3 * MAX_PARAMS);
    for (int i = 0; i < L.n_state; i++) TRY_OR_DONE(restore(s[i].tensor, L.optim[i]));
    TRY_OR_DONE(optim_restore(t->opt, L.optim_step));
    TRY_OR_DONE(optim_set_lr(t->opt, (float)L.lr));
    if (t->sched) {
        SchedState ss = {L.sched_last, L.sched_base, L.sched_lr};
        TRY_OR_DONE(sched_restore(t->sched, &ss));
    }
    {
        t->scaler.scale = (float)L.scale;
        t->scaler.growth_tracker = (int)L.growth;
        t->scaler.skipped = (long)L.skipped;
        t->scaler.found_inf = t->scaler.unscaled = false;
        t->epoch = (long)L.epoch;
        t->best_epoch = (long)L.best_epoch;
        t->best_val_loss = (float)L.best;
        t->stop = false;
        t->hist.n = (long)L.epoch;
        for (int i = 0; i < N_SERIES; i++)
            memcpy(series(&t->hist, i), L.series[i]->data, sizeof(float) * (size_t)L.epoch);
    }
done:
    safetensors_free(st);
    return rc;
}

int checkpoint_load_weights(Module *model, const char *path)
{
    SafeTensors *st = NULL;
    TRY(safetensors_load(path, &st));
    int rc = exercise_result(checkpoint_validate(st, model, path), "05.5", "checkpoint_validate");
    ParamRef p[MAX_PARAMS];
    int n = module_parameters(model, p, MAX_PARAMS);
    for (int i = 0; i < n && !rc; i++) {
        char name[ST_NAME_MAX];
        if (snprintf(name, sizeof name, "model.%s", p[i].name) >= (int)sizeof name)
            rc = err_set(ERR_ARG, "checkpoint: the name %s is too long", p[i].name);
        else
            rc = restore(p[i].param->value, safetensors_find(st, name));
    }
    safetensors_free(st);
    return rc;
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
