/*
 * Part 2: moving work to the GPU.
 *
 * What the machine has (the three layers: driver, runtime, libraries), which
 * GPU `cuda:0` is, moving tensors and a model with tensor_to / module_to and
 * the same-device rule, a big matrix product timed wrongly and rightly on
 * the CPU and the GPU, and Lesson 01's Iris training on the GPU. Without a
 * GPU each GPU section says so in one line and the rest runs.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lessons/lesson.h"
#include "lib/device/backend.h"
#include "lib/core/counters.h"
#include "lib/device/device.h"
#include "lib/core/err.h"
#include "lib/train/iris.h"
#include "lib/nn/layers.h"
#include "lib/device/matmul.h"
#include "lib/core/timer.h"
#include "lib/train/train.h"

#define PART 2
#define README "lessons/02_device_transfer/README.md"

typedef struct Options {
    long n_cpu, n_gpu, epochs, log_every;
    const char *device;
    bool matmul;
} Options;

/* The part's options; lesson37 --part 2 --help prints them from this table. */
static bool parse_options(int argc, char **argv, Options *o, int *status)
{
    const LessonOption table[] = {
        OPT_TEXT("device", &o->device, "D", "the GPU to use: cuda, cuda:N (default cuda)"),
        OPT_LONG("n-cpu", &o->n_cpu, "N", 1, 20000,
                 "size of the CPU's N x N product (default 2000; the source used 10000)"),
        OPT_LONG("n-gpu", &o->n_gpu, "N", 1, 40000,
                 "size of the GPU's N x N product (default 10000)"),
        OPT_LONG("epochs", &o->epochs, "N", 1, 100000000,
                 "Iris epochs on the GPU (default 20000)"),
        OPT_LONG("log-every", &o->log_every, "N", 0, 100000000,
                 "print the Iris loss every N epochs, 0 for never (default 5000)"),
        OPT_CLEAR("no-matmul", &o->matmul, "skip the matrix products"),
        OPT_END,
    };
    return lesson_options(PART, table, argc, argv, status);
}

static double gib(size_t b) { return (double)b / (1024.0 * 1024.0 * 1024.0); }

/* On the CUDA simulator every "GPU" time is the CPU's: say so beside each one. */
static bool g_simulated;
static const char *sim_note(void)
{
    return g_simulated ? " [CUDA simulator: CPU time, says nothing about a GPU]" : "";
}

static void version(char *buf, size_t n, int v)
{
    if (v <= 0)
        snprintf(buf, n, "unknown");
    else if (v >= 100000) /* cuBLAS: 130100 */
        snprintf(buf, n, "%d.%d.%d", v / 10000, v / 100 % 100, v % 100);
    else /* CUDA: 13000 */
        snprintf(buf, n, "%d.%d", v / 1000, v % 1000 / 10);
}

/* Section 1: the layers and the devices. Returns false when there is no GPU. */
static bool show_devices(const Options *o, Device *gpu)
{
    printf("The three layers (each must work for the next):\n"
           "  driver   talks to the GPU; `nvidia-smi` shows it and the CUDA version it supports\n"
           "  runtime  the CUDA runtime this program was built with (cudart)\n"
           "  library  cuBLAS, which does the matrix products\n"
           "This build's CUDA backend: %s\n",
           device_backend());
    int n = 0;
    if (device_count(&n) != ERR_OK) {
        printf("GPU: %s. The GPU sections below are skipped.\n", err_message());
        return false;
    }
    const char *env = getenv("CUDA_VISIBLE_DEVICES");
    printf("Visible CUDA devices: %d%s%s%s\n", n, env ? " (CUDA_VISIBLE_DEVICES=" : "",
           env ? env : "", env ? ")" : "");
    for (int i = 0; i < n; i++) {
        DeviceInfo info;
        if (device_info(device_cuda(i), &info) != ERR_OK) {
            printf("  cuda:%d: %s\n", i, err_message());
            continue;
        }
        char drv[16], rt[16], blas[16];
        version(drv, sizeof drv, info.driver_version);
        version(rt, sizeof rt, info.runtime_version);
        version(blas, sizeof blas, info.cublas_version);
        printf("  cuda:%d = %s GPU %d: %s\n", i, env ? "the machine's" : "physical",
               info.physical, info.name);
        printf("      memory %.1f GiB (%.1f free), %d SMs, compute capability %d.%d\n",
               gib(info.total_memory), gib(info.free_memory), info.sm_count, info.cc_major,
               info.cc_minor);
        printf("      driver supports CUDA %s, runtime %s, cuBLAS %s\n", drv, rt, blas);
    }
    int found = device_from_string(o->device, gpu);
    if (found != ERR_OK || device_is_host(*gpu)) {
        printf("GPU: --device %s: %s. The GPU sections below are skipped.\n", o->device,
               found != ERR_OK ? err_message() : "not a CUDA device");
        return false;
    }
    char name[16];
    DeviceInfo used;
    g_simulated = device_info(*gpu, &used) == ERR_OK && used.simulated;
    printf("Using %s%s.\n\n", device_str(*gpu, name, sizeof name),
           g_simulated ? ", the CUDA simulator: the GPU code runs on the CPU, so its times are "
                         "the CPU's and are labelled"
                       : "");
    return true;
}

