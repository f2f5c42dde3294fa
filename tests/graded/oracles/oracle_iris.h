/*
 * oracle_iris.h: the judge's own copy of a drawn Iris split (drawn_whole.h).
 *
 * The judge reads lessons/data/iris.csv with its own reader, numbers the rows
 * as the runner does (the file's training rows, then its test rows), takes the
 * drawn order, and scales the features as scikit-learn's MinMaxScaler does,
 * fitted on the training part, in double: the data oracle_mlp.h trains on.
 */
#ifndef WB_GRADED_ORACLE_IRIS_H
#define WB_GRADED_ORACLE_IRIS_H

#include <stddef.h>

#include "../protocol/drawn_whole.h"
#include "oracle_mlp.h"

typedef struct OracleIris {
    double x_train[IRIS_TRAIN * IRIS_FEATURES]; /* row-major, scaled */
    int y_train[IRIS_TRAIN];
    double x_test[(IRIS_POOL - IRIS_TRAIN) * IRIS_FEATURES];
    int y_test[IRIS_POOL - IRIS_TRAIN];
} OracleIris;

/* The split @p d draws, read from the repository's Iris file. Returns 0, or -1
 * with the reason in err (size bytes) when the file is not the Iris it expects. */
int oracle_iris_load(const DrawnIris *d, OracleIris *out, char *err, size_t size);

/* The split @p d draws into @p data and Lesson 01's network with its drawn initial
 * weights into @p m (free it with oracle_mlp_free()); in a JUDGE body: a file that is
 * not Iris or a lack of memory fails the case as the grader's own error. */
void oracle_iris_start(const DrawnIris *d, OracleIris *data, OracleMlp *m);

#endif
