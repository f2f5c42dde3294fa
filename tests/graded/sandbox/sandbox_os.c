/*
 * sandbox_os.c: the layers of the sandbox that the judge sets up around a runner
 * before it starts (sandbox.h): a session without a terminal, namespaces with a
 * read-only view of the file system, an unprivileged user, Landlock, a fixed
 * environment. The runner itself installs the system-call filter
 * (sandbox_filter.c) before it loads the student's code.
 */
#define _GNU_SOURCE
#include "sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <net/if.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SECBIT_NOROOT
#define SECBIT_NOROOT (1 << 0)
#define SECBIT_NOROOT_LOCKED (1 << 1)
#define SECBIT_NO_SETUID_FIXUP (1 << 2)
#define SECBIT_NO_SETUID_FIXUP_LOCKED (1 << 3)
#define SECBIT_KEEP_CAPS_LOCKED (1 << 5)
#endif

static void say(char *err, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *err, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, size, fmt, ap);
    va_end(ap);
}

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = write(fd, text, strlen(text));
    int e = errno;
    close(fd);
    errno = e;
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* ---- namespaces ------------------------------------------------------------------------ */

#define NS_FLAGS (CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWUTS)

/* Enter new namespaces (through a user namespace when not root). The caller's next
 * child is the first process of the new PID namespace. */
