/* err.c: the thread-local last error. */
#include "lib/core/err.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char err_buf[1024];
static _Thread_local ErrCode err_last = ERR_OK;

bool err_invisible(unsigned long cp)
{
    static const unsigned long ranges[][2] = {
        {0x0, 0x1f},         {0x7f, 0x9f},         {0xad, 0xad},         {0x34f, 0x34f},
        {0x61c, 0x61c},      {0x115f, 0x1160},     {0x17b4, 0x17b5},     {0x180b, 0x180f},
        {0x200b, 0x200f},    {0x2028, 0x202e},     {0x2060, 0x206f},     {0x3164, 0x3164},
        {0xe000, 0xf8ff},    {0xfdd0, 0xfdef},     {0xfe00, 0xfe0f},     {0xfeff, 0xfeff},
        {0xffa0, 0xffa0},    {0xfff0, 0xfffb},     {0x1bca0, 0x1bca3},   {0x1d173, 0x1d17a},
        {0xe0000, 0xe007f},  {0xe0100, 0xe01ef},   {0xf0000, 0x10ffff},
    };
    if ((cp & 0xfffe) == 0xfffe) return true; /* U+xFFFE, U+xFFFF */
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
        if (cp >= ranges[i][0] && cp <= ranges[i][1]) return true;
    return false;
}

/* The UTF-8 sequence at s (n bytes left): its length, and *cp, or 0 when it is not valid
 * UTF-8 (a stray continuation byte, a short, overlong or surrogate sequence). */
static size_t utf8_next(const unsigned char *s, size_t n, unsigned long *cp)
{
    static const unsigned long least[] = {0, 0, 0x80, 0x800, 0x10000};
    size_t k = s[0] < 0x80 ? 1 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : s[0] >= 0xe0 && s[0] < 0xf0 ? 3
                               : s[0] >= 0xf0 && s[0] < 0xf5 ? 4 : 0;
    if (k == 0 || k > n) return 0;
    unsigned long c = k == 1 ? s[0] : s[0] & (0x7f >> k);
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        c = c << 6 | (s[i] & 0x3f);
    }
    if (c < least[k] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) return 0;
    *cp = c;
    return k;
}

/* How s (at most n bytes left) shows: *used bytes of s become the returned text (in esc,
 * of 20 bytes, or s itself when NULL is returned: copied as it is). */
static const char *escape_one(const char *s, size_t n, size_t *used, char esc[20])
{
    unsigned long cp;
    size_t k = utf8_next((const unsigned char *)s, n, &cp);
    *used = k ? k : 1;
    if (k == 0) {
        snprintf(esc, 20, "\\x%02x", (unsigned char)s[0]);
        return esc;
    }
    if (!err_invisible(cp)) return NULL;
    if (cp == '\n' || cp == '\r' || cp == '\t')
        snprintf(esc, 20, "\\%c", cp == '\n' ? 'n' : cp == '\r' ? 'r' : 't');
    else if (cp < 0x80)
        snprintf(esc, 20, "\\x%02lx", cp);
    else if (cp <= 0xffff)
        snprintf(esc, 20, "\\u%04lx", cp);
    else
        snprintf(esc, 20, "\\U%08lx", cp);
    return esc;
}

size_t err_plain_prefix(const char *s, size_t len)
{
    size_t at = 0, used;
    char esc[20];
    while (at < len && !escape_one(s + at, len - at, &used, esc)) at += used;
    return at;
}

const char *err_escape(const char *s, size_t len, size_t max, char *buf, size_t size)
{
    size_t out = 0, at = 0;
    char tail[40] = "";
    if (len > max) snprintf(tail, sizeof tail, "... (%zu bytes)", len);
    while (at < len && (at < max || !tail[0])) {
        char esc[20];
        size_t used;
        const char *e = escape_one(s + at, len - at, &used, esc);
        if (tail[0] && at + used > max) break; /* the character that does not fit */
        size_t n = e ? strlen(e) : used;
        if (out + n + 1 > size) break;
        memcpy(buf + out, e ? e : s + at, n);
        out += n;
        at += used;
    }
    size_t t = strlen(tail);
    if (t && out + t + 1 <= size) memcpy(buf + out, tail, t), out += t;
    if (size) buf[out < size ? out : size - 1] = '\0';
    return buf;
}

