/**
 * @file iris.h
 * @brief The day's running example, ready to train: Iris data and Lesson 01's network.
 *
 * The one place that says what the Iris file is: where it lies
 * (iris_csv_path()), how it reads (iris_spec(): the label column, the class
 * names, the split column), and how it is scaled (iris_data_load()). Lesson 01
 * writes the loading and scaling steps out with these; the later lessons, the
 * tests and the bench, which are about other things, call them.
 * (The Python scripts that make the file and the PyTorch fixtures,
 * lessons/data/make_iris_csv.py, tests/gen_fixtures.py and
 * tests/bench/iris_torch.py, keep their own copy of these names.)
 */
#ifndef WB_IRIS_H
#define WB_IRIS_H

#include <stdint.h>

#include "lib/core/err.h"
#include "lib/train/data.h"
#include "lib/nn/module.h"

/** The Iris CSV, as a path inside the repository. */
#define IRIS_CSV "lessons/data/iris.csv"

/** Iris with the source lesson's split, the features MinMax-scaled on the training part. */
typedef struct IrisData {
    Dataset train;    /**< 120 rows: raw features and labels (train.y, int32) */
    Dataset test;     /**< 30 rows */
    Tensor *x_train;  /**< the scaled training features, (120, 4) */
    Tensor *x_test;   /**< the test features scaled with the training part's scaler, (30, 4) */
} IrisData;

/**
 * @brief The full path of the Iris CSV: `IRIS_CSV` in the repository lib was built in.
 *
 * What the lessons' `--data` defaults to and what the tests and the bench load.
 */
const char *iris_csv_path(void);

/**
 * @brief How the Iris CSV reads, for dataset_load_csv().
 *
 * The label column is `species`, its classes `setosa`, `versicolor` and
 * `virginica` (labels 0, 1, 2), and the column `split` says which rows are
 * the source lesson's test part (`train_test_split(test_size=0.2,
 * random_state=42)`).
 */
const DatasetSpec *iris_spec(void);

/**
 * @brief Load the Iris CSV at @p path and scale it (the scaler is Lesson 01's exercise 01.1).
 *
 * @p path is normally iris_csv_path(). On failure nothing is left allocated
 * and the error names the file.
 */
WB_MUST_CHECK int iris_data_load(const char *path, IrisData *iris);

/** @brief Release what iris_data_load() made (a zeroed IrisData is fine). */
void iris_data_free(IrisData *iris);

/**
 * @brief Lesson 01's network, Linear(4, 10), ReLU, Linear(10, 3), on the CPU.
 *
 * The weights are drawn from an Rng seeded with @p seed (stream 0), so the
 * same seed gives the same network everywhere. NULL with the error set on
 * failure.
 */
Module *iris_mlp_new(uint64_t seed);

#endif /* WB_IRIS_H */
