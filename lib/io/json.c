/* json.c: jansson's parser and writer, with where each value came from and strict getters. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "lib/io/json.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/err.h"
#include "lib/core/numtext.h"

struct Json {
    json_t *value;    /* jansson's tree, which owns every string */
    JsonValue *nodes; /* one node per value, the root first */
    char *source;
    char *numbers;    /* the text of every number, each zero-terminated (JsonValue.text) */
};

const JsonValue *json_root(const Json *doc)
{
    return &doc->nodes[0];
}

void json_free(Json *doc)
{
    if (!doc) return;
    json_decref(doc->value);
    free(doc->nodes);
    free(doc->source);
    free(doc->numbers);
    free(doc);
}

/* ---- message helpers ---------------------------------------------------- */

/* Append to buf (of size size, at *at) what fits, keeping it zero-terminated. */
static void put(char *buf, size_t size, size_t *at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t size, size_t *at, const char *fmt, ...)
{
    if (*at + 1 >= size) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *at, size - *at, fmt, ap);
    va_end(ap);
    if (n > 0) *at += (size_t)n < size - *at ? (size_t)n : size - *at - 1;
}

/* The shortest "%.Ng" form of d that reads back as d; a whole number below 10^15 in
 * plain digits ("100", not "1e+02"). */
static const char *fmt_num(double d, char *buf, size_t size)
{
    if (d == trunc(d) && fabs(d) < 1e15) {
        snprintf(buf, size, "%.0f", d);
        return buf;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, d);
        if (strtod(buf, NULL) == d) break;
    }
    return buf;
}

/* ---- parsing ------------------------------------------------------------ */

/* What to say about jansson's error e in text: its message, with a hint for the
 * two mistakes people make most in JSON they write by hand, or a plainer one
 * than jansson's for a byte-order mark, a NUL byte or a \u0000 escape. */
static const char *syntax_message(const char *text, size_t len, const json_error_t *e, char *buf,
                                  size_t size)
{
    size_t pos = e->position > 0 ? (size_t)e->position : 0; /* bytes read, the culprit last */
    char c = pos && pos <= len ? text[pos - 1] : ' ';
    const char *hint = "";
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3) && pos <= 3)
        return "the text starts with a byte-order mark (EF BB BF); save it as UTF-8 without one";
    if (c == '\0') return "a NUL byte, which JSON text cannot hold";
    if (json_error_code(e) == json_error_null_character)
        return "a string holds \\u0000 (a NUL character), which is refused here";
    if (c == '/' || c == '#') hint = " (JSON has no comments)";
    if (c == '}' || c == ']') {
        size_t p = pos - 1;
        while (p > 0 && strchr(" \t\r\n", text[p - 1]))
            p--;
        if (p > 0 && text[p - 1] == ',') hint = " (JSON allows no comma after the last item)";
    }
    snprintf(buf, size, "%s%s", e->text, hint);
    return buf;
}

static size_t count_values(const json_t *v)
{
    size_t n = 1;
    if (json_is_array(v))
        for (size_t i = 0; i < json_array_size(v); i++)
            n += count_values(json_array_get(v, i));
    else if (json_is_object(v))
        for (void *it = json_object_iter((json_t *)v); it;
             it = json_object_iter_next((json_t *)v, it))
            n += count_values(json_object_iter_value(it));
    return n;
}

/* Node v for jansson's value j; its items take the next free nodes at *next. */
static void wrap(Json *doc, JsonValue *v, json_t *j, size_t *next)
{
    v->json = j;
    v->type = json_typeof(j);
    v->source = doc->source;
    v->count = (int)(json_is_array(j)    ? json_array_size(j)
                     : json_is_object(j) ? json_object_size(j)
                                         : 0);
    v->items = v->count ? &doc->nodes[*next] : NULL;
    *next += (size_t)v->count;
    int i = 0;
    if (json_is_array(j))
        for (; i < v->count; i++)
            wrap(doc, &v->items[i], json_array_get(j, (size_t)i), next);
    else if (json_is_object(j)) /* in file order: jansson keeps members in insertion order */
        for (void *it = json_object_iter(j); it; it = json_object_iter_next(j, it), i++) {
            v->items[i].key = json_object_iter_key(it);
            v->items[i].key_length = json_object_iter_key_len(it);
            wrap(doc, &v->items[i], json_object_iter_value(it), next);
        }
    for (i = 0; i < v->count; i++) {
        v->items[i].index = i;
        v->items[i].parent = v;
    }
}

