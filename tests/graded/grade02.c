/*
 * grade02.c: the graded suite of Lesson 02 (lessons/02_device_transfer/
 * exercises.c and exercises.cu).
 *
 * 02.1 to 02.3 are plain C and are checked against cases worked out from
 * CUDA's and PyTorch's documented behaviour (the expected messages are the
 * ones lib/device.h and lib/tensor.h promise). 02.4 is a kernel: it runs on
 * the GPU when there is one, else on the CUDA simulator, which also reports a
 * write past the end of a buffer with the block and the thread; it is
 * checked against a CPU loop on sizes that need a partial last block and
 * many blocks. The whole-lesson check trains Iris on the device and compares
 * with lib's CPU path.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "graded.h"
#include "kernels/kernels.h"
#include "lib/data.h"
#include "lib/device.h"
#include "lib/err.h"
#include "lib/layers.h"
#include "lib/tensor.h"
#include "lib/train.h"
#include "tests/common/iris.h"
#ifdef CUDASIM
#include "lib/cudasim/cudasim.h"
#endif

/* ---- ex02.1 device_parse ------------------------------------------------------ */

static void parses(const char *text, const char *env, int visible, Device want, int want_phys)
{
    Device d = {DEVICE_CPU, -7};
    int physical = -7;
    char got[16], exp[16];
    expect_ok(device_parse(text, env, visible, &d, &physical), "device_parse");
    ck_assert_msg(device_equal(d, want) && d.index == want.index,
                  "device_parse(\"%s\", %s, %d) gave %s, expected %s", text, env ? env : "NULL",
                  visible, device_str(d, got, sizeof got), device_str(want, exp, sizeof exp));
    ck_assert_msg(physical == want_phys,
                  "device_parse(\"%s\", CUDA_VISIBLE_DEVICES=%s, %d visible): physical GPU %d, "
                  "expected %d",
                  text, env ? env : "(unset)", visible, physical, want_phys);
}

static void refuses(const char *text, const char *env, int visible, ErrCode code,
                    const char *message)
{
    Device d;
    int physical;
    err_clear();
    int rc = device_parse(text, env, visible, &d, &physical);
    ck_assert_msg(rc != ERR_TODO, "device_parse is not written yet");
    ck_assert_msg(rc == (int)code,
                  "device_parse(\"%s\", %s, %d) returned %d, expected %s (%d) with the message "
                  "\"%s\"",
                  text, env ? env : "NULL", visible, rc, err_name(code), (int)code, message);
    ck_assert_msg(strcmp(err_message(), message) == 0,
                  "device_parse(\"%s\"): the message is \"%s\", expected \"%s\"", text,
                  err_message(), message);
}

GRADED_TEST(parse_strings)
{
    parses("cpu", NULL, 0, device_cpu(), -1);
    parses("cuda", NULL, 1, device_cuda(0), 0);
    parses("cuda:0", NULL, 3, device_cuda(0), 0);
    parses("cuda:2", NULL, 3, device_cuda(2), 2);
    parses("cuda:12", NULL, 13, device_cuda(12), 12);
}

GRADED_TEST(parse_visible_devices)
{
    /* With CUDA_VISIBLE_DEVICES=2,0 the program sees two GPUs: cuda:0 is the
     * machine's GPU 2 and cuda:1 its GPU 0. A UUID entry has no number. */
    parses("cuda:0", "2,0", 2, device_cuda(0), 2);
    parses("cuda:1", "2,0", 2, device_cuda(1), 0);
    parses("cuda", "3", 1, device_cuda(0), 3);
    parses("cuda:0", "GPU-5d2f0b6e", 1, device_cuda(0), -1);
}

GRADED_TEST(parse_errors)
{
    refuses("gpu", NULL, 1, ERR_ARG, "unknown device \"gpu\": use \"cpu\", \"cuda\" or \"cuda:N\"");
    refuses("cuda:", NULL, 1, ERR_ARG, "unknown device \"cuda:\": use \"cpu\", \"cuda\" or \"cuda:N\"");
    refuses("cuda:1x", NULL, 2, ERR_ARG,
            "unknown device \"cuda:1x\": use \"cpu\", \"cuda\" or \"cuda:N\"");
    refuses("cuda:-1", NULL, 2, ERR_ARG,
            "unknown device \"cuda:-1\": use \"cpu\", \"cuda\" or \"cuda:N\"");
    refuses("CUDA", NULL, 1, ERR_ARG, "unknown device \"CUDA\": use \"cpu\", \"cuda\" or \"cuda:N\"");
    refuses("cuda:1", "0", 1, ERR_DEVICE,
            "cuda:1 requested but CUDA_VISIBLE_DEVICES=0 shows only 1 device");
    refuses("cuda:3", NULL, 2, ERR_DEVICE, "cuda:3 requested but only 2 CUDA devices are visible");
    refuses("cuda", NULL, 0, ERR_DEVICE, "cuda requested but no CUDA device is visible");
}

