/* check_hostile.c: what a hostile or careless user throws at the loaders (the issue "a
 * rejected load changes nothing"): refused loads leave the whole trainer as it was,
 * aligned reads of valid but unaligned files, configs and checkpoints that read back to
 * the same values, CSV files that would lose data, files that are too big, files from
 * other tools named for what they are, and saves killed half-way. The corpus of
 * tests/hostile (run by make test) throws many more. */
#define _XOPEN_SOURCE 700
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/core/err.h"
#include "lib/core/fileio.h"
#include "lib/core/rng.h"
#include "lib/device/device.h"
#include "lib/io/json.h"
#include "lib/io/safetensors.h"
#include "lib/train/checkpoint.h"
#include "lib/train/data.h"
#include "lib/train/experiment.h"
#include "lessons/lesson.h"
#include "suites.h"
#include "tests/common/tmpdir.h"
#include "tests/hostile/hostile.h"

static char g_dir[64];

static void make_dir(void)
{
    tmpdir_make(g_dir, sizeof g_dir, "wb-hostile");
}

static void remove_dir(void)
{
    ck_assert_int_eq(tmpdir_remove(g_dir), 0);
}

static const char *in_dir(const char *name) { return tmpdir_join(g_dir, name); }

static void assert_refused(int rc, const char *path, const char *words)
{
    ck_assert_msg(rc != ERR_OK, "%s was accepted", path);
    ck_assert_msg(strstr(err_message(), path) && strstr(err_message(), words),
                  "expected \"%s\" and \"%s\" in: %s", path, words, err_message());
}

/* ---- whole files, at most so big --------------------------------------------------------- */

START_TEST(test_reads_have_a_size_limit)
{
    const char *path = in_dir("ten.txt");
    tmpdir_write(path, "0123456789", 10);
    char *text;
    size_t len;
    ck_assert_int_eq(fileio_read_max(path, 10, "test file", &text, &len), ERR_OK);
    ck_assert_uint_eq(len, 10);
    ck_assert_str_eq(text, "0123456789");
    free(text);
    ck_assert_int_eq(fileio_read_max(path, 9, "test file", &text, &len), ERR_FORMAT);
    ck_assert_ptr_null(text);
    char want[400];
    snprintf(want, sizeof want,
             "%s: 10 bytes, more than the 9 bytes a test file may have (is it the right file?)",
             path);
    ck_assert_str_eq(err_message(), want);
    /* A device with no end is not read at all: it is not a regular file. */
    ck_assert_int_eq(fileio_read_max("/dev/zero", 1 << 20, "experiment config", &text, &len),
                     ERR_IO);
    ck_assert_str_eq(err_message(), "/dev/zero: cannot read it as an experiment config: it is a "
                                    "character device, not a regular file");
    ck_assert_int_eq(experiment_config_load("/dev/zero", &(ExperimentConfig){0}), ERR_IO);
    SafeTensors *st = NULL;
    ck_assert_int_eq(safetensors_load("/dev/zero", &st), ERR_IO);
    ck_assert_ptr_nonnull(strstr(err_message(), "it is a character device"));
    /* A file that says 0 bytes and has more (/proc's) is read up to the limit, no further. */
    ck_assert_int_eq(fileio_read_max("/proc/self/status", 16, "status file", &text, &len),
                     ERR_FORMAT);
    ck_assert_str_eq(err_message(), "/proc/self/status: longer than the 16 bytes a status file "
                                    "may have (is it the right file?)");
    /* /proc files say their size is 0: read to their end all the same. */
    ck_assert_int_eq(fileio_read("/proc/self/status", &text, &len), ERR_OK);
    ck_assert(len > 0 && strstr(text, "Name:"));
    free(text);
}
END_TEST

/* ---- safetensors: aligned, whatever the layout -------------------------------------------- */

/* A safetensors file of header h (padded with pad spaces) and data d (n bytes). */
static unsigned char *st_bytes(const char *h, size_t pad, const void *d, size_t n, size_t *len)
{
    size_t hl = strlen(h) + pad;
    unsigned char *b = malloc(8 + hl + n);
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)((uint64_t)hl >> (8 * i));
    memcpy(b + 8, h, strlen(h));
    memset(b + 8 + strlen(h), ' ', pad);
    memcpy(b + 8 + hl, d, n);
    *len = 8 + hl + n;
    return b;
}

