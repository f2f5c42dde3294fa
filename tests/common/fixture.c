/* fixture.c: read the text fixtures written by tests/gen_fixtures.py. */
#define _POSIX_C_SOURCE 200809L /* fmemopen */
#include "fixture.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/fileio.h"

#ifndef WB_ROOT
#define WB_ROOT "."
#endif

#define MAX_FIXTURES 256

static Fixture table[MAX_FIXTURES];
static char table_file[MAX_FIXTURES][64]; /* the file each was read from: names repeat */
static int n_table;
static char loaded[8][64];
static int n_loaded;

static void load(const char *file)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/fixtures/%s", WB_ROOT, file);
    /* Read as every file of the workbook is (a regular file, with a size limit), then
     * parsed from memory. */
    char *text;
    size_t len;
    ck_assert_msg(fileio_read(path, &text, &len) == ERR_OK, "%s (run make fixtures)",
                  err_message());
    FILE *f = fmemopen(text, len, "r");
    ck_assert_msg(f != NULL, "cannot parse fixture file %s", path);
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        ck_assert_int_lt(n_table, MAX_FIXTURES);
        snprintf(table_file[n_table], sizeof table_file[0], "%s", file);
        Fixture *fx = &table[n_table++];
        char *p = line;
        int used = 0;
        ck_assert(sscanf(p, "%63s %d%n", fx->name, &fx->ndim, &used) == 2);
        p += used;
        fx->n = 1;
        for (int i = 0; i < fx->ndim; i++) {
            long long s;
            ck_assert(sscanf(p, "%lld%n", &s, &used) == 1);
            p += used;
            fx->shape[i] = s;
            fx->n *= s;
        }
        fx->data = malloc((size_t)(fx->n ? fx->n : 1) * sizeof(float));
        for (int64_t i = 0; i < fx->n; i++) {
            double v;
            ck_assert_msg(fscanf(f, "%lf", &v) == 1, "fixture %s is truncated", fx->name);
            fx->data[i] = (float)v;
        }
        /* Column-major copy: (i, j) of a (rows, cols) fixture goes to i + j * rows. */
        fx->cm = malloc((size_t)(fx->n ? fx->n : 1) * sizeof(float));
        int64_t rows = fx->ndim == 2 ? fx->shape[0] : fx->n, cols = fx->ndim == 2 ? fx->shape[1] : 1;
        ck_assert_msg(fx->ndim <= 2, "fixture %s: only 1-D and 2-D fixtures are supported", fx->name);
        for (int64_t r = 0; r < rows; r++)
            for (int64_t c = 0; c < cols; c++) fx->cm[r + c * rows] = fx->data[r * cols + c];
    }
    fclose(f);
    free(text);
    snprintf(loaded[n_loaded++], sizeof loaded[0], "%s", file);
}

const Fixture *fixture(const char *file, const char *name)
{
    int have = 0;
    for (int i = 0; i < n_loaded; i++) have |= strcmp(loaded[i], file) == 0;
    if (!have) load(file);
    for (int i = 0; i < n_table; i++)
        if (strcmp(table[i].name, name) == 0 && strcmp(table_file[i], file) == 0)
            return &table[i];
    ck_abort_msg("fixture %s not found in %s (run make fixtures)", name, file);
    return NULL;
}

void assert_close_at(const char *file, int line, const char *what, const float *got,
                     const float *want, int64_t n, double atol, double rtol)
{
    for (int64_t i = 0; i < n; i++) {
        double tol = atol + rtol * fabs((double)want[i]);
        double diff = fabs((double)got[i] - (double)want[i]);
        ck_assert_msg(diff <= tol || (isnan(got[i]) && isnan(want[i])),
                      "%s[%lld]: got %.9g, expected %.9g (difference %.3g > tolerance %.3g; "
                      "checked at %s:%d)",
                      what, (long long)i, (double)got[i], (double)want[i], diff, tol, file, line);
    }
}