/* ---- ex02.2 copy_kind ------------------------------------------------------------ */

GRADED_TEST(copy_kinds)
{
    const struct {
        Device from, to;
        CopyKind want;
    } cases[] = {
        {{DEVICE_CPU, 0}, {DEVICE_CPU, 0}, COPY_HOST_TO_HOST},
        {{DEVICE_CPU, 0}, {DEVICE_CUDA, 1}, COPY_HOST_TO_DEVICE},
        {{DEVICE_CUDA, 2}, {DEVICE_CPU, 0}, COPY_DEVICE_TO_HOST},
        {{DEVICE_CUDA, 1}, {DEVICE_CUDA, 1}, COPY_DEVICE_TO_DEVICE},
        {{DEVICE_CUDA, 0}, {DEVICE_CUDA, 1}, COPY_PEER},
        {{DEVICE_CUDA, 3}, {DEVICE_CUDA, 0}, COPY_PEER},
    };
    static const char *const names[] = {"COPY_HOST_TO_HOST", "COPY_HOST_TO_DEVICE",
                                        "COPY_DEVICE_TO_HOST", "COPY_DEVICE_TO_DEVICE",
                                        "COPY_PEER"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CopyKind k = (CopyKind)-1;
        char a[16], b[16];
        expect_ok(copy_kind(cases[i].from, cases[i].to, &k), "copy_kind");
        ck_assert_msg(k == cases[i].want, "copy_kind(%s, %s) gave %d, expected %s",
                      device_str(cases[i].from, a, sizeof a), device_str(cases[i].to, b, sizeof b),
                      (int)k, names[cases[i].want]);
    }
}

/* ---- ex02.3 tensor_same_device ------------------------------------------------------ */

GRADED_TEST(same_device_rule)
{
    /* Only the device field is read: no memory is needed for these tensors. */
    Tensor cpu = {0}, g0 = {0}, g0b = {0}, g1 = {0};
    cpu.device = device_cpu();
    g0.device = g0b.device = device_cuda(0);
    g1.device = device_cuda(1);
    expect_ok(tensor_same_device("add", &cpu, &cpu), "tensor_same_device");
    expect_ok(tensor_same_device("add", &g0, &g0b), "tensor_same_device");
    const struct {
        const Tensor *a, *b;
        const char *message;
    } cases[] = {
        {&g0, &cpu,
         "Linear fc1: expected all tensors to be on the same device, but found cuda:0 and cpu"},
        {&cpu, &g1,
         "Linear fc1: expected all tensors to be on the same device, but found cpu and cuda:1"},
        {&g1, &g0,
         "Linear fc1: expected all tensors to be on the same device, but found cuda:1 and cuda:0"},
    };
    for (int i = 0; i < 3; i++) {
        err_clear();
        int rc = tensor_same_device("Linear fc1", cases[i].a, cases[i].b);
        ck_assert_msg(rc != ERR_TODO, "tensor_same_device is not written yet");
        ck_assert_msg(rc == ERR_DEVICE, "tensor_same_device returned %d, expected ERR_DEVICE (%d)",
                      rc, ERR_DEVICE);
        ck_assert_msg(strcmp(err_message(), cases[i].message) == 0,
                      "the message is \"%s\", expected \"%s\"", err_message(), cases[i].message);
    }
}

/* ---- ex02.4 the ReLU kernel ---------------------------------------------------------- */

static void quiet_device(void)
{
    int n = 0;
    ck_assert_msg(cudaGetDeviceCount(&n) == cudaSuccess && n > 0,
                  "no CUDA device (real or simulated) to run the kernel on");
#ifdef CUDASIM
    cudasim_set_report_stream(NULL);
#endif
}

static const char *report(void)
{
#ifdef CUDASIM
    return cudasim_last_report();
#else
    return "";
#endif
}

#define TAIL 64 /* sentinel floats after the output, checked on a GPU too */

#ifdef CUDASIM /* a GPU does not count launches; its runs of this suite check the values only */
static unsigned long long launches(void) { return cudasim_launch_count(); }
#endif

