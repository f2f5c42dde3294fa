/* check_fileio.c: the one reader entry point (lib/core/fileio.h), the escapes every
 * message shows names with (lib/core/err.h) and numbers read as written
 * (lib/core/numtext.h): what is not a regular file is refused at once, naming what it is. */
#define _GNU_SOURCE
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/core/err.h"
#include "lib/core/fileio.h"
#include "lib/core/numtext.h"
#include "lib/io/safetensors.h"
#include "lib/train/data.h"
#include "lib/train/experiment.h"
#include "lib/train/iris.h"
#include "suites.h"
#include "tests/common/tmpdir.h"

static char g_dir[64];

static void make_dir(void) { tmpdir_make(g_dir, sizeof g_dir, "wb-fileio"); }

static void remove_dir(void) { ck_assert_int_eq(tmpdir_remove(g_dir), 0); }

static const char *in_dir(const char *name) { return tmpdir_join(g_dir, name); }

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The whole file at path ("" when it cannot be read). */
static char *contents(const char *path)
{
    char *text;
    size_t len;
    if (fileio_read(path, &text, &len) != ERR_OK) return strdup("");
    return text;
}

/* ---- reading: what is not a regular file ----------------------------------------------- */

START_TEST(test_kinds_are_named)
{
    ck_assert_str_eq(fileio_kind(S_IFREG | 0644), "a regular file");
    ck_assert_str_eq(fileio_kind(S_IFDIR), "a directory");
    ck_assert_str_eq(fileio_kind(S_IFIFO), "a FIFO (named pipe)");
    ck_assert_str_eq(fileio_kind(S_IFSOCK), "a socket");
    ck_assert_str_eq(fileio_kind(S_IFCHR), "a character device");
    ck_assert_str_eq(fileio_kind(S_IFBLK), "a block device");
    ck_assert_str_eq(fileio_kind(S_IFLNK), "a symbolic link");
}
END_TEST

/* Each reader of the workbook, given path: it must refuse within a second, naming the file
 * and what it is. */
static void assert_every_reader_refuses(const char *path, const char *kind)
{
    char want[400];
    snprintf(want, sizeof want, "%s, not a regular file", kind);
    for (int r = 0; r < 4; r++) {
        double t0 = now();
        int rc;
        ExperimentConfig c;
        experiment_config_default(&c);
        Dataset train, test;
        SafeTensors *st = NULL;
        char *text = NULL;
        size_t len;
        switch (r) {
        case 0:
            rc = experiment_config_load(path, &c);
            break;
        case 1:
            rc = dataset_load_csv(path, iris_spec(), &train, &test);
            break;
        case 2:
            rc = safetensors_load(path, &st);
            break;
        default:
            rc = fileio_read(path, &text, &len);
            break;
        }
        double took = now() - t0;
        ck_assert_msg(rc == ERR_IO, "reader %d: %s gave %d: %s", r, path, rc, err_message());
        ck_assert_msg(strstr(err_message(), path) && strstr(err_message(), want),
                      "reader %d: expected %s and \"%s\" in: %s", r, path, want, err_message());
        ck_assert_msg(took < 1.0, "reader %d took %.2f s on %s", r, took, path);
        ck_assert_ptr_null(st);
        ck_assert_ptr_null(text);
    }
}

START_TEST(test_a_fifo_without_a_writer_is_refused_at_once)
{
    const char *fifo = in_dir("fifo");
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    assert_every_reader_refuses(fifo, "a FIFO (named pipe)");
}
END_TEST

/* A writer that has sent a few bytes and then stalls: the bytes are in the pipe, its end
 * never comes. */
START_TEST(test_a_fifo_whose_writer_stalls_is_refused_at_once)
{
    const char *fifo = in_dir("stalled");
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    int ready[2];
    ck_assert_int_eq(pipe(ready), 0);
    fflush(NULL);
    pid_t writer = fork();
    ck_assert_int_ge(writer, 0);
    if (writer == 0) {
        int fd = open(fifo, O_RDWR); /* does not wait for a reader (Linux) */
        if (fd < 0 || write(fd, "{\"epochs\":", 10) != 10 || write(ready[1], "r", 1) != 1)
            _exit(1);
        for (;;) pause();
    }
    char c;
    ck_assert_int_eq(read(ready[0], &c, 1), 1);
    assert_every_reader_refuses(fifo, "a FIFO (named pipe)");
    kill(writer, SIGKILL);
    waitpid(writer, NULL, 0);
    close(ready[0]);
    close(ready[1]);
}
END_TEST

