/* experiment.c: configs read strictly, and the folder of a run. */
#define _POSIX_C_SOURCE 200809L
#include "lib/train/experiment.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/train/checkpoint.h"
#include "lib/core/err.h"
#include "lib/core/fileio.h"
#include "lib/train/iris.h"
#include "lib/io/json.h"

static const char *const g_data[] = {"digits", "iris", "synthetic", NULL};
static const char *const g_optim[] = {"sgd", "adam", NULL};
static const char *const g_sched[] = {"none", "step", "cosine", NULL};
static const char *const g_precision[] = {"float32", "float16", "bfloat16", NULL};

void experiment_config_default(ExperimentConfig *c)
{
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "digits-mlp");
    snprintf(c->data, sizeof c->data, "digits");
    c->synthetic_n = 100000, c->synthetic_features = 256, c->synthetic_classes = 10;
    c->hidden[0] = 64, c->n_hidden = 1;
    snprintf(c->optimizer, sizeof c->optimizer, "sgd");
    c->lr = 0.05, c->momentum = 0.9, c->weight_decay = 0.0;
    snprintf(c->scheduler, sizeof c->scheduler, "cosine");
    c->step_size = 10, c->gamma = 0.5, c->eta_min = 0.0;
    c->epochs = 20, c->batch_size = 64;
    c->clip_norm = 0.0;
    snprintf(c->precision, sizeof c->precision, "float32");
    c->grad_scaler = false;
    snprintf(c->device, sizeof c->device, "cpu");
    c->seed = 42;
    c->patience = 0, c->min_delta = 0.0;
    c->num_workers = 0, c->pin_memory = false;
    c->checkpoint_every = 1;
    c->loss_weight = 1.0;
}

/* ---- reading -------------------------------------------------------------------- */

static int get_choice(const JsonValue *root, const char *key, const char *const *choices,
                      char *dst, size_t size)
{
    const JsonValue *v = json_get(root, key);
    int i;
    if (!v) return ERR_OK;
    TRY(json_as_choice(v, choices, &i));
    snprintf(dst, size, "%s", choices[i]);
    return ERR_OK;
}

static int get_int(const JsonValue *root, const char *key, int64_t lo, int64_t hi, int64_t *dst)
{
    const JsonValue *v = json_get(root, key);
    return v ? json_as_int(v, lo, hi, dst) : ERR_OK;
}

/* A number kept as the file writes it: in double, so that it is written back the same. */
static int get_real(const JsonValue *root, const char *key, double lo, double hi, double *dst)
{
    const JsonValue *v = json_get(root, key);
    return v ? json_as_number(v, lo, hi, dst) : ERR_OK;
}

static int get_bool(const JsonValue *root, const char *key, bool *dst)
{
    const JsonValue *v = json_get(root, key);
    return v ? json_as_bool(v, dst) : ERR_OK;
}

