/*
 * Part 2: moving work to the GPU.
 *
 * What the machine has (the three layers: driver, runtime, libraries, and
 * what to do when one of them is missing), which GPU `cuda:0` is, moving
 * tensors and a model with tensor_to / module_to and the same-device rule, a
 * big matrix product timed wrongly and rightly on the CPU and the GPU, and
 * Lesson 01's Iris training on the GPU. Without a GPU each GPU section says so
 * in one line and the rest runs.
 *
 * The CPU's product is only a fair opponent when OpenBLAS runs the kernel
 * written for this CPU. OpenBLAS reads OPENBLAS_CORETYPE once, when the
 * program starts, so the part measures each kernel worth trying in a child:
 * this program started again with the variable set and --blas-child N, which
 * times one product and prints one line (lib/device/matmul.h).
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>

#include "lessons/lesson.h"
#include "lib/device/backend.h"
#include "lib/core/counters.h"
#include "lib/device/cpuinfo.h"
#include "lib/device/device.h"
#include "lib/core/err.h"
#include "lib/core/fileio.h"
#include "lib/train/iris.h"
#include "lib/nn/layers.h"
#include "lib/device/matmul.h"
#include "lib/core/timer.h"
#include "lib/io/plot.h"
#include "lib/train/train.h"

#define PART 2
#define README "lessons/02_device_transfer/README.md"

/* The CPU's kernels are compared at this size at most (a bigger --n-cpu is then
 * timed once more, with the fastest kernel). */
#define BLAS_PROBE_N 2000

typedef struct Options {
    long n_cpu, n_gpu, epochs, log_every, blas_child;
    const char *device;
    bool matmul, blas_compare;
} Options;

/* The part's options; lesson37 --part 2 --help prints them from this table. */
static bool parse_options(int argc, char **argv, Options *o, int *status)
{
    const LessonOption table[] = {
        OPT_DEVICE("device", &o->device, "D", "the GPU to use: cuda, cuda:N (default cuda)"),
        OPT_LONG("n-cpu", &o->n_cpu, "N", 1, 20000,
                 "size of the CPU's N x N product (default 2000; the source used 10000)"),
        OPT_LONG("n-gpu", &o->n_gpu, "N", 1, 40000,
                 "size of the GPU's N x N product (default 10000)"),
        OPT_LONG("epochs", &o->epochs, "N", 1, 100000000,
                 "Iris epochs on the GPU (default 20000)"),
        OPT_LONG("log-every", &o->log_every, "N", 0, 100000000,
                 "print the Iris loss every N epochs, 0 for never (default 5000)"),
        OPT_CLEAR("no-matmul", &o->matmul, "skip the matrix products"),
        OPT_CLEAR("no-blas-compare", &o->blas_compare,
                  "time only the BLAS kernel OpenBLAS picked, not the others"),
        OPT_LONG("blas-child", &o->blas_child, "N", 1, 20000,
                 "only time one N x N OpenBLAS product here and print its rate\n"
                 "                     (the part starts itself so, once per BLAS kernel)"),
        OPT_END,
    };
    return lesson_options(PART, table, argc, argv, status);
}

static double gib(size_t b) { return (double)b / (1024.0 * 1024.0 * 1024.0); }

/* On the CUDA simulator every "GPU" time is the CPU's: say so beside each one. */
static bool g_simulated;
/* An exercise this part needs is still a stub: the part stops. */
static bool g_todo;
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

/* ---- Section 1: the layers, the devices, and what to do when one is missing ---- */

/* What nvidia-smi, the driver's own tool, says. */
typedef struct Smi {
    int status;          /* its exit status: 0 works, 127 not found, else failed */
    char first[240];     /* its first line of output (a GPU, or its error) */
    char gpus[8][160];   /* nvidia-smi -L: "GPU 0: NVIDIA H200 (UUID: ...)" */
    int n_gpus;
    char driver[32];     /* "550.54.15" */
    char cuda[16];       /* the newest CUDA the driver serves: "12.4" */
} Smi;

