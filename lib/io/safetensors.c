/* safetensors.c: the safetensors format, written atomically with a CRC-32, read with checks. */
#define _POSIX_C_SOURCE 200809L
#include "lib/io/safetensors.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "lib/core/err.h"
#include "lib/core/fileio.h"
#include "lib/io/json.h"

/* The metadata key of the checksum and the placeholder its CRC is computed with. */
#define CRC_KEY "wb.crc32"
#define CRC_ZERO "00000000"

struct SafeTensors {
    char *file;            /* the whole file, placed so that its data section is 8-aligned */
    char *alloc;           /* what was allocated for it (file may start a few bytes in) */
    Json *header;          /* the parsed header; names and metadata point into it */
    const JsonValue *meta; /* "__metadata__", or NULL */
    StTensor *tensors;
    uint64_t *begin;       /* where each tensor's data begins in the data section */
    char *aligned;         /* copies of tensors whose offset is not a multiple of their
                              element size, so that every tensor's data is aligned */
    int n;
};

static void (*write_hook)(size_t bytes_written);

void safetensors_set_write_hook(void (*hook)(size_t bytes_written))
{
    write_hook = hook;
}

const char *safetensors_dtype_name(DType dtype)
{
    switch (dtype) {
    case DTYPE_F32:
        return "F32";
    case DTYPE_F16:
        return "F16";
    case DTYPE_BF16:
        return "BF16";
    case DTYPE_I32:
        return "I32";
    }
    return NULL;
}

/* The format's names, for suggestions; the first four are the ones handled here. */
static const char *const known_dtypes[] = {"F32",  "F16",     "BF16",    "I32", "F64", "I64",
                                           "U64",  "U32",     "I16",     "U16", "I8",  "U8",
                                           "BOOL", "F8_E4M3", "F8_E5M2", NULL};
enum { N_HANDLED = 4 };
static const DType handled[N_HANDLED] = {DTYPE_F32, DTYPE_F16, DTYPE_BF16, DTYPE_I32};

const char *safetensors_shape_str(int ndim, const int64_t *shape, char *buf, size_t size)
{
    size_t at = 0;
    at += (size_t)snprintf(buf, size, "[");
    for (int d = 0; d < ndim && at < size; d++)
        at += (size_t)snprintf(buf + at, size - at, "%s%" PRId64, d ? ", " : "", shape[d]);
    if (at < size) snprintf(buf + at, size - at, "]");
    return buf;
}

/* zlib's CRC-32 (Python's zlib.crc32()) of earlier bytes @p crc, extended by @p n bytes.
 * (zlib reads a NULL buffer as "give the initial value", so an empty piece is skipped.) */
static uint32_t crc_add(uint32_t crc, const void *data, size_t n)
{
    return n ? (uint32_t)crc32_z(crc, data, n) : crc;
}

static void put_le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* ---- saving ------------------------------------------------------------- */

/* Check one tensor to save; its byte count must match its dtype and shape. */
static int check_tensor(const char *path, const StTensor *t, int i)
{
    char shape[200];
    if (!memchr(t->name, '\0', ST_NAME_MAX))
        return err_set(ERR_ARG,
                       "%s: cannot save: the name of tensor %d is not zero-terminated "
                       "within %d bytes",
                       path, i, ST_NAME_MAX);
    if (!t->name[0])
        return err_set(ERR_ARG, "%s: cannot save: tensor %d has an empty name", path, i);
    char what[64];
    snprintf(what, sizeof what, "the name of tensor %d", i);
    if (json_check_text(t->name, what)) return err_context("%s: cannot save", path);
    if (!strcmp(t->name, "__metadata__"))
        return err_set(ERR_ARG,
                       "%s: cannot save: tensor %d is called \"__metadata__\", the "
                       "format's name for the metadata",
                       path, i);
    const char *dt = safetensors_dtype_name(t->dtype);
    if (!dt)
        return err_set(ERR_ARG,
                       "%s: cannot save: tensor \"%s\" has dtype %d, not one of "
                       "F32, F16, BF16, I32",
                       path, t->name, (int)t->dtype);
    if (t->ndim < 0 || t->ndim > ST_MAX_DIMS)
        return err_set(ERR_ARG,
                       "%s: cannot save: tensor \"%s\" has %d dimensions, expected 0 to %d", path,
                       t->name, t->ndim, ST_MAX_DIMS);
    uint64_t need = dtype_size(t->dtype);
    for (int d = 0; d < t->ndim; d++) {
        if (t->shape[d] < 0)
            return err_set(ERR_ARG,
                           "%s: cannot save: tensor \"%s\" has shape %s, with a negative "
                           "size",
                           path, t->name,
                           safetensors_shape_str(t->ndim, t->shape, shape, sizeof shape));
        if (t->shape[d] && need > SIZE_MAX / (uint64_t)t->shape[d])
            return err_set(ERR_ARG,
                           "%s: cannot save: tensor \"%s\" with shape %s is larger than "
                           "memory",
                           path, t->name,
                           safetensors_shape_str(t->ndim, t->shape, shape, sizeof shape));
        need *= (uint64_t)t->shape[d];
    }
    if (t->bytes != need)
        return err_set(ERR_SHAPE,
                       "%s: cannot save: tensor \"%s\" has %zu bytes, but %s with shape "
                       "%s needs %" PRIu64,
                       path, t->name, t->bytes, dt,
                       safetensors_shape_str(t->ndim, t->shape, shape, sizeof shape), need);
    if (!t->data && t->bytes)
        return err_set(ERR_ARG, "%s: cannot save: tensor \"%s\" has no data", path, t->name);
    return ERR_OK;
}

