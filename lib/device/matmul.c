/* matmul.c: C = A B with OpenBLAS on the CPU, cuBLAS or our kernels on a GPU; which
 * OpenBLAS kernel runs, and measuring one in a child process. */
#define _POSIX_C_SOURCE 200809L
#include "lib/device/matmul.h"

#include <cblas.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/core/err.h"
#include "lib/core/rng.h"
#include "lib/core/timer.h"
#include "lib/device/backend.h"

extern char **environ;

int matmul_cpu(const float *A, const float *B, float *C, int64_t m, int64_t n, int64_t k)
{
    if (m < 0 || n < 0 || k < 0 || m > 2147483647 || n > 2147483647 || k > 2147483647)
        return err_set(ERR_ARG, "matmul_cpu: sizes (%lld, %lld, %lld) out of range", (long long)m,
                       (long long)n, (long long)k);
    if (m == 0 || n == 0) return ERR_OK;
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0f, A,
                (int)(m ? m : 1), B, (int)(k ? k : 1), 0.0f, C, (int)(m ? m : 1));
    return ERR_OK;
}

int matmul_device(Device d, int variant, const float *A, const float *B, float *C, int64_t m,
                  int64_t n, int64_t k)
{
    TRY(device_check(d));
    const BackendOps *ops = backend_of(d);
    if (variant == MATMUL_CUBLAS)
        return ops->gemm(d, false, false, m, n, k, 1.0f, A, m, B, k, 0.0f, C, m);
    return ops->sgemm_kernel(d, variant, A, B, C, m, n, k);
}

/* The workbook's own kernels are the CUDA backend's (none without one). */
static const char *kernel_name(int variant)
{
    const BackendOps *cuda = backend_cuda();
    return cuda ? cuda->sgemm_name(variant) : NULL;
}

int matmul_variants(void)
{
    int n = 0;
    while (kernel_name(n)) n++;
    return n;
}

const char *matmul_variant_name(int variant)
{
    if (variant == MATMUL_CUBLAS) return "cuBLAS";
    const char *name = kernel_name(variant);
    return name ? name : "unknown";
}

int matmul_cpu_threads(void) { return openblas_get_num_threads(); }

/* ---- which OpenBLAS kernel runs ------------------------------------------------------ */

const char *matmul_blas_kernel(void)
{
    const char *name = openblas_get_corename();
    return name ? name : "unknown";
}

const char *matmul_blas_config(void)
{
    const char *config = openblas_get_config();
    return config ? config : "unknown";
}

bool matmul_blas_dynamic(void) { return strstr(matmul_blas_config(), "DYNAMIC_ARCH") != NULL; }

MatmulSimd matmul_blas_kernel_simd(const char *kernel)
{
    /* OpenBLAS's x86-64 kernels (driver/others/dynamic.c) and the SIMD each is written for. */
    static const struct {
        const char *name;
        MatmulSimd level;
    } known[] = {
        {"Katmai", MATMUL_SIMD_SSE},      {"Coppermine", MATMUL_SIMD_SSE},
        {"Northwood", MATMUL_SIMD_SSE},   {"Banias", MATMUL_SIMD_SSE},
        {"Prescott", MATMUL_SIMD_SSE},    {"Core2", MATMUL_SIMD_SSE},
        {"Penryn", MATMUL_SIMD_SSE},      {"Dunnington", MATMUL_SIMD_SSE},
        {"Nehalem", MATMUL_SIMD_SSE},     {"Atom", MATMUL_SIMD_SSE},
        {"Athlon", MATMUL_SIMD_SSE},      {"Opteron", MATMUL_SIMD_SSE},
        {"Opteron_SSE3", MATMUL_SIMD_SSE}, {"Barcelona", MATMUL_SIMD_SSE},
        {"Bobcat", MATMUL_SIMD_SSE},      {"Sandybridge", MATMUL_SIMD_AVX},
        {"Bulldozer", MATMUL_SIMD_AVX},   {"Piledriver", MATMUL_SIMD_AVX},
        {"Steamroller", MATMUL_SIMD_AVX}, {"Excavator", MATMUL_SIMD_AVX},
        {"Haswell", MATMUL_SIMD_AVX2},    {"Zen", MATMUL_SIMD_AVX2},
        {"SkylakeX", MATMUL_SIMD_AVX512}, {"Cooperlake", MATMUL_SIMD_AVX512},
        {"SapphireRapids", MATMUL_SIMD_AVX512},
    };
    if (!kernel) return MATMUL_SIMD_UNKNOWN;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcasecmp(kernel, known[i].name) == 0) return known[i].level;
    return MATMUL_SIMD_UNKNOWN;
}