static int enter_namespaces(int user_ns, char *err, size_t size)
{
    uid_t uid = getuid();
    gid_t gid = getgid();
    if (unshare(NS_FLAGS | (user_ns ? CLONE_NEWUSER : 0)) != 0) {
        say(err, size, "unshare: %s", strerror(errno));
        return -1;
    }
    if (user_ns) {
        char map[64];
        snprintf(map, sizeof map, "0 %u 1\n", (unsigned)gid);
        if (write_file("/proc/self/setgroups", "deny") != 0 ||
            write_file("/proc/self/gid_map", map) != 0) {
            say(err, size, "a user namespace's group map: %s", strerror(errno));
            return -1;
        }
        snprintf(map, sizeof map, "0 %u 1\n", (unsigned)uid);
        if (write_file("/proc/self/uid_map", map) != 0) {
            say(err, size, "a user namespace's user map: %s", strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* Whether @p path is @p dir or below it. */
static int below(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/') return 1;
    return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

static int mount_tmpfs(const char *path, const char *opts, char *err, size_t size)
{
    if (mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, opts) != 0) {
        say(err, size, "a private file system on %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* The first folder from / down to @p path (itself included) that others may not search,
 * in @p out ("" if none): a user of the runner's own cannot pass it. */
static void closed_on_way(const char *path, char *out, size_t size)
{
    char walk[4096];
    snprintf(walk, sizeof walk, "%s", path);
    out[0] = '\0';
    for (char *p = walk + 1;; p++) {
        char c = *p;
        if (c == '/' || c == '\0') {
            *p = '\0';
            struct stat st;
            if (stat(walk, &st) == 0 && !(st.st_mode & S_IXOTH)) {
                snprintf(out, size, "%s", walk);
                return;
            }
            *p = c;
        }
        if (c == '\0') return;
    }
}

/* Bind the repository (open as @p repo_fd) at @p at: whole, or, when its own folder may not
 * be searched by others (@p by_entries), each of its entries into the folder made at @p at.
 * What is hidden inside it comes along (bound recursively). */
static int show_repo(int repo_fd, const char *at, int by_entries, char *err, size_t size)
{
    char from[64];
    err[0] = '\0';
    if (!by_entries) {
        snprintf(from, sizeof from, "/proc/self/fd/%d", repo_fd);
        return mount(from, at, NULL, MS_BIND | MS_REC, NULL);
    }
    if (mount_tmpfs(at, "size=64k,mode=0755", err, size) != 0) return -1;
    int list = dup(repo_fd);
    DIR *d = list >= 0 ? fdopendir(list) : NULL;
    if (!d) return -1;
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char to[4400];
        if (snprintf(to, sizeof to, "%s/%s", at, e->d_name) >= (int)sizeof to) continue;
        struct stat st;
        if (fstatat(repo_fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        if (S_ISLNK(st.st_mode)) {
            char target[4096];
            ssize_t n = readlinkat(repo_fd, e->d_name, target, sizeof target - 1);
            if (n > 0) target[n] = '\0', rc = symlink(target, to);
            continue;
        }
        if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) continue;
        int fd = openat(repo_fd, e->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) continue;
        snprintf(from, sizeof from, "/proc/self/fd/%d", fd);
        int made = -1;
        if (S_ISDIR(st.st_mode)) {
            made = mkdir(to, 0755);
        } else {
            int f = open(to, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
            made = f < 0 ? -1 : close(f);
        }
        rc = made != 0 ? -1 : mount(from, to, NULL, MS_BIND | MS_REC, NULL);
        close(fd);
    }
    closedir(d);
    return rc;
}

/* In the first process of the new namespaces: the runner's view of the files. Everything
 * read-only; /tmp, /dev/shm and /run private and empty; what it must not see covered by
 * an empty file system; /proc of its own PID namespace; the loopback interface up (the
 * ranks of an MPI launch talk over it). */
static int make_view(const SandboxPlan *plan, const SandboxRun *run, char *err, size_t size)
{
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
        say(err, size, "making the mounts private: %s", strerror(errno));
        return -1;
    }
    /* Libraries the runner needs from under /tmp: moved aside before /tmp is covered. */
    const char *libs = getenv("LD_LIBRARY_PATH");
    char keep[8][4096];
    int n_keep = 0;
    if (libs) {
        char *copy = strdup(libs), *save = NULL;
        for (char *dir = copy ? strtok_r(copy, ":", &save) : NULL; dir && n_keep < 8;
             dir = strtok_r(NULL, ":", &save)) {
            struct stat st;
            if (strncmp(dir, "/tmp/", 5) == 0 && !strstr(dir, "..") && stat(dir, &st) == 0 &&
                S_ISDIR(st.st_mode))
                snprintf(keep[n_keep++], sizeof keep[0], "%s", dir);
        }
        free(copy);
    }
    if (plan->readonly) {
        struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID};
        if (syscall(SYS_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, &ro, sizeof ro) != 0) {
            say(err, size, "making the file system read-only: %s", strerror(errno));
            return -1;
        }
    }
    /* The repository (the judge's folder: the runner's fixtures and data are there) stays
     * in view when a hidden folder holds it (the judge's home, say) or the private /tmp
     * would cover it (a clone under /tmp): it is bound back in place, read-only, with what
     * is hidden inside it. So what is hidden is covered first, /tmp after. A repository
     * the runner's user could not enter (a folder on its way that others may not search:
     * a clone into mktemp -d, a home of mode 0700) is shown the same way, its entries each
     * bound into a folder the runner can enter. */
    struct stat st;
    char repo[4096], closed[4096] = "";
    int repo_fd = -1, repo_in_tmp = 0;
    if (getcwd(repo, sizeof repo)) {
        repo_in_tmp = below(repo, "/tmp") || below(repo, "/dev/shm");
        if (plan->drop_user) closed_on_way(repo, closed, sizeof closed);
        for (const char *const *h = run->hide; h && *h && !repo_in_tmp && repo_fd < 0; h++)
            if (strcmp(repo, *h) != 0 && below(repo, *h))
                repo_fd = open(repo, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (repo_in_tmp || (closed[0] && repo_fd < 0))
            repo_fd = open(repo, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }
    for (const char *const *h = run->hide; h && *h; h++) {
        if (stat(*h, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            if (mount_tmpfs(*h, "size=4k,mode=0755", err, size) != 0) return -1;
        } else if (mount("/dev/null", *h, NULL, MS_BIND, NULL) != 0) {
            say(err, size, "hiding %s: %s", *h, strerror(errno));
            return -1;
        }
    }
    /* the kept library folders, bound under /run before /tmp is covered */
    if (n_keep && mount_tmpfs("/run", "size=64k,mode=0755", err, size) != 0) return -1;
    for (int i = 0; i < n_keep; i++) {
        char at[64];
        snprintf(at, sizeof at, "/run/wb-lib%d", i);
        if (mkdir(at, 0755) != 0 ||
            mount(keep[i], at, NULL, MS_BIND | MS_REC | MS_RDONLY, NULL) != 0) {
            say(err, size, "keeping the library folder %s: %s", keep[i], strerror(errno));
            return -1;
        }
    }
    if (mount_tmpfs("/tmp", "size=2g,mode=1777", err, size) != 0) return -1;
    for (int i = 0; i < n_keep; i++) {
        char at[64];
        snprintf(at, sizeof at, "/run/wb-lib%d", i);
        char made[4096];
        /* mkdir -p of the folder under the new /tmp */
        snprintf(made, sizeof made, "%s", keep[i]);
        for (char *p = made + 5; (p = strchr(p, '/')); p++) {
            *p = '\0';
            mkdir(made, 0755);
            *p = '/';
        }
        mkdir(made, 0755);
        if (mount(at, keep[i], NULL, MS_MOVE, NULL) != 0) {
            say(err, size, "showing the library folder %s: %s", keep[i], strerror(errno));
            return -1;
        }
    }
    if (stat("/dev/shm", &st) == 0 && mount_tmpfs("/dev/shm", "size=1g,mode=1777", err, size) != 0)
        return -1;
    if (stat("/dev/pts", &st) == 0 &&
        mount_tmpfs("/dev/pts", "size=4k,mode=0755", err, size) != 0)
        return -1;
    if (repo_fd >= 0) {
        /* a folder on the way that the runner cannot search: an empty one in its place */
        if (closed[0] && strcmp(closed, repo) != 0 && !below(closed, "/tmp") &&
            !below(closed, "/dev/shm") &&
            mount_tmpfs(closed, "size=4k,mode=0755", err, size) != 0) {
            close(repo_fd);
            return -1;
        }
        for (char *p = repo + 1; (p = strchr(p, '/')); p++) {
            *p = '\0';
            mkdir(repo, 0755);
            *p = '/';
        }
        mkdir(repo, 0755);
        struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID};
        /* read-only in any case under /tmp, where the runner may write otherwise */
        if (show_repo(repo_fd, repo, strcmp(closed, repo) == 0, err, size) != 0 ||
            ((plan->readonly || repo_in_tmp || closed[0]) &&
             syscall(SYS_mount_setattr, AT_FDCWD, repo, AT_RECURSIVE, &ro, sizeof ro) != 0)) {
            if (!err[0])
                say(err, size, "showing the repository %s again: %s", repo, strerror(errno));
            close(repo_fd);
            return -1;
        }
        close(repo_fd);
    }
    /* read-only: the runner's own /proc/self/mem would write into its code, sealed or not */
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, NULL) != 0) {
        say(err, size, "the PID namespace's /proc: %s", strerror(errno));
        return -1;
    }
    /* the loopback interface, for MPI's ranks (nothing else is reachable) */
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s >= 0) {
        struct ifreq ifr = {0};
        snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
        if (ioctl(s, SIOCGIFFLAGS, &ifr) == 0) {
            ifr.ifr_flags |= IFF_UP;
            ioctl(s, SIOCSIFFLAGS, &ifr);
        }
        close(s);
    }
    return 0;
}

/* ---- the runner's user ------------------------------------------------------------------ */

int sandbox_become(unsigned uid, char *err, size_t size)
{
    if (setgroups(0, NULL) != 0 || setresgid(uid, uid, uid) != 0 || setresuid(uid, uid, uid) != 0) {
        say(err, size, "becoming user %u: %s", uid, strerror(errno));
        return -1;
    }
    if (getuid() != uid || geteuid() != uid) {
        say(err, size, "still user %d after becoming %u", (int)geteuid(), uid);
        return -1;
    }
    return 0;
}

/* As root: the plan's user and group, no supplementary groups (no capabilities left).
 * In a user namespace (as its root): no capabilities, and none regained by exec. */
static int drop_privileges(const SandboxPlan *plan, char *err, size_t size)
{
    if (plan->user_ns) {
        if (prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                                         SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED) !=
            0) {
            say(err, size, "securebits: %s", strerror(errno));
            return -1;
        }
        for (int cap = 0; cap <= 63; cap++)
            if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL) {
                say(err, size, "dropping capability %d: %s", cap, strerror(errno));
                return -1;
            }
        struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
        struct __user_cap_data_struct d[2] = {{0, 0, 0}, {0, 0, 0}};
        if (syscall(SYS_capset, &h, d) != 0) {
            say(err, size, "capset: %s", strerror(errno));
            return -1;
        }
    } else if (plan->drop_user) {
        if (sandbox_become(plan->uid, err, size) != 0) return -1;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        say(err, size, "no_new_privs: %s", strerror(errno));
        return -1;
    }
    return 0;
}

static void close_from(int first)
{
    if (syscall(SYS_close_range, first, ~0U, 0) == 0) return;
    for (int fd = first; fd < 4096; fd++) close(fd);
}

/* ---- the runner's start --------------------------------------------------------------- */

/* The fixed environment: nothing of the judge's (the grading seed is handed over on a
 * descriptor), but what the libraries need to find themselves. */
static char **runner_environment(const char *tmp)
{
    static const char *const passed[] = {"LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES",
                                         "ASAN_OPTIONS",    "UBSAN_OPTIONS",
                                         "LSAN_OPTIONS",    "OPENBLAS_CORETYPE",
                                         NULL};
    static char *env[24];
    static char lines[24][4200];
    int n = 0;
    snprintf(lines[n], sizeof lines[0], "PATH=/usr/local/bin:/usr/bin:/bin");
    env[n] = lines[n], n++;
    snprintf(lines[n], sizeof lines[0], "LC_ALL=C");
    env[n] = lines[n], n++;
    snprintf(lines[n], sizeof lines[0], "TMPDIR=%s", tmp);
    env[n] = lines[n], n++;
    snprintf(lines[n], sizeof lines[0], "HOME=%s", tmp);
    env[n] = lines[n], n++;
    snprintf(lines[n], sizeof lines[0], "OPENBLAS_NUM_THREADS=1");
    env[n] = lines[n], n++;
    for (const char *const *p = passed; *p; p++) {
        const char *v = getenv(*p);
        if (v && strlen(v) < 4000) {
            snprintf(lines[n], sizeof lines[0], "%s=%s", *p, v);
            env[n] = lines[n], n++;
        }
    }
    env[n] = NULL;
    return env;
}


/* Ends with SIGKILL when its parent does (expected @p parent as this process sees it; 0:
 * a parent outside its PID namespace). What the sandbox starts is in sessions of its own,
 * out of reach of a signal to the judge's process group or session (Ctrl-C of make grade,
 * grade-all's stop): without this, a case in an endless loop would spin on after its judge,
 * whose deadline was the only thing to end it. */
static void die_with_parent(pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(137); /* it ended before the line above */
}

/* The last steps before the runner: the user, Landlock, the environment, exec. */
static void become_runner(const SandboxPlan *plan, const SandboxRun *run, pid_t parent,
                          char *err, size_t size)
{
    close_from(run->keep_fds);
    struct rlimit core = {0, 0};
    setrlimit(RLIMIT_CORE, &core);
    /* The first process the kernel kills when memory runs out (a private /tmp is memory
     * too), before the judge or anything else of the machine. */
    write_file("/proc/self/oom_score_adj", "1000");
    /* Threads enough for a case, not the machine's process table: counted for the runner's
     * user of its own (as root), or in its user namespace (the kernel counts a user's
     * processes per namespace); not for root itself, whom the limit does not bind. */
    struct rlimit procs = {SANDBOX_TASKS, SANDBOX_TASKS};
    if (plan->drop_user || (plan->namespaces && plan->user_ns)) setrlimit(RLIMIT_NPROC, &procs);
    const char *tmp = plan->namespaces ? "/tmp" : run->scratch;
    if (drop_privileges(plan, err, size) != 0) return;
    die_with_parent(parent); /* after the change of user, which clears it */
    /* Landlock: without namespaces, writes only to the scratch folder and nothing hidden
     * read; with namespaces whose view could not be made read-only, writes only to the
     * private /tmp and /dev/shm (what is hidden is covered already). */
    char repo[4096];
    const char *show[] = {getcwd(repo, sizeof repo), NULL};
    const char *scratch[] = {run->scratch, NULL}, *private_tmp[] = {"/tmp", "/dev/shm", NULL};
    SandboxLandlock alone = {.write = scratch, .show = show[0] ? show : NULL, .hide = run->hide,
                             .read_all = 1, .keep_fds = run->keep_fds};
    SandboxLandlock in_view = {.write = private_tmp};
    if (plan->landlock && !plan->namespaces && sandbox_landlock_confine(&alone, err, size) != 0)
        return;
    if (plan->landlock && plan->namespaces && !plan->readonly &&
        sandbox_landlock_confine(&in_view, err, size) != 0)
        return;
    if (chdir(tmp) != 0) {
        say(err, size, "chdir %s: %s", tmp, strerror(errno));
        return;
    }
    syscall(SYS_execveat, run->program_fd, "", run->argv, runner_environment(tmp), AT_EMPTY_PATH);
    say(err, size, "cannot start the runner: %s", strerror(errno));
}

/* Wait for @p pid, reaping whatever else ends meanwhile; its wait status. */
static int wait_for(pid_t pid)
{
    for (;;) {
        int st;
        pid_t w = waitpid(-1, &st, 0);
        if (w == pid) return st;
        if (w < 0 && errno != EINTR) return 127 << 8;
    }
}


/* End with the same wait status as the runner: its exit code, or its signal. */
static void end_as(int st) __attribute__((noreturn));
static void end_as(int st)
{
    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        signal(sig, SIG_DFL);
        sigset_t s;
        sigemptyset(&s);
        sigaddset(&s, sig);
        sigprocmask(SIG_UNBLOCK, &s, NULL);
        kill(getpid(), sig);
    }
    _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 127);
}

/* Close every descriptor from 3 on but @p keep (-1: keep none). */
static void close_but(int keep)
{
    if (keep < 3) {
        close_from(3);
        return;
    }
    if (keep > 3) syscall(SYS_close_range, 3, keep - 1, 0);
    close_from(keep + 1);
}

/* Without a PID namespace: after the runner, every process it left behind. */
static void kill_descendants(void)
{
    for (int round = 0; round < 50; round++) {
        int found = 0;
        DIR *d = opendir("/proc");
        struct dirent *e;
        while (d && (e = readdir(d))) {
            char path[300], buf[512];
            if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
            snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
            int fd = open(path, O_RDONLY | O_CLOEXEC);
            if (fd < 0) continue;
            ssize_t n = read(fd, buf, sizeof buf - 1);
            close(fd);
            if (n <= 0) continue;
            buf[n] = '\0';
            const char *close_paren = strrchr(buf, ')');
            int ppid;
            if (close_paren && sscanf(close_paren + 2, "%*c %d", &ppid) == 1 && ppid == getpid()) {
                kill(atoi(e->d_name), SIGKILL);
                found = 1;
            }
        }
        if (d) closedir(d);
        while (waitpid(-1, NULL, WNOHANG) > 0) {
        }
        if (!found) return;
        usleep(2000);
    }
}

void sandbox_exec(const SandboxPlan *plan, const SandboxRun *run, char *err, size_t size)
{
    pid_t judge = getppid();
    if (setsid() < 0) { /* a session of its own: no controlling terminal */
        say(err, size, "setsid: %s", strerror(errno));
        return;
    }
    die_with_parent(judge);
    if (!plan->filter && !plan->unsandboxed) {
        say(err, size, "no system-call filter on this machine");
        return;
    }
    if (plan->namespaces) {
        /* The namespace's first process cannot end itself with a signal (the kernel
         * spares it its own), so it hands the runner's wait status to this one, which
         * ends as the runner did. */
        int status[2];
        if (pipe2(status, O_CLOEXEC) != 0) {
            say(err, size, "pipe: %s", strerror(errno));
            return;
        }
        if (enter_namespaces(plan->user_ns, err, size) != 0) return;
        pid_t first = fork();
        if (first < 0) {
            say(err, size, "fork: %s", strerror(errno));
            return;
        }
        if (first == 0) {
            /* the first process of the PID namespace: when it ends, all of it ends */
            char why[512] = "";
            close(status[0]);
            die_with_parent(0); /* and all of the namespace with it */
            if (make_view(plan, run, why, sizeof why) == 0) {
                pid_t runner = fork();
                if (runner == 0) {
                    become_runner(plan, run, 1, why, sizeof why);
                    dprintf(2, "grader: sandbox: %s\n", why);
                    _exit(126);
                }
                if (runner > 0) {
                    close_but(status[1]); /* the record pipe ends with the runner */
                    int st = wait_for(runner);
                    ssize_t w = write(status[1], &st, sizeof st);
                    (void)w;
                    _exit(0);
                }
                snprintf(why, sizeof why, "fork: %s", strerror(errno));
            }
            dprintf(2, "grader: sandbox: %s\n", why);
            _exit(126);
        }
        close(status[1]);
        close_but(status[0]);
        int st = wait_for(first), runner_st;
        if (read(status[0], &runner_st, sizeof runner_st) == (ssize_t)sizeof runner_st)
            st = runner_st;
        end_as(st);
    }
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    pid_t self = getpid(), runner = fork();
    if (runner < 0) {
        say(err, size, "fork: %s", strerror(errno));
        return;
    }
    if (runner == 0) {
        char why[512] = "";
        become_runner(plan, run, self, why, sizeof why);
        dprintf(2, "grader: sandbox: %s\n", why);
        _exit(126);
    }
    close_but(-1);
    int st = wait_for(runner);
    kill_descendants();
    end_as(st);
}

/* ---- probing ------------------------------------------------------------------------------ */

typedef struct Probe {
    int filter, namespaces, readonly, drop_user, landlock;
    char why_filter[160], why_ns[200], why_user[160], why_landlock[120];
} Probe;

/* In a child: can it make the namespaces and the view (a dry run of make_view), with
 * the read-only step or without it? Returns 1, or 0 with a reason in @p why. */
static int probe_view(int user_ns, int readonly, char *why, size_t size)
{
    int fd[2];
    if (pipe(fd) != 0) return 0;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        char err[200] = "";
        if (enter_namespaces(user_ns, err, sizeof err) == 0) {
            pid_t first = fork();
            if (first == 0) {
                SandboxPlan plan = {0};
                plan.readonly = readonly;
                SandboxRun run = {0};
                if (make_view(&plan, &run, err, sizeof err) == 0) _exit(0);
                dprintf(fd[1], "%s", err);
                _exit(1);
            }
            int st = first > 0 ? wait_for(first) : 0;
            _exit(first > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1);
        }
        dprintf(fd[1], "%s", err);
        _exit(1);
    }
    close(fd[1]);
    ssize_t n = pid > 0 ? read(fd[0], why, size - 1) : -1;
    why[n > 0 ? n : 0] = '\0';
    close(fd[0]);
    int st = 1 << 8;
    if (pid > 0) waitpid(pid, &st, 0);
    if (pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0) return 1;
    if (!why[0]) snprintf(why, size, "the private view could not be made");
    return 0;
}

