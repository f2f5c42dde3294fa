/* iris.h: the Iris data of the lessons, loaded and MinMax-scaled, for tests. */
#ifndef WB_TEST_IRIS_H
#define WB_TEST_IRIS_H

#include "lib/train/data.h"

/* Load the Iris CSV (lib/train/iris.h: iris_csv_path(), iris_spec(), the source
 * lesson's split) and scale both parts with a scaler fitted on the training
 * part (iris_data_load); fails the test on any error. xte may be NULL. Free
 * with iris_free. */
void iris_scaled(Dataset *train, Dataset *test, Tensor **xtr, Tensor **xte);
void iris_free(Dataset *train, Dataset *test, Tensor *xtr, Tensor *xte);

#endif
