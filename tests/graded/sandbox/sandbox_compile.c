/*
 * sandbox_compile.c: the view a student's file is compiled in (sandbox.h, confine.c).
 *
 * The compiler reads what the file names: an #include is a path, any path. So it runs in a
 * file system of its own where the only files are the system's folders (its programs and
 * headers), read-only and without devices, the submission's copy, lib/ and kernels/,
 * read-only, the folder its output goes to, an empty /tmp and /dev/null: no answers, no
 * judges or reference records, no build tree, no link back into the repository (lib/..
 * is an empty folder), no device that never ends (/dev/zero) and no FIFO that never
 * answers. Made with a mount namespace (inside a user namespace when not root) and a
 * pivot_root; as root the compiler also runs as a user of its own. Where namespaces are
 * refused (a container), Landlock allows reading the same files and writing the same
 * folder; where neither is there, the compile sees the machine, and the static checks'
 * include check (check_student.pl) is what refuses a file that read outside it.
 */
#define _GNU_SOURCE
#include "sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The system's folders the compiler may read: its programs, libraries and headers. */
static const char *const system_dirs[] = {"/usr", "/etc", "/opt", "/bin", "/sbin", "/lib",
                                          "/lib32", "/lib64", "/libx32", NULL};

#define SAY(...) snprintf(err, size, __VA_ARGS__)

static int write_text(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* mkdir -p of @p path's parents (and of @p path itself when @p self). */
static void make_parents(char *path, int self)
{
    for (char *p = path + 1; (p = strchr(p, '/')); p++) {
        *p = '\0';
        mkdir(path, 0755);
        *p = '/';
    }
    if (self) mkdir(path, 0755);
}

static int set_attr(const char *path, unsigned long long set, int recursive)
{
    struct mount_attr attr = {.attr_set = set};
    if (syscall(SYS_mount_setattr, AT_FDCWD, path, recursive ? AT_RECURSIVE : 0, &attr,
                sizeof attr) == 0)
        return 0;
    if (errno != ENOSYS) return -1;
    unsigned long flags = MS_REMOUNT | MS_BIND;
    if (set & MOUNT_ATTR_RDONLY) flags |= MS_RDONLY;
    if (set & MOUNT_ATTR_NODEV) flags |= MS_NODEV;
    if (set & MOUNT_ATTR_NOSUID) flags |= MS_NOSUID;
    return mount(NULL, path, NULL, flags, NULL);
}

/* Bind what @p fd is (a folder or a file) at @p at under the new root @p top. */
static int bind_at(const char *top, int fd, const char *at, int writable, char *err, size_t size)
{
    char where[SANDBOX_PATH_MAX + 16], from[64];
    snprintf(where, sizeof where, "%s%s", top, at);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        SAY("%s: %s", at, strerror(errno));
        return -1;
    }
    make_parents(where, 0);
    if (S_ISDIR(st.st_mode)) {
        mkdir(where, 0755);
    } else {
        int f = open(where, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
        if (f >= 0) close(f);
    }
    snprintf(from, sizeof from, "/proc/self/fd/%d", fd);
    if (mount(from, where, NULL, MS_BIND | MS_REC, NULL) != 0 ||
        set_attr(where, MOUNT_ATTR_NODEV | MOUNT_ATTR_NOSUID | (writable ? 0 : MOUNT_ATTR_RDONLY),
                 1) != 0) {
        SAY("showing %s in the compile's view: %s", at, strerror(errno));
        return -1;
    }
    return 0;
}

static int open_all(const char *const *paths, int *fds, int max, int how, char *err,
                    size_t size)
{
    int n = 0;
    for (; paths && paths[n]; n++) {
        if (n == max) {
            SAY("too many paths for the compile's view");
            return -1;
        }
        fds[n] = open(paths[n], how | O_CLOEXEC);
        if (fds[n] < 0) {
            SAY("%s: %s", paths[n], strerror(errno));
            return -1;
        }
    }
    return n;
}

/* Copy the regular files and folders of @p from (open) into the folder @p to, owned by
 * @p owner (-1: as they come), at most @p left bytes in all: the submission's copy, which
 * the intake made for root alone, for a compiler that runs as another user. */
static int copy_tree(int from, const char *to, int owner, int depth, long long *left)
{
    int list = dup(from);
    DIR *d = list >= 0 ? fdopendir(list) : NULL;
    if (!d) return -1;
    if (owner >= 0 && chown(to, (uid_t)owner, (gid_t)owner) != 0) {
        closedir(d);
        return -1;
    }
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char path[SANDBOX_PATH_MAX + 300];
        if (snprintf(path, sizeof path, "%s/%s", to, e->d_name) >= (int)sizeof path) continue;
        int fd = openat(from, e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0) {
            if (fd >= 0) close(fd);
            continue;
        }
        if (S_ISDIR(st.st_mode) && depth < 4) {
            rc = mkdir(path, 0755) != 0 ? -1 : copy_tree(fd, path, owner, depth + 1, left);
        } else if (S_ISREG(st.st_mode) && st.st_size <= *left) {
            int out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
            char buf[65536];
            ssize_t n;
            while (out >= 0 && (n = read(fd, buf, sizeof buf)) > 0)
                if (write(out, buf, (size_t)n) != n) rc = -1;
            *left -= st.st_size;
            if (out < 0 || (owner >= 0 && fchown(out, (uid_t)owner, (gid_t)owner) != 0))
                rc = -1;
            if (out >= 0) close(out);
        }
        close(fd);
    }
    closedir(d);
    return rc;
}

