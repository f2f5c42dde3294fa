/* check_blas.c: which OpenBLAS kernel is a fallback, which kernels are worth measuring,
 * measuring one (in this process and in a child), and the troubleshooting facts Lesson 02
 * reads: WSL, the CPU's vendor, a build without CUDA. Speeds are never asserted here: they
 * belong to the benchmarks and the lesson's own measurements. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/err.h"
#include "lib/device/cpuinfo.h"
#include "lib/device/device.h"
#include "lib/device/matmul.h"
#include "suites.h"

/* The SIMD lists cpuinfo makes from /proc/cpuinfo's flags. */
static const char sapphire[] = "SSE2 SSE4.2 AVX AVX2 FMA F16C AVX-512F AVX-512BW AVX-512VL "
                               "AVX-512VNNI AVX-512BF16 AVX-512FP16 AMX";
static const char skylake_x[] = "SSE2 SSE4.2 AVX AVX2 FMA F16C AVX-512F AVX-512BW AVX-512VL";
static const char zen3[] = "SSE2 SSE4.2 AVX AVX2 FMA F16C";
static const char sandy[] = "SSE2 SSE4.2 AVX";
static const char old_sse[] = "SSE2 SSE4.2";
static const char arm[] = "NEON SVE";

START_TEST(test_kernel_levels)
{
    ck_assert_int_eq(matmul_blas_kernel_simd("Prescott"), MATMUL_SIMD_SSE);
    ck_assert_int_eq(matmul_blas_kernel_simd("prescott"), MATMUL_SIMD_SSE); /* case ignored */
    ck_assert_int_eq(matmul_blas_kernel_simd("Nehalem"), MATMUL_SIMD_SSE);
    ck_assert_int_eq(matmul_blas_kernel_simd("Sandybridge"), MATMUL_SIMD_AVX);
    ck_assert_int_eq(matmul_blas_kernel_simd("Haswell"), MATMUL_SIMD_AVX2);
    ck_assert_int_eq(matmul_blas_kernel_simd("Zen"), MATMUL_SIMD_AVX2);
    ck_assert_int_eq(matmul_blas_kernel_simd("SkylakeX"), MATMUL_SIMD_AVX512);
    ck_assert_int_eq(matmul_blas_kernel_simd("Cooperlake"), MATMUL_SIMD_AVX512);
    ck_assert_int_eq(matmul_blas_kernel_simd("NEOVERSEN1"), MATMUL_SIMD_UNKNOWN);
    ck_assert_int_eq(matmul_blas_kernel_simd(NULL), MATMUL_SIMD_UNKNOWN);
    ck_assert_int_eq(matmul_cpu_simd(sapphire), MATMUL_SIMD_AVX512);
    ck_assert_int_eq(matmul_cpu_simd(zen3), MATMUL_SIMD_AVX2);
    ck_assert_int_eq(matmul_cpu_simd("SSE2 AVX AVX2"), MATMUL_SIMD_AVX); /* AVX2 needs FMA */
    ck_assert_int_eq(matmul_cpu_simd(sandy), MATMUL_SIMD_AVX);
    ck_assert_int_eq(matmul_cpu_simd(old_sse), MATMUL_SIMD_SSE);
    ck_assert_int_eq(matmul_cpu_simd(arm), MATMUL_SIMD_UNKNOWN);
    ck_assert_int_eq(matmul_cpu_simd(""), MATMUL_SIMD_UNKNOWN);
    /* Whole words only: "AVX-512FP16" alone is not AVX-512F. */
    ck_assert_int_eq(matmul_cpu_simd("AVX-512FP16"), MATMUL_SIMD_UNKNOWN);
    ck_assert_str_eq(matmul_simd_name(MATMUL_SIMD_AVX512), "AVX-512");
    ck_assert_str_eq(matmul_simd_name(MATMUL_SIMD_AVX2), "AVX2");
}
END_TEST

/* Prescott on an AVX-512 CPU is a fallback: OpenBLAS 0.3.21 runs it on an Emerald Rapids Xeon,
 * a newer CPU than it knows. */
