/*
 * Lesson 03, demo batch (make demo-batch): inputs through an encoder one at a
 * time, in chunks, and all at once (predict_chunked, exercise 03.2).
 *
 * On the CPU the encoder's products run as a PyTorch user's do: one sgemm per
 * layer (nn.Linear on the CPU; PyTorch's x86 wheels call MKL, here OpenBLAS
 * through the CPU backend's gemm op). Beside them, the same encoder with our own
 * Linear (exercise 01.2, plain loops), whose one batch can be slower per input
 * than chunks of 256: the loops are not cache-blocked, and the demo says what it
 * measured and why. Every row is the median
 * of several runs, with their spread.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <string.h>

#include "lessons/03_why_gpu_slower/demos.h"
#include "lib/core/counters.h"
#include "lib/core/err.h"
#include "lib/core/rng.h"
#include "lib/device/backend.h"
#include "lib/device/cpuinfo.h"
#include "lib/device/matmul.h"
#include "lib/nn/layers.h"

#define MAX_REPEATS 5
#define N_CHUNKS 5

/* ---- Linear through BLAS, as torch.nn.Linear runs on a CPU ---------------------- */

/* y (n, out) = x (n, in) W^T + b with one gemm (column-major, as lib's tensors are). */
static int blas_linear_forward(Module *self, const Tensor *x, const Tensor **y)
{
    const Tensor *w = self->params[0].value, *b = self->params[1].value;
    int64_t out = w->shape[0], in = w->shape[1], n = x->shape[0];
    TRY(tensor_check_2d(x, DTYPE_F32, 0, in, "", "input"));
    TRY(tensor_check_same_device(self->label, x, w));
    int64_t shape[2] = {n, out};
    TRY(tensor_resize(self->output, 2, shape));
    self->input = x;
    const BackendOps *ops = tensor_ops(x);
    TRY(ops->gemm(x->device, false, true, n, out, in, 1.0f, tensor_f32(x), n, tensor_f32(w), out,
                  0.0f, tensor_f32(self->output), n));
    TRY(ops->add_bias(x->device, tensor_f32(self->output), tensor_f32(b), n, out));
    *y = self->output;
    return ERR_OK;
}

static int blas_linear_backward(Module *self, const Tensor *dy, const Tensor **dx)
{
    (void)dy, (void)dx;
    return err_set(ERR_UNSUPPORTED, "%s: demo-batch only runs inference", self->label);
}

static void blas_linear_repr(const Module *self, char *buf, size_t size)
{
    const Tensor *w = self->params[0].value;
    snprintf(buf, size, "in_features=%lld, out_features=%lld, bias=True (BLAS)",
             (long long)w->shape[1], (long long)w->shape[0]);
}

static const ModuleOps blas_linear_ops = {
    .kind = "Linear",
    .forward = blas_linear_forward,
    .backward = blas_linear_backward,
    .extra_repr = blas_linear_repr,
    .destroy = NULL,
};

/* A BLAS Linear with the weights of `linear` (freed); NULL with the error set. */
static Module *blas_linear_from(Module *linear)
{
    if (!linear) return NULL;
    const Tensor *w = linear->params[0].value, *b = linear->params[1].value;
    Module *m = module_alloc(&blas_linear_ops, linear->name);
    Param *pw = m ? module_add_param(m, "weight", 2, w->shape) : NULL;
    Param *pb = pw ? module_add_param(m, "bias", 1, b->shape) : NULL;
    if (pb) {
        memcpy(tensor_f32(pw->value), tensor_f32(w), (size_t)w->numel * sizeof(float));
        memcpy(tensor_f32(pb->value), tensor_f32(b), (size_t)b->numel * sizeof(float));
    } else {
        module_free(m);
        m = NULL;
        err_set(ERR_NOMEM, "demo-batch: out of memory for a BLAS Linear");
    }
    module_free(linear);
    return m;
}

/* The width-width-width encoder from SEED: with our Linear, or with BLAS's. */
static Module *encoder_new(int64_t w, bool blas)
{
    Rng rng;
    rng_seed(&rng, SEED, 1);
    Module *fc1 = linear_new("fc1", w, w, &rng);
    Module *fc2 = linear_new("fc2", w, w, &rng);
    if (blas) fc1 = blas_linear_from(fc1), fc2 = blas_linear_from(fc2);
    Module *layers[] = {fc1, relu_new("relu"), fc2};
    return sequential_new("encoder", 3, layers);
}

/* ---- the rows ------------------------------------------------------------------- */

typedef struct BatchWork {
    Module *model;
    const Tensor *x;
    Tensor *out;
    int64_t chunk;
    Counters used;
} BatchWork;

static int batch_work(void *p)
{
    BatchWork *w = p;
    counters_reset();
    int rc = predict_chunked(w->model, w->x, w->chunk, w->out);
    w->used = counters_get();
    return rc;
}