/* Where each value starts. jansson keeps no positions, so one pass over the
 * text it has accepted (valid JSON, so no checks but the bounds) walks the
 * tokens in step with the nodes, which are in file order too. */
typedef struct Cursor {
    const char *t;
    size_t n, p;
    int line;
} Cursor;

static void skip_space(Cursor *c)
{
    for (; c->p < c->n && c->t[c->p] && strchr(" \t\r\n", c->t[c->p]); c->p++)
        if (c->t[c->p] == '\n') c->line++;
}

static void skip_scalar(Cursor *c) /* a string, a number, true, false or null */
{
    if (c->p < c->n && c->t[c->p] == '"') {
        for (c->p++; c->p < c->n && c->t[c->p] != '"'; c->p++)
            if (c->t[c->p] == '\\') c->p++;
        c->p++;
    } else {
        while (c->p < c->n && c->t[c->p] && !strchr(",:]} \t\r\n", c->t[c->p]))
            c->p++;
    }
}

static void locate(Cursor *c, JsonValue *v)
{
    skip_space(c);
    if (!v->key) v->line = c->line; /* a member's line is its key's */
    v->offset = c->p;
    if (v->type != JSON_OBJECT && v->type != JSON_ARRAY) {
        skip_scalar(c);
        v->text_length = c->p - v->offset;
        return;
    }
    c->p++; /* '{' or '[' */
    for (int i = 0; i < v->count; i++) {
        if (v->type == JSON_OBJECT) {
            skip_space(c);
            v->items[i].line = c->line;
            skip_scalar(c); /* the key */
            skip_space(c);
            c->p++; /* ':' */
        }
        locate(c, &v->items[i]);
        skip_space(c);
        c->p++; /* ',' or the closing bracket */
    }
    if (!v->count) {
        skip_space(c);
        c->p++;
    }
}

int json_parse(const char *text, size_t len, const char *source, Json **out)
{
    *out = NULL;
    json_error_t e;
    json_t *value = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &e);
    if (!value) {
        if (json_error_code(&e) == json_error_out_of_memory)
            return err_set(ERR_NOMEM, "%s: out of memory parsing %zu bytes of JSON", source, len);
        char msg[JSON_ERROR_TEXT_LENGTH + 64];
        return err_set(ERR_FORMAT, "%s:%d:%d: invalid JSON: %s", source, e.line > 0 ? e.line : 1,
                       e.column > 0 ? e.column : 1, syntax_message(text, len, &e, msg, sizeof msg));
    }
    Json *doc = calloc(1, sizeof *doc);
    size_t n = count_values(value), next = 1;
    if (doc) {
        doc->value = value;
        doc->source = strdup(source);
        doc->nodes = calloc(n, sizeof *doc->nodes);
    }
    if (!doc || !doc->source || !doc->nodes) {
        if (doc)
            json_free(doc);
        else
            json_decref(value);
        return err_set(ERR_NOMEM, "%s: out of memory for %zu JSON values", source, n);
    }
    wrap(doc, &doc->nodes[0], value, &next);
    Cursor c = {text, len, 0, 1};
    locate(&c, &doc->nodes[0]);
    /* Each number's text as written, which jansson does not keep: the checks of
     * json_as_int() and json_as_number() look at the literal, not the rounded double. */
    size_t need = 1;
    for (size_t i = 0; i < n; i++)
        if (json_is_number(doc->nodes[i].json)) need += doc->nodes[i].text_length + 1;
    if (!(doc->numbers = malloc(need))) {
        json_free(doc);
        return err_set(ERR_NOMEM, "%s: out of memory for %zu JSON values", source, n);
    }
    char *at = doc->numbers;
    for (size_t i = 0; i < n; i++) {
        JsonValue *v = &doc->nodes[i];
        if (!json_is_number(v->json)) {
            v->text_length = 0;
            continue;
        }
        memcpy(at, text + v->offset, v->text_length);
        at[v->text_length] = '\0';
        v->text = at;
        at += v->text_length + 1;
    }
    *out = doc;
    return ERR_OK;
}

