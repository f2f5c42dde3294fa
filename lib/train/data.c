/* data.c: CSV loading with precise errors, splits, and the MinMax scaler. */
#include "lib/train/data.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/err.h"
#include "lib/core/fileio.h"
#include "lib/core/numtext.h"

/* Split a line in place at commas, trimming blanks; returns the field count. */
static int split_fields(char *line, char **fields, int cap)
{
    int n = 0;
    char *p = line;
    for (;;) {
        char *comma = strchr(p, ',');
        if (comma) *comma = '\0';
        while (isspace((unsigned char)*p)) p++;
        char *end = p + strlen(p);
        while (end > p && isspace((unsigned char)end[-1])) *--end = '\0';
        if (n < cap) fields[n] = p;
        n++;
        if (!comma) break;
        p = comma + 1;
    }
    return n;
}

static int is_blank(const char *s)
{
    while (*s && isspace((unsigned char)*s)) s++;
    return *s == '\0';
}

/* A field as a message quotes it: escaped, and cut after 40 bytes with its length, so
 * that the reason after it is never cut off. */
typedef char Shown[120];
static const char *shown(const char *field, Shown buf)
{
    return err_quote(field, strlen(field), 40, buf, sizeof(Shown));
}

/* ---- datasets --------------------------------------------------------- */

void dataset_free(Dataset *ds)
{
    if (!ds) return;
    tensor_free(ds->x);
    tensor_free(ds->y);
    memset(ds, 0, sizeof *ds);
}

static int dataset_alloc(Dataset *ds, int64_t n, int d)
{
    int64_t xs[2] = {n, d};
    ds->x = tensor_new(DTYPE_F32, device_cpu(), 2, xs);
    ds->y = tensor_new(DTYPE_I32, device_cpu(), 1, &n);
    ds->n_features = d;
    if (!ds->x || !ds->y) {
        dataset_free(ds);
        return err_code();
    }
    return ERR_OK;
}

static void copy_names(Dataset *dst, const Dataset *src)
{
    dst->n_classes = src->n_classes;
    dst->n_features = src->n_features;
    memcpy(dst->class_names, src->class_names, sizeof dst->class_names);
    memcpy(dst->feature_names, src->feature_names, sizeof dst->feature_names);
}

typedef struct CsvLayout {
    int n_fields;                    /* fields per line */
    int label_col, split_col;        /* indices, split_col = -1 when absent */
    int feat_col[DATA_MAX_COLUMNS];  /* field index of each feature */
    int n_features;
} CsvLayout;

