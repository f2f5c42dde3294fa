/* err.c: the thread-local last error. */
#include "lib/core/err.h"

#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

static _Thread_local char err_buf[1024];
static _Thread_local ErrCode err_last = ERR_OK;

/* A message is one line, whatever the values it quotes hold: a file's tensor name,
 * metadata value or key can hold a newline or any control character, and a message
 * that quotes it must not become two lines (or move the cursor). Such bytes are
 * written as C escapes: "\n", "\r", "\x1b". A message cut short stays one line. */
static void one_line(char *buf, size_t size)
{
    size_t n = strlen(buf), at = 0;
    bool any = false;
    for (size_t i = 0; i < n && !any; i++)
        any = (unsigned char)buf[i] < 0x20 && buf[i] != '\t';
    if (!any) return;
    char out[sizeof err_buf];
    size_t cap = size < sizeof out ? size : sizeof out;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)buf[i];
        char esc[5];
        int len = 1;
        if (c == '\n')
            len = 2, memcpy(esc, "\\n", 2);
        else if (c == '\r')
            len = 2, memcpy(esc, "\\r", 2);
        else if (c < 0x20 && c != '\t')
            len = snprintf(esc, sizeof esc, "\\x%02x", c);
        else
            esc[0] = (char)c;
        if (at + (size_t)len >= cap) break;
        memcpy(out + at, esc, (size_t)len);
        at += (size_t)len;
    }
    out[at] = '\0';
    memcpy(buf, out, at + 1);
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