/* ---- getters ------------------------------------------------------------ */

const JsonValue *json_get(const JsonValue *obj, const char *key)
{
    if (!obj || obj->type != JSON_OBJECT || !key) return NULL;
    size_t n = strlen(key);
    for (int i = 0; i < obj->count; i++)
        if (obj->items[i].key_length == n && !memcmp(obj->items[i].key, key, n))
            return &obj->items[i];
    return NULL;
}

static void path_into(const JsonValue *v, char *buf, size_t size, size_t *at)
{
    if (!v->parent) return;
    path_into(v->parent, buf, size, at);
    if (v->key)
        put(buf, size, at, "%s%.*s", *at ? "." : "", (int)v->key_length, v->key);
    else
        put(buf, size, at, "[%d]", v->index);
}

const char *json_path(const JsonValue *v, char *buf, size_t size)
{
    size_t at = 0;
    buf[0] = '\0';
    path_into(v, buf, size, &at);
    return buf;
}

/* "the top-level value" or the path in double quotes. */
static const char *where(const JsonValue *v, char *buf, size_t size)
{
    if (!v->parent) return "the top-level value";
    char path[256];
    json_path(v, path, sizeof path);
    return err_quote(path, strlen(path), 200, buf, size);
}

const char *json_describe(const JsonValue *v, char *buf, size_t size)
{
    char q[160], num[40];
    switch (v->type) {
    case JSON_NULL:
        snprintf(buf, size, "null");
        break;
    case JSON_TRUE:
    case JSON_FALSE:
        snprintf(buf, size, "%s", v->type == JSON_TRUE ? "true" : "false");
        break;
    case JSON_INTEGER:
        snprintf(buf, size, "the number %" JSON_INTEGER_FORMAT, json_integer_value(v->json));
        break;
    case JSON_REAL:
        fmt_num(json_real_value(v->json), num, sizeof num);
        snprintf(buf, size, "the number %s%s", num, strpbrk(num, ".en") ? "" : ".0");
        break;
    case JSON_STRING:
        snprintf(buf, size, "the string %s",
                 err_quote(json_string_value(v->json), json_string_length(v->json), 40, q, sizeof q));
        break;
    case JSON_ARRAY:
        if (v->count == 0)
            snprintf(buf, size, "an empty array");
        else
            snprintf(buf, size, "an array of %d item%s", v->count, v->count == 1 ? "" : "s");
        break;
    case JSON_OBJECT:
        if (v->count == 0)
            snprintf(buf, size, "an empty object");
        else
            snprintf(buf, size, "an object with %d member%s", v->count, v->count == 1 ? "" : "s");
        break;
    }
    return buf;
}