START_TEST(test_unaligned_files_are_read_aligned)
{
    /* A header length of 55 (not a multiple of 8: the Python library reads such files)
     * and an F32 tensor at data offset 2, after one F16 value: each tensor's data must be
     * aligned for its type. */
    const char *h = "{\"h\":{\"dtype\":\"F16\",\"shape\":[1],\"data_offsets\":[0,2]},"
                    "\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[2,14]}}";
    unsigned char d[14] = {0x00, 0x3c};
    const float a[3] = {1.5f, -2.0f, 3.25f};
    memcpy(d + 2, a, sizeof a);
    for (size_t pad = 0; pad < 8; pad++) {
        size_t len;
        unsigned char *b = st_bytes(h, pad, d, sizeof d, &len);
        SafeTensors *st = NULL;
        ck_assert_msg(safetensors_parse(b, len, "mem", &st) == ERR_OK, "%s", err_message());
        const StTensor *t = safetensors_find(st, "a");
        ck_assert_uint_eq((uintptr_t)t->data % 4, 0);
        const float *v = t->data;
        ck_assert(v[0] == 1.5f && v[1] == -2.0f && v[2] == 3.25f);
        ck_assert_uint_eq((uintptr_t)safetensors_find(st, "h")->data % 2, 0);
        safetensors_free(st);
        /* The same from a file. */
        tmpdir_write(in_dir("odd.safetensors"), b, len);
        ck_assert_int_eq(safetensors_load(in_dir("odd.safetensors"), &st), ERR_OK);
        ck_assert_mem_eq(safetensors_find(st, "a")->data, a, sizeof a);
        ck_assert_uint_eq((uintptr_t)safetensors_find(st, "a")->data % 4, 0);
        safetensors_free(st);
        free(b);
    }
}
END_TEST

/* ---- safetensors: damage, or another tool ------------------------------------------------- */

START_TEST(test_a_resaved_file_is_not_called_corrupted)
{
    const float w[4] = {1, 2, 3, 4}, b[2] = {5, 6};
    StTensor t[2] = {{"w", DTYPE_F32, 1, {4}, w, sizeof w}, {"b", DTYPE_F32, 1, {2}, b, sizeof b}};
    const char *meta[] = {"wb.format", "x", "epoch", "3"};
    const char *path = in_dir("a.safetensors");
    ck_assert_int_eq(safetensors_save(path, t, 2, meta, 2), ERR_OK);
    SafeTensors *st;
    ck_assert_int_eq(safetensors_load(path, &st), ERR_OK);
    char crc[9];
    snprintf(crc, sizeof crc, "%s", safetensors_meta(st, "wb.crc32"));
    ck_assert_int_eq(safetensors_meta_count(st), 3);
    ck_assert_str_eq(safetensors_meta_key(st, 0), "wb.format");
    ck_assert_str_eq(safetensors_meta_key(st, 2), "wb.crc32");
    ck_assert_ptr_null(safetensors_meta_key(st, 3));
    safetensors_free(st);
    /* As Python's safetensors writes it again, with the old metadata: sorted tensors,
     * the metadata in another order, the old checksum. */
    char h[400];
    snprintf(h, sizeof h,
             "{\"__metadata__\":{\"epoch\":\"3\",\"wb.crc32\":\"%s\",\"wb.format\":\"x\"},"
             "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
             "\"w\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[8,24]}}",
             crc);
    float d[6] = {5, 6, 1, 2, 3, 4};
    size_t len;
    unsigned char *bytes = st_bytes(h, (8 - strlen(h) % 8) % 8, d, sizeof d, &len);
    const char *again = in_dir("again.safetensors");
    tmpdir_write(again, bytes, len);
    free(bytes);
    assert_refused(safetensors_load(again, &st), again, "re-saved by another tool");
    ck_assert_ptr_nonnull(strstr(err_message(), "drop wb.crc32"));
    ck_assert_ptr_null(strstr(err_message(), "corrupted"));
    /* One bit of our own file's data: damage. */
    unsigned char *mine;
    char *text;
    ck_assert_int_eq(fileio_read(path, &text, &len), ERR_OK);
    mine = (unsigned char *)text;
    mine[len - 2] ^= 1;
    tmpdir_write(again, mine, len);
    free(text);
    assert_refused(safetensors_load(again, &st), again, "checksum mismatch");
    ck_assert_ptr_nonnull(strstr(err_message(), "corrupted"));
}
END_TEST

