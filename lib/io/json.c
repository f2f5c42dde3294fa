/* json.c: a strict RFC 8259 parser into an arena-backed tree, typed getters, a writer. */
#include "lib/io/json.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/err.h"

/* ---- the document: one arena of blocks, freed at once ------------------ */

typedef struct Block {
    struct Block *next;
    size_t used, cap;
    max_align_t data[]; /* aligned for any value */
} Block;

struct Json {
    Block *blocks;
    JsonValue root;
    const char *source;
};

enum { BLOCK_MIN = 16384 };

static void *arena_alloc(Json *doc, size_t n)
{
    const size_t align = sizeof(max_align_t);
    n = (n + align - 1) / align * align;
    Block *b = doc->blocks;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > BLOCK_MIN ? n : BLOCK_MIN;
        b = malloc(sizeof *b + cap);
        if (!b) return NULL;
        b->cap = cap;
        b->used = 0;
        b->next = doc->blocks;
        doc->blocks = b;
    }
    void *p = (char *)b->data + b->used;
    b->used += n;
    return p;
}

void json_free(Json *doc)
{
    if (!doc) return;
    for (Block *b = doc->blocks, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    free(doc);
}

const JsonValue *json_root(const Json *doc)
{
    return &doc->root;
}

/* ---- UTF-8 and display helpers ---------------------------------------- */

/* Length of the valid UTF-8 sequence at p (at most avail bytes), 0 if invalid.
 * Overlong forms, surrogates and code points above U+10FFFF are invalid. */
static size_t utf8_seq(const unsigned char *p, size_t avail)
{
    unsigned c = p[0];
    if (c < 0x80) return 1;
    size_t n;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
    } else
        return 0;
    if (avail < n || p[1] < lo || p[1] > hi) return 0;
    for (size_t i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xBF) return 0;
    return n;
}

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

/* s (len bytes) in double quotes for a message: escapes as JSON would write
 * them, invalid UTF-8 as \xNN, cut after about max bytes with "...". */
static const char *quote(const char *s, size_t len, size_t max, char *buf, size_t size)
{
    size_t at = 0;
    put(buf, size, &at, "\"");
    for (size_t i = 0; i < len;) {
        if (i >= max) {
            put(buf, size, &at, "...");
            break;
        }
        unsigned char c = (unsigned char)s[i];
        size_t n = utf8_seq((const unsigned char *)s + i, len - i);
        if (c == '"' || c == '\\')
            put(buf, size, &at, "\\%c", c);
        else if (c == '\n')
            put(buf, size, &at, "\\n");
        else if (c == '\t')
            put(buf, size, &at, "\\t");
        else if (c < 0x20 || c == 0x7f)
            put(buf, size, &at, "\\u%04x", c);
        else if (n == 0)
            put(buf, size, &at, "\\x%02x", c);
        else
            put(buf, size, &at, "%.*s", (int)n, s + i);
        i += n ? n : 1;
    }
    put(buf, size, &at, "\"");
    return buf;
}

/* The shortest "%.Ng" form of d that reads back as d. */
static const char *fmt_num(double d, char *buf, size_t size)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, d);
        if (strtod(buf, NULL) == d) break;
    }
    return buf;
}

/* ---- the parser --------------------------------------------------------- */

typedef struct Entry {
    JsonValue v;
    size_t key_offset; /* where the key of an object member starts, for messages */
} Entry;

typedef struct Parser {
    const char *text;
    size_t len, pos;
    int line;
    Json *doc;
    Entry *stack; /* items of the containers being parsed, innermost last */
    size_t n, cap;
    char *scratch; /* a string being decoded */
    size_t slen, scap;
} Parser;

/* What is at pos, for "got ...": a character, a word or the end of the text. */
static const char *describe_at(const Parser *ps, size_t pos, char *buf, size_t size)
{
    if (pos >= ps->len) {
        snprintf(buf, size, "the end of the text");
        return buf;
    }
    unsigned char c = (unsigned char)ps->text[pos];
    size_t n = utf8_seq((const unsigned char *)ps->text + pos, ps->len - pos);
    if (c == '\n' || c == '\r')
        snprintf(buf, size, "a line break");
    else if (c == 0)
        snprintf(buf, size, "a NUL byte");
    else if (c < 0x20 || c == 0x7f)
        snprintf(buf, size, "the control character U+%04X", c);
    else if (n == 0)
        snprintf(buf, size, "the byte 0x%02x, which is not UTF-8", c);
    else
        snprintf(buf, size, "'%.*s'", (int)n, ps->text + pos);
    return buf;
}

