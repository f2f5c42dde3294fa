/*
 * filter_check.c: the system-call filter of sandbox_filter.c tried directly, in every
 * form a runner may install it (with and without a GPU's ioctls, with and without
 * writes), by a process that makes the calls a student's machine code could make.
 *
 * The forgeries of forgeries.py try the same through make grade, but only in the form
 * this machine grades with: without a GPU, a runner never installs the GPU form. Each
 * check runs in a child of its own (a refused call may end it, as the other ABIs' do);
 * the program prints one line per check and exits 1 if any call got through that
 * must not, or was refused that must not be.
 */
#define _GNU_SOURCE
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

/* What a check expects of its call. */
typedef enum {
    REFUSED, /* -1 with EPERM (or ENOSYS where the filter says "not here"), or the process ended by
                SIGSYS */
    PASSED,  /* the kernel ran it: any result but EPERM */
} Expect;

typedef struct Check {
    const char *name;
    Expect expect;
    long (*call)(void);
    int gpu_only;         /* 1: only in the GPU form; -1: only in the CPU form */
    void (*before)(void); /* run before the filter is installed, if not NULL */
} Check;
#define CHECK(name, expect, call, gpu_only)                                                        \
    {                                                                                              \
        name, expect, call, gpu_only, NULL                                                         \
    }

static long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
    return syscall(nr, a, b, c, d, e, f);
}

/* ---- the calls --------------------------------------------------------------------------- */

