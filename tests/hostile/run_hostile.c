/* run_hostile.c: the hostile-input corpus (tests/hostile/README.md), run by make test.
 *
 * Every case of tests/hostile/expected.txt, and every truncation and a few thousand bit
 * flips of a real checkpoint, is thrown at the loader it attacks: the checkpoint loader
 * (into a trainer that has trained an epoch), the config reader, the CSV reader. A
 * refusal must be one line naming the file and the words the manifest gives (the field),
 * and leave what it was loading into as it was: the trainer's whole state bit for bit
 * (checkpoint_state_bytes()), the config, empty datasets. What is meant to be accepted
 * must load to the values it holds. Prints the counts; exits 1 on the first few
 * failures it lists.
 *
 *   hostile_inputs [--show] [--write-seeds DIR]
 *
 * --show prints every refusal of the manifest; --write-seeds writes the fuzzers' seed
 * checkpoints (with and without a checksum, the made-up files of headers/, and each edit of
 * the manifest) to DIR instead of running the corpus. */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/core/err.h"
#include "lib/core/fileio.h"
#include "lib/core/rng.h"
#include "lib/io/safetensors.h"
#include "lib/train/checkpoint.h"
#include "lib/train/data.h"
#include "lib/train/experiment.h"
#include "lib/train/iris.h"
#include "tests/hostile/hostile.h"

#define CORPUS WB_ROOT "/tests/hostile"

static int g_failures;
static char g_tmp[256];
static bool g_show; /* --show: print every refusal of the manifest */
static const char *g_seeds; /* --write-seeds DIR */

__attribute__((format(printf, 1, 2))) static void fail(const char *fmt, ...)
{
    if (g_failures++ >= 25) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

static void die(const char *what)
{
    fprintf(stderr, "hostile_inputs: %s: %s\n", what, err_message());
    exit(2);
}

static char *tmp_path(const char *name)
{
    static char buf[4][512];
    static int k;
    char *p = buf[k++ % 4];
    snprintf(p, 512, "%s/%s", g_tmp, name);
    return p;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

static void write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || (len && fwrite(data, 1, len, f) != len) || fclose(f) != 0) {
        fprintf(stderr, "hostile_inputs: cannot write %s: %s\n", path, strerror(errno));
        exit(2);
    }
}

/* ---- what a refusal must be -------------------------------------------------------- */

/* "a | b | c": every word must be in msg. Returns the first one missing, or NULL. */
static const char *missing_word(const char *msg, const char *words, char *buf, size_t size)
{
    const char *p = words;
    while (p && *p) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        while (n && (*p == ' ' || *p == '\t')) p++, n--;
        while (n && (p[n - 1] == ' ' || p[n - 1] == '\t')) n--;
        if (n) {
            snprintf(buf, size, "%.*s", (int)n, p);
            if (!strstr(msg, buf)) return buf;
        }
        p = bar ? bar + 1 : NULL;
    }
    return NULL;
}

/* rc must be a refusal whose one-line message names path and holds words. */
static bool check_refusal(const char *what, const char *path, int rc, const char *words)
{
    const char *msg = err_message();
    char buf[256];
    const char *gone = missing_word(msg, words, buf, sizeof buf);
    if (rc == ERR_OK) {
        fail("%s: %s was accepted; expected a refusal saying: %s", what, path, words);
        return false;
    }
    if (g_show && words[0]) printf("%-28.28s %s\n", what, msg);
    if (!strstr(msg, path) || gone || strchr(msg, '\n')) {
        fail("%s: the message should name %s%s%s%s in one line; it was: %s", what, path,
             gone ? " and say \"" : "", gone ? gone : "", gone ? "\"" : "", msg);
        return false;
    }
    return true;
}

/* ---- the trainers ------------------------------------------------------------------- */

static Experiment *g_src, *g_dst, *g_scratch;
static char g_good[600]; /* the source run's checkpoint after epoch 2 */
static unsigned char *g_ref;
static size_t g_ref_len; /* a trainer's state after loading g_good */

static void state_of(const Trainer *t, unsigned char **b, size_t *n)
{
    if (checkpoint_state_bytes(t, b, n) != ERR_OK) die("checkpoint_state_bytes");
}

static Experiment *open_run(const char *name)
{
    ExperimentConfig c;
    hostile_config(&c, name);
    Experiment *e = NULL;
    if (experiment_open(&c, g_tmp, &e) != ERR_OK) die("experiment_open");
    e->trainer->opts.progress = false;
    return e;
}

static int n_loads, n_unchanged;

/* Load path into t; a refusal must leave t as it was. Returns the code. */
static int load_into(Trainer *t, const char *path)
{
    unsigned char *before, *after;
    size_t nb, na;
    state_of(t, &before, &nb);
    int rc = checkpoint_load(t, path);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", err_message());
    ErrCode code = err_code();
    n_loads++;
    if (rc != ERR_OK) {
        state_of(t, &after, &na);
        if (na != nb || memcmp(before, after, nb) != 0)
            fail("%s was refused (%s) but the trainer changed", path, msg);
        else
            n_unchanged++;
        free(after);
    }
    free(before);
    err_set(code, "%s", msg); /* for the caller, as the load left it */
    return rc;
}