static void probe_namespaces(Probe *p, int user_ns)
{
    char ro_why[200] = "switched off (GRADE_SANDBOX_LAYERS)";
    if (!sandbox_layer_off("readonly") && probe_view(user_ns, 1, ro_why, sizeof ro_why)) {
        p->namespaces = p->readonly = 1;
    } else if (probe_view(user_ns, 0, p->why_ns, sizeof p->why_ns)) {
        p->namespaces = 1;
        snprintf(p->why_ns, sizeof p->why_ns, "%s", ro_why);
    }
}

static void probe_user(Probe *p)
{
    if (geteuid() != 0) return;
    pid_t pid = fork();
    if (pid == 0)
        _exit(setgroups(0, NULL) == 0 && setresgid(SANDBOX_UID, SANDBOX_UID, SANDBOX_UID) == 0 &&
                      setresuid(SANDBOX_UID, SANDBOX_UID, SANDBOX_UID) == 0
                  ? 0
                  : errno);
    int st = 0;
    if (pid > 0) waitpid(pid, &st, 0);
    if (pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
        p->drop_user = 1;
    else
        snprintf(p->why_user, sizeof p->why_user, "cannot become user %d (%s)", SANDBOX_UID,
                 pid > 0 && WIFEXITED(st) ? strerror(WEXITSTATUS(st)) : "fork failed");
}

static void probe_filter(Probe *p)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) _exit(1);
        scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
        if (!ctx) _exit(2);
        if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(execve), 0) != 0) _exit(3);
        int rc = seccomp_load(ctx);
        _exit(rc == 0 ? 0 : 4);
    }
    int st = 0;
    if (pid > 0) waitpid(pid, &st, 0);
    if (pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0)
        p->filter = 1;
    else
        snprintf(p->why_filter, sizeof p->why_filter,
                 "the kernel refused a seccomp filter (no CONFIG_SECCOMP_FILTER, or a profile "
                 "that forbids it)");
}

