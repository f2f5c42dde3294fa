/* fileio.c: reads that look before they read. */
#define _POSIX_C_SOURCE 200809L
#include "lib/core/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/core/err.h"

const char *fileio_kind(mode_t mode)
{
    switch (mode & S_IFMT) {
    case S_IFREG:
        return "a regular file";
    case S_IFDIR:
        return "a directory";
    case S_IFIFO:
        return "a FIFO (named pipe)";
    case S_IFSOCK:
        return "a socket";
    case S_IFCHR:
        return "a character device";
    case S_IFBLK:
        return "a block device";
    case S_IFLNK:
        return "a symbolic link";
    }
    return "an unknown kind of file";
}

/* "a" or "an" before what. */
static const char *article(const char *what)
{
    return what[0] && strchr("aeiou", what[0]) ? "an" : "a";
}

/* ---- reading ------------------------------------------------------------------------ */

/* "PATH: 12345 bytes, more than ..." (size known), or "PATH: longer than ..." (it grew). */
static int too_big(const char *path, size_t max, const char *what, long long size)
{
    char got[48] = "longer than";
    if (size >= 0) snprintf(got, sizeof got, "%lld bytes, more than", size);
    return err_set(ERR_FORMAT, "%s: %s the %zu bytes %s %s may have (is it the right file?)", path,
                   got, max, article(what), what);
}

static int not_regular(const char *path, const char *what, mode_t mode)
{
    return err_set(ERR_IO, "%s: cannot read it as %s %s: it is %s, not a regular file", path,
                   article(what), what, fileio_kind(mode));
}

int fileio_open_read(const char *path, size_t max, const char *what, int *fd, size_t *size)
{
    *fd = -1;
    *size = 0;
    if (!path) return err_set(ERR_ARG, "fileio_open_read: the path is NULL");
    /* O_NONBLOCK: opening a FIFO without a writer (or a device that waits for a line)
     * returns at once, to be refused below, instead of waiting for ever. */
    int d = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (d < 0) {
        int e = errno;
        struct stat sb; /* a socket cannot be opened at all (ENXIO): say what it is */
        if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) return not_regular(path, what, sb.st_mode);
        return err_set(ERR_IO, "%s: cannot open: %s", path, strerror(e));
    }
    struct stat sb;
    if (fstat(d, &sb) != 0) {
        int e = errno;
        close(d);
        return err_set(ERR_IO, "%s: cannot read: %s", path, strerror(e));
    }
    if (!S_ISREG(sb.st_mode)) {
        close(d);
        return not_regular(path, what, sb.st_mode);
    }
    int flags = fcntl(d, F_GETFL);
    if (flags < 0 || fcntl(d, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        int e = errno;
        close(d);
        return err_set(ERR_IO, "%s: cannot read: %s", path, strerror(e));
    }
    if ((unsigned long long)sb.st_size > (unsigned long long)max) {
        close(d);
        return too_big(path, max, what, (long long)sb.st_size);
    }
    *fd = d;
    *size = (size_t)sb.st_size;
    return ERR_OK;
}

int fileio_read_fd(int fd, const char *path, size_t size, size_t max, const char *what,
                   char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    if (max > SIZE_MAX / 4) max = SIZE_MAX / 4; /* max + 1 and twice a buffer must fit */
    /* One more than the size: the end is seen without a second buffer. A /proc file
     * says 0 and a file may grow meanwhile: the buffer grows, up to one past max. */
    size_t cap = size < max ? size + 1 : max + 1;
    if (cap < 4096 && max >= 4096) cap = 4096;
    size_t n = 0;
    char *buf = malloc(cap + 1);
    int e = 0;
    while (buf) {
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) e = errno;
        if (got <= 0) break;
        n += (size_t)got;
        if (n > max) break;
        if (n < cap) continue;
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
    if (!buf) return err_set(ERR_NOMEM, "%s: out of memory reading the file", path);
    if (e) {
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

int fileio_read_max(const char *path, size_t max, const char *what, char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    int fd;
    size_t size;
    TRY(fileio_open_read(path, max, what, &fd, &size));
    int rc = fileio_read_fd(fd, path, size, max, what, text, len);
    close(fd);
    return rc;
}

int fileio_read(const char *path, char **text, size_t *len)
{
    return fileio_read_max(path, FILEIO_MAX_DEFAULT, "file", text, len);
}
