/* oracle_iris.c: the judge reads Iris itself and makes the drawn split (oracle_iris.h). */
#include "oracle_iris.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/train/iris.h" /* IRIS_CSV: where the file lies (a name, no code) */

#ifndef WB_ROOT
#define WB_ROOT "."
#endif

#define HEADER "sepal_length,sepal_width,petal_length,petal_width,species,split"

static const char *const species[IRIS_CLASSES] = {"setosa", "versicolor", "virginica"};

/* One line: 4 numbers, a species, "train" or "test". */
static int parse_row(char *line, double *x, int *label, int *is_test)
{
    char *field = line, *end;
    for (int k = 0; k < IRIS_FEATURES; k++) {
        double v = strtod(field, &end);
        if (end == field || *end != ',' || !isfinite(v)) return -1;
        x[k] = (double)(float)v; /* lib keeps features as float */
        field = end + 1;
    }
    char *comma = strchr(field, ',');
    if (!comma) return -1;
    *comma = '\0';
    *label = -1;
    for (int c = 0; c < IRIS_CLASSES; c++)
        if (strcmp(field, species[c]) == 0) *label = c;
    field = comma + 1;
    field[strcspn(field, "\r\n")] = '\0';
    *is_test = strcmp(field, "test") == 0;
    return *label >= 0 && (*is_test || strcmp(field, "train") == 0) ? 0 : -1;
}

int oracle_iris_load(const DrawnIris *d, OracleIris *out, char *err, size_t size)
{
    char path[1024], line[256];
    snprintf(path, sizeof path, "%s/%s", WB_ROOT, IRIS_CSV);
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, size, "cannot read %s", path);
        return -1;
    }
    /* The pool: training rows in file order, then test rows. */
    static double pool[IRIS_POOL][IRIS_FEATURES], test_rows[IRIS_POOL][IRIS_FEATURES];
    int labels[IRIS_POOL], test_labels[IRIS_POOL], n_train = 0, n_test = 0, lineno = 1;
    int ok = fgets(line, sizeof line, f) && strncmp(line, HEADER, strlen(HEADER)) == 0;
    while (ok && fgets(line, sizeof line, f)) {
        lineno++;
        double x[IRIS_FEATURES];
        int label, is_test;
        if (n_train + n_test == IRIS_POOL || parse_row(line, x, &label, &is_test) != 0) {
            ok = 0;
            break;
        }
        double(*to)[IRIS_FEATURES] = is_test ? test_rows : pool;
        int *at = is_test ? &n_test : &n_train;
        memcpy(to[*at], x, sizeof x);
        (is_test ? test_labels : labels)[*at] = label;
        ++*at;
    }
    fclose(f);
    if (!ok || n_train + n_test != IRIS_POOL) {
        snprintf(err, size, "%s:%d is not the Iris file the grader knows (%d rows read)", path,
                 lineno, n_train + n_test);
        return -1;
    }
    for (int i = 0; i < n_test; i++) {
        memcpy(pool[n_train + i], test_rows[i], sizeof pool[0]);
        labels[n_train + i] = test_labels[i];
    }
    double lo[IRIS_FEATURES], hi[IRIS_FEATURES];
    for (int k = 0; k < IRIS_FEATURES; k++) {
        lo[k] = INFINITY, hi[k] = -INFINITY;
        for (int i = 0; i < IRIS_TRAIN; i++) {
            double v = pool[d->order[i]][k];
            lo[k] = v < lo[k] ? v : lo[k];
            hi[k] = v > hi[k] ? v : hi[k];
        }
    }
    for (int i = 0; i < IRIS_POOL; i++) {
        int row = d->order[i];
        double *x = i < IRIS_TRAIN ? out->x_train + i * IRIS_FEATURES
                                   : out->x_test + (i - IRIS_TRAIN) * IRIS_FEATURES;
        for (int k = 0; k < IRIS_FEATURES; k++)
            x[k] = (pool[row][k] - lo[k]) / (hi[k] > lo[k] ? hi[k] - lo[k] : 1.0);
        if (i < IRIS_TRAIN)
            out->y_train[i] = labels[row];
        else
            out->y_test[i - IRIS_TRAIN] = labels[row];
    }
    return 0;
}

void oracle_iris_start(const DrawnIris *d, OracleIris *data, OracleMlp *m)
{
    char err[300];
    if (oracle_iris_load(d, data, err, sizeof err) != 0) ck_abort_msg("grader: %s", err);
    if (oracle_mlp_init(m, IRIS_FEATURES, IRIS_HIDDEN, IRIS_CLASSES) != 0)
        ck_abort_msg("grader: out of memory");
    oracle_mlp_set(m, d->w1, d->b1, d->w2, d->b2);
}