static int parse_header(const char *path, char *line, const DatasetSpec *spec, CsvLayout *lay,
                        Dataset *meta)
{
    char *f[DATA_MAX_COLUMNS + 2];
    int n = split_fields(line, f, DATA_MAX_COLUMNS + 2);
    if (n > DATA_MAX_COLUMNS + 2)
        return err_set(ERR_FORMAT, "%s:1: %d columns, at most %d are supported", path, n,
                       DATA_MAX_COLUMNS + 2);
    lay->n_fields = n;
    lay->label_col = lay->split_col = -1;
    lay->n_features = 0;
    for (int i = 0; i < n; i++) {
        if (!f[i][0])
            return err_set(ERR_FORMAT, "%s:1: column %d has no name (the header line names "
                                       "every column)",
                           path, i + 1);
        Shown a;
        for (int j = 0; j < i; j++)
            if (strcmp(f[i], f[j]) == 0)
                return err_set(ERR_FORMAT, "%s:1: the column name %s appears twice "
                                           "(columns %d and %d): one of them would be lost",
                               path, shown(f[i], a), j + 1, i + 1);
        if (strlen(f[i]) >= DATA_NAME_MAX)
            return err_set(ERR_FORMAT, "%s:1: the name of column %d, %s, is longer than "
                                       "the %d bytes a column name may have: shorten it",
                           path, i + 1, shown(f[i], a), DATA_NAME_MAX - 1);
    }
    for (int i = 0; i < n; i++) {
        if (strcmp(f[i], spec->label_column) == 0)
            lay->label_col = i;
        else if (spec->split_column && strcmp(f[i], spec->split_column) == 0)
            lay->split_col = i;
        else {
            if (lay->n_features == DATA_MAX_COLUMNS)
                return err_set(ERR_FORMAT, "%s:1: more than %d feature columns are not supported",
                               path, DATA_MAX_COLUMNS);
            snprintf(meta->feature_names[lay->n_features], DATA_NAME_MAX, "%s", f[i]);
            lay->feat_col[lay->n_features++] = i;
        }
    }
    if (lay->label_col < 0)
        return err_set(ERR_FORMAT, "%s:1: the header has no column \"%s\" (the labels)", path,
                       spec->label_column);
    if (spec->split_column && lay->split_col < 0)
        return err_set(ERR_FORMAT, "%s:1: the header has no column \"%s\" (train or test)", path,
                       spec->split_column);
    if (lay->n_features == 0)
        return err_set(ERR_FORMAT, "%s:1: the header names no feature columns", path);
    meta->n_features = lay->n_features;
    if (spec->class_names) {
        int c = 0;
        while (spec->class_names[c]) {
            if (c == DATA_MAX_COLUMNS)
                return err_set(ERR_ARG, "dataset spec: more than %d classes", DATA_MAX_COLUMNS);
            snprintf(meta->class_names[c], DATA_NAME_MAX, "%s", spec->class_names[c]);
            c++;
        }
        meta->n_classes = c;
    }
    return ERR_OK;
}

static int parse_label(const char *path, int line_no, const char *field, const DatasetSpec *spec,
                       const Dataset *meta, int32_t *label)
{
    if (spec->class_names) {
        for (int c = 0; c < meta->n_classes; c++)
            if (strcmp(field, meta->class_names[c]) == 0) {
                *label = c;
                return ERR_OK;
            }
        char list[DATA_MAX_COLUMNS * 4] = "";
        for (int c = 0; c < meta->n_classes && c < 8; c++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", c ? ", " : "",
                     meta->class_names[c]);
        Shown a;
        return err_set(ERR_FORMAT, "%s:%d: unknown label %s in column \"%s\" (expected one "
                                   "of: %s)",
                       path, line_no, shown(field, a), spec->label_column, list);
    }
    char *end;
    errno = 0;
    long v = strtol(field, &end, 10);
    /* decimal digits only: not "+3", "3.0" or "0x3" */
    Shown a;
    if (!field[0] || strspn(field, "0123456789") != strlen(field) || end == field || *end ||
        errno || v < 0 || v >= DATA_MAX_COLUMNS)
        return err_set(ERR_FORMAT, "%s:%d: label %s in column \"%s\" is not a class "
                                   "index 0..%d",
                       path, line_no, shown(field, a), spec->label_column, DATA_MAX_COLUMNS - 1);
    *label = (int32_t)v;
    return ERR_OK;
}

/* A feature: a decimal number (not hexadecimal, not "inf" or "nan") that a float holds:
 * not beyond float, and not a number other than 0 that a float rounds to 0. */
static int parse_feature(const char *path, int line_no, int column, const char *name,
                         const char *field, float *out)
{
    Shown a;
    NumText t;
    const char *why = NULL;
    double v = 0.0;
    if (!numtext_scan(field, strlen(field), &t))
        why = "not a finite number";
    else if (t.hex)
        why = "a hexadecimal number: write it in decimal";
    else {
        v = strtod(field, NULL);
        if (isinf((float)v))
            why = "beyond float (the largest float is 3.4028235e+38)";
        else if ((float)v == 0.0f && t.nonzero)
            why = "not 0 but underflows to 0 in float (the smallest float is 1.4e-45)";
    }
    if (why)
        return err_set(ERR_FORMAT, "%s:%d: field %d (%s) is %s, %s", path, line_no, column,
                       name, shown(field, a), why);
    *out = (float)v;
    return ERR_OK;
}