static int parse_into(const JsonValue *root, ExperimentConfig *c)
{
    static const char *const keys[] = {
        "name",       "data",        "synthetic_n", "synthetic_features", "synthetic_classes",
        "hidden",     "optimizer",   "lr",          "momentum",           "weight_decay",
        "scheduler",  "step_size",   "gamma",       "eta_min",            "epochs",
        "batch_size", "clip_norm",   "precision",   "grad_scaler",        "device",
        "seed",       "patience",    "min_delta",   "num_workers",        "pin_memory",
        "checkpoint_every", "loss_weight", NULL};
    TRY(json_expect(root, JSON_OBJECT));
    TRY(json_check_keys(root, keys));
    const JsonValue *v;
    const char *s;
    if ((v = json_get(root, "name"))) {
        TRY(json_as_string(v, &s));
        /* A folder name shows what it is: no control, format or bidi character (a
         * right-to-left override would make "evil\u202etxt.exe" show as another name). */
        size_t n = strlen(s);
        if (!*s || n >= sizeof c->name || strpbrk(s, "/\\'\"") || s[0] == '.' ||
            err_plain_prefix(s, n) != n) {
            char got[200];
            return json_error(v, "must be a folder name of 1 to %zu characters without "
                                 "slashes, quotes, or control, format or bidi characters, not "
                                 "starting with a dot, got %s",
                              sizeof c->name - 1, json_describe(v, got, sizeof got));
        }
        snprintf(c->name, sizeof c->name, "%s", s);
    }
    TRY(get_choice(root, "data", g_data, c->data, sizeof c->data));
    TRY(get_int(root, "synthetic_n", 2, 10000000, &c->synthetic_n));
    TRY(get_int(root, "synthetic_features", 1, 65536, &c->synthetic_features));
    int64_t classes = c->synthetic_classes;
    TRY(get_int(root, "synthetic_classes", 2, DATA_MAX_COLUMNS, &classes));
    c->synthetic_classes = (int)classes;
    if ((v = json_get(root, "hidden"))) {
        TRY(json_expect(v, JSON_ARRAY));
        if (v->count > MLP_MAX_HIDDEN)
            return json_error(v, "may list at most %d hidden widths, got %d", MLP_MAX_HIDDEN,
                              v->count);
        for (int i = 0; i < v->count; i++) TRY(json_as_int(&v->items[i], 1, 65536, &c->hidden[i]));
        c->n_hidden = v->count;
    }
    TRY(get_choice(root, "optimizer", g_optim, c->optimizer, sizeof c->optimizer));
    TRY(get_real(root, "lr", 1e-9, CHECKPOINT_MAX_LR, &c->lr));
    TRY(get_real(root, "momentum", 0.0, 0.999999, &c->momentum));
    TRY(get_real(root, "weight_decay", 0.0, 1.0, &c->weight_decay));
    TRY(get_choice(root, "scheduler", g_sched, c->scheduler, sizeof c->scheduler));
    int64_t i64 = c->step_size;
    TRY(get_int(root, "step_size", 1, 1000000, &i64));
    c->step_size = (int)i64;
    TRY(get_real(root, "gamma", 1e-6, 1.0, &c->gamma));
    TRY(get_real(root, "eta_min", 0.0, CHECKPOINT_MAX_LR, &c->eta_min));
    i64 = c->epochs;
    TRY(get_int(root, "epochs", 1, 1000000, &i64));
    c->epochs = (long)i64;
    TRY(get_int(root, "batch_size", 1, 1 << 24, &c->batch_size));
    TRY(get_real(root, "clip_norm", 0.0, 1e9, &c->clip_norm));
    TRY(get_choice(root, "precision", g_precision, c->precision, sizeof c->precision));
    TRY(get_bool(root, "grad_scaler", &c->grad_scaler));
    if ((v = json_get(root, "device"))) {
        TRY(json_as_string(v, &s));
        if (strlen(s) >= sizeof c->device)
            return json_error(v, "is too long for a device name (\"cpu\", \"cuda\", "
                                 "\"cuda:1\")");
        /* The spelling is checked here, so that a typo names this file and the key; whether
         * that GPU is there is known only when the experiment opens it. */
        if (!device_spelled(s))
            return json_error(v, "must be " DEVICE_SPELLING ", got \"%.20s\"", s);
        snprintf(c->device, sizeof c->device, "%s", s);
    }
    int64_t seed = (int64_t)(c->seed & 0x7fffffffffffffffULL);
    TRY(get_int(root, "seed", 0, INT64_MAX, &seed));
    c->seed = (uint64_t)seed;
    i64 = c->patience;
    TRY(get_int(root, "patience", 0, 1000000, &i64));
    c->patience = (int)i64;
    TRY(get_real(root, "min_delta", 0.0, 1e9, &c->min_delta));
    i64 = c->num_workers;
    TRY(get_int(root, "num_workers", 0, 1, &i64));
    c->num_workers = (int)i64;
    TRY(get_bool(root, "pin_memory", &c->pin_memory));
    i64 = c->checkpoint_every;
    TRY(get_int(root, "checkpoint_every", 1, 1000000, &i64));
    c->checkpoint_every = (long)i64;
    TRY(get_real(root, "loss_weight", 1e-30, 1e6, &c->loss_weight));
    /* Combinations: each message names the keys to change. */
    if (c->grad_scaler && strcmp(c->precision, "float16") != 0)
        return err_set(ERR_FORMAT, "%s: \"grad_scaler\": true needs \"precision\": \"float16\" "
                                   "(%s has float32's range and needs no loss scaling)",
                       root->source, c->precision);
    if (c->pin_memory && strncmp(c->device, "cuda", 4) != 0)
        return err_set(ERR_FORMAT, "%s: \"pin_memory\": true only helps copies to a GPU, and "
                                   "\"device\" is \"%s\"",
                       root->source, c->device);
    return ERR_OK;
}

