/*
 * sandbox_filter.c: the system-call allowlist the runner installs before it loads
 * the student's code (sandbox.h), with libseccomp.
 *
 * An allowlist: what a graded case needs (memory, threads, time, reading files,
 * writing the descriptors it was handed, and, where a layer of the sandbox confines
 * them, files in its scratch folder) is listed; every other system call is refused
 * with EPERM and named in the runner's log, so that what nobody thought of (a new
 * system call, io_uring, memfd_create with execveat, process_vm_writev, a clone
 * without CLONE_THREAD, TIOCSTI on a terminal) is closed too. The refusal comes from
 * a SIGSYS handler of the runner's; code that replaces or blocks that handler only
 * changes how it is told (the kernel never runs the call, and a blocked SIGSYS ends
 * the process).
 */
#define _GNU_SOURCE
#include "sandbox.h"

#include <errno.h>
#include <execinfo.h>
#include <link.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <termios.h>
#include <ucontext.h>
#include <unistd.h>

#ifndef __O_TMPFILE
#define __O_TMPFILE 020000000
#endif

/* Names of the system calls, looked up while the filter is made (the SIGSYS handler
 * may not allocate). */
#define NAMED 512
static const char *names[NAMED];

const char *sandbox_syscall_name(int nr)
{
    if (nr >= 0 && nr < NAMED && names[nr]) return names[nr];
    return seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
}

/* ---- who made a refused call ----------------------------------------------------------- */

/* The loaded file that holds an address. */
typedef struct Owner {
    uintptr_t addr;
    const char *name; /* as the loader names it: "" for the runner itself */
    int found;
} Owner;

static int find_owner(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    Owner *o = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && o->addr >= lo &&
            o->addr < lo + ph->p_memsz) {
            o->name = info->dlpi_name ? info->dlpi_name : "";
            o->found = 1;
            return 1;
        }
    }
    return 0;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The C library and the loader only pass calls on: the caller is further up. */
static int passes_on(const char *name)
{
    const char *b = base_name(name);
    return !strncmp(b, "libc.so", 7) || !strncmp(b, "libc-", 5) || !strncmp(b, "ld-linux", 8) ||
           !strncmp(b, "libpthread", 10) || !strncmp(b, "libdl", 5) ||
           !strncmp(b, "linux-vdso", 10);
}

enum { BY_STUDENT, BY_GRADER, BY_LIBRARY };

/* Who made the call that stopped at @p pc (with @p sp its stack): the first code on its way
 * out that is not the C library's, read from the return addresses (the unwinder's, or the
 * one a wrapper of the C library left on the stack). The student's shared object is loaded
 * from /proc/self/fd (student.c); code in no file at all was written at run time. */
static int who_called(uintptr_t pc, uintptr_t sp, const char **library)
{
    void *frames[48];
    int n = backtrace(frames, 48), from = -1;
    for (int i = 0; i < n; i++)
        if ((uintptr_t)frames[i] == pc) from = i;
    uintptr_t fallback[2] = {pc, sp ? *(const uintptr_t *)sp : 0};
    int count = from >= 0 ? n - from : 2;
    for (int i = 0; i < count; i++) {
        uintptr_t a = from >= 0 ? (uintptr_t)frames[from + i] : fallback[i];
        Owner o = {a - (i > 0), "", 0}; /* a return address may be one past its call */
        if (!a) break;
        dl_iterate_phdr(find_owner, &o);
        if (!o.found) return BY_STUDENT;
        if (passes_on(o.name)) continue;
        if (!strncmp(o.name, "/proc/self/fd/", 14)) return BY_STUDENT;
        if (!o.name[0]) return BY_GRADER;
        *library = base_name(o.name);
        return BY_LIBRARY;
    }
    return BY_STUDENT;
}

/* Calls the grader's own code and the libraries it uses make in their normal work, refused
 * (as every call outside the list) but without a word: each caller goes on without it.
 * chmod: a case's clean-up of its scratch folder (tests/common/tmpdir.c); mbind and
 * set_mempolicy: OpenBLAS placing its buffers on a NUMA node. */
static int quiet(const char *name)
{
    static const char *const calls[] = {"chmod", "fchmodat", "fchmodat2", "mbind",
                                        "set_mempolicy", "migrate_pages", NULL};
    for (const char *const *c = calls; *c; c++)
        if (!strcmp(name, *c)) return 1;
    return 0;
}