/* Lines end in LF or CRLF. A CR alone is refused by name: in a file without any LF (classic
 * Mac OS) the whole file would be one line, with the columns of every row in its header. */
static int check_line_endings(const char *path, const char *text, size_t len)
{
    const char *cr = text;
    while ((cr = memchr(cr, '\r', len - (size_t)(cr - text))) && cr + 1 < text + len &&
           cr[1] == '\n')
        cr++;
    if (!cr) return ERR_OK;
    if (!memchr(text, '\n', len))
        return err_set(ERR_FORMAT, "%s: the lines end in CR alone (classic Mac OS line endings), "
                                   "which would read as one line: save it with LF or CRLF line "
                                   "endings",
                       path);
    int line_no = 1;
    for (const char *p = text; p < cr; p++) line_no += *p == '\n';
    return err_set(ERR_FORMAT, "%s:%d: mixed line endings: this line ends in CR alone, others in "
                               "LF; save the file with LF or CRLF line endings throughout",
                   path, line_no);
}

/* Parse text (len bytes, zero-terminated, cut up in place and freed here) as a CSV file. */
static int parse_csv(char *text, size_t len, const char *path, const DatasetSpec *spec,
                     Dataset *train, Dataset *test)
{

    /* Cut the text into lines (in place) and find the header. */
    size_t n_lines = 1;
    for (size_t i = 0; i < len; i++) n_lines += text[i] == '\n';
    char **lines = malloc(n_lines * sizeof *lines);
    int *numbers = malloc(n_lines * sizeof *numbers);
    int8_t *part = malloc(n_lines);
    float *xs = NULL;
    int32_t *ys = NULL;
    Dataset meta = {0};
    CsvLayout lay = {0};
    int rc = ERR_OK;
    size_t n_rows = 0;
    int header_seen = 0;
    if (!lines || !numbers || !part) {
        rc = err_set(ERR_NOMEM, "%s: out of memory", path);
        goto done;
    }
    if (memchr(text, '\0', len)) {
        rc = err_set(ERR_FORMAT, "%s: the file contains NUL bytes; is it a text CSV file?", path);
        goto done;
    }
    /* As the config reader does: a byte-order mark would otherwise be read as part of the
     * first column's name, and a label column named first would be "not there". */
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
        rc = err_set(ERR_FORMAT, "%s:1: the file starts with a byte-order mark (EF BB BF), "
                                 "which would become part of the first column's name; save it "
                                 "as UTF-8 without one",
                     path);
        goto done;
    }
    rc = check_line_endings(path, text, len);
    if (rc) goto done;
    char *p = text;
    for (int line_no = 1; p; line_no++) {
        char *nl = strchr(p, '\n');
        if (nl) *nl = '\0';
        size_t l = strlen(p);
        if (l && p[l - 1] == '\r') p[l - 1] = '\0';
        if (!is_blank(p)) {
            if (!header_seen) {
                rc = parse_header(path, p, spec, &lay, &meta);
                if (rc) goto done;
                header_seen = 1;
            } else {
                lines[n_rows] = p;
                numbers[n_rows++] = line_no;
            }
        }
        p = nl ? nl + 1 : NULL;
    }
    if (!header_seen) {
        rc = err_set(ERR_FORMAT, "%s: the file is empty (expected a header line naming the "
                                 "columns, then one line per sample)",
                     path);
        goto done;
    }
    if (n_rows == 0) {
        rc = err_set(ERR_FORMAT, "%s: no data rows after the header line", path);
        goto done;
    }

    /* Parse every row before anything is handed out. */
    int d = lay.n_features;
    xs = malloc(n_rows * (size_t)d * sizeof *xs);
    ys = malloc(n_rows * sizeof *ys);
    if (!xs || !ys) {
        rc = err_set(ERR_NOMEM, "%s: out of memory for %zu rows", path, n_rows);
        goto done;
    }
    int max_label = -1;
    size_t n_test = 0;
    for (size_t r = 0; r < n_rows; r++) {
        char *f[DATA_MAX_COLUMNS + 2];
        int nf = split_fields(lines[r], f, DATA_MAX_COLUMNS + 2);
        if (nf != lay.n_fields) {
            rc = err_set(ERR_FORMAT, "%s:%d: expected %d fields (as in the header), found %d",
                         path, numbers[r], lay.n_fields, nf);
            goto done;
        }
        for (int j = 0; j < d; j++) {
            rc = parse_feature(path, numbers[r], lay.feat_col[j] + 1, meta.feature_names[j],
                               f[lay.feat_col[j]], &xs[r * (size_t)d + (size_t)j]);
            if (rc) goto done;
        }
        rc = parse_label(path, numbers[r], f[lay.label_col], spec, &meta, &ys[r]);
        if (rc) goto done;
        if (ys[r] > max_label) max_label = ys[r];
        part[r] = 0;
        if (lay.split_col >= 0) {
            const char *s = f[lay.split_col];
            if (strcmp(s, "test") == 0)
                part[r] = 1;
            else if (strcmp(s, "train") != 0) {
                Shown a;
                rc = err_set(ERR_FORMAT, "%s:%d: column \"%s\" is %s (expected train or test)",
                             path, numbers[r], spec->split_column, shown(s, a));
                goto done;
            }
        }
        n_test += (size_t)part[r];
    }
    if (!spec->class_names) {
        meta.n_classes = max_label + 1;
        for (int c = 0; c < meta.n_classes; c++)
            snprintf(meta.class_names[c], DATA_NAME_MAX, "%d", c);
        /* Learnt from the labels: no class may be missing. */
        bool seen[DATA_MAX_COLUMNS] = {false};
        for (size_t r = 0; r < n_rows; r++) seen[ys[r]] = true;
        for (int c = 0; c < meta.n_classes; c++)
            if (!seen[c]) {
                rc = err_set(ERR_FORMAT, "%s: no row has label %d in column \"%s\", whose "
                                         "labels go up to %d: a typo in a label?",
                             path, c, spec->label_column, max_label);
                goto done;
            }
    }
    if (lay.split_col >= 0 && test && (n_test == 0 || n_test == n_rows)) {
        rc = err_set(ERR_FORMAT, "%s: column \"%s\" marks no row \"%s\": the %s part would be "
                                 "empty",
                     path, spec->split_column, n_test ? "train" : "test",
                     n_test ? "training" : "test");
        goto done;
    }
    if (n_test > 0 && !test) {
        rc = err_set(ERR_ARG, "%s: %zu rows are marked test but no test dataset was given", path,
                     n_test);
        goto done;
    }

    /* Hand out the two parts. */
    copy_names(train, &meta);
    rc = dataset_alloc(train, (int64_t)(n_rows - n_test), d);
    if (rc == ERR_OK && test) {
        copy_names(test, &meta);
        rc = dataset_alloc(test, (int64_t)n_test, d);
    }
    if (rc != ERR_OK) {
        err_context("%s", path);
        goto done;
    }
    size_t at[2] = {0, 0};
    for (size_t r = 0; r < n_rows; r++) {
        Dataset *ds = part[r] ? test : train;
        size_t i = at[part[r]]++, rows = (size_t)ds->x->shape[0];
        for (int j = 0; j < d; j++) /* column-major: feature j of sample i */
            tensor_f32(ds->x)[i + (size_t)j * rows] = xs[r * (size_t)d + (size_t)j];
        tensor_i32(ds->y)[i] = ys[r];
    }
