/**
 * @file fileio.h
 * @brief Files read without blocking and saved without writing through anything: one
 *        reader entry point and one save function, which every reader and writer of the
 *        workbook goes through.
 *
 * **Reading.** fileio_open_read() opens a path with `O_RDONLY | O_NONBLOCK |
 * O_NOCTTY | O_CLOEXEC`, so that opening a FIFO with no writer, or a terminal,
 * neither waits nor takes it over; `fstat()`s what it opened and refuses anything
 * but a regular file (a FIFO, a socket, a device, a directory) with a message
 * naming the file and what it is (fileio_kind()); clears `O_NONBLOCK`; and refuses
 * a file over the caller's size limit before reading a byte. fileio_read_max()
 * and fileio_read() read a whole file through it. No reader of the workbook reads a
 * stream: a checkpoint, a config, a CSV file, a fixture, a plot's data and /proc's
 * files (regular files that say their size is 0) all go through it, and a file
 * that grows past the limit while it is read is refused all the same.
 *
 * **Saving.** fileio_save() is the one function through which everything the
 * workbook writes goes (checkpoints, configs, histories, CSV and plot data, the
 * grader's results): the data goes to a new temporary file in the target's folder,
 * created with `O_CREAT | O_EXCL | O_NOFOLLOW` under an unpredictable name, so a
 * link planted there is never followed; the target, if it exists, must be a
 * regular file (a symbolic link, a FIFO, a device or a directory there is refused
 * and named, and left as it was); the data is `fsync()`ed, renamed over the target,
 * and the folder is `fsync()`ed, so that after a power cut the target holds the old
 * contents or the new ones. On any failure the temporary file is removed and the
 * target is untouched; the one exception is a folder that cannot be synced after
 * the rename, which is reported as such (the new contents are in place).
 * Nothing is ever opened at the target's path: a save writes to its own new file
 * and renames it, and a rename replaces a name, never what a link points to.
 *
 * **What the user set stays.** The new file gets the old file's permissions, and its
 * owner and group where the process may set them (a group it cannot keep gets no
 * permissions), before a byte is written: a 0600 checkpoint stays 0600. A target whose
 * mode gives this user no write permission (0444, say) is refused with a message, as
 * `cp` refuses it, root's saves included; fileio_save_with() and
 * ::FILEIO_REPLACE_READONLY replace it all the same, for a program whose user asked for
 * that explicitly. No writer of the workbook passes it: each refuses a read-only target.
 * A limit on the size of files (`ulimit -f`) is a write error a save reports: the first
 * save sets SIGXFSZ, if it was left at its default, to be ignored.
 */
#ifndef WB_FILEIO_H
#define WB_FILEIO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "lib/core/err.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The size limit of fileio_read(): 256 MiB. */
#define FILEIO_MAX_DEFAULT ((size_t)256 << 20)

/**
 * @brief What a file of mode @p mode (`st_mode` of `stat()`) is, for a message: "a
 *        regular file", "a directory", "a FIFO (named pipe)", "a socket", "a character
 *        device", "a block device", "a symbolic link", or "an unknown kind of file".
 */
const char *fileio_kind(mode_t mode);

/**
 * @brief Open @p path for reading, without blocking, if it is a regular file of at most
 *        @p max bytes: the one way the workbook opens a file to read it.
 *
 * Opens with `O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC`, `fstat()`s the
 * descriptor, refuses anything that is not a regular file with ::ERR_IO and
 * `PATH: cannot read this WHAT: it is a FIFO (named pipe), not a regular file`
 * (@p what names the kind of file expected: "experiment config", "checkpoint"),
 * then clears `O_NONBLOCK` and refuses a file larger than @p max with
 * ::ERR_FORMAT `PATH: 12345 bytes, more than the 100 bytes a WHAT may have (is it
 * the right file?)`. A file that cannot be opened is ::ERR_IO `PATH: cannot open:
 * REASON`. On success @p *fd is the open descriptor (close() it) and @p *size the
 * size `fstat()` gave (0 for /proc's files, which are read to their end all the
 * same); on failure @p *fd is -1.
 */
WB_MUST_CHECK int fileio_open_read(const char *path, size_t max, const char *what, int *fd,
                                   size_t *size);

/**
 * @brief Read what is left of @p fd (opened by fileio_open_read() for @p path) into a
 *        new zero-terminated buffer, at most @p max bytes.
 *
 * @p size is what fileio_open_read() gave, the first guess of the buffer's size.
 * More than @p max bytes is ::ERR_FORMAT with the message of fileio_open_read()
 * (`PATH: longer than the ...` when the file grew while it was read). @p fd stays
 * open. On success @p *text holds the bytes (free() it) and @p *len their number;
 * on failure @p *text is NULL (::ERR_IO `PATH: cannot read: REASON`, or ::ERR_NOMEM).
 */
WB_MUST_CHECK int fileio_read_fd(int fd, const char *path, size_t size, size_t max,
                                 const char *what, char **text, size_t *len);

/**
 * @brief Read all of @p path, a regular file of at most @p max bytes, into a new
 *        zero-terminated buffer.
 *
 * fileio_open_read(), then fileio_read_fd(): a FIFO, a socket, a device or a
 * directory is refused before a byte is read, and so is a file over the limit
 * (the message names @p what: `/tmp/x: cannot read this experiment config: it is a
 * FIFO (named pipe), not a regular file`). On success @p *text holds the contents
 * (free() it) and @p *len their size in bytes; on failure @p *text is NULL.
 */