/* ---- JSON: as few digits as read back -------------------------------------------------------- */

START_TEST(test_json_shortest_reals)
{
    json_t *a = json_array();
    json_array_append_new(a, json_real(0.1));
    json_array_append_new(a, json_real(1e-9));
    json_array_append_new(a, json_real(100.0));
    char *text;
    ck_assert_int_eq(json_text(a, JSON_TEXT_SHORTEST, &text, NULL), ERR_OK);
    ck_assert_str_eq(text, "[0.1,1e-9,100.0]");
    free(text);
    json_array_append_new(a, json_real(0.1 + 0.2)); /* needs 17 digits: all get them */
    ck_assert_int_eq(json_text(a, JSON_TEXT_SHORTEST, &text, NULL), ERR_OK);
    ck_assert_ptr_nonnull(strstr(text, "0.30000000000000004"));
    free(text);
    json_decref(a);
}
END_TEST

/* ---- configs: what is written reads back the same ------------------------------------------ */

static void round_trip(const ExperimentConfig *c)
{
    char *text = NULL;
    ck_assert_msg(experiment_config_json(c, true, &text) == ERR_OK, "%s", err_message());
    ExperimentConfig back;
    experiment_config_default(&back);
    ck_assert_msg(experiment_config_parse(text, strlen(text), "t", &back) == ERR_OK, "%s: %s",
                  text, err_message());
    ck_assert_msg(memcmp(&back, c, sizeof back) == 0, "changed on the way:\n%s", text);
    free(text);
}

START_TEST(test_configs_read_back_the_same)
{
    /* The case: 1e-9 was stored as a float, written as 9.99999972e-10 and then
     * refused. */
    ExperimentConfig c;
    experiment_config_default(&c);
    const char *tiny = "{\"lr\": 1e-9}";
    ck_assert_int_eq(experiment_config_parse(tiny, strlen(tiny), "c.json", &c), ERR_OK);
    ck_assert(c.lr == 1e-9);
    round_trip(&c);
    char *text;
    ck_assert_int_eq(experiment_config_json(&c, false, &text), ERR_OK);
    ck_assert_ptr_nonnull(strstr(text, "\"lr\":1e-9,"));
    free(text);
    /* Every range end and random values in between. */
    const char *edges = "{\"lr\": 100, \"momentum\": 0.999999, \"gamma\": 1e-6, \"eta_min\": 100,"
                        "\"loss_weight\": 1e-30, \"min_delta\": 1e9, \"clip_norm\": 1e9,"
                        "\"weight_decay\": 1, \"seed\": 9223372036854775807, \"epochs\": 1000000,"
                        "\"data\": \"synthetic\", \"synthetic_n\": 10000000, \"name\": \"caf\xc3\xa9\"}";
    experiment_config_default(&c);
    ck_assert_msg(experiment_config_parse(edges, strlen(edges), "c.json", &c) == ERR_OK, "%s",
                  err_message());
    round_trip(&c);
    Rng rng;
    rng_seed(&rng, 5, 0);
    for (int i = 0; i < 200; i++) {
        experiment_config_default(&c);
        c.lr = 1e-9 + (100 - 1e-9) * rng_uniform(&rng);
        c.momentum = 0.999999 * rng_uniform(&rng);
        c.gamma = ldexp(rng_uniform(&rng) + 0.5, -(int)(rng_u32(&rng) % 18)) / 1.5;
        c.eta_min = rng_uniform(&rng) * 1e-3;
        c.loss_weight = exp(-60 + 70 * rng_uniform(&rng));
        c.seed = rng_u32(&rng);
        round_trip(&c);
    }
    /* What a config file cannot hold is not written, and the message names the field. */
    experiment_config_default(&c);
    c.lr = 0;
    ck_assert_int_eq(experiment_config_json(&c, true, &text), ERR_ARG);
    ck_assert_ptr_null(text);
    ck_assert_msg(strstr(err_message(), "\"lr\""), "%s", err_message());
    experiment_config_default(&c);
    c.seed = UINT64_MAX;
    ck_assert_int_eq(experiment_config_json(&c, true, &text), ERR_ARG);
    ck_assert_msg(strstr(err_message(), "\"seed\""), "%s", err_message());
    experiment_config_default(&c);
    snprintf(c.name, sizeof c.name, "a/b");
    ck_assert_int_eq(experiment_config_json(&c, true, &text), ERR_ARG);
    ck_assert_msg(strstr(err_message(), "\"name\""), "%s", err_message());
    /* A NUL in a name does not cut it short: refused. */
    const char *nul = "{\"name\": \"run\\u0000evil\"}";
    experiment_config_default(&c);
    ExperimentConfig before = c;
    ck_assert_int_eq(experiment_config_parse(nul, strlen(nul), "c.json", &c), ERR_FORMAT);
    ck_assert_mem_eq(&c, &before, sizeof c);
}
END_TEST

