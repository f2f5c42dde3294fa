/* tmpdir.c: see tmpdir.h. */
#define _XOPEN_SOURCE 700 /* mkdtemp, lstat */
#include "tmpdir.h"

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void tmpdir_make(char *dir, size_t size, const char *prefix)
{
    snprintf(dir, size, "/tmp/%s-XXXXXX", prefix);
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

const char *tmpdir_join(const char *dir, const char *name)
{
    static char buf[4][320];
    static int k;
    char *p = buf[k++ % 4];
    ck_assert_int_lt(snprintf(p, sizeof buf[0], "%s/%s", dir, name), (int)sizeof buf[0]);
    return p;
}

void tmpdir_write(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot write %s", path);
    ck_assert_uint_eq(fwrite(data, 1, n, f), n);
    ck_assert_int_eq(fclose(f), 0);
}

int tmpdir_remove(const char *dir)
{
    chmod(dir, 0755); /* a test may have taken the rights away */
    DIR *d = opendir(dir);
    if (!d) return -1;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        char path[512];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (lstat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            if (tmpdir_remove(path) != 0) rc = -1;
        } else if (unlink(path) != 0) {
            rc = -1;
        }
    }
    closedir(d);
    return rmdir(dir) == 0 ? rc : -1;
}