static double max_abs_diff(const Tensor *a, const Tensor *b)
{
    double worst = 0;
    for (int64_t i = 0; i < a->numel; i++)
        worst = fmax(worst, fabs((double)tensor_f32(a)[i] - (double)tensor_f32(b)[i]));
    return worst;
}

/* What one device's rows found, for the verdict. */
typedef struct BatchResult {
    Spread batch;       /* one batch */
    Spread best;        /* the fastest chunked row (per input) */
    int64_t best_chunk; /* its chunk size */
    double one_by_one;  /* one at a time over one batch (0 when not run) */
    double model_batch, model_one; /* modelled: one batch, one at a time (NAN, or 0 unrun) */
    Tensor *answer;     /* the one-batch outputs, on the CPU (caller frees) */
} BatchResult;

/* One device's rows for n inputs of w numbers (the same inputs from SEED on every
 * device): one batch, then the chunk sizes of 256, 64, 8 and 1 below n (down to
 * `smallest`), each run `repeats` times, the rows taking turns; with `timed`, the
 * time model's times of the simulator's rows beside them. */
static int batch_rows(FILE *csv, int64_t n, int64_t w, Device dev, const Gpu *timed,
                      const char *label, bool blas, int64_t smallest, int repeats,
                      BatchResult *res)
{
    memset(res, 0, sizeof *res);
    int64_t chunks[N_CHUNKS] = {n};
    int n_chunks = 1;
    const int64_t sizes[] = {256, 64, 8, 1};
    for (int i = 0; i < 4; i++)
        if (sizes[i] < n && sizes[i] >= smallest) chunks[n_chunks++] = sizes[i];
    Rng rng;
    rng_seed(&rng, SEED, 2);
    Tensor *xcpu = tensor_new_2d(n, w);
    if (!xcpu) return err_code();
    if (tensor_uniform(xcpu, &rng, -1.0f, 1.0f) != ERR_OK) {
        tensor_free(xcpu);
        return err_code();
    }
    Module *model = encoder_new(w, blas);
    Tensor *x = NULL, *out = NULL, *got = NULL;
    int64_t shape[2] = {n, w};
    int rc = model ? module_to(model, dev) : (int)err_code();
    if (!rc) rc = tensor_to(xcpu, dev, &x);
    if (!rc && !(out = tensor_new(DTYPE_F32, dev, 2, shape))) rc = err_code();
    if (!rc) module_train(model, false);
    BatchWork bw = {model, x, out, n, {0}};
    if (!rc) rc = batch_work(&bw); /* warm up, and the one-batch answer */
    if (!rc) rc = tensor_to(out, device_cpu(), &res->answer);
    double times[N_CHUNKS][MAX_REPEATS];
    double diff[N_CHUNKS] = {0}, modelled[N_CHUNKS];
    unsigned long long launches[N_CHUNKS] = {0};
    for (int k = 0; k < repeats && !rc; k++) {
        for (int i = 0; i < n_chunks && !rc; i++) {
            bw.chunk = chunks[i];
            double m0 = timed ? demo_model_now(timed) : NAN;
            rc = time_on_device(dev, batch_work, &bw, 1, &times[i][k]);
            modelled[i] = timed ? demo_model_now(timed) - m0 : NAN;
            if (!rc) rc = tensor_to(out, device_cpu(), &got);
            if (rc) break;
            diff[i] = fmax(diff[i], max_abs_diff(got, res->answer));
            launches[i] = bw.used.launches;
            tensor_free(got);
            got = NULL;
        }
    }
    for (int i = 0; i < n_chunks && !rc; i++) {
        Spread sp = demo_spread(times[i], repeats);
        if (i == 0) res->batch = sp;
        else if (!res->best_chunk || sp.median < res->best.median)
            res->best = sp, res->best_chunk = chunks[i];
        if (chunks[i] == 1) res->one_by_one = sp.median / res->batch.median;
        if (i == 0) res->model_batch = modelled[i];
        if (chunks[i] == 1) res->model_one = modelled[i];
        char t[32], per[32], c[24], spr[16], m[32];
        snprintf(c, sizeof c, "%lld", (long long)chunks[i]);
        long long calls = (long long)((n + chunks[i] - 1) / chunks[i]);
        printf("  %-14s %7s %7lld %9llu %10s %7s %11s %9.2fx %9.1e %10s\n", label,
               chunks[i] >= n ? "all" : c, calls, launches[i], fmt_time(sp.median, t, sizeof t),
               fmt_spread(&sp, spr, sizeof spr), fmt_time(sp.median / (double)n, per, sizeof per),
               sp.median / res->batch.median, diff[i], fmt_model(modelled[i], m, sizeof m));
        fprintf(csv, "%s,%lld,%lld,%llu,%.9g,%.9g,%.3g,%.9g,%.9g,%d,%.9g\n", label,
                (long long)chunks[i], calls, launches[i], sp.median,
                sp.median / res->batch.median, diff[i], sp.min, sp.max, sp.runs, modelled[i]);
    }
    tensor_free(got);
    tensor_free(x);
    tensor_free(xcpu);
    tensor_free(out);
    module_free(model);
    if (rc) {
        tensor_free(res->answer);
        res->answer = NULL;
    }
    return rc;
}