/* After an accepted load: the trainer's state must be one the workbook itself would save
 * (finite weights, rates and scale in range: checkpoint_save() checks what it writes). */
static bool state_is_valid(Trainer *t)
{
    return checkpoint_save(t, t->hist.n, tmp_path("valid.safetensors")) == ERR_OK;
}

/* ---- a checkpoint as a list of tensors and metadata, to edit and write again -------- */

#define BLOB_MAX 64

typedef struct Blob {
    int n, nm;
    StTensor t[BLOB_MAX];
    unsigned char *data[BLOB_MAX];
    char *key[BLOB_MAX], *val[BLOB_MAX];
} Blob;

static void blob_free(Blob *b)
{
    for (int i = 0; i < b->n; i++) free(b->data[i]);
    for (int i = 0; i < b->nm; i++) free(b->key[i]), free(b->val[i]);
    memset(b, 0, sizeof *b);
}

static void blob_read(const char *path, Blob *b)
{
    memset(b, 0, sizeof *b);
    SafeTensors *st;
    if (safetensors_load(path, &st) != ERR_OK) die("reading the good checkpoint");
    for (int i = 0; i < safetensors_count(st) && b->n < BLOB_MAX; i++) {
        b->t[b->n] = *safetensors_get(st, i);
        b->data[b->n] = malloc(b->t[b->n].bytes + 1);
        memcpy(b->data[b->n], b->t[b->n].data, b->t[b->n].bytes);
        b->t[b->n].data = b->data[b->n];
        b->n++;
    }
    for (int i = 0; i < safetensors_meta_count(st) && b->nm < BLOB_MAX; i++) {
        const char *k = safetensors_meta_key(st, i);
        b->key[b->nm] = strdup(k);
        b->val[b->nm] = strdup(safetensors_meta(st, k));
        b->nm++;
    }
    safetensors_free(st);
}

static int blob_find(const Blob *b, const char *name)
{
    for (int i = 0; i < b->n; i++)
        if (!strcmp(b->t[i].name, name)) return i;
    return -1;
}

static int blob_meta(const Blob *b, const char *key)
{
    for (int i = 0; i < b->nm; i++)
        if (!strcmp(b->key[i], key)) return i;
    return -1;
}

static void blob_drop_meta(Blob *b, int i)
{
    free(b->key[i]), free(b->val[i]);
    memmove(&b->key[i], &b->key[i + 1], sizeof b->key[0] * (size_t)(b->nm - i - 1));
    memmove(&b->val[i], &b->val[i + 1], sizeof b->val[0] * (size_t)(b->nm - i - 1));
    b->nm--;
}

static void blob_drop_tensor(Blob *b, int i)
{
    free(b->data[i]);
    memmove(&b->t[i], &b->t[i + 1], sizeof b->t[0] * (size_t)(b->n - i - 1));
    memmove(&b->data[i], &b->data[i + 1], sizeof b->data[0] * (size_t)(b->n - i - 1));
    b->n--;
}

/* Saved as this workbook saves: with a checksum computed afresh ("resealed"). */
static void blob_save_sealed(const Blob *b, const char *path)
{
    const char *meta[2 * BLOB_MAX];
    int k = 0;
    for (int i = 0; i < b->nm; i++) {
        if (!strcmp(b->key[i], "wb.crc32")) continue;
        meta[2 * k] = b->key[i], meta[2 * k + 1] = b->val[i], k++;
    }
    if (safetensors_save(path, b->t, b->n, meta, k) != ERR_OK) die("saving an edited checkpoint");
}

enum { RAW_PAD = 1, RAW_SORTED = 2, RAW_KEEP_CRC = 4, RAW_CRC_FIRST = 8 };

static int by_name(const void *a, const void *b)
{
    return strcmp(((const StTensor *)a)->name, ((const StTensor *)b)->name);
}

/* Written by "another tool": the header built here, the tensors' data in header order
 * (sorted by name with RAW_SORTED, as Python's safetensors sorts), padded to 8 bytes only
 * with RAW_PAD, and wb.crc32 kept (first with RAW_CRC_FIRST) only with RAW_KEEP_CRC. */
