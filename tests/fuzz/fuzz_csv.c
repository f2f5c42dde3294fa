/* fuzz_csv.c: libFuzzer on the CSV reader, with the digits spec (class names "0" to
 * "9") or with integer labels learnt from the file, chosen by the input's length. A
 * refused input hands out no dataset; an accepted one's labels are all below its number
 * of classes and its features all finite. Seeds: tests/fuzz/seeds/csv and
 * tests/hostile/csv. make fuzz runs it. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/err.h"
#include "lib/train/data.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const Dataset *d)
{
    if (!d->x) return;
    for (int64_t i = 0; i < d->x->numel; i++)
        if (!isfinite(tensor_f32(d->x)[i])) abort();
    for (int64_t i = 0; i < d->y->numel; i++)
        if (tensor_i32(d->y)[i] < 0 || tensor_i32(d->y)[i] >= d->n_classes) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const digits[] = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", NULL};
    DatasetSpec spec = size % 2 ? (DatasetSpec){"digit", digits, "split"}
                                : (DatasetSpec){"digit", NULL, NULL};
    Dataset train, test;
    int rc = dataset_parse_csv((const char *)data, size, "input.csv", &spec, &train,
                               spec.split_column ? &test : NULL);
    if (rc != ERR_OK) {
        if (train.x || train.y || (spec.split_column && (test.x || test.y))) abort();
        if (!strstr(err_message(), "input.csv")) abort();
        return 0;
    }
    check(&train);
    dataset_free(&train);
    if (spec.split_column) {
        check(&test);
        dataset_free(&test);
    }
    return 0;
}