int experiment_config_parse(const char *text, size_t len, const char *source,
                            ExperimentConfig *c)
{
    Json *doc = NULL;
    TRY(json_parse(text, len, source, &doc));
    ExperimentConfig tmp = *c; /* all or nothing */
    int rc = parse_into(json_root(doc), &tmp);
    json_free(doc);
    TRY(rc);
    *c = tmp;
    return ERR_OK;
}

int experiment_config_load(const char *path, ExperimentConfig *c)
{
    char *text = NULL;
    size_t len = 0;
    TRY(fileio_read_max(path, EXPERIMENT_CONFIG_MAX, "experiment config", &text, &len));
    int rc = experiment_config_parse(text, len, path, c);
    free(text);
    return rc;
}

/* obj[key] = v; on failure (v is NULL: a NaN, or text that is not UTF-8) *bad names the
 * first key that failed. jansson takes over v either way. */
static void put(json_t *obj, const char *key, json_t *v, const char **bad)
{
    if (json_object_set_new(obj, key, v) != 0 && !*bad) *bad = key;
}

/* The first field in which a and b differ (as a config file would show it), or NULL.
 * Numbers are compared bit for bit. */
static const char *config_diff(const ExperimentConfig *a, const ExperimentConfig *b)
{
#define STR(f) if (strcmp(a->f, b->f) != 0) return #f
#define NUM(f) if (memcmp(&a->f, &b->f, sizeof a->f) != 0) return #f
    STR(name); STR(data); NUM(synthetic_n); NUM(synthetic_features); NUM(synthetic_classes);
    NUM(n_hidden);
    for (int i = 0; i < a->n_hidden && i < MLP_MAX_HIDDEN; i++)
        if (a->hidden[i] != b->hidden[i]) return "hidden";
    STR(optimizer); NUM(lr); NUM(momentum); NUM(weight_decay); STR(scheduler); NUM(step_size);
    NUM(gamma); NUM(eta_min); NUM(epochs); NUM(batch_size); NUM(clip_norm); STR(precision);
    NUM(grad_scaler); STR(device); NUM(seed); NUM(patience); NUM(min_delta); NUM(num_workers);
    NUM(pin_memory); NUM(checkpoint_every); NUM(loss_weight);
#undef STR
#undef NUM
    return NULL;
}