/* ---- CSV files that would lose data --------------------------------------------------------- */

START_TEST(test_csv_that_would_lose_data)
{
    static const char *const digits[] = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", NULL};
    DatasetSpec spec = {"digit", digits, "split"};
    Dataset tr, te;
    const char *dup = "x,x,digit,split\n1,2,3,train\n1,2,4,test\n";
    ck_assert_int_eq(dataset_parse_csv(dup, strlen(dup), "d.csv", &spec, &tr, &te), ERR_FORMAT);
    ck_assert_str_eq(err_message(), "d.csv:1: the column name \"x\" appears twice (columns 1 "
                                    "and 2): one of them would be lost");
    ck_assert_ptr_null(tr.x);
    const char *ten = "x,digit,split\n1,3,train\n2,10,train\n3,4,test\n";
    ck_assert_int_eq(dataset_parse_csv(ten, strlen(ten), "d.csv", &spec, &tr, &te), ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(err_message(), "d.csv:3: unknown label \"10\""));
    const char *no_test = "x,digit,split\n1,3,train\n2,4,train\n";
    ck_assert_int_eq(dataset_parse_csv(no_test, strlen(no_test), "d.csv", &spec, &tr, &te),
                     ERR_FORMAT);
    ck_assert_str_eq(err_message(),
                     "d.csv: column \"split\" marks no row \"test\": the test part would be empty");
    /* Integer labels learnt from the file: a class without rows is most likely a typo. */
    DatasetSpec ints = {"y", NULL, NULL};
    const char *gap = "x,y\n1,0\n2,1\n3,5\n";
    ck_assert_int_eq(dataset_parse_csv(gap, strlen(gap), "g.csv", &ints, &tr, NULL), ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(err_message(), "g.csv: no row has label 2"));
    const char *good = "x,y\n1,0\n2,1\n3,2\n";
    ck_assert_int_eq(dataset_parse_csv(good, strlen(good), "g.csv", &ints, &tr, NULL), ERR_OK);
    ck_assert_int_eq(tr.n_classes, 3);
    dataset_free(&tr);
}
END_TEST

/* ---- checkpoints: a refused load changes nothing ---------------------------------------------- */

static Experiment *open_run(const char *name, int patience)
{
    ExperimentConfig c;
    hostile_config(&c, name);
    c.patience = patience;
    Experiment *e = NULL;
    ck_assert_msg(experiment_open(&c, g_dir, &e) == ERR_OK, "%s", err_message());
    e->trainer->opts.progress = false;
    return e;
}

static void state_of(const Trainer *t, unsigned char **b, size_t *n)
{
    ck_assert_int_eq(checkpoint_state_bytes(t, b, n), ERR_OK);
}

static void assert_same_state(const Trainer *t, const unsigned char *before, size_t n)
{
    unsigned char *now;
    size_t m;
    state_of(t, &now, &m);
    ck_assert_msg(m == n && memcmp(now, before, n) == 0, "the trainer's state changed");
    free(now);
}

/* The checkpoint at from, saved again to to with metadata key set to value (or dropped
 * when value is NULL), and a fresh checksum. */
static void resave(const char *from, const char *to, const char *key, const char *value)
{
    SafeTensors *st;
    ck_assert_int_eq(safetensors_load(from, &st), ERR_OK);
    StTensor t[64];
    int n = safetensors_count(st), k = 0;
    for (int i = 0; i < n; i++) t[i] = *safetensors_get(st, i);
    const char *meta[128];
    for (int i = 0; i < safetensors_meta_count(st); i++) {
        const char *kk = safetensors_meta_key(st, i);
        if (!strcmp(kk, "wb.crc32") || (!value && !strcmp(kk, key))) continue;
        meta[2 * k] = kk;
        meta[2 * k + 1] = !strcmp(kk, key) ? value : safetensors_meta(st, kk);
        k++;
    }
    ck_assert_int_eq(safetensors_save(to, t, n, meta, k), ERR_OK);
    safetensors_free(st);
}