START_TEST(test_sockets_folders_and_devices_are_refused)
{
    const char *sock = in_dir("sock");
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    ck_assert_uint_lt(strlen(sock), sizeof a.sun_path);
    memcpy(a.sun_path, sock, strlen(sock) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_every_reader_refuses(sock, "a socket");
    close(fd);
    assert_every_reader_refuses(g_dir, "a directory");
    assert_every_reader_refuses("/dev/null", "a character device");
    /* A link to a regular file is read: the reader looks at what it opened. */
    const char *file = in_dir("real.txt"), *link = in_dir("link.txt");
    tmpdir_write(file, "abc", 3);
    ck_assert_int_eq(symlink(file, link), 0);
    char *text = contents(link);
    ck_assert_str_eq(text, "abc");
    free(text);
}
END_TEST

/* The descriptor fileio_open_read() hands out blocks again (O_NONBLOCK cleared) and is not
 * inherited by programs the process starts. */
START_TEST(test_open_read_hands_out_a_plain_descriptor)
{
    const char *file = in_dir("plain.txt");
    tmpdir_write(file, "0123456789", 10);
    int fd = -2;
    size_t size = 0;
    ck_assert_int_eq(fileio_open_read(file, 100, "test file", &fd, &size), ERR_OK);
    ck_assert_uint_eq(size, 10);
    ck_assert_int_eq(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
    ck_assert_int_ne(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
    close(fd);
    ck_assert_int_eq(fileio_open_read(file, 9, "test file", &fd, &size), ERR_FORMAT);
    ck_assert_int_eq(fd, -1);
    ck_assert_int_eq(fileio_open_read(in_dir("none"), 9, "test file", &fd, &size), ERR_IO);
    ck_assert_ptr_nonnull(strstr(err_message(), ": cannot open: No such file or directory"));
}
END_TEST

/* ---- names and numbers as shown --------------------------------------------------------- */

START_TEST(test_escapes_show_every_character)
{
    char buf[200];
    /* Controls, bidi and format characters, a BOM, bytes that are not UTF-8; "é" as it is. */
    const char s[] = "a\nb\t\x1b[2J caf\xc3\xa9 \xe2\x80\xae \xe2\x80\x8b \xef\xbb\xbf \xff \xc2\x85 "
                     "\xf3\xa0\x80\x81\\";
    ck_assert_str_eq(err_escape(s, strlen(s), 200, buf, sizeof buf),
                     "a\\nb\\t\\x1b[2J caf\xc3\xa9 \\u202e \\u200b \\ufeff \\xff \\u0085 "
                     "\\U000e0001\\");
    ck_assert_str_eq(err_quote("say \"hi\"\\", 9, 100, buf, sizeof buf), "\"say \\\"hi\\\"\\\\\"");
    /* Cut between characters, with the length. */
    ck_assert_str_eq(err_escape("ab\xc3\xa9\xc3\xa9", 6, 3, buf, sizeof buf), "ab... (6 bytes)");
    ck_assert_str_eq(err_quote("abcdef", 6, 4, buf, sizeof buf), "\"abcd...\" (6 bytes)");
    ck_assert_uint_eq(err_plain_prefix("run\xe2\x80\xaex", 7), 3);
    ck_assert_uint_eq(err_plain_prefix("caf\xc3\xa9", 5), 5);
    /* Every message is passed through the same rules. */
    err_set(ERR_ARG, "name %s here", "ev\xe2\x80\xaeil\r");
    ck_assert_str_eq(err_message(), "name ev\\u202eil\\r here");
    err_context("loading \xe2\x81\xa6x");
    ck_assert_str_eq(err_message(), "loading \\u2066x: name ev\\u202eil\\r here");
    ck_assert(err_invisible(0x2066) && err_invisible(0xfeff) && err_invisible(0x200b) &&
              err_invisible(0x7f) && err_invisible(0x10fffe));
    ck_assert(!err_invisible('a') && !err_invisible(0xe9) && !err_invisible(0x4e2d));
}
END_TEST

START_TEST(test_numtext_reads_the_literal)
{
    NumText t;
    ck_assert(numtext_scan("10.000000000000000000001", 24, &t) && !t.whole && t.nonzero);
    ck_assert(numtext_scan("1e-400", 6, &t) && !t.whole && t.nonzero);
    ck_assert(numtext_scan("1e1", 3, &t) && t.whole && t.fits && t.value == 10);
    ck_assert(numtext_scan("1.50e1", 6, &t) && t.whole && t.value == 15);
    ck_assert(numtext_scan("-0", 2, &t) && t.negative && !t.nonzero && t.whole && t.value == 0);
    ck_assert(numtext_scan("0.000e99999999999999999999", 26, &t) && !t.nonzero && t.whole);
    ck_assert(numtext_scan("1e999999999999", 14, &t) && t.whole && !t.fits);
    ck_assert(numtext_scan("-9223372036854775808", 20, &t) && t.fits && t.value == INT64_MIN);
    ck_assert(numtext_scan("9223372036854775808", 19, &t) && t.whole && !t.fits);
    ck_assert(numtext_scan("+.5", 3, &t) && !t.whole && !t.negative);
    ck_assert(numtext_scan("5.", 2, &t) && t.whole && t.value == 5);
    ck_assert(numtext_scan("0x1p1", 5, &t) && t.hex);
    ck_assert(numtext_scan("-0X.8P1", 7, &t) && t.hex && t.negative);
    const char *bad[] = {"", "-", ".", "e5", "1e", "1e+", "inf", "nan", "1x", " 1", "1 ", "0x", "1..2"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        ck_assert_msg(!numtext_scan(bad[i], strlen(bad[i]), &t), "\"%s\" was read", bad[i]);
}
END_TEST

Suite *fileio_suite(void)
{
    Suite *s = suite_create("fileio");
    TCase *tc = tcase_create("read");
    tcase_add_checked_fixture(tc, make_dir, remove_dir);
    tcase_set_timeout(tc, 5); /* a reader that waits on a FIFO fails here, never hangs */
    tcase_add_test(tc, test_kinds_are_named);
    tcase_add_test(tc, test_a_fifo_without_a_writer_is_refused_at_once);
    tcase_add_test(tc, test_a_fifo_whose_writer_stalls_is_refused_at_once);
    tcase_add_test(tc, test_sockets_folders_and_devices_are_refused);
    tcase_add_test(tc, test_open_read_hands_out_a_plain_descriptor);
    suite_add_tcase(s, tc);
    TCase *tc3 = tcase_create("shown");
    tcase_add_test(tc3, test_escapes_show_every_character);
    tcase_add_test(tc3, test_numtext_reads_the_literal);
    suite_add_tcase(s, tc3);
    return s;
}
