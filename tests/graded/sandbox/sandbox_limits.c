/*
 * sandbox_limits.c: the limits a submission's processes run in (sandbox.h), its compile,
 * its static checks and its runners alike, and the user of its own its runners run as.
 *
 * The kernel's own accounting where it is offered: a control group per submission, of
 * cgroup v2 (memory.max, pids.max, cpu.max) where this process's group, or as root the
 * hierarchy's top, has those controllers enabled for its children, else of cgroup v1
 * (the memory, pids and cpu hierarchies, below this process's own groups), which root can
 * make on most machines. A group counts every process and thread of the submission
 * together, its private /tmp (a tmpfs is memory) included, and ends them all at once.
 * Where neither can be made, resource limits of each process (RLIMIT_AS for memory) and
 * a user of its own (RLIMIT_NPROC counts a user's processes) do what they can. File size
 * and CPU time are resource limits in every case (no group measures one file or one
 * process).
 *
 * The users: as root, each judge (and each compile) takes a user of its own from a pool
 * (GRADE_UIDS, default SANDBOX_UID_FIRST to SANDBOX_UID_LAST), held with a lock file in a
 * folder of root's, so that two submissions graded at once (make grade-all's workers, or
 * two make grade of any origin) never share one: not the thread limit, not a file.
 */
#define _GNU_SOURCE
#include "sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int switched_off(const char *layer)
{
    const char *off = getenv("GRADE_SANDBOX_LAYERS");
    if (!off) return 0;
    char want[32];
    snprintf(want, sizeof want, "-%s", layer);
    for (const char *p = strstr(off, want); p; p = strstr(p + 1, want)) {
        char after = p[strlen(want)];
        if ((p == off || p[-1] == ',' || p[-1] == ' ') &&
            (after == '\0' || after == ',' || after == ' '))
            return 1;
    }
    return 0;
}

int sandbox_layer_off(const char *layer)
{
    return switched_off(layer);
}

/* ---- small file helpers ------------------------------------------------------------------ */

static int put(const char *dir, const char *file, const char *text)
{
    char path[SANDBOX_PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = write(fd, text, strlen(text));
    int e = errno;
    close(fd);
    errno = e;
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

static int exists(const char *dir, const char *file)
{
    char path[SANDBOX_PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    return access(path, F_OK) == 0;
}

/* The text of a small file (at most @p size - 1 bytes), or -1. */
static ssize_t get(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t n = 0;
    ssize_t got;
    while (n < size - 1 && (got = read(fd, buf + n, size - 1 - n)) > 0) n += (size_t)got;
    close(fd);
    buf[n] = '\0';
    return (ssize_t)n;
}

/* Whether the space-separated @p list holds @p word. */
static int has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(list, word); p; p = strstr(p + 1, word))
        if ((p == list || p[-1] == ' ' || p[-1] == ',') &&
            (p[n] == '\0' || p[n] == ' ' || p[n] == ',' || p[n] == '\n'))
            return 1;
    return 0;
}

/* ---- where the groups are -------------------------------------------------------------- */

/* The folder of this process's group in the hierarchy of @p controller (v1: "memory";
 * v2: NULL), from /proc/self/mountinfo and /proc/self/cgroup; 0, or -1. @p top: the
 * hierarchy's top folder instead. */
static int group_dir(const char *controller, int top, char *out, size_t size)
{
    char info[65536];
    if (get("/proc/self/mountinfo", info, sizeof info) < 0) return -1;
    char mount_root[SANDBOX_PATH_MAX] = "", mount_point[SANDBOX_PATH_MAX] = "";
    for (char *line = strtok(info, "\n"); line; line = strtok(NULL, "\n")) {
        char root[SANDBOX_PATH_MAX], point[SANDBOX_PATH_MAX], fstype[64], opts[1024];
        const char *dash = strstr(line, " - ");
        if (!dash || sscanf(line, "%*s %*s %*s %4095s %4095s", root, point) != 2 ||
            sscanf(dash + 3, "%63s %*s %1023s", fstype, opts) != 2)
            continue;
        if (controller ? strcmp(fstype, "cgroup") == 0 && has_word(opts, controller)
                       : strcmp(fstype, "cgroup2") == 0) {
            snprintf(mount_root, sizeof mount_root, "%s", root);
            snprintf(mount_point, sizeof mount_point, "%s", point);
            break;
        }
    }
    if (!mount_point[0]) return -1;
    if (top) return snprintf(out, size, "%s", mount_point) < (int)size ? 0 : -1;
    char groups[8192];
    if (get("/proc/self/cgroup", groups, sizeof groups) < 0) return -1;
    for (char *line = strtok(groups, "\n"); line; line = strtok(NULL, "\n")) {
        char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
        if (!b) continue;
        *b = '\0';
        const char *names = a + 1, *path = b + 1;
        if (controller ? !has_word(names, controller) : (line[0] != '0' || names[0] != '\0'))
            continue;
        size_t n = strlen(mount_root);
        if (strcmp(mount_root, "/") != 0) { /* the mount shows only a part of the hierarchy */
            if (strncmp(path, mount_root, n) != 0) return -1;
            path += n;
        }
        return snprintf(out, size, "%s%s", mount_point, strcmp(path, "/") ? path : "") <
                       (int)size
                   ? 0
                   : -1;
    }
    return -1;
}

/* Remove the groups a grader left in @p parent when it was killed: wb-grade-PID-N whose PID
 * is gone (a group that still has processes cannot be removed, and is left). */
static void sweep(const char *parent)
{
    DIR *d = opendir(parent);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        int pid;
        if (sscanf(e->d_name, "wb-grade-%d-", &pid) != 1 || pid <= 0) continue;
        if (kill(pid, 0) == 0 || errno != ESRCH) continue;
        char path[SANDBOX_PATH_MAX + 256];
        snprintf(path, sizeof path, "%s/%s", parent, e->d_name);
        rmdir(path);
    }
    closedir(d);
}