static int check_args(const char *path, const StTensor *tensors, int n, const char *const *meta,
                      int n_meta)
{
    if (n < 0 || (n > 0 && !tensors) || n_meta < 0 || (n_meta > 0 && !meta))
        return err_set(ERR_ARG, "%s: cannot save: %d tensors at %p and %d metadata pairs at %p",
                       path, n, (const void *)tensors, n_meta, (const void *)meta);
    for (int i = 0; i < n; i++) {
        TRY(check_tensor(path, &tensors[i], i));
        for (int j = 0; j < i; j++)
            if (!strcmp(tensors[i].name, tensors[j].name))
                return err_set(ERR_ARG,
                               "%s: cannot save: two tensors are called \"%s\" (%d and %d)", path,
                               tensors[i].name, j, i);
    }
    for (int i = 0; i < n_meta; i++) {
        const char *key = meta[2 * i], *value = meta[2 * i + 1];
        if (!key || !value)
            return err_set(ERR_ARG, "%s: cannot save: metadata pair %d has a NULL %s", path, i,
                           key ? "value" : "key");
        char what[64];
        snprintf(what, sizeof what, "metadata key %d", i);
        if (json_check_text(key, what)) return err_context("%s: cannot save", path);
        snprintf(what, sizeof what, "the metadata value of \"%s\"", key);
        if (json_check_text(value, what)) return err_context("%s: cannot save", path);
        if (!strcmp(key, CRC_KEY))
            return err_set(ERR_ARG,
                           "%s: cannot save: the metadata key \"" CRC_KEY "\" is the "
                           "writer's own (it holds the checksum)",
                           path);
        for (int j = 0; j < i; j++)
            if (!strcmp(key, meta[2 * j]))
                return err_set(ERR_ARG, "%s: cannot save: the metadata key \"%s\" appears twice",
                               path, key);
    }
    return ERR_OK;
}

/* The header entry of a tensor whose data lies at begin..begin + bytes; NULL when
 * memory ran out. (jansson's set and append functions take over the value they
 * get, also when they fail, and fail on a NULL one, so one check at the end
 * covers every step.) */
static json_t *header_entry(const StTensor *t, uint64_t begin)
{
    json_t *shape = json_array(), *offsets = json_array(), *e = json_object();
    bool ok = true;
    for (int d = 0; d < t->ndim; d++)
        ok &= json_array_append_new(shape, json_integer(t->shape[d])) == 0;
    ok &= json_array_append_new(offsets, json_integer((json_int_t)begin)) == 0;
    ok &= json_array_append_new(offsets, json_integer((json_int_t)(begin + t->bytes))) == 0;
    ok &= json_object_set_new(e, "dtype", json_string(safetensors_dtype_name(t->dtype))) == 0;
    ok &= json_object_set_new(e, "shape", shape) == 0;
    ok &= json_object_set_new(e, "data_offsets", offsets) == 0;
    if (ok) return e;
    json_decref(e);
    return NULL;
}

/* The header for tensors whose data lies at begin[i]..begin[i] + bytes, with
 * the checksum digits still CRC_ZERO, padded with spaces to a multiple of 8
 * bytes so that the data section starts 8-aligned. check_args() has checked
 * every string, so only memory can run out here. */