done:
    if (rc) {
        dataset_free(train);
        if (test) dataset_free(test);
    }
    free(xs);
    free(ys);
    free(lines);
    free(numbers);
    free(part);
    free(text);
    return rc;
}

static int check_spec(const char *fn, const DatasetSpec *spec)
{
    if (!spec || !spec->label_column)
        return err_set(ERR_ARG, "%s: the spec names no label column", fn);
    return ERR_OK;
}

int dataset_load_csv(const char *path, const DatasetSpec *spec, Dataset *train, Dataset *test)
{
    memset(train, 0, sizeof *train);
    if (test) memset(test, 0, sizeof *test);
    TRY(check_spec("dataset_load_csv", spec));
    char *text = NULL;
    size_t len = 0;
    TRY(fileio_read_max(path, DATA_CSV_MAX, "CSV file", &text, &len));
    return parse_csv(text, len, path, spec, train, test);
}

int dataset_parse_csv(const char *text, size_t len, const char *source, const DatasetSpec *spec,
                      Dataset *train, Dataset *test)
{
    memset(train, 0, sizeof *train);
    if (test) memset(test, 0, sizeof *test);
    TRY(check_spec("dataset_parse_csv", spec));
    if (!source) source = "(memory)";
    if (len > DATA_CSV_MAX)
        return err_set(ERR_FORMAT, "%s: %zu bytes, more than the %zu a CSV file may have", source,
                       len, DATA_CSV_MAX);
    char *copy = malloc(len + 1);
    if (!copy) return err_set(ERR_NOMEM, "%s: out of memory", source);
    if (len) memcpy(copy, text, len);
    copy[len] = '\0';
    return parse_csv(copy, len, source, spec, train, test);
}