static void blob_save_raw(const Blob *b, const char *path, int flags)
{
    StTensor t[BLOB_MAX];
    memcpy(t, b->t, sizeof t[0] * (size_t)b->n);
    if (flags & RAW_SORTED) qsort(t, (size_t)b->n, sizeof t[0], by_name);
    json_t *root = json_object(), *meta = json_object();
    int crc = blob_meta(b, "wb.crc32");
    if (crc >= 0 && (flags & RAW_KEEP_CRC) && (flags & RAW_CRC_FIRST))
        json_object_set_new(meta, b->key[crc], json_string(b->val[crc]));
    for (int i = 0; i < b->nm; i++)
        if (i != crc || ((flags & RAW_KEEP_CRC) && !(flags & RAW_CRC_FIRST)))
            json_object_set_new(meta, b->key[i], json_string(b->val[i]));
    if (json_object_size(meta))
        json_object_set_new(root, "__metadata__", meta);
    else
        json_decref(meta);
    uint64_t at = 0;
    for (int i = 0; i < b->n; i++) {
        json_t *e = json_object(), *shape = json_array(), *off = json_array();
        for (int d = 0; d < t[i].ndim; d++) json_array_append_new(shape, json_integer(t[i].shape[d]));
        json_array_append_new(off, json_integer((json_int_t)at));
        json_array_append_new(off, json_integer((json_int_t)(at + t[i].bytes)));
        json_object_set_new(e, "dtype", json_string(safetensors_dtype_name(t[i].dtype)));
        json_object_set_new(e, "shape", shape);
        json_object_set_new(e, "data_offsets", off);
        json_object_set_new(root, t[i].name, e);
        at += t[i].bytes;
    }
    char *h = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(root);
    size_t hl = strlen(h), pad = flags & RAW_PAD ? (8 - hl % 8) % 8 : 0;
    size_t total = 8 + hl + pad + at;
    unsigned char *out = malloc(total);
    for (int i = 0; i < 8; i++) out[i] = (unsigned char)((hl + pad) >> (8 * i));
    memcpy(out + 8, h, hl);
    memset(out + 8 + hl, ' ', pad);
    size_t p = 8 + hl + pad;
    for (int i = 0; i < b->n; i++) {
        if (t[i].bytes) memcpy(out + p, t[i].data, t[i].bytes);
        p += t[i].bytes;
    }
    write_file(path, out, total);
    free(out);
    free(h);
}

/* ---- edits of the good checkpoint ------------------------------------------------------- */

static bool strip_model_prefix(Blob *b, const char *prefix, bool models_only)
{
    for (int i = b->n - 1; i >= 0; i--) {
        if (strncmp(b->t[i].name, "model.", 6) != 0) {
            if (models_only) blob_drop_tensor(b, i);
            continue;
        }
        char name[ST_NAME_MAX];
        snprintf(name, sizeof name, "%s%s", prefix, b->t[i].name + 6);
        snprintf(b->t[i].name, sizeof b->t[i].name, "%s", name);
    }
    return true;
}

/* Apply one edit ("meta optim.lr=-0x1p-4", ...) to b; false if it makes no sense. */
static bool blob_edit(Blob *b, const char *spec)
{
    char op[32] = "", arg[512] = "";
    if (sscanf(spec, "%31s", op) != 1) return false;
    const char *rest = spec + strlen(op);
    if (*rest == ' ') rest++;
    snprintf(arg, sizeof arg, "%s", rest);
    char *eq = strchr(arg, '=');
    if (!strcmp(op, "meta") && eq) {
        *eq = '\0';
        int i = blob_meta(b, arg);
        if (i < 0) {
            if (b->nm == BLOB_MAX) return false;
            i = b->nm++;
            b->key[i] = strdup(arg);
            b->val[i] = NULL;
        }
        free(b->val[i]);
        b->val[i] = strdup(eq + 1);
        /* "\n" in the manifest: a newline in the value, which the message must escape */
        char *w = b->val[i];
        for (const char *c = w; *c; c++) {
            if (c[0] == '\\' && c[1] == 'n') *w++ = '\n', c++;
            else *w++ = *c;
        }
        *w = '\0';
        return true;
    }
    if (!strcmp(op, "meta-drop")) {
        int i = blob_meta(b, arg);
        if (i >= 0) blob_drop_meta(b, i);
        return i >= 0;
    }
    if (!strcmp(op, "tensor") && eq) { /* NAME[I]=V */
        *eq = '\0';
        char *br = strchr(arg, '[');
        if (!br) return false;
        *br = '\0';
        long k = strtol(br + 1, NULL, 10);
        int i = blob_find(b, arg);
        if (i < 0 || b->t[i].dtype != DTYPE_F32 || k < 0 || (size_t)(k + 1) * 4 > b->t[i].bytes)
            return false;
        float v = (float)strtod(eq + 1, NULL);
        memcpy(b->data[i] + 4 * k, &v, 4);
        return true;
    }
    if (!strcmp(op, "drop-tensor")) {
        int i = blob_find(b, arg);
        if (i >= 0) blob_drop_tensor(b, i);
        return i >= 0;
    }
    if (!strcmp(op, "rename") && eq) {
        *eq = '\0';
        int i = blob_find(b, arg);
        if (i < 0) return false;
        snprintf(b->t[i].name, sizeof b->t[i].name, "%s", eq + 1);
        return true;
    }
    if (!strcmp(op, "transpose")) {
        int i = blob_find(b, arg);
        if (i < 0 || b->t[i].ndim != 2) return false;
        int64_t r = b->t[i].shape[0];
        b->t[i].shape[0] = b->t[i].shape[1], b->t[i].shape[1] = r;
        return true;
    }
    if (!strcmp(op, "strip-prefix")) return strip_model_prefix(b, "", false);
    if (!strcmp(op, "python") || !strcmp(op, "prefix") || !strcmp(op, "plain")) {
        while (b->nm) blob_drop_meta(b, b->nm - 1);
        return strip_model_prefix(b, !strcmp(op, "plain") ? "model." : arg, true);
    }
    return false;
}