static int build_header(const char *path, const StTensor *tensors, int n, const uint64_t *begin,
                        const char *const *meta, int n_meta, char **text, size_t *len)
{
    json_t *root = json_object(), *m = json_object();
    bool ok = true;
    for (int i = 0; i < n_meta; i++)
        ok &= json_object_set_new(m, meta[2 * i], json_string(meta[2 * i + 1])) == 0;
    ok &= json_object_set_new(m, CRC_KEY, json_string(CRC_ZERO)) == 0;
    ok &= json_object_set_new(root, "__metadata__", m) == 0;
    for (int i = 0; i < n; i++)
        ok &= json_object_set_new(root, tensors[i].name, header_entry(&tensors[i], begin[i])) == 0;
    int rc =
        ok ? json_text(root, 0, text, len) : err_set(ERR_NOMEM, "out of memory for the header");
    json_decref(root);
    if (rc != ERR_OK) return err_context("%s: cannot save", path);
    size_t pad = (8 - *len % 8) % 8;
    char *padded = realloc(*text, *len + pad + 1);
    if (!padded) {
        free(*text);
        *text = NULL;
        return err_set(ERR_NOMEM, "%s: cannot save: out of memory for the header", path);
    }
    memset(padded + *len, ' ', pad);
    *len += pad;
    padded[*len] = '\0';
    *text = padded;
    return ERR_OK;
}

/* What fileio_save() writes: the length prefix, the header and the tensors' data. */
typedef struct Contents {
    const unsigned char *prefix;
    const char *header;
    size_t header_len, total;
    const StTensor *tensors;
    const int *order;
    int n;
} Contents;

/* Write n bytes in chunks, telling the test hook after each. */
static bool write_chunks(FILE *f, const void *data, size_t n, size_t *written)
{
    enum { CHUNK = 1 << 20 };
    const char *p = data;
    while (n) {
        size_t k = n < CHUNK ? n : CHUNK;
        if (fwrite(p, 1, k, f) != k) return false;
        p += k;
        n -= k;
        *written += k;
        if (write_hook) write_hook(*written);
    }
    return true;
}

static int write_contents(FILE *f, void *ctx)
{
    const Contents *c = ctx;
    size_t written = 0;
    bool ok = write_chunks(f, c->prefix, 8, &written) &&
              write_chunks(f, c->header, c->header_len, &written);
    for (int k = 0; k < c->n && ok; k++)
        ok = write_chunks(f, c->tensors[c->order[k]].data, c->tensors[c->order[k]].bytes,
                          &written);
    if (ok) return ERR_OK;
    int e = errno ? errno : EIO;
    return err_set(ERR_IO, "cannot save: writing the temporary file (after %zu of %zu bytes) "
                           "failed: %s",
                   written, c->total, strerror(e));
}

int safetensors_save(const char *path, const StTensor *tensors, int n, const char *const *meta,
                     int n_meta)
{
    if (!path) return err_set(ERR_ARG, "safetensors_save: the path is NULL");
    TRY(check_args(path, tensors, n, meta, n_meta));

    /* Data order: 4-byte elements before 2-byte ones, each group in the given
     * order, so every tensor starts at a multiple of its element size. */
    int *order = malloc((size_t)(n ? n : 1) * sizeof *order);
    uint64_t *begin = malloc((size_t)(n ? n : 1) * sizeof *begin);
    char *header = NULL;
    int rc = ERR_OK;
    if (!order || !begin) {
        rc = err_set(ERR_NOMEM, "%s: cannot save: out of memory", path);
        goto done;
    }
    int placed = 0;
    for (size_t size = 8; size >= 1; size /= 2)
        for (int i = 0; i < n; i++)
            if (dtype_size(tensors[i].dtype) == size) order[placed++] = i;
    uint64_t data_len = 0;
    for (int k = 0; k < n; k++) {
        begin[order[k]] = data_len;
        data_len += tensors[order[k]].bytes;
        if (data_len < tensors[order[k]].bytes) {
            rc = err_set(ERR_ARG, "%s: cannot save: the tensors hold more bytes than a file can",
                         path);
            goto done;
        }
    }
    size_t header_len;
    rc = build_header(path, tensors, n, begin, meta, n_meta, &header, &header_len);
    if (rc != ERR_OK) goto done;
    unsigned char prefix[8];
    put_le64(prefix, header_len);

    /* The CRC of the whole file with the digits at CRC_ZERO, then the digits. */
    char *digits = strstr(header, "\"" CRC_KEY "\":\"" CRC_ZERO "\"") + strlen(CRC_KEY) + 4;
    uint32_t crc = crc_add(0, prefix, 8);
    crc = crc_add(crc, header, header_len);
    for (int k = 0; k < n; k++)
        crc = crc_add(crc, tensors[order[k]].data, tensors[order[k]].bytes);
    char hex[9];
    snprintf(hex, sizeof hex, "%08" PRIx32, crc);
    memcpy(digits, hex, 8);

    Contents contents = {prefix, header, header_len, 8 + header_len + data_len,
                         tensors, order, n};
    rc = fileio_save(path, "checkpoint", write_contents, &contents);
    if (rc != ERR_OK && !strncmp(err_message(), "cannot save: ", 13)) err_context("%s", path);
done:
    free(order);
    free(begin);
    free(header);
    return rc;
}