/* Copy text into dst, cut to fit. */
static void copy_text(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (n > size - 1) n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* Run a shell command, keeping its first lines; returns its exit status (127: not found). */
static int run_lines(const char *cmd, char lines[][160], int max, int *n, char *first,
                     size_t first_size)
{
    FILE *p = popen(cmd, "r");
    if (n) *n = 0;
    if (first) first[0] = '\0';
    if (!p) return 127;
    char line[512];
    while (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0]) continue;
        if (first && !first[0]) copy_text(first, first_size, line);
        if (n && *n < max) copy_text(lines[(*n)++], 160, line);
    }
    int st = pclose(p);
    return st == -1 ? 127 : WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Ask nvidia-smi (not found, failing, or the GPUs with the driver's versions). A hung
 * driver can hang nvidia-smi too: give it 30 s where `timeout` exists. */
static void smi_probe(Smi *s)
{
    memset(s, 0, sizeof *s);
    const char *run = "command -v nvidia-smi >/dev/null 2>&1 || exit 127; "
                      "if command -v timeout >/dev/null 2>&1; then T='timeout 30'; else T=; fi; ";
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s$T nvidia-smi -L 2>&1", run);
    s->status = run_lines(cmd, s->gpus, 8, &s->n_gpus, s->first, sizeof s->first);
    if (s->status != 0) {
        s->n_gpus = 0;
        return;
    }
    char head[16][160];
    int n = 0;
    snprintf(cmd, sizeof cmd, "%s$T nvidia-smi 2>&1 | head -n 12", run);
    run_lines(cmd, head, 16, &n, NULL, 0);
    for (int i = 0; i < n; i++) {
        const char *d = strstr(head[i], "Driver Version:"), *c = strstr(head[i], "CUDA Version:");
        if (d) sscanf(d + 15, " %31s", s->driver);
        if (c) sscanf(c + 13, " %15s", s->cuda);
    }
}

/* What to do when no GPU can be used: one short paragraph per cause, from what the
 * program found (the error, nvidia-smi, WSL). The README's troubleshooting table
 * holds the same causes. */
static void troubleshoot(const char *why, const Smi *smi, bool wsl)
{
    const char *env = getenv("CUDA_VISIBLE_DEVICES");
    printf("What to check:\n");
    if (!device_cuda_built()) {
        printf("  This program was built without CUDA: nvcc was not found when it was built.\n"
               "  If nvidia-smi shows a GPU, install the CUDA toolkit and rebuild (make clean, "
               "then\n  make lesson37 PART=2). To run the GPU code on the CPU instead: make "
               "lesson37 PART=2 SIM=1.\n  (PyTorch's counterpart: a CPU-only build, where "
               "torch.version.cuda is None.)\n");
    } else if (strstr(why, "CUDA_VISIBLE_DEVICES")) {
        printf("  CUDA_VISIBLE_DEVICES=\"%s\" hides every GPU: unset it, or list GPUs that "
               "exist\n  (nvidia-smi -L numbers them from 0; CUDA_DEVICE_ORDER=PCI_BUS_ID makes "
               "CUDA use the same numbers).\n",
               env ? env : "");
    } else if (strstr(why, "no usable NVIDIA driver") && smi->status == 127) {
        if (wsl)
            printf("  This is WSL: the GPU comes through the Windows driver. Install NVIDIA's "
                   "driver on Windows,\n  use WSL 2 (wsl --update), and install no Linux NVIDIA "
                   "driver inside WSL; nvidia-smi is then\n  /usr/lib/wsl/lib/nvidia-smi.\n");
        else
            printf("  No NVIDIA driver is installed here (nvidia-smi is missing too). With an "
                   "NVIDIA GPU,\n  install NVIDIA's driver (Debian: apt install nvidia-driver; "
                   "Ubuntu: ubuntu-drivers install)\n  and reboot. Without a GPU this is expected: "
                   "make lesson37 PART=2 SIM=1 runs the GPU code\n  on the simulator.\n");
    } else if (strstr(why, "no usable NVIDIA driver") && smi->status != 0) {
        if (wsl && strstr(smi->first, "blocked by the operating system"))
            printf("  WSL's NVML is blocked: update NVIDIA's driver on Windows and WSL itself "
                   "(wsl --update, WSL 2),\n  and remove any Linux NVIDIA driver installed "
                   "inside WSL.\n");
        else
            printf("  nvidia-smi is installed but fails, so the driver is not working: its "
                   "kernel module is not loaded\n  (a kernel update without the module rebuilt, "
                   "Secure Boot refusing an unsigned module), or this is\n  a container started "
                   "without the GPU (docker run --gpus all). Look at: lsmod | grep nvidia;\n  "
                   "sudo dmesg | grep -i nvrm.\n");
    } else if (strstr(why, "no usable NVIDIA driver")) {
        char major[16] = "the same";
        if (smi->cuda[0]) snprintf(major, sizeof major, "%d", atoi(smi->cuda));
        printf("  nvidia-smi works (driver %s, serving CUDA up to %s) but is too old for this "
               "program's CUDA\n  runtime (the number in the message above). Update the driver "
               "to one that serves that CUDA version,\n  or build with a toolkit no newer than %s. "
               "Since CUDA 11 any %s.x toolkit also runs, with a few features\n  missing, on a "
               "driver at or above its major version's minimum (NVIDIA's minor version\n  "
               "compatibility; on Linux 450.80.02 for 11.x, 525.60.13 for 12.x). (PyTorch's "
               "wheels carry\n  their own runtime: the same rule holds for torch.version.cuda.)\n",
               smi->driver[0] ? smi->driver : "?", smi->cuda[0] ? smi->cuda : "?",
               smi->cuda[0] ? smi->cuda : "what nvidia-smi shows", major);
    } else if (strstr(why, "finds no GPU")) {
        printf("  The driver works but sees no GPU: a container needs the GPU passed in (docker "
               "run --gpus all),\n  a virtual machine needs it passed through.\n");
    } else {
        printf("  Run nvidia-smi: if it lists the GPU, the message above names the layer that "
               "failed.\n");
    }
}

/* The driver layer as nvidia-smi shows it, the variables that choose GPUs, WSL. */
static void show_layers(const Smi *smi, bool wsl)
{
    printf("The three layers (each must work for the next):\n"
           "  driver   talks to the GPU; `nvidia-smi` shows it and the CUDA version it supports\n"
           "  runtime  the CUDA runtime this program was built with (cudart)\n"
           "  library  cuBLAS, which does the matrix products\n");
    if (smi->status == 0) {
        printf("nvidia-smi: driver %s, serving CUDA up to %s; %d GPU%s (numbered by PCI bus):\n",
               smi->driver[0] ? smi->driver : "?", smi->cuda[0] ? smi->cuda : "?", smi->n_gpus,
               smi->n_gpus == 1 ? "" : "s");
        for (int i = 0; i < smi->n_gpus; i++) printf("  %s\n", smi->gpus[i]);
    } else if (smi->status == 127) {
        printf("nvidia-smi: not found (no NVIDIA driver is installed, or it is not on PATH)\n");
    } else {
        printf("nvidia-smi: failed (exit status %d): %s\n", smi->status,
               smi->first[0] ? smi->first : "(it printed nothing)");
    }
    const char *cvd = getenv("CUDA_VISIBLE_DEVICES"), *order = getenv("CUDA_DEVICE_ORDER");
    char shown[160];
    snprintf(shown, sizeof shown, "\"%s\"", cvd ? cvd : "");
    printf("CUDA_VISIBLE_DEVICES: %s; CUDA_DEVICE_ORDER: %s\n",
           cvd ? shown : "not set (every GPU visible)",
           order ? order : "not set (FASTEST_FIRST: CUDA numbers the fastest GPU 0)");
    if (wsl) printf("This is WSL: the GPU and nvidia-smi come from the Windows driver.\n");
    printf("This build's CUDA backend: %s\n", device_backend());
}

/* Section 1: the layers and the devices. Returns false when there is no GPU. */
static bool show_devices(const Options *o, Device *gpu)
{
    Smi smi;
    smi_probe(&smi);
    CpuInfo cpu;
    bool wsl = cpuinfo_read(&cpu) == ERR_OK && cpu.wsl;
    show_layers(&smi, wsl);
    int n = 0;
    if (device_count(&n) != ERR_OK) {
        if (err_code() == ERR_TODO) {
            printf("GPU: %s.\n", err_message());
            g_todo = true;
            return false;
        }
        char why[600];
        snprintf(why, sizeof why, "%s", err_message());
        printf("GPU: %s. The GPU sections below are skipped.\n", why);
        troubleshoot(why, &smi, wsl);
        printf("\n");
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
        if (info.simulated) {
            /* No GPU, no driver: what the simulator reports is its own model of one. */
            printf("  cuda:%d = the simulated machine's GPU %d: %s, no GPU: the CPU runs the "
                   "kernels\n",
                   i, info.physical, info.name);
            printf("      it reports %.1f GiB of memory (%.1f free), %d SM%s and compute "
                   "capability %d.%d,\n      and CUDA %s and cuBLAS %s as the versions it "
                   "stands for\n",
                   gib(info.total_memory), gib(info.free_memory), info.sm_count,
                   info.sm_count == 1 ? "" : "s", info.cc_major, info.cc_minor, rt, blas);
            continue;
        }
        printf("  cuda:%d = %s GPU %d: %s\n", i, env ? "the machine's" : "physical",
               info.physical, info.name);
        printf("      memory %.1f GiB (%.1f free), %d SMs, compute capability %d.%d\n",
               gib(info.total_memory), gib(info.free_memory), info.sm_count, info.cc_major,
               info.cc_minor);
        printf("      driver supports CUDA %s, runtime %s, cuBLAS %s\n", drv, rt, blas);
    }
    if (smi.n_gpus > 1 && !getenv("CUDA_DEVICE_ORDER"))
        printf("  (CUDA numbers the GPUs fastest first, nvidia-smi by PCI bus: with "
               "CUDA_DEVICE_ORDER=PCI_BUS_ID\n  both use the same numbers, and "
               "CUDA_VISIBLE_DEVICES means the GPUs nvidia-smi shows.)\n");
    int found = device_from_string(o->device, gpu);
    if (found == ERR_TODO) {
        /* The student's own exercise (02.1) is missing: stop, as every part does. */
        printf("GPU: --device %s: %s.\n", o->device, err_message());
        g_todo = true;
        return false;
    }
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
        if (module_call(fc1, x, &y) != ERR_OK)
            printf("  a CPU tensor into a model on the GPU fails, as in PyTorch:\n    %s\n",
                   err_message());
        if (module_call(fc1, on, &y) == ERR_OK)
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

/* --blas-child N: time one product with the kernel this process started with, print
 * the rate line for the parent (matmul_cpu_measure_child) and nothing else of note. */
static int blas_child(long n)
{
    MatmulRate r;
    int reps = n <= 1000 ? 5 : n <= 4000 ? 3 : 1;
    if (matmul_cpu_measure(n, reps, &r) != ERR_OK) {
        lesson_error(PART, err_message());
        return LESSON_FAILED;
    }
    char line[256];
    matmul_rate_format(&r, line, sizeof line);
    printf("%s\n", line);
    return LESSON_OK;
}

/* One kernel measured in a child: started with OPENBLAS_CORETYPE=coretype (NULL: the
 * environment as it is). */
static int blas_measure(const char *coretype, long n, MatmulRate *r)
{
    char size[24];
    snprintf(size, sizeof size, "%ld", n);
    char *argv[] = {"/proc/self/exe", "--part", "2", "--blas-child", size, "--quiet",
                    "--no-plot", NULL};
    /* The slowest kernels run about 5 GFLOP/s: give a child that long twice over. */
    double timeout = 60.0 + 2.0 * 6 * 2.0 * (double)n * n * n / 5e9;
    return matmul_cpu_measure_child(argv, coretype, timeout, r);
}

static void rate_row(const char *kernel, const char *how, const MatmulRate *r, const char *note)
{
    char med[32], lo[32], hi[32];
    printf("    %-14s %-29s %9s   %9s to %-9s %7.1f%s\n", kernel, how,
           timer_format(r->median_s, med, sizeof med), timer_format(r->min_s, lo, sizeof lo),
           timer_format(r->max_s, hi, sizeof hi), matmul_rate_gflops(r), note);
}

/* Section 3 (CPU half): which OpenBLAS kernel runs, each kernel this CPU can run measured,
 * and the product on the fastest. Returns the CPU's GFLOP/s (0 when not measured). */
static double cpu_matmul(const Options *o)
{
    CpuInfo cpu;
    if (cpuinfo_read(&cpu) != ERR_OK) memset(&cpu, 0, sizeof cpu);
    const char *kernel = matmul_blas_kernel(), *forced = getenv("OPENBLAS_CORETYPE");
    MatmulSimd has = matmul_cpu_simd(cpu.simd), uses = matmul_blas_kernel_simd(kernel);
    printf("  CPU: OpenBLAS runs its \"%s\" kernel (written for %s) on %d threads.\n", kernel,
           matmul_simd_name(uses), matmul_cpu_threads());
    if (forced)
        printf("    (OPENBLAS_CORETYPE=%s is set in the environment: that chose it.)\n", forced);
    printf("    OpenBLAS's build: %s\n", matmul_blas_config());
    printf("    This CPU (%s) offers %s.\n", cpu.model[0] ? cpu.model : "model not reported",
           matmul_simd_name(has));
    if (matmul_blas_is_fallback(kernel, cpu.simd))
        printf("    \"%s\" is a fallback here: a kernel for older CPUs, which leaves this CPU's "
               "%s unused.\n    OpenBLAS takes one by itself when it does not recognise the "
               "CPU (one newer than the library).\n",
               kernel, matmul_simd_name(has));
    const char *cand[4];
    int n_cand = matmul_blas_candidates(cpu.simd, cpu.vendor, cand, 4);
    long probe = o->n_cpu < BLAS_PROBE_N ? o->n_cpu : BLAS_PROBE_N;
    /* rates[k] was measured in a child started with asks[k] (NULL: the environment as it
     * is); rates[0] is then the kernel this program started with. */
    MatmulRate rates[5];
    const char *asks[5];
    int measured = 0, fastest = -1;
    if (o->blas_compare && matmul_blas_dynamic() && n_cand > 0) {
        printf("  Each kernel this CPU can run, timed in a child process started with "
               "OPENBLAS_CORETYPE set\n  (OpenBLAS reads it once, when a program starts): "
               "%ld x %ld, one warm-up, then the median\n  of %d runs and their spread:\n",
               probe, probe, probe <= 1000 ? 5 : 3);
        printf("    %-14s %-29s %9s   %-22s %7s\n", "kernel", "started with", "median",
               "fastest to slowest", "GFLOP/s");
        for (int i = -1; i < n_cand; i++) {
            const char *ask = i < 0 ? NULL : cand[i];
            if (ask && strcasecmp(ask, kernel) == 0) continue; /* the row above */
            char how[64];
            snprintf(how, sizeof how, ask ? "OPENBLAS_CORETYPE=%s" : "%s",
                     ask ? ask : "the environment as it is");
            MatmulRate *r = &rates[measured];
            if (blas_measure(ask, probe, r) != ERR_OK) {
                printf("    %-14s %-29s failed: %s\n", ask ? ask : kernel, how, err_message());
                continue;
            }
            char note[96] = "";
            if (ask && strcasecmp(ask, r->kernel) != 0)
                snprintf(note, sizeof note,
                         "  (this OpenBLAS ran %s: it lacks %s or cannot "
                         "run it here)",
                         r->kernel, ask);
            rate_row(r->kernel, how, r, note);
            asks[measured] = ask;
            if (fastest < 0 || matmul_rate_gflops(r) > matmul_rate_gflops(&rates[fastest]))
                fastest = measured;
            measured++;
        }
    } else if (o->blas_compare) {
        printf("  %s\n", !matmul_blas_dynamic()
                             ? "This OpenBLAS holds one kernel only (built without DYNAMIC_ARCH): "
                               "nothing to choose from."
                             : "No other kernel to try on this CPU.");
    }
    /* The kernel this program started with, as its child measured it (rates[0]). The CPU
     * side below leaves it for a faster one when that one is 10% faster in the median and
     * every one of its runs was quicker than every run of it (the machine's noise cannot
     * have made the difference), or when it is 20% faster at all: the figure the GPU is
     * compared with is then never more than 20% below the best measured here. */
    int started = measured && !asks[0] && strcasecmp(rates[0].kernel, kernel) == 0 ? 0 : -1;
    int chosen = started >= 0 ? started : fastest;
    if (started >= 0 && fastest >= 0 && fastest != started) {
        const MatmulRate *f = &rates[fastest], *s0 = &rates[started];
        double gain = matmul_rate_gflops(f) / matmul_rate_gflops(s0);
        bool apart = f->max_s < s0->min_s, same = strcasecmp(f->kernel, s0->kernel) == 0;
        if (!same && gain >= 1.1 && (apart || gain >= 1.2)) {
            chosen = fastest;
            printf("  The CPU side below uses %s, the fastest here: %.1fx the kernel OpenBLAS "
                   "picked by itself%s\n  To get it in your own programs, set the variable "
                   "before they start:\n    OPENBLAS_CORETYPE=%s ./your_program     (or export "
                   "it in your shell; NumPy's\n    bundled OpenBLAS reads it too). Setting it "
                   "inside a running program is too late.\n",
                   f->kernel, gain,
                   apart ? ",\n  and each of its runs beat each of the other's."
                         : ".\n  Their runs overlap, so part of that may be this machine's "
                           "noise: run the part again to see\n  whether it holds.",
                   asks[fastest]);
        } else {
            printf("  The kernel OpenBLAS picked stays: %s measured %+.0f%% against it, %s.\n",
                   f->kernel, 100.0 * (gain - 1.0),
                   same         ? "the same kernel run twice"
                   : gain < 1.1 ? "within 10%"
                                : "but their runs overlap (the difference is within this "
                                  "machine's noise: run the part again)");
        }
    } else if (started >= 0 && measured > 1) {
        printf("  The kernel OpenBLAS picked is the fastest here: it stays.\n");
    } else if (chosen >= 0 && started < 0) {
        printf("  The CPU side below uses %s, the fastest here.\n", rates[chosen].kernel);
    }
    MatmulRate r;
    int rc = ERR_OK;
    if (chosen >= 0 && rates[chosen].n == o->n_cpu) {
        r = rates[chosen];
    } else if (chosen >= 0) {
        printf("  Timing %ld x %ld with %s...\n", o->n_cpu, o->n_cpu, rates[chosen].kernel);
        rc = blas_measure(asks[chosen], o->n_cpu, &r);
    } else {
        rc = matmul_cpu_measure(o->n_cpu, o->n_cpu <= 1000 ? 5 : o->n_cpu <= 4000 ? 3 : 1, &r);
    }
    if (rc != ERR_OK) {
        printf("  CPU: %s\n", err_message());
        return 0;
    }
    char t[32], lo[32], hi[32];
    printf("  CPU, OpenBLAS %s on %d threads: %ld x %ld in %s = %.1f GFLOP/s\n    (median of "
           "%d, %s to %s; spot check: error %.1e of the terms' size)\n",
           r.kernel, r.threads, o->n_cpu, o->n_cpu, timer_format(r.median_s, t, sizeof t),
           matmul_rate_gflops(&r), r.reps, timer_format(r.min_s, lo, sizeof lo),
           timer_format(r.max_s, hi, sizeof hi), r.error);
    return matmul_rate_gflops(&r);
}

/* Section 3, last: the product's time against its size, on the CPU (OpenBLAS) and on
 * the GPU (cuBLAS, synchronized), into out/02_matmul.csv and out/02_matmul.png. */
static double gpu_product_seconds(Device gpu, long n, int reps)
{
    size_t bytes = (size_t)n * (size_t)n * sizeof(float);
    float *hA = random_matrix(n, 1);
    float *A = NULL, *B = NULL, *C = NULL;
    int rc = hA ? ERR_OK : err_set(ERR_NOMEM, "host memory");
    if (!rc) rc = device_alloc(gpu, bytes, (void **)&A);
    if (!rc) rc = device_alloc(gpu, bytes, (void **)&B);
    if (!rc) rc = device_alloc(gpu, bytes, (void **)&C);
    if (!rc) rc = device_copy(A, gpu, hA, device_cpu(), bytes);
    if (!rc) rc = device_copy(B, gpu, hA, device_cpu(), bytes);
    if (!rc) rc = matmul_device(gpu, MATMUL_CUBLAS, A, B, C, n, n, n); /* warm-up */
    if (!rc) rc = device_synchronize(gpu);
    double best = INFINITY;
    for (int i = 0; !rc && i < reps; i++) {
        double t0 = timer_now();
        rc = matmul_device(gpu, MATMUL_CUBLAS, A, B, C, n, n, n);
        if (!rc) rc = device_synchronize(gpu);
        best = fmin(best, timer_now() - t0);
    }
    device_free(gpu, A, bytes);
    device_free(gpu, B, bytes);
    device_free(gpu, C, bytes);
    free(hA);
    return rc ? NAN : best;
}

static void matmul_sweep(const LessonContext *ctx, const Options *o, bool have_gpu, Device gpu,
                         const char *gpu_name)
{
    static const long sizes[] = {64, 128, 256, 512, 1024, 2048, 4096, 8192};
    long gpu_max = g_simulated ? 128 : o->n_gpu;
    char path[1024], png[1024], title[256];
    snprintf(path, sizeof path, "%s/02_matmul.csv", ctx->out_dir);
    FILE *f = fileio_save_stream(path, "CSV file"); /* saved when closed */
    if (!f) {
        printf("  Time against size: skipped (%s)\n", err_message());
        return;
    }
    fprintf(f, "device,n,seconds,gflops\n");
    printf("  Time against size (the fastest of 3, synchronized):\n");
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        long n = sizes[i];
        char t[32], u[32] = "-";
        double cpu_s = NAN, gpu_s = NAN;
        if (n <= o->n_cpu) {
            MatmulRate r;
            if (matmul_cpu_measure(n, 3, &r) == ERR_OK) cpu_s = r.min_s;
        }
        if (have_gpu && n <= gpu_max) gpu_s = gpu_product_seconds(gpu, n, 3);
        if (isnan(cpu_s) && isnan(gpu_s)) continue;
        double flops = 2.0 * n * n * (double)n;
        if (!isnan(cpu_s)) fprintf(f, "cpu,%ld,%.9g,%.6g\n", n, cpu_s, flops / cpu_s * 1e-9);
        if (!isnan(gpu_s)) fprintf(f, "gpu,%ld,%.9g,%.6g\n", n, gpu_s, flops / gpu_s * 1e-9);
        if (!isnan(gpu_s)) timer_format(gpu_s, u, sizeof u);
        printf("    %5ld x %-5ld  CPU %10s   GPU %10s\n", n, n,
               isnan(cpu_s) ? "-" : timer_format(cpu_s, t, sizeof t), u);
    }
    if (fclose(f) != 0) {
        printf("  Data: not saved (%s)\n", err_message());
        return;
    }
    printf("  Data: %s\n", path);
    if (!ctx->plots) return;
    if (!have_gpu)
        snprintf(title, sizeof title, "N x N product: CPU (OpenBLAS) measured; GPU: no GPU on "
                                      "this machine");
    else if (g_simulated)
        snprintf(title, sizeof title, "N x N product: CPU (OpenBLAS) and the CUDA simulator "
                                      "(CPU time, not a GPU's)");
    else
        snprintf(title, sizeof title, "N x N product: CPU (OpenBLAS) and %.60s (cuBLAS)",
                 gpu_name);
    snprintf(png, sizeof png, "%s/02_matmul.png", ctx->out_dir);
    if (plot_draw(WB_ROOT "/lessons/02_device_transfer/matmul.gp", path, png, title) != ERR_OK)
        printf("  Plot: skipped (%s)\n", err_message());
    else
        printf("  Plot: %s\n", png);
}

/* Section 3 (GPU half): cuBLAS timed wrongly and rightly, then our kernels. */
static void gpu_matmul(Device gpu, long n, double cpu_gflops)
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
    /* The first call pays for starting cuBLAS and loading its kernels: a timing without
     * a warm-up measures that too (the source's 10000 x 10000 example has none). */
    double cold_s = 0;
    if (!rc) rc = device_synchronize(gpu);
    double c0 = timer_now();
    if (!rc) rc = matmul_device(gpu, MATMUL_CUBLAS, A, B, C, n, n, n); /* warm-up */
    if (!rc) rc = device_synchronize(gpu);
    cold_s = timer_now() - c0;
    char t[32], u[32];
    double flops = 2.0 * n * n * (double)n, cublas_s = 0;
    if (!rc) {
        double t0 = timer_now();
        rc = matmul_device(gpu, MATMUL_CUBLAS, A, B, C, n, n, n);
        double wrong = timer_now() - t0;
        if (!rc) rc = device_synchronize(gpu);
        double right = timer_now() - t0;
        cublas_s = right;
        if (!rc && g_simulated) {
            /* Simulator times are its own CPU time: no rates, no ratios from them. */
            printf("  GPU, cuBLAS: %ld x %ld%s\n", n, n, sim_note());
            printf("    not synchronized: %s; synchronized: %s (the simulator runs each call to "
                   "the end before\n    it returns, so both agree here; on a GPU the first is "
                   "only the queueing)\n",
                   timer_format(wrong, t, sizeof t), timer_format(right, u, sizeof u));
        } else if (!rc) {
            printf("  GPU, cuBLAS: %ld x %ld\n", n, n);
            printf("    timed WRONGLY (no synchronize): %s, \"%.0f TFLOP/s\": the call only "
                   "queued the work\n",
                   timer_format(wrong, t, sizeof t), flops / wrong * 1e-12);
            printf("    timed rightly (synchronized):   %s = %.1f GFLOP/s\n",
                   timer_format(right, u, sizeof u), flops / right * 1e-9);
            printf("    the first call, before it (cold, synchronized): %s: it includes "
                   "cuBLAS starting up\n",
                   timer_format(cold_s, u, sizeof u));
            if (cpu_gflops > 0)
                printf("    cuBLAS against the CPU at its best: %.0fx the CPU's GFLOP/s\n",
                       flops / right * 1e-9 / cpu_gflops);
        }
    }
    if (!rc) rc = device_copy(ref, device_cpu(), C, gpu, bytes);
    if (!rc) printf("    spot check against double-precision dot products: error %.1e\n",
                    matmul_spot_check(hA, hB, ref, n));
    for (int v = 0; !rc && v < matmul_variants(); v++) {
        rc = matmul_device(gpu, v, A, B, C, n, n, n); /* warm-up: loads the kernel */
        if (!rc) rc = device_synchronize(gpu);
        double t0 = timer_now();
        if (!rc) rc = matmul_device(gpu, v, A, B, C, n, n, n);
        if (!rc) rc = device_synchronize(gpu);
        double s = timer_now() - t0;
        if (!rc) rc = device_copy(hC, device_cpu(), C, gpu, bytes);
        if (rc) break;
        double worst = 0;
        for (size_t i = 0; i < (size_t)n * (size_t)n; i += 997) {
            double e = fabs((double)hC[i] - ref[i]) / (fabs(ref[i]) + 1.0);
            if (e > worst) worst = e;
        }
        if (g_simulated)
            printf("  GPU, our kernel %d (%s): %s (differs from cuBLAS by %.1e)%s\n", v,
                   matmul_variant_name(v), timer_format(s, t, sizeof t), worst, sim_note());
        else
            printf("  GPU, our kernel %d (%s): %s = %.1f GFLOP/s, %.0f%% of cuBLAS (differs "
                   "from cuBLAS by %.1e)\n",
                   v, matmul_variant_name(v), timer_format(s, t, sizeof t), flops / s * 1e-9,
                   100.0 * cublas_s / s, worst);
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
    Counters c = counters_get(); /* the training's, before the evaluation's */
    if (!rc) rc = train_evaluate(model, loss, gxt, gyt, NULL, &acc);
    if (rc) {
        lesson_error(PART, err_message());
    } else {
        char t[32], per[32];
        printf("Training time on the GPU: %s (%s per epoch)%s; final loss %.4f, test accuracy "
               "%.1f%%\n",
               timer_format(seconds, t, sizeof t),
               timer_format(seconds / (double)o->epochs, per, sizeof per), sim_note(),
               (double)final_loss, 100.0 * (double)acc);
        printf("  %llu kernel launches and %llu syncs: %.1f launches and %.1f sync per epoch\n",
               (unsigned long long)c.launches, (unsigned long long)c.syncs,
               (double)c.launches / (double)o->epochs, (double)c.syncs / (double)o->epochs);
        printf("  bytes copied during training: %llu to the GPU, %llu back (%.0f per epoch: the "
               "loss);\n  the data and the model went over once, before the loop\n",
               (unsigned long long)c.bytes_h2d, (unsigned long long)c.bytes_d2h,
               (double)c.bytes_d2h / (double)o->epochs);
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
    Options o = {2000, 10000, 20000, 5000, 0, "cuda", true, true};
    int rc;
    if (!parse_options(argc, argv, &o, &rc)) return rc;
    if (o.blas_child) return blas_child(o.blas_child); /* a child of cpu_matmul */
    lesson_heading(PART, "Moving work to the GPU", README);
    Device gpu = device_cpu();
    bool have_gpu = show_devices(&o, &gpu);
    if (g_todo) return LESSON_TODO; /* its line said which exercise */
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
        double cpu_gflops = cpu_matmul(&o);
        char gpu_name[256] = "";
        DeviceInfo info;
        if (have_gpu && device_info(gpu, &info) == ERR_OK)
            snprintf(gpu_name, sizeof gpu_name, "%s", info.name);
        if (have_gpu)
            gpu_matmul(gpu, o.n_gpu, cpu_gflops);
        else
            printf("  GPU: skipped (no CUDA device)\n");
        matmul_sweep(ctx, &o, have_gpu, gpu, gpu_name);
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
