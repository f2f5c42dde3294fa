/* check_misc.c: cpuinfo parsing, timers and counters, gnuplot plotting, Iris. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/core/counters.h"
#include "lib/core/timeline.h"
#include "lib/device/cpuinfo.h"
#include "lib/core/err.h"
#include "lib/core/fileio.h"
#include "lib/train/iris.h"
#include "lib/io/plot.h"
#include "lib/train/train.h"
#include "lib/core/timer.h"
#include "suites.h"
#include "tests/common/tmpdir.h"

/* A hybrid laptop chip in miniature: core 0 has two threads, cores 8 and 9 one. */
static const char hybrid[] =
    "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Core(TM) i7-12800HX\n"
    "physical id\t: 0\ncore id\t\t: 0\nflags\t\t: fpu sse2 sse4_2 avx avx2 fma f16c\n\n"
    "processor\t: 1\nmodel name\t: Intel(R) Core(TM) i7-12800HX\nphysical id\t: 0\n"
    "core id\t\t: 0\nflags\t\t: fpu sse2 sse4_2 avx avx2 fma f16c\n\n"
    "processor\t: 2\nmodel name\t: Intel(R) Core(TM) i7-12800HX\nphysical id\t: 0\n"
    "core id\t\t: 8\nflags\t\t: fpu sse2 sse4_2 avx avx2 fma f16c\n\n"
    "processor\t: 3\nmodel name\t: Intel(R) Core(TM) i7-12800HX\nphysical id\t: 0\n"
    "core id\t\t: 9\nflags\t\t: fpu sse2 sse4_2 avx avx2 fma f16c\n\n";

static const char two_sockets[] =
    "processor : 0\nmodel name : Xeon\nphysical id : 0\ncore id : 0\nflags : avx512f avx2\n"
    "processor : 1\nmodel name : Xeon\nphysical id : 0\ncore id : 1\n"
    "processor : 2\nmodel name : Xeon\nphysical id : 1\ncore id : 0\n"
    "processor : 3\nmodel name : Xeon\nphysical id : 1\ncore id : 1\n";

static const char arm[] = "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm sve\n\n"
                          "processor\t: 1\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm sve\n";

START_TEST(test_cpuinfo_hybrid)
{
    CpuInfo c;
    ck_assert_int_eq(cpuinfo_parse(hybrid, &c), ERR_OK);
    ck_assert_str_eq(c.model, "Intel(R) Core(TM) i7-12800HX");
    ck_assert_int_eq(c.logical, 4);
    ck_assert_int_eq(c.sockets, 1);
    ck_assert_int_eq(c.cores, 3);
    ck_assert_int_eq(c.threads_min, 1);
    ck_assert_int_eq(c.threads_max, 2);
    ck_assert_str_eq(c.simd, "SSE2 SSE4.2 AVX AVX2 FMA F16C");
}
END_TEST

START_TEST(test_cpuinfo_two_sockets_and_arm)
{
    CpuInfo c;
    ck_assert_int_eq(cpuinfo_parse(two_sockets, &c), ERR_OK);
    ck_assert_int_eq(c.sockets, 2);
    ck_assert_int_eq(c.cores, 4);
    ck_assert_int_eq(c.threads_max, 1);
    ck_assert_str_eq(c.simd, "AVX2 AVX-512F");
    ck_assert_int_eq(cpuinfo_parse(arm, &c), ERR_OK);
    ck_assert_int_eq(c.logical, 2);
    ck_assert_int_eq(c.cores, 2);
    ck_assert_int_eq(c.sockets, 1);
    ck_assert_str_eq(c.simd, "NEON SVE");
    ck_assert_str_eq(c.model, "");
}
END_TEST

START_TEST(test_cpuinfo_this_machine)
{
    CpuInfo c;
    ck_assert_int_eq(cpuinfo_read(&c), ERR_OK);
    ck_assert_int_eq(c.logical, (int)sysconf(_SC_NPROCESSORS_CONF));
    ck_assert_int_ge(c.cores, 1);
    ck_assert_int_le(c.cores, c.logical);
    ck_assert(c.mem_gib > 0.1);
}
END_TEST

