/* iris.c: the Iris data of the lessons, loaded and scaled, for tests. */
#include "iris.h"

#include <check.h>

#include "lib/core/err.h"

void iris_scaled(Dataset *train, Dataset *test, Tensor **xtr, Tensor **xte)
{
    static const char *const species[] = {"setosa", "versicolor", "virginica", NULL};
    DatasetSpec spec = {"species", species, "split"};
    ck_assert_msg(dataset_load_csv(WB_ROOT "/lessons/data/iris.csv", &spec, train, test) == 0,
                  "loading Iris: %s", err_message());
    Scaler sc = {0};
    int rc = scaler_fit(&sc, train->x);
    if (!rc) rc = scaler_transform(&sc, train->x, xtr);
    if (!rc && xte) rc = scaler_transform(&sc, test->x, xte);
    ck_assert_msg(rc == 0, "scaling Iris: %s", err_message());
    scaler_free(&sc);
}

void iris_free(Dataset *train, Dataset *test, Tensor *xtr, Tensor *xte)
{
    tensor_free(xtr);
    tensor_free(xte);
    dataset_free(train);
    dataset_free(test);
}
