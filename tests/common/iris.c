/* iris.c: the Iris data of the lessons, loaded and scaled, for tests. */
#include "iris.h"

#include <check.h>

#include "lib/core/err.h"
#include "lib/train/iris.h"

void iris_scaled(Dataset *train, Dataset *test, Tensor **xtr, Tensor **xte)
{
    IrisData iris;
    ck_assert_msg(iris_data_load(iris_csv_path(), &iris) == 0, "loading Iris: %s",
                  err_message());
    /* Hand the parts over: iris owns nothing after this. */
    *train = iris.train;
    *test = iris.test;
    *xtr = iris.x_train;
    if (xte)
        *xte = iris.x_test;
    else
        tensor_free(iris.x_test);
}

void iris_free(Dataset *train, Dataset *test, Tensor *xtr, Tensor *xte)
{
    tensor_free(xtr);
    tensor_free(xte);
    dataset_free(train);
    dataset_free(test);
}