START_TEST(test_timer_format_and_clock)
{
    char b[32];
    ck_assert_str_eq(timer_format(4.62, b, sizeof b), "4.62 s");
    ck_assert_str_eq(timer_format(0.0618, b, sizeof b), "61.8 ms");
    ck_assert_str_eq(timer_format(3.05e-6, b, sizeof b), "3.05 us");
    ck_assert_str_eq(timer_format(250.0, b, sizeof b), "250 s");
    ck_assert_str_eq(timer_format(0.0, b, sizeof b), "0.00 s");
    double t0 = timer_now();
    struct timespec nap = {0, 20000000};
    nanosleep(&nap, NULL);
    double dt = timer_now() - t0;
    ck_assert(dt >= 0.019 && dt < 1.0);
}
END_TEST

static double g_fake_now;
static double fake_clock(void) { return g_fake_now += 0.5; }

/* The trace records clock reads in order with what counters count; a test
 * clock replaces the real one and is undone with NULL. */
START_TEST(test_counters_trace_and_test_clock)
{
    char trace[8];
    counters_reset();
    counters_trace(trace, sizeof trace);
    g_fake_now = 10.0;
    timer_set_clock(fake_clock);
    ck_assert(timer_now() == 10.5);
    counters_launch(2);
    counters_sync();
    counters_copy('d', 4); /* a copy to the CPU waits: a sync */
    ck_assert(timer_now() == 11.0);
    counters_launch(5); /* past the end of the buffer: kept NUL-terminated */
    timer_set_clock(NULL);
    counters_trace(NULL, 0);
    ck_assert_str_eq(trace, "CLLSSCL");
    Counters c = counters_get();
    ck_assert_uint_eq(c.launches, 7);
    ck_assert_uint_eq(c.syncs, 2);
    counters_launch(1); /* recording stopped: the buffer is not touched */
    ck_assert_str_eq(trace, "CLLSSCL");
}
END_TEST

