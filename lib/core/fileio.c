/* fileio.c: whole-file reads. */
#include "lib/core/fileio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/err.h"

int fileio_read(const char *path, char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return err_set(ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap) break;
        char *bigger = realloc(buf, 2 * cap + 1);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    int failed = ferror(f);
    fclose(f);
    if (!buf) return err_set(ERR_NOMEM, "%s: out of memory reading the file", path);
    if (failed) {
        int e = errno;
        free(buf);
        return err_set(ERR_IO, "%s: cannot read: %s", path, strerror(e));
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return ERR_OK;
}