void sandbox_probe(SandboxPlan *plan)
{
    memset(plan, 0, sizeof *plan);
    Probe p = {0};
    probe_filter(&p);
    int root = geteuid() == 0;
    if (sandbox_layer_off("ns"))
        snprintf(p.why_ns, sizeof p.why_ns, "switched off (GRADE_SANDBOX_LAYERS)");
    else
        probe_namespaces(&p, !root);
    if (sandbox_layer_off("user"))
        snprintf(p.why_user, sizeof p.why_user, "switched off (GRADE_SANDBOX_LAYERS)");
    else
        probe_user(&p);
    if (sandbox_layer_off("landlock"))
        snprintf(p.why_landlock, sizeof p.why_landlock, "switched off (GRADE_SANDBOX_LAYERS)");
    else if (sandbox_landlock_abi() > 0)
        p.landlock = 1;
    else
        snprintf(p.why_landlock, sizeof p.why_landlock, "not in this kernel (%s)",
                 strerror(errno));
    plan->filter = p.filter;
    plan->namespaces = p.namespaces;
    plan->user_ns = p.namespaces && !root;
    plan->readonly = p.readonly;
    plan->drop_user = p.drop_user && root;
    plan->landlock = p.landlock;
    plan->uid = SANDBOX_UID;
    snprintf(plan->uid_why, sizeof plan->uid_why, "not claimed");
    const char *u = getenv("GRADE_UNSANDBOXED");
    plan->unsandboxed = !plan->filter && u && strcmp(u, "1") == 0;
    char *m = plan->missing;
    size_t left = sizeof plan->missing;
#define MISSING(...)                                                                              \
    do {                                                                                           \
        int w_ = snprintf(m, left, "%s", m == plan->missing ? "" : "; ");                          \
        w_ += snprintf(m + w_, left > (size_t)w_ ? left - (size_t)w_ : 0, __VA_ARGS__);            \
        if ((size_t)w_ < left) m += w_, left -= (size_t)w_;                                         \
    } while (0)
    if (!plan->filter) MISSING("no system-call filter: %s", p.why_filter);
    if (!plan->namespaces) MISSING("no namespaces: %s", p.why_ns);
    if (plan->namespaces && !plan->readonly) MISSING("no read-only view: %s", p.why_ns);
    if (root && !plan->drop_user) MISSING("no separate user: %s", p.why_user);
    if (!root && !plan->namespaces)
        MISSING("no separate user: the judge is not root and has no user namespace");
    if (!plan->namespaces && !plan->landlock) MISSING("no Landlock: %s", p.why_landlock);
#undef MISSING
}