/* ERR_FORMAT "SOURCE:LINE:COL: message" for the byte at pos; columns count characters. */
static int perr(const Parser *ps, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int perr(const Parser *ps, size_t pos, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int line = 1, col = 1;
    for (size_t i = 0; i < pos && i < ps->len; i++) {
        unsigned char c = (unsigned char)ps->text[i];
        if (c == '\n') {
            line++;
            col = 1;
        } else if ((c & 0xC0) != 0x80) {
            col++;
        }
    }
    return err_set(ERR_FORMAT, "%s:%d:%d: %s", ps->doc->source, line, col, msg);
}

static int nomem(const Parser *ps)
{
    return err_set(ERR_NOMEM, "%s: out of memory parsing %zu bytes of JSON", ps->doc->source,
                   ps->len);
}

static void skip_ws(Parser *ps)
{
    while (ps->pos < ps->len) {
        char c = ps->text[ps->pos];
        if (c == '\n')
            ps->line++;
        else if (c != ' ' && c != '\t' && c != '\r')
            break;
        ps->pos++;
    }
}

static int peek(const Parser *ps)
{
    return ps->pos < ps->len ? (unsigned char)ps->text[ps->pos] : -1;
}

static int scratch_put(Parser *ps, const char *s, size_t n)
{
    if (ps->slen + n > ps->scap) {
        size_t cap = ps->scap ? ps->scap : 256;
        while (cap < ps->slen + n)
            cap *= 2;
        char *bigger = realloc(ps->scratch, cap);
        if (!bigger) return nomem(ps);
        ps->scratch = bigger;
        ps->scap = cap;
    }
    memcpy(ps->scratch + ps->slen, s, n);
    ps->slen += n;
    return ERR_OK;
}

/* Four hex digits at pos into *cp. */
static int hex4(Parser *ps, size_t pos, unsigned *cp)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int c = pos + i < ps->len ? (unsigned char)ps->text[pos + i] : -1;
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0) {
            char got[64];
            return perr(ps, pos + i, "expected 4 hex digits after \\u, got %s",
                        describe_at(ps, pos + i, got, sizeof got));
        }
        v = v * 16 + (unsigned)d;
    }
    *cp = v;
    return ERR_OK;
}

static int put_utf8(Parser *ps, unsigned cp)
{
    char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | cp >> 6);
        b[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | cp >> 12);
        b[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        b[0] = (char)(0xF0 | cp >> 18);
        b[1] = (char)(0x80 | (cp >> 12 & 0x3F));
        b[2] = (char)(0x80 | (cp >> 6 & 0x3F));
        b[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    return scratch_put(ps, b, n);
}

/* The escape sequence after the backslash at ps->pos - 1. */
static int parse_escape(Parser *ps)
{
    char got[64];
    int c = peek(ps);
    const char *plain = NULL;
    switch (c) {
    case '"':
        plain = "\"";
        break;
    case '\\':
        plain = "\\";
        break;
    case '/':
        plain = "/";
        break;
    case 'b':
        plain = "\b";
        break;
    case 'f':
        plain = "\f";
        break;
    case 'n':
        plain = "\n";
        break;
    case 'r':
        plain = "\r";
        break;
    case 't':
        plain = "\t";
        break;
    case 'u':
        break;
    default:
        return perr(ps, ps->pos,
                    "expected an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX) "
                    "after the backslash, got %s",
                    describe_at(ps, ps->pos, got, sizeof got));
    }
    if (plain) {
        ps->pos++;
        return scratch_put(ps, plain, 1);
    }
    unsigned cp, lo;
    size_t at = ps->pos - 1; /* the backslash */
    TRY(hex4(ps, ps->pos + 1, &cp));
    ps->pos += 5;
    if (cp >= 0xDC00 && cp <= 0xDFFF)
        return perr(ps, at,
                    "expected a character, got the low surrogate \\u%04X without a high "
                    "surrogate before it",
                    cp);
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        if (ps->pos + 1 >= ps->len || ps->text[ps->pos] != '\\' || ps->text[ps->pos + 1] != 'u')
            return perr(ps, ps->pos,
                        "expected a low surrogate \\uDC00-\\uDFFF after the high "
                        "surrogate \\u%04X, got %s",
                        cp, describe_at(ps, ps->pos, got, sizeof got));
        TRY(hex4(ps, ps->pos + 2, &lo));
        if (lo < 0xDC00 || lo > 0xDFFF)
            return perr(ps, ps->pos,
                        "expected a low surrogate \\uDC00-\\uDFFF after the high "
                        "surrogate \\u%04X, got \\u%04X",
                        cp, lo);
        ps->pos += 6;
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
    }
    return put_utf8(ps, cp);
}

