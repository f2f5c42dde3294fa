/**
 * @file fileio.h
 * @brief Files read without blocking: one reader entry point, which every reader of the
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

 */
#ifndef WB_FILEIO_H
#define WB_FILEIO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "lib/core/err.h"

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

#endif /* WB_FILEIO_H */