/* ---- loading ------------------------------------------------------------ */

typedef struct Span {
    uint64_t begin, end;
    int tensor;
} Span;

static int cmp_spans(const void *pa, const void *pb)
{
    const Span *a = pa, *b = pb;
    if (a->begin != b->begin) return a->begin < b->begin ? -1 : 1;
    if (a->end != b->end) return a->end < b->end ? -1 : 1;
    return a->tensor < b->tensor ? -1 : a->tensor > b->tensor;
}

/* Find "wb.crc32" : "xxxxxxxx" (8 lowercase hex digits) in the raw header; *at
 * is where the digits start. */
static bool find_crc(const char *h, size_t n, size_t *at)
{
    static const char key[] = "\"" CRC_KEY "\"";
    const size_t klen = sizeof key - 1;
    for (size_t i = 0; i + klen <= n; i++) {
        if (memcmp(h + i, key, klen)) continue;
        size_t p = i + klen;
        while (p < n && (h[p] == ' ' || h[p] == '\t' || h[p] == '\n' || h[p] == '\r'))
            p++;
        if (p >= n || h[p++] != ':') continue;
        while (p < n && (h[p] == ' ' || h[p] == '\t' || h[p] == '\n' || h[p] == '\r'))
            p++;
        if (p + 10 > n || h[p] != '"' || h[p + 9] != '"') continue;
        size_t hex = 0;
        /* Lowercase only, as written: "A" for "a" would otherwise be a bit flip
         * that no check sees. */
        while (hex < 8 && h[p + 1 + hex] && strchr("0123456789abcdef", h[p + 1 + hex]))
            hex++;
        if (hex < 8) continue;
        *at = p + 1;
        return true;
    }
    return false;
}

/* A whole number from 0 to INT64_MAX, written as an integer: like the reference
 * implementation, which reads sizes as integers, "24.0" and "2.4e1" are refused. */
static bool count_of(const JsonValue *v, uint64_t *out)
{
    if (v->type != JSON_INTEGER || json_integer_value(v->json) < 0) return false;
    *out = (uint64_t)json_integer_value(v->json);
    return true;
}

/* Why count_of() refused v, for a message: " (... as an integer ...)" for a whole real. */
static const char *count_hint(const JsonValue *v)
{
    double d = json_is_real(v->json) ? json_real_value(v->json) : -1;
    return d >= 0 && d < 18446744073709551616.0 && d == (double)(uint64_t)d
               ? " written as an integer (safetensors has no fraction or exponent here)"
               : "";
}

static int check_meta(const char *path, const JsonValue *m)
{
    char got[200];
    if (m->type != JSON_OBJECT)
        return err_set(ERR_FORMAT, "%s: \"__metadata__\" must be an object of strings, got %s",
                       path, json_describe(m, got, sizeof got));
    for (int i = 0; i < m->count; i++)
        if (m->items[i].type != JSON_STRING)
            return err_set(ERR_FORMAT, "%s: __metadata__ \"%s\" must be a string, got %s", path,
                           m->items[i].key, json_describe(&m->items[i], got, sizeof got));
    return ERR_OK;
}

