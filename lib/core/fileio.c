/* fileio.c: reads that look before they read, saves that only ever create their own file. */
#define _GNU_SOURCE /* fopencookie */
#include "lib/core/fileio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
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

/* ---- saving ------------------------------------------------------------------------- */

static FileioHooks g_hooks;

void fileio_set_hooks(const FileioHooks *hooks)
{
    if (hooks)
        g_hooks = *hooks;
    else
        memset(&g_hooks, 0, sizeof g_hooks);
}

static int sync_fd(int fd) { return g_hooks.fsync ? g_hooks.fsync(fd) : fsync(fd); }

static uint32_t random_part(void)
{
    if (g_hooks.random) return g_hooks.random();
    uint32_t r;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) == (ssize_t)sizeof r) return r;
    /* No entropy yet (early boot): the clock and a counter, still never opened twice. */
    static unsigned counter;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint32_t)ts.tv_nsec * 2654435761u ^ (uint32_t)ts.tv_sec ^ ++counter * 40503u;
}

static int step_failed(const char *path, const char *step, int e)
{
    return err_set(ERR_IO, "%s: cannot save: %s failed: %s", path, step, strerror(e ? e : EIO));
}

/* Whether the mode of a file (st) gives this process write permission: the owner's bit when
 * it is the owner, else the group's when it is in the group, else the others' (and the
 * system agrees: an ACL may say less). Root, whom the system lets write anything, is held
 * to the mode too: to the owner's bit of its own files, and to "someone may write it" of
 * others', so that a file made read-only is kept from root's saves as from anyone's. */
static bool may_write(const char *path, const struct stat *st)
{
    mode_t bit = S_IWOTH;
    if (geteuid() == st->st_uid) {
        bit = S_IWUSR;
    } else if (geteuid() == 0) {
        bit = S_IWUSR | S_IWGRP | S_IWOTH;
    } else if (getegid() == st->st_gid) {
        bit = S_IWGRP;
    } else {
        gid_t groups[256];
        int n = getgroups(256, groups);
        for (int i = 0; i < n; i++)
            if (groups[i] == st->st_gid) bit = S_IWGRP;
    }
    if (!(st->st_mode & bit)) return false;
    return faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0 || errno != EACCES;
}

/* The target, if there is one, is a regular file this process may write (or flags say to
 * replace it all the same): anything else is named and refused. *old is what lstat() said
 * of it (st_nlink 0 when there is none). */
static int check_target(const char *path, const char *what, unsigned flags, struct stat *old)
{
    memset(old, 0, sizeof *old);
    if (lstat(path, old) != 0) {
        int e = errno;
        memset(old, 0, sizeof *old);
        if (e == ENOENT || e == ENOTDIR) return ERR_OK; /* creating the file will tell */
        return err_set(ERR_IO, "%s: cannot save: cannot look at the path: %s", path, strerror(e));
    }
    if (!S_ISREG(old->st_mode))
        return err_set(ERR_IO, "%s: cannot save: it is %s, not a regular file; a save replaces "
                               "only a regular file (remove it, or save the %s elsewhere)",
                       path, fileio_kind(old->st_mode), what);
    /* As cp: a file this user may not write is not replaced behind its mode's back. */
    if (!(flags & FILEIO_REPLACE_READONLY) && !may_write(path, old))
        return err_set(ERR_IO, "%s: cannot save the %s: the file is read-only for this user "
                               "(mode %04o); a save does not replace it (make it writable with "
                               "chmod u+w, remove it, or save elsewhere)",
                       path, what, (unsigned)(old->st_mode & 07777));
    return ERR_OK;
}

/* The new file (fd) gets what the user set on the old one: its owner and group where this
 * process may set them, then its permissions (not the set-user-ID, set-group-ID and sticky
 * bits, which a rewrite drops as the kernel drops them on a write). A group that cannot be
 * kept takes no permissions: its members were not the old file's readers. Before any byte
 * is written, so the contents are never readable by more than the old file's readers. */
static int keep_mode(const char *path, const char *tmp, int fd, const struct stat *old)
{
    if (old->st_nlink == 0) return ERR_OK; /* a new file: 0666 less the umask */
    mode_t mode = old->st_mode & 0777;
    struct stat now;
    if (fstat(fd, &now) != 0) return step_failed(path, "looking at the temporary file", errno);
    /* (Only the calls needed: a file replaced by its owner needs none but fchmod.) */
    if ((now.st_uid != old->st_uid || now.st_gid != old->st_gid) &&
        fchown(fd, old->st_uid, old->st_gid) != 0 && fchown(fd, (uid_t)-1, old->st_gid) != 0 &&
        (fstat(fd, &now) != 0 || now.st_gid != old->st_gid))
        mode &= ~(mode_t)070;
    if ((now.st_mode & 07777) != mode && fchmod(fd, mode) != 0) {
        char step[4200];
        snprintf(step, sizeof step, "giving %s the mode %04o of the old file", tmp, (unsigned)mode);
        return step_failed(path, step, errno);
    }
    return ERR_OK;
}