static int take_rows(const Dataset *all, const int32_t *idx, int64_t n, Dataset *out)
{
    copy_names(out, all);
    TRY(dataset_alloc(out, n, all->n_features));
    int64_t d = all->n_features, rows = all->x->shape[0];
    for (int64_t i = 0; i < n; i++) {
        for (int64_t j = 0; j < d; j++) /* column-major on both sides */
            tensor_f32(out->x)[i + j * n] = tensor_f32(all->x)[idx[i] + j * rows];
        tensor_i32(out->y)[i] = tensor_i32(all->y)[idx[i]];
    }
    return ERR_OK;
}

int dataset_split(const Dataset *all, float test_fraction, uint64_t seed, Dataset *train,
                  Dataset *test)
{
    memset(train, 0, sizeof *train);
    memset(test, 0, sizeof *test);
    int64_t n = all->x ? all->x->shape[0] : 0;
    int64_t n_test = (int64_t)llround((double)test_fraction * (double)n);
    if (!(test_fraction > 0.0f && test_fraction < 1.0f) || n_test < 1 || n_test >= n)
        return err_set(ERR_ARG, "dataset_split: test fraction %g of %lld rows leaves a part empty "
                                "(use a fraction between 0 and 1 and at least 2 rows)",
                       (double)test_fraction, (long long)n);
    int32_t *idx = malloc((size_t)n * sizeof *idx);
    if (!idx) return err_set(ERR_NOMEM, "dataset_split: out of memory");
    for (int64_t i = 0; i < n; i++) idx[i] = (int32_t)i;
    Rng rng;
    rng_seed(&rng, seed, 0x5117);
    rng_shuffle_i32(&rng, idx, (size_t)n);
    int rc = ERR_OK;
    TRY_OR_DONE(take_rows(all, idx, n_test, test));
    TRY_OR_DONE(take_rows(all, idx + n_test, n - n_test, train));
done:
    free(idx);
    if (rc) {
        dataset_free(train);
        dataset_free(test);
    }
    return rc;
}

/* ---- the MinMax scaler ---------------------------------------------- */

void scaler_free(Scaler *s)
{
    free(s->data_min);
    free(s->data_max);
    memset(s, 0, sizeof *s);
}