START_TEST(test_a_refused_load_changes_nothing)
{
    Experiment *src = open_run("src", 0), *dst = open_run("dst", 0);
    ck_assert_int_eq(trainer_call(src->trainer, 2), ERR_OK);
    ck_assert_int_eq(trainer_call(dst->trainer, 1), ERR_OK);
    const char *good = src->checkpoint, *bad = in_dir("bad.safetensors");
    unsigned char *before;
    size_t n;
    state_of(dst->trainer, &before, &n);
    /* The cases: checked after the weights and the step were copied, once. */
    resave(good, bad, "optim.lr", "-0x1p-4");
    assert_refused(checkpoint_load(dst->trainer, bad), bad, "\"optim.lr\"");
    assert_same_state(dst->trainer, before, n);
    resave(good, bad, "sched.lr", "1e300");
    assert_refused(checkpoint_load(dst->trainer, bad), bad, "\"sched.lr\"");
    assert_same_state(dst->trainer, before, n);
    resave(good, bad, "scaler.scale", "-1");
    assert_refused(checkpoint_load(dst->trainer, bad), bad, "\"scaler.scale\"");
    resave(good, bad, "best_val_loss", "nan");
    assert_refused(checkpoint_load(dst->trainer, bad), bad, "\"best_val_loss\"");
    resave(good, bad, "loader.seed", NULL);
    assert_refused(checkpoint_load(dst->trainer, bad), bad, "missing metadata \"loader.seed\"");
    assert_same_state(dst->trainer, before, n);
    /* experiment_resume is all or nothing too. */
    resave(good, bad, "optim.lr", "-0x1p-4");
    assert_refused(experiment_resume(dst, bad), bad, "\"optim.lr\"");
    assert_same_state(dst->trainer, before, n);
    /* And the good file loads, to the source's state. */
    ck_assert_int_eq(checkpoint_load(dst->trainer, good), ERR_OK);
    unsigned char *want;
    size_t m;
    state_of(src->trainer, &want, &m);
    assert_same_state(dst->trainer, want, m);
    free(want);
    free(before);
    experiment_free(src);
    experiment_free(dst);
}
END_TEST

START_TEST(test_resume_replays_early_stopping_or_changes_nothing)
{
    Experiment *src = open_run("src", 1), *dst = open_run("dst", 1);
    ck_assert_int_eq(trainer_call(src->trainer, 3), ERR_OK);
    ck_assert_int_eq(trainer_call(dst->trainer, 1), ERR_OK);
    char at[400];
    snprintf(at, sizeof at, "%s", in_dir("at.safetensors"));
    ck_assert_int_eq(checkpoint_save(src->trainer, src->trainer->hist.n, at), ERR_OK);
    EarlyStopping *es_dst = callable_state(dst->callbacks[dst->n_callbacks - 1]);
    EarlyStopping *es_src = callable_state(src->callbacks[src->n_callbacks - 1]);
    EarlyStopping before = *es_dst;
    unsigned char *state;
    size_t n;
    state_of(dst->trainer, &state, &n);
    resave(at, in_dir("bad.safetensors"), "scaler.growth_tracker", "99999");
    ck_assert_int_ne(experiment_resume(dst, in_dir("bad.safetensors")), ERR_OK);
    assert_same_state(dst->trainer, state, n);
    ck_assert_mem_eq(es_dst, &before, sizeof before);
    /* Accepted: early stopping has seen the history as the saved run's had. */
    ck_assert_msg(experiment_resume(dst, at) == ERR_OK, "%s", err_message());
    ck_assert(es_dst->best == es_src->best && es_dst->wait == es_src->wait);
    ck_assert(!dst->trainer->stop);
    free(state);
    experiment_free(src);
    experiment_free(dst);
}
END_TEST

