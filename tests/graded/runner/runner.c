/*
 * runner.c: the program that runs the student's code for one graded case
 * (runner.h). It is the only grading program that loads student code (a shared
 * object, loaded once its system-call filter is in place: student.h), and it
 * only reports: every record it writes is data that the judge checks.
 */
#define _DEFAULT_SOURCE
#include "runner.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/device/backend.h"
#include "lib/device/device.h"
#include "lib/core/err.h"
#include "lib/core/fileio.h"
#include "lib/dist/dist.h"
#include "lib/dist/launch.h"
#include "../protocol/protocol.h"
#include "../sandbox/sandbox.h"
#include "student.h"


static int out_fd = -1;

static void send_record(RecordKind kind, const char *name, const void *payload, uint64_t bytes)
{
    size_t len;
    unsigned char *buf = record_encode(kind, name, payload, bytes, &len);
    if (!buf) {
        fprintf(stderr, "runner: out of memory for record %s\n", name);
        _exit(3);
    }
    for (size_t done = 0; done < len;) {
        ssize_t w = write(out_fd, buf + done, len - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) _exit(3); /* the judge went away */
        done += (size_t)w;
    }
    free(buf);
}

void put_i64(const char *name, int64_t v)
{
    send_record(REC_I64, name, &v, sizeof v);
}
void put_f64(const char *name, double v)
{
    send_record(REC_F64, name, &v, sizeof v);
}

void put_f32(const char *name, const float *p, int64_t n)
{
    send_record(REC_F32S, name, p, n > 0 && p ? (uint64_t)n * sizeof(float) : 0);
}

void put_str(const char *name, const char *s)
{
    if (s) send_record(REC_STR, name, s, strlen(s));
}

void put_rc(const char *name, int rc)
{
    put_i64(name, rc);
    put_i64(key("%s.code", name), err_code());
    put_str(key("%s.msg", name), err_message());
}

float *guarded_new(int64_t n, float fill)
{
    /* layout: [n as int64][GUARD floats][n floats][GUARD floats] */
    char *raw = malloc(sizeof(int64_t) + (size_t)(n + 2 * GUARD) * sizeof(float));
    ck_assert_ptr_nonnull(raw);
    memcpy(raw, &n, sizeof n);
    float *p = (float *)(raw + sizeof(int64_t)) + GUARD;
    for (int64_t i = 0; i < n; i++)
        p[i] = fill;
    for (int d = 1; d <= GUARD; d++)
        p[-d] = p[n - 1 + d] = guard_float(d);
    return p;
}

static int64_t guarded_len(const float *p)
{
    int64_t n;
    memcpy(&n, (const char *)(p - GUARD) - sizeof(int64_t), sizeof n);
    return n;
}

float *guarded_copy(const float *src, int64_t n)
{
    float *p = guarded_new(n, 0.0f);
    if (n > 0) memcpy(p, src, (size_t)n * sizeof *p);
    for (int d = 1; d <= GUARD; d++) p[-d] = p[n - 1 + d] = guard_float(d + 1);
    return p;
}

void put_guarded(const char *name, const float *p)
{
    put_f32(name, p - GUARD, guarded_len(p) + 2 * GUARD);
}

void guarded_free(float *p)
{
    if (p) free((char *)(p - GUARD) - sizeof(int64_t));
}

float *copy_of(const float *p, int64_t n)
{
    float *c = malloc((size_t)(n > 0 ? n : 1) * sizeof *c);
    ck_assert_ptr_nonnull(c);
    if (n > 0) memcpy(c, p, (size_t)n * sizeof *c);
    return c;
}

/* Check's assertion macros call these two. In the runner a failed assertion
 * of a RUN body's own set-up is recorded for the judge, which fails the case. */
void _mark_point(const char *file, int line)
{
    (void)file, (void)line;
}

void _ck_assert_failed(const char *file, int line, const char *expr, const char *fmt, ...)
{
    char msg[2048];
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
    } else {
        snprintf(msg, sizeof msg, "%s (%s:%d)", expr, file, line);
    }
    send_record(REC_FAIL, "fail", msg, strlen(msg));
    _exit(0);
}

/* What tests/graded/allow/check_student.pl puts in place of an exercise it refused. */
void graded_refused(const char *why)
{
    send_record(REC_FAIL, "fail", why, strlen(why));
    _exit(0);
}

/* What a runner has in place of what it leaves out (tests/graded/allow/, "withhold"). */
void graded_withheld(const char *name, const char *why)
{
    char msg[400];
    snprintf(msg, sizeof msg,
             "%s was called, which the grader leaves out of this lesson's runner: %s "
             "(tests/graded/allow/README.md)",
             name, why);
    graded_refused(msg);
}