/* The string starting at the quote at ps->pos, decoded into the arena. */
static int parse_string(Parser *ps, const char **out, size_t *len)
{
    char got[64];
    ps->slen = 0;
    ps->pos++;
    for (;;) {
        if (ps->pos >= ps->len)
            return perr(ps, ps->pos, "expected '\"' to close the string, got the end of the text");
        unsigned char c = (unsigned char)ps->text[ps->pos];
        if (c == '"') break;
        if (c == '\\') {
            ps->pos++;
            TRY(parse_escape(ps));
            continue;
        }
        if (c < 0x20)
            return perr(ps, ps->pos,
                        "expected a string character, got %s (write it as an escape "
                        "such as \\n, or close the string with '\"')",
                        describe_at(ps, ps->pos, got, sizeof got));
        size_t n = utf8_seq((const unsigned char *)ps->text + ps->pos, ps->len - ps->pos);
        if (n == 0) return perr(ps, ps->pos, "expected UTF-8 text, got the byte 0x%02x", c);
        TRY(scratch_put(ps, ps->text + ps->pos, n));
        ps->pos += n;
    }
    ps->pos++;
    char *s = arena_alloc(ps->doc, ps->slen + 1);
    if (!s) return nomem(ps);
    memcpy(s, ps->scratch, ps->slen);
    s[ps->slen] = '\0';
    *out = s;
    *len = ps->slen;
    return ERR_OK;
}

static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static int parse_number(Parser *ps, JsonValue *v)
{
    char got[64];
    size_t start = ps->pos;
    bool whole = true;
    if (peek(ps) == '-') ps->pos++;
    if (!is_digit(peek(ps)))
        return perr(ps, ps->pos, "expected a digit after '-', got %s",
                    describe_at(ps, ps->pos, got, sizeof got));
    if (peek(ps) == '0' && ps->pos + 1 < ps->len && is_digit(ps->text[ps->pos + 1])) {
        size_t end = ps->pos;
        while (end < ps->len && is_digit(ps->text[end]))
            end++;
        return perr(ps, start, "expected a number without leading zeros, got %.*s",
                    (int)(end - start > 40 ? 40 : end - start), ps->text + start);
    }
    while (is_digit(peek(ps)))
        ps->pos++;
    if (peek(ps) == '.') {
        whole = false;
        ps->pos++;
        if (!is_digit(peek(ps)))
            return perr(ps, ps->pos, "expected a digit after the decimal point, got %s",
                        describe_at(ps, ps->pos, got, sizeof got));
        while (is_digit(peek(ps)))
            ps->pos++;
    }
    if (peek(ps) == 'e' || peek(ps) == 'E') {
        whole = false;
        ps->pos++;
        if (peek(ps) == '+' || peek(ps) == '-') ps->pos++;
        if (!is_digit(peek(ps)))
            return perr(ps, ps->pos, "expected a digit in the exponent, got %s",
                        describe_at(ps, ps->pos, got, sizeof got));
        while (is_digit(peek(ps)))
            ps->pos++;
    }
    /* strtod and strtoll need a terminated copy: the text need not be. */
    size_t n = ps->pos - start;
    ps->slen = 0;
    TRY(scratch_put(ps, ps->text + start, n));
    TRY(scratch_put(ps, "", 1));
    v->type = JSON_NUMBER;
    v->number = strtod(ps->scratch, NULL);
    if (isinf(v->number))
        return perr(ps, start,
                    "expected a number that fits in a double (up to about 1.8e308), "
                    "got %.*s",
                    (int)(n > 40 ? 40 : n), ps->text + start);
    if (whole) {
        errno = 0;
        long long i = strtoll(ps->scratch, NULL, 10);
        if (errno != ERANGE) {
            v->is_int = true;
            v->integer = i;
        }
    }
    return ERR_OK;
}

static int parse_value(Parser *ps, int depth, JsonValue *v);

static int push(Parser *ps, const JsonValue *v, size_t key_offset)
{
    if (ps->n == ps->cap) {
        size_t cap = ps->cap ? 2 * ps->cap : 64;
        Entry *bigger = realloc(ps->stack, cap * sizeof *bigger);
        if (!bigger) return nomem(ps);
        ps->stack = bigger;
        ps->cap = cap;
    }
    ps->stack[ps->n].v = *v;
    ps->stack[ps->n].key_offset = key_offset;
    ps->n++;
    return ERR_OK;
}