static int n_edits, n_edits_unchecked, n_edits_ok;

/* An edit that must be refused: resealed, and again without a checksum. */
static void edit_refused(const char *spec, const char *words)
{
    Blob b;
    blob_read(g_good, &b);
    const char *path = tmp_path("edit.safetensors");
    char what[600];
    snprintf(what, sizeof what, "edit \"%s\"", spec);
    if (g_seeds) { /* a seed for the fuzzer: the edit without a checksum, for the value checks */
        static int k;
        char out[700];
        snprintf(out, sizeof out, "%s/edit-%03d.safetensors", g_seeds, k++);
        if (blob_edit(&b, spec)) blob_save_raw(&b, out, RAW_PAD);
    } else if (!strcmp(spec, "resave")) { /* Python's layout, the old checksum kept */
        blob_save_raw(&b, path, RAW_PAD | RAW_SORTED | RAW_KEEP_CRC | RAW_CRC_FIRST);
        n_edits += check_refusal(what, path, load_into(g_dst->trainer, path), words);
    } else if (!strcmp(spec, "flip-data")) { /* damage: our layout, one bit of the data */
        blob_save_sealed(&b, path);
        char *bytes;
        size_t len;
        if (fileio_read(path, &bytes, &len) != ERR_OK) die("reading an edited checkpoint");
        bytes[len - 3] ^= 0x20;
        write_file(path, bytes, len);
        free(bytes);
        n_edits += check_refusal(what, path, load_into(g_dst->trainer, path), words);
    } else if (!blob_edit(&b, spec)) {
        fail("%s: the edit does not apply to the checkpoint", what);
    } else {
        blob_save_sealed(&b, path);
        n_edits += check_refusal(what, path, load_into(g_dst->trainer, path), words);
        blob_save_raw(&b, path, RAW_PAD); /* no checksum: the value checks alone */
        snprintf(what, sizeof what, "edit \"%s\", without a checksum", spec);
        n_edits_unchecked += check_refusal(what, path, load_into(g_dst->trainer, path), words);
    }
    blob_free(&b);
}

/* A file that must load, to the state the good checkpoint gives. */
static void edit_accepted(const char *spec)
{
    Blob b;
    blob_read(g_good, &b);
    const char *path = tmp_path("ok.safetensors");
    if (!strcmp(spec, "drop-crc")) {
        blob_save_raw(&b, path, RAW_PAD);
    } else if (!strcmp(spec, "unaligned")) { /* header length not a multiple of 8 */
        blob_save_raw(&b, path, 0);
    } else if (!strcmp(spec, "misaligned")) { /* an F16 first: every F32 after it at 2 mod 4 */
        if (b.n == BLOB_MAX) die("too many tensors");
        memmove(&b.t[1], &b.t[0], sizeof b.t[0] * (size_t)b.n);
        memmove(&b.data[1], &b.data[0], sizeof b.data[0] * (size_t)b.n);
        b.n++;
        static const uint16_t one = 0x3c00;
        b.data[0] = malloc(2);
        memcpy(b.data[0], &one, 2);
        StTensor h = {"extra.half", DTYPE_F16, 1, {1}, b.data[0], 2};
        b.t[0] = h;
        blob_save_raw(&b, path, RAW_PAD);
    } else if (!strcmp(spec, "resealed")) {
        blob_save_sealed(&b, path);
    } else {
        fail("edit-ok \"%s\": unknown", spec);
        blob_free(&b);
        return;
    }
    blob_free(&b);
    int rc = load_into(g_scratch->trainer, path);
    if (rc != ERR_OK) {
        fail("edit-ok \"%s\": refused: %s", spec, err_message());
        return;
    }
    unsigned char *s;
    size_t n;
    state_of(g_scratch->trainer, &s, &n);
    if (n != g_ref_len || memcmp(s, g_ref, n) != 0)
        fail("edit-ok \"%s\": loaded, but to another state than the good file's", spec);
    else
        n_edits_ok++;
    free(s);
}

/* ---- lying safetensors headers (.st files) ----------------------------------------------- */