START_TEST(test_fallback)
{
    ck_assert(matmul_blas_is_fallback("Prescott", sapphire));
    ck_assert(matmul_blas_is_fallback("Prescott", zen3));
    ck_assert(matmul_blas_is_fallback("Haswell", skylake_x)); /* AVX-512 left unused */
    ck_assert(matmul_blas_is_fallback("Sandybridge", zen3));
    ck_assert(!matmul_blas_is_fallback("SkylakeX", sapphire));
    ck_assert(!matmul_blas_is_fallback("Zen", zen3));
    ck_assert(!matmul_blas_is_fallback("Haswell", zen3));
    ck_assert(!matmul_blas_is_fallback("Prescott", old_sse)); /* right for an SSE CPU */
    ck_assert(!matmul_blas_is_fallback("Sandybridge", sandy));
    /* Unknown on either side: no judgement. */
    ck_assert(!matmul_blas_is_fallback("NEOVERSEN1", arm));
    ck_assert(!matmul_blas_is_fallback("Prescott", arm));
    ck_assert(!matmul_blas_is_fallback("SomeFutureCore", zen3));
}
END_TEST

START_TEST(test_candidates)
{
    const char *c[4];
    ck_assert_int_eq(matmul_blas_candidates(sapphire, "GenuineIntel", c, 4), 3);
    ck_assert_str_eq(c[0], "SkylakeX");
    ck_assert_str_eq(c[1], "Cooperlake"); /* it has AVX-512 BF16 */
    ck_assert_str_eq(c[2], "Haswell");
    ck_assert_int_eq(matmul_blas_candidates(skylake_x, "GenuineIntel", c, 4), 2);
    ck_assert_str_eq(c[0], "SkylakeX");
    ck_assert_str_eq(c[1], "Haswell");
    ck_assert_int_eq(matmul_blas_candidates(zen3, "AuthenticAMD", c, 4), 2);
    ck_assert_str_eq(c[0], "Haswell");
    ck_assert_str_eq(c[1], "Zen");
    ck_assert_int_eq(matmul_blas_candidates(zen3, "GenuineIntel", c, 4), 1);
    ck_assert_int_eq(matmul_blas_candidates(zen3, NULL, c, 4), 1);
    ck_assert_int_eq(matmul_blas_candidates(sandy, "", c, 4), 1);
    ck_assert_str_eq(c[0], "Sandybridge");
    ck_assert_int_eq(matmul_blas_candidates(old_sse, "", c, 4), 0);
    ck_assert_int_eq(matmul_blas_candidates(arm, "", c, 4), 0);
    /* Never more than asked for. */
    ck_assert_int_eq(matmul_blas_candidates(sapphire, "GenuineIntel", c, 1), 1);
    ck_assert_str_eq(c[0], "SkylakeX");
    /* Every candidate is a kernel for the CPU's own level or below: none can crash it. */
    int n = matmul_blas_candidates(skylake_x, "GenuineIntel", c, 4);
    for (int i = 0; i < n; i++)
        ck_assert_int_le(matmul_blas_kernel_simd(c[i]), matmul_cpu_simd(skylake_x));
    n = matmul_blas_candidates(zen3, "AuthenticAMD", c, 4);
    for (int i = 0; i < n; i++)
        ck_assert_int_le(matmul_blas_kernel_simd(c[i]), matmul_cpu_simd(zen3));
}
END_TEST

