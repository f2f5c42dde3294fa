/*
 * judge.c: runs one lesson's graded cases and writes their results (judge.h).
 *
 * The judge is built without any exercise code. For each case it starts the
 * runner (the program that loads the student's exercises) in a process of its
 * own, in the sandbox of sandbox.h, collects its records, and only then judges
 * them, in a Check test in fork mode, so that a bug in a JUDGE body fails that
 * case only. What a JUDGE half calls to read the records and compare them is in
 * expect.c. driver.c turns the TSV files into the tables and results.json.
 */
#define _GNU_SOURCE /* pipe2, O_CLOEXEC */
#include "judge.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "case_records.h"
#include "code_lines.h"
#include "lib/core/err.h"
#include "../protocol/protocol.h"
#include "../sandbox/sandbox.h"

#define OUTPUT_MAX ((size_t)512 << 20) /* records a runner may send */
#define LOG_TAIL 16384                 /* what is kept of a runner's printing */
/* (The largest file a runner may write, its printing included (it goes to a temporary
 * file), is SANDBOX_RUN_LIMITS's: past it the runner gets SIGXFSZ, so that printing in a
 * loop cannot fill the disk that results.json is written to.) */
#define LOG_KEEP ((off_t)1 << 20) /* what the log keeps of one case's printing */

/* ---- options ------------------------------------------------------------------ */

static const char *runner_path, *log_path;
static int recording; /* --record: no Check test is running */

/* A failure of the grader's own machinery: in a case, fail it; while recording
 * the reference runs, stop. */
static void harness_fail(const char *what)
{
    if (recording) {
        fprintf(stderr, "grader: %s\n", what);
        exit(1);
    }
    ck_abort_msg("grader: %s", what);
}
static unsigned char *ref_file; /* the reference runs, whole */
static size_t ref_len;

/* ---- running a runner ------------------------------------------------------------ */

typedef struct Run {
    unsigned char *buf; /* its records */
    size_t len;
    int status;          /* waitpid status */
    int timed_out;       /* killed at the deadline */
    int too_much;        /* killed for sending more than OUTPUT_MAX */
    int out_of_memory;   /* its group's memory ran out: the kernel killed a process of it */
    char tail[LOG_TAIL]; /* the end of what it printed */
} Run;

static double timeout_multiplier(void)
{
    const char *m = getenv("CK_TIMEOUT_MULTIPLIER");
    return m && atof(m) > 0 ? atof(m) : 1.0;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Append the runner's output to the log under a heading, and keep its end. */
static void keep_output(int fd, const char *heading, Run *r)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size == 0) return;
    FILE *log = log_path ? fopen(log_path, "a") : NULL;
    if (log) {
        fprintf(log, "== %s\n", heading);
        char buf[8192];
        ssize_t got;
        off_t left = st.st_size < LOG_KEEP ? st.st_size : LOG_KEEP;
        lseek(fd, 0, SEEK_SET);
        while (left > 0 &&
               (got = read(fd, buf, left < (off_t)sizeof buf ? (size_t)left : sizeof buf)) > 0) {
            fwrite(buf, 1, (size_t)got, log);
            left -= got;
        }
        if (st.st_size > LOG_KEEP)
            fprintf(log, "\n== (%lld bytes more that the grader does not keep)\n",
                    (long long)(st.st_size - LOG_KEEP));
        fclose(log);
    }
    off_t from =
        st.st_size > (off_t)sizeof r->tail - 1 ? st.st_size - (off_t)sizeof r->tail + 1 : 0;
    ssize_t got = pread(fd, r->tail, sizeof r->tail - 1, from);
    r->tail[got > 0 ? got : 0] = '\0';
}

/* ---- the sandbox ---------------------------------------------------------------------- */

