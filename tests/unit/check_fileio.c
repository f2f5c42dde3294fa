/* check_fileio.c: the one reader entry point and the one save (lib/core/fileio.h), and the
 * escapes every message shows names with (lib/core/err.h): what is not a regular file is
 * refused at once, naming what it is; a save writes only its own new file and its target,
 * refuses a target that is not a regular file, syncs the file and its folder, and on any
 * failure leaves the target as it was. */
#define _GNU_SOURCE /* mknod's makedev */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
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

static void remove_dir(void)
{
    fileio_set_hooks(NULL);
    ck_assert_int_eq(tmpdir_remove(g_dir), 0);
}

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

static int count_entries(void)
{
    DIR *d = opendir(g_dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
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

/* ---- saving ---------------------------------------------------------------------------- */

/* A save of "new" to path must be refused, naming path and what is there, and leave path
 * (and whatever it points to) as it was, with nothing else left in the folder. */
static void assert_save_refused(const char *path, const char *kind)
{
    int before = count_entries();
    ck_assert_int_eq(fileio_save_bytes(path, "test file", "new", 3), ERR_IO);
    char want[300];
    snprintf(want, sizeof want, "%s: cannot save: it is %s, not a regular file", path, kind);
    ck_assert_msg(strstr(err_message(), want), "expected \"%s\" in: %s", want, err_message());
    ck_assert_int_eq(count_entries(), before);
    /* The same through the stream writers use, and the check before long work. */
    FILE *f = fileio_save_stream(path, "test file");
    ck_assert_ptr_nonnull(f);
    fputs("new", f);
    ck_assert_int_eq(fclose(f), EOF);
    ck_assert_ptr_nonnull(strstr(err_message(), want));
    ck_assert_int_eq(fileio_save_check(path, "test file"), ERR_IO);
    ck_assert_ptr_nonnull(strstr(err_message(), want));
    ck_assert_int_eq(count_entries(), before);
}

START_TEST(test_a_save_replaces_only_a_regular_file)
{
    /* A symlink at the target: refused; the link and the file it points to stay. */
    const char *victim = in_dir("victim"), *link = in_dir("link");
    tmpdir_write(victim, "old", 3);
    ck_assert_int_eq(symlink(victim, link), 0);
    assert_save_refused(link, "a symbolic link");
    struct stat sb;
    ck_assert_int_eq(lstat(link, &sb), 0);
    ck_assert(S_ISLNK(sb.st_mode));
    char *text = contents(victim);
    ck_assert_str_eq(text, "old");
    free(text);
    /* A dangling link too (a save would not create the file it names). */
    const char *dangling = in_dir("dangling");
    ck_assert_int_eq(symlink(in_dir("nowhere"), dangling), 0);
    assert_save_refused(dangling, "a symbolic link");
    ck_assert_int_ne(access(in_dir("nowhere"), F_OK), 0);
    /* A FIFO: refused at once (no reader waits), and still a FIFO. */
    const char *fifo = in_dir("fifo");
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    double t0 = now();
    assert_save_refused(fifo, "a FIFO (named pipe)");
    ck_assert(now() - t0 < 1.0);
    ck_assert_int_eq(lstat(fifo, &sb), 0);
    ck_assert(S_ISFIFO(sb.st_mode));
    /* A folder. */
    const char *folder = in_dir("folder");
    ck_assert_int_eq(mkdir(folder, 0700), 0);
    assert_save_refused(folder, "a directory");
    /* A regular file is replaced. */
    ck_assert_int_eq(fileio_save_bytes(victim, "test file", "new", 3), ERR_OK);
    text = contents(victim);
    ck_assert_str_eq(text, "new");
    free(text);
    /* /dev/full, /dev/null: devices, refused (as root, the rename would replace them). */
    ck_assert_int_eq(fileio_save_bytes("/dev/full", "test file", "x", 1), ERR_IO);
    ck_assert_ptr_nonnull(strstr(err_message(), "/dev/full: cannot save: it is a character device"));
    ck_assert_int_eq(stat("/dev/full", &sb), 0);
    ck_assert(S_ISCHR(sb.st_mode));
}
END_TEST

/* Device nodes in a scratch folder: made with mknod, which needs root (CI runs as root). */
START_TEST(test_a_save_refuses_device_nodes)
{
    if (geteuid() != 0) {
        printf("note: not root, so the device-node saves were not tried (mknod needs root)\n");
        return;
    }
    const char *chr = in_dir("null-like"), *blk = in_dir("loop-like");
    ck_assert_int_eq(mknod(chr, S_IFCHR | 0600, makedev(1, 3)), 0); /* as /dev/null */
    ck_assert_int_eq(mknod(blk, S_IFBLK | 0600, makedev(7, 200)), 0);
    assert_save_refused(chr, "a character device");
    assert_save_refused(blk, "a block device");
    struct stat sb;
    ck_assert_int_eq(lstat(chr, &sb), 0);
    ck_assert(S_ISCHR(sb.st_mode));
    ck_assert_int_eq(lstat(blk, &sb), 0);
    ck_assert(S_ISBLK(sb.st_mode));
}
END_TEST

/* The random part of the temporary names, for the planted-link test: 1, 2, 3, ... */
static uint32_t g_next;
static uint32_t counting_random(void) { return ++g_next; }
static uint32_t stuck_random(void) { return 1; }

START_TEST(test_a_planted_temporary_link_is_never_followed)
{
    const char *target = in_dir("ckpt"), *victim = in_dir("victim");
    tmpdir_write(target, "old", 3);
    tmpdir_write(victim, "precious", 8);
    /* Links where the save's first temporary name will be, and where the old, predictable
     * name was (PATH.tmp-PID). */
    char planted[400], legacy[400];
    snprintf(planted, sizeof planted, "%s.tmp-%ld-00000001", target, (long)getpid());
    snprintf(legacy, sizeof legacy, "%s.tmp-%ld", target, (long)getpid());
    ck_assert_int_eq(symlink(victim, planted), 0);
    ck_assert_int_eq(symlink(victim, legacy), 0);
    g_next = 0;
    fileio_set_hooks(&(FileioHooks){.random = counting_random});
    ck_assert_msg(fileio_save_bytes(target, "test file", "new", 3) == ERR_OK, "%s",
                  err_message());
    ck_assert_uint_eq(g_next, 2); /* the first name was taken: the second was used */
    char *text = contents(target);
    ck_assert_str_eq(text, "new");
    free(text);
    text = contents(victim);
    ck_assert_str_eq(text, "precious");
    free(text);
    struct stat sb;
    ck_assert_int_eq(lstat(planted, &sb), 0);
    ck_assert(S_ISLNK(sb.st_mode));
    ck_assert_int_eq(lstat(target, &sb), 0);
    ck_assert(S_ISREG(sb.st_mode));
    /* Every name taken: refused, nothing followed, nothing changed. */
    fileio_set_hooks(&(FileioHooks){.random = stuck_random});
    ck_assert_int_eq(fileio_save_bytes(target, "test file", "newer", 5), ERR_IO);
    ck_assert_ptr_nonnull(strstr(err_message(), "100 temporary names"));
    text = contents(target);
    ck_assert_str_eq(text, "new");
    free(text);
    text = contents(victim);
    ck_assert_str_eq(text, "precious");
    free(text);
}
END_TEST

/* The fsync hook: it records what it was called on, and whether the target already had
 * the new contents then; it fails the call fail_at (1: the file, 2: the folder). */
static int g_syncs, g_fail_at;
static mode_t g_synced[4];
static bool g_renamed_at[4];
static const char *g_target;

static int recording_fsync(int fd)
{
    struct stat sb;
    fstat(fd, &sb);
    char *text = contents(g_target);
    if (g_syncs < 4) {
        g_synced[g_syncs] = sb.st_mode & S_IFMT;
        g_renamed_at[g_syncs] = !strcmp(text, "new");
    }
    free(text);
    if (++g_syncs == g_fail_at) {
        errno = EIO;
        return -1;
    }
    return fsync(fd);
}

START_TEST(test_the_file_and_its_folder_are_synced)
{
    g_target = in_dir("synced");
    tmpdir_write(g_target, "old", 3);
    g_syncs = 0, g_fail_at = 0;
    fileio_set_hooks(&(FileioHooks){.fsync = recording_fsync});
    ck_assert_int_eq(fileio_save_bytes(g_target, "test file", "new", 3), ERR_OK);
    ck_assert_int_eq(g_syncs, 2);
    ck_assert_int_eq(g_synced[0], S_IFREG); /* the temporary file, before the rename */
    ck_assert(!g_renamed_at[0]);
    ck_assert_int_eq(g_synced[1], S_IFDIR); /* its folder, after it */
    ck_assert(g_renamed_at[1]);

    /* The file's sync fails: the save fails, the target keeps its old contents, and the
     * temporary file is gone. */
    tmpdir_write(g_target, "old", 3);
    g_syncs = 0, g_fail_at = 1;
    ck_assert_int_eq(fileio_save_bytes(g_target, "test file", "new", 3), ERR_IO);
    ck_assert_msg(strstr(err_message(), ": cannot save: flushing ") &&
                      strstr(err_message(), " to disk failed: Input/output error"),
                  "%s", err_message());
    char *text = contents(g_target);
    ck_assert_str_eq(text, "old");
    free(text);
    ck_assert_int_eq(count_entries(), 1);

    /* The folder's sync fails: the new file is in place, and the message says it may not
     * survive a power cut. */
    g_syncs = 0, g_fail_at = 2;
    ck_assert_int_eq(fileio_save_bytes(g_target, "test file", "new", 3), ERR_IO);
    ck_assert_ptr_nonnull(strstr(err_message(), ": saved, but syncing the folder "));
    ck_assert_int_eq(count_entries(), 1);

    /* Every writer goes through the same save: a checkpoint, a config, a CSV stream. */
    g_syncs = 0, g_fail_at = 0;
    const float v[2] = {1, 2};
    StTensor t = {"w", DTYPE_F32, 1, {2}, v, sizeof v};
    ck_assert_int_eq(safetensors_save(in_dir("w.safetensors"), &t, 1, NULL, 0), ERR_OK);
    ck_assert_int_eq(g_syncs, 2);
    FILE *f = fileio_save_stream(in_dir("rows.csv"), "CSV file");
    fputs("a,b\n1,2\n", f);
    ck_assert_int_eq(g_syncs, 2); /* nothing before it is closed */
    ck_assert_int_ne(access(in_dir("rows.csv"), F_OK), 0);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_int_eq(g_syncs, 4);
    text = contents(in_dir("rows.csv"));
    ck_assert_str_eq(text, "a,b\n1,2\n");
    free(text);
}
END_TEST

/* A writer that gives up, or a write that fails, removes the temporary file. */
static int give_up(FILE *f, void *ctx)
{
    (void)ctx;
    fputs("half", f);
    return err_set(ERR_NUMERIC, "the writer found a NaN");
}

START_TEST(test_a_failed_save_leaves_only_the_old_file)
{
    const char *target = in_dir("kept");
    tmpdir_write(target, "old", 3);
    ck_assert_int_eq(fileio_save(target, "test file", give_up, NULL), ERR_NUMERIC);
    ck_assert_str_eq(err_message(), "the writer found a NaN");
    char *text = contents(target);
    ck_assert_str_eq(text, "old");
    free(text);
    ck_assert_int_eq(count_entries(), 1);
    /* No folder, a path that names a folder: said, and nothing made. */
    ck_assert_int_eq(fileio_save_bytes(in_dir("no/such"), "test file", "x", 1), ERR_IO);
    ck_assert_ptr_nonnull(strstr(err_message(), "(does the folder exist?)"));
    ck_assert_int_eq(fileio_save_bytes(in_dir("sub/"), "test file", "x", 1), ERR_ARG);
    ck_assert_int_eq(fileio_save_check(target, "test file"), ERR_OK);
    ck_assert_int_eq(count_entries(), 1);
}
END_TEST

/* ---- what the user set on the old file ----------------------------------------------- */

static mode_t mode_of(const char *path)
{
    struct stat sb;
    ck_assert_int_eq(stat(path, &sb), 0);
    return sb.st_mode & 07777;
}

/* A save keeps the old file's permissions (a 0600 checkpoint stays 0600), and its owner and
 * group where the process may set them; a new file gets 0666 less the umask. */
START_TEST(test_a_save_keeps_the_old_files_mode)
{
    const char *target = in_dir("ckpt");
    const mode_t modes[] = {0600, 0640, 0604, 0751};
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
        tmpdir_write(target, "old", 3);
        ck_assert_int_eq(chmod(target, modes[i]), 0);
        ck_assert_msg(fileio_save_bytes(target, "test file", "new", 3) == ERR_OK, "%s", err_message());
        ck_assert_msg(mode_of(target) == modes[i], "mode %04o came back %04o", (unsigned)modes[i],
                      (unsigned)mode_of(target));
        FILE *f = fileio_save_stream(target, "test file");
        fputs("newer", f);
        ck_assert_int_eq(fclose(f), 0);
        ck_assert_uint_eq(mode_of(target), modes[i]);
    }
    ck_assert_int_eq(unlink(target), 0);
    mode_t mask = umask(022);
    ck_assert_int_eq(fileio_save_bytes(target, "test file", "new", 3), ERR_OK);
    umask(mask);
    ck_assert_uint_eq(mode_of(target), 0644);
    if (geteuid() != 0) return; /* the owner and group below: root may set any */
    ck_assert_int_eq(chown(target, 12345, 23456), 0);
    ck_assert_int_eq(chmod(target, 0640), 0);
    ck_assert_int_eq(fileio_save_bytes(target, "test file", "new", 3), ERR_OK);
    struct stat sb;
    ck_assert_int_eq(stat(target, &sb), 0);
    ck_assert_uint_eq(sb.st_uid, 12345);
    ck_assert_uint_eq(sb.st_gid, 23456);
    ck_assert_uint_eq(sb.st_mode & 07777, 0640);
}
END_TEST

/* A user who may not keep the old file's group: the new file is theirs, and that group's
 * permissions are not given to their own group. (Run as nobody, from root.) */
START_TEST(test_a_group_that_cannot_be_kept_gets_no_permissions)
{
    if (geteuid() != 0) return; /* it needs a second user */
    const char *target = in_dir("shared.csv");
    tmpdir_write(target, "old", 3);
    ck_assert_int_eq(chmod(target, 0666), 0);
    ck_assert_int_eq(chmod(g_dir, 0777), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0) _exit(3);
        _exit(fileio_save_bytes(target, "test file", "new", 3) == ERR_OK ? 0 : 4);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the save as nobody: status %d",
                  status);
    struct stat sb;
    ck_assert_int_eq(stat(target, &sb), 0);
    ck_assert_uint_eq(sb.st_uid, 65534);
    ck_assert_uint_eq(sb.st_mode & 07777, 0606);
    ck_assert_int_eq(chmod(g_dir, 0700), 0);
}
END_TEST