/* Section 2: tensors and a model between devices. */
static int show_moving(Device gpu)
{
    printf("Moving tensors (x.to(device)):\n");
    Tensor *x = tensor_new_2d(120, 4), *on = NULL, *back = NULL;
    if (!x) return LESSON_FAILED;
    for (int i = 0; i < 480; i++) tensor_f32(x)[i] = (float)i * 0.25f;
    counters_reset();
    int rc = tensor_to(x, gpu, &on);
    if (rc == ERR_OK) rc = tensor_to(on, device_cpu(), &back);
    if (rc != ERR_OK) {
        lesson_error(PART, err_message());
        tensor_free(x);
        tensor_free(on);
        return LESSON_FAILED;
    }
    Counters c = counters_get();
    bool same = memcmp(back->data, x->data, 480 * sizeof(float)) == 0;
    printf("  a (120, 4) tensor to the GPU and back: %llu bytes each way, %llu sync (the copy "
           "back waits for the GPU); the values %s\n",
           (unsigned long long)c.bytes_h2d, (unsigned long long)c.syncs,
           same ? "came back unchanged" : "CHANGED (a bug)");
    /* The same-device rule, as PyTorch enforces it. */
    Rng rng;
    rng_seed(&rng, 1, 0);
    Module *fc1 = linear_new("fc1", 4, 10, &rng);
    const Tensor *y;
    if (fc1 && module_to(fc1, gpu) == ERR_OK) {
        if (module_forward(fc1, x, &y) != ERR_OK)
            printf("  a CPU tensor into a model on the GPU fails, as in PyTorch:\n    %s\n",
                   err_message());
        if (module_forward(fc1, on, &y) == ERR_OK)
            printf("  the same tensor moved to the GPU goes through\n");
    }
    printf("\n");
    module_free(fc1);
    tensor_free(x);
    tensor_free(on);
    tensor_free(back);
    return same ? LESSON_OK : LESSON_FAILED;
}

static float *random_matrix(int64_t n, uint64_t seed)
{
    float *m = malloc((size_t)(n * n) * sizeof *m);
    Rng rng;
    rng_seed(&rng, seed, 0);
    for (int64_t i = 0; m && i < n * n; i++) m[i] = rng_uniform_range(&rng, -1.0f, 1.0f);
    return m;
}

/* The largest |C[i] - ref(i)| / scale over a sample of entries, computed in
 * double as dot products: a check independent of any BLAS. */
static double spot_check(const float *A, const float *B, const float *C, int64_t n)
{
    double worst = 0;
    for (int s = 0; s < 64; s++) {
        int64_t i = (s * 7919) % n, j = (s * 104729 + 13) % n;
        double ref = 0, scale = 0;
        for (int64_t k = 0; k < n; k++) {
            ref += (double)A[i + k * n] * B[k + j * n];
            scale += fabs((double)A[i + k * n] * B[k + j * n]);
        }
        double err = fabs(C[i + j * n] - ref) / (scale > 0 ? scale : 1);
        if (err > worst) worst = err;
    }
    return worst;
}

static void cpu_matmul(long n)
{
    float *A = random_matrix(n, 1), *B = random_matrix(n, 2), *C = malloc((size_t)(n * n) * 4);
    if (!A || !B || !C) {
        printf("  CPU: not enough memory for %ld x %ld matrices\n", n, n);
        free(A), free(B), free(C);
        return;
    }
    double t0 = timer_now();
    int rc = matmul_cpu(A, B, C, n, n, n);
    double s = timer_now() - t0;
    if (rc != ERR_OK) {
        printf("  CPU: %s\n", err_message());
        free(A), free(B), free(C);
        return;
    }
    char t[32];
    printf("  CPU, OpenBLAS on %d threads: %ld x %ld in %s = %.1f GFLOP/s (spot check: error "
           "%.1e of the terms' size)\n",
           matmul_cpu_threads(), n, n, timer_format(s, t, sizeof t),
           2.0 * n * n * (double)n / s * 1e-9, spot_check(A, B, C, n));
    free(A), free(B), free(C);
}

