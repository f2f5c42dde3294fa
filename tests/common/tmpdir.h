/* tmpdir.h: a fresh folder under /tmp for a test's files, and rm -rf without a shell
 * (a test may have changed PATH, or made a folder unreadable). */
#ifndef WB_TEST_TMPDIR_H
#define WB_TEST_TMPDIR_H

#include <stddef.h>

/* Make /tmp/PREFIX-XXXXXX and write its path into dir (size bytes); fails the test if
 * it cannot. */
void tmpdir_make(char *dir, size_t size, const char *prefix);

/* DIR/NAME, in one of four static buffers that take turns (so that four can be used at
 * once); fails the test if it does not fit. */
const char *tmpdir_join(const char *dir, const char *name);

/* Write n bytes of data to path (made or replaced); fails the test if it cannot. */
void tmpdir_write(const char *path, const void *data, size_t n);

/* Remove dir and everything below it, making folders writable first; 0 when all went. */
int tmpdir_remove(const char *dir);

#endif