static int serial;

/* Make wb-grade-PID-N below @p parent; its path in @p out. */
static int make_child(const char *parent, char *out, size_t size)
{
    sweep(parent);
    if (snprintf(out, size, "%s/wb-grade-%d-%d", parent, (int)getpid(), serial) >= (int)size)
        return -1;
    return mkdir(out, 0755);
}

static void text_of(long long v, char *buf, size_t size)
{
    snprintf(buf, size, "%lld", v);
}

/* cgroup v2: a child of @p parent with memory and pids (and cpu, where enabled). */
static int make_v2(SandboxGroup *g, const SandboxLimits *lim, const char *parent)
{
    char sub[512], path[SANDBOX_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/cgroup.subtree_control", parent);
    if (get(path, sub, sizeof sub) < 0 || !has_word(sub, "memory") ||
        !has_word(sub, "pids"))
        return -1;
    if (make_child(parent, g->dir[0], sizeof g->dir[0]) != 0) return -1;
    g->n = 1;
    char v[64];
    text_of(lim->memory_mb << 20, v, sizeof v);
    int rc = put(g->dir[0], "memory.max", v);
    if (!rc && exists(g->dir[0], "memory.swap.max")) rc = put(g->dir[0], "memory.swap.max", "0");
    text_of(lim->tasks, v, sizeof v);
    if (!rc) rc = put(g->dir[0], "pids.max", v);
    if (!rc && lim->cpus > 0 && has_word(sub, "cpu")) {
        snprintf(v, sizeof v, "%d 100000", lim->cpus * 100000);
        if (put(g->dir[0], "cpu.max", v) == 0) g->cpu = 1;
    }
    if (rc) {
        rmdir(g->dir[0]);
        g->n = 0;
        return -1;
    }
    g->kind = SANDBOX_GROUP_V2;
    return 0;
}

/* cgroup v1: a group of the memory hierarchy, and of pids and cpu where they are mounted. */
static int make_v1(SandboxGroup *g, const SandboxLimits *lim)
{
    char parent[SANDBOX_PATH_MAX], v[64];
    if (group_dir("memory", 0, parent, sizeof parent) != 0 ||
        make_child(parent, g->dir[0], sizeof g->dir[0]) != 0)
        return -1;
    g->n = 1;
    text_of(lim->memory_mb << 20, v, sizeof v);
    if (put(g->dir[0], "memory.limit_in_bytes", v) != 0 ||
        (exists(g->dir[0], "memory.memsw.limit_in_bytes") &&
         put(g->dir[0], "memory.memsw.limit_in_bytes", v) != 0)) {
        sandbox_group_remove(g);
        return -1;
    }
    g->kind = SANDBOX_GROUP_V1;
    if (group_dir("pids", 0, parent, sizeof parent) == 0 &&
        make_child(parent, g->dir[g->n], sizeof g->dir[0]) == 0) {
        text_of(lim->tasks, v, sizeof v);
        g->n++;
        if (put(g->dir[g->n - 1], "pids.max", v) == 0)
            g->pids = g->n - 1;
        else
            rmdir(g->dir[--g->n]);
    }
    if (lim->cpus > 0 && group_dir("cpu", 0, parent, sizeof parent) == 0 &&
        make_child(parent, g->dir[g->n], sizeof g->dir[0]) == 0) {
        text_of((long long)lim->cpus * 100000, v, sizeof v);
        g->n++;
        if (put(g->dir[g->n - 1], "cpu.cfs_period_us", "100000") == 0 &&
            put(g->dir[g->n - 1], "cpu.cfs_quota_us", v) == 0)
            g->cpu = 1;
        else
            rmdir(g->dir[--g->n]);
    }
    return 0;
}

int sandbox_group_make(SandboxGroup *g, const SandboxLimits *lim, char *why, size_t size)
{
    memset(g, 0, sizeof *g);
    g->pids = -1;
    g->owner = getpid();
    serial++;
    if (switched_off("cgroup")) {
        snprintf(why, size, "switched off (GRADE_SANDBOX_LAYERS)");
        return -1;
    }
    char dir[SANDBOX_PATH_MAX];
    if (group_dir(NULL, 0, dir, sizeof dir) == 0 && make_v2(g, lim, dir) == 0) return 0;
    if (geteuid() == 0 && group_dir(NULL, 1, dir, sizeof dir) == 0 && make_v2(g, lim, dir) == 0)
        return 0;
    if (make_v1(g, lim) == 0) return 0;
    snprintf(why, size, "no cgroup with memory and pids controllers to make one in (%s)",
             geteuid() == 0 ? "neither v2 with them enabled nor v1's"
                            : "no delegated v2 subtree with them enabled");
    memset(g, 0, sizeof *g);
    g->pids = -1;
    return -1;
}

int sandbox_group_join(const SandboxGroup *g)
{
    char pid[32];
    snprintf(pid, sizeof pid, "%d\n", (int)getpid());
    for (int i = 0; i < g->n; i++)
        if (put(g->dir[i], "cgroup.procs", pid) != 0) return -1;
    return 0;
}

/* The processes of the group, killed until none is left (or 2 s have passed). */
void sandbox_group_empty(const SandboxGroup *g)
{
    if (g->n == 0) return;
    if (g->kind == SANDBOX_GROUP_V2 && exists(g->dir[0], "cgroup.kill"))
        put(g->dir[0], "cgroup.kill", "1");
    const char *dir = g->dir[g->pids >= 0 ? g->pids : 0];
    char path[SANDBOX_PATH_MAX + 32], list[16384];
    snprintf(path, sizeof path, "%s/cgroup.procs", dir);
    for (int round = 0; round < 200; round++) {
        if (get(path, list, sizeof list) <= 0) return;
        for (char *p = strtok(list, "\n"); p; p = strtok(NULL, "\n"))
            if (atoi(p) > 0 && atoi(p) != getpid()) kill(atoi(p), SIGKILL);
        struct timespec ms = {0, 10000000};
        nanosleep(&ms, NULL);
    }
}

long long sandbox_group_oom_kills(const SandboxGroup *g)
{
    if (g->n == 0) return 0;
    char path[SANDBOX_PATH_MAX + 32], text[4096];
    snprintf(path, sizeof path, "%s/%s", g->dir[0],
             g->kind == SANDBOX_GROUP_V2 ? "memory.events" : "memory.oom_control");
    if (get(path, text, sizeof text) < 0) return 0;
    const char *p = strstr(text, "oom_kill ");
    return p ? atoll(p + 9) : 0;
}

void sandbox_group_remove(SandboxGroup *g)
{
    if (g->n == 0 || g->owner != getpid()) return;
    sandbox_group_empty(g);
    for (int i = g->n - 1; i >= 0; i--)
        for (int tries = 0; tries < 50 && rmdir(g->dir[i]) != 0 && errno == EBUSY; tries++) {
            struct timespec ms = {0, 10000000};
            nanosleep(&ms, NULL);
        }
    g->n = 0;
}

void sandbox_group_describe(const SandboxGroup *g, const SandboxLimits *lim, const char *why,
                            char *out, size_t size)
{
    char tasks[32] = "", cpus[32] = "";
    if (g->pids >= 0 || g->kind == SANDBOX_GROUP_V2)
        snprintf(tasks, sizeof tasks, ", %d tasks", lim->tasks);
    if (g->cpu) snprintf(cpus, sizeof cpus, ", %d CPUs", lim->cpus);
    if (g->n)
        snprintf(out, size, "a cgroup (%s) of its own: memory %lld MB%s%s",
                 g->kind == SANDBOX_GROUP_V2 ? "v2" : "v1", lim->memory_mb, tasks, cpus);
    else
        snprintf(out, size, "resource limits only (%lld MB of address space per process): %s",
                 lim->memory_mb, why && *why ? why : "no cgroup");
}

/* ---- resource limits --------------------------------------------------------------------- */

void sandbox_limits_set(const SandboxLimits *lim, int grouped)
{
    struct rlimit r = {0, 0};
    setrlimit(RLIMIT_CORE, &r);
    if (lim->file_mb > 0) {
        r.rlim_cur = r.rlim_max = (rlim_t)lim->file_mb << 20;
        setrlimit(RLIMIT_FSIZE, &r);
    }
    if (lim->cpu_s > 0) { /* SIGXCPU at the soft limit, SIGKILL 5 s later */
        r.rlim_cur = (rlim_t)lim->cpu_s;
        r.rlim_max = (rlim_t)lim->cpu_s + 5;
        setrlimit(RLIMIT_CPU, &r);
    }
    if (!grouped && lim->memory_mb > 0) {
        r.rlim_cur = r.rlim_max = (rlim_t)lim->memory_mb << 20;
        setrlimit(RLIMIT_AS, &r);
    }
}

/* ---- a user of its own ------------------------------------------------------------------- */

/* The pool: GRADE_UIDS=FIRST-LAST, or the default. */
static void pool(unsigned *first, unsigned *last)
{
    *first = SANDBOX_UID_FIRST;
    *last = SANDBOX_UID_LAST;
    const char *e = getenv("GRADE_UIDS");
    unsigned a, b;
    char end;
    if (e && sscanf(e, "%u-%u%c", &a, &b, &end) == 2 && a >= 1000 && a <= b &&
        b < 2147483647u)
        *first = a, *last = b;
}

/* The folder of the pool's locks: root's own, not writable by anyone else. */
static const char *lock_dir(void)
{
    static const char *const dirs[] = {"/run/wb-grade-users", "/tmp/wb-grade-users-root"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        mkdir(dirs[i], 0700);
        struct stat st;
        if (lstat(dirs[i], &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == 0 &&
            (st.st_mode & 077) == 0)
            return dirs[i];
    }
    return NULL;
}

int sandbox_uid_claim(unsigned *uid, int *lock_fd, char *err, size_t size)
{
    unsigned first, last;
    pool(&first, &last);
    const char *dir = lock_dir();
    if (!dir) {
        snprintf(err, size, "no folder of root's for the users' locks (/run or /tmp)");
        return -1;
    }
    /* start at a place of this process's own, so that workers starting together spread */
    unsigned n = last - first + 1, start = (unsigned)getpid() % n;
    for (int round = 0; round < 600; round++) {
        for (unsigned k = 0; k < n; k++) {
            unsigned u = first + (start + k) % n;
            if (getpwuid(u)) continue; /* someone's: never borrowed */
            char path[256];
            snprintf(path, sizeof path, "%s/%u", dir, u);
            int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
            if (fd < 0) continue;
            if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
                *uid = u;
                *lock_fd = fd;
                return 0;
            }
            close(fd);
        }
        struct timespec t = {0, 100000000}; /* all taken: wait for one (up to a minute) */
        nanosleep(&t, NULL);
    }
    snprintf(err, size, "every user of GRADE_UIDS (%u-%u) is in use", first, last);
    return -1;
}
