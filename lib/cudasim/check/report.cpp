/*
 * report.cpp: how the simulator speaks. A problem is reported on standard
 * error (or the stream cudasim_set_report_stream chose) as one line, named by
 * the program's line that called the simulator (or, in a kernel, by the
 * thread and its line); the runtime call then fails with the error real
 * CUDA gives (fail), and a kernel fault is "sticky". Source lines come from
 * the program's debug information, read by addr2line. Hazards (races, reads
 * of memory never written) are reported once per pair of lines.
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <set>
#include <unordered_map>

#include "../cudasim.h"
#include "../internal.h"

namespace cudasim {
namespace internal {

namespace {
std::string host_call_site();
FILE *g_report_stream = (FILE *)1; /* 1: stderr, resolved at first use */
} // namespace

cudaError_t g_last = cudaSuccess;   /* what cudaGetLastError returns next */
cudaError_t g_sticky = cudaSuccess; /* a kernel fault: returned until reset */
std::string g_report;
std::string g_report_context; /* prefixed to reports: where a graph launch is */
bool g_report_at_exit = false;

unsigned long long g_report_count = 0;

/* Reports, and the lines they name, one thread at a time: a launch's blocks may run
 * on several (exec/parallel.cpp). (No destructor: reports come until the end.) */
pthread_mutex_t g_report_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
struct ReportLock {
    ReportLock() { pthread_mutex_lock(&g_report_lock); }
    ~ReportLock() { pthread_mutex_unlock(&g_report_lock); }
};

void report(const char *fmt, ...)
{
    ReportLock hold;
    g_report_count++;
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    /* Source files under the current folder by their relative names, as the
     * compiler named them (a program built by make sim-run knows them by
     * their absolute paths). */
    /* (Never destroyed: the leak check reports at exit, after the destructors
     * of statics made since the first allocation have run.) */
    static std::string &cwd = *new std::string;
    if (cwd.empty()) {
        char c[4096];
        cwd = getcwd(c, sizeof c) ? std::string(c) + "/" : std::string("\n");
    }
    std::string text = buf;
    for (size_t at; cwd.size() > 1 && (at = text.find(cwd)) != std::string::npos;)
        text.erase(at, cwd.size());
    /* A runtime call, or a launch, is reported at the program's line that
     * made it (a kernel's own reports name their thread and line). */
    std::string site = host_call_site();
    if (!site.empty()) site += ": ";
    g_report = site + g_report_context + text;
    FILE *out = g_report_stream == (FILE *)1 ? stderr : g_report_stream;
    if (out) {
        /* What the program printed before comes first, also where both streams go to one
         * file (stdout is then buffered, stderr not). */
        if (out != stdout) fflush(stdout);
        fprintf(out, "cudasim: %s\n", g_report.c_str());
        fflush(out);
    }
}

cudaError_t fail(cudaError_t e)
{
    g_last = e;
    return e;
}

/* ---- hazards: reported once ---- */

unsigned long long g_hazards = 0; /* races and uninitialized reads reported */

namespace {
const unsigned long long kMaxHazardReports = 100;
std::set<std::pair<uint64_t, uint64_t>> g_reported; /* (kind, code, code) reported */
std::set<std::string> g_reported_lines;             /* (kind, source lines) reported */

/* The code addresses that made accesses, numbered (a race cell keeps numbers). */
std::vector<const void *> g_pcs(1, nullptr);
struct PcSlot {
    const void *pc;
    uint32_t id;
};
PcSlot g_pc_cache[4096];
std::unordered_map<const void *, uint32_t> g_pc_ids;
} // namespace

uint32_t pc_id(const void *pc)
{
    PcSlot &s = g_pc_cache[((uintptr_t)pc >> 2) & 4095];
    if (s.pc == pc) return s.id;
    auto it = g_pc_ids.find(pc);
    uint32_t id;
    if (it != g_pc_ids.end()) {
        id = it->second;
    } else {
        id = (uint32_t)g_pcs.size();
        g_pcs.push_back(pc);
        g_pc_ids[pc] = id;
    }
    s.pc = pc;
    s.id = id;
    return id;
}