/* Run k_relu_forward on n values (zeros, negatives, positives) and compare. */
static void relu_case(int64_t n, int in_place)
{
    quiet_device();
    float *h = malloc((size_t)(n + TAIL) * sizeof *h), *got = malloc((size_t)(n + TAIL) * 4);
    for (int64_t i = 0; i < n; i++)
        h[i] = (i % 5 == 0) ? 0.0f : (float)((i * 7919) % 1000 - 500) * 0.01f;
    for (int64_t i = n; i < n + TAIL; i++) h[i] = -12345.0f; /* the sentinel after the end */
    float *dx = NULL, *dy = NULL;
    /* The buffers hold n + TAIL floats; the kernel is told n. */
    ck_assert_int_eq(cudaMalloc((void **)&dx, (size_t)(n + TAIL) * 4), cudaSuccess);
    dy = in_place ? dx : NULL;
    if (!in_place) ck_assert_int_eq(cudaMalloc((void **)&dy, (size_t)(n + TAIL) * 4), cudaSuccess);
    cudaMemcpy(dx, h, (size_t)(n + TAIL) * 4, cudaMemcpyHostToDevice);
    if (!in_place) {
        cudaMemset(dy, 0xff, (size_t)n * 4); /* NaN: every element must be written */
        cudaMemcpy(dy + n, h + n, TAIL * 4, cudaMemcpyHostToDevice);
    }
    err_clear();
#ifdef CUDASIM
    unsigned long long before = launches();
#endif
    cudaError_t e = k_relu_forward(dx, dy, n, 0);
#ifdef CUDASIM
    ck_assert_msg(e != cudaSuccess || launches() > before,
                  "k_relu_forward(n = %lld) launched no kernel: the work must be done by a "
                  "CUDA kernel (on a GPU the CPU cannot even read these device arrays)",
                  (long long)n);
#endif
    ck_assert_msg(!(e != cudaSuccess && err_code() == ERR_TODO), "k_relu_forward is not written yet");
    cudaError_t s = cudaDeviceSynchronize();
    ck_assert_msg(e == cudaSuccess && s == cudaSuccess,
                  "k_relu_forward(n = %lld) returned \"%s\" and cudaDeviceSynchronize \"%s\"%s%s",
                  (long long)n, cudaGetErrorString(e), cudaGetErrorString(s),
                  *report() ? "; the simulator says: " : "", report());
    cudaMemcpy(got, dy, (size_t)(n + TAIL) * 4, cudaMemcpyDeviceToHost);
    for (int64_t i = n; i < n + TAIL; i++)
        ck_assert_msg(got[i] == -12345.0f,
                      "k_relu_forward(n = %lld) wrote past the end of y: y[%lld] changed (the "
                      "threads beyond n must do nothing: test i < n)",
                      (long long)n, (long long)i);
    for (int64_t i = 0; i < n; i++) {
        float want = h[i] > 0.0f ? h[i] : 0.0f;
        ck_assert_msg(got[i] == want,
                      "y[%lld] is %g but should be %g (n = %lld%s; a NaN means no thread "
                      "wrote it: does the grid cover all n elements?)",
                      (long long)i, (double)got[i], (double)want, (long long)n,
                      in_place ? ", in place" : "");
    }
    cudaFree(dx);
    if (!in_place) cudaFree(dy);
    free(h);
    free(got);
}

GRADED_TEST(relu_kernel_small)
{
    relu_case(1, 0);
    relu_case(100, 0);
}

GRADED_TEST(relu_kernel_blocks)
{
    relu_case(257, 0);   /* one element into a second block of 256 */
    relu_case(70001, 0); /* hundreds of blocks */
}

GRADED_TEST(relu_kernel_in_place)
{
    relu_case(1000, 1);
}

GRADED_TEST(relu_kernel_arguments)
{
    quiet_device();
    float *d;
    ck_assert_int_eq(cudaMalloc((void **)&d, 16), cudaSuccess);
    const struct {
        const float *x;
        float *y;
        int64_t n;
        cudaError_t want;
        const char *what;
    } cases[] = {
        {d, d, 0, cudaSuccess, "n = 0 (nothing to do, no launch)"},
        {d, d, -1, cudaErrorInvalidValue, "n = -1"},
        {NULL, d, 4, cudaErrorInvalidValue, "x = NULL"},
        {d, NULL, 4, cudaErrorInvalidValue, "y = NULL"},
        {d, d, (int64_t)1 << 32, cudaErrorInvalidValue, "n = 2^32 (too big for int indices)"},
    };
    for (int i = 0; i < 5; i++) {
        err_clear();
        cudaError_t e = k_relu_forward(cases[i].x, cases[i].y, cases[i].n, 0);
        ck_assert_msg(!(e != cudaSuccess && err_code() == ERR_TODO),
                      "k_relu_forward is not written yet");
        ck_assert_msg(e == cases[i].want, "k_relu_forward with %s returned %s, expected %s",
                      cases[i].what, cudaGetErrorName(e), cudaGetErrorName(cases[i].want));
        cudaGetLastError();
    }
    cudaFree(d);
}