/* Iris as the lessons load it, and Lesson 01's network from a seed. */
START_TEST(test_iris_data_and_network)
{
    IrisData iris;
    const char *path = iris_csv_path();
    ck_assert_str_eq(path + strlen(path) - strlen("/" IRIS_CSV), "/" IRIS_CSV);
    ck_assert_int_eq(iris_data_load(path, &iris), ERR_OK);
    for (int k = 0; k < 3; k++) /* the classes in the order the spec names them */
        ck_assert_str_eq(iris.train.class_names[k], iris_spec()->class_names[k]);
    ck_assert_ptr_null(iris_spec()->class_names[3]);
    ck_assert_int_eq(iris.x_train->shape[0], 120);
    ck_assert_int_eq(iris.x_test->shape[0], 30);
    ck_assert_int_eq(iris.train.y->shape[0], 120);
    float lo = 1, hi = 0;
    for (int64_t i = 0; i < iris.x_train->numel; i++) {
        float v = tensor_f32(iris.x_train)[i];
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    ck_assert(lo == 0.0f && hi == 1.0f); /* scaled on the training part */
    Module *a = iris_mlp_new(42), *b = iris_mlp_new(42), *c = iris_mlp_new(7);
    ck_assert_int_eq(module_num_scalars(a), 4 * 10 + 10 + 10 * 3 + 3);
    Param *wa = module_find_param(a, "fc1.weight"), *wb = module_find_param(b, "fc1.weight"),
          *wc = module_find_param(c, "fc1.weight");
    ck_assert_mem_eq(wa->value->data, wb->value->data, 40 * sizeof(float));
    ck_assert(memcmp(wa->value->data, wc->value->data, 40 * sizeof(float)) != 0);
    /* On the CPU the loss is where it was computed: loss_item costs no sync. */
    Loss *loss = loss_cross_entropy_new();
    Optimizer *opt = optim_sgd_new(a, 0.01f);
    float v = 0, w = 0;
    ck_assert_int_eq(train_step(a, loss, opt, iris.x_train, iris.train.y, &v), ERR_OK);
    counters_reset();
    ck_assert_int_eq(loss_item(loss, &w), ERR_OK);
    ck_assert(v == w && counters_get().syncs == 0);
    optim_free(opt);
    loss_free(loss);
    module_free(a), module_free(b), module_free(c);
    iris_data_free(&iris);
    ck_assert_int_eq(iris_data_load("no/such/iris.csv", &iris), ERR_IO);
    ck_assert_ptr_null(iris.x_train);
    ck_assert(strstr(err_message(), "no/such/iris.csv") != NULL);
}
END_TEST

START_TEST(test_plot_png_or_clear_error)
{
    char dat[] = "/tmp/wb-plot-XXXXXX";
    int fd = mkstemp(dat);
    ck_assert_int_ge(fd, 0);
    const char rows[] = "1 1.0\n2 0.5\n3 0.25\n";
    ck_assert_int_eq(write(fd, rows, sizeof rows - 1), (ssize_t)(sizeof rows - 1));
    close(fd);
    char png[64];
    snprintf(png, sizeof png, "%s.png", dat);
    /* A title with a quote (gnuplot's single-quoted strings double it) and an underscore. */
    int rc = plot_draw(WB_ROOT "/lessons/01_cpu_baseline/loss_curve.gp", dat, png,
                       "the trainer's history, 01_loss");
    if (plot_available()) {
        ck_assert_msg(rc == ERR_OK, "gnuplot failed: %s", err_message());
        FILE *f = fopen(png, "rb");
        ck_assert_ptr_nonnull(f);
        unsigned char sig[8] = {0};
        ck_assert_int_eq(fread(sig, 1, 8, f), 8);
        fclose(f);
        ck_assert_mem_eq(sig, "\x89PNG\r\n\x1a\n", 8);
        unlink(png);
    } else {
        ck_assert_int_eq(rc, ERR_UNSUPPORTED);
        ck_assert_ptr_nonnull(strstr(err_message(), "gnuplot is not installed"));
    }
    /* Without gnuplot on the PATH the error is clear and names the data file. */
    char *path = strdup(getenv("PATH") ? getenv("PATH") : "");
    setenv("PATH", "/nonexistent", 1);
    ck_assert(!plot_available());
    ck_assert_int_eq(plot_draw("x.gp", dat, png, "t"), ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(err_message(), dat));
    setenv("PATH", path, 1);
    /* A line break cannot be passed to gnuplot on its command line. */
    if (plot_available()) {
        ck_assert_int_eq(plot_draw("x.gp", dat, png, "two\nlines"), ERR_ARG);
        ck_assert_ptr_nonnull(strstr(err_message(), "title"));
    }
    free(path); /* PATH is back: without fork (valgrind) the next tests share it */
    unlink(dat);
}
END_TEST

/* The PNG goes through the save: a new file renamed over the target, written by gnuplot
 * as its standard output. In a process whose descriptors from 3 on are closed (so that
 * the save's file is the lowest free number), the PNG must still be a PNG, the script
 * gnuplot read unchanged, and a link at the target refused. On a copy of the script. */
START_TEST(test_plot_saves_its_png_and_touches_nothing_else)
{
    if (!plot_available()) return;
    char dir[64], *script_text, *after;
    size_t len, len2;
    tmpdir_make(dir, sizeof dir, "wb-plot");
    const char *script = tmpdir_join(dir, "curve.gp"), *dat = tmpdir_join(dir, "d.dat");
    const char *png = tmpdir_join(dir, "c.png");
    ck_assert_int_eq(fileio_read(WB_ROOT "/lessons/01_cpu_baseline/loss_curve.gp", &script_text,
                                 &len),
                     ERR_OK);
    tmpdir_write(script, script_text, len);
    tmpdir_write(dat, "1 1.0\n2 0.5\n", 12);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        for (int fd = 3; fd < 256; fd++) close(fd);
        _exit(plot_draw(script, dat, png, "t") == ERR_OK ? 0 : 1);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "plot_draw failed: %d", status);
    ck_assert_int_eq(fileio_read(script, &after, &len2), ERR_OK);
    ck_assert_uint_eq(len, len2);
    ck_assert_mem_eq(script_text, after, len);
    free(after);
    ck_assert_int_eq(fileio_read(png, &after, &len2), ERR_OK);
    ck_assert_uint_gt(len2, 8);
    ck_assert_mem_eq(after, "\x89PNG\r\n\x1a\n", 8);
    free(after);
    unlink(png);
    ck_assert_int_eq(symlink(dat, png), 0);
    ck_assert_int_eq(plot_draw(script, dat, png, "t"), ERR_IO);
    ck_assert_ptr_nonnull(strstr(err_message(), "it is a symbolic link, not a regular file"));
    ck_assert_int_eq(fileio_read(dat, &after, &len2), ERR_OK);
    ck_assert_str_eq(after, "1 1.0\n2 0.5\n");
    free(after);
    free(script_text);
    ck_assert_int_eq(tmpdir_remove(dir), 0);
}
END_TEST