static SandboxPlan plan;             /* what this machine lets the judge use */
static SandboxGroup group;           /* the runners' cgroup (group.n == 0: none) */
static const SandboxLimits run_limits = SANDBOX_RUN_LIMITS;
static const char *student_path;     /* the student's shared object (--student) */
static const char *runner_full_path; /* the runner for whole-lesson cases (--runner-full) */
static const char *hidden[64];       /* paths the runner must not see (--hide) */
static int n_hidden;

/* Start `runner --case name ...` in the sandbox, in its own process group, with its
 * output in a temporary file, and collect its records until it exits or the deadline.
 * The runner gets, besides its output: the record pipe (3), the student's shared object
 * (4) and the grading seed on a pipe (5); nothing else. */
static void run_runner(const char *runner, const char *name, double limit_s, Run *r)
{
    memset(r, 0, sizeof *r);
    int fds[2], seed[2];
    char out_path[] = "/tmp/wb-grade-out-XXXXXX";
    int out = mkstemp(out_path);
    if (out < 0 || pipe2(fds, O_CLOEXEC) != 0 || pipe2(seed, O_CLOEXEC) != 0)
        harness_fail("cannot make a pipe or a file");
    unlink(out_path);
    int exe = open(runner, O_RDONLY | O_CLOEXEC);
    if (exe < 0) harness_fail("cannot open the runner (build it with make grade)");
    int so = student_path ? open(student_path, O_RDONLY | O_CLOEXEC) : -1;
    if (student_path && so < 0) harness_fail("cannot open the compiled exercises");
    char scratch[] = "/tmp/wb-grade-scratch-XXXXXX";
    if (!plan.namespaces) {
        if (!mkdtemp(scratch)) harness_fail("cannot make a scratch folder");
        if (plan.drop_user && chown(scratch, plan.uid, plan.uid) != 0)
            harness_fail("cannot give the scratch folder to the runner's user");
    }
    char seed_text[32];
    int seed_len = snprintf(seed_text, sizeof seed_text, "%llu\n",
                            (unsigned long long)grade_seed());
    if (write(seed[1], seed_text, (size_t)seed_len) != seed_len) harness_fail("seed pipe");
    close(seed[1]);
    fflush(NULL);
    long long oom_before = sandbox_group_oom_kills(&group);
    pid_t pid = fork();
    if (pid < 0) harness_fail("fork failed");
    if (pid == 0) {
        /* the group first (as the judge's user), then limits of its own: file size, and CPU
         * time enough for twice the case's time on every thread it may keep busy */
        if (group.n && sandbox_group_join(&group) != 0) _exit(126);
        SandboxLimits mine = run_limits;
        mine.cpu_s = (long long)(limit_s * 2) + 10;
        sandbox_limits_set(&mine, 1); /* (the runner sets its own address-space limit) */
        int in = open("/dev/null", O_RDONLY);
        /* (dup2 clears close-on-exec: these descriptors, and only these, reach the runner) */
        if (in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0 ||
            dup2(fds[1], 3) < 0 || (so >= 0 ? dup2(so, 4) : dup2(in, 4)) < 0 ||
            dup2(seed[0], 5) < 0 || dup2(exe, 6) < 0)
            _exit(126);
        fcntl(6, F_SETFD, FD_CLOEXEC); /* the runner's own file: gone once it runs */
        char *argv[16];
        int k = 0;
        argv[k++] = (char *)"runner";
        argv[k++] = (char *)"--case";
        argv[k++] = (char *)name;
        argv[k++] = (char *)"--fd";
        argv[k++] = (char *)"3";
        argv[k++] = (char *)"--seed-fd";
        argv[k++] = (char *)"5";
        if (so >= 0) argv[k++] = (char *)"--student", argv[k++] = (char *)"4";
        if (sandbox_writes_confined(&plan)) argv[k++] = (char *)"--may-write";
        if (plan.unsandboxed) argv[k++] = (char *)"--unsandboxed";
        argv[k] = NULL;
        SandboxRun run = {.program_fd = 6,
                          .argv = argv,
                          .scratch = scratch,
                          .hide = hidden,
                          .keep_fds = 7};
        char why[600] = "";
        sandbox_exec(&plan, &run, why, sizeof why);
        dprintf(2, "grader: sandbox: %s\n", why);
        _exit(126);
    }
    close(exe);
    if (so >= 0) close(so);
    close(seed[0]);
    /* (the child makes a session of its own, and so a process group: -pid below) */
    close(fds[1]);
    size_t cap = 1 << 16;
    r->buf = malloc(cap);
    if (!r->buf) harness_fail("out of memory");
    double deadline = now_s() + limit_s;
    for (;;) {
        double left = deadline - now_s();
        if (left <= 0) {
            r->timed_out = 1;
            break;
        }
        struct pollfd p = {fds[0], POLLIN, 0};
        int ready = poll(&p, 1, (int)(left * 1000) + 1);
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) continue;
        if (r->len == cap) {
            if (cap >= OUTPUT_MAX) {
                r->too_much = 1;
                break;
            }
            cap *= 2;
            r->buf = realloc(r->buf, cap);
            if (!r->buf) harness_fail("out of memory");
        }
        ssize_t got = read(fds[0], r->buf + r->len, cap - r->len);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break; /* EOF: the runner closed its end (it exited) */
        r->len += (size_t)got;
    }
    close(fds[0]);
    if (r->timed_out || r->too_much) kill(-pid, SIGKILL);
    /* The runner closed its end; give it until the deadline to exit. */
    int st = 0;
    while (waitpid(pid, &st, WNOHANG) == 0) {
        if (now_s() > deadline) {
            r->timed_out = 1;
            kill(-pid, SIGKILL);
        }
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    kill(-pid, SIGKILL); /* anything it left behind */
    sandbox_group_empty(&group); /* ... wherever it went */
    r->out_of_memory = sandbox_group_oom_kills(&group) > oom_before;
    r->status = st;
    keep_output(out, name, r);
    close(out);
    if (!plan.namespaces && sandbox_remove_tree(scratch) != 0)
        fprintf(stderr, "grader: could not remove %s\n", scratch);
}

