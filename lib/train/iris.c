/* iris.c: the Iris file (where, how it reads), loaded, split and scaled; Lesson 01's network. */
#include "lib/train/iris.h"

#include <string.h>

#include "lib/core/err.h"
#include "lib/nn/layers.h"
#include "lib/core/rng.h"

/* Where the repository is (the Makefile passes it), so the file is found from any directory. */
#ifndef WB_ROOT
#define WB_ROOT "."
#endif

const char *iris_csv_path(void) { return WB_ROOT "/" IRIS_CSV; }

const DatasetSpec *iris_spec(void)
{
    static const char *const species[] = {"setosa", "versicolor", "virginica", NULL};
    static const DatasetSpec spec = {"species", species, "split"};
    return &spec;
}

int iris_data_load(const char *path, IrisData *iris)
{
    Scaler sc = {0};
    memset(iris, 0, sizeof *iris);
    int rc = dataset_load_csv(path, iris_spec(), &iris->train, &iris->test);
    if (!rc) rc = scaler_fit(&sc, iris->train.x);
    if (!rc) rc = scaler_transform(&sc, iris->train.x, &iris->x_train);
    if (!rc) rc = scaler_transform(&sc, iris->test.x, &iris->x_test);
    scaler_free(&sc);
    if (rc) iris_data_free(iris);
    return rc;
}

void iris_data_free(IrisData *iris)
{
    tensor_free(iris->x_train);
    tensor_free(iris->x_test);
    dataset_free(&iris->train);
    dataset_free(&iris->test);
    memset(iris, 0, sizeof *iris);
}

Module *iris_mlp_new(uint64_t seed)
{
    Rng rng;
    rng_seed(&rng, seed, 0);
    Module *layers[] = {linear_new("fc1", 4, 10, &rng), relu_new("relu"),
                        linear_new("fc2", 10, 3, &rng)};
    return sequential_new("mlp", 3, layers);
}
