/**
 * @file fileio.h
 * @brief Reading whole files, with errors that name the file.
 */
#ifndef WB_FILEIO_H
#define WB_FILEIO_H

#include <stddef.h>

#include "lib/core/err.h"

/**
 * @brief Read all of @p path into a new zero-terminated buffer.
 *
 * On success @p *text holds the contents (free() it) and @p *len their size
 * in bytes. Returns ::ERR_IO with "path: cannot open: reason" or ::ERR_NOMEM,
 * and leaves @p *text NULL, on failure. Works for /proc files, whose size is
 * not known in advance.
 */
WB_MUST_CHECK int fileio_read(const char *path, char **text, size_t *len);

#endif /* WB_FILEIO_H */