static void remove_group(void)
{
    sandbox_group_remove(&group); /* (only in the process that made it, not Check's children) */
}

/* ---- why a runner failed, in words a student can act on ----------------------------- */

static const char *signal_story(int sig)
{
    switch (sig) {
    case SIGSEGV:
        return "SIGSEGV: a read or write outside an array, or through a NULL pointer "
               "(or a huge allocation that failed)";
    case SIGBUS:
        return "SIGBUS: a misaligned or invalid memory access";
    case SIGFPE:
        return "SIGFPE: an integer division by zero";
    case SIGABRT:
        return "SIGABRT: abort() or a failed assert (or the C library found corrupted "
               "memory)";
    case SIGILL:
        return "SIGILL: an illegal instruction";
    case SIGKILL:
        return "SIGKILL: killed, maybe for using too much memory";
    case SIGXFSZ:
        return "SIGXFSZ: it wrote more output than the grader keeps";
    case SIGXCPU:
        return "SIGXCPU: it used more CPU time than the grader gives a case";
    default:
        return NULL;
    }
}

/* The last line of the runner's output that starts with one of the markers. */
static const char *last_line_with(const char *text, const char *marker, char *buf, size_t size)
{
    const char *hit = NULL;
    for (const char *p = strstr(text, marker); p; p = strstr(p + 1, marker))
        hit = p;
    if (!hit) return NULL;
    size_t n = strcspn(hit, "\n");
    if (n >= size) n = size - 1;
    memcpy(buf, hit, n);
    buf[n] = '\0';
    return buf;
}

/* What the tools watching the code said (the simulator, the sanitizers). */
static void tool_says(const Run *r, char *out, size_t size)
{
    char line[600];
    const char *s = last_line_with(r->tail, "cudasim: ", line, sizeof line);
    if (!s) s = last_line_with(r->tail, "ERROR: AddressSanitizer", line, sizeof line);
    if (!s) s = last_line_with(r->tail, "runtime error:", line, sizeof line);
    if (s)
        snprintf(out, size, ": %s", s);
    else
        out[0] = '\0';
}

