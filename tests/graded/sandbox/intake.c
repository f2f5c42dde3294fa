/*
 * intake.c: a submission is copied, never followed (make grade, grade-all, Gradescope).
 *
 *   intake --from DIR --to NEW [--stubs DIR] [--loose NN] FILE...
 *
 * FILE is a path under DIR such as 01_cpu_baseline/exercises.c. Each is copied from
 * DIR into NEW (a folder intake makes, readable by its owner only), and only what is
 * copied is compiled. What is not a regular file of its own is refused and named: a
 * symbolic link (anywhere on the way: the folder, the lesson's folder, the file), a
 * file with more than one name (a hard link: its other name may be the answers), a
 * FIFO, a socket, a device, a folder; so is a file over 1 MiB. A refusal is written
 * beside the copy as FILE.refused (one line) and the grader scores that lesson 0 with
 * it; the other files are copied. Files are opened without following links, without
 * blocking and without becoming a terminal, and checked on the open descriptor, so
 * nothing can be swapped between the check and the copy.
 *
 * --stubs DIR: a file the submission lacks is taken from DIR (the untouched stubs), as
 * Gradescope's run_autograder wants for lessons not handed in. --loose NN: for an
 * assignment of one lesson, a file the submission holds at its top (exercises.c) is
 * lesson NN's.
 *
 * Exit status: 0 when every file was copied or refused with its reason; 2 on bad
 * arguments or when NEW cannot be made.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/core/fileio.h"

#define FILE_MAX (1 << 20)

/* A name as shown in a message: printable ASCII, the rest as \xNN. */
static void shown(const char *s, char *out, size_t size)
{
    size_t n = 0;
    for (const unsigned char *u = (const unsigned char *)s; *u && n + 5 < size; u++)
        n += (size_t)(*u >= 0x20 && *u < 0x7f && *u != '\\'
                          ? snprintf(out + n, size - n, "%c", *u)
                          : snprintf(out + n, size - n, "\\x%02x", *u));
    out[n] = '\0';
}

/* Why the entry @p name of folder @p dirfd cannot be taken, "" if it is a plain folder
 * (want_dir) or a plain file. */
static void why_not(int dirfd, const char *name, int want_dir, char *why, size_t size)
{
    struct stat st;
    why[0] = '\0';
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        snprintf(why, size, "cannot be read (%s)", strerror(errno));
        return;
    }
    if (S_ISLNK(st.st_mode)) {
        char target[512] = "", t[600];
        ssize_t n = readlinkat(dirfd, name, target, sizeof target - 1);
        target[n > 0 ? n : 0] = '\0';
        shown(target, t, sizeof t);
        snprintf(why, size,
                 "is a symbolic link (to %s): the grader copies files, never what a link "
                 "points to; hand in the file itself",
                 t);
    } else if (want_dir && !S_ISDIR(st.st_mode)) {
        snprintf(why, size, "is %s, not a directory", fileio_kind(st.st_mode));
    } else if (!want_dir && !S_ISREG(st.st_mode)) {
        snprintf(why, size, "is %s, not a regular file: hand in the file itself",
                 fileio_kind(st.st_mode));
    }
}

/* Open @p rel under @p root without following a link on the way; -1 with a reason. */
static int open_beneath(int root, const char *rel, char *why, size_t size, char *at, size_t at_size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", rel);
    int dir = dup(root);
    char *part = path, *slash;
    while ((slash = strchr(part, '/'))) {
        *slash = '\0';
        int next = openat(dir, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0) {
            if (errno == ENOENT) {
                close(dir);
                errno = ENOENT;
                return -1;
            }
            why_not(dir, part, 1, why, size);
            snprintf(at, at_size, "%.*s", (int)(slash - path), path);
            close(dir);
            return -1;
        }
        close(dir);
        dir = next;
        part = slash + 1;
    }
    int fd = openat(dir, part, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (e != ENOENT) {
            why_not(dir, part, 0, why, size);
            if (!why[0]) snprintf(why, size, "cannot be read (%s)", strerror(e));
            snprintf(at, at_size, "%s", rel);
        }
        close(dir);
        errno = e;
        return -1;
    }
    close(dir);
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, size, "is %s, not a regular file: hand in the file itself",
                 fileio_kind(st.st_mode));
        snprintf(at, at_size, "%s", rel);
        close(fd);
        return -1;
    }
    if (st.st_nlink != 1) {
        snprintf(why, size,
                 "has %lu names (a hard link): its other name may be any file, so the grader "
                 "takes only a file of its own; hand in a copy",
                 (unsigned long)st.st_nlink);
        snprintf(at, at_size, "%s", rel);
        close(fd);
        return -1;
    }
    if (st.st_size > FILE_MAX) {
        snprintf(why, size, "is %lld bytes, more than the %d a file of exercises may have",
                 (long long)st.st_size, FILE_MAX);
        snprintf(at, at_size, "%s", rel);
        close(fd);
        return -1;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return fd;
}

