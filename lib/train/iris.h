/**
 * @file iris.h
 * @brief The day's running example, ready to train: Iris data and Lesson 01's network.
 *
 * Lesson 01 writes these steps out; the later lessons, which are about
 * where the time goes rather than about loading data, call them.
 */
#ifndef WB_IRIS_H
#define WB_IRIS_H

#include <stdint.h>

#include "lib/train/data.h"
#include "lib/nn/module.h"

/** Iris with the source lesson's split, the features MinMax-scaled on the training part. */
typedef struct IrisData {
    Dataset train;    /**< 120 rows: raw features and labels (train.y, int32) */
    Dataset test;     /**< 30 rows */
    Tensor *x_train;  /**< the scaled training features, (120, 4) */
    Tensor *x_test;   /**< the test features scaled with the training part's scaler, (30, 4) */
} IrisData;

/**
 * @brief Load the Iris CSV at @p path and scale it (the scaler is Lesson 01's exercise 01.1).
 *
 * On failure nothing is left allocated and the error names the file.
 */
int iris_data_load(const char *path, IrisData *iris);

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
