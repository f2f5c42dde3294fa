/*
 * faults.cpp: the signal handler. A fault is one of three things: a device
 * operation's first touch of a buffer that host_guard.cpp keeps shut (the
 * buffer is opened and the access goes on); host code touching device memory
 * (one line saying so, then the usual crash); or a kernel's wild access or
 * integer division by zero (the thread stops, and once the block's others
 * have run the launch stops with CUDA's error and the report of the block's
 * first thread to fault, with its line: launch.cpp).
 */
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "../internal.h"

namespace cudasim {
namespace internal {

namespace {

char g_altstack[64 * 1024];

/* The stack the fault handler runs on, one per thread (sigaltstack is a
 * thread's own): the main thread's is g_altstack; a thread of the program's
 * that calls CUDA gets one of its own, unless it has one already (the
 * sanitizers give every thread theirs, and take it back when it ends). */
struct ThreadAltStack {
    bool done = false;
    void *mem = nullptr;
    ~ThreadAltStack()
    {
        stack_t cur;
        if (!mem || sigaltstack(nullptr, &cur) != 0 || cur.ss_sp != mem) return;
        stack_t off;
        memset(&off, 0, sizeof off);
        off.ss_flags = SS_DISABLE;
        if (sigaltstack(&off, nullptr) == 0) munmap(mem, sizeof g_altstack);
    }
};
thread_local ThreadAltStack t_altstack;

void install_altstack()
{
    if (t_altstack.done) return;
    t_altstack.done = true;
    stack_t ss;
    memset(&ss, 0, sizeof ss);
    if (gettid() == getpid()) {
        ss.ss_sp = g_altstack;
    } else {
        stack_t cur;
        if (sigaltstack(nullptr, &cur) == 0 && !(cur.ss_flags & SS_DISABLE) &&
            cur.ss_size >= sizeof g_altstack / 2)
            return;
        void *mem = mmap(nullptr, sizeof g_altstack, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mem == MAP_FAILED) return;
        ss.ss_sp = t_altstack.mem = mem;
    }
    ss.ss_size = sizeof g_altstack;
    sigaltstack(&ss, nullptr);
}

/* The program's executable code (its PT_LOAD segments that execute), found
 * when the fault handler is installed, for fault_line. */
uintptr_t g_exe_base = 0, g_exe_lo = 0, g_exe_hi = 0;

int note_exe(struct dl_phdr_info *info, size_t, void *)
{
    if (info->dlpi_name && info->dlpi_name[0]) return 0; /* a shared library */
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) &ph = info->dlpi_phdr[i];
        if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X)) continue;
        uintptr_t lo = info->dlpi_addr + ph.p_vaddr, hi = lo + ph.p_memsz;
        if (!g_exe_lo || lo < g_exe_lo) g_exe_lo = lo;
        if (hi > g_exe_hi) g_exe_hi = hi;
    }
    g_exe_base = info->dlpi_addr;
    return 1;
}

/* What addr2line says of the program's code at offset rel (with -i: the
 * inlined calls around it too, innermost first), into text. It runs in the
 * signal handler: system calls and the formatting of numbers only, and
 * addr2line in a process of its own. */
void run_addr2line(uintptr_t rel, bool inlines, char *text, size_t size)
{
    text[0] = '\0';
    char exe[64], hex[32];
    snprintf(exe, sizeof exe, "/proc/%d/exe", (int)getpid());
    snprintf(hex, sizeof hex, "0x%lx", (unsigned long)rel);
    int fd[2];
    if (pipe(fd) != 0) return;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 1);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) dup2(null, 2);
        close(fd[0]);
        char *argv[6];
        int k = 0;
        argv[k++] = (char *)"addr2line";
        if (inlines) argv[k++] = (char *)"-i";
        argv[k++] = (char *)"-e";
        argv[k++] = exe;
        argv[k++] = hex;
        argv[k] = nullptr;
        execvp("addr2line", argv);
        _exit(127);
    }
    close(fd[1]);
    size_t got = 0;
    ssize_t n;
    while (pid > 0 && got < size - 1 && (n = read(fd[0], text + got, size - 1 - got)) > 0)
        got += (size_t)n;
    close(fd[0]);
    if (pid > 0) waitpid(pid, nullptr, 0);
    text[got] = '\0';
}

/* One line of addr2line's output as a report names it ("" if unknown): a
 * file under the current folder by its relative name, as reports say. */