START_TEST(test_rate_line)
{
    MatmulRate r = {"Haswell", 2, 2000, 3, 0.2, 0.18, 0.25, 1.5e-8}, back;
    char line[256];
    matmul_rate_format(&r, line, sizeof line);
    /* The line may come after other output, as in a child's. */
    char text[512];
    snprintf(text, sizeof text, "Day 37: ...\nCore not found: X\n%s\nmore\n", line);
    ck_assert_int_eq(matmul_rate_parse(text, &back), ERR_OK);
    ck_assert_str_eq(back.kernel, "Haswell");
    ck_assert_int_eq(back.threads, 2);
    ck_assert_int_eq(back.n, 2000);
    ck_assert_int_eq(back.reps, 3);
    ck_assert(fabs(back.median_s - 0.2) < 1e-12);
    ck_assert(fabs(back.min_s - 0.18) < 1e-12);
    ck_assert(fabs(back.max_s - 0.25) < 1e-12);
    ck_assert(fabs(matmul_rate_gflops(&back) - 80.0) < 1e-9); /* 2 * 2000^3 / 0.2 s */
    ck_assert_int_eq(matmul_rate_parse("nothing here\n", &back), ERR_FORMAT);
    ck_assert_int_eq(matmul_rate_parse("wb-blas-rate kernel=X threads=2\n", &back), ERR_FORMAT);
    ck_assert_int_eq(matmul_rate_parse("wb-blas-rate kernel=X threads=1 n=8 reps=1 median=0 "
                                       "min=0 max=0 error=0\n",
                                       &back),
                     ERR_FORMAT); /* a zero time is no measurement */
    ck_assert_str_eq(back.kernel, ""); /* a failed parse leaves nothing half-read */
}
END_TEST

START_TEST(test_measure_here)
{
    MatmulRate r;
    ck_assert_int_eq(matmul_cpu_measure(96, 3, &r), ERR_OK);
    ck_assert_str_eq(r.kernel, matmul_blas_kernel());
    ck_assert_int_eq(r.n, 96);
    ck_assert_int_eq(r.reps, 3);
    ck_assert_int_eq(r.threads, matmul_cpu_threads());
    ck_assert(r.min_s > 0 && r.min_s <= r.median_s && r.median_s <= r.max_s);
    ck_assert_msg(r.error < 1e-5, "spot check error %g: the product is wrong", r.error);
    ck_assert_int_eq(matmul_cpu_measure(0, 3, &r), ERR_ARG);
    ck_assert_int_eq(matmul_cpu_measure(8, 0, &r), ERR_ARG);
    ck_assert(matmul_blas_kernel()[0] != '\0');
    ck_assert_ptr_nonnull(strstr(matmul_blas_config(), "OpenBLAS"));
}
END_TEST

/* The child protocol, with /bin/sh standing in for the lesson: what the child is given
 * (OPENBLAS_CORETYPE), what it prints, how it can fail. */
START_TEST(test_measure_child)
{
    MatmulRate r;
    const char *had = getenv("OPENBLAS_CORETYPE");
    char *saved = had ? strdup(had) : NULL; /* restored below: without fork tests share it */
    char *echo[] = {"/bin/sh", "-c",
                    "echo starting; echo wb-blas-rate kernel=${OPENBLAS_CORETYPE:-none} "
                    "threads=2 n=64 reps=3 median=0.5 min=0.4 max=0.6 error=1e-08",
                    NULL};
    ck_assert_int_eq(matmul_cpu_measure_child(echo, "SkylakeX", 30, &r), ERR_OK);
    ck_assert_str_eq(r.kernel, "SkylakeX");
    ck_assert_int_eq(r.n, 64);
    /* NULL: the environment as it is (here without the variable). */
    unsetenv("OPENBLAS_CORETYPE");
    ck_assert_int_eq(matmul_cpu_measure_child(echo, NULL, 30, &r), ERR_OK);
    ck_assert_str_eq(r.kernel, "none");
    /* A variable already set is replaced, not doubled. */
    setenv("OPENBLAS_CORETYPE", "Prescott", 1);
    ck_assert_int_eq(matmul_cpu_measure_child(echo, "Haswell", 30, &r), ERR_OK);
    ck_assert_str_eq(r.kernel, "Haswell");
    if (saved)
        setenv("OPENBLAS_CORETYPE", saved, 1);
    else
        unsetenv("OPENBLAS_CORETYPE");
    free(saved);
    /* A kernel this CPU cannot run dies of SIGILL: named, not a hang or a crash here. */
    char *ill[] = {"/bin/sh", "-c", "kill -ILL $$", NULL};
    ck_assert_int_eq(matmul_cpu_measure_child(ill, "SkylakeX", 30, &r), ERR_DEVICE);
    ck_assert_ptr_nonnull(strstr(err_message(), "instructions this CPU does not have"));
    ck_assert_ptr_nonnull(strstr(err_message(), "SkylakeX"));
    /* No rate: the child's last line and exit status. */
    char *quiet[] = {"/bin/sh", "-c", "echo first; echo 'lesson37: part 2: broken'; exit 3", NULL};
    ck_assert_int_eq(matmul_cpu_measure_child(quiet, NULL, 30, &r), ERR_DEVICE);
    ck_assert_ptr_nonnull(strstr(err_message(), "exit status 3"));
    ck_assert_ptr_nonnull(strstr(err_message(), "broken"));
    /* A child that never answers is stopped. */
    char *slow[] = {"/bin/sh", "-c", "exec sleep 30", NULL};
    ck_assert_int_eq(matmul_cpu_measure_child(slow, NULL, 0.3, &r), ERR_DEVICE);
    ck_assert_ptr_nonnull(strstr(err_message(), "no answer"));
    /* A program that cannot be started. */
    char *missing[] = {"/nonexistent/lesson37", NULL};
    ck_assert_int_ne(matmul_cpu_measure_child(missing, NULL, 30, &r), ERR_OK);
}
END_TEST