/* "\xNN" as a byte; every other character as it is. */
static size_t unescape(const char *s, unsigned char *out)
{
    size_t n = 0;
    for (; *s; s++) {
        unsigned v;
        if (s[0] == '\\' && s[1] == 'x' && sscanf(s + 2, "%2x", &v) == 1) {
            out[n++] = (unsigned char)v;
            s += 3;
        } else {
            out[n++] = (unsigned char)*s;
        }
    }
    return n;
}

typedef struct Expect {
    char name[ST_NAME_MAX];
    float v[16];
    int n;
} Expect;

/* Build the file a .st spec describes; *exp gets its "expect:" lines. */
static void build_st(const char *spec_path, const char *out, Expect *exp, int *n_exp)
{
    char *text;
    size_t len;
    if (fileio_read(spec_path, &text, &len) != ERR_OK) die("reading a .st spec");
    size_t cap = len + 1 + (1 << 16);
    unsigned char *header = calloc(1, len + 1), *data = calloc(1, cap);
    size_t hl = 0, dl = 0, pad = 0;
    long long length = -1;
    *n_exp = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#' || !line[0]) continue;
        if (!strncmp(line, "header: ", 8)) {
            hl = unescape(line + 8, header);
        } else if (!strncmp(line, "length: ", 8)) {
            length = strtoll(line + 8, NULL, 10);
        } else if (!strncmp(line, "pad: ", 5)) {
            pad = (size_t)strtoul(line + 5, NULL, 10);
        } else if (!strncmp(line, "data: zeros ", 12)) {
            size_t z = (size_t)strtoul(line + 12, NULL, 10);
            if (dl + z > cap) z = cap - dl;
            dl += z;
        } else if (!strncmp(line, "data: f32 ", 10) || !strncmp(line, "data: f16one", 12)) {
            if (line[6] == 'f' && line[7] == '1') { /* one F16 1.0 */
                data[dl++] = 0x00, data[dl++] = 0x3c;
                continue;
            }
            char *p = line + 10, *end;
            for (double v = strtod(p, &end); end != p && dl + 4 <= cap; v = strtod(p, &end)) {
                float f = (float)v;
                memcpy(data + dl, &f, 4);
                dl += 4;
                p = end;
            }
        } else if (!strncmp(line, "expect: ", 8) && *n_exp < 8) {
            Expect *e = &exp[(*n_exp)++];
            char *p = line + 8, *end;
            size_t nl = strcspn(p, " ");
            snprintf(e->name, sizeof e->name, "%.*s", (int)nl, p);
            p += nl;
            e->n = 0;
            for (double v = strtod(p, &end); end != p && e->n < 16; v = strtod(p, &end)) {
                e->v[e->n++] = (float)v;
                p = end;
            }
        }
    }
    uint64_t prefix = length >= 0 ? (uint64_t)length : hl + pad;
    FILE *f = fopen(out, "wb");
    unsigned char le[8];
    for (int i = 0; i < 8; i++) le[i] = (unsigned char)(prefix >> (8 * i));
    bool ok = f && fwrite(le, 1, 8, f) == 8 && fwrite(header, 1, hl, f) == hl;
    for (size_t i = 0; ok && i < pad; i++) ok = fputc(' ', f) != EOF;
    ok = ok && fwrite(data, 1, dl, f) == dl;
    if (!f || fclose(f) != 0 || !ok) die("writing a .st file");
    free(header);
    free(data);
    free(text);
}

static int n_st, n_st_ok;

static void st_case(const char *arg, const char *words, bool ok)
{
    char spec[600];
    snprintf(spec, sizeof spec, "%s/%s", CORPUS, arg);
    Expect exp[8];
    int n_exp;
    char out[512];
    snprintf(out, sizeof out, "%s/%s", g_tmp, strrchr(arg, '/') + 1);
    build_st(spec, out, exp, &n_exp);
    if (!ok) {
        n_st += check_refusal(arg, out, load_into(g_dst->trainer, out), words);
        return;
    }
    SafeTensors *st;
    if (safetensors_load(out, &st) != ERR_OK) {
        fail("%s: refused: %s", arg, err_message());
        return;
    }
    bool good = true;
    for (int i = 0; i < safetensors_count(st); i++) {
        const StTensor *t = safetensors_get(st, i);
        if ((uintptr_t)t->data % dtype_size(t->dtype) != 0) {
            fail("%s: tensor \"%s\" is not aligned for %s", arg, t->name,
                 safetensors_dtype_name(t->dtype));
            good = false;
        }
    }
    for (int k = 0; k < n_exp; k++) {
        const StTensor *t = safetensors_find(st, exp[k].name);
        if (!t || t->dtype != DTYPE_F32 || t->bytes != 4 * (size_t)exp[k].n) {
            fail("%s: no F32 tensor \"%s\" of %d values", arg, exp[k].name, exp[k].n);
            good = false;
            continue;
        }
        const float *v = t->data; /* aligned, as checked above: a float read is fine */
        for (int j = 0; j < exp[k].n; j++)
            if (v[j] != exp[k].v[j]) {
                fail("%s: %s[%d] is %g, expected %g", arg, exp[k].name, j, (double)v[j],
                     (double)exp[k].v[j]);
                good = false;
            }
    }
    safetensors_free(st);
    n_st_ok += good;
}

