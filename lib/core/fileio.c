/* fileio.c: whole-file reads, with a limit on their size. */
#define _POSIX_C_SOURCE 200809L /* fileno */
#include "lib/core/fileio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/core/err.h"

int fileio_read(const char *path, char **text, size_t *len)
{
    return fileio_read_max(path, FILEIO_MAX_DEFAULT, "file", text, len);
}

/* "PATH: 12345 bytes, more than ..." (a regular file), or "PATH: longer than ..." (a stream). */
static int too_big(const char *path, size_t max, const char *what, long long size)
{
    char got[48] = "longer than";
    if (size >= 0) snprintf(got, sizeof got, "%lld bytes, more than", size);
    return err_set(ERR_FORMAT, "%s: %s the %zu bytes a%s %s may have (is it the right file?)",
                   path, got, max, what[0] && strchr("aeiou", what[0]) ? "n" : "", what);
}

int fileio_read_max(const char *path, size_t max, const char *what, char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    if (max > SIZE_MAX / 4) max = SIZE_MAX / 4; /* max + 1 and twice a buffer must fit */
    FILE *f = fopen(path, "rb");
    if (!f) return err_set(ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    /* A regular file says its size: one buffer of that size, and a file over the
     * limit is refused before anything is read. Anything else grows a buffer. */
    struct stat sb;
    size_t cap = (size_t)1 << 16;
    if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode)) {
        if ((unsigned long long)sb.st_size > (unsigned long long)max) {
            fclose(f);
            return too_big(path, max, what, (long long)sb.st_size);
        }
        /* one more: the end is seen without a second buffer (a /proc file says 0) */
        cap = (size_t)sb.st_size + 1 > cap ? (size_t)sb.st_size + 1 : cap;
    }
    if (cap > max + 1) cap = max + 1;
    size_t n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap || n > max) break; /* the end (or an error), or over the limit */
        size_t bigger_cap = cap > max / 2 ? max + 1 : 2 * cap;
        char *bigger = realloc(buf, bigger_cap + 1);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap = bigger_cap;
    }
    int failed = ferror(f), e = errno;
    fclose(f);
    if (!buf) return err_set(ERR_NOMEM, "%s: out of memory reading the file", path);
    if (failed) {
        free(buf);
        return err_set(ERR_IO, "%s: cannot read: %s", path, strerror(e));
    }
    if (n > max) {
        free(buf);
        return too_big(path, max, what, -1);
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return ERR_OK;
}
