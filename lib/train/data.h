/**
 * @file data.h
 * @brief Data: CSV files into datasets, train/test splits and MinMax scaling.
 *
 * A ::Dataset is a feature matrix x: (n, d) f32 (column-major, like every
 * tensor) and a label vector y: (n)
 * int32, with the names of its classes and features. dataset_load_csv() reads
 * a CSV with a header line; every problem in the file is reported with the
 * file name, the line and what was expected, and nothing is returned half
 * loaded. The ::Scaler is scikit-learn's `MinMaxScaler`: fitted on the
 * training part only, then applied to both parts. Its arithmetic is Lesson
 * 01's exercise 01.1.
 */
#ifndef WB_DATA_H
#define WB_DATA_H

#include <stdint.h>

#include "lib/core/err.h"
#include "lib/core/rng.h"
#include "lib/device/tensor.h"

/** Most classes or feature columns a dataset may have. */
#define DATA_MAX_COLUMNS 64
/** Longest class or column name kept, including the terminating zero. */
#define DATA_NAME_MAX 32

/** How to read a CSV file into a dataset. */
typedef struct DatasetSpec {
    /** Header name of the label column ("species"). */
    const char *label_column;
    /**
     * The class names in label order, NULL-terminated ({"setosa", ...,
     * NULL}); a label field must be one of them (digits: {"0", ..., "9",
     * NULL}, so that a "10" is an error, not an eleventh class). NULL means the
     * labels are the integers 0, 1, ... written out, as many classes as the
     * largest label says, and every class from 0 to it must have a row (a gap
     * is most likely a typo in a label).
     */
    const char *const *class_names;
    /**
     * Header name of an optional column whose values are `train` or `test`
     * (NULL: no such column; every row goes to the training part).
     */
    const char *split_column;
} DatasetSpec;

/** Features and labels, with their names. */
typedef struct Dataset {
    Tensor *x;                                      /**< features, (n, d) f32 */
    Tensor *y;                                      /**< labels, (n) int32 */
    int n_classes;                                  /**< number of classes */
    int n_features;                                 /**< d */
    char class_names[DATA_MAX_COLUMNS][DATA_NAME_MAX];   /**< name of each class */
    char feature_names[DATA_MAX_COLUMNS][DATA_NAME_MAX]; /**< name of each feature */
} Dataset;

/** Largest CSV file read, in bytes. */
#define DATA_CSV_MAX ((size_t)256 << 20)

/**
 * @brief Read a CSV file with a header line into a training and a test part.
 *
 * Every column other than the label and split columns is a numeric feature.
 * Rows whose split field is `test` go to @p test, the others to @p train
 * (all of them when the spec has no split column; @p test may then be NULL).
 * The file is read with fileio_read_max(): a FIFO, a device or a folder is
 * refused at once. Lines end in LF or CRLF; a CR alone is refused by name
 * (CR-only "classic Mac OS" line endings, or mixed line endings at the line
 * that has one). A feature is a decimal number that a float holds as written:
 * a hexadecimal one (`0x1p1`), one beyond float (`1e39`, "beyond float") and one
 * that is not 0 but would be 0 in float (`1e-50`, "underflows to 0") are
 * refused, as are `inf` and `nan` ("not a finite number"). A column name longer
 * than ::DATA_NAME_MAX - 1 bytes is refused, not cut short. On any problem
 * (missing file, a file over ::DATA_CSV_MAX bytes, empty file, a column name
 * that is empty or appears twice, wrong number of fields, a field as above, an
 * unknown label or split value, a class without rows, a split column that
 * leaves the training or the test part empty) returns ::ERR_IO or ::ERR_FORMAT
 * with a message of the form `"iris.csv:17: expected 6 fields, found 5"`, the
 * field quoted with err_quote() (escaped, and cut after 40 bytes with its
 * length, so that the reason is never cut off), and leaves both datasets empty.
 */
WB_MUST_CHECK int dataset_load_csv(const char *path, const DatasetSpec *spec, Dataset *train, Dataset *test);

/** @brief dataset_load_csv() on @p len bytes of CSV text in memory, named @p source in messages. */
WB_MUST_CHECK int dataset_parse_csv(const char *text, size_t len, const char *source,
                                    const DatasetSpec *spec, Dataset *train, Dataset *test);

/**
 * @brief Split @p all at random into @p train and @p test (a seeded shuffle).
 *
 * The test part gets round(@p test_fraction * n) rows, which must leave both
 * parts non-empty. The same seed gives the same split on every machine.
 */
WB_MUST_CHECK int dataset_split(const Dataset *all, float test_fraction, uint64_t seed, Dataset *train,
                  Dataset *test);

/**
 * @brief A synthetic classification set, big enough to keep a GPU busy: @p n rows of
 *        @p d features in @p classes Gaussian clusters.
 *
 * Each class has a centre drawn from N(0, 1) per feature; a row is its
 * class's centre plus N(0, @p noise) per feature; the labels cycle through
 * the classes in a shuffled order. The same seed gives the same data on
 * every machine.
 */
WB_MUST_CHECK int dataset_synthetic(int64_t n, int64_t d, int classes, float noise, uint64_t seed,
                      Dataset *out);

/** @brief Release the tensors of @p ds and zero it; safe on a zeroed dataset. */
void dataset_free(Dataset *ds);

/** scikit-learn's MinMaxScaler with feature_range (0, 1). */
typedef struct Scaler {
    int64_t n_features; /**< d, set by scaler_fit() */
    float *data_min;    /**< per-feature minimum of the fitted data, (d) */
    float *data_max;    /**< per-feature maximum of the fitted data, (d) */
} Scaler;

/** @brief Learn the per-feature minimum and maximum of @p x (n, d); n must be at least 1. */
WB_MUST_CHECK int scaler_fit(Scaler *s, const Tensor *x);

/**
 * @brief Scale @p x (n, d) with what scaler_fit() learned into a new tensor @p *out.
 *
 * Values of data not seen by fit may fall outside [0, 1]; that is expected.
 */
WB_MUST_CHECK int scaler_transform(const Scaler *s, const Tensor *x, Tensor **out);

/** @brief Release what the scaler holds and zero it. */
void scaler_free(Scaler *s);

/* ---- Exercise of Lesson 01 (lessons/01_cpu_baseline/exercises.c) ------- */

/**
 * @brief Exercise 01.1 (part 1): per-feature minimum and maximum of x: (n, d), n >= 1.
 *
 * x is column-major, so feature j is the n values `x[j * n]` to
 * `x[j * n + n - 1]`. data_min[j] = min over i of x(i, j) and
 * data_max[j] = max over i of x(i, j). Returns 0 (::ERR_OK).
 */
WB_MUST_CHECK int minmax_fit(const float *restrict x, int64_t n, int64_t d, float *restrict data_min,
               float *restrict data_max);

/**
 * @brief Exercise 01.1 (part 2): y(i, j) = (x(i, j) - data_min[j]) / range[j].
 *
 * range[j] = data_max[j] - data_min[j], and a constant feature (range 0)
 * uses range 1 instead, as scikit-learn does, so it becomes 0 rather than
 * NaN. x, y: (n, d), column-major. Returns 0 (::ERR_OK).
 */
WB_MUST_CHECK int minmax_transform(const float *restrict x, int64_t n, int64_t d,
                     const float *restrict data_min, const float *restrict data_max,
                     float *restrict y);

#endif /* WB_DATA_H */