/* ---- all of them: Iris on the device ---------------------------------------------------- */

GRADED_TEST(iris_on_device)
{
    /* Lesson 01's network on "cuda" (your device_parse), moved with your
     * copy_kind, checked by your tensor_same_device, with your ReLU kernel:
     * 1000 epochs must give the CPU path's losses within 1e-4 relative. */
    quiet_device();
    Device g;
    ck_assert_msg(device_from_string("cuda", &g) == ERR_OK, "device \"cuda\": %s", err_message());
    Dataset train, test;
    Tensor *x = NULL, *gx = NULL, *gy = NULL;
    iris_scaled(&train, &test, &x, NULL);
    Module *models[2];
    for (int m = 0; m < 2; m++) {
        Rng rng;
        rng_seed(&rng, 42, 0);
        Module *layers[] = {linear_new("fc1", 4, 10, &rng), relu_new("relu"),
                            linear_new("fc2", 10, 3, &rng)};
        models[m] = sequential_new("mlp", 3, layers);
    }
    ck_assert_msg(module_to(models[1], g) == ERR_OK, "model.to(cuda): %s", err_message());
    ck_assert_msg(tensor_to(x, g, &gx) == ERR_OK, "X_train.to(cuda): %s", err_message());
    ck_assert_msg(tensor_to(train.y, g, &gy) == ERR_OK, "y_train.to(cuda): %s", err_message());
    Loss *lc = loss_cross_entropy_new(), *lg = loss_cross_entropy_new();
    Optimizer *oc = optim_sgd_new(models[0], 0.01f), *og = optim_sgd_new(models[1], 0.01f);
    for (int e = 1; e <= 1000; e++) {
        float vc, vg;
        ck_assert_int_eq(train_step(models[0], lc, oc, x, train.y, &vc), ERR_OK);
        int rc = train_step(models[1], lg, og, gx, gy, &vg);
        ck_assert_msg(rc == ERR_OK, "epoch %d on the device: %s", e, err_message());
        if (e % 250 == 0)
            ck_assert_msg(fabsf(vg - vc) <= 1e-4f * fabsf(vc),
                          "epoch %d: loss %.6f on the device, %.6f on the CPU", e, (double)vg,
                          (double)vc);
    }
}

#define CU_FILE "lessons/02_device_transfer/exercises.cu"

static const GradedCase cases[] = {
    {&parse_strings, "02.1", "device_parse", "\"cpu\", \"cuda\", \"cuda:N\"", 4, 5, NULL},
    {&parse_visible_devices, "02.1", "device_parse",
     "physical GPUs through CUDA_VISIBLE_DEVICES", 4, 5, NULL},
    {&parse_errors, "02.1", "device_parse", "malformed and missing devices, exact messages", 5, 5, NULL},
    {&copy_kinds, "02.2", "copy_kind", "all five directions", 5, 5, NULL},
    {&same_device_rule, "02.3", "tensor_same_device", "same devices pass, PyTorch's message", 6, 5, NULL},
    {&relu_kernel_small, "02.4", "k_relu_forward", "1 and 100 values against a CPU loop", 4, 10,
     CU_FILE},
    {&relu_kernel_blocks, "02.4", "k_relu_forward",
     "257 and 70001 values: a partial last block, many blocks", 5, 20, CU_FILE},
    {&relu_kernel_in_place, "02.4", "k_relu_forward", "in place (y == x)", 2, 10, CU_FILE},
    {&relu_kernel_arguments, "02.4", "k_relu_forward", "n = 0 and bad arguments", 3, 10, CU_FILE},
    {&iris_on_device, "02", "all of Lesson 02",
     "Iris trains on the device to the CPU's losses", 10, 60, NULL},
};

const GradedLesson graded_lesson = {"02", "Moving work to the GPU",
                                    "lessons/02_device_transfer/exercises.c", cases,
                                    (int)(sizeof cases / sizeof cases[0])};