/* One batch against the fastest chunk size, judged against the runs' spread. */
static void batch_verdict(const char *what, const BatchResult *r, int64_t n)
{
    char a[32], b[32], sp[16];
    printf("  %s: one batch %s per input, the fastest chunk size (%lld) %s (spread %s).\n    ",
           what, fmt_time(r->batch.median / (double)n, a, sizeof a), (long long)r->best_chunk,
           fmt_time(r->best.median / (double)n, b, sizeof b), fmt_spread(&r->best, sp, sizeof sp));
    if (r->batch.median <= r->best.median)
        printf("One batch is the fastest per input.\n");
    else if (spread_overlap(&r->batch, &r->best))
        printf("One batch is within the runs' spread of it: no difference beyond the noise.\n");
    else
        printf("Chunks of %lld beat one batch by %.2fx, more than the runs' spread.\n",
               (long long)r->best_chunk, r->batch.median / r->best.median);
}

/* Bytes as "3.9 MiB". */
static const char *fmt_bytes(double bytes, char *buf, size_t n)
{
    if (bytes >= 1 << 20)
        snprintf(buf, n, "%.1f MiB", bytes / (1 << 20));
    else
        snprintf(buf, n, "%.0f KiB", bytes / 1024);
    return buf;
}

/* Why our loops can lose at one batch, from this CPU's caches and the sizes here; what
 * this run measured decides how it is told. */
static void explain_cache(int64_t n, int64_t w, const BatchResult *loops)
{
    CpuInfo cpu;
    if (cpuinfo_read(&cpu) != ERR_OK) cpu.caches[0] = '\0';
    char big[24], mid[24];
    fmt_bytes((double)n * (double)w * 4, big, sizeof big);
    fmt_bytes((double)loops->best_chunk * (double)w * 4, mid, sizeof mid);
    bool lost = loops->best_chunk && loops->batch.median > loops->best.median &&
                !spread_overlap(&loops->batch, &loops->best);
    printf("  %s\n", lost ? "Why our loops lose at one batch: they are not cache-blocked."
                          : "Our loops are not cache-blocked, though here one batch did not "
                            "lose by it.");
    printf("  For each of its %lld outputs, exercise 01.2 walks through the whole block of "
           "inputs it was\n  given: %lld inputs are %s, a chunk of %lld is %s.\n  This CPU's "
           "caches: %s.\n",
           (long long)w, (long long)n, big, (long long)loops->best_chunk, mid,
           cpu.caches[0] ? cpu.caches : "not reported");
    printf("  A block that fits a cache is read from it %lld times over; one that does not "
           "comes from\n  further away (the next cache, or memory) %lld times over.\n  %s\n",
           (long long)w, (long long)w,
           lost ? "That is the difference in the table."
                : "Whether that shows depends on the CPU: how big its caches are, how well it\n"
                  "  fetches ahead what is read in order.");
    printf("  BLAS is cache-blocked: it cuts the matrices into tiles sized for the caches (a "
           "panel of the\n  weights for L2, a sliver for L1, a few rows and columns for the "
           "registers), copies each\n  tile into a compact buffer, and does all the work on a "
           "tile while it is in cache. Every\n  number fetched is used dozens of times, so a "
           "bigger batch only means fewer calls and\n  bigger tiles. torch.nn.Linear on a CPU "
           "is such a BLAS call.\n");
}