/* What the calls of a refused exercise's code were pointed at (check_student.pl). */
void graded_refused_call(void)
{
    static const char why[] = "code that the grader refused was run";
    send_record(REC_FAIL, "fail", why, sizeof why - 1);
    _exit(0);
}

/* ---- cases that run as several ranks (runner.h) ------------------------------------ */

/* Suites without rank cases define no table (weak: then both addresses are NULL). */
extern const RunCase rank_cases[] __attribute__((weak));
extern const int n_rank_cases __attribute__((weak));

/* One rank's records, sent again under "rR.". */
static void forward_rank(int r, const char *path)
{
    char *data = NULL;
    size_t len = 0;
    RecordSet set = {0};
    char why[256] = "";
    if (fileio_read(path, &data, &len) != 0 ||
        records_parse((const unsigned char *)data, len, &set, NULL, why, sizeof why) != 0) {
        put_i64(key("r%d.ended", r), 0);
        if (why[0]) put_str(key("r%d.fail", r), why);
        free(data);
        records_free(&set);
        return;
    }
    for (int i = 0; i < set.n; i++) {
        const Record *rec = &set.recs[i];
        char name[REC_NAME_MAX + 16];
        snprintf(name, sizeof name, "r%d.%s", r, rec->name);
        if (rec->kind == REC_I64) put_i64(name, rec->i64);
        else if (rec->kind == REC_F64) put_f64(name, rec->f64);
        else if (rec->kind == REC_F32S) put_f32(name, rec->f32, rec->n);
        else if (rec->kind == REC_STR) put_str(name, rec->str);
    }
    put_i64(key("r%d.ended", r), set.ended);
    if (set.why) put_str(key("r%d.fail", r), set.why);
    free(data);
    records_free(&set);
}

/* Cases whose RUN body only starts ranks (run_ranks): the runner that runs them loads no
 * student code and installs no filter, since it starts mpirun; the ranks do both. */
extern const char *const launcher_cases[] __attribute__((weak));
extern const int n_launcher_cases __attribute__((weak));

static int launches_ranks(const char *name)
{
    for (int i = 0; launcher_cases && &n_launcher_cases && i < n_launcher_cases; i++)
        if (strcmp(launcher_cases[i], name) == 0) return 1;
    return 0;
}

static int launcher; /* this process runs a case of launcher_cases */
static int student_fd = -1, may_write, unsandboxed;

