/*
 * check_sim_memory.c: host code and device memory. Host code that touches
 * device memory (or managed memory before a wait, on a device without
 * concurrent managed access) must die, as on a GPU, with a message that says
 * so, while every device operation still reaches it; with protection keys
 * and with mprotect. Also the fixture that runs other rooms' tests again
 * with mprotect.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <check.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "lib/cudasim/cudasim.h"
#include "tests/sim/sim_kernels.h"
#include "tests/sim/sim_test.h"

/* ---- host code and device memory ------------------------------------------ */

/* Loop tests run once with mprotect (0) and once with memory protection keys
 * (1; mprotect again where the machine has none). */
static void use_guard(int protection_keys)
{
    quiet();
    int got = cudasim_set_memory_guard(protection_keys);
    ck_assert_int_ge(got, 0);
    if (!protection_keys) ck_assert_int_eq(got, 0);
    ck_assert_str_eq(cudasim_memory_guard(), got ? "protection keys" : "mprotect");
}

/* Run what(arg) in a child process with its stderr captured in err; returns
 * the signal that ended it, or 0 when it exited. */
static int in_child(void (*what)(int), int arg, char *err, size_t n)
{
    int fd[2];
    ck_assert_int_eq(pipe(fd), 0);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(fd[0]);
        dup2(fd[1], STDERR_FILENO);
        what(arg);
        _exit(0);
    }
    close(fd[1]);
    size_t used = 0;
    ssize_t got;
    while (used + 1 < n && (got = read(fd[0], err + used, n - 1 - used)) > 0) used += (size_t)got;
    err[used] = '\0';
    close(fd[0]);
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    if (WIFEXITED(status)) ck_assert_msg(0, "the child exited with %d: %s", WEXITSTATUS(status), err);
    return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

static volatile float g_sink;

/* In a child (no ck_assert here: a failure exits with 3): a 4096-byte buffer
 * that copies, a memset, a kernel, cuBLAS and a graph all use, then host code
 * reads element 5 of it (how bit 0 clear) or writes it (set). Bit 1 chooses
 * protection keys. The buffer's address was a freed buffer's just before. */
static void host_touches_device_memory(int how)
{
    cudaDeviceReset();
    cudasim_set_report_stream(NULL);
    if (cudasim_set_memory_guard(how >> 1 & 1) < 0) _exit(3);
    float *d = NULL, h[1024];
    if (cudaMalloc((void **)&d, 4096) != cudaSuccess || cudaFree(d) != cudaSuccess) _exit(3);
    if (cudaMalloc((void **)&d, 4096) != cudaSuccess) _exit(3);
    for (int i = 0; i < 1024; i++) h[i] = (float)i;
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMemset(d + 512, 0, 512 * sizeof(float));
    sim_axpb(d, 2.0f, 1.0f, 1024, 0);
    cublasHandle_t blas;
    const float one = 1.0f, zero = 0.0f;
    if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS) _exit(3);
    if (cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one, d, 8, d + 64, 8, &zero,
                    d + 512, 8) != CUBLAS_STATUS_SUCCESS)
        _exit(3);
    cudaStream_t s;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    cudaStreamCreate(&s);
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    sim_axpb(d + 256, 1.0f, 1.0f, 256, s);
    cudaStreamEndCapture(s, &graph);
    cudaGraphInstantiate(&exec, graph, 0);
    if (cudaGraphLaunch(exec, s) != cudaSuccess) _exit(3);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    if (h[5] != 11.0f || h[300] != 602.0f) _exit(3);
    if (how & 1)
        d[5] = 1.0f;
    else
        g_sink = d[5];
    _exit(0); /* not reached: the access must kill the process */
}