/* One header entry into *t and its byte range into *sp. */
static int parse_entry(const char *path, const JsonValue *m, StTensor *t, Span *sp)
{
    char got[200], shape[200];
    const char *name = m->key;
    if (m->key_length >= ST_NAME_MAX)
        return err_set(ERR_UNSUPPORTED,
                       "%s: tensor \"%.60s...\" has a name of %zu bytes; at most "
                       "%d are supported",
                       path, name, m->key_length, ST_NAME_MAX - 1);
    memcpy(t->name, name, m->key_length + 1);
    if (m->type != JSON_OBJECT)
        return err_set(ERR_FORMAT,
                       "%s: tensor \"%s\" must be an object with \"dtype\", \"shape\" "
                       "and \"data_offsets\", got %s",
                       path, name, json_describe(m, got, sizeof got));
    static const char *const fields[] = {"dtype", "shape", "data_offsets"};
    const JsonValue *f[3];
    for (int i = 0; i < 3; i++)
        if (!(f[i] = json_get(m, fields[i])))
            return err_set(ERR_FORMAT,
                           "%s: tensor \"%s\" has no \"%s\" (each tensor needs "
                           "\"dtype\", \"shape\" and \"data_offsets\")",
                           path, name, fields[i]);
    const JsonValue *dt = f[0], *sh = f[1], *off = f[2];

    if (dt->type != JSON_STRING)
        return err_set(ERR_FORMAT,
                       "%s: tensor \"%s\": \"dtype\" must be a string such as \"F32\", "
                       "got %s",
                       path, name, json_describe(dt, got, sizeof got));
    const char *dts = json_string_value(dt->json);
    int known = -1;
    for (int i = 0; known_dtypes[i]; i++)
        if (!strcmp(dts, known_dtypes[i])) known = i;
    if (known < 0) {
        const char *close = json_suggest(dts, known_dtypes);
        char hint[64] = "";
        if (close) snprintf(hint, sizeof hint, "; did you mean \"%s\"?", close);
        return err_set(ERR_FORMAT,
                       "%s: tensor \"%s\": unknown dtype \"%.40s\" (expected F32, "
                       "F16, BF16 or I32%s)",
                       path, name, dts, hint);
    }
    if (known >= N_HANDLED)
        return err_set(ERR_UNSUPPORTED,
                       "%s: tensor \"%s\": dtype \"%s\" is valid safetensors but "
                       "not supported here (expected F32, F16, BF16 or I32)",
                       path, name, dts);
    t->dtype = handled[known];

    if (sh->type != JSON_ARRAY)
        return err_set(ERR_FORMAT, "%s: tensor \"%s\": \"shape\" must be an array of sizes, got %s",
                       path, name, json_describe(sh, got, sizeof got));
    if (sh->count > ST_MAX_DIMS)
        return err_set(ERR_UNSUPPORTED,
                       "%s: tensor \"%s\" has %d dimensions; at most %d are "
                       "supported",
                       path, name, sh->count, ST_MAX_DIMS);
    t->ndim = sh->count;
    uint64_t need = dtype_size(t->dtype);
    for (int d = 0; d < sh->count; d++) {
        uint64_t size;
        if (!count_of(&sh->items[d], &size))
            return err_set(ERR_FORMAT,
                           "%s: tensor \"%s\": shape[%d] must be a whole number >= 0%s, "
                           "got %s",
                           path, name, d, count_hint(&sh->items[d]),
                           json_describe(&sh->items[d], got, sizeof got));
        t->shape[d] = (int64_t)size;
        if (size && need > UINT64_MAX / size)
            return err_set(ERR_FORMAT, "%s: tensor \"%s\": shape %s has more bytes than any file",
                           path, name, safetensors_shape_str(d + 1, t->shape, shape, sizeof shape));
        need *= size;
    }

    uint64_t b, e;
    if (off->type != JSON_ARRAY || off->count != 2 || !count_of(&off->items[0], &b) ||
        !count_of(&off->items[1], &e)) {
        if (off->type == JSON_ARRAY && off->count == 2) {
            int bad = count_of(&off->items[0], &b) ? 1 : 0;
            return err_set(ERR_FORMAT,
                           "%s: tensor \"%s\": data_offsets[%d] must be a whole number "
                           ">= 0%s, got %s",
                           path, name, bad, count_hint(&off->items[bad]),
                           json_describe(&off->items[bad], got, sizeof got));
        }
        return err_set(ERR_FORMAT,
                       "%s: tensor \"%s\": \"data_offsets\" must be [begin, end], got %s", path,
                       name, json_describe(off, got, sizeof got));
    }
    if (e < b)
        return err_set(ERR_FORMAT,
                       "%s: tensor \"%s\": data_offsets [%" PRIu64 ", %" PRIu64 "] end "
                       "before they begin",
                       path, name, b, e);
    if (e - b != need)
        return err_set(ERR_FORMAT,
                       "%s: tensor \"%s\": data_offsets [%" PRIu64 ", %" PRIu64 "] hold "
                       "%" PRIu64 " bytes, but %s with shape %s needs %" PRIu64,
                       path, name, b, e, e - b, dts,
                       safetensors_shape_str(t->ndim, t->shape, shape, sizeof shape), need);
    t->bytes = (size_t)need;
    sp->begin = b;
    sp->end = e;
    return ERR_OK;
}

/* The data section starts 8-aligned (safetensors_load() places it so), and a tensor
 * whose offset in it is a multiple of its element size is aligned for it. Any other
 * (the format does not require alignment) is copied to memory that is, so that its
 * data can be read through a pointer of its type. */