/* Section 3 (GPU half): cuBLAS timed wrongly and rightly, then our kernels. */
static void gpu_matmul(Device gpu, long n)
{
    size_t bytes = (size_t)n * (size_t)n * sizeof(float);
    float *hA = random_matrix(n, 1), *hB = random_matrix(n, 2), *hC = malloc(bytes);
    float *ref = malloc(bytes);
    float *A = NULL, *B = NULL, *C = NULL;
    int rc = hA && hB && hC && ref ? ERR_OK : err_set(ERR_NOMEM, "host memory");
    if (!rc) rc = device_alloc(gpu, bytes, (void **)&A);
    if (!rc) rc = device_alloc(gpu, bytes, (void **)&B);
    if (!rc) rc = device_alloc(gpu, bytes, (void **)&C);
    if (!rc) rc = device_copy(A, gpu, hA, device_cpu(), bytes);
    if (!rc) rc = device_copy(B, gpu, hB, device_cpu(), bytes);
    if (!rc) rc = matmul_device(gpu, MATMUL_CUBLAS, A, B, C, n, n, n); /* warm-up */
    if (!rc) rc = device_synchronize(gpu);
    char t[32], u[32];
    double flops = 2.0 * n * n * (double)n, cublas_s = 0;
    if (!rc) {
        double t0 = timer_now();
        rc = matmul_device(gpu, MATMUL_CUBLAS, A, B, C, n, n, n);
        double wrong = timer_now() - t0;
        if (!rc) rc = device_synchronize(gpu);
        double right = timer_now() - t0;
        cublas_s = right;
        if (!rc) {
            printf("  GPU, cuBLAS: %ld x %ld%s\n", n, n, sim_note());
            printf("    timed WRONGLY (no synchronize): %s, \"%.0f TFLOP/s\": the call only "
                   "queued the work%s\n",
                   timer_format(wrong, t, sizeof t), flops / wrong * 1e-12,
                   g_simulated ? " (the simulator runs everything at once, so here both times "
                                 "agree)"
                               : "");
            printf("    timed rightly (synchronized):   %s = %.1f GFLOP/s\n",
                   timer_format(right, u, sizeof u), flops / right * 1e-9);
        }
    }
    if (!rc) rc = device_copy(ref, device_cpu(), C, gpu, bytes);
    if (!rc) printf("    spot check against double-precision dot products: error %.1e\n",
                    spot_check(hA, hB, ref, n));
    for (int v = 0; !rc && v < matmul_variants(); v++) {
        double t0 = timer_now();
        rc = matmul_device(gpu, v, A, B, C, n, n, n);
        if (!rc) rc = device_synchronize(gpu);
        double s = timer_now() - t0;
        if (!rc) rc = device_copy(hC, device_cpu(), C, gpu, bytes);
        if (rc) break;
        double worst = 0;
        for (size_t i = 0; i < (size_t)n * (size_t)n; i += 997) {
            double e = fabs((double)hC[i] - ref[i]) / (fabs(ref[i]) + 1.0);
            if (e > worst) worst = e;
        }
        printf("  GPU, our kernel %d (%s): %s = %.1f GFLOP/s, %.0f%% of cuBLAS (differs from "
               "cuBLAS by %.1e)%s\n",
               v, matmul_variant_name(v), timer_format(s, t, sizeof t), flops / s * 1e-9,
               100.0 * cublas_s / s, worst, sim_note());
    }
    if (rc) printf("  GPU matrix product: %s\n", err_message());
    device_free(gpu, A, bytes);
    device_free(gpu, B, bytes);
    device_free(gpu, C, bytes);
    free(hA), free(hB), free(hC), free(ref);
}