void shown_line(char *line, char *buf, size_t size)
{
    buf[0] = '\0';
    char *disc = strstr(line, " (discriminator");
    if (disc) *disc = '\0';
    size_t len = strlen(line);
    if (len < 3 || line[0] == '?' || strcmp(line + len - 2, ":0") == 0 ||
        strcmp(line + len - 2, ":?") == 0)
        return;
    char cwd[1024];
    const char *shown = line;
    if (getcwd(cwd, sizeof cwd - 1)) {
        size_t c = strlen(cwd);
        if (strncmp(line, cwd, c) == 0 && line[c] == '/') shown = line + c + 1;
    }
    snprintf(buf, size, "%s", shown);
}

/* "file:line" of the program's code at pc (a return address unless exact),
 * into buf ("" if it is not the program's own code or has no line); with
 * skip_simulator, the innermost of the inlined calls there that is in
 * neither the simulator's sources nor the system's. */
void code_line(uintptr_t pc, bool exact, bool skip_simulator, char *buf, size_t size)
{
    buf[0] = '\0';
    if (!exact) pc--;
    if (pc < g_exe_lo || pc >= g_exe_hi || size < 16) return;
    char text[1024];
    run_addr2line(pc - g_exe_base, skip_simulator, text, sizeof text);
    for (char *line = text; *line;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        bool ours = strstr(line, "lib/cudasim/") || strncmp(line, "/usr/", 5) == 0;
        if (!skip_simulator || !ours) {
            shown_line(line, buf, size);
            if (buf[0] || !skip_simulator) return;
        }
        if (!nl) break;
        line = nl + 1;
    }
}

/* "; the access is at file:line" of the instruction that faulted, into buf
 * ("" if it is not the program's own code or has no line), for a fault in
 * host code. */
void fault_line(void *uctx, char *buf, size_t size)
{
    buf[0] = '\0';
#if defined(__x86_64__) && defined(REG_RIP)
    uintptr_t pc = (uintptr_t)((ucontext_t *)uctx)->uc_mcontext.gregs[REG_RIP];
    char line[600];
    if (t_host_atomic_caller) /* in a host atomic's hook (access.cpp): the line that called it */
        code_line((uintptr_t)t_host_atomic_caller, false, false, line, sizeof line);
    else
        code_line(pc, true, false, line, sizeof line);
    if (line[0]) snprintf(buf, size, "; the access is at %s", line);
#else
    (void)uctx;
    (void)size;
#endif
}

/* Host code touched managed memory while device work may run: the work, the
 * program's line that issued it, and the line of the access. On the linux
 * platform (concurrentManagedAccess = 1) that is a race with the work, and
 * the program goes on; on windows (0) the access faults. */
void report_managed_access(uintptr_t a, uintptr_t start, const Alloc &al, const char *did,
                           const char *work, void *const *frames, int nframes, void *uctx)
{
    char issued[600] = "", line[600], msg[1800];
    for (int i = 1; i < nframes && !issued[0]; i++)
        code_line((uintptr_t)frames[i], false, true, issued, sizeof issued);
    fault_line(uctx, line, sizeof line);
    int n;
    if (managed_concurrent())
        n = snprintf(msg, sizeof msg,
                     "cudasim: data race between host code and %s: host code %s managed memory "
                     "at %p (byte %zu of a %zu-byte cudaMallocManaged buffer) while the GPU may "
                     "still run %s%s%s, with nothing ordering the two: this device has "
                     "concurrentManagedAccess = 1 (a Pascal or newer GPU under Linux), so the "
                     "access does not fault, but it may come before or after the work's own; "
                     "call cudaDeviceSynchronize() (or synchronize the stream) before touching "
                     "it%s\n",
                     work, did, (void *)a, (size_t)(a - start), al.size, work,
                     issued[0] ? ", issued at " : "", issued, line);
    else
        n = snprintf(msg, sizeof msg,
                     "cudasim: host code %s managed memory at %p (byte %zu of a %zu-byte "
                     "cudaMallocManaged buffer) while the GPU may still run %s%s%s: this device "
                     "has concurrentManagedAccess = 0 (as GPUs under Windows and before Pascal: "
                     "CUDASIM_MANAGED=windows), so from a launch until the host waits for it the "
                     "GPU has all managed memory to itself, and the CPU's access faults; call "
                     "cudaDeviceSynchronize() (or synchronize the stream) before touching it%s\n",
                     did, (void *)a, (size_t)(a - start), al.size, work,
                     issued[0] ? ", issued at " : "", issued, line);
    if (n > (int)sizeof msg - 1) n = (int)sizeof msg - 1;
    ssize_t ignored = write(STDERR_FILENO, msg, (size_t)n);
    (void)ignored;
}