/* Append the zero-terminated t to buf (size bytes, *at used) as far as it fits. */
static void append(char *buf, size_t size, size_t *at, const char *t)
{
    size_t n = strlen(t);
    if (*at + 1 >= size) return;
    if (n > size - *at - 1) n = size - *at - 1;
    memcpy(buf + *at, t, n);
    *at += n;
    buf[*at] = '\0';
}

const char *err_quote(const char *s, size_t len, size_t max, char *buf, size_t size)
{
    size_t cut = len, at = 0;
    if (len > max) { /* between two characters */
        cut = max;
        while (cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80) cut--;
    }
    if (size) buf[0] = '\0';
    append(buf, size, &at, "\"");
    for (size_t i = 0; i < cut;) {
        size_t n = 0; /* a run without quotes and backslashes, of about 32 bytes at most */
        while (i + n < cut && n < 32 && s[i + n] != '"' && s[i + n] != '\\') n++;
        while (n >= 32 && i + n < cut && ((unsigned char)s[i + n] & 0xc0) == 0x80) n++;
        char shown[400];
        if (n) append(buf, size, &at, err_escape(s + i, n, n, shown, sizeof shown));
        i += n;
        if (i < cut && (s[i] == '"' || s[i] == '\\'))
            append(buf, size, &at, s[i++] == '"' ? "\\\"" : "\\\\");
    }
    char tail[48] = "\"";
    if (cut < len) snprintf(tail, sizeof tail, "...\" (%zu bytes)", len);
    append(buf, size, &at, tail);
    return buf;
}

/* A message is one line, whatever the values it quotes hold: a file's tensor name,
 * metadata value or key can hold a newline, a control character or a right-to-left
 * override, and a message that quotes it must not become two lines, move the cursor or
 * show another text than it holds. err_escape() writes such characters as escapes; what
 * it has escaped already is left as it is (it writes no character it would escape). */
static void one_line(char *buf, size_t size)
{
    size_t n = strlen(buf);
    if (err_plain_prefix(buf, n) == n) return;
    char out[sizeof err_buf];
    err_escape(buf, n, n, out, size < sizeof out ? size : sizeof out);
    memcpy(buf, out, strlen(out) + 1);
}

int err_set(ErrCode code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err_buf, sizeof err_buf, fmt, ap);
    va_end(ap);
    one_line(err_buf, sizeof err_buf);
    err_last = code;
    return (int)code;
}

int err_context(const char *fmt, ...)
{
    char prefix[512], old[sizeof err_buf];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, err_buf, sizeof old);
    /* Join by hand: a message that does not fit is cut short, which is fine. */
    size_t p = strlen(prefix), o = strlen(old), cap = sizeof err_buf - 1;
    if (p > cap) p = cap;
    memcpy(err_buf, prefix, p);
    if (p + 2 <= cap) {
        memcpy(err_buf + p, ": ", 2);
        p += 2;
    }
    if (o > cap - p) o = cap - p;
    memcpy(err_buf + p, old, o);
    err_buf[p + o] = '\0';
    one_line(err_buf, sizeof err_buf);
    return (int)err_last;
}

const char *err_message(void) { return err_buf; }

ErrCode err_code(void) { return err_last; }

void err_clear(void)
{
    err_buf[0] = '\0';
    err_last = ERR_OK;
}

const char *err_name(ErrCode code)
{
    switch (code) {
    case ERR_OK: return "ok";
    case ERR_ARG: return "bad argument";
    case ERR_SHAPE: return "shape";
    case ERR_DEVICE: return "device";
    case ERR_NOMEM: return "out of memory";
    case ERR_IO: return "i/o";
    case ERR_FORMAT: return "format";
    case ERR_TODO: return "exercise not written";
    case ERR_NUMERIC: return "numeric";
    case ERR_UNSUPPORTED: return "unsupported";
    }
    return "unknown";
}

int exercise_todo(const char *id, const char *function, const char *file)
{
    return err_set(ERR_TODO,
                   "exercise %s %s() is not written yet: fill it in in %s "
                   "(make hint EX=%s)",
                   id, function, file, id);
}

int exercise_result(int rc, const char *id, const char *function)
{
    if (rc == ERR_OK) return ERR_OK;
    /* An error the exercise reported itself (err_set), or a stub's TODO. */
    if (rc == (int)err_code() && err_message()[0]) return rc;
    return err_set(ERR_ARG, "exercise %s %s() returned %d without a message: return 0 when it "
                            "has done its work, or the error err_set gives",
                   id, function, rc);
}