void run_ranks(const char *rank_case, int ranks, double limit_s)
{
    ck_assert_msg(launcher, "grader: run_ranks in a case that is not in launcher_cases");
    const char *tmp = getenv("TMPDIR");
    char dir[256], exe[64], so[64], prefix[320], log[320], seed[320];
    snprintf(dir, sizeof dir, "%s/wb-ranks-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    ck_assert_msg(mkdtemp(dir) != NULL, "grader: cannot make a folder for the ranks");
    /* the ranks start this very runner and load the same shared object, both through
     * this process's /proc entries (their paths are hidden in the sandbox) */
    snprintf(exe, sizeof exe, "/proc/%d/exe", (int)getpid());
    snprintf(so, sizeof so, "/proc/%d/fd/%d", (int)getpid(), student_fd);
    snprintf(prefix, sizeof prefix, "%s/rank", dir);
    snprintf(log, sizeof log, "%s/log", dir);
    snprintf(seed, sizeof seed, "%s/seed", dir);
    FILE *sf = fopen(seed, "w");
    ck_assert_msg(sf && fprintf(sf, "%llu\n", (unsigned long long)grade_seed()) > 0 &&
                      fclose(sf) == 0,
                  "grader: cannot write %s", seed);
    char *argv[16];
    int k = 0;
    argv[k++] = exe;
    argv[k++] = "--rank";
    argv[k++] = (char *)rank_case;
    argv[k++] = "--out";
    argv[k++] = prefix;
    argv[k++] = "--seed-file";
    argv[k++] = seed;
    if (student_fd >= 0) argv[k++] = "--student", argv[k++] = so;
    if (may_write) argv[k++] = "--may-write";
    if (unsandboxed) argv[k++] = "--unsandboxed";
    argv[k] = NULL;
    /* mpirun and the ranks, and nothing else (sandbox_guard.c) */
    if (!unsandboxed) {
        const char *programs[] = {dist_launcher(), exe, NULL};
        char why[512];
        ck_assert_msg(programs[0] && sandbox_guard_exec(programs, 1 + ranks, why, sizeof why) == 0,
                      "grader: %s", programs[0] ? why : "no mpirun on the PATH");
    }
    /* (Under SAN=1, dist_launch turns the ranks' leak check off: Open MPI's own.) */
    DistLaunchOptions o = {ranks, limit_s, log, true};
    DistLaunch r;
    ck_assert_msg(dist_launch(&o, argv, &r) == 0, "grader: %s", err_message());
    put_i64("ranks.timed_out", r.timed_out);
    put_i64("ranks.status", r.status);
    char *text = NULL;
    size_t len = 0;
    if (fileio_read(log, &text, &len) == 0) {
        put_str("ranks.log", text + (len > 1500 ? len - 1500 : 0));
        free(text);
    }
    remove(log);
    remove(seed);
    for (int r_ = 0; r_ < ranks; r_++) {
        char path[400];
        snprintf(path, sizeof path, "%s.%d", prefix, r_);
        forward_rank(r_, path);
        remove(path);
    }
    rmdir(dir);
}

/* Install the filter, load the student's shared object (when this runner grades one),
 * then allow no new executable memory. Fails the case (and ends the process) if any
 * step fails: no student code runs outside the filter. --unsandboxed only lets it go on
 * where the filter cannot be installed: a runner started with it on a machine that has
 * the filter (by a rank's MPI_Comm_spawn, say) still installs it. */
static void enter_sandbox(void)
{
    char why[512];
    /* Not dumpable: the files of /proc/self become root's, so that a runner that is not root
     * cannot open its own memory (/proc/self/mem) for writing where no other layer stops it
     * (a prctl the filter then refuses to undo). */
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 && !unsandboxed)
        graded_refused("grader: cannot make the runner undumpable");
    int filtered = sandbox_filter_install(may_write, strcmp(device_backend(), "CUDA") == 0, why,
                                          sizeof why) == 0;
    if (!filtered && !unsandboxed) graded_refused(why);
    if (student_expected()) {
        if (student_fd < 0) graded_refused("grader: no compiled exercises were handed to the runner");
        if (student_load(student_fd, why, sizeof why) != 0) graded_refused(why);
    }
    if (filtered && sandbox_filter_seal(why, sizeof why) != 0) graded_refused(why);
}

/* The grading seed, from a descriptor or a file the judge (or the launcher) wrote: never
 * from the environment or the arguments, which the student's code could read. */
static void read_seed(int fd, const char *path)
{
    char text[32] = "";
    if (path) fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    text[n > 0 ? n : 0] = '\0';
    grade_seed_set(strtoull(text, NULL, 10));
}

/* The ranks' process group, joined before the filter (MPI's start opens sockets and
 * shared memory, which the filter then refuses); the rank bodies take it from here. */
static ProcessGroup *rank_group;

ProcessGroup *runner_process_group(void)
{
    return rank_group;
}

/* `--rank NAME --out PREFIX ...`: this process is one rank of run_ranks()'s launch. */
static int run_rank(const char *name, const char *prefix, const char *student_path)
{
    const char *env = getenv("OMPI_COMM_WORLD_RANK");
    if (!env) env = getenv("PMIX_RANK");
    if (!env) {
        fprintf(stderr, "runner: --rank outside mpirun\n");
        return 2;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s.%d", prefix, atoi(env));
    out_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (out_fd < 0) {
        fprintf(stderr, "runner: cannot write %s: %s\n", path, strerror(errno));
        return 2;
    }
    const RunCase *c = NULL;
    for (int i = 0; &n_rank_cases && i < n_rank_cases; i++)
        if (strcmp(rank_cases[i].name, name) == 0) c = &rank_cases[i];
    if (!c) {
        fprintf(stderr, "runner: no rank case %s\n", name);
        return 2;
    }
    if (student_path) {
        student_fd = open(student_path, O_RDONLY | O_CLOEXEC);
        if (student_fd < 0) graded_refused("grader: a rank cannot open the compiled exercises");
    }
    if (dist_init("cpu", &rank_group) != 0) {
        char why[600];
        snprintf(why, sizeof why, "grader: dist_init: %s", err_message());
        graded_refused(why);
    }
    enter_sandbox();
    c->run();
    fflush(stdout);
    fflush(stderr);
    send_record(REC_END, "end", NULL, 0);
    return 0;
}

/* `--readable --fd N PATH...`: whether every file below each PATH can be opened for reading
 * here (in the sandbox, as the runner's user, before any student code): the first that
 * cannot, as "PATH<TAB>reason", on descriptor N. Its exit status: 0, or 1. */
static int readable_below(const char *path, int fd, int depth)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        dprintf(fd, "%s\t%s\n", path, strerror(errno));
        return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
        int f = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (f < 0) {
            dprintf(fd, "%s\t%s\n", path, strerror(errno));
            return 1;
        }
        close(f);
        return 0;
    }
    DIR *d = opendir(path);
    if (!d) {
        dprintf(fd, "%s\t%s\n", path, strerror(errno));
        return 1;
    }
    struct dirent *e;
    int rc = 0;
    while (!rc && (e = readdir(d))) {
        if (e->d_name[0] == '.' || depth > 8) continue;
        char sub[4200];
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        rc = readable_below(sub, fd, depth + 1);
    }
    closedir(d);
    return rc;
}