/* mkdir -p of the folders of @p rel under @p to (made by this run, so no link is there). */
static int make_parents(const char *to, const char *rel)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", to, rel);
    for (char *p = path + strlen(to) + 1; (p = strchr(p, '/')); p++) {
        *p = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return 0;
}

/* Copy the open descriptor @p in to @p path, a new file. */
static int copy_to(int in, const char *path)
{
    int out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (out < 0) return -1;
    char buf[65536];
    ssize_t n;
    long long total = 0;
    while ((n = read(in, buf, sizeof buf)) > 0) {
        total += n;
        if (total > FILE_MAX || write(out, buf, (size_t)n) != n) {
            close(out);
            unlink(path);
            errno = total > FILE_MAX ? EFBIG : errno;
            return -1;
        }
    }
    if (n < 0 || close(out) != 0) {
        unlink(path);
        return -1;
    }
    return 0;
}

/* FILE.refused: "refused: WHERE WHY", WHERE being FROM/AT (or FROM alone). */
static int refuse(const char *to, const char *rel, const char *from, const char *at,
                  const char *why)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s.refused", to, rel);
    FILE *f = fopen(path, "wx");
    if (!f) return -1;
    char where[1100], folder[1100];
    shown(at ? at : "", where, sizeof where);
    shown(from, folder, sizeof folder);
    fprintf(f, "refused: %s%s%s %s\n", folder, at ? "/" : "", where, why);
    return fclose(f);
}

int main(int argc, char **argv)
{
    const char *from = NULL, *to = NULL, *stubs = NULL, *loose = NULL;
    int first = argc;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--from") == 0 && i + 1 < argc) from = argv[++i];
        else if (strcmp(argv[i], "--to") == 0 && i + 1 < argc) to = argv[++i];
        else if (strcmp(argv[i], "--stubs") == 0 && i + 1 < argc) stubs = argv[++i];
        else if (strcmp(argv[i], "--loose") == 0 && i + 1 < argc) loose = argv[++i];
        else if (argv[i][0] == '-') {
            fprintf(stderr, "intake: unknown option %s\n", argv[i]);
            return 2;
        } else {
            first = i;
            break;
        }
    }
    if (!from || !to || first == argc) {
        fprintf(stderr, "usage: intake --from DIR --to NEW [--stubs DIR] [--loose NN] FILE...\n");
        return 2;
    }
    if (mkdir(to, 0700) != 0) {
        fprintf(stderr, "intake: cannot make %s: %s\n", to, strerror(errno));
        return 2;
    }
    /* The folder itself: not a link either (a class folder's entry may be one). */
    char root_why[700] = "";
    struct stat st;
    int root = -1;
    if (lstat(from, &st) != 0)
        snprintf(root_why, sizeof root_why, "cannot be read (%s)", strerror(errno));
    else if (S_ISLNK(st.st_mode))
        why_not(AT_FDCWD, from, 1, root_why, sizeof root_why);
    else if (!S_ISDIR(st.st_mode))
        snprintf(root_why, sizeof root_why, "is %s, not a directory", fileio_kind(st.st_mode));
    else if ((root = open(from, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
        snprintf(root_why, sizeof root_why, "cannot be read (%s)", strerror(errno));
    int stub_root = stubs ? open(stubs, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    for (int i = first; i < argc; i++) {
        const char *rel = argv[i];
        if (rel[0] == '/' || strstr(rel, "..")) {
            fprintf(stderr, "intake: %s is not a path under the submission\n", rel);
            return 2;
        }
        if (make_parents(to, rel) != 0) {
            fprintf(stderr, "intake: cannot make the folders of %s: %s\n", rel, strerror(errno));
            return 2;
        }
        char dst[2048], why[800] = "", at[1100] = "";
        snprintf(dst, sizeof dst, "%s/%s", to, rel);
        if (root < 0) {
            if (refuse(to, rel, from, NULL, root_why) != 0) return 2;
            continue;
        }
        int fd = open_beneath(root, rel, why, sizeof why, at, sizeof at);
        if (fd < 0 && !why[0] && loose) {
            /* one lesson handed in loose: 02_device_transfer/exercises.cu from exercises.cu */
            const char *base = strrchr(rel, '/');
            if (base && strncmp(rel, loose, strlen(loose)) == 0 && rel[strlen(loose)] == '_')
                fd = open_beneath(root, base + 1, why, sizeof why, at, sizeof at);
        }
        if (fd < 0 && !why[0] && stub_root >= 0)
            fd = openat(stub_root, rel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 && why[0]) {
            if (refuse(to, rel, from, at, why) != 0) return 2;
            continue;
        }
        if (fd < 0) continue; /* not handed in: the lesson does not compile, as before */
        int rc = copy_to(fd, dst);
        close(fd);
        if (rc != 0) {
            snprintf(why, sizeof why, "could not be copied (%s)", strerror(errno));
            if (refuse(to, rel, from, rel, why) != 0) return 2;
        }
    }
    return 0;
}