/* Host code touched a buffer's mapping outside any device operation: say
 * what happened, in one line written straight to stderr (the program is
 * about to die, so even with reports silenced; and without stdio, which the
 * faulting code may have been using). */
bool report_host_access(uintptr_t a, uintptr_t start, const Alloc &al, void *uctx)
{
    const char *did = "read or wrote";
#if defined(__x86_64__) && defined(REG_ERR)
    /* The page fault's error code: bit 1 is set for a write. */
    did = ((ucontext_t *)uctx)->uc_mcontext.gregs[REG_ERR] & 2 ? "wrote" : "read";
#else
    (void)uctx;
#endif
    void *const *frames;
    int nframes;
    const char *work = al.managed ? managed_busy_with(&frames, &nframes) : nullptr;
    if (work && a >= start && a < start + al.size) {
        report_managed_access(a, start, al, did, work, frames, nframes, uctx);
        if (!managed_concurrent()) return false;
        g_hazards++;
        managed_host_raced();
        return true;
    }
    const char *kind = al.device ? "cudaMalloc" : "cudaMallocHost";
    char where[160], msg[640];
    if (a >= start && a < start + al.size)
        snprintf(where, sizeof where, "byte %zu of a %zu-byte %s buffer", (size_t)(a - start),
                 al.size, kind);
    else if (a >= start)
        snprintf(where, sizeof where, "%zu bytes past the end of a %zu-byte %s buffer",
                 (size_t)(a - start - al.size), al.size, kind);
    else
        snprintf(where, sizeof where, "%zu bytes before the start of a %zu-byte %s buffer",
                 (size_t)(start - a), al.size, kind);
    char line[600];
    fault_line(uctx, line, sizeof line);
    int n;
    if (al.device)
        n = snprintf(msg, sizeof msg,
                     "cudasim: host code %s device memory at %p (%s): on a GPU the CPU cannot "
                     "dereference device pointers; copy the data with cudaMemcpy first%s\n",
                     did, (void *)a, where, line);
    else
        n = snprintf(msg, sizeof msg,
                     "cudasim: host code %s memory at %p (%s): an index beyond the buffer%s\n",
                     did, (void *)a, where, line);
    if (n > (int)sizeof msg - 1) n = (int)sizeof msg - 1;
    ssize_t ignored = write(STDERR_FILENO, msg, (size_t)n);
    (void)ignored;
    return false;
}

