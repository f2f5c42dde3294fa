/* trainer.c: the trainer object, its epoch, its step, and its callbacks. */
#define _POSIX_C_SOURCE 200809L
#include "lib/train/trainer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/train/train.h"
#include "lib/core/err.h"
#include "lib/core/fileio.h"
#include "lib/core/timer.h"

/* ---- making and freeing ------------------------------------------------------ */

static int history_alloc(History *h, long cap)
{
    float **cols[] = {&h->train_loss, &h->val_loss, &h->val_acc, &h->lr,
                      &h->loss_scale, &h->seconds,  &h->skipped};
    for (size_t i = 0; i < sizeof cols / sizeof *cols; i++) {
        *cols[i] = calloc((size_t)(cap ? cap : 1), sizeof(float));
        if (!*cols[i]) return err_set(ERR_NOMEM, "trainer: out of memory for the history");
    }
    h->cap = cap;
    h->n = 0;
    return ERR_OK;
}

static void history_free(History *h)
{
    free(h->train_loss), free(h->val_loss), free(h->val_acc), free(h->lr);
    free(h->loss_scale), free(h->seconds), free(h->skipped);
    memset(h, 0, sizeof *h);
}

int trainer_new(Module *model, Loader *train, Loader *val, Loss *loss, Optimizer *opt,
                Scheduler *sched, Device device, const TrainerOptions *o, Trainer **out)
{
    *out = NULL;
    if (!model || !train || !val || !loss || !opt)
        return err_set(ERR_ARG, "trainer_new: the model, both loaders, the loss and the "
                                "optimizer are required");
    if (o->epochs < 1) return err_set(ERR_ARG, "trainer: epochs is %ld, must be at least 1",
                                      o->epochs);
    if (!(o->clip_norm >= 0.0f) || isinf(o->clip_norm))
        return err_set(ERR_ARG, "trainer: clip_norm is %g; use a positive norm, or 0 for no "
                                "clipping",
                       (double)o->clip_norm);
    if (!(o->loss_weight > 0.0f) || isinf(o->loss_weight))
        return err_set(ERR_ARG, "trainer: loss_weight is %g, must be positive and finite",
                       (double)o->loss_weight);
    if (!(o->min_delta >= 0.0f) || isinf(o->min_delta))
        return err_set(ERR_ARG, "trainer: min_delta is %g, must be 0 or more and finite",
                       (double)o->min_delta);
    if (o->autocast != DTYPE_F32 && o->autocast != DTYPE_F16 && o->autocast != DTYPE_BF16)
        return err_set(ERR_ARG, "trainer: mixed precision takes float16 or bfloat16, not %s",
                       dtype_name(o->autocast));
    if (o->grad_scaler && o->autocast == DTYPE_F32)
        return err_set(ERR_ARG, "trainer: a GradScaler without mixed precision does nothing; "
                                "turn on autocast (float16) or turn the scaler off");
    /* An epoch without a batch would train nothing and still count (under a GradScaler,
     * whose epochs may have no step): a checkpoint's step count could not be checked. */
    if (loader_batches(train) < 1)
        return err_set(ERR_ARG, "trainer: the training loader has no batches (no rows, or "
                                "fewer rows than a batch with drop_last): nothing to train on");
    Trainer *t = calloc(1, sizeof *t);
    if (!t) return err_set(ERR_NOMEM, "trainer: out of memory");
    t->model = model, t->train = train, t->val = val, t->loss = loss, t->opt = opt;
    t->sched = sched;
    t->device = device;
    t->opts = *o;
    grad_scaler_init(&t->scaler, o->grad_scaler);
    t->best_val_loss = INFINITY;
    int rc = history_alloc(&t->hist, o->epochs);
    if (rc) {
        trainer_free(t);
        return rc;
    }
    *out = t;
    return ERR_OK;
}

void trainer_free(Trainer *t)
{
    if (!t) return;
    history_free(&t->hist);
    tensor_free(t->loss_sum);
    free(t);
}

int trainer_add_callback(Trainer *t, Callable cb)
{
    if (t->n_callbacks == TRAINER_MAX_CALLBACKS)
        return err_set(ERR_ARG, "trainer: at most %d callbacks", TRAINER_MAX_CALLBACKS);
    if (!callable_alive(cb)) return err_set(ERR_ARG, "trainer: the callback was released");
    t->callbacks[t->n_callbacks++] = cb;
    return ERR_OK;
}

int trainer_call(Trainer *t, long upto)
{
    if (upto < 0) return err_set(ERR_ARG, "trainer_call: upto is %ld; 0 means the configured "
                                          "total",
                                 upto);
    t->stop = false; /* a stop ends one call; calling again is a decision to go on */
    t->stop_reason[0] = '\0';
    int rc = trainer_run_epochs(t, upto);
    int off = amp_set_autocast(DTYPE_F32); /* back to float32 whatever happened */
    if (t->opts.progress && isatty(STDOUT_FILENO)) printf("\r\033[K");
    return rc ? rc : off;
}