/* The JSON text of c, unchecked. */
static int config_text(const ExperimentConfig *c, bool pretty, char **text)
{
    *text = NULL;
    json_t *o = json_object(), *hidden = json_array();
    const char *bad = o && hidden ? NULL : "the document";
    for (int i = 0; i < c->n_hidden && i < MLP_MAX_HIDDEN; i++)
        if (json_array_append_new(hidden, json_integer(c->hidden[i])) != 0 && !bad) bad = "hidden";
    put(o, "name", json_string(c->name), &bad);
    put(o, "data", json_string(c->data), &bad);
    put(o, "synthetic_n", json_integer(c->synthetic_n), &bad);
    put(o, "synthetic_features", json_integer(c->synthetic_features), &bad);
    put(o, "synthetic_classes", json_integer(c->synthetic_classes), &bad);
    put(o, "hidden", hidden, &bad);
    put(o, "optimizer", json_string(c->optimizer), &bad);
    put(o, "lr", json_real(c->lr), &bad);
    put(o, "momentum", json_real(c->momentum), &bad);
    put(o, "weight_decay", json_real(c->weight_decay), &bad);
    put(o, "scheduler", json_string(c->scheduler), &bad);
    put(o, "step_size", json_integer(c->step_size), &bad);
    put(o, "gamma", json_real(c->gamma), &bad);
    put(o, "eta_min", json_real(c->eta_min), &bad);
    put(o, "epochs", json_integer(c->epochs), &bad);
    put(o, "batch_size", json_integer(c->batch_size), &bad);
    put(o, "clip_norm", json_real(c->clip_norm), &bad);
    put(o, "precision", json_string(c->precision), &bad);
    put(o, "grad_scaler", json_boolean(c->grad_scaler), &bad);
    put(o, "device", json_string(c->device), &bad);
    put(o, "seed", json_integer((json_int_t)c->seed), &bad);
    put(o, "patience", json_integer(c->patience), &bad);
    put(o, "min_delta", json_real(c->min_delta), &bad);
    put(o, "num_workers", json_integer(c->num_workers), &bad);
    put(o, "pin_memory", json_boolean(c->pin_memory), &bad);
    put(o, "checkpoint_every", json_integer(c->checkpoint_every), &bad);
    put(o, "loss_weight", json_real(c->loss_weight), &bad);
    int rc = bad ? err_set(ERR_ARG,
                           "experiment config: \"%s\" cannot be written as JSON (a NaN or an "
                           "infinity, text that is not UTF-8, or no memory)",
                           bad)
                 : json_text(o, JSON_TEXT_SHORTEST | (pretty ? JSON_TEXT_PRETTY : 0), text, NULL);
    json_decref(o);
    return rc;
}

int experiment_config_json(const ExperimentConfig *c, bool pretty, char **text)
{
    TRY(config_text(c, pretty, text));
    /* What is written must read back to the same config: read it. */
    ExperimentConfig back;
    experiment_config_default(&back);
    const char *differs = NULL;
    int rc = ERR_OK;
    TRY_OR_DONE(experiment_config_parse(*text, strlen(*text), "the config as written", &back));
    if ((differs = config_diff(c, &back)))
        rc = err_set(ERR_ARG, "experiment config: \"%s\" would not read back as it is (a value "
                              "a config file cannot hold)",
                     differs);
done:
    if (rc == ERR_FORMAT) { /* the parser's message names the key */
        char why[1024];
        snprintf(why, sizeof why, "%s", err_message());
        rc = err_set(ERR_ARG, "experiment config: it would not read back: %s", why);
    }
    if (rc) {
        free(*text);
        *text = NULL;
    }
    return rc;
}

/* ---- the run ------------------------------------------------------------------- */

static DType precision_dtype(const char *p)
{
    return !strcmp(p, "float16") ? DTYPE_F16 : !strcmp(p, "bfloat16") ? DTYPE_BF16 : DTYPE_F32;
}

static int make_dir(const char *path)
{
    if (mkdir(path, 0777) == 0 || errno == EEXIST) return ERR_OK;
    return err_set(ERR_IO, "cannot create the folder %s: %s", path, strerror(errno));
}

static int load_data(Experiment *e)
{
    const ExperimentConfig *c = &e->cfg;
    if (!strcmp(c->data, "synthetic")) {
        Dataset all = {0};
        int64_t n = c->synthetic_n + c->synthetic_n / 5;
        TRY(dataset_synthetic(n, c->synthetic_features, c->synthetic_classes, 1.0f, c->seed,
                              &all));
        int rc = dataset_split(&all, (float)(c->synthetic_n / 5) / (float)n, c->seed, &e->train,
                               &e->val);
        dataset_free(&all);
        TRY(rc);
        /* Already centred and unit-scaled: no scaler. */
        e->x_train = tensor_clone(e->train.x);
        e->x_val = tensor_clone(e->val.x);
        return e->x_train && e->x_val ? ERR_OK : err_code();
    }
    bool iris = !strcmp(c->data, "iris");
    /* The digits by name, "0" to "9": a label of 10 is an error, not an eleventh class. */
    static const char *const digits[] = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", NULL};
    DatasetSpec spec = iris ? *iris_spec() : (DatasetSpec){"digit", digits, "split"};
    char path[512];
    snprintf(path, sizeof path, "%s/lessons/data/%s.csv", WB_ROOT, c->data);
    TRY(dataset_load_csv(path, &spec, &e->train, &e->val));
    Scaler sc = {0};
    int rc = ERR_OK;
    TRY_OR_DONE(scaler_fit(&sc, e->train.x)); /* fitted on the training part only */
    TRY_OR_DONE(scaler_transform(&sc, e->train.x, &e->x_train));
    TRY_OR_DONE(scaler_transform(&sc, e->val.x, &e->x_val));
done:
    scaler_free(&sc);
    return rc;
}