/* Whether the space-separated list has this exact word. */
static bool has_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; p && (p = strstr(p, word)) != NULL; p += n) {
        bool starts = p == list || p[-1] == ' ';
        bool ends = p[n] == '\0' || p[n] == ' ' || p[n] == '\n';
        if (starts && ends) return true;
    }
    return false;
}

MatmulSimd matmul_cpu_simd(const char *simd)
{
    if (!simd) return MATMUL_SIMD_UNKNOWN;
    if (has_word(simd, "AVX-512F")) return MATMUL_SIMD_AVX512;
    if (has_word(simd, "AVX2") && has_word(simd, "FMA")) return MATMUL_SIMD_AVX2;
    if (has_word(simd, "AVX")) return MATMUL_SIMD_AVX;
    if (has_word(simd, "SSE2") || has_word(simd, "SSE4.2")) return MATMUL_SIMD_SSE;
    return MATMUL_SIMD_UNKNOWN;
}

const char *matmul_simd_name(MatmulSimd level)
{
    switch (level) {
    case MATMUL_SIMD_SSE: return "SSE";
    case MATMUL_SIMD_AVX: return "AVX";
    case MATMUL_SIMD_AVX2: return "AVX2";
    case MATMUL_SIMD_AVX512: return "AVX-512";
    default: return "unknown";
    }
}

bool matmul_blas_is_fallback(const char *kernel, const char *simd)
{
    MatmulSimd k = matmul_blas_kernel_simd(kernel), c = matmul_cpu_simd(simd);
    return k != MATMUL_SIMD_UNKNOWN && c != MATMUL_SIMD_UNKNOWN && k < c;
}

int matmul_blas_candidates(const char *simd, const char *vendor, const char **out, int max)
{
    const char *list[4];
    int n = 0;
    bool amd = vendor && strstr(vendor, "AMD") != NULL;
    switch (matmul_cpu_simd(simd)) {
    case MATMUL_SIMD_AVX512:
        list[n++] = "SkylakeX";
        if (has_word(simd, "AVX-512BF16")) list[n++] = "Cooperlake";
        list[n++] = "Haswell";
        break;
    case MATMUL_SIMD_AVX2:
        list[n++] = "Haswell";
        if (amd) list[n++] = "Zen";
        break;
    case MATMUL_SIMD_AVX:
        list[n++] = "Sandybridge";
        break;
    default:
        break;
    }
    int k = 0;
    for (int i = 0; i < n && k < max; i++) out[k++] = list[i];
    return k;
}

/* ---- measuring --------------------------------------------------------------------- */