void sandbox_claim_user(SandboxPlan *plan)
{
    if (!plan->drop_user || plan->own_uid) return;
    unsigned uid;
    int fd;
    if (sandbox_uid_claim(&uid, &fd, plan->uid_why, sizeof plan->uid_why) == 0) {
        plan->uid = uid;
        plan->own_uid = 1;
        plan->uid_lock = fd;
    }
}

void sandbox_set_limits(SandboxPlan *plan, const SandboxGroup *g, const SandboxLimits *lim,
                        const char *why)
{
    sandbox_group_describe(g, lim, why, plan->limits, sizeof plan->limits);
    plan->grouped = g->n > 0;
}

int sandbox_writes_confined(const SandboxPlan *plan)
{
    return (plan->namespaces && plan->readonly) || plan->landlock || plan->drop_user;
}

void sandbox_describe(const SandboxPlan *plan, char *out, size_t size)
{
    char used[512] = "";
    size_t n = 0;
#define USED(...) n += (size_t)snprintf(used + n, n < sizeof used ? sizeof used - n : 0, __VA_ARGS__)
    if (plan->filter) USED("system-call filter");
    if (plan->namespaces)
        USED("%snamespaces (mount, PID, IPC, network%s)%s", n ? ", " : "",
             plan->user_ns ? ", in a user namespace" : "",
             plan->readonly ? ", read-only files but a private /tmp" : "");
    /* (not its number, which differs from one grading to the next: results.json does not) */
    if (plan->drop_user && plan->own_uid) USED("%sa user of its own", n ? ", " : "");
    if (plan->drop_user && !plan->own_uid)
        USED("%suser %u (shared with other gradings: %s)", n ? ", " : "", plan->uid, plan->uid_why);
    if (!plan->namespaces && plan->landlock)
        USED("%sLandlock (writes only to a scratch folder, nothing hidden read)", n ? ", " : "");
    if (plan->namespaces && !plan->readonly && plan->landlock)
        USED("%sLandlock (writes only to the private /tmp)", n ? ", " : "");
    if (plan->limits[0]) USED("%slimits: %s", n ? "; " : "", plan->limits);
#undef USED
    if (plan->unsandboxed)
        snprintf(out, size, "UNSANDBOXED (GRADE_UNSANDBOXED=1): %s", plan->missing);
    else
        snprintf(out, size, "%s%s%s", used, plan->missing[0] ? "; not used: " : "", plan->missing);
}

/* ---- removing a scratch folder ------------------------------------------------------------ */

static int remove_at(int dirfd)
{
    DIR *d = fdopendir(dirfd);
    if (!d) {
        close(dirfd);
        return -1;
    }
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if (unlinkat(dirfd, e->d_name, 0) == 0) continue;
        int sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0 || remove_at(sub) != 0 || unlinkat(dirfd, e->d_name, AT_REMOVEDIR) != 0)
            rc = -1;
    }
    closedir(d);
    return rc;
}

int sandbox_remove_tree(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? 0 : -1;
    int rc = remove_at(fd);
    return rmdir(dir) == 0 && rc == 0 ? 0 : -1;
}