static int build(Experiment *e, const char *root)
{
    const ExperimentConfig *c = &e->cfg;
    TRY(device_from_string(c->device, &e->device));
    snprintf(e->dir, sizeof e->dir, "%s/%s", root, c->name);
    snprintf(e->checkpoint, sizeof e->checkpoint, "%s/checkpoint.safetensors", e->dir);
    snprintf(e->best, sizeof e->best, "%s/best.safetensors", e->dir);
    snprintf(e->metrics, sizeof e->metrics, "%s/metrics.csv", e->dir);
    TRY(experiment_config_json(c, true, &e->config_json));
    TRY(load_data(e));
    Rng rng;
    rng_seed(&rng, c->seed, 0); /* the weights: stream 0 of the seed */
    e->model = mlp_new("mlp", e->x_train->shape[1], c->hidden, c->n_hidden, e->train.n_classes,
                       &rng);
    if (!e->model) return err_code();
    TRY(module_to(e->model, e->device));
    if (!(e->loss = loss_cross_entropy_new())) return err_code();
    e->opt = !strcmp(c->optimizer, "adam")
                 ? optim_adam_new(e->model, (float)c->lr, 0.9, 0.999, 1e-8f, (float)c->weight_decay)
                 : optim_sgd_momentum_new(e->model, (float)c->lr, (float)c->momentum,
                                          (float)c->weight_decay, false);
    if (!e->opt) return err_code();
    if (!strcmp(c->scheduler, "step"))
        e->sched = sched_step_new(e->opt, c->step_size, (float)c->gamma);
    else if (!strcmp(c->scheduler, "cosine"))
        e->sched = sched_cosine_new(e->opt, (int)c->epochs, (float)c->eta_min);
    if (strcmp(c->scheduler, "none") != 0 && !e->sched) return err_code();
    LoaderOptions lo = {c->batch_size, true, false, c->seed + 1, c->num_workers, c->pin_memory};
    TRY(loader_new(e->x_train, e->train.y, e->device, &lo, &e->train_loader));
    LoaderOptions vo = {c->batch_size > 512 ? c->batch_size : 512, false, false, 0, 0,
                        c->pin_memory};
    TRY(loader_new(e->x_val, e->val.y, e->device, &vo, &e->val_loader));
    TrainerOptions to = {c->epochs, (float)c->clip_norm, precision_dtype(c->precision),
                         c->grad_scaler, true, (float)c->loss_weight, (float)c->min_delta};
    TRY(trainer_new(e->model, e->train_loader, e->val_loader, e->loss, e->opt, e->sched,
                    e->device, &to, &e->trainer));
    e->trainer->config_json = e->config_json;
    TRY(best_model_saver_new(e->best, &e->callbacks[e->n_callbacks]));
    TRY(trainer_add_callback(e->trainer, e->callbacks[e->n_callbacks++]));
    TRY(metrics_logger_new(e->metrics, &e->callbacks[e->n_callbacks]));
    TRY(trainer_add_callback(e->trainer, e->callbacks[e->n_callbacks++]));
    TRY(checkpoint_saver_new(e->checkpoint, c->checkpoint_every, &e->callbacks[e->n_callbacks]));
    TRY(trainer_add_callback(e->trainer, e->callbacks[e->n_callbacks++]));
    if (c->patience > 0) {
        TRY(early_stopping_new(c->patience, (float)c->min_delta, &e->callbacks[e->n_callbacks]));
        TRY(trainer_add_callback(e->trainer, e->callbacks[e->n_callbacks++]));
    }
    return ERR_OK;
}

