/*
 * confine.c: what make grade runs a submission's compile in (sandbox.h).
 *
 *   confine limits --what TEXT --time S --log FILE -- COMMAND ARGS...
 *   confine compile --root DIR [--read PATH]... [--read-as FROM=TO]... [--copy DIR]...
 *                   [--write DIR]... [--hide PATH]... -- COMPILER ARGS...
 *
 * `limits` runs COMMAND (make grade's make of one lesson's shared object: the compile, the
 * static checks, the link) with the limits of SANDBOX_COMPILE_LIMITS: a cgroup of its own
 * (sandbox_limits.c) or, where none can be made, an address-space limit per process; file
 * size and CPU time (S seconds per process) in any case; S seconds of wall-clock time in
 * all. What it prints goes to FILE, the first LOG_KEEP bytes of it and a note of how much
 * more there was. When it is stopped for its time or its memory, FILE starts with a line
 * "refused: TEXT ..." that says so. Its exit status: COMMAND's, 124 at the time limit,
 * 128 + N when ended by signal N. The limits it ran in go to FILE.sandbox, and so does what
 * the `compile` steps below it say of their view (GRADE_CONFINE_NOTE).
 *
 * `compile` runs a compiler in the view of sandbox_compile.c: the system's folders, the
 * --read paths at their own place and each --read-as FROM at TO, read-only; a copy of each
 * --copy folder (the submission's, which root alone may read) at its place, read-only; the
 * --write folders (its output), /tmp and /dev/null; as root, as a user of its own. Without
 * namespaces, Landlock confines it (as the grader's user) to the same; without either, it
 * runs as it is. Its exit status is the compiler's.
 */
#define _GNU_SOURCE
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LOG_KEEP ((long long)1 << 20) /* what the log keeps (as a case's run log) */

static int usage(void)
{
    fprintf(stderr, "usage: confine limits --what TEXT --time S --log FILE -- COMMAND...\n"
                    "       confine compile --root DIR [--read PATH]... [--read-as FROM=TO]...\n"
                    "                       [--copy DIR]... [--write DIR]... [--hide PATH]... "
                    "-- COMPILER...\n");
    return 2;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Append @p line to the note file (once: a line it already holds is not written again). */
static void note(const char *file, const char *line)
{
    if (!file || !*file) return;
    char text[8192] = "";
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, text, sizeof text - 1);
        text[n > 0 ? n : 0] = '\0';
        close(fd);
    }
    if (strstr(text, line)) return;
    FILE *f = fopen(file, "a");
    if (f) {
        fprintf(f, "%s\n", line);
        fclose(f);
    }
}