/* The timeline without a GPU: the CPU's lane only, in order, with its room kept. */
static int g_hook_calls;
static int fake_begin(void) { g_hook_calls += 1; return ERR_OK; }
static int fake_end(void)
{
    g_hook_calls += 10;
    timeline_add(TIMELINE_KERNEL, true, "k", 0.5, 0.25); /* end before start: clamped */
    return ERR_OK;
}

START_TEST(test_timeline_records_in_order)
{
    TimelineEvent ev[3];
    size_t n = 99;
    ck_assert_int_eq(timeline_end(&n), ERR_ARG); /* nothing recorded */
    ck_assert_int_eq(timeline_begin(ev, 0), ERR_ARG);
    timeline_gpu_hooks(fake_begin, fake_end);
    ck_assert_int_eq(timeline_begin(ev, 3), ERR_OK);
    ck_assert(timeline_on());
    double t = timeline_clock();
    ck_assert(t >= 0 && t < 1);
    timeline_add(TIMELINE_LAUNCH, false, "a name longer than the thirty-one characters kept", t, t + 1);
    timeline_add(TIMELINE_SYNC, false, "wait", t + 1, t + 2);
    timeline_add(TIMELINE_MARK, false, "epoch 1", t + 2, t + 2); /* the last room left */
    ck_assert_int_eq(timeline_end(&n), ERR_OK);
    ck_assert(!timeline_on());
    ck_assert_int_eq(g_hook_calls, 11);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(timeline_dropped(), 1); /* the hook's kernel did not fit */
    ck_assert_str_eq(ev[0].name, "a name longer than the thirty-o");
    ck_assert_int_eq(ev[1].kind, TIMELINE_SYNC);
    ck_assert(!ev[2].gpu && ev[2].kind == TIMELINE_MARK);
    ck_assert_str_eq(timeline_kind_name(TIMELINE_COPY_D2H), "copy_d2h");
    /* Between recordings nothing is kept; the hooks are reset for the next test. */
    timeline_add(TIMELINE_LAUNCH, false, "late", 0, 0);
    ck_assert_str_eq(ev[0].name, "a name longer than the thirty-o");
    timeline_gpu_hooks(NULL, NULL);
    ck_assert_int_eq(timeline_begin(ev, 1), ERR_OK);
    timeline_add(TIMELINE_KERNEL, true, "k", 0.5, 0.25);
    ck_assert_int_eq(timeline_end(&n), ERR_OK);
    ck_assert(n == 1 && ev[0].end == ev[0].start); /* an end before its start is clamped */
}
END_TEST

Suite *cpuinfo_suite(void)
{
    Suite *s = suite_create("cpuinfo");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, test_cpuinfo_hybrid);
    tcase_add_test(tc, test_cpuinfo_two_sockets_and_arm);
    tcase_add_test(tc, test_cpuinfo_this_machine);
    suite_add_tcase(s, tc);
    return s;
}

Suite *misc_suite(void)
{
    Suite *s = suite_create("misc");
    TCase *tc = tcase_create("timer_plot");
    tcase_add_test(tc, test_timer_format_and_clock);
    tcase_add_test(tc, test_plot_png_or_clear_error);
    tcase_add_test(tc, test_plot_saves_its_png_and_touches_nothing_else);
    tcase_add_test(tc, test_counters_trace_and_test_clock);
    tcase_add_test(tc, test_timeline_records_in_order);
    tcase_add_test(tc, test_iris_data_and_network);
    suite_add_tcase(s, tc);
    return s;
}