/* The folder and its config.json: the only files an experiment writes before it trains. */
static int write_folder(const Experiment *e, const char *root)
{
    TRY(make_dir(root));
    TRY(make_dir(e->dir));
    char path[700];
    snprintf(path, sizeof path, "%s/config.json", e->dir);
    return fileio_save_bytes(path, "experiment config", e->config_json, strlen(e->config_json));
}

/* build(), then (when @p resume is not NULL) the checkpoint, and only then the folder. */
static int open_experiment(const ExperimentConfig *c, const char *root, const char *resume,
                           Experiment **out)
{
    *out = NULL;
    Experiment *e = calloc(1, sizeof *e);
    if (!e) return err_set(ERR_NOMEM, "experiment: out of memory");
    e->cfg = *c;
    int rc = build(e, root);
    if (rc) err_context("experiment %s", c->name);
    if (!rc && resume) rc = experiment_resume(e, resume);
    if (!rc && (rc = write_folder(e, root)) != ERR_OK) err_context("experiment %s", c->name);
    if (rc) {
        experiment_free(e);
        return rc;
    }
    *out = e;
    return ERR_OK;
}

int experiment_open(const ExperimentConfig *c, const char *root, Experiment **out)
{
    return open_experiment(c, root, NULL, out);
}

int experiment_open_resumed(const ExperimentConfig *c, const char *root, const char *path,
                            Experiment **out)
{
    return open_experiment(c, root, path, out);
}

/* Early stopping (the last callback) sees the staged history epoch by epoch, from a fresh
 * start, as the saved run's did; on failure it is left as it was. */
static int replay_early_stopping(Experiment *e, const CheckpointStaged *s)
{
    Callable es = e->callbacks[e->n_callbacks - 1]; /* added last */
    EarlyStopping *state = callable_state(es);
    if (!state || strcmp(callable_name(es), "EarlyStopping") != 0)
        return err_set(ERR_ARG, "experiment_resume: the last callback is not the early stopping "
                                "the experiment made");
    EarlyStopping before = *state;
    state->best = INFINITY, state->wait = 0, state->stopped_epoch = 0;
    Trainer view; /* the trainer as it will be: its history is the staged one */
    checkpoint_preview(s, e->trainer, &view);
    long epochs = view.hist.n;
    int rc = ERR_OK;
    for (long k = 1; k <= epochs; k++) {
        Value arg = value_ptr(&view), r;
        view.hist.n = k;
        TRY_OR_DONE(callable_call(es, &arg, 1, &r));
    }
done:
    if (rc) *state = before;
    return rc;
}

int experiment_resume(Experiment *e, const char *path)
{
    CheckpointStaged *s = NULL;
    TRY(checkpoint_stage(e->trainer, path, &s));
    int rc = e->cfg.patience > 0 ? replay_early_stopping(e, s) : ERR_OK;
    if (rc) {
        checkpoint_staged_free(s);
        return err_context("%s: replaying its history through early stopping", path);
    }
    checkpoint_commit(e->trainer, s); /* the saved run went on, so this one does too */
    return ERR_OK;
}

void experiment_free(Experiment *e)
{
    if (!e) return;
    trainer_free(e->trainer);
    for (int i = 0; i < e->n_callbacks; i++) callable_release(e->callbacks[i]);
    loader_free(e->train_loader);
    loader_free(e->val_loader);
    sched_free(e->sched);
    optim_free(e->opt);
    loss_free(e->loss);
    module_free(e->model);
    tensor_free(e->x_train);
    tensor_free(e->x_val);
    dataset_free(&e->train);
    dataset_free(&e->val);
    free(e->config_json);
    free(e);
}