void on_fault(int sig, siginfo_t *info, void *uctx)
{
    uintptr_t a = (uintptr_t)info->si_addr, start = 0;
    Alloc *al = sig == SIGSEGV || sig == SIGBUS ? mapping_of(a, &start) : nullptr;
    if (al && g_device_ops.load() > 0 && al->guarded && a < (uintptr_t)al->map + data_bytes(*al) &&
        sig == SIGSEGV && (info->si_code == SEGV_ACCERR || info->si_code == 4 /* SEGV_PKUERR */)) {
        /* A device operation touched a buffer still shut: open it, and the
         * access goes on (a buffer opened already was opened by another
         * thread just now: the access goes on too). */
        open_buffer(start, *al);
        return;
    }
    if (!g_launch.in_kernel) {
        if (al && g_device_ops.load() == 0 && report_host_access(a, start, *al, uctx))
            return; /* a race with the work, reported: the access goes on */
        if (!al && g_device_ops.load() == 0 && sig == SIGSEGV) {
            uintptr_t fs;
            if (const Freed *f = find_freed(a, &fs)) {
                char msg[1000], line[600];
                fault_line(uctx, line, sizeof line);
                int n = snprintf(msg, sizeof msg,
                                 "cudasim: host code touched device memory at %p, in a %zu-byte "
                                 "%s buffer that cudaFree had freed (a use after free%s)%s\n",
                                 (void *)a, f->size, f->managed ? "cudaMallocManaged" : "cudaMalloc",
                                 f->managed ? "" : "; on a GPU the CPU cannot dereference device "
                                                   "pointers at all", line);
                if (n > (int)sizeof msg - 1) n = (int)sizeof msg - 1;
                ssize_t ignored = write(STDERR_FILENO, msg, (size_t)n);
                (void)ignored;
            }
        }
        signal(sig, SIG_DFL); /* crash as usual: the access faults again */
        return;
    }
    g_launch.checking = false;
    char who[256];
    describe_thread(who, sizeof who);
    const void *ip = nullptr;
    bool wrote = false;
#if defined(__x86_64__) && defined(REG_RIP)
    ip = (const void *)((ucontext_t *)uctx)->uc_mcontext.gregs[REG_RIP];
    wrote = ((ucontext_t *)uctx)->uc_mcontext.gregs[REG_ERR] & 2;
#endif
    { /* (the strings are gone before leave_faulted_thread jumps away) */
        cudaError_t e = sig == SIGFPE ? cudaErrorLaunchFailure : cudaErrorIllegalAddress;
        std::string line = at_line(ip, true), what;
        const char *kind = wrote ? "write" : "read";
        if (sig == SIGFPE) {
            note_fault(e, who,
                       "integer division by zero in %s%s (a GPU does not stop there, it gives an "
                       "undefined result; the simulator stops the kernel so you find it) "
                       "(reported as an unspecified launch failure)",
                       who, line.c_str());
        } else if (in_region(a) && (al || find_freed(a))) {
            what = missed_global(a, 1);
            note_fault(e, who,
                       "Invalid __global__ %s in %s%s: address %p %s: %s (CUDA reports: an "
                       "illegal memory access was encountered)",
                       kind, who, line.c_str(), info->si_addr,
                       find_freed(a) ? "is in freed memory" : "is out of bounds", what.c_str());
        } else if (al) {
            note_fault(e, who,
                       "Invalid __global__ %s in %s%s: address %p is out of bounds: %lld bytes "
                       "past the end of a %zu-byte %s buffer (an index beyond its last element: "
                       "check the bounds test) (CUDA reports: an illegal memory access was "
                       "encountered)",
                       kind, who, line.c_str(), info->si_addr,
                       (long long)(a - (start + al->size)), al->size,
                       alloc_name(al->device, al->managed));
        } else if (a - g_sh_lo < g_sh_span) {
            what = missed_shared(a, 1);
            note_fault(e, who,
                       "Invalid __shared__ %s in %s%s: address %s is out of bounds: %s (CUDA "
                       "reports: an illegal memory access was encountered)",
                       kind, who, line.c_str(), address_text(a).c_str(), what.c_str());
        } else if (a < 65536) {
            note_fault(e, who,
                       "invalid %s in %s%s: a NULL pointer dereference (address %p) (CUDA "
                       "reports: an illegal memory access was encountered)",
                       kind, who, line.c_str(), info->si_addr);
        } else {
            note_fault(e, who,
                       "invalid %s in %s%s: an invalid memory access at address %p, in no device "
                       "buffer (CUDA reports: an illegal memory access was encountered)",
                       kind, who, line.c_str(), info->si_addr);
        }
    }
    leave_faulted_thread();
}

#if CUDASIM_ASAN
/* When AddressSanitizer stops the program inside a kernel, say which thread. */
void on_asan_death()
{
    if (!g_launch.in_kernel) return;
    char who[256];
    describe_thread(who, sizeof who);
    fprintf(stderr, "cudasim: AddressSanitizer's report above is about %s\n", who);
}
#endif

} // namespace

void install_fault_handler()
{
    install_altstack();
    static bool done = false;
    if (done) return;
    done = true;
#if CUDASIM_ASAN
    __sanitizer_set_death_callback(on_asan_death);
#endif
    g_page = (size_t)sysconf(_SC_PAGESIZE);
    dl_iterate_phdr(note_exe, nullptr);
#if CUDASIM_HAVE_PKEYS
    /* The key starts denied to this thread (and other threads are denied
     * every key but 0 from their start, or from this one's). */
    g_pkey = pkey_alloc(0, PKEY_DISABLE_ACCESS);
    const char *env = getenv("CUDASIM_PKEYS");
    g_use_pkeys = g_pkey >= 0 && !(env && strcmp(env, "0") == 0);
#endif
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, nullptr);
    sigaction(SIGBUS, &sa, nullptr);
    sigaction(SIGFPE, &sa, nullptr);
}

} // namespace internal
} // namespace cudasim