static void usage(const char *argv0)
{
    fprintf(stderr,
            "usage: %s --case NAME --fd N [--student FD] [--seed-fd FD] [--may-write] "
            "[--unsandboxed]\n"
            "       %s --rank NAME --out PREFIX --seed-file FILE [--student PATH] ...\n"
            "       %s --device --fd N | --list | --readable --fd N PATH...\n",
            argv0, argv0, argv0);
    exit(2);
}

int main(int argc, char **argv)
{
    const char *name = NULL, *rank = NULL, *prefix = NULL, *seed_file = NULL,
               *student_path = NULL;
    int seed_fd = -1;
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (int i = 0; i < n_run_cases; i++)
            printf("%s\n", run_cases[i].name);
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "--device") == 0 && strcmp(argv[2], "--fd") == 0) {
        /* Where this lesson's CUDA work runs: a GPU, the simulator, or nowhere; on the
         * judge's pipe (no student code is loaded for this question). */
        int fd = atoi(argv[3]);
        if (device_cuda_built()) {
            DeviceInfo info;
            if (backend_cuda()->device_info(0, &info) == 0)
                dprintf(fd, "%s\n", info.name);
            else
                dprintf(fd, "no CUDA device (%s)\n", device_backend());
        }
        close(fd);
        return 0;
    }
    if (argc >= 4 && strcmp(argv[1], "--readable") == 0 && strcmp(argv[2], "--fd") == 0) {
        int fd = atoi(argv[3]), rc = 0;
        for (int i = 4; i < argc && !rc; i++) rc = readable_below(argv[i], fd, 0);
        return rc;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--case") == 0 && v) name = v, i++;
        else if (strcmp(a, "--rank") == 0 && v) rank = v, i++;
        else if (strcmp(a, "--out") == 0 && v) prefix = v, i++;
        else if (strcmp(a, "--fd") == 0 && v) out_fd = atoi(v), i++;
        else if (strcmp(a, "--student") == 0 && v) {
            if (rank) student_path = v;
            else student_fd = atoi(v);
            i++;
        } else if (strcmp(a, "--seed-fd") == 0 && v) seed_fd = atoi(v), i++;
        else if (strcmp(a, "--seed-file") == 0 && v) seed_file = v, i++;
        else if (strcmp(a, "--may-write") == 0) may_write = 1;
        else if (strcmp(a, "--unsandboxed") == 0) unsandboxed = 1;
        else usage(argv[0]);
    }
    if (rank) {
        if (!prefix) usage(argv[0]);
        read_seed(-1, seed_file);
        return run_rank(rank, prefix, student_path);
    }
    if (!name || out_fd < 0) usage(argv[0]);
    read_seed(seed_fd, NULL);
    const RunCase *c = NULL;
    for (int i = 0; i < n_run_cases; i++)
        if (strcmp(run_cases[i].name, name) == 0) c = &run_cases[i];
    if (!c) {
        fprintf(stderr, "runner: no case %s\n", name);
        return 2;
    }
    /* A huge allocation fails instead of swapping the machine. Not with a real
     * GPU (the CUDA driver reserves far more address space than that), nor under
     * AddressSanitizer. */
    int sanitized = 0; /* AddressSanitizer reserves terabytes of address space */
#if defined(__SANITIZE_ADDRESS__)
    sanitized = 1;
#endif
    if (strcmp(device_backend(), "CUDA") != 0 && !sanitized) {
        struct rlimit r = {(rlim_t)SANDBOX_RUNNER_AS_MB << 20, (rlim_t)SANDBOX_RUNNER_AS_MB << 20};
        setrlimit(RLIMIT_AS, &r);
    }
    launcher = launches_ranks(name);
    if (!launcher) enter_sandbox();
    c->run();
    fflush(stdout);
    fflush(stderr);
    send_record(REC_END, "end", NULL, 0);
    return 0;
}
