/*
 * sandbox_guard.c: what a runner that starts mpirun lets the processes it starts exec
 * (sandbox.h, sandbox_guard_exec).
 *
 * A case that runs as several ranks is started by a runner that loads no student code
 * and installs no system-call filter: it runs mpirun, which must fork and exec the ranks.
 * The ranks load the student's code under the filter, but they talk to mpirun over a
 * socket, and mpirun does what they ask: MPI_Comm_spawn is a request to start any
 * program, outside every rank's filter. So before it starts mpirun, the runner gives
 * itself (and so everything it starts) a second filter that hands each execve and
 * execveat to a thread of its own, which lets through only the programs it was told,
 * as many times as it was told: mpirun once, and one rank program per rank. Every rank
 * is started before any of them returns from MPI_Init (its first collective), and so
 * before any student code runs, so the count is spent by then.
 */
#define _GNU_SOURCE
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define GUARD_PROGRAMS 4

static struct {
    pthread_mutex_t lock;
    int fd;                              /* the filter's notification descriptor */
    char programs[GUARD_PROGRAMS][4096]; /* what may be exec'ed */
    int n_programs;
    int left; /* how many more execs */
} guard = {PTHREAD_MUTEX_INITIALIZER, -1, {{0}}, 0, 0};

/* The path a process passed to execve, read from its memory; 0, or -1. */
static int read_path(pid_t pid, unsigned long long addr, char *out, size_t size)
{
    char mem[64];
    snprintf(mem, sizeof mem, "/proc/%d/mem", (int)pid);
    int fd = open(mem, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = pread(fd, out, size - 1, (off_t)addr);
    close(fd);
    if (n <= 0) return -1;
    out[n] = '\0';
    return strnlen(out, (size_t)n) < (size_t)n ? 0 : -1;
}

/* Allowed: an execve of a listed program, while the count lasts. */
static int allowed(const struct seccomp_notif *req)
{
    char path[4096];
    if (req->data.nr != __NR_execve ||
        read_path((pid_t)req->pid, req->data.args[0], path, sizeof path) != 0)
        return 0;
    /* (the process may have died and its pid been reused while we read) */
    __u64 id = req->id;
    if (ioctl(guard.fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) != 0) return 0;
    int ok = 0;
    pthread_mutex_lock(&guard.lock);
    for (int i = 0; i < guard.n_programs && guard.left > 0 && !ok; i++)
        if (strcmp(path, guard.programs[i]) == 0) ok = 1;
    if (ok) guard.left--;
    pthread_mutex_unlock(&guard.lock);
    if (!ok)
        dprintf(2,
                "grader sandbox: refused to start %s: the ranks' launcher starts only its "
                "ranks\n",
                path);
    return ok;
}

static void *decide(void *arg)
{
    (void)arg;
    struct seccomp_notif_sizes sizes;
    if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0) return NULL;
    struct seccomp_notif *req =
        calloc(1, sizes.seccomp_notif > sizeof *req ? sizes.seccomp_notif : sizeof *req);
    struct seccomp_notif_resp *resp = calloc(
        1, sizes.seccomp_notif_resp > sizeof *resp ? sizes.seccomp_notif_resp : sizeof *resp);
    if (!req || !resp) return NULL;
    for (;;) {
        memset(req, 0, sizes.seccomp_notif > sizeof *req ? sizes.seccomp_notif : sizeof *req);
        if (ioctl(guard.fd, SECCOMP_IOCTL_NOTIF_RECV, req) != 0) {
            if (errno == EINTR || errno == ENOENT) continue; /* (ENOENT: the caller died) */
            return NULL;
        }
        memset(resp, 0, sizeof *resp);
        resp->id = req->id;
        if (allowed(req))
            resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
        else
            resp->error = -EPERM;
        ioctl(guard.fd, SECCOMP_IOCTL_NOTIF_SEND, resp); /* (fails if the caller died) */
    }
}

int sandbox_guard_exec(const char *const *programs, int times, char *err, size_t size)
{
    pthread_mutex_lock(&guard.lock);
    guard.n_programs = 0;
    for (int i = 0; programs[i] && i < GUARD_PROGRAMS; i++) {
        snprintf(guard.programs[i], sizeof guard.programs[i], "%s", programs[i]);
        guard.n_programs++;
    }
    guard.left = times;
    int installed = guard.fd >= 0;
    pthread_mutex_unlock(&guard.lock);
    if (installed) return 0;

    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx) {
        snprintf(err, size, "seccomp_init failed");
        return -1;
    }
    int rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(execve), 0);
    if (!rc) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(execveat), 0);
    if (!rc) rc = seccomp_load(ctx);
    int fd = rc ? -1 : seccomp_notify_fd(ctx);
    seccomp_release(ctx);
    if (rc || fd < 0) {
        snprintf(err, size,
                 "cannot watch what the ranks' launcher starts (seccomp user notifications, "
                 "Linux 5.5): %s",
                 strerror(rc ? -rc : errno));
        return -1;
    }
    guard.fd = fd;
    pthread_t t;
    if ((rc = pthread_create(&t, NULL, decide, NULL)) != 0) {
        /* (the filter is in place: every exec now waits for an answer that never comes, so
         * this process must not start anything) */
        snprintf(err, size, "the launcher's watching thread: %s", strerror(rc));
        return -1;
    }
    pthread_detach(t);
    return 0;
}