/* Fail the case unless the runner ran it to its end; then its records are in set. */
static void expect_finished(const Run *r, const RecordSet *set, const char *parse_err,
                            double limit_s, const char *whose)
{
    char tool[700];
    tool_says(r, tool, sizeof tool);
    if (r->timed_out)
        ck_abort_msg("%stimed out after %g s (an endless loop, or a loop bound that never "
                     "stops?)%s",
                     whose, limit_s, tool);
    if (r->too_much) ck_abort_msg("%ssent more than %zu MB of results", whose, OUTPUT_MAX >> 20);
    if (r->out_of_memory && WIFSIGNALED(r->status) && WTERMSIG(r->status) == SIGKILL)
        ck_abort_msg("%scrashed: SIGKILL: it used more than the %lld MB of memory the grader "
                     "gives a case (its private /tmp included)",
                     whose, run_limits.memory_mb);
    if (WIFSIGNALED(r->status)) {
        int sig = WTERMSIG(r->status);
        const char *story = signal_story(sig);
        if (tool[0]) /* the tool that watched it knows best what happened */
            ck_abort_msg("%scrashed (%s)%s", whose, strsignal(sig), tool);
        if (story) ck_abort_msg("%scrashed: %s", whose, story);
        ck_abort_msg("%scrashed: signal %d", whose, sig);
    }
    if (parse_err) ck_abort_msg("%sgave results the grader cannot read: %s", whose, parse_err);
    if (set->why) ck_abort_msg("%s%s", whose, set->why);
    if (set->twice[0])
        ck_abort_msg("%srecorded %s twice: the grader's records were written to from elsewhere",
                     whose, set->twice);
    int code = WIFEXITED(r->status) ? WEXITSTATUS(r->status) : -1;
    if (code == 127 || code == 126)
        ck_abort_msg("grader: cannot start %s (build it with make grade)", runner_path);
    if (code != 0)
        ck_abort_msg("%sexited early with status %d (exit() was called, or a sanitizer stopped "
                     "it)%s",
                     whose, code, tool);
    if (!set->ended)
        ck_abort_msg("%sexited early with status 0 (exit() was called: return from the "
                     "function instead)%s",
                     whose, tool);
}

/* ---- one case ------------------------------------------------------------------------- */

static double limit_of(const GradedCase *c)
{
    return c->timeout_s * timeout_multiplier();
}

START_TEST(case_test)
{
    const GradedCase *c = &graded_lesson.cases[_i];
    if (!plan.filter && !plan.unsandboxed)
        ck_abort_msg("grader: grading refused: this machine cannot sandbox student code (%s); "
                     "GRADE_UNSANDBOXED=1 grades anyway, with every result marked unsandboxed",
                     plan.missing);
    if (c->needs_ref) {
        char err[256];
        if (!ref_file) ck_abort_msg("grader: no reference file (rebuild with make grade)");
        if (records_parse(ref_file, ref_len, &ref_set, c->name, err, sizeof err) != 0 ||
            !ref_set.ended)
            ck_abort_msg("grader: the reference file has no complete run of %s (%s)", c->name,
                         ref_set.ended ? err : "rebuild with make grade");
    }
    Run r;
    int whole = strchr(c->exercise, '.') == NULL; /* "01": a case that uses them all */
    run_runner(whole && runner_full_path ? runner_full_path : runner_path, c->name, limit_of(c),
               &r);
    char err[256];
    int bad = records_parse(r.buf, r.len, &got_set, NULL, err, sizeof err);
    expect_finished(&r, &got_set, bad ? err : NULL, limit_of(c), "");
    free(r.buf);
    graded_note = NULL;
    c->judge();
}
END_TEST

/* ---- results -------------------------------------------------------------------------- */

static void clean(char *s)
{
    for (; *s; s++)
        if (*s == '\t' || *s == '\n' || *s == '\r') *s = ' ';
}

