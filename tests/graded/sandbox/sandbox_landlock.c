/*
 * sandbox_landlock.c: Landlock, the layer of the sandbox (sandbox.h) that confines what a
 * process may read and write by path, without namespaces: for a runner, writes only below
 * its scratch folder and nothing hidden read; for a compile, reads only of what its view
 * would show, writes only to its output folder.
 */
#define _GNU_SOURCE
#include "sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int sandbox_landlock_abi(void)
{
#ifdef SYS_landlock_create_ruleset
    long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    return v > 0 ? (int)v : 0;
#else
    errno = ENOSYS;
    return 0;
#endif
}

#define LL_WRITES                                                                                  \
    (LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |                               \
     LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | \
     LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |   \
     LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM)

#define LL_READS (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
/* What a rule on a file (not a folder) may grant. */
#define LL_FILE_RIGHTS                                                                             \
    (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_EXECUTE)

static int allow_fd(int ruleset, int fd, __u64 access)
{
    struct landlock_path_beneath_attr pb = {.allowed_access = access, .parent_fd = fd};
    return syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) == 0 ? 0
                                                                                            : -1;
}

static int allow_path(int ruleset, const char *path, __u64 access)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) access &= LL_FILE_RIGHTS;
    int rc = allow_fd(ruleset, fd, access);
    close(fd);
    return rc;
}

/* A path the reading rules hide or show (absolute, resolved). */
typedef struct Seen {
    char path[4096];
    int shown; /* 1: shown; 0: hidden */
} Seen;

/* Whether @p path is @p dir or below it. */
static int below(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/') return 1;
    return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* Whether @p path may be read: the innermost of @p seen that holds it decides, and where
 * none does, @p fallback. */
static int readable(const char *path, const Seen *seen, int n, int fallback)
{
    size_t best = 0;
    int shown = fallback;
    for (int i = 0; i < n; i++)
        if (below(path, seen[i].path) && strlen(seen[i].path) >= best) {
            best = strlen(seen[i].path);
            shown = seen[i].shown;
        }
    return shown;
}

/* Reading allowed where readable() says so: a rule for each folder or file of @p dir that
 * holds none of @p seen and may be read, and the same again inside each that holds one. A
 * symbolic link needs no rule (what it points to has its own). Landlock only allows, so
 * "everything but" is written as what is left. */
static int allow_reading(int ruleset, const char *dir, const Seen *seen, int n, int fallback,
                         int depth)
{
    DIR *d = opendir(dir);
    if (!d) return depth ? 0 : -1; /* (a folder the grader cannot list: nothing to allow) */
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char path[4096];
        if (snprintf(path, sizeof path, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", e->d_name) >=
            (int)sizeof path)
            continue;
        int holds = 0;
        for (int i = 0; i < n; i++)
            if (strcmp(seen[i].path, path) != 0 && below(seen[i].path, path)) holds = 1;
        struct stat st;
        if (lstat(path, &st) != 0 || S_ISLNK(st.st_mode)) continue;
        if (holds && S_ISDIR(st.st_mode) && depth < 32) {
            rc = allow_reading(ruleset, path, seen, n, fallback, depth + 1);
            continue;
        }
        if (!readable(path, seen, n, fallback)) continue;
        int fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) continue;
        rc = allow_fd(ruleset, fd, S_ISDIR(st.st_mode) ? LL_READS : LANDLOCK_ACCESS_FS_READ_FILE);
        close(fd);
    }
    closedir(d);
    return rc;
}

int sandbox_landlock_confine(const SandboxLandlock *rules, char *err, size_t size)
{
    int restrict_reads = rules->hide || rules->show;
    int abi = sandbox_landlock_abi();
    __u64 handled = LL_WRITES | (restrict_reads ? LL_READS : 0);
    if (abi >= 2) handled |= LANDLOCK_ACCESS_FS_REFER;
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
    if (abi >= 3) handled |= LANDLOCK_ACCESS_FS_TRUNCATE;
#endif
    struct landlock_ruleset_attr attr = {.handled_access_fs = handled};
    int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
    if (rs < 0) {
        snprintf(err, size, "Landlock: %s", strerror(errno));
        return -1;
    }
    /* the written folders: anything; /dev/null: written to (and read) */
    __u64 file_writes = LANDLOCK_ACCESS_FS_WRITE_FILE;
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
    if (handled & LANDLOCK_ACCESS_FS_TRUNCATE) file_writes |= LANDLOCK_ACCESS_FS_TRUNCATE;
#endif
    __u64 null_access = file_writes | (handled & LANDLOCK_ACCESS_FS_READ_FILE);
    for (const char *const *w = rules->write; w && *w; w++)
        if (allow_path(rs, *w, handled) != 0) {
            snprintf(err, size, "Landlock rule for %s: %s", *w, strerror(errno));
            close(rs);
            return -1;
        }
    if (allow_path(rs, "/dev/null", null_access) != 0) {
        snprintf(err, size, "Landlock rule for /dev/null: %s", strerror(errno));
        close(rs);
        return -1;
    }
    /* the regular files among the kept descriptors (the runner itself, the student's shared
     * object: their paths may be hidden), which loading them again reads and executes */
    for (int fd = 0; fd < rules->keep_fds; fd++) {
        struct stat st;
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
            allow_fd(rs, fd, LL_FILE_RIGHTS & handled) != 0) {
            snprintf(err, size, "Landlock rule for descriptor %d: %s", fd, strerror(errno));
            close(rs);
            return -1;
        }
    }
    if (restrict_reads) {
        static Seen seen[130];
        int n = 0;
        for (const char *const *h = rules->hide; h && *h && n < 64; h++)
            if (realpath(*h, seen[n].path)) seen[n++].shown = 0;
        for (const char *const *s = rules->show; s && *s && n < 128; s++)
            if (realpath(*s, seen[n].path)) seen[n++].shown = 1;
        if (allow_reading(rs, "/", seen, n, rules->read_all, 0) != 0) {
            snprintf(err, size, "Landlock rules for reading: %s", strerror(errno));
            close(rs);
            return -1;
        }
    }
    if (syscall(SYS_landlock_restrict_self, rs, 0) != 0) {
        snprintf(err, size, "Landlock: %s", strerror(errno));
        close(rs);
        return -1;
    }
    close(rs);
    return 0;
}