/* Whether this (kind, code, code) was reported already. */
bool hazard_reported(int kind, uint64_t a, uint64_t b)
{
    return g_reported.count({((uint64_t)kind << 56) ^ a, b}) != 0;
}

/* Whether this hazard is new: each (kind, code, code) once, and each
 * (kind, source line, source line) once (several accesses of one line are
 * one report). */
bool first_report(int kind, uint64_t a, uint64_t b, const std::string &lines)
{
    if (!g_reported.insert({((uint64_t)kind << 56) ^ a, b}).second) return false;
    if (!g_reported_lines.insert(std::to_string(kind) + "|" + lines).second) return false;
    g_hazards++;
    if (g_hazards == kMaxHazardReports + 1)
        report("more than %llu races and uninitialized reads: the rest are not reported",
               kMaxHazardReports);
    return g_hazards <= kMaxHazardReports;
}

/* ---- source lines, for reports ---- */

namespace {

/* A program's standard output (standard error dropped); "" if it cannot run, and then
 * *started false. */
std::string capture(const std::vector<std::string> &args, bool *started = nullptr)
{
    int fd[2];
    if (started) *started = false;
    if (pipe(fd) != 0) return "";
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_addclose(&fa, fd[0]);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    std::vector<char *> argv;
    for (const std::string &a : args) argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fd[1]);
    if (started) *started = rc == 0;
    std::string out;
    if (rc == 0) {
        char buf[4096];
        ssize_t n;
        while ((n = read(fd[0], buf, sizeof buf)) > 0) out.append(buf, (size_t)n);
        waitpid(pid, nullptr, 0);
    }
    close(fd[0]);
    return out;
}

std::map<std::pair<const void *, bool>, std::string> g_lines;

/* "file:line" with file the .cu a translated file came from. The translator
 * keeps the lines and starts its output with `#line 1 "prog.cu"`, but GCC
 * names the file it compiled for some lines of its debug information (those
 * of a loop's copies, with a discriminator), and a report must not point at
 * a file the student never wrote. */
std::string untranslated(const std::string &where)
{
    size_t colon = where.rfind(':');
    if (colon == std::string::npos || colon < 4 || where.compare(colon - 4, 4, ".cpp") != 0)
        return where;
    std::string file = where.substr(0, colon);
    static auto &origin = *new std::map<std::string, std::string>; /* (as report's cwd) */
    auto found = origin.find(file);
    if (found == origin.end()) {
        std::string cu;
        if (FILE *f = fopen(file.c_str(), "r")) {
            /* The translation's first lines: `#line 1 "prog.cu"`, its #defines, and
             * `#line 1 "prog.cu"` again where the program's text begins; that text may
             * begin with a #line of its own (make try's copy of a student's file names
             * the student's): the last of them names the program's lines. */
            char line[4096];
            const char *tag = "#line 1 \"";
            while (fgets(line, sizeof line, f)) {
                if (strncmp(line, tag, strlen(tag)) == 0) {
                    std::string named = line + strlen(tag);
                    size_t end = named.rfind('"');
                    if (end != std::string::npos) cu = named.substr(0, end);
                } else if (strncmp(line, "#define ", 8) != 0) {
                    break;
                }
            }
            fclose(f);
        }
        found = origin.emplace(file, cu).first;
    }
    return found->second.empty() ? where : found->second + where.substr(colon);
}

} // namespace

/* "file:line" of the code at pc, "" if unknown. pc is a return address (the
 * call is the instruction before it) unless exact. addr2line reads the
 * program's debug information; of the inlined functions at pc, the innermost
 * outside the simulator's own headers and the system's is the line. Where
 * addr2line cannot be started (a sandbox that allows no new process, as the
 * grader's), the code's place in its file instead, "FILE+0xOFFSET", as
 * addr2line -e FILE would read it (the grader's judge does, outside). */