/* ---- one step, one epoch ----------------------------------------------------- */

static void progress(const Trainer *t, long epoch, int64_t done, int64_t total, double mean)
{
    if (!t->opts.progress || !isatty(STDOUT_FILENO)) return;
    int width = 24, fill = total ? (int)(width * done / total) : width;
    char bar[32];
    for (int i = 0; i < width; i++) bar[i] = i < fill ? '#' : '.';
    bar[width] = '\0';
    printf("\r\033[Kepoch %ld/%ld [%s] %lld/%lld batches", epoch, t->opts.epochs, bar,
           (long long)done, (long long)total);
    if (!isnan(mean)) printf(", loss %.4f", mean); /* on a GPU it is read once per epoch */
    fflush(stdout);
}

int trainer_train_epoch(Trainer *t, long epoch, EpochStats *s)
{
    t->epoch_start = timer_now();
    memset(s, 0, sizeof *s);
    s->lr = t->opt->lr;
    module_train(t->model, true);
    TRY(loader_begin(t->train, epoch));
    /* Where reading a value waits for the device (a GPU), the batch losses are summed
     * where they are and read once per epoch: reading each one would make every step a
     * sync (Lesson 03). Where it waits for nothing (the CPU), each is read, in double. */
    bool read_each = device_is_host(t->device);
    if (!read_each && !t->loss_sum &&
        !(t->loss_sum = tensor_new(DTYPE_F32, t->device, 1, (int64_t[]){1})))
        return err_code();
    if (!read_each) TRY(tensor_zero(t->loss_sum));
    double sum = 0;
    int64_t rows = 0, done = 0, total = loader_batches(t->train);
    for (;;) {
        Batch b;
        bool end, stepped = false;
        TRY(loader_next(t->train, &b, &end));
        if (end) break;
        float v = 0;
        StepOptions o = {t->opts.autocast, &t->scaler, t->opts.loss_weight, t->opts.clip_norm};
        int rc = train_step_with(t->model, t->loss, t->opt, b.x, b.y, &o, read_each ? &v : NULL,
                                 &stepped);
        if (rc == ERR_OK && !read_each && (stepped || !t->scaler.enabled))
            rc = tensor_ops(t->loss_sum)
                     ->accumulate(t->device, tensor_f32(t->loss_sum),
                                  tensor_f32(t->loss->on_device), (float)b.x->shape[0]);
        if (rc) return err_context("epoch %ld, batch %lld", epoch, (long long)b.index);
        if (stepped || !t->scaler.enabled) { /* a skipped step's loss is not the model's */
            sum += (double)v * (double)b.x->shape[0];
            rows += b.x->shape[0];
        } else {
            s->skipped++;
        }
        progress(t, epoch, ++done, total, rows && read_each ? sum / (double)rows : NAN);
    }
    if (!read_each) { /* the one read of the epoch */
        float total_loss = 0;
        TRY(device_copy(&total_loss, device_cpu(), tensor_f32(t->loss_sum), t->device,
                        sizeof total_loss));
        sum = total_loss;
    }
    s->train_loss = rows ? (float)(sum / (double)rows) : NAN;
    if (!isfinite(s->train_loss) && !t->scaler.enabled) {
        t->stop = true;
        snprintf(t->stop_reason, sizeof t->stop_reason, "the training loss became %s",
                 isnan(s->train_loss) ? "NaN" : "infinite");
        return err_set(ERR_NUMERIC, "epoch %ld: the training loss is %s in %s, so the weights "
                                    "have diverged: lower the learning rate (%g now) or clip "
                                    "the gradients; training stopped, and nothing was saved "
                                    "from this epoch",
                       epoch, isnan(s->train_loss) ? "NaN" : "infinite",
                       t->opts.autocast == DTYPE_F32 ? "float32" : "mixed precision",
                       (double)t->opt->lr);
    }
    return ERR_OK;
}

int trainer_validate(Trainer *t, EpochStats *s)
{
    module_train(t->model, false);
    bool grad = module_grad_enabled();
    module_set_grad_enabled(false); /* torch.no_grad(): nothing kept for backward */
    double loss_sum = 0, right = 0;
    int64_t rows = 0;
    int rc = ERR_OK;
    TRY_OR_DONE(amp_set_autocast(t->opts.autocast));
    TRY_OR_DONE(loader_begin(t->val, 1)); /* validation order does not matter: epoch 1's */
    for (;;) {
        Batch b;
        bool end;
        const Tensor *logits;
        float v = 0, acc = 0;
        TRY_OR_DONE(loader_next(t->val, &b, &end));
        if (end) break;
        TRY_OR_DONE(module_call(t->model, b.x, &logits));
        TRY_OR_DONE(loss_forward(t->loss, logits, b.y, NULL));
        TRY_OR_DONE(loss_item(t->loss, &v));
        TRY_OR_DONE(loss_accuracy(logits, b.y, &acc));
        int64_t n = b.x->shape[0];
        loss_sum += (double)v * (double)n;
        right += (double)acc * (double)n;
        rows += n;
    }
done:;
    int off = amp_set_autocast(DTYPE_F32);
    module_set_grad_enabled(grad);
    module_train(t->model, true);
    if (rc) return err_context("validation");
    TRY(off);
    s->val_loss = rows ? (float)(loss_sum / (double)rows) : NAN;
    s->val_acc = rows ? (float)(right / (double)rows) : NAN;
    return ERR_OK;
}