static void write_case(FILE *f, int i, double score, const char *status, const char *message)
{
    const GradedCase *c = &graded_lesson.cases[i];
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", message);
    clean(msg);
    fprintf(f, "%d\t%s\t%s\t%s\t%g\t%g\t%s\t%s\t%s\n", i, c->exercise, c->function, c->checks,
            c->points, score, status, msg, c->file ? c->file : graded_lesson.file);
}

/* Check's message for a case whose judging did not finish. */
static void explain(const char *msg, int timeout_s, char *out, size_t size)
{
    int sig;
    if (sscanf(msg, "Received signal %d", &sig) == 1)
        snprintf(out, size, "grader: the judge crashed (signal %d) on this case", sig);
    else if (strstr(msg, "timeout expired"))
        snprintf(out, size, "timed out after %g s", timeout_s * timeout_multiplier());
    else
        snprintf(out, size, "%s", msg);
}

/* --record: run the cases that need them with the reference runner and keep
 * its records, each after a REC_CASE record naming its case. */
static int record_reference(const char *path)
{
    const GradedLesson *L = &graded_lesson;
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        return 1;
    }
    int status = 0;
    for (int i = 0; i < L->n_cases; i++) {
        const GradedCase *c = &L->cases[i];
        if (!c->needs_ref) continue;
        Run r;
        run_runner(runner_path, c->name, limit_of(c) * 4, &r);
        RecordSet set;
        char err[256];
        int bad = records_parse(r.buf, r.len, &set, NULL, err, sizeof err);
        if (bad || !set.ended || set.why || r.timed_out || !WIFEXITED(r.status) ||
            WEXITSTATUS(r.status) != 0) {
            fprintf(stderr, "grader: the reference run of %s failed (%s%s)\n%s\n", c->name,
                    bad       ? err
                    : set.why ? set.why
                              : "it did not finish",
                    r.timed_out ? ", timed out" : "", r.tail);
            status = 1;
        } else {
            size_t len;
            void *head = record_encode(REC_CASE, c->name, NULL, 0, &len);
            fwrite(head, 1, len, f);
            fwrite(r.buf, 1, r.len, f);
            free(head);
        }
        records_free(&set);
        free(r.buf);
    }
    if (fclose(f) != 0) status = 1;
    if (status) remove(path);
    return status;
}

static unsigned char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            unsigned char *b = realloc(buf, cap *= 2);
            if (!b) {
                free(buf);
                buf = NULL;
            }
            buf = b;
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

/* `runner --device`: the line it prints, or "" if it printed none. */
/* Where the runner's CUDA work runs, as it answers on a pipe of its own (runNN --device
 * --fd N): its standard output is the student's too (a constructor may print), so the
 * answer never comes from there. Printable ASCII only. */
static void device_of(const char *runner, char *out, size_t size)
{
    out[0] = '\0';
    int fd[2];
    if (pipe(fd) != 0) return;
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return;
    }
    if (pid == 0) {
        close(fd[0]);
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) dup2(null, 0), dup2(null, 1), dup2(null, 2);
        char fdtext[16];
        snprintf(fdtext, sizeof fdtext, "%d", fd[1]);
        execl(runner, runner, "--device", "--fd", fdtext, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    size_t got = 0;
    ssize_t n;
    struct pollfd pfd = {fd[0], POLLIN, 0};
    while (got < size - 1 && poll(&pfd, 1, 10000) > 0 &&
           (n = read(fd[0], out + got, size - 1 - got)) > 0) /* 10 s: a runner that hangs */
        got += (size_t)n;
    close(fd[0]);
    out[got] = '\0';
    kill(pid, SIGKILL); /* an answer is all it was asked for */
    waitpid(pid, NULL, 0);
    out[strcspn(out, "\n")] = '\0';
    for (char *c = out; *c; c++)
        if (*c < 0x20 || *c > 0x7e) *c = '?';
}

