/**
 * @file fileio.h
 * @brief Reading whole files, with errors that name the file and a limit on their size.
 */
#ifndef WB_FILEIO_H
#define WB_FILEIO_H

#include <stddef.h>

#include "lib/core/err.h"

/** The size limit of fileio_read(): 256 MiB. */
#define FILEIO_MAX_DEFAULT ((size_t)256 << 20)

/**
 * @brief Read all of @p path into a new zero-terminated buffer, at most
 *        ::FILEIO_MAX_DEFAULT bytes.
 *
 * fileio_read_max() with that limit and "file" for what the file is.
 */
WB_MUST_CHECK int fileio_read(const char *path, char **text, size_t *len);

/**
 * @brief Read all of @p path, at most @p max bytes, into a new zero-terminated buffer.
 *
 * On success @p *text holds the contents (free() it) and @p *len their size
 * in bytes. A regular file larger than @p max is refused before anything is
 * read; anything else (a pipe, a device such as /dev/zero, a /proc file, whose
 * size is not known in advance) is read until its end or until it has given
 * more than @p max bytes, so that no path can make the program use more memory
 * than that. @p what names the kind of file in that message: `/dev/zero: more
 * than 1048576 bytes, more than an experiment config may have (is it the right
 * file?)`. Returns ::ERR_IO with "path: cannot open: reason" (or cannot read),
 * ::ERR_FORMAT for a file over the limit, or ::ERR_NOMEM, and leaves @p *text
 * NULL, on failure.
 */
WB_MUST_CHECK int fileio_read_max(const char *path, size_t max, const char *what, char **text,
                                  size_t *len);

#endif /* WB_FILEIO_H */