static char tty_byte = 'x';
static long c_tiocsti(void)
{
    return sys6(SYS_ioctl, 0, TIOCSTI, (long)&tty_byte, 0, 0, 0);
}
static long c_tiocsti_high(void)
{
    /* the kernel reads the request as 32 bits: the upper ones must not hide it */
    return sys6(SYS_ioctl, 0, (long)(0x100000000ul | TIOCSTI), (long)&tty_byte, 0, 0, 0);
}
static long c_tioclinux(void)
{
    return sys6(SYS_ioctl, 0, TIOCLINUX, (long)&tty_byte, 0, 0, 0);
}
static long c_tcsets(void)
{
    struct termios t;
    memset(&t, 0, sizeof t);
    return sys6(SYS_ioctl, 0, TCSETS, (long)&t, 0, 0, 0);
}
static long c_tiocsctty(void)
{
    return sys6(SYS_ioctl, 0, TIOCSCTTY, 1, 0, 0, 0);
}
static long c_tcgets(void)
{
    struct termios t;
    return sys6(SYS_ioctl, 0, TCGETS, (long)&t, 0, 0, 0);
}
static long c_gpu_ioctl(void)
{
    /* the shape of an NVIDIA driver request (_IOWR('F', 0x2b, 48)) on a descriptor that
     * is not the driver's: the kernel answers, not the filter */
    return sys6(SYS_ioctl, 0, (long)0xc030462bu, 0, 0, 0, 0);
}
static long c_fork(void)
{
    return sys6(SYS_fork, 0, 0, 0, 0, 0, 0);
}
static long c_vfork(void)
{
    return sys6(SYS_vfork, 0, 0, 0, 0, 0, 0);
}
static long c_clone_process(void)
{
    return sys6(SYS_clone, SIGCHLD, 0, 0, 0, 0, 0);
}
static long c_clone_newuser(void)
{
    return sys6(SYS_clone, CLONE_THREAD | CLONE_VM | CLONE_SIGHAND | CLONE_NEWUSER, 0, 0, 0, 0, 0);
}
static long c_clone3(void)
{
    return sys6(SYS_clone3, 0, 0, 0, 0, 0, 0);
}
static long c_execve(void)
{
    char *argv[] = {"/bin/true", NULL};
    return sys6(SYS_execve, (long)"/bin/true", (long)argv, 0, 0, 0, 0);
}
static long c_execveat(void)
{
    char *argv[] = {"/bin/true", NULL};
    return sys6(SYS_execveat, AT_FDCWD, (long)"/bin/true", (long)argv, 0, 0, 0);
}
static long c_memfd(void)
{
    return sys6(SYS_memfd_create, (long)"x", 0, 0, 0, 0, 0);
}
static long c_io_uring(void)
{
    return sys6(SYS_io_uring_setup, 4, 0, 0, 0, 0, 0);
}
static long c_ptrace(void)
{
    return sys6(SYS_ptrace, 16 /* PTRACE_ATTACH */, getppid(), 0, 0, 0, 0);
}
static long c_vm_writev(void)
{
    return sys6(SYS_process_vm_writev, getppid(), 0, 0, 0, 0, 0);
}
static long c_kill_parent(void)
{
    return sys6(SYS_kill, getppid(), 0, 0, 0, 0, 0);
}
static long c_kill_group(void)
{
    return sys6(SYS_kill, 0, 0, 0, 0, 0, 0);
}
static long c_kill_all(void)
{
    return sys6(SYS_kill, -1, 0, 0, 0, 0, 0);
}
static long c_kill_high(void)
{
    /* the pid as 64 bits with our own in the lower half: the kernel reads 32 bits */
    return sys6(SYS_kill, (long)(0x100000000ul | (unsigned)getppid()), 0, 0, 0, 0, 0);
}
static long c_tkill(void)
{
    return sys6(SYS_tkill, getppid(), 0, 0, 0, 0, 0);
}
static long c_pidfd_open(void)
{
    return sys6(SYS_pidfd_open, getppid(), 0, 0, 0, 0, 0);
}
static long c_kill_self(void)
{
    return sys6(SYS_kill, getpid(), 0, 0, 0, 0, 0);
}
static long c_setsid(void)
{
    return sys6(SYS_setsid, 0, 0, 0, 0, 0, 0);
}
static long c_setpgid(void)
{
    return sys6(SYS_setpgid, 0, 0, 0, 0, 0, 0);
}
static long c_socket(void)
{
    return sys6(SYS_socket, AF_UNIX, SOCK_STREAM, 0, 0, 0, 0);
}
static long c_socketpair(void)
{
    int sv[2];
    return sys6(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, (long)sv, 0, 0);
}
static long c_unshare(void)
{
    return sys6(SYS_unshare, CLONE_NEWUSER, 0, 0, 0, 0, 0);
}
static long c_setns(void)
{
    return sys6(SYS_setns, 0, 0, 0, 0, 0, 0);
}
static long c_mount(void)
{
    return sys6(SYS_mount, (long)"none", (long)"/tmp", (long)"tmpfs", 0, 0, 0);
}
static long c_bpf(void)
{
    return sys6(SYS_bpf, 0, 0, 0, 0, 0, 0);
}
static long c_keyctl(void)
{
    return sys6(SYS_keyctl, 0, 0, 0, 0, 0, 0);
}
static long c_userfaultfd(void)
{
    return sys6(SYS_userfaultfd, 0, 0, 0, 0, 0, 0);
}
static long c_perf(void)
{
    return sys6(SYS_perf_event_open, 0, 0, 0, 0, 0, 0);
}
static long c_fcntl_setown(void)
{
    return sys6(SYS_fcntl, 1, F_SETOWN, getppid(), 0, 0, 0);
}
static long c_fcntl_setsig(void)
{
    return sys6(SYS_fcntl, 1, F_SETSIG, SIGKILL, 0, 0, 0);
}
static long c_fcntl_lease(void)
{
    return sys6(SYS_fcntl, 1, F_SETLEASE, F_WRLCK, 0, 0, 0);
}
static long c_prctl_pdeath(void)
{
    return sys6(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0, 0);
}
static long c_prctl_dumpable(void)
{
    return sys6(SYS_prctl, PR_SET_DUMPABLE, 1, 0, 0, 0, 0);
}
static long c_prctl_subreaper(void)
{
    return sys6(SYS_prctl, PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0, 0);
}
static long c_setrlimit(void)
{
    struct rlimit r = {1, 1};
    return sys6(SYS_prlimit64, 0, RLIMIT_CORE, (long)&r, 0, 0, 0);
}
static long c_open_write(void)
{
    return sys6(SYS_openat, AT_FDCWD, (long)"/tmp/wb-filter-check", O_WRONLY | O_CREAT, 0600, 0, 0);
}
static long c_open_accmode3(void)
{
    return sys6(SYS_openat, AT_FDCWD, (long)"/dev/null", O_ACCMODE, 0, 0, 0);
}
static long c_open_trunc(void)
{
    return sys6(SYS_open, (long)"/dev/null", O_RDONLY | O_TRUNC, 0, 0, 0, 0);
}
static long c_openat2(void)
{
    return sys6(SYS_openat2, AT_FDCWD, (long)"/dev/null", 0, 0, 0, 0);
}
static long c_open_read(void)
{
    return sys6(SYS_openat, AT_FDCWD, (long)"/dev/null", O_RDONLY, 0, 0, 0);
}
static long c_link(void)
{
    return sys6(SYS_link, (long)"/dev/null", (long)"/tmp/wb-filter-check", 0, 0, 0, 0);
}
static long c_symlink(void)
{
    return sys6(SYS_symlink, (long)"/", (long)"/tmp/wb-filter-check", 0, 0, 0, 0);
}
static long c_mknod(void)
{
    return sys6(SYS_mknod, (long)"/tmp/wb-filter-check", S_IFIFO | 0600, 0, 0, 0, 0);
}
static long c_chmod(void)
{
    return sys6(SYS_chmod, (long)"/tmp", 0777, 0, 0, 0, 0);
}
static long c_truncate(void)
{
    return sys6(SYS_truncate, (long)"/tmp/wb-filter-check", 0, 0, 0, 0, 0);
}
static long c_mmap_exec(void)
{
    return sys6(SYS_mmap, 0, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
                -1, 0);
}
static long c_mprotect_exec(void)
{
    static char page[8192] __attribute__((aligned(4096)));
    return sys6(SYS_mprotect, (long)page, 4096, PROT_READ | PROT_EXEC, 0, 0, 0);
}
static long c_pkey_mprotect_exec(void)
{
    static char page[8192] __attribute__((aligned(4096)));
    return sys6(SYS_pkey_mprotect, (long)page, 4096, PROT_READ | PROT_EXEC, -1, 0, 0);
}
static long c_mmap_rw(void)
{
    return sys6(SYS_mmap, 0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}
static void *idle(void *arg)
{
    return arg;
}
static long c_thread(void)
{
    pthread_t t;
    int rc = pthread_create(&t, NULL, idle, NULL);
    if (rc) {
        errno = rc;
        return -1;
    }
    return pthread_join(t, NULL);
}
/* A thread a library started before the filter (MPI's, a GPU driver's): waiting. */
static void *wait_forever(void *arg)
{
    for (;;)
        pause();
    return arg;
}
static void start_thread(void)
{
    pthread_t t;
    pthread_create(&t, NULL, wait_forever, NULL);
}
/* "Runs" if a thread of this process has no filter: it could run code that has none. */
static long c_unfiltered_thread(void)
{
    char path[64], status[4096];
    int unfiltered = 0;
    for (pid_t tid = getpid(); tid < getpid() + 64; tid++) {
        snprintf(path, sizeof path, "/proc/self/task/%d/status", (int)tid);
        int fd = open(path, O_RDONLY);
        if (fd < 0) continue;
        ssize_t n = read(fd, status, sizeof status - 1);
        close(fd);
        status[n > 0 ? n : 0] = '\0';
        if (strstr(status, "Seccomp:\t0")) unfiltered = 1;
    }
    if (unfiltered) return 0;
    errno = EPERM;
    return -1;
}
static long c_x32(void)
{
    /* the x32 ABI: the same instruction, the number with bit 30 set (x32's execve is 520) */
    char *argv[] = {"/bin/true", NULL};
    return syscall(0x40000000L | 520, "/bin/true", argv, NULL);
}
static long c_int80(void)
{
    /* the i386 ABI (int $0x80): its execve is 11, its arguments in ebx, ecx, edx */
    long r;
    __asm__ volatile("int $0x80" : "=a"(r) : "a"(11L), "b"(0L), "c"(0L), "d"(0L) : "memory");
    if (r < 0 && r > -4096) {
        errno = (int)-r;
        return -1;
    }
    return r;
}

static const Check checks[] = {
    CHECK("ioctl TIOCSTI (keystrokes into a terminal)", REFUSED, c_tiocsti, 0),
    CHECK("ioctl TIOCSTI with the upper 32 bits set", REFUSED, c_tiocsti_high, 0),
    CHECK("ioctl TIOCLINUX (a console's selection)", REFUSED, c_tioclinux, 0),
    CHECK("ioctl TCSETS (a terminal's modes)", REFUSED, c_tcsets, 0),
    CHECK("ioctl TIOCSCTTY (taking a terminal)", REFUSED, c_tiocsctty, 0),
    CHECK("ioctl TCGETS (isatty)", PASSED, c_tcgets, 0),
    CHECK("ioctl of a GPU driver's shape", PASSED, c_gpu_ioctl, 1),
    CHECK("ioctl of a GPU driver's shape, without a GPU", REFUSED, c_gpu_ioctl, -1),
    CHECK("fork", REFUSED, c_fork, 0),
    CHECK("vfork", REFUSED, c_vfork, 0),
    CHECK("clone without CLONE_THREAD", REFUSED, c_clone_process, 0),
    CHECK("clone of a thread into a new user namespace", REFUSED, c_clone_newuser, 0),
    CHECK("clone3", REFUSED, c_clone3, 0),
    CHECK("execve", REFUSED, c_execve, 0),
    CHECK("execveat", REFUSED, c_execveat, 0),
    CHECK("memfd_create", REFUSED, c_memfd, 0),
    CHECK("io_uring_setup", REFUSED, c_io_uring, 0),
    CHECK("ptrace(PTRACE_ATTACH) of the parent", REFUSED, c_ptrace, 0),
    CHECK("process_vm_writev into the parent", REFUSED, c_vm_writev, 0),
    CHECK("kill of the parent", REFUSED, c_kill_parent, 0),
    CHECK("kill of the process group", REFUSED, c_kill_group, 0),
    CHECK("kill of every process", REFUSED, c_kill_all, 0),
    CHECK("kill of the parent, upper bits set", REFUSED, c_kill_high, 0),
    CHECK("tkill of the parent", REFUSED, c_tkill, 0),
    CHECK("pidfd_open of the parent", REFUSED, c_pidfd_open, 0),
    CHECK("kill of itself (abort, raise)", PASSED, c_kill_self, 0),
    CHECK("setsid", REFUSED, c_setsid, 0),
    CHECK("setpgid", REFUSED, c_setpgid, 0),
    CHECK("socket", REFUSED, c_socket, 0),
    CHECK("socketpair", REFUSED, c_socketpair, 0),
    CHECK("unshare", REFUSED, c_unshare, 0),
    CHECK("setns", REFUSED, c_setns, 0),
    CHECK("mount", REFUSED, c_mount, 0),
    CHECK("bpf", REFUSED, c_bpf, 0),
    CHECK("keyctl", REFUSED, c_keyctl, 0),
    CHECK("userfaultfd", REFUSED, c_userfaultfd, 0),
    CHECK("perf_event_open", REFUSED, c_perf, 0),
    CHECK("fcntl F_SETOWN (signals to another process)", REFUSED, c_fcntl_setown, 0),
    CHECK("fcntl F_SETSIG", REFUSED, c_fcntl_setsig, 0),
    CHECK("fcntl F_SETLEASE", REFUSED, c_fcntl_lease, 0),
    CHECK("prctl PR_SET_PDEATHSIG", REFUSED, c_prctl_pdeath, 0),
    CHECK("prctl PR_SET_DUMPABLE", REFUSED, c_prctl_dumpable, 0),
    CHECK("prctl PR_SET_CHILD_SUBREAPER", REFUSED, c_prctl_subreaper, 0),
    CHECK("prlimit64 setting a limit", REFUSED, c_setrlimit, 0),
    CHECK("openat2", REFUSED, c_openat2, 0),
    CHECK("open for reading", PASSED, c_open_read, 0),
    CHECK("link", REFUSED, c_link, 0),
    CHECK("symlink", REFUSED, c_symlink, 0),
    CHECK("mknod (a FIFO)", REFUSED, c_mknod, 0),
    CHECK("chmod", REFUSED, c_chmod, 0),
    CHECK("truncate", REFUSED, c_truncate, 0),
    CHECK("mmap of executable memory after the seal", REFUSED, c_mmap_exec, 0),
    CHECK("mprotect to executable after the seal", REFUSED, c_mprotect_exec, 0),
    CHECK("pkey_mprotect to executable after the seal", REFUSED, c_pkey_mprotect_exec, 0),
    CHECK("mmap of memory", PASSED, c_mmap_rw, 0),
    CHECK("a thread", PASSED, c_thread, 0),
    CHECK("execve through the x32 ABI", REFUSED, c_x32, 0),
    CHECK("execve through the i386 ABI (int $0x80)", REFUSED, c_int80, 0),
    {"a thread started before the filter, left without it", REFUSED, c_unfiltered_thread, 0,
     start_thread},
};

/* The calls refused only when files may not be written (a layer confines them else). */
static const Check no_write_checks[] = {
    CHECK("open for writing", REFUSED, c_open_write, 0),
    CHECK("open with O_ACCMODE", REFUSED, c_open_accmode3, 0),
    CHECK("open with O_TRUNC", REFUSED, c_open_trunc, 0),
};

/* In a child: install the filter in form (may_write, gpu), seal it, make the call.
 * Returns 1 if the outcome is the expected one; *what says what happened. */
static int try_check(const Check *c, int may_write, int gpu, char *what, size_t size)
{
    int fd[2];
    if (pipe(fd) != 0) return 0;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        int null = open("/dev/null", O_RDWR); /* the handler's message is not ours to show */
        if (null >= 0) dup2(null, 2);
        char err[256];
        if (c->before) c->before();
        if (sandbox_filter_install(may_write, gpu, err, sizeof err) != 0 ||
            sandbox_filter_seal(err, sizeof err) != 0) {
            dprintf(fd[1], "X%s", err);
            _exit(3);
        }
        errno = 0;
        long r = c->call();
        int e = r < 0 ? errno : 0;
        ssize_t w = write(fd[1], &e, sizeof e);
        (void)w;
        _exit(0);
    }
    close(fd[1]);
    char buf[300] = "";
    ssize_t n = read(fd[0], buf, sizeof buf - 1);
    close(fd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    unlink("/tmp/wb-filter-check");
    if (n > 0 && buf[0] == 'X') {
        snprintf(what, size, "the filter could not be installed: %s", buf + 1);
        return 0;
    }
    if (WIFSIGNALED(st)) {
        snprintf(what, size, "ended by %s", strsignal(WTERMSIG(st)));
        return c->expect == REFUSED && WTERMSIG(st) == SIGSYS;
    }
    int e = -1;
    if (n == (ssize_t)sizeof e) memcpy(&e, buf, sizeof e);
    if (e == -1) {
        snprintf(what, size, "ended with status %d before it answered", WEXITSTATUS(st));
        return 0;
    }
    snprintf(what, size, "%s", e ? strerror(e) : "it ran");
    int refused = e == EPERM || e == ENOSYS;
    return c->expect == REFUSED ? refused : !refused;
}

/* ---- who a refusal names ------------------------------------------------------------------ */

/* A system call from code in no loaded file (written at run time: a student's, then) */
static long (*run_time_socket)(void);

static void make_run_time_code(void)
{
    /* mov $41, %eax (socket); syscall; ret */
    static const unsigned char code[] = {0xb8, 41, 0, 0, 0, 0x0f, 0x05, 0xc3};
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    if (p == MAP_FAILED) return;
    memcpy(p, code, sizeof code);
    memcpy(&run_time_socket, &p, sizeof p); /* (POSIX: an address of code) */
}

/* In a child, with the filter: a refused call from this program (the grader's own code),
 * one that its normal work makes (chmod: quiet), and one from code written at run time. What
 * its SIGSYS handler printed for each must name the right caller, or nothing. */
static int check_named(const char *what, int kind, const char *want, char *got, size_t size)
{
    int fd[2];
    if (pipe(fd) != 0) return 0;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        dup2(fd[1], 2);
        char err[256];
        if (kind == 2) make_run_time_code();
        if (sandbox_filter_install(0, 0, err, sizeof err) != 0 ||
            sandbox_filter_seal(err, sizeof err) != 0)
            _exit(3);
        if (kind == 0) syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
        if (kind == 1) (void)chmod("/", 0755);
        if (kind == 2 && run_time_socket) run_time_socket();
        _exit(0);
    }
    close(fd[1]);
    ssize_t n = read(fd[0], got, size - 1);
    got[n > 0 ? n : 0] = '\0';
    close(fd[0]);
    waitpid(pid, NULL, 0);
    got[strcspn(got, "\n")] = '\0';
    int ok = want ? strstr(got, want) != NULL : got[0] == '\0';
    printf("%s  a refused call %s: %s\n", ok ? "ok  " : "FAIL", what,
           got[0] ? got : "(nothing said, as it should be)");
    return ok;
}