static int align_tensors(const char *path, SafeTensors *st)
{
    size_t total = 0;
    for (int i = 0; i < st->n; i++)
        if ((uintptr_t)st->tensors[i].data % dtype_size(st->tensors[i].dtype))
            total += (st->tensors[i].bytes + 7) / 8 * 8;
    if (total == 0) return ERR_OK;
    st->aligned = malloc(total);
    if (!st->aligned) return err_set(ERR_NOMEM, "%s: out of memory for %zu bytes", path, total);
    size_t at = 0;
    for (int i = 0; i < st->n; i++) {
        StTensor *t = &st->tensors[i];
        if ((uintptr_t)t->data % dtype_size(t->dtype) == 0) continue;
        memcpy(st->aligned + at, t->data, t->bytes);
        t->data = st->aligned + at;
        at += (t->bytes + 7) / 8 * 8;
    }
    return ERR_OK;
}

/* Parse and check the header; the tensors' ranges must tile the data section.
 * *truncated tells the caller that the data section is shorter than described. */
static int parse_header(const char *path, SafeTensors *st, const char *header, size_t header_len,
                        const char *data, size_t data_len, bool *truncated)
{
    char got[200];
    if (json_parse(header, header_len, "header", &st->header) != ERR_OK)
        return err_context("%s", path);
    const JsonValue *root = json_root(st->header);
    if (root->type != JSON_OBJECT)
        return err_set(ERR_FORMAT, "%s: the header must be a JSON object, got %s", path,
                       json_describe(root, got, sizeof got));
    st->meta = json_get(root, "__metadata__");
    if (st->meta) TRY(check_meta(path, st->meta));
    int n = root->count - (st->meta ? 1 : 0);
    st->tensors = calloc((size_t)(n ? n : 1), sizeof *st->tensors);
    st->begin = calloc((size_t)(n ? n : 1), sizeof *st->begin);
    Span *spans = malloc((size_t)(n ? n : 1) * sizeof *spans);
    if (!st->tensors || !st->begin || !spans) {
        free(spans);
        return err_set(ERR_NOMEM, "%s: out of memory for %d tensors", path, n);
    }
    int rc = ERR_OK;
    uint64_t max_end = 0;
    for (int i = 0; i < root->count && rc == ERR_OK; i++) {
        if (&root->items[i] == st->meta) continue;
        Span *sp = &spans[st->n];
        sp->tensor = st->n;
        rc = parse_entry(path, &root->items[i], &st->tensors[st->n], sp);
        if (rc == ERR_OK && sp->end > max_end) max_end = sp->end;
        st->n++;
    }
    if (rc == ERR_OK && max_end > data_len) {
        *truncated = true;
        rc = err_set(ERR_FORMAT,
                     "%s: the file is truncated: the header describes %" PRIu64 " bytes "
                     "of tensor data, the file holds %zu; an interrupted copy?",
                     path, max_end, data_len);
    }
    if (rc == ERR_OK) {
        qsort(spans, (size_t)n, sizeof *spans, cmp_spans);
        uint64_t covered = 0;
        for (int k = 0; k < n && rc == ERR_OK; k++) {
            if (spans[k].begin < covered)
                rc = err_set(ERR_FORMAT,
                             "%s: tensors \"%s\" and \"%s\" overlap (data_offsets [%" PRIu64
                             ", %" PRIu64 "] and [%" PRIu64 ", %" PRIu64 "])",
                             path, st->tensors[spans[k - 1].tensor].name,
                             st->tensors[spans[k].tensor].name, spans[k - 1].begin,
                             spans[k - 1].end, spans[k].begin, spans[k].end);
            else if (spans[k].begin > covered)
                rc = err_set(ERR_FORMAT,
                             "%s: bytes %" PRIu64 " to %" PRIu64 " of the data section "
                             "belong to no tensor (the tensors must cover it without "
                             "gaps)",
                             path, covered, spans[k].begin);
            covered = spans[k].end;
        }
        if (rc == ERR_OK && covered < data_len)
            rc = err_set(ERR_FORMAT,
                         "%s: the data section holds %zu bytes, but the tensors cover %" PRIu64
                         "; the %" PRIu64 " bytes after them belong to no tensor",
                         path, data_len, covered, data_len - covered);
    }
    if (rc == ERR_OK)
        for (int k = 0; k < n; k++) {
            st->tensors[spans[k].tensor].data = data + spans[k].begin;
            st->begin[spans[k].tensor] = spans[k].begin;
        }
    free(spans);
    return rc == ERR_OK ? align_tensors(path, st) : rc;
}

/* Whether the header (header_len bytes, the checksum's digits at at) is the one
 * safetensors_save() writes for what it holds: then a checksum that does not match
 * means damage; otherwise another tool wrote the file again, with the old metadata. */