/* Section 4: Lesson 01's training on the GPU. */
static int iris_on_gpu(const LessonContext *ctx, const Options *o, Device gpu)
{
    /* Lesson 01's data, scaled as there, and its network from the same seed. */
    IrisData iris;
    Tensor *gx = NULL, *gy = NULL, *gxt = NULL, *gyt = NULL;
    Module *model = NULL;
    Loss *loss = NULL;
    Optimizer *opt = NULL;
    int rc = iris_data_load(iris_csv_path(), &iris);
    model = iris_mlp_new(42);
    if (!model && !rc) rc = err_code();
    /* model = MLP().to(device); X_train = X_train.to(device); ... */
    if (!rc) rc = module_to(model, gpu);
    if (!rc) rc = tensor_to(iris.x_train, gpu, &gx);
    if (!rc) rc = tensor_to(iris.train.y, gpu, &gy);
    if (!rc) rc = tensor_to(iris.x_test, gpu, &gxt);
    if (!rc) rc = tensor_to(iris.test.y, gpu, &gyt);
    loss = rc ? NULL : loss_cross_entropy_new();
    opt = loss ? optim_sgd_new(model, 0.01f) : NULL;
    if (!rc && !opt) rc = err_code();
    double seconds = 0;
    float final_loss = NAN, acc = NAN;
    if (!rc) {
        printf("Iris on the GPU: %ld epochs, the loss read back every epoch (loss.item()) as in "
               "the source\n",
               o->epochs);
        counters_reset();
        double t0 = timer_now();
        for (long e = 1; e <= o->epochs && !rc; e++) {
            rc = train_step(model, loss, opt, gx, gy, &final_loss);
            if (!rc && !ctx->quiet && o->log_every && e % o->log_every == 0)
                printf("Epoch [%ld/%ld], Loss: %.4f\n", e, o->epochs, (double)final_loss);
        }
        seconds = timer_now() - t0;
    }
    if (!rc) rc = train_evaluate(model, loss, gxt, gyt, NULL, &acc);
    if (rc) {
        lesson_error(PART, err_message());
    } else {
        Counters c = counters_get();
        char t[32], per[32];
        printf("Training time on the GPU: %s (%s per epoch)%s; final loss %.4f, test accuracy "
               "%.1f%%\n",
               timer_format(seconds, t, sizeof t),
               timer_format(seconds / (double)o->epochs, per, sizeof per), sim_note(),
               (double)final_loss, 100.0 * (double)acc);
        printf("  %llu kernel launches and %llu syncs: %.1f launches and %.1f sync per epoch\n",
               (unsigned long long)c.launches, (unsigned long long)c.syncs,
               (double)c.launches / (double)o->epochs, (double)c.syncs / (double)o->epochs);
        printf("  Lesson 01 trained the same network on the CPU; Lesson 03 measures why the GPU\n"
               "  is not faster here (the source lesson: 4.62 s on its CPU, 16.85 s on an RTX "
               "4070 laptop GPU).\n");
    }
    optim_free(opt);
    loss_free(loss);
    module_free(model);
    Tensor *all[] = {gx, gy, gxt, gyt};
    for (int i = 0; i < 4; i++) tensor_free(all[i]);
    iris_data_free(&iris);
    return rc ? LESSON_FAILED : LESSON_OK;
}

int lesson02_run(const LessonContext *ctx, int argc, char **argv)
{
    Options o = {2000, 10000, 20000, 5000, "cuda", true};
    int rc;
    if (!parse_options(argc, argv, &o, &rc)) return rc;
    lesson_heading(PART, "Moving work to the GPU", README);
    Device gpu = device_cpu();
    bool have_gpu = show_devices(&o, &gpu);
    if (g_simulated && o.n_gpu == 10000 && o.epochs == 20000) {
        /* Every simulated GPU thread runs on the CPU: keep the class waiting seconds, not hours. */
        o.n_gpu = 256;
        o.epochs = 1000;
        o.log_every = 250;
        printf("On the simulator the GPU sections shrink to a 256 x 256 product and 1000 Iris "
               "epochs (--n-gpu and --epochs choose others).\n\n");
    }
    int status = LESSON_OK;
    if (have_gpu) status = show_moving(gpu);
    if (o.matmul) {
        printf("An N x N matrix product (2 N^3 floating-point operations):\n");
        cpu_matmul(o.n_cpu);
        if (have_gpu)
            gpu_matmul(gpu, o.n_gpu);
        else
            printf("  GPU: skipped (no CUDA device)\n");
        printf("\n");
    }
    if (have_gpu) {
        int r = iris_on_gpu(ctx, &o, gpu);
        if (r != LESSON_OK) status = r;
    } else {
        printf("Iris on the GPU: skipped (no CUDA device)\n");
    }
    return status;
}