/* The whole file at path, or NULL when there is none. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strdup(buf);
}

START_TEST(test_a_refused_resume_leaves_the_folder_as_it_was)
{
    /* --resume with a config of the same name but another lr, and a refused file: the
     * folder's config.json is still the saved run's, and a new name makes no folder. */
    Experiment *src = open_run("kept", 0);
    ck_assert_int_eq(trainer_call(src->trainer, 1), ERR_OK);
    char config[600], bad[400];
    snprintf(config, sizeof config, "%s/config.json", src->dir);
    snprintf(bad, sizeof bad, "%s", in_dir("bad.safetensors"));
    resave(src->checkpoint, bad, "optim.lr", "-0x1p-4");
    char *before = slurp(config);
    ck_assert_ptr_nonnull(before);
    ExperimentConfig c;
    hostile_config(&c, "kept");
    c.lr = 0.02;
    Experiment *e = NULL;
    assert_refused(experiment_open_resumed(&c, g_dir, bad, &e), bad, "\"optim.lr\"");
    ck_assert_ptr_null(e);
    char *after = slurp(config);
    ck_assert_msg(after && strcmp(after, before) == 0, "a refused resume rewrote %s", config);
    free(after);
    hostile_config(&c, "never_made");
    assert_refused(experiment_open_resumed(&c, g_dir, in_dir("missing.safetensors"), &e),
                   in_dir("missing.safetensors"), "missing.safetensors");
    ck_assert_msg(access(in_dir("never_made"), F_OK) != 0, "a refused resume made a folder");
    /* The good file is taken, and only then is the config written. */
    hostile_config(&c, "kept");
    c.lr = 0.02;
    ck_assert_msg(experiment_open_resumed(&c, g_dir, src->checkpoint, &e) == ERR_OK, "%s",
                  err_message());
    after = slurp(config);
    ck_assert_msg(after && strcmp(after, before) != 0, "the resumed run's config was not written");
    free(after);
    free(before);
    experiment_free(e);
    experiment_free(src);
}
END_TEST

/* ---- files from other tools ---------------------------------------------------------------- */

START_TEST(test_a_pytorch_state_dict_is_named_as_one)
{
    Experiment *e = open_run("e", 0);
    ParamRef p[8];
    int n = module_parameters(e->model, p, 8);
    StTensor t[8];
    float *rows[8];
    for (int i = 0; i < n; i++) {
        const Tensor *v = p[i].param->value;
        rows[i] = malloc(sizeof(float) * (size_t)v->numel);
        ck_assert_int_eq(tensor_get_rows(v, rows[i]), ERR_OK);
        snprintf(t[i].name, sizeof t[i].name, "%.100s", p[i].name);
        t[i].dtype = DTYPE_F32, t[i].ndim = v->ndim;
        for (int d = 0; d < v->ndim; d++) t[i].shape[d] = v->shape[d];
        t[i].data = rows[i], t[i].bytes = sizeof(float) * (size_t)v->numel;
    }
    const char *path = in_dir("state_dict.safetensors");
    ck_assert_int_eq(safetensors_save(path, t, n, NULL, 0), ERR_OK);
    assert_refused(checkpoint_load_weights(e->model, path), path, "prefix mismatch");
    ck_assert_ptr_nonnull(strstr(err_message(), "no wb.format"));
    ck_assert_ptr_nonnull(strstr(err_message(), "\"fc1.weight\""));
    for (int i = 0; i < n; i++) free(rows[i]);
    experiment_free(e);
}
END_TEST

/* ---- a save killed half-way --------------------------------------------------------------- */

static int leftovers(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    for (struct dirent *ent; (ent = readdir(d));) n += strstr(ent->d_name, ".tmp-") != NULL;
    closedir(d);
    return n;
}

static void die_halfway(size_t written)
{
    if (written > 1024) raise(SIGKILL);
}

START_TEST(test_a_killed_save_leaves_nothing_after_the_next)
{
    Experiment *e = open_run("k", 0);
    ck_assert_int_eq(trainer_call(e->trainer, 1), ERR_OK);
    char *before, *after;
    size_t n, m;
    ck_assert_int_eq(fileio_read(e->checkpoint, &before, &n), ERR_OK);
    for (int k = 0; k < 3; k++) { /* three killed saves, three leftovers */
        fflush(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            safetensors_set_write_hook(die_halfway);
            int rc = checkpoint_save(e->trainer, 1, e->checkpoint);
            _exit(rc ? 3 : 0);
        }
        int status;
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    }
    ck_assert_int_eq(leftovers(e->dir), 3);
    ck_assert_int_eq(fileio_read(e->checkpoint, &after, &m), ERR_OK);
    ck_assert(n == m && memcmp(before, after, n) == 0); /* the last good one, as it was */
    free(after);
    ck_assert_int_eq(trainer_call(e->trainer, 2), ERR_OK); /* its save succeeds */
    ck_assert_int_eq(leftovers(e->dir), 0);
    free(before);
    experiment_free(e);
}
END_TEST