START_TEST(test_host_access_to_device_memory_dies)
{
    /* _i: 0 read, 1 write; 2 and 3 the same with protection keys. */
    char err[2048];
    int sig = in_child(host_touches_device_memory, _i, err, sizeof err);
    ck_assert_msg(sig == SIGSEGV, "host code that %s device memory died of signal %d, not SIGSEGV",
                  _i & 1 ? "wrote" : "read", sig);
#if defined(__x86_64__)
    const char *want = _i & 1 ? "cudasim: host code wrote device memory at 0x"
                              : "cudasim: host code read device memory at 0x";
#else
    const char *want = "cudasim: host code read or wrote device memory at 0x";
#endif
    ck_assert_msg(strstr(err, want) != NULL, "the message \"%s\" does not say \"%s\"", err, want);
    const char *rest = "(byte 20 of a 4096-byte cudaMalloc buffer): on a GPU the CPU cannot "
                       "dereference device pointers; copy the data with cudaMemcpy first";
    ck_assert_msg(strstr(err, rest) != NULL, "the message \"%s\" does not say \"%s\"", err, rest);
    /* and where: the line of host_touches_device_memory that made the access */
    const char *where = strstr(err, "; the access is at ");
    ck_assert_msg(where && strstr(where, "check_sim_memory.c:") != NULL,
                  "the message \"%s\" does not say at which line of check_sim_memory.c", err);
    const char *second = strstr(strstr(err, "cudasim:") + 1, "cudasim:");
    ck_assert_msg(second == NULL, "more than one message: \"%s\"", err);
}
END_TEST

/* Host code reading one past the end of a device buffer: the same message. */
static void host_reads_past_the_end(int protection_keys)
{
    cudaDeviceReset();
    if (cudasim_set_memory_guard(protection_keys) < 0) _exit(3);
    float *d = NULL;
    if (cudaMalloc((void **)&d, 256 * sizeof(float)) != cudaSuccess) _exit(3);
    g_sink = d[256];
    _exit(0);
}

START_TEST(test_host_access_past_the_end_dies)
{
    char err[2048];
    ck_assert_int_eq(in_child(host_reads_past_the_end, _i, err, sizeof err), SIGSEGV);
    ck_assert_msg(strstr(err, "device memory at 0x") &&
                      strstr(err, "(0 bytes past the end of a 1024-byte cudaMalloc buffer)"),
                  "the message: \"%s\"", err);
}
END_TEST