/* ---- configs ------------------------------------------------------------------------ */

static int n_configs, n_configs_ok;

static void config_case(const char *path, const char *words, bool ok)
{
    ExperimentConfig c, before;
    experiment_config_default(&c);
    before = c;
    int rc = experiment_config_load(path, &c);
    if (!ok) {
        if (check_refusal("config", path, rc, words)) {
            if (memcmp(&c, &before, sizeof c) != 0)
                fail("%s: refused, but the config changed", path);
            else
                n_configs++;
        }
        return;
    }
    if (rc != ERR_OK) {
        fail("%s: refused: %s", path, err_message());
        return;
    }
    /* Written and read back: the same config, bit for bit. */
    char *text = NULL;
    ExperimentConfig back;
    experiment_config_default(&back);
    rc = experiment_config_json(&c, true, &text);
    if (rc == ERR_OK) rc = experiment_config_parse(text, strlen(text), "written", &back);
    if (rc != ERR_OK)
        fail("%s: read, but could not be written and read back: %s", path, err_message());
    else if (memcmp(&back, &c, sizeof c) != 0)
        fail("%s: written and read back, it changed:\n%s", path, text);
    else
        n_configs_ok++;
    free(text);
}

/* ---- CSV files ---------------------------------------------------------------------- */

static int n_csv, n_csv_ok;

static void csv_case(const char *path, const char *words, bool digits, bool ok)
{
    static const char *const names[] = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", NULL};
    DatasetSpec spec = digits ? (DatasetSpec){"digit", names, "split"} : *iris_spec();
    Dataset train, test;
    int rc = dataset_load_csv(path, &spec, &train, &test);
    if (!ok) {
        if (check_refusal("CSV", path, rc, words)) {
            if (train.x || train.y || test.x || test.y)
                fail("%s: refused, but a dataset was handed out", path);
            else
                n_csv++;
        }
        return;
    }
    if (rc != ERR_OK)
        fail("%s: refused: %s", path, err_message());
    else
        n_csv_ok++;
    dataset_free(&train);
    dataset_free(&test);
}

/* ---- truncations and bit flips ------------------------------------------------------------ */

static void truncations(const char *what, const char *from, int *refused, int *total)
{
    char *bytes;
    size_t len;
    if (fileio_read(from, &bytes, &len) != ERR_OK) die("reading the good checkpoint");
    const char *path = tmp_path("cut.safetensors");
    *refused = *total = 0;
    for (size_t cut = 0; cut < len; cut++) {
        write_file(path, bytes, cut);
        (*total)++;
        char why[300];
        snprintf(why, sizeof why, "%s, cut to %zu of %zu bytes", what, cut, len);
        int rc = load_into(g_dst->trainer, path);
        *refused += check_refusal(why, path, rc, "");
    }
    free(bytes);
}

/* n single-bit flips at seeded random places, plus every bit of the first 64 bytes. With
 * a checksum all must be refused; without, a refusal must leave the trainer as it was and
 * an accepted load must leave it in a state the workbook would save. */
static void flips(const char *from, bool checked, int n, int *refused, int *accepted,
                  int *total)
{
    char *bytes;
    size_t len;
    if (fileio_read(from, &bytes, &len) != ERR_OK) die("reading the good checkpoint");
    const char *path = tmp_path("flip.safetensors");
    Rng rng;
    rng_seed(&rng, 37, checked ? 1 : 2);
    *refused = *accepted = *total = 0;
    for (int k = 0; k < n + 64 * 8; k++) {
        size_t at = k < 64 * 8 ? (size_t)k / 8 : rng_u32(&rng) % len;
        unsigned bit = k < 64 * 8 ? (unsigned)k % 8 : rng_u32(&rng) % 8;
        bytes[at] ^= (char)(1u << bit);
        write_file(path, bytes, len);
        bytes[at] ^= (char)(1u << bit);
        (*total)++;
        char why[300];
        snprintf(why, sizeof why, "%s file, bit %u of byte %zu flipped",
                 checked ? "a checksummed" : "an unchecked", bit, at);
        Trainer *t = checked ? g_dst->trainer : g_scratch->trainer;
        int rc = load_into(t, path);
        if (rc != ERR_OK)
            *refused += check_refusal(why, path, rc, "");
        else if (checked)
            fail("%s: accepted", why);
        else if (!state_is_valid(t))
            fail("%s: accepted into a state the workbook would not save: %s", why, err_message());
        else
            (*accepted)++;
    }
    free(bytes);
}

/* ---- what is not a file: @fifo, @fifo-stalled, @socket, @folder --------------------------- */

