/*
 * grader.c: runs one lesson's graded suite and writes its results.
 *
 *   gradeNN --out DIR     run every case, write DIR/lessonNN.tsv and
 *                         DIR/check_NN.xml (Check's own XML log)
 *   gradeNN --list        print the cases (name, points) without running them
 *
 * Each case is its own Check test case, run in a forked child with its own
 * timeout and a memory limit, so student code that crashes, hangs, allocates
 * without bound or calls exit() fails that case and nothing else. The child
 * marks the end of a case in shared memory; a case that Check reports as
 * passed but never reached its end called exit(0) and is failed here.
 * tests/graded/driver.c turns the files into the tables and results.json.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "graded.h"
#include "lib/backend.h"
#include "lib/device.h"

#define MEMORY_LIMIT_MB 2048

static volatile int *reached_end; /* shared with the forked children */

void graded_reached_end(const char *test_name)
{
    for (int i = 0; i < graded_lesson.n_cases; i++)
        if (strcmp((*graded_lesson.cases[i].test)->name, test_name) == 0) reached_end[i] = 1;
}

/* Runs in the child before each case. Not with a real GPU: the CUDA driver
 * reserves far more address space than any sane limit when it starts. */
static void limit_memory(void)
{
    if (strcmp(backend_name(), "CUDA") == 0) return;
    struct rlimit r = {(rlim_t)MEMORY_LIMIT_MB << 20, (rlim_t)MEMORY_LIMIT_MB << 20};
    setrlimit(RLIMIT_AS, &r);
}

static const char *signal_story(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV: a read or write outside an array, or through a NULL pointer "
                         "(or a huge allocation that failed)";
    case SIGBUS: return "SIGBUS: a misaligned or invalid memory access";
    case SIGFPE: return "SIGFPE: an integer division by zero";
    case SIGABRT: return "SIGABRT: abort() or a failed assert (or the C library found corrupted "
                         "memory)";
    case SIGILL: return "SIGILL: an illegal instruction";
    case SIGKILL: return "SIGKILL: killed, maybe for using too much memory";
    default: return NULL;
    }
}

/* Check's message for a case that did not finish, in words a student can act on. */
static void explain(const char *msg, int timeout_s, char *out, size_t size)
{
    int sig, code;
    if (sscanf(msg, "Received signal %d", &sig) == 1) {
        const char *story = signal_story(sig);
        if (story)
            snprintf(out, size, "crashed: %s", story);
        else
            snprintf(out, size, "crashed: signal %d (%s)", sig, msg);
    } else if (strstr(msg, "timeout expired")) {
        const char *mult = getenv("CK_TIMEOUT_MULTIPLIER");
        double limit = timeout_s * (mult && atof(mult) > 0 ? atof(mult) : 1.0);
        snprintf(out, size, "timed out after %g s (an endless loop, or a loop bound that never "
                            "stops?)",
                 limit);
    } else if (sscanf(msg, "Early exit with return value %d", &code) == 1) {
        snprintf(out, size, "exited early with status %d (exit() was called: return from the "
                            "function instead)",
                 code);
    } else {
        snprintf(out, size, "%s", msg);
    }
}

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

int main(int argc, char **argv)
{
    const char *out_dir = NULL;
    int list = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--list") == 0)
            list = 1;
        else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
            out_dir = argv[++i];
        else {
            fprintf(stderr, "usage: %s --out DIR | --list\n", argv[0]);
            return 2;
        }
    }
    const GradedLesson *L = &graded_lesson;
    if (list) {
        for (int i = 0; i < L->n_cases; i++) write_case(stdout, i, 0, "listed", "");
        return 0;
    }
    if (!out_dir) {
        fprintf(stderr, "usage: %s --out DIR | --list\n", argv[0]);
        return 2;
    }
    reached_end = mmap(NULL, sizeof(int) * (size_t)L->n_cases, PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (reached_end == MAP_FAILED) {
        perror("grader: mmap");
        return 1;
    }

    Suite *s = suite_create(L->id);
    for (int i = 0; i < L->n_cases; i++) {
        char name[32];
        snprintf(name, sizeof name, "case%03d", i);
        TCase *tc = tcase_create(strdup(name));
        tcase_set_timeout(tc, L->cases[i].timeout_s);
        tcase_add_checked_fixture(tc, limit_memory, NULL);
        tcase_add_test(tc, *L->cases[i].test);
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
    /* Where kernels of this lesson ran: a GPU, or the simulator. Asked only now,
     * after the cases ran: a CUDA context made before Check forks would not
     * survive in the children. */
    if (device_cuda_built()) {
        DeviceInfo info;
        if (backend_device_info(0, &info) == 0) /* not device_info: it uses exercise 02.1 */
            fprintf(f, "#device\t%s\n", info.name);
        else
            fprintf(f, "#device\tno CUDA device (%s)\n", device_backend());
    }
    int n = srunner_ntests_run(sr);
    TestResult **results = srunner_results(sr);
    int *seen = calloc((size_t)L->n_cases, sizeof *seen);
    for (int r = 0; r < n; r++) {
        int i = -1;
        sscanf(tr_tcname(results[r]), "case%d", &i);
        if (i < 0 || i >= L->n_cases || seen[i]) continue;
        seen[i] = 1;
        const GradedCase *c = &L->cases[i];
        char why[2048];
        if (tr_rtype(results[r]) == CK_PASS && reached_end[i]) {
            write_case(f, i, c->points, "passed", "");
        } else if (tr_rtype(results[r]) == CK_PASS) {
            write_case(f, i, 0, "failed",
                       "exited early with status 0 (exit() was called: return from the "
                       "function instead)");
        } else if (tr_rtype(results[r]) == CK_FAILURE) {
            write_case(f, i, 0, "failed", tr_msg(results[r]));
        } else {
            explain(tr_msg(results[r]), c->timeout_s, why, sizeof why);
            write_case(f, i, 0, "failed", why);
        }
    }
    for (int i = 0; i < L->n_cases; i++)
        if (!seen[i]) write_case(f, i, 0, "failed", "the grader got no result for this case");
    fclose(f);
    free(seen);
    srunner_free(sr);
    return 0;
}