/* The folder of path, where the temporary file goes and which is synced after the rename. */
static char *folder_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) return strdup(".");
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    char *dir = malloc(n + 1);
    if (dir) {
        memcpy(dir, path, n);
        dir[n] = '\0';
    }
    return dir;
}

enum { NAME_TRIES = 100 };

/* A new file PATH.tmp-PID-XXXXXXXX, created here and now: a name that exists (a file, a
 * planted link, a FIFO) is never opened, another is drawn. */
static int create_temp(const char *path, const char *dir, char *tmp, size_t size, int *fd)
{
    int e = EEXIST;
    for (int k = 0; k < NAME_TRIES && e == EEXIST; k++) {
        snprintf(tmp, size, "%s.tmp-%ld-%08x", path, (long)getpid(), (unsigned)random_part());
        *fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (*fd >= 0) return ERR_OK;
        e = errno;
    }
    if (e == EEXIST)
        return err_set(ERR_IO, "%s: cannot save: %d temporary names in %s were all taken (the "
                               "last: %s)",
                       path, NAME_TRIES, dir, tmp);
    const char *hint = e == ENOENT || e == ENOTDIR ? " (does the folder exist?)"
                       : e == EACCES || e == EROFS ? " (is the folder writable?)"
                                                   : "";
    return err_set(ERR_IO, "%s: cannot save: cannot create a temporary file in %s: %s%s", path,
                   dir, strerror(e), hint);
}

/* Remove what earlier saves of path left when they were killed: PATH.tmp-PID-XXXXXXXX files
 * whose process PID is gone. A file of a running process (another save going on now, in
 * this program or another) is left alone. Best effort: the save has succeeded already. */
static void remove_stale_temps(const char *path, const char *dir)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t blen = strlen(base);
    DIR *d = opendir(dir);
    if (!d) return;
    for (struct dirent *ent; (ent = readdir(d));) {
        const char *name = ent->d_name;
        if (strncmp(name, base, blen) != 0 || strncmp(name + blen, ".tmp-", 5) != 0) continue;
        const char *digits = name + blen + 5;
        size_t nd = strspn(digits, "0123456789");
        if (nd == 0 || nd > 9 || digits[nd] != '-' || strlen(digits + nd + 1) != 8 ||
            strspn(digits + nd + 1, "0123456789abcdef") != 8)
            continue;
        long pid = strtol(digits, NULL, 10);
        if (pid <= 0 || pid == (long)getpid()) continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue; /* alive, or not ours to judge */
        size_t need = strlen(dir) + 1 + strlen(name) + 1;
        char *full = malloc(need);
        if (!full) break;
        snprintf(full, need, "%s/%s", dir, name);
        unlink(full);
        free(full);
    }
    closedir(d);
}

/* Write, flush and sync the temporary file; closes fd. */
static int write_temp(const char *path, const char *tmp, int fd, FileioWriter write, void *ctx)
{
    char step[4200];
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        int e = errno;
        close(fd);
        return step_failed(path, "opening the temporary file", e);
    }
    int rc = write(f, ctx);
    if (rc == ERR_OK && (fflush(f) != 0 || ferror(f))) {
        snprintf(step, sizeof step, "writing %s", tmp);
        rc = step_failed(path, step, errno);
    }
    if (rc == ERR_OK && sync_fd(fileno(f)) != 0) {
        snprintf(step, sizeof step, "flushing %s to disk", tmp);
        rc = step_failed(path, step, errno);
    }
    if (fclose(f) != 0 && rc == ERR_OK) {
        snprintf(step, sizeof step, "closing %s", tmp);
        rc = step_failed(path, step, errno);
    }
    return rc;
}

/* A limit on the size of files (ulimit -f) is a write error the save reports, not a signal
 * that kills the process: SIGXFSZ is ignored from the first save on, unless the program
 * handles it itself. */
static void ignore_sigxfsz(void)
{
    struct sigaction old;
    if (sigaction(SIGXFSZ, NULL, &old) == 0 && old.sa_handler == SIG_DFL &&
        !(old.sa_flags & SA_SIGINFO))
        signal(SIGXFSZ, SIG_IGN);
}

/* The first steps of a save: the path, the target, and a new temporary file (*fd, named
 * *tmp in the folder *dir; free both) with the old file's mode. */
static int begin_save(const char *path, const char *what, unsigned flags, char **dir, char **tmp,
                      int *fd)
{
    *dir = *tmp = NULL;
    *fd = -1;
    if (!path || !*path) return err_set(ERR_ARG, "fileio_save: no path");
    size_t plen = strlen(path);
    if (path[plen - 1] == '/')
        return err_set(ERR_ARG, "%s: cannot save: the path ends in '/', a folder's name; name "
                                "the %s's file",
                       path, what);
    struct stat old;
    TRY(check_target(path, what, flags, &old));
    ignore_sigxfsz();
    size_t tmp_size = plen + 32;
    *dir = folder_of(path);
    *tmp = malloc(tmp_size);
    if (!*dir || !*tmp) return err_set(ERR_NOMEM, "%s: cannot save: out of memory", path);
    TRY(create_temp(path, *dir, *tmp, tmp_size, fd));
    return keep_mode(path, *tmp, *fd, &old);
}

