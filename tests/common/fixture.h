/* fixture.h: reference tensors from tests/fixtures and comparison helpers. */
#ifndef WB_TEST_FIXTURES_H
#define WB_TEST_FIXTURES_H

#include <stdint.h>

#include "lib/device/tensor.h"

typedef struct Fixture {
    char name[64];
    int ndim;
    int64_t shape[4];
    int64_t n;
    float *data; /* as PyTorch wrote it: row-major */
    float *cm;   /* the same values column-major, the workbook's memory order */
} Fixture;

/* The fixture called name in tests/fixtures/<file>; fails the test if absent. */
const Fixture *fixture(const char *file, const char *name);

/* A new CPU f32 tensor (column-major, from the row-major fixture) (or i32 for dtype DTYPE_I32) holding a fixture's values. */
Tensor *fixture_tensor(const char *file, const char *name, DType dtype);

/* Fail the test unless |got - want| <= atol + rtol * |want| everywhere,
 * naming the first index that is off. */
void assert_close_at(const char *file, int line, const char *what, const float *got,
                     const float *want, int64_t n, double atol, double rtol);
#define assert_close(...) assert_close_at(__FILE__, __LINE__, __VA_ARGS__)

#endif