START_TEST(test_device_operations_reach_device_memory)
{
    use_guard(_i);
    enum { n = 1024 };
    float *h = ramp(n), got[n];
    float *d = dev(n * sizeof(float)), *e = dev(n * sizeof(float));

    /* Copies both ways and device to device, a memset, kernels. */
    ck_assert_int_eq(cudaMemcpy(d, h, sizeof got, cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(sim_axpb(d, 2.0f, 1.0f, n, 0), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(e, d, sizeof got, cudaMemcpyDeviceToDevice), cudaSuccess);
    ck_assert_int_eq(cudaMemset(e + n / 2, 0, n / 2 * sizeof(float)), cudaSuccess);
    ck_assert_int_eq(sim_axpb(e, 1.0f, 1.0f, n, 0), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(got, e, sizeof got, cudaMemcpyDeviceToHost), cudaSuccess);
    for (int i = 0; i < n; i++)
        ck_assert_float_eq_tol(got[i], (i < n / 2 ? 2.0f * h[i] + 2.0f : 1.0f), 1e-5f);

    /* cuBLAS on the same buffers: (16 x 16) = (16 x 16)(16 x 16), column-major. */
    cublasHandle_t blas;
    ck_assert_int_eq(cublasCreate(&blas), CUBLAS_STATUS_SUCCESS);
    const float one = 1.0f, zero = 0.0f;
    ck_assert_int_eq(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, 16, 16, 16, &one, d, 16, d + 256,
                                 16, &zero, e, 16),
                     CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cudaMemcpy(got, e, 256 * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
    for (int j = 0; j < 16; j++)
        for (int i = 0; i < 16; i++) {
            double want = 0;
            for (int p = 0; p < 16; p++)
                want += (2.0 * h[i + 16 * p] + 1.0) * (2.0 * h[256 + p + 16 * j] + 1.0);
            ck_assert_float_eq_tol(got[i + 16 * j], want, 1e-3 * fabs(want));
        }
    cublasDestroy(blas);

    /* Async work and a graph replayed, into pinned memory, which host code may touch. */
    float *pinned = NULL;
    ck_assert_int_eq(cudaMallocHost((void **)&pinned, sizeof got), cudaSuccess);
    for (int i = 0; i < n; i++) pinned[i] = (float)i;
    cudaStream_t s;
    ck_assert_int_eq(cudaStreamCreate(&s), cudaSuccess);
    ck_assert_int_eq(cudaMemcpyAsync(d, pinned, sizeof got, cudaMemcpyHostToDevice, s), cudaSuccess);
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    ck_assert_int_eq(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_int_eq(cudaMemsetAsync(e, 0, sizeof got, s), cudaSuccess);
    ck_assert_int_eq(sim_axpb(d, 1.0f, 1.0f, n, s), cudaSuccess);
    ck_assert_int_eq(cudaMemcpyAsync(pinned, d, sizeof got, cudaMemcpyDeviceToHost, s), cudaSuccess);
    ck_assert_int_eq(cudaStreamEndCapture(s, &graph), cudaSuccess);
    ck_assert_int_eq(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphLaunch(exec, s), cudaSuccess);
    ck_assert_int_eq(cudaGraphLaunch(exec, s), cudaSuccess);
    ck_assert_int_eq(cudaStreamSynchronize(s), cudaSuccess);
    for (int i = 0; i < n; i++) ck_assert_float_eq_tol(pinned[i], (float)i + 2.0f, 1e-5f);
    pinned[0] = -1.0f;
    ck_assert_int_eq(cudaFreeHost(pinned), cudaSuccess);

    /* A freed buffer's address, mapped again by host code, is host memory. */
    ck_assert_int_eq(cudaFree(e), cudaSuccess);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char *at = (char *)((uintptr_t)e & ~(uintptr_t)(page - 1));
    char *m = mmap(at, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ck_assert_ptr_ne(m, MAP_FAILED);
    memset(m, 7, page);
    ck_assert_int_eq(m[page - 1], 7);
    munmap(m, page);
    /* And a new device buffer there works as any other. */
    ck_assert_int_eq(cudaFree(d), cudaSuccess);
    d = dev(n * sizeof(float));
    ck_assert_int_eq(cudaMemcpy(d, h, sizeof got, cudaMemcpyHostToDevice), cudaSuccess);
    ck_assert_int_eq(sim_axpb(d, 1.0f, 0.5f, n, 0), cudaSuccess);
    ck_assert_int_eq(cudaMemcpy(got, d, sizeof got, cudaMemcpyDeviceToHost), cudaSuccess);
    for (int i = 0; i < n; i++) ck_assert_float_eq_tol(got[i], h[i] + 0.5f, 1e-5f);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(s);
    free(h);
}
END_TEST

/* Managed memory on a device with concurrentManagedAccess = 0
 * (CUDASIM_MANAGED=windows; with how bit 2, the default: 1): in a child
 * (failures exit with 3), a kernel on managed memory, then host code reads
 * it (how bit 0 clear) or writes it (set) before waiting for the kernel. Bit
 * 1 chooses protection keys. The host's waits before open it every time.
 * Where the access goes on (the default platform), the child ends with
 * SIGUSR1. */
static void host_touches_managed_memory_early(int how)
{
    if (how & 4)
        unsetenv("CUDASIM_MANAGED");
    else
        setenv("CUDASIM_MANAGED", "windows", 1);
    cudaDeviceReset();
    cudasim_set_report_stream(NULL);
    if (cudasim_set_memory_guard(how >> 1 & 1) < 0) _exit(3);
    float *m = NULL;
    cudaStream_t s;
    cudaEvent_t e;
    if (cudaMallocManaged((void **)&m, 1024 * sizeof(float), cudaMemAttachGlobal) != cudaSuccess ||
        cudaStreamCreate(&s) != cudaSuccess || cudaEventCreate(&e) != cudaSuccess)
        _exit(3);
    for (int i = 0; i < 1024; i++) m[i] = (float)i;
    sim_axpb(m, 2.0f, 0.0f, 1024, 0);
    cudaDeviceSynchronize();
    sim_axpb(m, 1.0f, 1.0f, 1024, s);
    cudaStreamSynchronize(s);
    sim_axpb(m, 1.0f, 1.0f, 1024, s);
    cudaEventRecord(e, s);
    cudaEventSynchronize(e);
    if (m[5] != 12.0f) _exit(3);
    sim_axpb(m, 1.0f, 1.0f, 1024, 0);
    if (how & 1)
        m[5] = 1.0f;
    else
        g_sink = m[5];
    if (how & 4) raise(SIGUSR1); /* a race, reported: the program went on */
    _exit(0); /* not reached: the access must kill the process */
}

START_TEST(test_host_access_to_managed_memory_before_a_wait_dies)
{
    /* _i: 0 read, 1 write; 2 and 3 the same with protection keys. */
    char err[2048];
    int sig = in_child(host_touches_managed_memory_early, _i, err, sizeof err);
    int linux_gpu = _i & 4;
    ck_assert_msg(sig == (linux_gpu ? SIGUSR1 : SIGSEGV),
                  "host code that %s managed memory early ended with signal %d",
                  _i & 1 ? "wrote" : "read", sig);
    const char *want[] = {
#if defined(__x86_64__)
        _i & 1 ? "host code wrote managed memory at 0x" : "host code read managed memory at 0x",
#else
        "host code read or wrote managed memory at 0x",
#endif
        "(byte 20 of a 4096-byte cudaMallocManaged buffer) while the GPU may still run kernel axpb, "
        "issued at tests/sim/sim_kernels.cu:",
        linux_gpu ? "this device has concurrentManagedAccess = 1"
                  : "this device has concurrentManagedAccess = 0",
        linux_gpu ? "cudasim: data race between host code and kernel axpb: " : "cudasim: host code ",
        "; the access is at tests/sim/check_sim_memory.c:"};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
        ck_assert_msg(strstr(err, want[k]) != NULL, "the message \"%s\" does not say \"%s\"", err,
                      want[k]);
}
END_TEST

/* Prefetching and advice, with CUDA 13's signatures, as a device without
 * concurrent managed access takes them (CUDASIM_MANAGED=windows): the host as
 * the place, not a GPU; and as the default device, with it, takes a GPU too. */
START_TEST(test_managed_prefetch_and_advice)
{
    quiet();
    setenv("CUDASIM_MANAGED", "windows", 1);
    float *m = NULL, *d = dev(256);
    ck_assert_int_eq(cudaMallocManaged((void **)&m, 256, cudaMemAttachGlobal), cudaSuccess);
    struct cudaMemLocation host = {cudaMemLocationTypeHost, 0}, gpu = {cudaMemLocationTypeDevice, 0};
    struct cudaMemLocation numa = {cudaMemLocationTypeHostNumaCurrent, 0}, none = {cudaMemLocationTypeDevice, 5};
    ck_assert_int_eq(cudaMemPrefetchAsync(m, 256, host, 0, 0), cudaSuccess);
    ck_assert_int_eq(cudaMemPrefetchAsync(m, 256, numa, 0, 0), cudaSuccess);
    ck_assert_int_eq(cudaMemPrefetchAsync(m, 256, gpu, 0, 0), cudaErrorInvalidDevice);
    report_has("concurrentManagedAccess = 0");
    ck_assert_int_eq(cudaMemPrefetchAsync(m, 256, none, 0, 0), cudaErrorInvalidDevice);
    ck_assert_int_eq(cudaMemPrefetchAsync(m, 256, host, 1, 0), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaMemPrefetchAsync(m, 512, host, 0, 0), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaMemPrefetchAsync(d, 256, host, 0, 0), cudaErrorInvalidValue);
    report_has("not cudaMallocManaged memory");
    ck_assert_int_eq(cudaMemAdvise(m, 256, cudaMemAdviseSetReadMostly, gpu), cudaSuccess);
    ck_assert_int_eq(cudaMemAdvise(m, 256, cudaMemAdviseUnsetReadMostly, gpu), cudaSuccess);
    ck_assert_int_eq(cudaMemAdvise(m, 256, cudaMemAdviseSetPreferredLocation, host), cudaSuccess);
    ck_assert_int_eq(cudaMemAdvise(m, 256, cudaMemAdviseSetPreferredLocation, gpu),
                     cudaErrorInvalidDevice);
    ck_assert_int_eq(cudaMemAdvise(m, 256, cudaMemAdviseUnsetPreferredLocation, gpu), cudaSuccess);
    ck_assert_int_eq(cudaMemAdvise(m, 256, cudaMemAdviseSetAccessedBy, host), cudaSuccess);
    ck_assert_int_eq(cudaMemAdvise(m, 256, cudaMemAdviseSetAccessedBy, gpu), cudaErrorInvalidDevice);
    ck_assert_int_eq(cudaMemAdvise(m, 256, cudaMemAdviseSetAccessedBy, numa), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaMemAdvise(m, 256, (enum cudaMemoryAdvise)9, host), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaMemAdvise(d, 256, cudaMemAdviseSetReadMostly, host), cudaErrorInvalidValue);
    /* cudaMemAttachHost: the host's at all times; other flags refused */
    float *h = NULL;
    ck_assert_int_eq(cudaMallocManaged((void **)&h, 256, cudaMemAttachHost), cudaSuccess);
    cudaGetLastError(); /* (the refusals above) */
    ck_assert_int_eq(sim_axpb(m, 1.0f, 1.0f, 64, 0), cudaSuccess);
    h[3] = 1.0f;
    ck_assert_int_eq(cudaMallocManaged((void **)&h, 256, 4), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    int concurrent = -1;
    ck_assert_int_eq(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, 0),
                     cudaSuccess);
    ck_assert_int_eq(concurrent, 0);
    /* The default platform: a GPU as the place too */
    unsetenv("CUDASIM_MANAGED");
    ck_assert_int_eq(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, 0),
                     cudaSuccess);
    ck_assert_int_eq(concurrent, 1);
    ck_assert_int_eq(cudaMemPrefetchAsync(m, 256, gpu, 0, 0), cudaSuccess);
    ck_assert_int_eq(cudaMemAdvise(m, 256, cudaMemAdviseSetPreferredLocation, gpu), cudaSuccess);
    ck_assert_int_eq(cudaMemAdvise(m, 256, cudaMemAdviseSetAccessedBy, gpu), cudaSuccess);
    ck_assert_int_eq(cudaMemPrefetchAsync(m, 256, none, 0, 0), cudaErrorInvalidDevice);
    ck_assert_int_eq(cudaFree(m), cudaSuccess);
    ck_assert_int_eq(cudaFree(d), cudaSuccess);
}
END_TEST

/* The guard is chosen only while no device buffer exists. */
START_TEST(test_memory_guard_is_chosen_with_no_buffers)
{
    use_guard(0);
    void *d = dev(64);
    ck_assert_int_eq(cudasim_set_memory_guard(1), -1);
    ck_assert_str_eq(cudasim_memory_guard(), "mprotect");
    cudaFree(d);
    ck_assert_int_ge(cudasim_set_memory_guard(1), 0);
}
END_TEST

/* Other tests, again with mprotect (as on machines without protection keys),
 * then back to the guard that was in use. */
static int g_had_pkeys;

static void with_mprotect(void)
{
    cudaDeviceReset();
    g_had_pkeys = strcmp(cudasim_memory_guard(), "protection keys") == 0;
    cudasim_set_memory_guard(0);
}

static void with_guard_as_before(void)
{
    cudaDeviceReset();
    cudasim_set_memory_guard(g_had_pkeys);
}


TCase *sim_memory_tcase(void)
{
    TCase *tc = tcase_create("host_and_device_memory");
    tcase_add_loop_test(tc, test_host_access_to_device_memory_dies, 0, 4);
    tcase_add_loop_test(tc, test_host_access_past_the_end_dies, 0, 2);
    tcase_add_loop_test(tc, test_device_operations_reach_device_memory, 0, 2);
    tcase_add_test(tc, test_memory_guard_is_chosen_with_no_buffers);
    tcase_add_loop_test(tc, test_host_access_to_managed_memory_before_a_wait_dies, 0, 8);
    tcase_add_test(tc, test_managed_prefetch_and_advice);
    return tc;
}

/* A test case whose tests run with mprotect, then the guard that was in use. */
TCase *sim_with_mprotect_tcase(void)
{
    TCase *tc = tcase_create("with_mprotect");
    tcase_add_checked_fixture(tc, with_mprotect, with_guard_as_before);
    return tc;
}
