/* launch.c: mpirun from a program, with a time limit. */
#define _GNU_SOURCE /* prctl, setenv */
#include "lib/dist/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "lib/core/fileio.h"

/* Seconds between asking mpirun to stop its ranks and killing it. */
#define GRACE_S 3.0

const char *dist_launcher(void)
{
    static char found[4096]; /* searched again each call: PATH may have changed */
    found[0] = '\0';
    const char *path = getenv("PATH");
    if (!path) path = "/usr/local/bin:/usr/bin:/bin";
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, ":");
        if (n > 0 && n < sizeof found - 8) {
            char candidate[sizeof found];
            snprintf(candidate, sizeof candidate, "%.*s/mpirun", (int)n, p);
            if (access(candidate, X_OK) == 0) {
                snprintf(found, sizeof found, "%s", candidate);
                return found;
            }
        }
        p += n;
        if (*p == ':') p++;
    }
    return NULL;
}

int dist_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

extern char **environ;

/* The environment mpirun gets: ours, plus what Open MPI needs here. */
static char **launch_environment(void)
{
    static char root1[] = "OMPI_ALLOW_RUN_AS_ROOT=1";
    static char root2[] = "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1";
    /* Containers often forbid one process reading another's memory (ptrace), which
     * Open MPI's single-copy transfers use: plain shared memory works everywhere. */
    static char copy[] = "OMPI_MCA_btl_vader_single_copy_mechanism=none";
    int n = 0;
    while (environ[n]) n++;
    char **env = calloc((size_t)n + 5, sizeof *env);
    if (!env) return NULL;
    int k = 0;
#if defined(__SANITIZE_ADDRESS__)
    /* Built with AddressSanitizer (SAN=1): Open MPI never frees what it allocates for
     * itself, so the ranks check no leaks (lib's are checked in one process). */
    static char asan[1024];
    const char *had = getenv("ASAN_OPTIONS");
    snprintf(asan, sizeof asan, "ASAN_OPTIONS=%s%sdetect_leaks=0", had ? had : "",
             had && *had ? ":" : "");
    for (int i = 0; i < n; i++)
        if (strncmp(environ[i], "ASAN_OPTIONS=", 13) != 0) env[k++] = environ[i];
    env[k++] = asan;
#else
    for (int i = 0; i < n; i++) env[k++] = environ[i];
#endif
    if (geteuid() == 0) { /* a container's root: Open MPI refuses root without these two */
        if (!getenv("OMPI_ALLOW_RUN_AS_ROOT")) env[k++] = root1;
        if (!getenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM")) env[k++] = root2;
    }
    if (!getenv("OMPI_MCA_btl_vader_single_copy_mechanism")) env[k++] = copy;
    env[k] = NULL;
    return env;
}

/* mpirun's command line: the options for this machine, then the program's. */
static char **launch_arguments(const char *mpirun, const DistLaunchOptions *o,
                               char *const argv[], char *np, size_t np_size)
{
    int n = 0;
    while (argv[n]) n++;
    const char **args = calloc((size_t)n + 8, sizeof *args);
    if (!args) return NULL;
    snprintf(np, np_size, "%d", o->ranks);
    int k = 0;
    args[k++] = mpirun;
    args[k++] = "-np";
    args[k++] = np;
    args[k++] = "--oversubscribe"; /* allows more ranks than cores; with fewer, a no-op */
    if (o->ranks > dist_cores()) args[k++] = "--bind-to", args[k++] = "none";
    if (o->quiet) args[k++] = "-q";
    for (int i = 0; i < n; i++) args[k++] = argv[i];
    args[k] = NULL;
    return (char **)args;
}

/* In the child: its input, its output (out, or this program's when -1), then mpirun.
 * Never returns. */
static void exec_mpirun(const char *mpirun, int out, char **args, char **env)
{
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* the caller killed: so is the run */
#endif
    int in = open("/dev/null", O_RDONLY); /* mpirun would forward our input to rank 0 */
    if (in >= 0) dup2(in, 0);
    /* out's close-on-exec flag cleared: dup2() onto itself (out is 1 or 2 when this
     * program's were closed) would keep it. */
    if (out >= 0 && (fcntl(out, F_SETFD, 0) != 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0))
        _exit(126);
    execve(mpirun, args, env);
    _exit(127);
}

/* One run of mpirun, its output to out (-1: this program's), waited for. */
typedef struct Run {
    const char *mpirun;
    const DistLaunchOptions *o;
    char **args, **env;
    DistLaunch *r;
} Run;

static int run_mpirun(const Run *run, int out);

/* fileio_save()'s writer of the ranks' output: the run itself, its output to the new
 * file, which is saved at output once the run has ended (however it ended). */
static int write_output(FILE *f, void *ctx)
{
    fflush(f);
    return run_mpirun(ctx, fileno(f));
}

int dist_launch(const DistLaunchOptions *o, char *const argv[], DistLaunch *r)
{
    memset(r, 0, sizeof *r);
    if (!o || o->ranks < 1 || !(o->limit_s > 0) || !argv || !argv[0])
        return err_set(ERR_ARG, "dist_launch: at least one rank, a positive time limit and a "
                                "program are needed");
    const char *mpirun = dist_launcher();
    if (!mpirun)
        return err_set(ERR_UNSUPPORTED, "no mpirun on the PATH: starting several ranks needs "
                                        "Open MPI (Debian: sudo apt-get install -y openmpi-bin "
                                        "libopenmpi-dev, or make deps as root)");
    r->oversubscribed = o->ranks > dist_cores();
    char np[16];
    char **args = launch_arguments(mpirun, o, argv, np, sizeof np);
    char **env = launch_environment();
    if (!args || !env) {
        free(args);
        free(env);
        return err_set(ERR_NOMEM, "dist_launch: out of memory");
    }
    Run run = {mpirun, o, args, env, r};
    int rc = o->output ? fileio_save(o->output, "ranks' output", write_output, &run)
                       : run_mpirun(&run, -1);
    free(args);
    free(env);
    return rc;
}

static int run_mpirun(const Run *run, int out)
{
    const DistLaunchOptions *o = run->o;
    DistLaunch *r = run->r;
    double start = now_s();
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) exec_mpirun(run->mpirun, out, run->args, run->env);
    if (pid < 0) return err_set(ERR_IO, "dist_launch: fork failed: %s", strerror(errno));
    int st = 0;
    double deadline = start + o->limit_s, asked = 0;
    for (;;) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid) break;
        if (w < 0 && errno != EINTR) {
            st = 0;
            break;
        }
        double now = now_s();
        if (now > deadline && !asked) {
            r->timed_out = true;
            kill(pid, SIGTERM); /* mpirun ends its ranks and itself */
            asked = now;
        } else if (asked && now > asked + GRACE_S) {
            kill(pid, SIGKILL); /* its ranks follow it (dist_init) */
            asked = now + 1e9;
        }
        sleep_s(0.005);
    }
    r->seconds = now_s() - start;
    if (WIFEXITED(st)) {
        r->status = WEXITSTATUS(st);
        if (r->status == 127 || r->status == 126)
            return err_set(ERR_IO, "dist_launch: could not start %s%s%s", run->mpirun,
                           o->output ? " with its output in " : "", o->output ? o->output : "");
    } else if (WIFSIGNALED(st)) {
        r->signal = WTERMSIG(st);
        r->status = -1;
    }
    return ERR_OK;
}