/* Move the items above base from the stack into the arena as v's items. */
static int pop_items(Parser *ps, size_t base, JsonValue *v)
{
    size_t count = ps->n - base;
    if (count > (size_t)INT32_MAX)
        return perr(ps, ps->pos, "expected at most %d items in one array or object, got more",
                    INT32_MAX);
    v->count = (int)count;
    if (count) {
        v->items = arena_alloc(ps->doc, count * sizeof *v->items);
        if (!v->items) return nomem(ps);
        for (size_t i = 0; i < count; i++) {
            v->items[i] = ps->stack[base + i].v;
            v->items[i].index = (int)i;
        }
    }
    ps->n = base;
    return ERR_OK;
}

static int cmp_keys(const void *pa, const void *pb)
{
    const Entry *a = *(const Entry *const *)pa, *b = *(const Entry *const *)pb;
    size_t n = a->v.key_length < b->v.key_length ? a->v.key_length : b->v.key_length;
    int c = memcmp(a->v.key, b->v.key, n);
    if (c) return c;
    if (a->v.key_length != b->v.key_length) return a->v.key_length < b->v.key_length ? -1 : 1;
    return a < b ? -1 : a > b; /* equal keys stay in file order */
}

/* Refuse an object whose members on the stack above base repeat a key. Sorting
 * keeps this n log n for headers with thousands of tensors. */
static int check_duplicates(Parser *ps, size_t base)
{
    size_t n = ps->n - base;
    if (n < 2) return ERR_OK;
    const Entry **sorted = malloc(n * sizeof *sorted);
    if (!sorted) return nomem(ps);
    for (size_t i = 0; i < n; i++)
        sorted[i] = &ps->stack[base + i];
    qsort(sorted, n, sizeof *sorted, cmp_keys);
    /* Equal keys sort into runs in file order: a run's second entry is a repeat,
     * and the repeat that comes first in the file is the one to report. */
    const Entry *dup = NULL, *first = NULL;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && sorted[j]->v.key_length == sorted[i]->v.key_length &&
                        !memcmp(sorted[j]->v.key, sorted[i]->v.key, sorted[i]->v.key_length);
             j++)
            ;
        if (j - i >= 2 && (!dup || sorted[i + 1] < dup)) {
            dup = sorted[i + 1];
            first = sorted[i];
        }
    }
    free(sorted);
    if (!dup) return ERR_OK;
    char q[160];
    return perr(ps, dup->key_offset, "duplicate key %s in this object (first at line %d)",
                quote(dup->v.key, dup->v.key_length, 100, q, sizeof q), first->v.line);
}

static int parse_object(Parser *ps, int depth, JsonValue *v)
{
    char got[64], q[160];
    size_t base = ps->n;
    v->type = JSON_OBJECT;
    ps->pos++;
    skip_ws(ps);
    if (peek(ps) == '}') {
        ps->pos++;
        return ERR_OK;
    }
    for (;;) {
        skip_ws(ps);
        if (peek(ps) != '"')
            return perr(ps, ps->pos, "expected a key (a string in double quotes)%s, got %s%s",
                        ps->n == base ? " or '}'" : "", describe_at(ps, ps->pos, got, sizeof got),
                        peek(ps) == '}' ? " (JSON allows no comma after the last member)" : "");
        size_t key_offset = ps->pos;
        int key_line = ps->line;
        const char *key;
        size_t key_len;
        TRY(parse_string(ps, &key, &key_len));
        skip_ws(ps);
        if (peek(ps) != ':')
            return perr(ps, ps->pos, "expected ':' after the key %s, got %s",
                        quote(key, key_len, 100, q, sizeof q),
                        describe_at(ps, ps->pos, got, sizeof got));
        ps->pos++;
        JsonValue item;
        TRY(parse_value(ps, depth + 1, &item));
        item.key = key;
        item.key_length = key_len;
        item.line = key_line; /* a member is where its key is */
        TRY(push(ps, &item, key_offset));
        skip_ws(ps);
        if (peek(ps) == ',') {
            ps->pos++;
            continue;
        }
        if (peek(ps) == '}') break;
        return perr(ps, ps->pos, "expected ',' or '}' after the value of %s, got %s",
                    quote(key, key_len, 100, q, sizeof q),
                    describe_at(ps, ps->pos, got, sizeof got));
    }
    ps->pos++;
    TRY(check_duplicates(ps, base));
    return pop_items(ps, base, v);
}