WB_MUST_CHECK int fileio_read_max(const char *path, size_t max, const char *what, char **text,
                                  size_t *len);

/**
 * @brief Read all of @p path into a new zero-terminated buffer, at most
 *        ::FILEIO_MAX_DEFAULT bytes.
 *
 * fileio_read_max() with that limit and "file" for what the file is.
 */
WB_MUST_CHECK int fileio_read(const char *path, char **text, size_t *len);

/**
 * @brief What fileio_save() calls to write the contents: write them to @p f (a new
 *        temporary file) with stdio and return ::ERR_OK, or an error it has set with
 *        err_set() to give up (the save then removes the file and returns that code).
 *
 * The save checks @p f for write errors itself: a writer need not check each
 * fprintf(). It must not close @p f.
 */
typedef int (*FileioWriter)(FILE *f, void *ctx);

/**
 * @brief Save to @p path what @p write writes, through a new temporary file renamed over
 *        it: the one function every writer of the workbook goes through.
 *
 * In order: if @p path exists it must be a regular file, else ::ERR_IO `PATH: cannot
 * save the WHAT here: it is a symbolic link, not a regular file (a save replaces
 * only a regular file: remove it or choose another path)`, and one whose mode gives this
 * user no write permission is refused (fileio_save_with()); a temporary file
 * `NAME.tmp-PID-XXXXXXXX` (eight random hex digits) is created in the same folder
 * with `O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC`, mode 0666 less the
 * umask (a name that is taken, by a planted link or anything else, is never
 * opened: another name is drawn, up to 100 times), and given the old file's owner,
 * group and permissions as far as the process may; @p write(f, @p ctx) writes it;
 * it is flushed and `fsync()`ed; the target is looked at again (a link, FIFO,
 * device or directory that appeared meanwhile is refused); it is renamed over the
 * target; and the folder is opened and `fsync()`ed (a file system that cannot sync
 * a folder, EINVAL, is taken as done). After a success the temporary files of
 * earlier saves of @p path whose process is gone (a save killed half-way) are
 * removed. Failures are ::ERR_IO with `PATH: cannot save the WHAT: STEP failed:
 * REASON` and a hint where one helps (`(does the folder exist?)`), or the writer's
 * own code and message; each removes the temporary file and leaves the target as
 * it was. The exception: a folder that cannot be synced after the rename is
 * ::ERR_IO `PATH: saved, but syncing the folder DIR to disk failed: ...`.
 */
WB_MUST_CHECK int fileio_save(const char *path, const char *what, FileioWriter write, void *ctx);

/**
 * @brief fileio_save()'s option: replace a target whose mode gives this user no write
 *        permission, instead of refusing it.
 *
 * Only for a program whose user asked for it in so many words (a `--force`); the new file
 * keeps the old one's read-only mode.
 */
#define FILEIO_REPLACE_READONLY 1u

/**
 * @brief fileio_save() with options: @p flags is 0 or ::FILEIO_REPLACE_READONLY.
 *
 * With 0 it is fileio_save(), which refuses a read-only target with ::ERR_IO `PATH: cannot
 * save the WHAT: the file is read-only for this user (mode 0444); a save does not replace
 * it (make it writable with chmod u+w, remove it, or save elsewhere)`.
 */
WB_MUST_CHECK int fileio_save_with(const char *path, const char *what, unsigned flags,
                                   FileioWriter write, void *ctx);

/**
 * @brief fileio_save() of the @p len bytes at @p data.
 */
WB_MUST_CHECK int fileio_save_bytes(const char *path, const char *what, const void *data,
                                    size_t len);

/**
 * @brief Whether a save to @p path could start now, checked before long work whose result
 *        goes there: the target is absent or a regular file, and a temporary file can be
 *        created in its folder (one is, and removed at once).
 *
 * Returns what fileio_save() would have returned at those steps; writes nothing at
 * @p path.
 */
WB_MUST_CHECK int fileio_save_check(const char *path, const char *what);

/**
 * @brief A stream for a writer that writes bit by bit (rows as they are measured): what
 *        is written to it is kept in memory, and `fclose()` saves it to @p path through
 *        fileio_save().
 *
 * Returns NULL, with the error set, when memory runs out. `fclose()` returns 0 when
 * the save succeeded and EOF otherwise, with the save's message in err_message().
 * Nothing is created at @p path before `fclose()`.
 */
FILE *fileio_save_stream(const char *path, const char *what);

/**
 * @brief For tests: the system calls the save makes, to count them or make them fail.
 *
 * A NULL field uses the system's own; fileio_set_hooks(NULL) restores all of them.
 */
typedef struct FileioHooks {
    /** Called instead of `fsync()`: on the temporary file, then on the folder. */
    int (*fsync)(int fd);
    /** Called for the random part of a temporary file's name (8 hex digits of it). */
    uint32_t (*random)(void);
} FileioHooks;

/** @brief For tests: set the hooks of fileio_save() (NULL: none). Not thread-safe. */
void fileio_set_hooks(const FileioHooks *hooks);

#ifdef __cplusplus
}
#endif

#endif /* WB_FILEIO_H */