static bool laid_out_here(const char *path, const SafeTensors *st, const char *header,
                          size_t header_len, size_t at)
{
    int nm = st->meta ? st->meta->count : 0, k = 0;
    const char **meta = malloc((size_t)(2 * nm + 2) * sizeof *meta);
    char *mine = NULL, *theirs = malloc(header_len + 1);
    size_t len = 0;
    bool same = false;
    if (meta && theirs) {
        for (int i = 0; i < nm; i++) {
            if (!strcmp(st->meta->items[i].key, CRC_KEY)) continue;
            meta[2 * k] = st->meta->items[i].key;
            meta[2 * k + 1] = json_string_value(st->meta->items[i].json);
            k++;
        }
        memcpy(theirs, header, header_len);
        memcpy(theirs + at, CRC_ZERO, 8);
        if (build_header(path, st->tensors, st->n, st->begin, meta, k, &mine, &len) == ERR_OK)
            same = len == header_len && memcmp(mine, theirs, len) == 0;
    }
    free(mine);
    free(theirs);
    free(meta);
    return same;
}

/* The 8-byte header length of a file of size bytes (at least 8): at most ST_MAX_HEADER,
 * and no more than what follows it. */
static int check_header_len(const char *path, uint64_t header_len, size_t size)
{
    if (header_len > ST_MAX_HEADER)
        return err_set(ERR_FORMAT,
                       "%s: the header length is %" PRIu64 " bytes, more than the %d a "
                       "safetensors header may have: not a safetensors file, or its "
                       "first 8 bytes are damaged",
                       path, header_len, ST_MAX_HEADER);
    if (header_len > size - 8)
        return err_set(ERR_FORMAT,
                       "%s: the file is truncated: the header length is %" PRIu64
                       " bytes, but only %zu bytes follow it; an interrupted copy?",
                       path, header_len, size - 8);
    return ERR_OK;
}

/* Check everything about the file in st->file (size bytes). */
static int load_checked(const char *path, SafeTensors *st, size_t size)
{
    const unsigned char *file = (const unsigned char *)st->file;
    if (size < 8)
        return err_set(ERR_FORMAT,
                       "%s: the file is truncated: it holds %zu bytes, fewer than the "
                       "8-byte header length a safetensors file starts with; an "
                       "interrupted copy?",
                       path, size);
    uint64_t header_len = get_le64(file);
    TRY(check_header_len(path, header_len, size));
    const char *header = st->file + 8, *data = header + header_len;
    size_t data_len = size - 8 - (size_t)header_len;

    /* The checksum is found before parsing, so that a header damaged beyond
     * parsing is still reported as the corruption it is. */
    size_t at = 0;
    bool has_crc = find_crc(header, (size_t)header_len, &at);
    uint32_t stored = 0, computed = 0;
    if (has_crc) {
        char hex[9];
        memcpy(hex, header + at, 8);
        hex[8] = '\0';
        stored = (uint32_t)strtoul(hex, NULL, 16);
        size_t digits = 8 + at; /* in the file */
        computed = crc_add(0, file, digits);
        computed = crc_add(computed, CRC_ZERO, 8);
        computed = crc_add(computed, file + digits + 8, size - digits - 8);
    }
    bool truncated = false;
    int rc = parse_header(path, st, header, (size_t)header_len, data, data_len, &truncated);
    bool mismatch = has_crc && stored != computed;
    if (rc == ERR_OK) {
        const JsonValue *v = st->meta ? json_get(st->meta, CRC_KEY) : NULL;
        char got[200];
        if (!v) {
            mismatch = false; /* a look-alike elsewhere in the header, not our checksum */
            /* A flipped bit in the key would otherwise turn the check off unseen. */
            static const char *const crc_key[] = {CRC_KEY, NULL};
            for (int i = 0; st->meta && i < st->meta->count; i++)
                if (json_suggest(st->meta->items[i].key, crc_key))
                    return err_set(ERR_FORMAT,
                                   "%s: __metadata__ has the key \"%s\", a damaged \"" CRC_KEY
                                   "\" (the checksum): the file is corrupted; "
                                   "use another checkpoint",
                                   path, st->meta->items[i].key);
        } else if (!has_crc || v->offset != at - 1)
            return err_set(ERR_FORMAT,
                           "%s: __metadata__ \"" CRC_KEY "\" must be 8 lowercase hex "
                           "digits, got %s",
                           path, json_describe(v, got, sizeof got));
    }
    if (mismatch && !truncated && rc == ERR_OK && !laid_out_here(path, st, header, header_len, at))
        return err_set(ERR_FORMAT,
                       "%s: re-saved by another tool: the header is not laid out as this "
                       "workbook writes it, so the checksum \"" CRC_KEY "\" (%08" PRIx32
                       ") no longer matches (%08" PRIx32 "); drop " CRC_KEY " from "
                       "__metadata__ to load it without the check",
                       path, stored, computed);
    if (mismatch && !truncated)
        return err_set(ERR_FORMAT,
                       "%s: checksum mismatch (stored %08" PRIx32 ", computed %08" PRIx32
                       "): the file is corrupted; use another checkpoint",
                       path, stored, computed);
    return rc;
}