int sandbox_compile_view(const CompileView *v, char *err, size_t size)
{
    int root = geteuid() == 0;
    uid_t uid = getuid();
    gid_t gid = getgid();
    if (unshare(CLONE_NEWNS | (root ? 0 : CLONE_NEWUSER)) != 0) {
        SAY("unshare: %s", strerror(errno));
        return -1;
    }
    if (!root) {
        char map[64];
        snprintf(map, sizeof map, "0 %u 1\n", (unsigned)gid);
        if (write_text("/proc/self/setgroups", "deny") != 0 ||
            write_text("/proc/self/gid_map", map) != 0) {
            SAY("a user namespace's group map: %s", strerror(errno));
            return -1;
        }
        snprintf(map, sizeof map, "0 %u 1\n", (unsigned)uid);
        if (write_text("/proc/self/uid_map", map) != 0) {
            SAY("a user namespace's user map: %s", strerror(errno));
            return -1;
        }
    }
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
        SAY("making the mounts private: %s", strerror(errno));
        return -1;
    }
    /* everything it will show, opened (in this namespace) before anything is covered */
    int reads[32], froms[8], writes[8], copies[8], systems[16], null_fd;
    int n_read = open_all(v->read, reads, 32, O_PATH, err, size);
    int n_from = n_read < 0 ? -1 : open_all(v->read_from, froms, 8, O_PATH, err, size);
    int n_write = n_from < 0 ? -1 : open_all(v->write, writes, 8, O_PATH, err, size);
    int n_copy = n_write < 0 ? -1 : open_all(v->copy, copies, 8, O_RDONLY | O_DIRECTORY, err, size);
    if (n_copy < 0) return -1;
    int n_sys = 0;
    for (const char *const *d = system_dirs; *d; d++) {
        struct stat st;
        if (lstat(*d, &st) == 0 && S_ISDIR(st.st_mode))
            systems[n_sys++] = open(*d, O_PATH | O_CLOEXEC);
    }
    null_fd = open("/dev/null", O_PATH | O_CLOEXEC);
    const char *top = "/tmp"; /* the new root, mounted where the old /tmp was */
    if (
        mount("tmpfs", top, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755") != 0) {
        SAY("the compile's root: %s", strerror(errno));
        return -1;
    }
    char at[SANDBOX_PATH_MAX + 16];
    int k = 0;
    for (const char *const *d = system_dirs; *d; d++) {
        struct stat st;
        snprintf(at, sizeof at, "%s%s", top, *d);
        if (lstat(*d, &st) != 0) continue;
        if (S_ISLNK(st.st_mode)) { /* /bin -> usr/bin */
            char target[SANDBOX_PATH_MAX];
            ssize_t n = readlink(*d, target, sizeof target - 1);
            if (n > 0 && (target[n] = '\0', symlink(target, at)) != 0) {
                SAY("%s in the compile's view: %s", *d, strerror(errno));
                return -1;
            }
        } else if (S_ISDIR(st.st_mode) && bind_at(top, systems[k++], *d, 0, err, size) != 0) {
            return -1;
        }
    }
    /* devices: /dev/null alone; temporary files: a /tmp of its own */
    snprintf(at, sizeof at, "%s/dev", top);
    mkdir(at, 0755);
    if (mount("tmpfs", at, "tmpfs", MS_NOSUID | MS_NODEV, "size=4k,mode=0755") != 0 ||
        bind_at(top, null_fd, "/dev/null", 1, err, size) != 0) {
        if (!err[0]) SAY("the compile's /dev: %s", strerror(errno));
        return -1;
    }
    snprintf(at, sizeof at, "%s/tmp", top);
    mkdir(at, 01777);
    if (mount("tmpfs", at, "tmpfs", MS_NOSUID | MS_NODEV, "size=512m,mode=1777") != 0) {
        SAY("the compile's /tmp: %s", strerror(errno));
        return -1;
    }
    /* the repository, and what is hidden, covered where a system folder shows them (a clone
     * under /opt) or made empty */
    snprintf(at, sizeof at, "%s%s", top, v->root);
    make_parents(at, 1);
    if (mount("tmpfs", at, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0755") != 0) {
        SAY("the compile's repository folder: %s", strerror(errno));
        return -1;
    }
    for (const char *const *h = v->hide; h && *h; h++) {
        snprintf(at, sizeof at, "%s%s", top, *h);
        struct stat st;
        if (lstat(at, &st) == 0 && S_ISDIR(st.st_mode) &&
            mount("tmpfs", at, "tmpfs", MS_NOSUID | MS_NODEV | MS_RDONLY, "size=4k") != 0) {
            SAY("hiding %s from the compile: %s", *h, strerror(errno));
            return -1;
        }
    }
    for (int i = 0; i < n_read; i++)
        if (bind_at(top, reads[i], v->read[i], 0, err, size) != 0) return -1;
    for (int i = 0; i < n_from; i++)
        if (bind_at(top, froms[i], v->read_to[i], 0, err, size) != 0) return -1;
    for (int i = 0; i < n_write; i++)
        if (bind_at(top, writes[i], v->write[i], 1, err, size) != 0) return -1;
    for (int i = 0; i < n_copy; i++) {
        snprintf(at, sizeof at, "%s%s", top, v->copy[i]);
        make_parents(at, 1);
        long long left = 16 << 20;
        if (mount("tmpfs", at, "tmpfs", MS_NOSUID | MS_NODEV, "size=16m,mode=0755") != 0 ||
            copy_tree(copies[i], at, root && v->drop_user ? (int)v->uid : -1, 0, &left) != 0 ||
            mount(NULL, at, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV,
                  NULL) != 0) {
            SAY("a copy of %s in the compile's view: %s", v->copy[i], strerror(errno));
            return -1;
        }
    }
    /* the new root, and the old one gone */
    snprintf(at, sizeof at, "%s/.old", top);
    mkdir(at, 0700);
    if (syscall(SYS_pivot_root, top, at) != 0 || chdir("/") != 0 ||
        umount2("/.old", MNT_DETACH) != 0 || rmdir("/.old") != 0) {
        SAY("pivot_root: %s", strerror(errno));
        return -1;
    }
    /* the folders made on the way: read-only too */
    if (mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) !=
            0 ||
        mount(NULL, v->root, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV,
              NULL) != 0) {
        SAY("the compile's folders read-only: %s", strerror(errno));
        return -1;
    }
    if (chdir(v->root) != 0) {
        SAY("chdir %s: %s", v->root, strerror(errno));
        return -1;
    }
    for (int i = 0; i < n_read; i++) close(reads[i]);
    for (int i = 0; i < n_from; i++) close(froms[i]);
    for (int i = 0; i < n_write; i++) close(writes[i]);
    for (int i = 0; i < n_copy; i++) close(copies[i]);
    for (int i = 0; i < n_sys; i++) close(systems[i]);
    close(null_fd);
    if (root && v->drop_user && sandbox_become(v->uid, err, size) != 0) return -1;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        SAY("no_new_privs: %s", strerror(errno));
        return -1;
    }
    setenv("TMPDIR", "/tmp", 1);
    return 0;
}