START_TEST(test_wsl_and_vendor)
{
    ck_assert(cpuinfo_is_wsl("Linux version 5.15.153.1-microsoft-standard-WSL2 (root@...)"));
    ck_assert(cpuinfo_is_wsl("Linux version 4.4.0-19041-Microsoft (Microsoft@Microsoft.com)"));
    ck_assert(!cpuinfo_is_wsl("Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org)"));
    ck_assert(!cpuinfo_is_wsl(""));
    CpuInfo c;
    ck_assert_int_eq(cpuinfo_parse("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD "
                                   "EPYC\nflags\t\t: sse2 avx avx2 fma\n",
                                   &c),
                     ERR_OK);
    ck_assert_str_eq(c.vendor, "AuthenticAMD");
    ck_assert(!c.wsl); /* parse reads only cpuinfo; cpuinfo_read adds /proc/version */
    ck_assert_int_eq(cpuinfo_parse("processor\t: 0\nFeatures\t: fp asimd\n", &c), ERR_OK);
    ck_assert_str_eq(c.vendor, "");
}
END_TEST

/* The unit tests are a build without CUDA: the first row of Lesson 02's troubleshooting
 * table, and its message with the fix. */
START_TEST(test_cpu_only_build)
{
    if (device_cuda_built()) return; /* only in the CPU-only flavour */
    int n = -1;
    ck_assert_int_eq(device_count(&n), ERR_DEVICE);
    ck_assert_int_eq(n, 0);
    ck_assert_ptr_nonnull(strstr(err_message(), "this build has no CUDA backend"));
    ck_assert_ptr_nonnull(strstr(err_message(), "install the CUDA toolkit and rebuild"));
    Device d;
    ck_assert_int_eq(device_from_string("cuda", &d), ERR_DEVICE);
    ck_assert_ptr_nonnull(strstr(err_message(), "nvcc was not found"));
    ck_assert_str_eq(device_backend(), "none");
}
END_TEST

Suite *blas_suite(void)
{
    Suite *s = suite_create("blas");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_kernel_levels);
    tcase_add_test(tc, test_fallback);
    tcase_add_test(tc, test_candidates);
    tcase_add_test(tc, test_rate_line);
    tcase_add_test(tc, test_measure_here);
    tcase_add_test(tc, test_measure_child);
    tcase_add_test(tc, test_wsl_and_vendor);
    tcase_add_test(tc, test_cpu_only_build);
    suite_add_tcase(s, tc);
    return s;
}