/* A refused call returns -EPERM to its caller, and the log says which it was and who made
 * it (the student's code, the grader's own, or a library's). */
static void on_sigsys(int sig, siginfo_t *si, void *context)
{
    (void)sig;
    int nr = si->si_syscall, e = errno;
    ucontext_t *uc = context;
    char msg[300];
    const char *name = nr >= 0 && nr < NAMED && names[nr] ? names[nr] : "?", *library = "";
#if defined(__x86_64__)
    int who = who_called((uintptr_t)uc->uc_mcontext.gregs[REG_RIP],
                         (uintptr_t)uc->uc_mcontext.gregs[REG_RSP], &library);
#elif defined(__aarch64__)
    int who = who_called((uintptr_t)uc->uc_mcontext.pc, 0, &library);
#else
    int who = BY_STUDENT;
#endif
    int n = 0;
    if (who == BY_STUDENT)
        n = snprintf(msg, sizeof msg,
                     "grader sandbox: refused the system call %s (%d), made by your code: "
                     "graded code may not make it\n",
                     name, nr);
    else if (!quiet(name))
        n = snprintf(msg, sizeof msg,
                     "grader sandbox: refused the system call %s (%d), made by %s, not by your "
                     "code (the grader's own call: tell the instructor)\n",
                     name, nr, who == BY_GRADER ? "the grader's own code (lib)" : library);
    if (n > 0) {
        ssize_t w = write(2, msg, (size_t)n);
        (void)w;
    }
    errno = e;
#if defined(__x86_64__)
    uc->uc_mcontext.gregs[REG_RAX] = -EPERM;
#elif defined(__aarch64__)
    uc->uc_mcontext.regs[0] = (unsigned long)-EPERM;
#endif
}

typedef struct Filter {
    scmp_filter_ctx ctx;
    int rc;
} Filter;

static void allow(Filter *f, int nr)
{
    if (!f->rc && nr >= 0) f->rc = seccomp_rule_add(f->ctx, SCMP_ACT_ALLOW, nr, 0);
}

static void allow_if(Filter *f, int nr, struct scmp_arg_cmp cmp)
{
    if (!f->rc && nr >= 0) f->rc = seccomp_rule_add(f->ctx, SCMP_ACT_ALLOW, nr, 1, cmp);
}

static void refuse(Filter *f, int nr, int err)
{
    if (!f->rc && nr >= 0) f->rc = seccomp_rule_add(f->ctx, SCMP_ACT_ERRNO(err), nr, 0);
}

#define ALLOW(...)                                                                                 \
    do {                                                                                           \
        static const char *const calls_[] = {__VA_ARGS__};                                        \
        for (size_t i_ = 0; i_ < sizeof calls_ / sizeof calls_[0]; i_++)                           \
            allow(f, seccomp_syscall_resolve_name(calls_[i_]));                                    \
    } while (0)

static void allow_basics(Filter *f)
{
    /* memory */
    ALLOW("brk", "mmap", "munmap", "mremap", "mprotect", "madvise", "msync", "mincore",
          "get_mempolicy", "pkey_alloc", "pkey_free", "pkey_mprotect");
    /* threads (a clone below), their end, waiting */
    ALLOW("futex", "set_robust_list", "get_robust_list", "rseq", "set_tid_address", "exit",
          "exit_group", "sched_yield", "sched_getaffinity", "sched_getparam",
          "sched_getscheduler", "sched_get_priority_max", "sched_get_priority_min", "getcpu",
          "membarrier", "arch_prctl", "restart_syscall");
    /* reading files and descriptors */
    ALLOW("read", "readv", "pread64", "preadv", "preadv2", "lseek", "close", "fstat",
          "newfstatat", "stat", "lstat", "statx", "access", "faccessat", "faccessat2", "readlink",
          "readlinkat", "getdents64", "getcwd", "dup", "dup2", "dup3", "pipe", "pipe2");
    /* writing the descriptors it holds */
    ALLOW("write", "writev", "pwrite64", "pwritev", "pwritev2", "fsync", "fdatasync");
    /* time */
    ALLOW("clock_gettime", "clock_getres", "gettimeofday", "time", "nanosleep",
          "clock_nanosleep", "times", "getrusage");
    /* who and where it is */
    ALLOW("getpid", "gettid", "getppid", "getuid", "geteuid", "getgid", "getegid", "getgroups",
          "getresuid", "getresgid", "getpgrp", "uname", "sysinfo", "getrlimit", "getrandom",
          "umask");
    /* more filters (they can only refuse more: the strictest answer of all wins), for
     * the runner's second step, sandbox_filter_seal */
    ALLOW("seccomp");
    /* signals of its own */
    ALLOW("rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigaltstack", "rt_sigpending",
          "rt_sigtimedwait", "rt_sigsuspend");
    /* waiting on descriptors; talking on the sockets it was handed (MPI's ranks) */
    ALLOW("poll", "ppoll", "select", "pselect6", "epoll_create1", "epoll_ctl", "epoll_wait",
          "epoll_pwait", "eventfd2", "recvfrom", "sendto", "recvmsg", "sendmsg", "getsockopt",
          "setsockopt", "getsockname", "getpeername", "shutdown");
}