static int put_new(FILE *f, void *ctx)
{
    (void)ctx;
    fputs("new", f);
    return ERR_OK;
}

/* A file without write permission is refused, as cp refuses it (root included), and left as
 * it was; FILEIO_REPLACE_READONLY replaces it, keeping its mode. */
START_TEST(test_a_read_only_target_is_refused)
{
    const char *target = in_dir("best.safetensors");
    tmpdir_write(target, "old", 3);
    ck_assert_int_eq(chmod(target, 0444), 0);
    ck_assert_int_eq(fileio_save_bytes(target, "checkpoint", "new", 3), ERR_IO);
    ck_assert_msg(strstr(err_message(), "best.safetensors: cannot save the checkpoint: the file is "
                                        "read-only for this user (mode 0444)"),
                  "%s", err_message());
    ck_assert_int_eq(fileio_save_check(target, "checkpoint"), ERR_IO);
    FILE *f = fileio_save_stream(target, "checkpoint");
    fputs("new", f);
    ck_assert_int_eq(fclose(f), EOF);
    char *text = contents(target);
    ck_assert_str_eq(text, "old");
    free(text);
    ck_assert_uint_eq(mode_of(target), 0444);
    ck_assert_int_eq(count_entries(), 1);
    ck_assert_msg(fileio_save_with(target, "checkpoint", FILEIO_REPLACE_READONLY, put_new, NULL) ==
                      ERR_OK,
                  "%s", err_message());
    text = contents(target);
    ck_assert_str_eq(text, "new");
    free(text);
    ck_assert_uint_eq(mode_of(target), 0444);
    /* Write permission for the group only, and this user the owner: refused too. */
    ck_assert_int_eq(chmod(target, 0464), 0);
    ck_assert_int_eq(fileio_save_bytes(target, "checkpoint", "x", 1), ERR_IO);
}
END_TEST