int sandbox_compile_landlock(const CompileView *v, const char *tmp, char *err, size_t size)
{
    const char *show[64], *write[16];
    int s = 0, w = 0;
    for (const char *const *d = system_dirs; *d && s < 20; d++) show[s++] = *d;
    for (const char *const *r = v->read; r && *r && s < 50; r++) show[s++] = *r;
    for (const char *const *r = v->read_from; r && *r && s < 60; r++) show[s++] = *r;
    for (const char *const *r = v->copy; r && *r && s < 62; r++) show[s++] = *r;
    show[s] = NULL;
    for (const char *const *d = v->write; d && *d && w < 12; d++) write[w++] = *d;
    write[w++] = tmp;
    write[w] = NULL;
    /* the repository hidden (but what is shown inside it), with what the grader hides */
    const char *hide[80];
    int h = 0;
    hide[h++] = v->root;
    for (const char *const *p = v->hide; p && *p && h < 78; p++) hide[h++] = *p;
    hide[h] = NULL;
    SandboxLandlock rules = {.write = write, .show = show, .hide = hide, .read_all = 0};
    if (sandbox_landlock_confine(&rules, err, size) != 0) return -1;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        SAY("no_new_privs: %s", strerror(errno));
        return -1;
    }
    setenv("TMPDIR", tmp, 1);
    return 0;
}