int fileio_save_check(const char *path, const char *what)
{
    char *dir, *tmp;
    int fd, rc = begin_save(path, what ? what : "file", 0, &dir, &tmp, &fd);
    if (fd >= 0) {
        close(fd);
        unlink(tmp);
    }
    free(dir);
    free(tmp);
    return rc;
}

int fileio_save_with(const char *path, const char *what, unsigned flags, FileioWriter write,
                     void *ctx)
{
    if (!write) return err_set(ERR_ARG, "fileio_save: no writer");
    if (!what) what = "file";
    char *dir, *tmp;
    int fd, rc;
    struct stat now;
    rc = begin_save(path, what, flags, &dir, &tmp, &fd);
    if (rc != ERR_OK) {
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        goto done;
    }
    rc = write_temp(path, tmp, fd, write, ctx);
    /* Looked at again just before the rename: what appeared at the path meanwhile is
     * refused too. (A rename never writes through a link; it replaces the name.) */
    if (rc == ERR_OK) rc = check_target(path, what, flags, &now);
    if (rc == ERR_OK && rename(tmp, path) != 0) {
        char step[4200];
        int e = errno;
        snprintf(step, sizeof step, "renaming %s to %s", tmp, path);
        rc = step_failed(path, step, e);
    }
    if (rc != ERR_OK) {
        unlink(tmp);
        goto done;
    }
    /* The rename is durable only once the folder's entry is on disk. Some file systems
     * cannot sync a folder (EINVAL): there is nothing more to do. */
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0 || (sync_fd(dfd) != 0 && errno != EINVAL)) {
        int e = errno;
        rc = err_set(ERR_IO,
                     "%s: saved, but syncing the folder %s to disk failed: %s; the new file may "
                     "not survive a power cut",
                     path, dir, strerror(e));
    }
    if (dfd >= 0) close(dfd);
    remove_stale_temps(path, dir);
done:
    free(dir);
    free(tmp);
    return rc;
}

typedef struct Bytes {
    const void *data;
    size_t len;
} Bytes;

static int write_bytes(FILE *f, void *ctx)
{
    const Bytes *b = ctx;
    if (b->len) fwrite(b->data, 1, b->len, f); /* a short write sets f's error flag */
    return ERR_OK;
}

int fileio_save(const char *path, const char *what, FileioWriter write, void *ctx)
{
    return fileio_save_with(path, what, 0, write, ctx);
}

int fileio_save_bytes(const char *path, const char *what, const void *data, size_t len)
{
    Bytes b = {data, len};
    return fileio_save(path, what, write_bytes, &b);
}

/* ---- a stream saved when it is closed ----------------------------------------------- */

typedef struct SaveStream {
    char *path, *what;
    char *buf;
    size_t len, cap;
    bool failed; /* memory ran out: what is kept is not what was written */
} SaveStream;

static ssize_t stream_write(void *cookie, const char *data, size_t n)
{
    SaveStream *s = cookie;
    if (n > s->cap - s->len) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap - s->len < n) {
            if (cap > SIZE_MAX / 2) return s->failed = true, -1;
            cap *= 2;
        }
        char *bigger = realloc(s->buf, cap);
        if (!bigger) return s->failed = true, -1;
        s->buf = bigger;
        s->cap = cap;
    }
    memcpy(s->buf + s->len, data, n);
    s->len += n;
    return (ssize_t)n;
}

static int stream_close(void *cookie)
{
    SaveStream *s = cookie;
    int rc = s->failed ? err_set(ERR_NOMEM, "%s: cannot save: out of memory for its contents",
                                 s->path)
                       : fileio_save_bytes(s->path, s->what, s->buf, s->len);
    free(s->path);
    free(s->what);
    free(s->buf);
    free(s);
    return rc == ERR_OK ? 0 : EOF;
}

FILE *fileio_save_stream(const char *path, const char *what)
{
    SaveStream *s = calloc(1, sizeof *s);
    if (s) {
        s->path = strdup(path ? path : "");
        s->what = strdup(what ? what : "file");
    }
    FILE *f = s && s->path && s->what
                  ? fopencookie(s, "w", (cookie_io_functions_t){NULL, stream_write, NULL,
                                                                stream_close})
                  : NULL;
    if (!f) {
        if (s) free(s->path), free(s->what);
        free(s);
        err_set(ERR_NOMEM, "%s: out of memory for the file's contents", path ? path : "(null)");
    }
    return f;
}