/* What takes an argument to be allowed. */
static void allow_arguments(Filter *f, int gpu)
{
    pid_t me = getpid();
    /* threads only: a clone must share everything a thread shares; a process (fork, vfork,
     * posix_spawn) or a new namespace is refused. clone3 is answered "not here", so the C
     * library falls back to clone, whose flags a filter can read. */
    allow_if(f, SCMP_SYS(clone),
             SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD | CLONE_VM | CLONE_NEWNS | CLONE_NEWUSER |
                                             CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC |
                                             CLONE_NEWUTS | CLONE_NEWCGROUP,
                     CLONE_THREAD | CLONE_VM));
    if (!f->rc)
        f->rc = seccomp_rule_add(f->ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                                 SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
    /* (a refusal the caller is told of without a signal, where a library tries a process
     * and copes without one: the simulator's source lines, in a handler of its own) */
    refuse(f, SCMP_SYS(fork), EPERM);
    refuse(f, SCMP_SYS(vfork), EPERM);
    refuse(f, SCMP_SYS(clone3), ENOSYS);
    refuse(f, SCMP_SYS(openat2), ENOSYS);
    /* signals to itself only (abort, raise) */
    allow_if(f, SCMP_SYS(tgkill), SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)me));
    allow_if(f, SCMP_SYS(kill), SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)me));
    /* limits: read, never set */
    allow_if(f, SCMP_SYS(prlimit64), SCMP_A2(SCMP_CMP_EQ, 0));
    /* descriptors: their flags and copies, not their owner (F_SETOWN sends signals) */
    static const int fcntl_ok[] = {F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_DUPFD, F_DUPFD_CLOEXEC,
                                   F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK,
                                   F_OFD_SETLKW, F_GET_SEALS};
    for (size_t i = 0; i < sizeof fcntl_ok / sizeof fcntl_ok[0]; i++)
        allow_if(f, SCMP_SYS(fcntl), SCMP_A1(SCMP_CMP_EQ, (scmp_datum_t)fcntl_ok[i]));
    /* prctl: a thread's name, and questions */
    static const int prctl_ok[] = {PR_SET_NAME, PR_GET_NAME, PR_GET_DUMPABLE, PR_GET_NO_NEW_PRIVS,
                                   PR_SET_NO_NEW_PRIVS,
                                   PR_GET_SECCOMP, PR_SET_VMA, PR_GET_TIMERSLACK};
    for (size_t i = 0; i < sizeof prctl_ok / sizeof prctl_ok[0]; i++)
        allow_if(f, SCMP_SYS(prctl), SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)prctl_ok[i]));
    /* ioctl: without a GPU, only the questions the C library asks of a descriptor; with
     * one, also every request of the GPU's driver, which are too many to list: then
     * everything but a terminal's requests (type 'T', 0x54xx: TIOCSTI pushes keystrokes
     * into the shell that started the grader, TIOCLINUX pastes a console's selection,
     * TCSETS and the rest change the instructor's terminal), less the questions above.
     * (An allowance without conditions would outrank every refusal of the same call in
     * libseccomp, so "all but 'T'" is written as allowances: the type byte differs from
     * 0x54 at its highest bit, or equals it there and differs at the next, and so on.) */
    static const unsigned long ioctl_ok[] = {TCGETS, FIONREAD, FIONBIO, FIOCLEX, FIONCLEX,
                                             TIOCGWINSZ};
    for (size_t i = 0; i < sizeof ioctl_ok / sizeof ioctl_ok[0]; i++)
        allow_if(f, SCMP_SYS(ioctl),
                 SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, (scmp_datum_t)ioctl_ok[i]));
    if (gpu) {
        const unsigned tty_type = 0x54; /* 'T' */
        for (int bit = 7; bit >= 0; bit--) {
            scmp_datum_t mask = (0xffu << bit) & 0xffu; /* the type's bits from 7 down to bit */
            scmp_datum_t other = (tty_type ^ (1u << bit)) & mask;
            allow_if(f, SCMP_SYS(ioctl), SCMP_A1(SCMP_CMP_MASKED_EQ, mask << 8, other << 8));
        }
    }
}