std::string source_line(const void *pc, bool exact)
{
    ReportLock hold;
    auto key = std::make_pair(pc, exact);
    auto found = g_lines.find(key);
    if (found != g_lines.end()) return found->second;
    std::string out;
    Dl_info info, self;
    if (pc && dladdr(pc, &info) && info.dli_fbase) {
        uintptr_t addr = (uintptr_t)pc - (exact ? 0 : 1);
        const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)info.dli_fbase;
        if (eh->e_type == ET_DYN) addr -= (uintptr_t)info.dli_fbase;
        std::string file = info.dli_fname ? info.dli_fname : "";
        if (dladdr((const void *)&source_line, &self) && self.dli_fbase == info.dli_fbase) {
            char exe[64]; /* the program itself, wherever it was started from */
            snprintf(exe, sizeof exe, "/proc/%d/exe", (int)getpid());
            file = exe;
        }
        char hex[32];
        snprintf(hex, sizeof hex, "0x%lx", (unsigned long)addr);
        bool started = false;
        std::string text = capture({"addr2line", "-i", "-e", file, hex}, &started);
        if (!started) {
            /* the program itself by the name it was started under */
            char self_path[4096];
            ssize_t n = file.compare(0, 6, "/proc/") == 0 && file.find("/exe") != std::string::npos
                            ? readlink("/proc/self/exe", self_path, sizeof self_path - 1)
                            : -1;
            if (n > 0) file.assign(self_path, (size_t)n);
            g_lines[key] = file + "+" + hex;
            return g_lines[key];
        }
        std::string first;
        size_t at = 0;
        while (at < text.size()) {
            size_t nl = text.find('\n', at);
            if (nl == std::string::npos) nl = text.size();
            std::string l = text.substr(at, nl - at);
            at = nl + 1;
            size_t d = l.find(" (discriminator");
            if (d != std::string::npos) l.resize(d);
            if (l.empty() || l[0] == '?' || l.size() < 3 || l.compare(l.size() - 2, 2, ":0") == 0 ||
                l.compare(l.size() - 2, 2, ":?") == 0)
                continue;
            if (first.empty()) first = l;
            if (l.find("/lib/cudasim/") == std::string::npos && l.compare(0, 5, "/usr/") != 0) {
                out = l;
                break;
            }
        }
        if (out.empty()) out = first;
        out = untranslated(out);
        char cwd[4096];
        if (getcwd(cwd, sizeof cwd)) {
            std::string c = std::string(cwd) + "/";
            if (out.compare(0, c.size(), c) == 0) out = out.substr(c.size());
        }
    }
    g_lines[key] = out;
    return out;
}

/* " at file:line" (or "" when unknown). */
std::string at_line(const void *pc, bool exact)
{
    std::string l = source_line(pc, exact);
    return l.empty() ? "" : " at " + l;
}

namespace {

/* The line of the program that called into the simulator, for a report made
 * outside a kernel: the innermost frame of the call stack whose source is
 * neither the simulator's nor the system's. "" inside a kernel, or without
 * debug information. */
std::string host_call_site()
{
    if (g_launch.in_kernel || g_report_at_exit) return "";
    void *frames[48];
    int n = backtrace(frames, 48);
    for (int i = 1; i < n; i++) {
        std::string l = source_line(frames[i]);
        if (l.empty()) continue;
        if (l.find("lib/cudasim/") != std::string::npos || l.compare(0, 5, "/usr/") == 0 ||
            l.find("/include/c++/") != std::string::npos || l.compare(0, 2, "??") == 0)
            continue;
        return l;
    }
    return "";
}

} // namespace

} // namespace internal
} // namespace cudasim

using namespace cudasim::internal;

/* ---- the simulator's own API ---- */

extern "C" const char *cudasim_last_report(void) { return g_report.c_str(); }
extern "C" void cudasim_clear_report(void) { g_report.clear(); }
extern "C" void cudasim_set_report_stream(FILE *stream) { g_report_stream = stream; }
extern "C" unsigned long long cudasim_hazard_count(void) { return g_hazards; }

extern "C" void cudasim_report(const char *message) { report("%s", message); }