int main(void)
{
    int failed = 0, ran = 0;
    char got[400];
    static const struct {
        const char *what, *want;
    } named[] = {{"of the grader's own code names it",
                  "made by the grader's own code (lib), not by your code"},
                 {"that lib makes in its work (chmod) is quiet", NULL},
                 {"of code written at run time is the student's", "made by your code"}};
    for (int k = 0; k < 3; k++, ran++)
        if (!check_named(named[k].what, k, named[k].want, got, sizeof got)) failed++;
    for (int gpu = 0; gpu <= 1; gpu++)
        for (int may_write = 0; may_write <= 1; may_write++) {
            const Check *lists[2] = {checks, no_write_checks};
            size_t lens[2] = {sizeof checks / sizeof checks[0],
                              may_write ? 0 : sizeof no_write_checks / sizeof no_write_checks[0]};
            for (int l = 0; l < 2; l++)
                for (size_t i = 0; i < lens[l]; i++) {
                    const Check *c = &lists[l][i];
                    if ((c->gpu_only == 1 && !gpu) || (c->gpu_only == -1 && gpu)) continue;
                    char what[400];
                    int ok = try_check(c, may_write, gpu, what, sizeof what);
                    ran++;
                    if (!ok) failed++;
                    printf("%s  [%s%s] %s: %s (%s)\n", ok ? "ok  " : "FAIL", gpu ? "gpu" : "cpu",
                           may_write ? ", may write" : "", c->name, what,
                           c->expect == REFUSED ? "must be refused" : "must run");
                }
        }
    printf("filter_check: %d of %d checks as expected\n", ran - failed, ran);
    return failed ? 1 : 0;
}