static pid_t g_writer; /* @fifo-stalled's writer, until the case is over */

/* Make the thing @p name (without its '@') names in the scratch folder; its path. */
static const char *make_special(const char *name)
{
    static char path[600];
    snprintf(path, sizeof path, "%s/special-%s", g_tmp, name);
    remove(path);
    bool ok = false;
    if (!strcmp(name, "fifo")) {
        ok = mkfifo(path, 0600) == 0;
    } else if (!strcmp(name, "fifo-stalled")) {
        /* A writer that has sent a few bytes and then waits for ever: opened O_RDWR (which
         * does not wait for a reader on Linux), so the bytes are in the pipe before the
         * load opens it. */
        int ready[2];
        ok = mkfifo(path, 0600) == 0 && pipe(ready) == 0;
        fflush(NULL);
        if (ok && (g_writer = fork()) == 0) {
            int fd = open(path, O_RDWR);
            if (fd < 0 || write(fd, "{\"epochs\": 3,", 14) != 14) _exit(1);
            if (write(ready[1], "r", 1) != 1) _exit(1);
            for (;;) pause();
        }
        char c;
        ok = ok && g_writer > 0 && read(ready[0], &c, 1) == 1;
        close(ready[0]), close(ready[1]);
    } else if (!strcmp(name, "socket")) {
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        ok = fd >= 0 && strlen(path) < sizeof a.sun_path;
        if (ok) memcpy(a.sun_path, path, strlen(path) + 1);
        ok = ok && bind(fd, (struct sockaddr *)&a, sizeof a) == 0;
        if (fd >= 0) close(fd);
    } else if (!strcmp(name, "folder")) {
        ok = mkdir(path, 0700) == 0;
    }
    if (!ok) {
        fprintf(stderr, "hostile_inputs: cannot make @%s at %s: %s\n", name, path, strerror(errno));
        exit(2);
    }
    return path;
}

static void end_special(const char *path)
{
    if (g_writer > 0) {
        kill(g_writer, SIGKILL);
        waitpid(g_writer, NULL, 0);
        g_writer = 0;
    }
    remove(path);
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- the manifest --------------------------------------------------------------------------- */

static void run_manifest(void)
{
    char *text;
    size_t len;
    if (fileio_read(CORPUS "/expected.txt", &text, &len) != ERR_OK) die("reading the manifest");
    int line_no = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        line_no++;
        while (*line == ' ') line++;
        if (!*line || *line == '#') continue;
        char *bar = strchr(line, '|');
        const char *words = bar ? bar + 1 : "";
        if (bar) *bar = '\0';
        size_t n = strlen(line);
        while (n && (line[n - 1] == ' ' || line[n - 1] == '\t')) line[--n] = '\0';
        char kind[32];
        if (sscanf(line, "%31s", kind) != 1) continue;
        const char *arg = line + strlen(kind);
        while (*arg == ' ') arg++;
        if (g_seeds && strcmp(kind, "edit") != 0) continue; /* only the edits become seeds */
        char path[700];
        snprintf(path, sizeof path, "%s%s%s", arg[0] == '/' ? "" : CORPUS,
                 arg[0] == '/' ? "" : "/", arg);
        bool special = arg[0] == '@';
        if (special) arg = strcpy(path, make_special(arg + 1));
        /* Nothing that is not a file may make a load wait: an alarm ends a hang. */
        alarm(special ? 10 : 0);
        double t0 = seconds_now();
        if (!strcmp(kind, "config") || !strcmp(kind, "config-ok"))
            config_case(path, words, !strcmp(kind, "config-ok"));
        else if (!strncmp(kind, "csv-", 4))
            csv_case(path, words, strstr(kind, "digits") != NULL, strstr(kind, "-ok") != NULL);
        else if (!strcmp(kind, "st") || !strcmp(kind, "st-ok"))
            arg[0] == '/' || special ? (void)(n_st += check_refusal(arg, arg, load_into(g_dst->trainer, arg),
                                                         words))
                          : st_case(arg, words, !strcmp(kind, "st-ok"));
        else if (!strcmp(kind, "edit"))
            edit_refused(arg, words);
        else if (!strcmp(kind, "edit-ok"))
            edit_accepted(arg);
        else
            fail("expected.txt:%d: unknown kind \"%s\"", line_no, kind);
        alarm(0);
        if (special) {
            double took = seconds_now() - t0;
            if (took > 1.0) fail("%s %s: took %.1f s, more than a second", kind, arg, took);
            end_special(path);
        }
    }
    free(text);
}