int json_error(const JsonValue *v, const char *fmt, ...)
{
    char msg[640], w[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return err_set(ERR_FORMAT, "%s:%d: %s %s", v->source, v->line, where(v, w, sizeof w), msg);
}

static const char *type_name(json_type t)
{
    switch (t) {
    case JSON_NULL:
        return "null";
    case JSON_TRUE:
    case JSON_FALSE:
        return "true or false";
    case JSON_INTEGER:
        return "a whole number";
    case JSON_REAL:
        return "a number";
    case JSON_STRING:
        return "a string";
    case JSON_ARRAY:
        return "an array";
    case JSON_OBJECT:
        return "an object";
    }
    return "?";
}

int json_expect(const JsonValue *v, json_type type)
{
    bool is_bool = v->type == JSON_TRUE || v->type == JSON_FALSE;
    if (v->type == type || (is_bool && (type == JSON_TRUE || type == JSON_FALSE)) ||
        (type == JSON_REAL && v->type == JSON_INTEGER))
        return ERR_OK;
    char got[200];
    return json_error(v, "must be %s, got %s", type_name(type), json_describe(v, got, sizeof got));
}

int json_require(const JsonValue *obj, const char *key, const JsonValue **out)
{
    *out = NULL;
    TRY(json_expect(obj, JSON_OBJECT));
    *out = json_get(obj, key);
    if (*out) return ERR_OK;
    char w[256], q[160];
    if (!obj->parent)
        return err_set(ERR_FORMAT, "%s:%d: missing key %s in the top-level object", obj->source,
                       obj->line, err_quote(key, strlen(key), 100, q, sizeof q));
    return err_set(ERR_FORMAT, "%s:%d: missing key %s in %s", obj->source, obj->line,
                   err_quote(key, strlen(key), 100, q, sizeof q), where(obj, w, sizeof w));
}

/* The number v as its source writes it, shortened for a message ("1e-400"). */
static const char *as_written(const JsonValue *v, char *buf, size_t size)
{
    if (!v->text) return fmt_num(json_number_value(v->json), buf, size);
    return err_escape(v->text, v->text_length, 40, buf, size);
}

static const char *range_text(int64_t min, int64_t max, char *buf, size_t size)
{
    if (max == INT64_MAX)
        snprintf(buf, size, "at least %" PRId64, min);
    else if (min == INT64_MIN)
        snprintf(buf, size, "at most %" PRId64, max);
    else
        snprintf(buf, size, "from %" PRId64 " to %" PRId64, min, max);
    return buf;
}

int json_as_int(const JsonValue *v, int64_t min, int64_t max, int64_t *out)
{
    char got[200], range[96];
    if (v->type != JSON_INTEGER && v->type != JSON_REAL)
        return json_error(v, "must be a whole number, got %s", json_describe(v, got, sizeof got));
    as_written(v, got, sizeof got);
    /* The literal decides, not the double it was rounded to: 10.000000000000000000001 is
     * not whole, though its double is 10. (A node made without its text falls back on
     * the value.) */
    NumText t = {0};
    if (v->text && numtext_scan(v->text, v->text_length, &t)) {
        if (!t.whole) return json_error(v, "must be a whole number, got %s", got);
        if (!t.fits || t.value < min || t.value > max || (t.negative && min >= 0))
            return json_error(v, "must be %s, got %s", range_text(min, max, range, sizeof range),
                              got);
        *out = t.value;
        return ERR_OK;
    }
    int64_t i;
    bool in_range;
    if (v->type == JSON_INTEGER) {
        i = json_integer_value(v->json);
        in_range = i >= min && i <= max;
    } else {
        double d = json_real_value(v->json);
        if (d != trunc(d)) return json_error(v, "must be a whole number, got %s", got);
        /* 2^63 is exact in a double; anything from it on is out of int64_t. */
        in_range = d >= -9223372036854775808.0 && d < 9223372036854775808.0;
        i = in_range ? (int64_t)d : 0;
        in_range = in_range && i >= min && i <= max;
    }
    if (!in_range)
        return json_error(v, "must be %s, got %s", range_text(min, max, range, sizeof range), got);
    *out = i;
    return ERR_OK;
}

int json_as_number(const JsonValue *v, double min, double max, double *out)
{
    char got[200], a[32], b[32], range[96];
    if (!json_is_number(v->json))
        return json_error(v, "must be a number, got %s", json_describe(v, got, sizeof got));
    double d = json_number_value(v->json);
    NumText t = {0};
    bool scanned = v->text && numtext_scan(v->text, v->text_length, &t);
    if (scanned && t.nonzero && d == 0.0)
        return json_error(v, "is %s, which is not 0 but underflows to 0 in a double (the "
                             "smallest is 4.9e-324): write 0, or a larger number",
                          as_written(v, got, sizeof got));
    uint64_t bits; /* the sign from the bits: the release build has -fno-signed-zeros */
    memcpy(&bits, &d, sizeof bits);
    bool negative = scanned ? t.negative : bits >> 63;
    if (d >= min && d <= max && !(negative && min >= 0)) {
        *out = d;
        return ERR_OK;
    }
    if (isinf(max))
        snprintf(range, sizeof range, "at least %s", fmt_num(min, a, sizeof a));
    else if (isinf(min))
        snprintf(range, sizeof range, "at most %s", fmt_num(max, b, sizeof b));
    else
        snprintf(range, sizeof range, "from %s to %s", fmt_num(min, a, sizeof a),
                 fmt_num(max, b, sizeof b));
    return json_error(v, "must be %s, got %s", range,
                      d == 0.0 || !isfinite(d) ? as_written(v, got, sizeof got)
                                               : fmt_num(d, got, sizeof got));
}

int json_as_bool(const JsonValue *v, bool *out)
{
    char got[200];
    if (!json_is_boolean(v->json))
        return json_error(v, "must be true or false, got %s", json_describe(v, got, sizeof got));
    *out = json_is_true(v->json);
    return ERR_OK;
}

int json_as_string(const JsonValue *v, const char **out)
{
    char got[200];
    if (!json_is_string(v->json))
        return json_error(v, "must be a string, got %s", json_describe(v, got, sizeof got));
    *out = json_string_value(v->json);
    return ERR_OK;
}

/* "\"a\", \"b\", \"c\"" for a NULL-terminated list. */
static const char *list_words(const char *const *words, char *buf, size_t size)
{
    size_t at = 0;
    char q[160];
    buf[0] = '\0';
    for (int i = 0; words[i]; i++)
        put(buf, size, &at, "%s%s", i ? ", " : "",
            err_quote(words[i], strlen(words[i]), 100, q, sizeof q));
    return buf;
}

int json_as_choice(const JsonValue *v, const char *const *choices, int *out)
{
    char list[400], got[200], hint[200] = "";
    if (json_is_string(v->json)) {
        const char *s = json_string_value(v->json);
        size_t n = json_string_length(v->json);
        for (int i = 0; choices[i]; i++)
            if (strlen(choices[i]) == n && !memcmp(choices[i], s, n)) {
                *out = i;
                return ERR_OK;
            }
        const char *close = json_suggest(s, choices);
        if (close) {
            char q[160];
            snprintf(hint, sizeof hint, " (did you mean %s?)",
                     err_quote(close, strlen(close), 100, q, sizeof q));
        }
        err_quote(s, n, 100, got, sizeof got);
    } else {
        json_describe(v, got, sizeof got);
    }
    return json_error(v, "must be one of %s, got %s%s", list_words(choices, list, sizeof list), got,
                      hint);
}

int json_check_keys(const JsonValue *obj, const char *const *allowed)
{
    TRY(json_expect(obj, JSON_OBJECT));
    for (int i = 0; i < obj->count; i++) {
        const JsonValue *m = &obj->items[i];
        bool known = false;
        for (int k = 0; allowed[k] && !known; k++)
            known =
                strlen(allowed[k]) == m->key_length && !memcmp(allowed[k], m->key, m->key_length);
        if (known) continue;
        char q[160], in[300] = "", w[256], hint[480];
        if (obj->parent) snprintf(in, sizeof in, " in %s", where(obj, w, sizeof w));
        const char *close = json_suggest(m->key, allowed);
        if (close) {
            snprintf(hint, sizeof hint, "did you mean %s?",
                     err_quote(close, strlen(close), 100, w, sizeof w));
        } else {
            char list[400];
            snprintf(hint, sizeof hint, "known keys: %s", list_words(allowed, list, sizeof list));
        }
        return err_set(ERR_FORMAT, "%s:%d: unknown key %s%s (%s)", m->source, m->line,
                       err_quote(m->key, m->key_length, 100, q, sizeof q), in, hint);
    }
    return ERR_OK;
}

/* Optimal string alignment distance: edits, where swapping two neighbours is one edit. */
static size_t edit_distance(const char *a, size_t n, const char *b, size_t m)
{
    enum { MAXLEN = 64 };
    size_t rows[3][MAXLEN + 1];
    size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= m; j++)
        prev[j] = j;
    for (size_t i = 1; i <= n; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t best = prev[j - 1] + (a[i - 1] != b[j - 1]);
            if (prev[j] + 1 < best) best = prev[j] + 1;
            if (cur[j - 1] + 1 < best) best = cur[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                prev2[j - 2] + 1 < best)
                best = prev2[j - 2] + 1;
            cur[j] = best;
        }
        size_t *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    return prev[m];
}