static int parse_array(Parser *ps, int depth, JsonValue *v)
{
    char got[64];
    size_t base = ps->n;
    v->type = JSON_ARRAY;
    ps->pos++;
    skip_ws(ps);
    if (peek(ps) == ']') {
        ps->pos++;
        return ERR_OK;
    }
    for (;;) {
        skip_ws(ps);
        if (peek(ps) == ']')
            return perr(ps, ps->pos,
                        "expected a value, got ']' (JSON allows no comma after the "
                        "last item)");
        JsonValue item;
        TRY(parse_value(ps, depth + 1, &item));
        TRY(push(ps, &item, 0));
        skip_ws(ps);
        if (peek(ps) == ',') {
            ps->pos++;
            continue;
        }
        if (peek(ps) == ']') break;
        return perr(ps, ps->pos, "expected ',' or ']' after an array item, got %s",
                    describe_at(ps, ps->pos, got, sizeof got));
    }
    ps->pos++;
    return pop_items(ps, base, v);
}

static int parse_value(Parser *ps, int depth, JsonValue *v)
{
    char got[64];
    skip_ws(ps);
    memset(v, 0, sizeof *v);
    v->line = ps->line;
    v->offset = ps->pos;
    v->source = ps->doc->source;
    int c = peek(ps);
    if (c == '{' || c == '[') {
        if (depth >= JSON_MAX_DEPTH)
            return perr(ps, ps->pos,
                        "expected at most %d nested arrays and objects, got a "
                        "deeper '%c'",
                        JSON_MAX_DEPTH, c);
        return c == '{' ? parse_object(ps, depth, v) : parse_array(ps, depth, v);
    }
    if (c == '"') {
        v->type = JSON_STRING;
        return parse_string(ps, &v->string, &v->length);
    }
    if (c == '-' || is_digit(c)) return parse_number(ps, v);
    static const char *const words[] = {"true", "false", "null"};
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(words[i]);
        if (ps->len - ps->pos >= n && !memcmp(ps->text + ps->pos, words[i], n)) {
            ps->pos += n;
            v->type = i == 2 ? JSON_NULL : JSON_BOOL;
            v->boolean = i == 0;
            return ERR_OK;
        }
    }
    /* Name a misspelt word whole ("True", "nul"), anything else by its first character. */
    size_t end = ps->pos;
    while (end < ps->len && end - ps->pos < 20 &&
           ((ps->text[end] >= 'a' && ps->text[end] <= 'z') ||
            (ps->text[end] >= 'A' && ps->text[end] <= 'Z')))
        end++;
    if (end > ps->pos)
        snprintf(got, sizeof got, "'%.*s'", (int)(end - ps->pos), ps->text + ps->pos);
    else
        describe_at(ps, ps->pos, got, sizeof got);
    return perr(ps, ps->pos,
                "expected a value (an object, array, string, number, true, false "
                "or null), got %s",
                got);
}

/* Point every item at its container, now that no array moves any more. */
static void link_parents(JsonValue *v)
{
    for (int i = 0; i < v->count; i++) {
        v->items[i].parent = v;
        link_parents(&v->items[i]);
    }
}

int json_parse(const char *text, size_t len, const char *source, Json **out)
{
    *out = NULL;
    if (!source) source = "json";
    if (!text) return err_set(ERR_ARG, "%s: json_parse: the text is NULL", source);
    Json *doc = calloc(1, sizeof *doc);
    if (!doc) return err_set(ERR_NOMEM, "%s: out of memory parsing JSON", source);
    Parser ps = {.text = text, .len = len, .line = 1, .doc = doc};
    doc->source = source; /* for messages until the copy below exists */
    char *name = arena_alloc(doc, strlen(source) + 1);
    int rc = name ? ERR_OK : nomem(&ps);
    if (rc == ERR_OK) {
        strcpy(name, source);
        doc->source = name;
        if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) ps.pos = 3;
        rc = parse_value(&ps, 0, &doc->root);
    }
    if (rc == ERR_OK) {
        skip_ws(&ps);
        if (ps.pos < len) {
            char got[64];
            rc = perr(&ps, ps.pos, "expected the end of the text after the top-level value, got %s",
                      describe_at(&ps, ps.pos, got, sizeof got));
        }
    }
    free(ps.stack);
    free(ps.scratch);
    if (rc != ERR_OK) {
        json_free(doc);
        return rc;
    }
    link_parents(&doc->root);
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

const char *json_path(const JsonValue *v, char *buf, size_t size)
{
    const JsonValue *chain[JSON_MAX_DEPTH + 1];
    int n = 0;
    for (const JsonValue *p = v; p && p->parent && n <= JSON_MAX_DEPTH; p = p->parent)
        chain[n++] = p;
    size_t at = 0;
    buf[0] = '\0';
    for (int i = n - 1; i >= 0; i--) {
        if (chain[i]->key)
            put(buf, size, &at, "%s%.*s", at ? "." : "", (int)chain[i]->key_length, chain[i]->key);
        else
            put(buf, size, &at, "[%d]", chain[i]->index);
    }
    return buf;
}