/* Opening files: for reading always; for writing only where a layer confines it. */
static void allow_files(Filter *f, int may_write)
{
    const scmp_datum_t writes = O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND | __O_TMPFILE;
    if (may_write) {
        ALLOW("open", "openat", "creat", "mkdir", "mkdirat", "rmdir", "unlink", "unlinkat",
              "rename", "renameat", "renameat2", "ftruncate", "fallocate", "fchmod", "utimensat");
        return;
    }
    allow_if(f, SCMP_SYS(openat), SCMP_A2(SCMP_CMP_MASKED_EQ, writes, 0));
    allow_if(f, SCMP_SYS(open), SCMP_A1(SCMP_CMP_MASKED_EQ, writes, 0));
}

int sandbox_filter_install(int may_write, int gpu, char *err, size_t size)
{
    for (int nr = 0; nr < NAMED; nr++)
        if (!names[nr]) names[nr] = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
    void *warm[4]; /* the unwinder loads on its first use: here, not in the handler */
    backtrace(warm, 4);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigsys;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSYS, &sa, NULL) != 0) {
        snprintf(err, size, "the filter's SIGSYS handler: %s", strerror(errno));
        return -1;
    }
#if defined(__x86_64__) || defined(__aarch64__)
    Filter fl = {seccomp_init(SCMP_ACT_TRAP), 0};
#else
    Filter fl = {seccomp_init(SCMP_ACT_ERRNO(EPERM)), 0};
#endif
    Filter *f = &fl;
    if (!f->ctx) {
        snprintf(err, size, "seccomp_init failed");
        return -1;
    }
    /* The other ABIs of this machine (i386's int 0x80, x32) are refused outright. */
    seccomp_attr_set(f->ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
    seccomp_attr_set(f->ctx, SCMP_FLTATR_CTL_NNP, 1);
    /* A filter is a thread's: the threads that libraries started before it (MPI's progress
     * threads in a rank, a GPU driver's) get it too, or student code could run on one of
     * them (their stacks are its memory) with no filter at all. */
    if (seccomp_attr_set(f->ctx, SCMP_FLTATR_CTL_TSYNC, 1) != 0) {
        snprintf(err, size, "the system-call filter cannot cover every thread (no TSYNC)");
        seccomp_release(f->ctx);
        return -1;
    }
    allow_basics(f);
    allow_arguments(f, gpu);
    allow_files(f, may_write);
    if (f->rc) {
        snprintf(err, size, "building the system-call filter: %s", strerror(-f->rc));
        seccomp_release(f->ctx);
        return -1;
    }
    int rc = seccomp_load(f->ctx);
    seccomp_release(f->ctx);
    if (rc != 0) {
        snprintf(err, size, "installing the system-call filter: %s", strerror(-rc));
        return -1;
    }
    return 0;
}

int sandbox_filter_seal(char *err, size_t size)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx) {
        snprintf(err, size, "seccomp_init failed");
        return -1;
    }
    int rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1); /* every thread, as above */
    static const char *const mapping[] = {"mmap", "mprotect", "pkey_mprotect"};
    for (size_t i = 0; i < 3 && !rc; i++) {
        int nr = seccomp_syscall_resolve_name(mapping[i]);
        if (nr < 0) continue;
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 1,
                              SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
    }
    if (!rc) rc = seccomp_load(ctx);
    seccomp_release(ctx);
    if (rc != 0) {
        snprintf(err, size, "sealing executable memory: %s", strerror(-rc));
        return -1;
    }
    return 0;
}