const char *json_suggest(const char *word, const char *const *candidates)
{
    size_t n = strlen(word), best_d = SIZE_MAX;
    const char *best = NULL;
    if (n > 64) return NULL; /* long enough that a typo guess is not worth it */
    for (int i = 0; candidates[i]; i++) {
        size_t m = strlen(candidates[i]);
        if (m > 64) continue;
        size_t d = edit_distance(word, n, candidates[i], m);
        if (d < best_d && d <= 1 + m / 5 && d < m) {
            best_d = d;
            best = candidates[i];
        }
    }
    return best;
}

/* ---- writing ------------------------------------------------------------ */

int json_check_text(const char *s, const char *what)
{
    json_t *v = json_string(s);
    if (v) {
        json_decref(v);
        return ERR_OK;
    }
    v = json_string_nocheck(s); /* fails only for want of memory */
    if (!v) return err_set(ERR_NOMEM, "out of memory checking %s", what);
    json_decref(v);
    char q[200];
    return err_set(ERR_ARG, "%s is not UTF-8 text: %s", what,
                   err_quote(s, strlen(s), 100, q, sizeof q));
}

json_t *json_f32(float v)
{
    if (!isfinite(v)) return NULL;
    char buf[32];
    for (int prec = 1; prec <= 9; prec++) { /* 9 digits always read back as the float */
        snprintf(buf, sizeof buf, "%.*g", prec, (double)v);
        if ((float)strtod(buf, NULL) == v) break;
    }
    /* The double nearest to those digits: "%.9g" writes exactly them again. */
    return json_real(strtod(buf, NULL));
}