/* Put @p line before everything @p path holds. */
static void prepend(const char *path, const char *line)
{
    char tmp[SANDBOX_PATH_MAX + 8];
    snprintf(tmp, sizeof tmp, "%s.new", path);
    FILE *in = fopen(path, "rb"), *out = fopen(tmp, "wb");
    if (!out) {
        if (in) fclose(in);
        return;
    }
    fprintf(out, "%s\n", line);
    char buf[65536];
    size_t n;
    while (in && (n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, out);
    if (in) fclose(in);
    if (fclose(out) == 0) rename(tmp, path);
}

/* ---- confine limits ---------------------------------------------------------------------- */

/* A signal that ends confine (Ctrl-C, grade-all's stop): it ends what it runs first. */
static volatile sig_atomic_t stopping;

static void on_stop(int sig)
{
    stopping = sig;
}

static int limits(int argc, char **argv)
{
    const char *what = "this step", *log_path = NULL;
    double time_s = 300;
    int i = 2;
    for (; i < argc && strcmp(argv[i], "--") != 0; i += 2) {
        if (i + 1 >= argc) return usage();
        if (!strcmp(argv[i], "--what")) what = argv[i + 1];
        else if (!strcmp(argv[i], "--time")) time_s = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--log")) log_path = argv[i + 1];
        else return usage();
    }
    if (i + 1 >= argc || !log_path || time_s <= 0) return usage();
    char **cmd = argv + i + 1;
    SandboxLimits lim = SANDBOX_COMPILE_LIMITS;
    lim.cpu_s = (long long)time_s;
    SandboxGroup group;
    char why[300] = "", phrase[600], note_path[SANDBOX_PATH_MAX + 16];
    int grouped = sandbox_group_make(&group, &lim, why, sizeof why) == 0;
    sandbox_group_describe(&group, &lim, why, phrase, sizeof phrase);
    snprintf(note_path, sizeof note_path, "%s.sandbox", log_path);
    unlink(note_path);
    char line[700];
    snprintf(line, sizeof line, "limits: %s", phrase);
    note(note_path, line);
    int log = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int out[2];
    if (log < 0 || pipe2(out, O_CLOEXEC) != 0) {
        fprintf(stderr, "confine: %s: %s\n", log_path, strerror(errno));
        sandbox_group_remove(&group);
        return 2;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
    for (int k = 0; k < 3; k++) sigaction(stop_signals[k], &sa, NULL);
    pid_t parent = getpid(), pid = fork();
    if (pid == 0) {
        /* a process group to end where there is no cgroup (in the same session, which
         * grade-all's stop ends whole), ending with confine */
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(137);
        signal(SIGINT, SIG_DFL), signal(SIGTERM, SIG_DFL), signal(SIGHUP, SIG_DFL);
        int null = open("/dev/null", O_RDONLY);
        if (null < 0 || dup2(null, 0) < 0 || dup2(out[1], 1) < 0 || dup2(out[1], 2) < 0)
            _exit(126);
        if (grouped && sandbox_group_join(&group) != 0) _exit(126);
        sandbox_limits_set(&lim, grouped);
        setenv("GRADE_CONFINE_NOTE", note_path, 1);
        execvp(cmd[0], cmd);
        fprintf(stderr, "confine: cannot run %s: %s\n", cmd[0], strerror(errno));
        _exit(127);
    }
    close(out[1]);
    if (pid < 0) {
        sandbox_group_remove(&group);
        return 2;
    }
    setpgid(pid, pid); /* (as the child does: whichever comes first) */
    double deadline = now_s() + time_s;
    long long kept = 0, more = 0;
    int st = 0, ended = 0, timed_out = 0;
    char buf[65536];
    for (;;) {
        if (!ended && waitpid(pid, &st, WNOHANG) == pid) {
            ended = 1; /* what it left behind ends now, so the pipe runs dry */
            if (grouped) sandbox_group_empty(&group);
            else kill(-pid, SIGKILL);
        }
        if (!ended && (now_s() > deadline || stopping)) {
            timed_out = !stopping;
            if (grouped) sandbox_group_empty(&group);
            kill(-pid, SIGKILL);
            waitpid(pid, &st, 0);
            ended = 1;
        }
        struct pollfd p = {out[0], POLLIN, 0};
        int ready = poll(&p, 1, ended ? 0 : 100);
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) {
            if (ended) break;
            continue;
        }
        ssize_t n = read(out[0], buf, sizeof buf);
        if (n <= 0) {
            if (ended) break;
            struct timespec ms = {0, 10000000}; /* EOF before the exit: wait for it */
            nanosleep(&ms, NULL);
            continue;
        }
        long long keep = kept < LOG_KEEP ? LOG_KEEP - kept : 0;
        if (keep > n) keep = n;
        if (keep > 0 && write(log, buf, (size_t)keep) != keep) keep = 0;
        kept += keep;
        more += n - keep;
    }
    close(out[0]);
    if (more > 0) dprintf(log, "\n== (%lld bytes more that the grader does not keep)\n", more);
    close(log);
    int oom = grouped && sandbox_group_oom_kills(&group) > 0;
    sandbox_group_remove(&group);
    if (stopping) { /* end as the signal would have ended it */
        signal(stopping, SIG_DFL);
        raise(stopping);
        return 128 + stopping;
    }
    char refused[600] = "";
    if (timed_out)
        snprintf(refused, sizeof refused,
                 "refused: %s took more than %g s (a file whose macros expand to far too "
                 "much code?): every exercise of it scores 0",
                 what, time_s);
    else if (oom)
        snprintf(refused, sizeof refused,
                 "refused: %s used more than the %lld MB of memory the grader gives it (an "
                 "#include of a device, or macros that expand to far too much code?): every "
                 "exercise of it scores 0",
                 what, lim.memory_mb);
    if (refused[0]) prepend(log_path, refused);
    if (timed_out) return 124;
    if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
    int code = WIFEXITED(st) ? WEXITSTATUS(st) : 1;
    return oom && code == 0 ? 1 : code;
}

/* ---- confine compile --------------------------------------------------------------------- */

/* Whether a compiler's message says that a file it was to read is not there (or not to be
 * read): in the view, a file outside it. */
static int missing;

/* Run @p cmd in a child made in @p layer (0 the view, 1 Landlock, 2 none), what it prints
 * handed on as it comes. Returns the compiler's wait status, or -1 when the layer could not
 * be entered (@p why says). */
static int try_layer(int layer, const CompileView *v, const char *tmp, char **cmd, char *why,
                     size_t size)
{
    int status[2], out[2];
    if (pipe2(status, O_CLOEXEC) != 0) return -1;
    if (pipe2(out, O_CLOEXEC) != 0) {
        close(status[0]);
        close(status[1]);
        return -1;
    }
    int out_fd = out[1];
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(status[0]);
        char err[600] = "";
        int rc = layer == 0   ? sandbox_compile_view(v, err, sizeof err)
                 : layer == 1 ? sandbox_compile_landlock(v, tmp, err, sizeof err)
                              : 0;
        if (rc != 0) {
            dprintf(status[1], "!%s", err);
            _exit(125);
        }
        if (dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0) _exit(126);
        execvp(cmd[0], cmd);
        dprintf(status[1], "!cannot run %s there: %s", cmd[0], strerror(errno));
        _exit(127);
    }
    close(status[1]);
    close(out[1]);
    ssize_t n = pid > 0 ? read(status[0], why, size - 1) : -1;
    why[n > 0 ? n : 0] = '\0';
    close(status[0]);
    /* what it prints, on to make's log as it comes (a compile stopped at its limit keeps
     * what it said until then); its first 64 KB read for a file it could not find */
    char buf[65536];
    long long seen = 0;
    while (pid > 0 && why[0] != '!' && (n = read(out[0], buf, sizeof buf - 1)) > 0) {
        buf[n] = '\0';
        if (seen < (long long)sizeof buf && strstr(buf, "fatal error: ") &&
            (strstr(buf, "No such file or directory") || strstr(buf, "Permission denied")))
            missing = 1;
        seen += n;
        if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n) break;
        fflush(stdout);
    }
    close(out[0]);
    int st = 0;
    if (pid > 0) waitpid(pid, &st, 0);
    if (pid < 0 || why[0] == '!') {
        memmove(why, why + 1, strlen(why));
        return -1;
    }
    return st;
}

