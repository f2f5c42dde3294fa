/* protocol.c: records between a runner and the judge (protocol.h). */
#define _DEFAULT_SOURCE /* setenv */
#include "protocol.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct Header {
    uint32_t kind, name_len;
    uint64_t bytes;
} Header;

void *record_encode(RecordKind kind, const char *name, const void *payload, uint64_t bytes,
                    size_t *len)
{
    size_t nl = strlen(name);
    if (nl > REC_NAME_MAX) nl = REC_NAME_MAX;
    Header h = {(uint32_t)kind, (uint32_t)nl, bytes};
    *len = sizeof h + nl + (size_t)bytes;
    unsigned char *buf = malloc(*len);
    if (!buf) return NULL;
    memcpy(buf, &h, sizeof h);
    memcpy(buf + sizeof h, name, nl);
    if (bytes) memcpy(buf + sizeof h + nl, payload, (size_t)bytes);
    return buf;
}

static int fail(char *err, size_t size, const char *what, size_t at)
{
    snprintf(err, size, "%s (at byte %zu)", what, at);
    return -1;
}

static int push(RecordSet *s, const Record *r)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 32;
        Record *p = realloc(s->recs, (size_t)cap * sizeof *p);
        if (!p) return -1;
        s->recs = p;
        s->cap = cap;
    }
    s->recs[s->n++] = *r;
    return 0;
}

int records_parse(const unsigned char *buf, size_t len, RecordSet *out, const char *only, char *err,
                  size_t size)
{
    memset(out, 0, sizeof *out);
    int keep = only == NULL;
    size_t at = 0;
    while (at < len) {
        Header h;
        if (len - at < sizeof h) return fail(err, size, "a record header is cut short", at);
        memcpy(&h, buf + at, sizeof h);
        if (h.name_len > REC_NAME_MAX) return fail(err, size, "a record name is too long", at);
        if (len - at - sizeof h < h.name_len || h.bytes > REC_PAYLOAD_MAX ||
            h.bytes > len - at - sizeof h - h.name_len)
            return fail(err, size, "a record is cut short", at);
        Record r;
        memset(&r, 0, sizeof r);
        r.kind = (RecordKind)h.kind;
        memcpy(r.name, buf + at + sizeof h, h.name_len);
        r.name[h.name_len] = '\0';
        if (strlen(r.name) != h.name_len) return fail(err, size, "a record name holds a NUL", at);
        const unsigned char *p = buf + at + sizeof h + h.name_len;
        size_t start = at;
        at += sizeof h + h.name_len + (size_t)h.bytes;
        if (r.kind == REC_CASE) {
            if (only) keep = strcmp(r.name, only) == 0;
            continue;
        }
        if (!keep) continue;
        if (r.kind != REC_END && r.kind != REC_FAIL && !out->twice[0]) {
            for (int i = 0; i < out->n; i++)
                if (strcmp(out->recs[i].name, r.name) == 0) {
                    memcpy(out->twice, r.name, sizeof out->twice);
                    break;
                }
        }
        switch (r.kind) {
        case REC_I64:
        case REC_F64:
            if (h.bytes != 8) return fail(err, size, "a number record has the wrong size", start);
            if (r.kind == REC_I64)
                memcpy(&r.i64, p, 8);
            else
                memcpy(&r.f64, p, 8);
            break;
        case REC_F32S: {
            if (h.bytes % 4)
                return fail(err, size, "a float array's size is not a multiple of 4", start);
            r.n = (int64_t)(h.bytes / 4);
            float *f = malloc(h.bytes ? (size_t)h.bytes : 1);
            if (!f) return fail(err, size, "out of memory", start);
            memcpy(f, p, (size_t)h.bytes);
            r.f32 = f;
            break;
        }
        case REC_STR:
        case REC_FAIL: {
            char *s = malloc((size_t)h.bytes + 1);
            if (!s) return fail(err, size, "out of memory", start);
            memcpy(s, p, (size_t)h.bytes);
            s[h.bytes] = '\0';
            r.str = s;
            if (r.kind == REC_FAIL && !out->why) out->why = s;
            break;
        }
        case REC_END:
            out->ended = 1;
            break;
        default:
            return fail(err, size, "an unknown record kind", start);
        }
        if (push(out, &r) != 0) return fail(err, size, "out of memory", start);
    }
    return 0;
}

const Record *records_find(const RecordSet *set, const char *name)
{
    for (int i = set->n - 1; i >= 0; i--)
        if (strcmp(set->recs[i].name, name) == 0 && set->recs[i].kind != REC_END &&
            set->recs[i].kind != REC_FAIL)
            return &set->recs[i];
    return NULL;
}

void records_free(RecordSet *set)
{
    for (int i = 0; i < set->n; i++) {
        free((void *)set->recs[i].f32);
        free((void *)set->recs[i].str);
    }
    free(set->recs);
    memset(set, 0, sizeof *set);
}

const char *key(const char *fmt, ...)
{
    static char ring[16][REC_NAME_MAX + 1];
    static int next;
    char *k = ring[next++ % 16];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(k, REC_NAME_MAX + 1, fmt, ap);
    va_end(ap);
    return k;
}

static uint64_t handed_seed; /* a runner's, from the judge (grade_seed_set) */

void grade_seed_set(uint64_t seed)
{
    handed_seed = seed;
}

uint64_t grade_seed(void)
{
    if (handed_seed) return handed_seed;
    const char *s = getenv("GRADE_SEED");
    return s && *s ? strtoull(s, NULL, 10) : 0;
}

int grade_seed_choose(void)
{
    if (grade_seed() != 0) return 0;
    uint64_t seed = 0;
    FILE *f = fopen("/dev/urandom", "rb");
    if (f) {
        if (fread(&seed, sizeof seed, 1, f) != 1) seed = 0;
        fclose(f);
    }
    if (seed == 0) seed = (uint64_t)time(NULL) * 6364136223846793005ull ^ (uint64_t)clock();
    if (seed == 0) seed = 1;
    char text[32];
    snprintf(text, sizeof text, "%llu", (unsigned long long)seed);
    return setenv("GRADE_SEED", text, 1);
}