bool trainer_improves(float val_loss, float best, float min_delta)
{
    return val_loss < best - min_delta; /* NaN never improves; anything finite beats inf */
}

int trainer_end_epoch(Trainer *t, long epoch, const EpochStats *s)
{
    History *h = &t->hist;
    if (h->n >= h->cap) return err_set(ERR_ARG, "trainer: the history holds %ld epochs", h->cap);
    long i = h->n++;
    h->train_loss[i] = s->train_loss;
    h->val_loss[i] = s->val_loss;
    h->val_acc[i] = s->val_acc;
    h->lr[i] = s->lr;
    h->loss_scale[i] = grad_scaler_factor(&t->scaler);
    h->seconds[i] = (float)(timer_now() - t->epoch_start);
    h->skipped[i] = (float)s->skipped;
    /* The best goes with the history, even if the scheduler fails below: a checkpoint's
     * best_epoch is the history's (checkpoint.c checks it). An improvement counts as early
     * stopping counts one (more than min_delta), so the run has one best, not two. */
    if (trainer_improves(s->val_loss, t->best_val_loss, t->opts.min_delta)) {
        t->best_val_loss = s->val_loss;
        t->best_epoch = epoch; /* best_model_saver_new() saves it, if asked */
    }
    if (t->sched) TRY(sched_step(t->sched));
    for (int k = 0; k < t->n_callbacks; k++) {
        Value arg = value_ptr(t), r = value_none();
        int rc = callable_call(t->callbacks[k], &arg, 1, &r);
        if (rc) {
            t->stop = true;
            return err_context("callback %d after epoch %ld", k + 1, epoch);
        }
    }
    return ERR_OK;
}

/* ---- callbacks -------------------------------------------------------------------- */

static const CallableClass early_stopping_class = {"EarlyStopping", 1, early_stopping_call,
                                                   free};

int early_stopping_new(int patience, float min_delta, Callable *out)
{
    if (patience < 1 || !(min_delta >= 0.0f))
        return err_set(ERR_ARG, "early stopping: patience %d must be at least 1 and min_delta "
                                "%g at least 0",
                       patience, (double)min_delta);
    EarlyStopping *e = malloc(sizeof *e);
    if (!e) return err_set(ERR_NOMEM, "early stopping: out of memory");
    EarlyStopping init = {patience, min_delta, INFINITY, 0, 0};
    *e = init;
    int rc = callable_new(&early_stopping_class, e, out);
    if (rc) free(e);
    return rc;
}

typedef struct MetricsLogger {
    char path[1024];
} MetricsLogger;

/* The whole history as CSV, one line per epoch. */
static int write_metrics(FILE *f, void *ctx)
{
    const History *h = ctx;
    fprintf(f, "epoch,train_loss,val_loss,val_acc,lr,loss_scale,seconds,skipped\n");
    for (long i = 0; i < h->n; i++)
        fprintf(f, "%ld,%.7g,%.7g,%.7g,%.7g,%.7g,%.6g,%.0f\n", i + 1, (double)h->train_loss[i],
                (double)h->val_loss[i], (double)h->val_acc[i], (double)h->lr[i],
                (double)h->loss_scale[i], (double)h->seconds[i], (double)h->skipped[i]);
    return ERR_OK;
}

/* The file is saved whole after every epoch (fileio_save(): never appended to in place),
 * so that it always holds the trainer's history, a resumed run's earlier epochs included. */
static int metrics_logger_call(void *state, const Value *args, int nargs, Value *out)
{
    (void)nargs;
    MetricsLogger *m = state;
    const Trainer *t = args[0].as.p;
    TRY(fileio_save(m->path, "metrics CSV file", write_metrics, (void *)&t->hist));
    *out = value_none();
    return ERR_OK;
}

static const CallableClass metrics_logger_class = {"MetricsLogger", 1, metrics_logger_call,
                                                   free};

int metrics_logger_new(const char *path, Callable *out)
{
    MetricsLogger *m = calloc(1, sizeof *m);
    if (!m) return err_set(ERR_NOMEM, "metrics logger: out of memory");
    if (snprintf(m->path, sizeof m->path, "%s", path) >= (int)sizeof m->path) {
        free(m);
        return err_set(ERR_ARG, "metrics logger: the path is too long");
    }
    int rc = callable_new(&metrics_logger_class, m, out);
    if (rc) free(m);
    return rc;
}