double matmul_rate_gflops(const MatmulRate *r)
{
    double n = (double)r->n;
    return r->median_s > 0 ? 2.0 * n * n * n / r->median_s * 1e-9 : 0.0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double matmul_spot_check(const float *A, const float *B, const float *C, int64_t n)
{
    double worst = 0;
    for (int s = 0; s < 64; s++) {
        int64_t i = (s * 7919) % n, j = (s * 104729 + 13) % n;
        double ref = 0, scale = 0;
        for (int64_t k = 0; k < n; k++) {
            double t = (double)A[i + k * n] * B[k + j * n];
            ref += t;
            scale += fabs(t);
        }
        double err = fabs(C[i + j * n] - ref) / (scale > 0 ? scale : 1);
        if (err > worst) worst = err;
    }
    return worst;
}

int matmul_cpu_measure(int64_t n, int reps, MatmulRate *r)
{
    memset(r, 0, sizeof *r);
    if (n < 1 || n > 46340 || reps < 1 || reps > 1000)
        return err_set(ERR_ARG, "matmul_cpu_measure: n = %lld (1 to 46340) and reps = %d "
                                "(1 to 1000) out of range",
                       (long long)n, reps);
    size_t count = (size_t)n * (size_t)n;
    float *A = malloc(count * sizeof *A), *B = malloc(count * sizeof *B),
          *C = malloc(count * sizeof *C);
    double *times = malloc((size_t)reps * sizeof *times);
    int rc = ERR_OK;
    if (!A || !B || !C || !times) {
        rc = err_set(ERR_NOMEM, "matmul_cpu_measure: not enough memory for three %lld x %lld "
                                "matrices (%.1f GiB)",
                     (long long)n, (long long)n, 3.0 * (double)count * 4 / (1 << 30));
        goto done;
    }
    Rng rng;
    rng_seed(&rng, 1, 0);
    for (size_t i = 0; i < count; i++) A[i] = rng_uniform_range(&rng, -1.0f, 1.0f);
    rng_seed(&rng, 2, 0);
    for (size_t i = 0; i < count; i++) B[i] = rng_uniform_range(&rng, -1.0f, 1.0f);
    /* Warm-up: starts OpenBLAS's threads and touches C's pages. For a big N a smaller
     * product on the same memory does that (the first touch of C is what costs). */
    int64_t w = n < 1000 ? n : 1000;
    memset(C, 0, count * sizeof *C);
    cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, (int)w, (int)w, (int)w, 1.0f, A,
                (int)n, B, (int)n, 0.0f, C, (int)n);
    for (int i = 0; i < reps; i++) {
        double t0 = timer_now();
        TRY_OR_DONE(matmul_cpu(A, B, C, n, n, n));
        times[i] = timer_now() - t0;
    }
    r->error = matmul_spot_check(A, B, C, n);
    qsort(times, (size_t)reps, sizeof *times, cmp_double);
    r->median_s = reps % 2 ? times[reps / 2] : 0.5 * (times[reps / 2 - 1] + times[reps / 2]);
    r->min_s = times[0];
    r->max_s = times[reps - 1];
    r->n = n;
    r->reps = reps;
    r->threads = matmul_cpu_threads();
    snprintf(r->kernel, sizeof r->kernel, "%s", matmul_blas_kernel());
done:
    free(A), free(B), free(C), free(times);
    return rc;
}

#define RATE_TAG "wb-blas-rate"

void matmul_rate_format(const MatmulRate *r, char *buf, size_t size)
{
    snprintf(buf, size,
             RATE_TAG " kernel=%s threads=%d n=%lld reps=%d median=%.9g min=%.9g max=%.9g "
                      "error=%.3g",
             r->kernel[0] ? r->kernel : "unknown", r->threads, (long long)r->n, r->reps,
             r->median_s, r->min_s, r->max_s, r->error);
}

int matmul_rate_parse(const char *text, MatmulRate *r)
{
    memset(r, 0, sizeof *r);
    const char *line = text;
    while (line && strncmp(line, RATE_TAG " ", sizeof RATE_TAG) != 0) {
        line = strchr(line, '\n');
        if (line) line++;
    }
    if (!line) return err_set(ERR_FORMAT, "no \"" RATE_TAG "\" line in the output");
    long long n = 0;
    int used = 0;
    int got = sscanf(line,
                     RATE_TAG " kernel=%31s threads=%d n=%lld reps=%d median=%lf min=%lf max=%lf "
                              "error=%lf%n",
                     r->kernel, &r->threads, &n, &r->reps, &r->median_s, &r->min_s, &r->max_s,
                     &r->error, &used);
    r->n = n;
    if (got != 8 || used == 0 || r->n < 1 || r->reps < 1 || !(r->median_s > 0) ||
        !(r->min_s > 0) || r->max_s < r->min_s) {
        memset(r, 0, sizeof *r);
        return err_set(ERR_FORMAT, "a malformed \"" RATE_TAG "\" line");
    }
    return ERR_OK;
}

/* The environment with OPENBLAS_CORETYPE=coretype in place of any it had; free the array. */
static char **child_env(const char *coretype, char **setting)
{
    size_t n = 0;
    while (environ[n]) n++;
    char **env = malloc((n + 2) * sizeof *env);
    *setting = NULL;
    if (!env) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!coretype || strncmp(environ[i], "OPENBLAS_CORETYPE=", 18) != 0) env[k++] = environ[i];
    if (coretype) {
        size_t len = strlen(coretype) + 19;
        if (!(*setting = malloc(len))) {
            free(env);
            return NULL;
        }
        snprintf(*setting, len, "OPENBLAS_CORETYPE=%s", coretype);
        env[k++] = *setting;
    }
    env[k] = NULL;
    return env;
}

