/*
 * bench_iris: the source lesson's 20000-epoch Iris training, ours against
 * PyTorch's, measured side by side in one run (make bench).
 *
 * Ours runs the same loop as Lesson 01 (forward, loss, zero_grad, backward,
 * step, the loss kept every epoch) several times from the same seed and
 * reports the median; PyTorch runs tests/bench/iris_torch.py once, which
 * times the source's loop the way the source does. Speed target (issue
 * "Foundation"): ours at least 50 times faster.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/device/cpuinfo.h"
#include "lib/core/err.h"
#include "lib/train/iris.h"
#include "lib/core/timer.h"
#include "lib/train/train.h"

#define TARGET_RATIO 50.0

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One full training run; returns seconds, the last loss in *last. */
static double run_ours(const Tensor *x, const Tensor *y, long epochs, float *losses, float *last)
{
    Module *model = iris_mlp_new(42);
    Loss *loss = loss_cross_entropy_new();
    Optimizer *opt = optim_sgd_new(model, 0.01f);
    if (!opt) {
        fprintf(stderr, "bench_iris: %s\n", err_message());
        exit(1);
    }
    double t0 = timer_now();
    for (long e = 0; e < epochs; e++) {
        if (train_step(model, loss, opt, x, y, &losses[e]) != ERR_OK) {
            fprintf(stderr, "bench_iris: %s\n", err_message());
            exit(1);
        }
    }
    double s = timer_now() - t0;
    *last = losses[epochs - 1];
    optim_free(opt);
    loss_free(loss);
    module_free(model);
    return s;
}

static int run_torch(const char *python, long epochs, double *seconds, float *loss, int *threads,
                     char *version, size_t vsize)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' '%s/tests/bench/iris_torch.py' --epochs %ld", python,
             WB_ROOT, epochs);
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    char line[512] = "";
    int ok = 0;
    while (fgets(line, sizeof line, p)) {
        char v[64];
        if (sscanf(line, "seconds=%lf loss=%f threads=%d torch=%63s", seconds, loss, threads, v) ==
            4) {
            snprintf(version, vsize, "%s", v);
            ok = 1;
        }
    }
    int status = pclose(p);
    return ok && status == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    const char *python = NULL;
    long epochs = 20000;
    int repeat = 7;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--python") == 0 && i + 1 < argc)
            python = argv[++i];
        else if (strcmp(argv[i], "--epochs") == 0 && i + 1 < argc)
            epochs = atol(argv[++i]);
        else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_iris [--python PATH] [--epochs N] [--repeat R]\n");
            return 2;
        }
    }
    if (epochs < 1 || repeat < 1 || repeat > 100) {
        fprintf(stderr, "bench_iris: --epochs must be at least 1 and --repeat 1..100\n");
        return 2;
    }

    IrisData iris;
    if (iris_data_load(iris_csv_path(), &iris)) {
        fprintf(stderr, "bench_iris: %s\n", err_message());
        return 1;
    }
    const Tensor *x = iris.x_train;
    CpuInfo cpu;
    bool known = cpuinfo_read(&cpu) == ERR_OK && cpu.model[0];
    printf("Iris MLP 4-10-3, %ld full-batch epochs (the source lesson's loop), on %s\n", epochs,
           known ? cpu.model : "this CPU");
    float *losses = malloc((size_t)epochs * sizeof *losses), last = 0;
    double *t = malloc((size_t)repeat * sizeof *t);
    run_ours(x, iris.train.y, epochs, losses, &last); /* warm-up: caches, page faults */
    for (int r = 0; r < repeat; r++) t[r] = run_ours(x, iris.train.y, epochs, losses, &last);
    qsort(t, (size_t)repeat, sizeof *t, cmp_double);
    double ours = t[repeat / 2];
    char a[32], b[32], c[32];
    printf("  ours (C, one thread)          %9s  median of %d runs (fastest %s, slowest %s)"
           "  final loss %.4f\n",
           timer_format(ours, a, sizeof a), repeat, timer_format(t[0], b, sizeof b),
           timer_format(t[repeat - 1], c, sizeof c), (double)last);

    double ts;
    float tl;
    int threads;
    char version[64];
    if (!python) {
        printf("  PyTorch: not installed (sudo apt-get install -y python3-torch), so no ratio.\n");
    } else if (run_torch(python, epochs, &ts, &tl, &threads, version, sizeof version) != 0) {
        printf("  PyTorch: %s tests/bench/iris_torch.py failed, so no ratio.\n", python);
    } else {
        printf("  PyTorch %-8s (%d thread%s)  %9s  one run                                 "
               "final loss %.4f\n",
               version, threads, threads == 1 ? "" : "s", timer_format(ts, a, sizeof a),
               (double)tl);
        double ratio = ts / ours;
        printf("  PyTorch / ours = %.0fx  (target: at least %.0fx: %s)\n", ratio, TARGET_RATIO,
               ratio >= TARGET_RATIO ? "met" : "NOT MET");
    }
    free(t);
    free(losses);
    iris_data_free(&iris);
    return 0;
}