/* The first folder or file on the way from / to @p path that others may not enter or read
 * (the runner's user is one of them), in @p out; "" if none. */
static void closed_on_way(const char *path, char *out, size_t size, unsigned *mode)
{
    char walk[4096];
    snprintf(walk, sizeof walk, "%s", path);
    out[0] = '\0';
    for (char *p = walk + 1;; p++) {
        char c = *p;
        if (c == '/' || c == '\0') {
            *p = '\0';
            struct stat st;
            if (stat(walk, &st) == 0 &&
                !(st.st_mode & (S_ISDIR(st.st_mode) ? S_IXOTH : S_IROTH))) {
                snprintf(out, size, "%s", walk);
                *mode = (unsigned)(st.st_mode & 07777);
                return;
            }
            *p = c;
        }
        if (c == '\0') return;
    }
}

/* Before any case: can the runner, in its sandbox, read the files the cases read (the
 * fixtures, the data, the simulator's GPUs, the kernels' sources)? A grade must never
 * depend on the permissions of the folder the repository was cloned into: if it cannot,
 * grading stops here with one line that says why and how to fix it (status 2). */
static void check_readable(void)
{
    static const char *const wanted[] = {"tests/fixtures", "lessons/data", "lib/cudasim/gpus",
                                         "kernels"};
    char repo[4096], paths[4][4200];
    if (!getcwd(repo, sizeof repo)) return;
    char *argv[16];
    int k = 0;
    argv[k++] = (char *)"runner";
    argv[k++] = (char *)"--readable";
    argv[k++] = (char *)"--fd";
    argv[k++] = (char *)"3";
    for (int i = 0; i < 4; i++) {
        snprintf(paths[i], sizeof paths[i], "%s/%s", repo, wanted[i]);
        if (access(paths[i], F_OK) == 0) argv[k++] = paths[i];
    }
    argv[k] = NULL;
    int fds[2];
    int exe = open(runner_path, O_RDONLY | O_CLOEXEC);
    if (exe < 0 || pipe2(fds, O_CLOEXEC) != 0) return; /* (the cases will say) */
    char scratch[] = "/tmp/wb-grade-scratch-XXXXXX";
    if (!plan.namespaces && (!mkdtemp(scratch) ||
                             (plan.drop_user && chown(scratch, plan.uid, plan.uid) != 0)))
        return;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (group.n && sandbox_group_join(&group) != 0) _exit(126);
        int null = open("/dev/null", O_RDWR);
        if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0 ||
            dup2(fds[1], 3) < 0 || dup2(exe, 4) < 0)
            _exit(126);
        fcntl(4, F_SETFD, FD_CLOEXEC);
        SandboxRun run = {.program_fd = 4, .argv = argv, .scratch = scratch, .hide = hidden,
                          .keep_fds = 5};
        char why[600];
        sandbox_exec(&plan, &run, why, sizeof why);
        _exit(126);
    }
    close(fds[1]);
    close(exe);
    char answer[4400] = "";
    size_t got = 0;
    ssize_t n;
    while (pid > 0 && got < sizeof answer - 1 &&
           (n = read(fds[0], answer + got, sizeof answer - 1 - got)) > 0)
        got += (size_t)n;
    answer[got] = '\0';
    close(fds[0]);
    int st = 0;
    if (pid > 0) waitpid(pid, &st, 0);
    sandbox_group_empty(&group);
    if (!plan.namespaces) sandbox_remove_tree(scratch);
    char *tab = strchr(answer, '\t');
    if (!tab) return;
    *tab = '\0';
    tab[strcspn(tab + 1, "\n") + 1] = '\0';
    char closed[4200], mode[32] = "";
    unsigned bits = 0;
    closed_on_way(answer, closed, sizeof closed, &bits);
    if (closed[0]) snprintf(mode, sizeof mode, " (mode %04o)", bits);
    char who[64];
    snprintf(who, sizeof who, "user %u", plan.drop_user ? plan.uid : (unsigned)getuid());
    char file_q[4400], closed_q[4400];
    err_quote(answer, strlen(answer), 600, file_q, sizeof file_q);
    err_quote(closed, strlen(closed), 600, closed_q, sizeof closed_q);
    fprintf(stderr,
            "grader: grading refused: the runner (%s) cannot read %s (%s)%s%s%s; make the "
            "repository readable by all (chmod -R o+rX on it, and o+x on each folder above "
            "it) or grade a copy that is, so that no case is graded without its files\n",
            who, file_q, tab + 1, closed[0] ? ": others may not enter " : "",
            closed[0] ? closed_q : "", mode);
    exit(2);
}