int demo_batch(const LessonContext *ctx, const Sizes *s, const Gpu *g)
{
    int64_t n = s->cpu_batch_n, w = s->cpu_width;
    printf("\n== demo-batch: %lld inputs of %lld numbers through a %lld-%lld-%lld encoder ==\n",
           (long long)n, (long long)w, (long long)w, (long long)w, (long long)w);
    printf("  The same work, cut into chunks: one input at a time, in chunks of 8, 64 and 256, "
           "and\n  all at once (predict_chunked, exercise 03.2). The inputs are on the device "
           "already.\n  The source material reports \"more than 40x\" between one at a time and "
           "one batch on a\n  mid-range GPU, but its timing calls no torch.cuda.synchronize(): "
           "the one-batch time is\n  the time to queue three kernels, not to run them, and the "
           "loop, timed first, also pays\n  for CUDA's start-up. It shows no table either. "
           "Here every time is synchronized.\n");
    printf("  On the CPU each product is one sgemm in OpenBLAS (%s kernel, %d threads),\n  as "
           "nn.Linear's is in PyTorch (whose x86 wheels call MKL instead); \"cpu-loops\" is\n  "
           "the same encoder with our Linear (exercise 01.2, one thread). Each row is the median "
           "of\n  %d runs, the rows taking turns.\n",
           matmul_blas_kernel(), matmul_cpu_threads(), s->repeats);
    if (g->ok && (s->batch_n != n || s->width != w))
        printf("  On %s: %lld inputs of %lld numbers (the simulator runs every GPU thread on "
               "the CPU).\n",
               g->label, (long long)s->batch_n, (long long)s->width);
    CpuInfo cpu;
    if (cpuinfo_read(&cpu) == ERR_OK && matmul_blas_is_fallback(matmul_blas_kernel(), cpu.simd)) {
        const char *cand[4];
        int k = matmul_blas_candidates(cpu.simd, cpu.vendor, cand, 4);
        printf("  (OpenBLAS's %s kernel is a fallback on this %s CPU: Lesson 02 measures the "
               "kernels;\n  OPENBLAS_CORETYPE=%s make demo-batch runs this demo on a better "
               "one.)\n",
               matmul_blas_kernel(), matmul_simd_name(matmul_cpu_simd(cpu.simd)),
               k ? cand[0] : "Haswell");
    }
    printf("\n");
    char path[1024];
    FILE *csv = demo_csv_open(ctx, "batch", path, sizeof path,
                              "device,chunk,calls,launches,seconds,ratio,max_diff,"
                              "min_seconds,max_seconds,runs,modelled_seconds");
    if (!csv) return err_code();
    printf("  %-14s %7s %7s %9s %10s %7s %11s %10s %9s %10s\n", "device", "chunk", "calls",
           "launches", "median", "spread", "per input", "vs batch", "max diff",
           g->modelled ? "modelled" : "");
    BatchResult cpu_blas = {0}, cpu_loops = {0}, gpu = {0};
    int rc = batch_rows(csv, n, w, device_cpu(), NULL, "cpu", true, 1, s->repeats, &cpu_blas);
    /* Our loops only where the cache shows: one at a time and chunks of 8 add nothing. */
    if (!rc)
        rc = batch_rows(csv, n, w, device_cpu(), NULL, "cpu-loops", false, 64, s->repeats,
                        &cpu_loops);
    if (!rc && g->ok)
        rc = batch_rows(csv, s->batch_n, s->width, g->dev, g->modelled ? g : NULL, g->label, false,
                        1, s->repeats, &gpu);
    int rc2 = demo_csv_close(csv, path);
    if (!rc) rc = rc2;
    double agree = rc ? 0 : max_abs_diff(cpu_blas.answer, cpu_loops.answer);
    tensor_free(cpu_blas.answer);
    tensor_free(cpu_loops.answer);
    tensor_free(gpu.answer);
    if (rc) return rc;
    if (!g->ok) demo_skipped(g);
    demo_sim_note(g);
    printf("  (max diff: the largest difference from the same device's one-batch outputs; the "
           "sums run\n  in another order when the shapes change, so a few units in the last "
           "place are normal.\n  BLAS and our loops agree within %.1e.)\n",
           agree);
    batch_verdict("cpu (OpenBLAS)", &cpu_blas, n);
    if (cpu_blas.one_by_one > 0)
        printf("    One input at a time costs %.1fx one batch: a product with one row uses each "
               "weight once.\n",
               cpu_blas.one_by_one);
    batch_verdict("cpu-loops (ours)", &cpu_loops, n);
    explain_cache(n, w, &cpu_loops);
    if (g->ok && g->simulated) {
        printf("  %s: its times are the simulator's CPU time; its launches column is a GPU's: "
               "%lld calls\n  one at a time, one for one batch.\n",
               g->label, (long long)s->batch_n);
        if (g->modelled && gpu.model_batch > 0 && gpu.model_one > 0) {
            demo_model_note(g);
            printf("    Modelled for %s, not measured: one input at a time %.1fx one\n    "
                   "batch for these %lld inputs of %lld numbers (the source: \"more than 40x\",\n"
                   "    unsynchronized, at 2000 x 512).\n",
                   g->model, gpu.model_one / gpu.model_batch, (long long)s->batch_n,
                   (long long)s->width);
        }
    } else if (g->ok) {
        batch_verdict(g->label, &gpu, s->batch_n);
        if (gpu.one_by_one > 0)
            printf("    One at a time against one batch on %s: %.1fx (the source: \"more than "
                   "40x\", unsynchronized).\n",
                   g->label, gpu.one_by_one);
    }
    demo_draw(ctx, "batch.gp", "batch", path, "Encoder inference: total time against chunk size");
    return ERR_OK;
}