/* ---- what a checkpoint's scalars must agree with -------------------------------------- */

/* A rate set by hand since the last scheduler step is saved as the scheduler's, as its
 * next step would take it: the file loads, and the resumed run goes on as the live one. A
 * rate above a config's largest is not saved at all. */
START_TEST(test_a_rate_set_by_hand_is_saved_as_the_schedulers)
{
    Experiment *a = open_run("hand-a", 0), *b = open_run("hand-b", 0);
    ck_assert_int_eq(trainer_call(a->trainer, 1), ERR_OK);
    ck_assert_int_eq(optim_set_lr(a->opt, 0.003f), ERR_OK);
    const char *path = in_dir("hand.safetensors");
    ck_assert_msg(checkpoint_save(a->trainer, 1, path) == ERR_OK, "%s", err_message());
    ck_assert_msg(checkpoint_load(b->trainer, path) == ERR_OK, "%s", err_message());
    ck_assert(b->opt->lr == 0.003f && b->sched->state.lr == (double)0.003f);
    ck_assert_int_eq(trainer_call(a->trainer, 2), ERR_OK);
    ck_assert_int_eq(trainer_call(b->trainer, 2), ERR_OK);
    ck_assert(a->opt->lr == b->opt->lr && a->sched->state.lr == b->sched->state.lr);
    ck_assert_int_eq(optim_set_lr(a->opt, 128.0f), ERR_OK);
    assert_refused(checkpoint_save(a->trainer, 2, path), path, "\"optim.lr\" is 128");
    experiment_free(a);
    experiment_free(b);
}
END_TEST

/* Under a GradScaler a whole epoch may be skipped (inf gradients at every step): here two
 * epochs of Adam end with a step count below 2 (0), which the history's skipped steps
 * explain; the checkpoint loads. */
START_TEST(test_an_epoch_of_skipped_steps_saves_and_loads)
{
    ExperimentConfig c;
    hostile_config(&c, "skips");
    c.loss_weight = 1e6; /* gradients past float16's range at a scale of 65536 */
    Experiment *e = NULL, *again = NULL;
    ck_assert_msg(experiment_open(&c, g_dir, &e) == ERR_OK, "%s", err_message());
    e->trainer->opts.progress = false;
    ck_assert_msg(trainer_call(e->trainer, 2) == ERR_OK, "%s", err_message());
    const float *skipped = e->trainer->hist.skipped;
    ck_assert_msg(e->opt->step < 2 && skipped[0] > 0 && skipped[1] > 0,
                  "skipped %g and %g, step %lld: expected fewer steps than epochs",
                  (double)skipped[0], (double)skipped[1], (long long)e->opt->step);
    snprintf(c.name, sizeof c.name, "skips2");
    ck_assert_msg(experiment_open(&c, g_dir, &again) == ERR_OK, "%s", err_message());
    ck_assert_msg(checkpoint_load(again->trainer, e->checkpoint) == ERR_OK, "%s", err_message());
    ck_assert_int_eq(again->opt->step, e->opt->step);
    experiment_free(again);
    experiment_free(e);
}
END_TEST

/* An epoch needs a batch: without one, a GradScaler's epoch would count without a step,
 * and a checkpoint's step count could not be checked against its history. */
START_TEST(test_a_trainer_needs_a_batch_per_epoch)
{
    Experiment *e = open_run("batches", 0);
    Loader *none = NULL;
    LoaderOptions o = {.batch_size = 1000, .drop_last = true};
    ck_assert_int_eq(loader_new(e->x_train, e->train.y, device_cpu(), &o, &none), ERR_OK);
    ck_assert_int_eq(loader_batches(none), 0);
    Trainer *t = NULL;
    TrainerOptions to = e->trainer->opts;
    ck_assert_int_eq(trainer_new(e->model, none, e->val_loader, e->loss, e->opt, e->sched,
                                 e->device, &to, &t),
                     ERR_ARG);
    ck_assert_ptr_null(t);
    ck_assert_msg(strstr(err_message(), "no batches"), "%s", err_message());
    loader_free(none);
    experiment_free(e);
}
END_TEST