static int compile(int argc, char **argv)
{
    static const char *reads[32], *from[8], *to[8], *writes[8], *copies[8], *hide[64];
    int n_read = 0, n_from = 0, n_write = 0, n_copy = 0, n_hide = 0, i = 2;
    CompileView v = {0};
    for (; i < argc && strcmp(argv[i], "--") != 0; i += 2) {
        if (i + 1 >= argc) return usage();
        const char *a = argv[i], *val = argv[i + 1];
        if (!strcmp(a, "--root")) v.root = val;
        else if (!strcmp(a, "--read") && n_read < 31) reads[n_read++] = val;
        else if (!strcmp(a, "--write") && n_write < 7) writes[n_write++] = val;
        else if (!strcmp(a, "--copy") && n_copy < 7) copies[n_copy++] = val;
        else if (!strcmp(a, "--hide") && n_hide < 63) hide[n_hide++] = val;
        else if (!strcmp(a, "--read-as") && n_from < 7 && strchr(val, '=')) {
            char *copy = strdup(val), *eq = strchr(copy, '=');
            *eq = '\0';
            from[n_from] = copy, to[n_from++] = eq + 1;
        } else
            return usage();
    }
    if (i + 1 >= argc || !v.root || v.root[0] != '/') return usage();
    char **cmd = argv + i + 1;
    v.read = reads, v.read_from = from, v.read_to = to, v.write = writes, v.copy = copies,
    v.hide = hide;
    /* as root, a user of its own, which may write the output folders */
    int lock = -1;
    char err[600] = "";
    if (geteuid() == 0 && !sandbox_layer_off("user") &&
        sandbox_uid_claim(&v.uid, &lock, err, sizeof err) == 0) {
        v.drop_user = 1;
        for (int w = 0; w < n_write; w++)
            if (chown(writes[w], v.uid, v.uid) != 0) v.drop_user = 0;
    }
    char tmp[SANDBOX_PATH_MAX + 32] = "";
    if (n_write) {
        snprintf(tmp, sizeof tmp, "%s/.tmp-XXXXXX", writes[0]);
        if (!mkdtemp(tmp) || (v.drop_user && chown(tmp, v.uid, v.uid) != 0)) tmp[0] = '\0';
    }
    static const char *const layer_names[] = {
        "a view of its own (the system's folders, the submission, lib/ and kernels/, read-only; "
        "no devices but /dev/null)",
        "Landlock (reads only of the system's folders, the submission, lib/ and kernels/)",
        "no view of its own (the include check alone keeps it to the headers it may read)"};
    char why[3][600] = {"", "", ""};
    int st = -1, layer = 0;
    for (; layer < 3 && st < 0; layer++) {
        if (layer == 0 && sandbox_layer_off("ns")) {
            snprintf(why[0], sizeof why[0], "switched off (GRADE_SANDBOX_LAYERS)");
            continue;
        }
        if (layer == 1 &&
            (sandbox_layer_off("landlock") || !tmp[0] || sandbox_landlock_abi() <= 0)) {
            snprintf(why[1], sizeof why[1], "%s",
                     sandbox_layer_off("landlock") ? "switched off (GRADE_SANDBOX_LAYERS)"
                                                   : "not in this kernel");
            continue;
        }
        st = try_layer(layer, &v, tmp, cmd, why[layer], sizeof why[layer]);
    }
    layer--;
    char line[2400];
    snprintf(line, sizeof line, "compiler: %s%s%s%s%s", layer_names[layer],
             layer > 0 ? "; no view: " : "", layer > 0 ? why[0] : "",
             layer > 1 ? "; no Landlock: " : "", layer > 1 ? why[1] : "");
    note(getenv("GRADE_CONFINE_NOTE"), line);
    /* say why a file it named was not there */
    int code = st < 0 ? 126 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    if (missing && code != 0 && layer <= 1)
        printf("grader: the compiler sees only your files, the headers of lib/ and kernels/ "
               "(#include \"lib/...\") and the system's headers, read-only: no other file of "
               "the machine, no device but /dev/null\n");
    fflush(stdout);
    if (tmp[0]) sandbox_remove_tree(tmp);
    if (st < 0) fprintf(stderr, "confine: the compiler could not be started: %s\n", why[2]);
    return code;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "limits")) return limits(argc, argv);
    if (argc > 1 && !strcmp(argv[1], "compile")) return compile(argc, argv);
    return usage();
}