int scaler_fit(Scaler *s, const Tensor *x)
{
    TRY(tensor_check_2d(x, DTYPE_F32, 0, 0, "MinMaxScaler.fit", "x"));
    int64_t n = x->shape[0], d = x->shape[1];
    if (n < 1) return err_set(ERR_SHAPE, "MinMaxScaler.fit: x has no rows to learn from");
    scaler_free(s);
    s->data_min = malloc((size_t)(d ? d : 1) * sizeof(float));
    s->data_max = malloc((size_t)(d ? d : 1) * sizeof(float));
    if (!s->data_min || !s->data_max) {
        scaler_free(s);
        return err_set(ERR_NOMEM, "MinMaxScaler.fit: out of memory");
    }
    s->n_features = d;
    int rc = exercise_result(minmax_fit(tensor_f32(x), n, d, s->data_min, s->data_max), "01.1",
                             "minmax_fit");
    if (rc) scaler_free(s);
    return rc;
}

int scaler_transform(const Scaler *s, const Tensor *x, Tensor **out)
{
    if (!s->data_min)
        return err_set(ERR_ARG, "MinMaxScaler.transform: the scaler is not fitted (call "
                                "scaler_fit on the training data first)");
    TRY(tensor_check_2d(x, DTYPE_F32, 0, s->n_features, "MinMaxScaler.transform", "x"));
    Tensor *y = tensor_new(DTYPE_F32, x->device, 2, x->shape);
    if (!y) return err_code();
    int rc = exercise_result(minmax_transform(tensor_f32(x), x->shape[0], x->shape[1],
                                              s->data_min, s->data_max, tensor_f32(y)),
                             "01.1", "minmax_transform");
    if (rc) {
        tensor_free(y);
        return rc;
    }
    *out = y;
    return ERR_OK;
}

int dataset_synthetic(int64_t n, int64_t d, int classes, float noise, uint64_t seed,
                      Dataset *out)
{
    memset(out, 0, sizeof *out);
    if (n < 1 || d < 1 || classes < 2 || classes > DATA_MAX_COLUMNS || !(noise >= 0.0f) ||
        n > INT32_MAX)
        return err_set(ERR_ARG, "synthetic data: n = %lld, d = %lld, classes = %d, noise = %g "
                                "(need n >= 1, d >= 1, 2 to %d classes, noise >= 0)",
                       (long long)n, (long long)d, classes, (double)noise, DATA_MAX_COLUMNS);
    Rng rng;
    rng_seed(&rng, seed, 0);
    float *centre = malloc(sizeof *centre * (size_t)(classes * d));
    out->x = tensor_new_2d(n, d);
    out->y = tensor_new(DTYPE_I32, device_cpu(), 1, &n);
    if (!centre || !out->x || !out->y) {
        free(centre);
        dataset_free(out);
        return err_set(ERR_NOMEM, "synthetic data: out of memory for %lld x %lld floats",
                       (long long)n, (long long)d);
    }
    for (int64_t k = 0; k < (int64_t)classes * d; k++) centre[k] = rng_normal(&rng);
    int32_t *y = tensor_i32(out->y);
    for (int64_t i = 0; i < n; i++) y[i] = (int32_t)(i % classes);
    rng_shuffle_i32(&rng, y, (size_t)n);
    float *x = tensor_f32(out->x);
    for (int64_t j = 0; j < d; j++) /* column by column: x(i, j) is x[i + j * n] */
        for (int64_t i = 0; i < n; i++)
            x[i + j * n] = centre[y[i] * d + j] + noise * rng_normal(&rng);
    free(centre);
    out->n_classes = classes;
    /* The names have room for DATA_MAX_COLUMNS; x holds all d columns. */
    out->n_features = d > DATA_MAX_COLUMNS ? DATA_MAX_COLUMNS : (int)d;
    for (int c = 0; c < classes; c++) snprintf(out->class_names[c], DATA_NAME_MAX, "%d", c);
    for (int j = 0; j < out->n_features; j++)
        snprintf(out->feature_names[j], DATA_NAME_MAX, "f%d", j);
    return ERR_OK;
}