/* "the top-level value" or the path in double quotes. */
static const char *where(const JsonValue *v, char *buf, size_t size)
{
    if (!v->parent) return "the top-level value";
    char path[256];
    json_path(v, path, sizeof path);
    return quote(path, strlen(path), 200, buf, size);
}

const char *json_describe(const JsonValue *v, char *buf, size_t size)
{
    char q[160], num[32];
    switch (v->type) {
    case JSON_NULL:
        snprintf(buf, size, "null");
        break;
    case JSON_BOOL:
        snprintf(buf, size, "%s", v->boolean ? "true" : "false");
        break;
    case JSON_NUMBER:
        if (v->is_int)
            snprintf(buf, size, "the number %" PRId64, v->integer);
        else
            snprintf(buf, size, "the number %s", fmt_num(v->number, num, sizeof num));
        break;
    case JSON_STRING:
        snprintf(buf, size, "the string %s", quote(v->string, v->length, 40, q, sizeof q));
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

static const char *type_name(JsonType t)
{
    switch (t) {
    case JSON_NULL:
        return "null";
    case JSON_BOOL:
        return "true or false";
    case JSON_NUMBER:
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

int json_expect(const JsonValue *v, JsonType type)
{
    if (v->type == type) return ERR_OK;
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
                       obj->line, quote(key, strlen(key), 100, q, sizeof q));
    return err_set(ERR_FORMAT, "%s:%d: missing key %s in %s", obj->source, obj->line,
                   quote(key, strlen(key), 100, q, sizeof q), where(obj, w, sizeof w));
}

int json_as_int(const JsonValue *v, int64_t min, int64_t max, int64_t *out)
{
    char got[200], range[96];
    if (v->type != JSON_NUMBER)
        return json_error(v, "must be a whole number, got %s", json_describe(v, got, sizeof got));
    int64_t i;
    bool in_range;
    if (v->is_int) {
        i = v->integer;
        in_range = i >= min && i <= max;
        snprintf(got, sizeof got, "%" PRId64, i);
    } else {
        if (v->number != trunc(v->number))
            return json_error(v, "must be a whole number, got %s",
                              fmt_num(v->number, got, sizeof got));
        /* 2^63 is exact in a double; anything from it on is out of int64_t. */
        in_range = v->number >= -9223372036854775808.0 && v->number < 9223372036854775808.0;
        i = in_range ? (int64_t)v->number : 0;
        in_range = in_range && i >= min && i <= max;
        fmt_num(v->number, got, sizeof got);
    }
    if (in_range) {
        *out = i;
        return ERR_OK;
    }
    if (max == INT64_MAX)
        snprintf(range, sizeof range, "at least %" PRId64, min);
    else if (min == INT64_MIN)
        snprintf(range, sizeof range, "at most %" PRId64, max);
    else
        snprintf(range, sizeof range, "from %" PRId64 " to %" PRId64, min, max);
    return json_error(v, "must be %s, got %s", range, got);
}

int json_as_number(const JsonValue *v, double min, double max, double *out)
{
    char got[200], a[32], b[32], range[96];
    if (v->type != JSON_NUMBER)
        return json_error(v, "must be a number, got %s", json_describe(v, got, sizeof got));
    if (v->number >= min && v->number <= max) {
        *out = v->number;
        return ERR_OK;
    }
    if (isinf(max))
        snprintf(range, sizeof range, "at least %s", fmt_num(min, a, sizeof a));
    else if (isinf(min))
        snprintf(range, sizeof range, "at most %s", fmt_num(max, b, sizeof b));
    else
        snprintf(range, sizeof range, "from %s to %s", fmt_num(min, a, sizeof a),
                 fmt_num(max, b, sizeof b));
    return json_error(v, "must be %s, got %s", range, fmt_num(v->number, got, sizeof got));
}

int json_as_bool(const JsonValue *v, bool *out)
{
    char got[200];
    if (v->type != JSON_BOOL)
        return json_error(v, "must be true or false, got %s", json_describe(v, got, sizeof got));
    *out = v->boolean;
    return ERR_OK;
}

int json_as_string(const JsonValue *v, const char **out)
{
    char got[200];
    if (v->type != JSON_STRING)
        return json_error(v, "must be a string, got %s", json_describe(v, got, sizeof got));
    *out = v->string;
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
            quote(words[i], strlen(words[i]), 100, q, sizeof q));
    return buf;
}

int json_as_choice(const JsonValue *v, const char *const *choices, int *out)
{
    char list[400], got[200], hint[200] = "";
    if (v->type == JSON_STRING) {
        for (int i = 0; choices[i]; i++)
            if (strlen(choices[i]) == v->length && !memcmp(choices[i], v->string, v->length)) {
                *out = i;
                return ERR_OK;
            }
        const char *close = json_suggest(v->string, choices);
        if (close) {
            char q[160];
            snprintf(hint, sizeof hint, " (did you mean %s?)",
                     quote(close, strlen(close), 100, q, sizeof q));
        }
        quote(v->string, v->length, 100, got, sizeof got);
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
                     quote(close, strlen(close), 100, w, sizeof w));
        } else {
            char list[400];
            snprintf(hint, sizeof hint, "known keys: %s", list_words(allowed, list, sizeof list));
        }
        return err_set(ERR_FORMAT, "%s:%d: unknown key %s%s (%s)", m->source, m->line,
                       quote(m->key, m->key_length, 100, q, sizeof q), in, hint);
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

/* ---- the writer --------------------------------------------------------- */

void json_writer_init(JsonWriter *w, bool pretty)
{
    memset(w, 0, sizeof *w);
    w->pretty = pretty;
}

void json_writer_free(JsonWriter *w)
{
    free(w->buf);
    w->buf = NULL;
    w->len = w->cap = 0;
}

static int w_fail(JsonWriter *w, int code)
{
    w->err = code;
    return code;
}

static int w_put(JsonWriter *w, const char *s, size_t n)
{
    if (w->err) return w->err;
    if (w->len + n + 1 > w->cap) { /* + 1: the text stays zero-terminated */
        size_t cap = w->cap ? w->cap : 256;
        while (cap < w->len + n + 1)
            cap *= 2;
        char *bigger = realloc(w->buf, cap);
        if (!bigger)
            return w_fail(w, err_set(ERR_NOMEM,
                                     "json writer: out of memory growing the text "
                                     "to %zu bytes",
                                     cap));
        w->buf = bigger;
        w->cap = cap;
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    w->buf[w->len] = '\0';
    return ERR_OK;
}

static int w_newline(JsonWriter *w)
{
    if (!w->pretty) return ERR_OK;
    TRY(w_put(w, "\n", 1));
    for (int i = 0; i < w->depth; i++)
        TRY(w_put(w, "  ", 2));
    return ERR_OK;
}

/* Separators and checks before a value: after a key in an object, after a comma in an array. */
static int w_before_value(JsonWriter *w)
{
    if (w->err) return w->err;
    if (w->done)
        return w_fail(w, err_set(ERR_ARG, "json writer: a second value after the complete "
                                          "top-level value"));
    if (w->depth == 0) return ERR_OK;
    if (w->open[w->depth - 1] == '{') {
        if (!w->have_key)
            return w_fail(w, err_set(ERR_ARG, "json writer: a value in an object needs "
                                              "json_write_key() first"));
        w->have_key = false;
        return ERR_OK;
    }
    if (w->items[w->depth - 1]++ > 0) TRY(w_put(w, ",", 1));
    return w_newline(w);
}

static void w_after_value(JsonWriter *w)
{
    if (w->depth == 0 && !w->err) w->done = true;
}

static int w_escaped(JsonWriter *w, const char *s)
{
    size_t len = strlen(s);
    for (size_t i = 0; i < len;) {
        if (!utf8_seq((const unsigned char *)s + i, len - i)) {
            char q[160];
            return w_fail(w, err_set(ERR_ARG,
                                     "json writer: the string %s is not UTF-8 (byte "
                                     "0x%02x at offset %zu)",
                                     quote(s, len, 100, q, sizeof q), (unsigned char)s[i], i));
        }
        i += utf8_seq((const unsigned char *)s + i, len - i);
    }
    TRY(w_put(w, "\"", 1));
    size_t run = 0; /* bytes copied as they are, written in one go */
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        TRY(w_put(w, s + run, i - run));
        char esc[8];
        switch (c) {
        case '"':
            strcpy(esc, "\\\"");
            break;
        case '\\':
            strcpy(esc, "\\\\");
            break;
        case '\n':
            strcpy(esc, "\\n");
            break;
        case '\r':
            strcpy(esc, "\\r");
            break;
        case '\t':
            strcpy(esc, "\\t");
            break;
        case '\b':
            strcpy(esc, "\\b");
            break;
        case '\f':
            strcpy(esc, "\\f");
            break;
        default:
            snprintf(esc, sizeof esc, "\\u%04x", c);
        }
        TRY(w_put(w, esc, strlen(esc)));
        run = i + 1;
    }
    TRY(w_put(w, s + run, len - run));
    return w_put(w, "\"", 1);
}

static int w_begin(JsonWriter *w, char open)
{
    TRY(w_before_value(w));
    if (w->depth == JSON_MAX_DEPTH)
        return w_fail(w, err_set(ERR_ARG, "json writer: nesting deeper than %d arrays and objects",
                                 JSON_MAX_DEPTH));
    TRY(w_put(w, &open, 1));
    w->open[w->depth] = open;
    w->items[w->depth] = 0;
    w->depth++;
    return ERR_OK;
}

static int w_end(JsonWriter *w, char open)
{
    if (w->err) return w->err;
    const char *what = open == '{' ? "object" : "array";
    if (w->depth == 0 || w->open[w->depth - 1] != open)
        return w_fail(w, err_set(ERR_ARG, "json writer: closing an %s that is not open", what));
    if (w->have_key)
        return w_fail(w, err_set(ERR_ARG, "json writer: closing an object after a key "
                                          "without a value"));
    w->depth--;
    if (w->items[w->depth] > 0) TRY(w_newline(w));
    char close = open == '{' ? '}' : ']';
    TRY(w_put(w, &close, 1));
    w_after_value(w);
    return ERR_OK;
}

int json_write_begin_object(JsonWriter *w)
{
    return w_begin(w, '{');
}
int json_write_end_object(JsonWriter *w)
{
    return w_end(w, '{');
}
int json_write_begin_array(JsonWriter *w)
{
    return w_begin(w, '[');
}
int json_write_end_array(JsonWriter *w)
{
    return w_end(w, '[');
}

int json_write_key(JsonWriter *w, const char *key)
{
    if (w->err) return w->err;
    if (w->depth == 0 || w->open[w->depth - 1] != '{')
        return w_fail(w, err_set(ERR_ARG, "json writer: key \"%s\" outside an object", key));
    if (w->have_key)
        return w_fail(w,
                      err_set(ERR_ARG, "json writer: key \"%s\" after a key without a value", key));
    if (w->items[w->depth - 1]++ > 0) TRY(w_put(w, ",", 1));
    TRY(w_newline(w));
    TRY(w_escaped(w, key));
    TRY(w_put(w, w->pretty ? ": " : ":", w->pretty ? 2 : 1));
    w->have_key = true;
    return ERR_OK;
}

/* A value written as plain text (numbers, literals). */
static int w_scalar(JsonWriter *w, const char *text)
{
    TRY(w_before_value(w));
    TRY(w_put(w, text, strlen(text)));
    w_after_value(w);
    return ERR_OK;
}

int json_write_string(JsonWriter *w, const char *s)
{
    TRY(w_before_value(w));
    TRY(w_escaped(w, s));
    w_after_value(w);
    return ERR_OK;
}

int json_write_int(JsonWriter *w, int64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRId64, v);
    return w_scalar(w, buf);
}

static int w_float(JsonWriter *w, double v, int digits)
{
    if (w->err) return w->err;
    if (!isfinite(v))
        return w_fail(w, err_set(ERR_NUMERIC,
                                 "json writer: %g has no JSON form (JSON has no "
                                 "NaN or infinity)",
                                 v));
    char buf[40];
    snprintf(buf, sizeof buf, "%.*g", digits, v);
    return w_scalar(w, buf);
}

int json_write_f32(JsonWriter *w, float v)
{
    return w_float(w, v, 9);
}
int json_write_double(JsonWriter *w, double v)
{
    return w_float(w, v, 17);
}
int json_write_bool(JsonWriter *w, bool v)
{
    return w_scalar(w, v ? "true" : "false");
}
int json_write_null(JsonWriter *w)
{
    return w_scalar(w, "null");
}

int json_writer_finish(JsonWriter *w, char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    if (w->err) return w->err;
    if (!w->done) {
        if (w->depth)
            return w_fail(w, err_set(ERR_ARG,
                                     "json writer: the text is not complete: %d array%s "
                                     "or object%s still open",
                                     w->depth, w->depth == 1 ? "" : "s", w->depth == 1 ? "" : "s"));
        return w_fail(w, err_set(ERR_ARG, "json writer: nothing was written"));
    }
    if (w->pretty) TRY(w_put(w, "\n", 1));
    *text = w->buf;
    *len = w->len;
    w->buf = NULL;
    w->len = w->cap = 0;
    return ERR_OK;
}