/* The last non-empty line of text, for a message (in buf). */
static const char *last_line(const char *text, char *buf, size_t size)
{
    size_t len = strlen(text);
    while (len && (text[len - 1] == '\n' || text[len - 1] == '\r')) len--;
    size_t start = len;
    while (start && text[start - 1] != '\n') start--;
    size_t keep = len - start < size - 1 ? len - start : size - 1;
    memcpy(buf, text + start, keep);
    buf[keep] = '\0';
    return buf;
}

int matmul_cpu_measure_child(char *const argv[], const char *coretype, double timeout_s,
                             MatmulRate *r)
{
    memset(r, 0, sizeof *r);
    const char *as = coretype ? coretype : "(as started)";
    char *setting = NULL, *out = NULL;
    char **env = child_env(coretype, &setting);
    int fds[2] = {-1, -1}, rc = ERR_OK;
    bool spawned = false;
    pid_t pid = 0;
    posix_spawn_file_actions_t fa;
    bool have_fa = false;
    if (!env) {
        rc = err_set(ERR_NOMEM, "BLAS kernel %s: out of memory", as);
        goto done;
    }
    if (pipe(fds) != 0) {
        rc = err_set(ERR_IO, "BLAS kernel %s: pipe: %s", as, strerror(errno));
        goto done;
    }
    if (posix_spawn_file_actions_init(&fa) != 0) {
        rc = err_set(ERR_NOMEM, "BLAS kernel %s: posix_spawn_file_actions_init failed", as);
        goto done;
    }
    have_fa = true;
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDERR_FILENO);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    fflush(NULL);
    int e = posix_spawn(&pid, argv[0], &fa, NULL, argv, env);
    close(fds[1]);
    fds[1] = -1;
    if (e != 0) {
        rc = err_set(ERR_IO, "BLAS kernel %s: cannot start %s: %s", as, argv[0], strerror(e));
        goto done;
    }
    spawned = true;
    /* Read everything the child says, up to the deadline. */
    size_t cap = 4096, len = 0;
    if (!(out = malloc(cap))) {
        rc = err_set(ERR_NOMEM, "BLAS kernel %s: out of memory", as);
        goto done;
    }
    double deadline = timer_now() + timeout_s;
    for (;;) {
        double left = deadline - timer_now();
        if (left <= 0) {
            kill(pid, SIGKILL);
            rc = err_set(ERR_DEVICE, "BLAS kernel %s: no answer after %.0f s (stopped)", as,
                         timeout_s);
            goto done;
        }
        struct pollfd p = {fds[0], POLLIN, 0};
        int ready = poll(&p, 1, (int)(left * 1000) + 1);
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) continue;
        if (len + 1024 > cap) {
            char *bigger = realloc(out, cap * 2);
            if (!bigger) {
                kill(pid, SIGKILL);
                rc = err_set(ERR_NOMEM, "BLAS kernel %s: out of memory", as);
                goto done;
            }
            out = bigger;
            cap *= 2;
        }
        ssize_t got = read(fds[0], out + len, cap - len - 1);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        len += (size_t)got;
    }
    out[len] = '\0';
done:;
    int status = 0;
    if (spawned) {
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        if (!rc) {
            char line[160];
            if (WIFSIGNALED(status))
                rc = err_set(ERR_DEVICE, "BLAS kernel %s: the child died of signal %d (%s)%s", as,
                             WTERMSIG(status), strsignal(WTERMSIG(status)),
                             WTERMSIG(status) == SIGILL
                                 ? ": the kernel uses instructions this CPU does not have"
                                 : "");
            else if (matmul_rate_parse(out, r) != ERR_OK)
                rc = err_set(ERR_DEVICE, "BLAS kernel %s: the child (exit status %d) printed no "
                                         "rate; its last line: \"%s\"",
                             as, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                             last_line(out, line, sizeof line));
        }
    }
    if (have_fa) posix_spawn_file_actions_destroy(&fa);
    if (fds[0] >= 0) close(fds[0]);
    if (fds[1] >= 0) close(fds[1]);
    free(out);
    free(env);
    free(setting);
    return rc;
}