/* The bytes of a file in st: buf (size bytes, from malloc, owned by st from now on) if
 * its data section starts 8-aligned there, else a copy in which it does. */
static int place(const char *path, SafeTensors *st, char *buf, size_t size)
{
    /* The data section starts at 8 + the header length (malloc aligns to 16). */
    size_t shift = size >= 8 ? (8 - get_le64((const unsigned char *)buf) % 8) % 8 : 0;
    if (shift == 0) {
        st->file = st->alloc = buf;
        return ERR_OK;
    }
    st->alloc = malloc(size + shift + 1);
    if (!st->alloc) {
        free(buf);
        return err_set(ERR_NOMEM, "%s: out of memory for %zu bytes", path, size);
    }
    st->file = st->alloc + shift;
    memcpy(st->file, buf, size);
    st->file[size] = '\0';
    free(buf);
    return ERR_OK;
}

/* Place and check size bytes of buf (taken over); *out on success. */
static int load_bytes(const char *path, char *buf, size_t size, SafeTensors **out)
{
    SafeTensors *st = calloc(1, sizeof *st);
    if (!st) {
        free(buf);
        return err_set(ERR_NOMEM, "%s: out of memory", path);
    }
    int rc = ERR_OK;
    TRY_OR_DONE(place(path, st, buf, size));
    TRY_OR_DONE(load_checked(path, st, size));
    *out = st;
    st = NULL;
done:
    safetensors_free(st); /* NULL once handed out */
    return rc;
}

int safetensors_load(const char *path, SafeTensors **out)
{
    *out = NULL;
    if (!path) return err_set(ERR_ARG, "safetensors_load: the path is NULL");
    int fd;
    size_t size;
    TRY(fileio_open_read(path, ST_MAX_FILE, "checkpoint", &fd, &size));
    /* The header length first: a file that is not a checkpoint (a 2 GB archive given by
     * mistake) is refused from its first 8 bytes, not after it has been read whole. */
    unsigned char prefix[8];
    int rc = ERR_OK;
    if (size >= 8 && pread(fd, prefix, 8, 0) == 8)
        TRY_OR_DONE(check_header_len(path, get_le64(prefix), size));
    char *buf = NULL;
    TRY_OR_DONE(fileio_read_fd(fd, path, size, ST_MAX_FILE, "checkpoint", &buf, &size));
    close(fd);
    return load_bytes(path, buf, size, out);
done:
    close(fd);
    return rc;
}

int safetensors_parse(const void *bytes, size_t size, const char *name, SafeTensors **out)
{
    *out = NULL;
    if (!name) name = "(memory)";
    if (!bytes && size) return err_set(ERR_ARG, "%s: safetensors_parse: no bytes", name);
    char *buf = malloc(size + 1);
    if (!buf) return err_set(ERR_NOMEM, "%s: out of memory for %zu bytes", name, size);
    if (size) memcpy(buf, bytes, size);
    buf[size] = '\0';
    return load_bytes(name, buf, size, out);
}

int safetensors_count(const SafeTensors *st)
{
    return st->n;
}

const StTensor *safetensors_get(const SafeTensors *st, int i)
{
    return i >= 0 && i < st->n ? &st->tensors[i] : NULL;
}

const StTensor *safetensors_find(const SafeTensors *st, const char *name)
{
    for (int i = 0; i < st->n; i++)
        if (!strcmp(st->tensors[i].name, name)) return &st->tensors[i];
    return NULL;
}

const char *safetensors_meta(const SafeTensors *st, const char *key)
{
    const JsonValue *v = json_get(st->meta, key);
    return v ? json_string_value(v->json) : NULL;
}

int safetensors_meta_count(const SafeTensors *st)
{
    return st->meta ? st->meta->count : 0;
}

const char *safetensors_meta_key(const SafeTensors *st, int i)
{
    return i >= 0 && i < safetensors_meta_count(st) ? st->meta->items[i].key : NULL;
}

void safetensors_free(SafeTensors *st)
{
    if (!st) return;
    free(st->alloc);
    json_free(st->header);
    free(st->tensors);
    free(st->begin);
    free(st->aligned);
    free(st);
}