static int usage(const char *argv0)
{
    fprintf(stderr,
            "usage: %s --out DIR --runner RUN [--ref FILE] [--log FILE]\n"
            "       %s --list\n"
            "       %s --record FILE --runner REFERENCE_RUN\n",
            argv0, argv0, argv0);
    return 2;
}

int main(int argc, char **argv)
{
    const char *out_dir = NULL, *ref_path = NULL, *record_path = NULL;
    int list = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--list") == 0)
            list = 1;
        else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
            out_dir = argv[++i];
        else if (strcmp(argv[i], "--runner") == 0 && i + 1 < argc)
            runner_path = argv[++i];
        else if (strcmp(argv[i], "--ref") == 0 && i + 1 < argc)
            ref_path = argv[++i];
        else if (strcmp(argv[i], "--log") == 0 && i + 1 < argc)
            log_path = argv[++i];
        else if (strcmp(argv[i], "--record") == 0 && i + 1 < argc)
            record_path = argv[++i];
        else if (strcmp(argv[i], "--student") == 0 && i + 1 < argc)
            student_path = argv[++i];
        else if (strcmp(argv[i], "--runner-full") == 0 && i + 1 < argc)
            runner_full_path = argv[++i];
        else if (strcmp(argv[i], "--hide") == 0 && i + 1 < argc && n_hidden < 62)
            hidden[n_hidden++] = argv[++i];
        else
            return usage(argv[0]);
    }
    const GradedLesson *L = &graded_lesson;
    if (grade_seed_choose() != 0) {
        perror("grader: GRADE_SEED");
        return 1;
    }
    sandbox_probe(&plan); /* (the reference runs, --record, run the answers only) */
    if (list) {
        for (int i = 0; i < L->n_cases; i++)
            write_case(stdout, i, 0, "listed", "");
        return 0;
    }
    /* A user of this grading's own, and a group for all its runners, removed at the end. */
    sandbox_claim_user(&plan);
    char no_group[300] = "";
    SandboxLimits described = run_limits;
    if (sandbox_group_make(&group, &run_limits, no_group, sizeof no_group) == 0)
        atexit(remove_group);
    else
        described.memory_mb = SANDBOX_RUNNER_AS_MB; /* the runner's own address-space limit */
    sandbox_set_limits(&plan, &group, &described, no_group);
    if (record_path && runner_path) {
        recording = 1;
        plan.unsandboxed = !plan.filter; /* the answers alone run here */
        return record_reference(record_path);
    }
    if (!out_dir || !runner_path) return usage(argv[0]);
    if (ref_path) ref_file = read_all(ref_path, &ref_len);
    /* The judge's home is not the runner's business either. */
    const char *home = getenv("HOME");
    if (home && *home && strcmp(home, "/") != 0 && n_hidden < 62) hidden[n_hidden++] = home;
    hidden[n_hidden] = NULL;
    char layers[1600];
    sandbox_describe(&plan, layers, sizeof layers);
    if (plan.filter || plan.unsandboxed) check_readable();

    Suite *s = suite_create(L->id);
    for (int i = 0; i < L->n_cases; i++) {
        static char names[1000][16];
        if (i >= 1000) break;
        snprintf(names[i], sizeof names[i], "case%03d", i);
        TCase *tc = tcase_create(names[i]);
        /* The runner has its own limit; this one only stops a judge gone wrong. */
        tcase_set_timeout(tc, L->cases[i].timeout_s * 2 + 30);
        tcase_add_loop_test(tc, case_test, i, i + 1);
        suite_add_tcase(s, tc);
    }
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_FORK);
    char xml[1024], tsv[1024];
    snprintf(xml, sizeof xml, "%s/check_%s.xml", out_dir, L->id);
    snprintf(tsv, sizeof tsv, "%s/lesson%s.tsv", out_dir, L->id);
    srunner_set_xml(sr, xml);
    srunner_run_all(sr, CK_SILENT);

    FILE *f = fopen(tsv, "w");
    if (!f) {
        perror(tsv);
        return 1;
    }
    char device[256];
    device_of(runner_path, device, sizeof device);
    if (device[0]) fprintf(f, "#device\t%s\n", device);
    fprintf(f, "#sandbox\t%s\n", layers);
    int n = srunner_ntests_run(sr);
    TestResult **results = srunner_results(sr);
    int *seen = calloc((size_t)L->n_cases, sizeof *seen);
    int *passed = calloc((size_t)L->n_cases, sizeof *passed);
    const char **message = calloc((size_t)L->n_cases, sizeof *message);
    if (!seen || !passed || !message) {
        perror("grader");
        return 1;
    }
    char why[L->n_cases > 0 ? L->n_cases : 1][2048];
    for (int r = 0; r < n; r++) {
        int i = -1;
        sscanf(tr_tcname(results[r]), "case%d", &i);
        if (i < 0 || i >= L->n_cases || seen[i]) continue;
        seen[i] = 1;
        passed[i] = tr_rtype(results[r]) == CK_PASS;
        if (tr_rtype(results[r]) == CK_ERROR)
            explain(tr_msg(results[r]), L->cases[i].timeout_s, why[i], sizeof why[i]);
        else
            snprintf(why[i], sizeof why[i], "%s", passed[i] ? "" : tr_msg(results[r]));
        message[i] = why[i];
    }
    /* A whole-lesson case ("01": it uses every exercise) is credited only when each exercise
     * of the lesson passes at least one check of its own: those run in the runner that
     * leaves out what would do their work, the whole-lesson cases in one that has it all
     * (tests/graded/allow/README.md, "withhold"). */
    for (int i = 0; i < L->n_cases; i++) {
        if (!passed[i] || strchr(L->cases[i].exercise, '.')) continue;
        for (int j = 0; j < L->n_cases; j++) {
            const char *ex = L->cases[j].exercise;
            if (!strchr(ex, '.')) continue;
            int any = 0;
            for (int k = 0; k < L->n_cases; k++)
                any |= passed[k] && strcmp(L->cases[k].exercise, ex) == 0;
            if (any) continue;
            passed[i] = 0;
            snprintf(why[i], sizeof why[i],
                     "the whole lesson ran, but exercise %s (%s) passes none of its own checks: "
                     "this case counts once every exercise of the lesson passes at least one",
                     ex, L->cases[j].function);
            break;
        }
    }
    /* The simulator's code addresses (FILE+0xOFFSET, from the sandbox) as file:line. */
    const CodeFiles code = {student_path, runner_path, runner_full_path};
    for (int i = 0; i < L->n_cases; i++)
        if (seen[i] && !passed[i])
            name_code_lines(why[i], sizeof why[i],
                            L->cases[i].file ? L->cases[i].file : L->file, &code);
    for (int i = 0; i < L->n_cases; i++)
        if (seen[i]) write_case(f, i, passed[i] ? L->cases[i].points : 0,
                                passed[i] ? "passed" : "failed", passed[i] ? "" : message[i]);
    for (int i = 0; i < L->n_cases; i++)
        if (!seen[i]) write_case(f, i, 0, "failed", "the grader got no result for this case");
    fclose(f);
    free(seen);
    free(passed);
    free(message);
    srunner_free(sr);
    return 0;
}