int main(int argc, char **argv)
{
    /* In memory where there is a tmpfs: every save syncs to disk. */
    struct stat shm;
    bool in_memory = stat("/dev/shm", &shm) == 0 && S_ISDIR(shm.st_mode) && access("/dev/shm", W_OK) == 0;
    snprintf(g_tmp, sizeof g_tmp, "%s/wb-hostile-XXXXXX", in_memory ? "/dev/shm" : "/tmp");
    if (!mkdtemp(g_tmp)) {
        perror("mkdtemp");
        return 2;
    }
    /* The source run: its checkpoint after epoch 2 of 4 is the file under attack. The
     * target has trained one epoch: another state, which no refused load may change. */
    g_src = open_run("src");
    if (trainer_call(g_src->trainer, 2) != ERR_OK) die("training the source run");
    snprintf(g_good, sizeof g_good, "%s/src/at2.safetensors", g_tmp);
    if (checkpoint_save(g_src->trainer, 2, g_good) != ERR_OK) die("saving");
    g_dst = open_run("dst");
    if (trainer_call(g_dst->trainer, 1) != ERR_OK) die("training the target run");
    g_scratch = open_run("scratch");
    if (checkpoint_load(g_scratch->trainer, g_good) != ERR_OK) die("loading the good file");
    state_of(g_scratch->trainer, &g_ref, &g_ref_len);

    g_show = argc == 2 && !strcmp(argv[1], "--show");
    if (argc == 3 && !strcmp(argv[1], "--write-seeds")) {
        /* The fuzzers' seeds: the good checkpoint with and without its checksum. */
        Blob b;
        blob_read(g_good, &b);
        char out[700];
        snprintf(out, sizeof out, "%s/checkpoint.safetensors", argv[2]);
        blob_save_sealed(&b, out);
        snprintf(out, sizeof out, "%s/checkpoint-unchecked.safetensors", argv[2]);
        blob_save_raw(&b, out, RAW_PAD);
        blob_free(&b);
        /* ... and every made-up file of headers/, built. */
        DIR *d = opendir(CORPUS "/headers");
        for (struct dirent *ent; d && (ent = readdir(d));) {
            size_t n = strlen(ent->d_name);
            if (n < 4 || strcmp(ent->d_name + n - 3, ".st") != 0) continue;
            char spec[700];
            Expect exp[8];
            int n_exp;
            snprintf(spec, sizeof spec, "%s/headers/%s", CORPUS, ent->d_name);
            snprintf(out, sizeof out, "%s/%.*s.safetensors", argv[2], (int)n - 3, ent->d_name);
            build_st(spec, out, exp, &n_exp);
        }
        if (d) closedir(d);
        /* ... and every edit of the manifest (optim.lr=-0, 0x1p-2000, ...). */
        g_seeds = argv[2];
        run_manifest();
    } else {
        run_manifest();
        int cut_ref, cut_n, cut2_ref, cut2_n;
        truncations("a checkpoint", g_good, &cut_ref, &cut_n);
        Blob b;
        blob_read(g_good, &b);
        char unchecked[600];
        snprintf(unchecked, sizeof unchecked, "%s/unchecked.safetensors", g_tmp);
        blob_save_raw(&b, unchecked, RAW_PAD);
        blob_free(&b);
        truncations("a checkpoint without its checksum", unchecked, &cut2_ref, &cut2_n);
        int f_ref, f_acc, f_n, u_ref, u_acc, u_n;
        flips(g_good, true, 2500, &f_ref, &f_acc, &f_n);
        flips(unchecked, false, 2500, &u_ref, &u_acc, &u_n);
        struct stat sb;
        stat(g_good, &sb);
        printf("hostile inputs (tests/hostile): every refusal one line naming the file and "
               "the field,\nand the trainer (or config, or datasets) unchanged bit for bit:\n");
        printf("  configs: %d refused, %d read back to the same values\n", n_configs,
               n_configs_ok);
        printf("  CSV files: %d refused, %d read\n", n_csv, n_csv_ok);
        printf("  made-up safetensors files (lying headers): %d refused, %d read aligned\n",
               n_st, n_st_ok);
        printf("  edits of a real checkpoint: %d refused with a fresh checksum, %d without one; "
               "%d loaded as they should\n",
               n_edits, n_edits_unchecked, n_edits_ok);
        printf("  truncations of a %lld-byte checkpoint at every offset: %d of %d refused; "
               "without its checksum %d of %d\n",
               (long long)sb.st_size, cut_ref, cut_n, cut2_ref, cut2_n);
        printf("  single-bit flips: %d of %d refused with the checksum; without it %d refused "
               "and %d accepted,\n  each accepted one in a state the workbook would save (an "
               "unchecked file is unchecked)\n",
               f_ref, f_n, u_ref, u_acc);
        printf("  %d loads; after each of the %d refused, the trainer was as before\n", n_loads,
               n_unchanged);
    }
    experiment_free(g_src);
    experiment_free(g_dst);
    experiment_free(g_scratch);
    free(g_ref);
    nftw(g_tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    if (g_failures) {
        fprintf(stderr, "hostile inputs: %d failure%s\n", g_failures, g_failures == 1 ? "" : "s");
        return 1;
    }
    return 0;
}