/* The most significant digits any real in v needs to read back as itself (1 to 17). */
static int digits_needed(const json_t *v)
{
    int most = 1;
    if (json_is_real(v)) {
        double d = json_real_value(v);
        char buf[40];
        for (most = 1; most < 17; most++) {
            snprintf(buf, sizeof buf, "%.*g", most, d);
            if (strtod(buf, NULL) == d) break;
        }
        /* A whole number below 10^15 in plain digits: 100.0, not 1e2. */
        int whole = 1;
        for (double w = 10; fabs(d) >= w && whole < 15; w *= 10) whole++;
        if (d == trunc(d) && fabs(d) < 1e15 && whole > most) most = whole;
    } else if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++) {
            int d = digits_needed(json_array_get(v, i));
            if (d > most) most = d;
        }
    } else if (json_is_object(v)) {
        for (void *it = json_object_iter((json_t *)v); it;
             it = json_object_iter_next((json_t *)v, it)) {
            int d = digits_needed(json_object_iter_value(it));
            if (d > most) most = d;
        }
    }
    return most;
}

int json_text(const json_t *v, int flags, char **text, size_t *len)
{
    *text = NULL;
    if (!v) return err_set(ERR_ARG, "json_text: no value to write (building it failed)");
    int digits = flags & JSON_TEXT_F32 ? 9 : flags & JSON_TEXT_SHORTEST ? digits_needed(v) : 17;
    size_t f = JSON_ENCODE_ANY | JSON_REAL_PRECISION(digits) |
               (flags & JSON_TEXT_PRETTY ? JSON_INDENT(2) : JSON_COMPACT);
    char *s = json_dumps(v, f);
    size_t n = s ? strlen(s) : 0;
    if (s && (flags & JSON_TEXT_PRETTY)) { /* a file people read ends with a newline */
        char *nl = realloc(s, n + 2);
        if (!nl) free(s);
        s = nl;
        if (s) memcpy(s + n++, "\n", 2);
    }
    *text = s;
    if (len) *len = n;
    return s ? ERR_OK : err_set(ERR_NOMEM, "json_text: out of memory writing the text");
}