/* --device on a command line is spelled as a config's "device" is: checked when it is
 * read, not cut to fit and refused later (or never). */
START_TEST(test_a_device_option_is_checked_when_read)
{
    ck_assert(device_spelled("cpu") && device_spelled("cuda") && device_spelled("cuda:0") &&
              device_spelled("cuda:9999"));
    const char *bad[] = {"cuda:99999999999999999999", "cuda:99999", "cuda:", "cuda:-1",
                         "CPU", "cpu\n", "cuda:1x", ""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ck_assert_msg(!device_spelled(bad[i]), "\"%s\" accepted", bad[i]);
        const char *device = NULL;
        const LessonOption table[] = {
            OPT_DEVICE("device", &device, "D", "cpu, cuda or cuda:N"),
            OPT_END,
        };
        char *argv[] = {"lesson37", "--device", (char *)bad[i], NULL};
        const char *log = in_dir("stderr.txt");
        fflush(stderr);
        int saved = dup(STDERR_FILENO);
        ck_assert(freopen(log, "w", stderr) != NULL);
        int status = -1;
        bool go_on = lesson_options(5, table, 3, argv, &status);
        fflush(stderr);
        ck_assert_int_eq(dup2(saved, STDERR_FILENO), STDERR_FILENO);
        close(saved);
        ck_assert_msg(!go_on && status == LESSON_BAD_INPUT, "--device \"%s\" accepted", bad[i]);
        ck_assert_ptr_null(device);
        char *text;
        size_t len;
        ck_assert_int_eq(fileio_read(log, &text, &len), ERR_OK);
        char want[200];
        snprintf(want, sizeof want, "lesson37: part 5: --device takes %s, not \"%s\"\n",
                 DEVICE_SPELLING, bad[i]);
        ck_assert_msg(strchr(bad[i], '\n') ? strstr(text, "--device takes " DEVICE_SPELLING) != NULL
                                             : strncmp(text, want, strlen(want)) == 0,
                      "%s", text);
        free(text);
    }
    const char *device = NULL;
    const LessonOption table[] = {OPT_DEVICE("device", &device, "D", "a device"), OPT_END};
    char *argv[] = {"lesson37", "--device", "cuda:3", NULL};
    int status = -1;
    ck_assert(lesson_options(5, table, 3, argv, &status) && status == LESSON_OK);
    ck_assert_str_eq(device, "cuda:3");
}
END_TEST

Suite *hostile_suite(void)
{
    Suite *s = suite_create("hostile");
    TCase *tc = tcase_create("refusals");
    tcase_set_timeout(tc, 120);
    tcase_add_checked_fixture(tc, make_dir, remove_dir);
    tcase_add_test(tc, test_reads_have_a_size_limit);
    tcase_add_test(tc, test_unaligned_files_are_read_aligned);
    tcase_add_test(tc, test_a_resaved_file_is_not_called_corrupted);
    tcase_add_test(tc, test_json_shortest_reals);
    tcase_add_test(tc, test_configs_read_back_the_same);
    tcase_add_test(tc, test_csv_that_would_lose_data);
    tcase_add_test(tc, test_a_refused_load_changes_nothing);
    tcase_add_test(tc, test_resume_replays_early_stopping_or_changes_nothing);
    tcase_add_test(tc, test_a_refused_resume_leaves_the_folder_as_it_was);
    tcase_add_test(tc, test_a_pytorch_state_dict_is_named_as_one);
    tcase_add_test(tc, test_a_killed_save_leaves_nothing_after_the_next);
    tcase_add_test(tc, test_a_rate_set_by_hand_is_saved_as_the_schedulers);
    tcase_add_test(tc, test_an_epoch_of_skipped_steps_saves_and_loads);
    tcase_add_test(tc, test_a_trainer_needs_a_batch_per_epoch);
    tcase_add_test(tc, test_a_device_option_is_checked_when_read);
    suite_add_tcase(s, tc);
    return s;
}