/* ulimit -f: the write fails (EFBIG), the save says so and leaves the old file; the process
 * is not killed by SIGXFSZ. */
START_TEST(test_a_file_size_limit_is_a_reported_error)
{
    const char *target = in_dir("big.csv");
    tmpdir_write(target, "old", 3);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        struct rlimit lim = {1000, 1000};
        if (setrlimit(RLIMIT_FSIZE, &lim) != 0) _exit(3);
        static char data[100000];
        int rc = fileio_save_bytes(target, "test file", data, sizeof data);
        _exit(rc == ERR_IO && strstr(err_message(), "File too large") ? 0 : 4);
    }
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "the save over ulimit -f: %s %d (0 is a reported error)",
                  WIFSIGNALED(status) ? "killed by signal" : "status",
                  WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    char *text = contents(target);
    ck_assert_str_eq(text, "old");
    free(text);
    ck_assert_int_eq(count_entries(), 1);
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
    TCase *tc2 = tcase_create("save");
    tcase_add_checked_fixture(tc2, make_dir, remove_dir);
    tcase_set_timeout(tc2, 5);
    tcase_add_test(tc2, test_a_save_replaces_only_a_regular_file);
    tcase_add_test(tc2, test_a_save_refuses_device_nodes);
    tcase_add_test(tc2, test_a_planted_temporary_link_is_never_followed);
    tcase_add_test(tc2, test_the_file_and_its_folder_are_synced);
    tcase_add_test(tc2, test_a_failed_save_leaves_only_the_old_file);
    tcase_add_test(tc2, test_a_save_keeps_the_old_files_mode);
    tcase_add_test(tc2, test_a_group_that_cannot_be_kept_gets_no_permissions);
    tcase_add_test(tc2, test_a_read_only_target_is_refused);
    tcase_add_test(tc2, test_a_file_size_limit_is_a_reported_error);
    suite_add_tcase(s, tc2);
    TCase *tc3 = tcase_create("shown");
    tcase_add_test(tc3, test_escapes_show_every_character);
    tcase_add_test(tc3, test_numtext_reads_the_literal);
    suite_add_tcase(s, tc3);
    return s;
}
