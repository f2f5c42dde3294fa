/* check_loader.c: mini-batches, their order per epoch, the worker thread. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/err.h"
#include "lib/train/loader.h"
#include "suites.h"

/* x (n, 3): row i holds i, 1000 + i, 2000 + i, so a row tells where it came from. */
static void dataset(int64_t n, Tensor **x, Tensor **y)
{
    *x = tensor_new_2d(n, 3);
    *y = tensor_new(DTYPE_I32, device_cpu(), 1, &n);
    for (int64_t i = 0; i < n; i++) {
        for (int j = 0; j < 3; j++) tensor_f32(*x)[i + j * n] = (float)(1000 * j + i);
        tensor_i32(*y)[i] = (int32_t)(i % 7);
    }
}

/* Run one epoch; record the source row of every delivered row, and check rows. */
static int64_t run_epoch(Loader *l, long epoch, int32_t *seen, int64_t *sizes)
{
    ck_assert_int_eq(loader_begin(l, epoch), ERR_OK);
    int64_t k = 0, b = 0;
    for (;;) {
        Batch batch;
        bool done;
        ck_assert_msg(loader_next(l, &batch, &done) == ERR_OK, "%s", err_message());
        if (done) break;
        ck_assert_int_eq(batch.index, b);
        int64_t rows = batch.x->shape[0];
        sizes[b++] = rows;
        for (int64_t i = 0; i < rows; i++) {
            int32_t src = (int32_t)tensor_f32(batch.x)[i];
            ck_assert_float_eq(tensor_f32(batch.x)[i + 2 * rows], (float)(2000 + src));
            ck_assert_int_eq(tensor_i32(batch.y)[i], src % 7);
            seen[k++] = src;
        }
    }
    return b;
}

START_TEST(test_batches_cover_the_data_once)
{
    Tensor *x, *y;
    dataset(23, &x, &y);
    LoaderOptions o = {5, true, false, 42, 0, false};
    Loader *l;
    ck_assert_int_eq(loader_new(x, y, device_cpu(), &o, &l), ERR_OK);
    ck_assert_int_eq(loader_batches(l), 5);
    int32_t seen[23];
    int64_t sizes[8];
    ck_assert_int_eq(run_epoch(l, 1, seen, sizes), 5);
    ck_assert_int_eq(sizes[4], 3); /* the last batch is short */
    int count[23] = {0};
    for (int i = 0; i < 23; i++) count[seen[i]]++;
    for (int i = 0; i < 23; i++) ck_assert_int_eq(count[i], 1);
    loader_free(l);
    o.drop_last = true;
    ck_assert_int_eq(loader_new(x, y, device_cpu(), &o, &l), ERR_OK);
    ck_assert_int_eq(loader_batches(l), 4);
    ck_assert_int_eq(loader_rows(l), 20);
    loader_free(l);
    tensor_free(x), tensor_free(y);
}
END_TEST

/* An epoch's order depends on (seed, epoch) only: no state to checkpoint. */
START_TEST(test_order_per_epoch)
{
    Tensor *x, *y;
    dataset(40, &x, &y);
    LoaderOptions o = {8, true, false, 7, 0, false};
    Loader *a, *b;
    ck_assert_int_eq(loader_new(x, y, device_cpu(), &o, &a), ERR_OK);
    ck_assert_int_eq(loader_new(x, y, device_cpu(), &o, &b), ERR_OK);
    int32_t s1[40], s2[40], s3[40];
    int64_t sizes[8];
    run_epoch(a, 1, s1, sizes);
    run_epoch(a, 2, s2, sizes);
    run_epoch(b, 2, s3, sizes); /* a fresh loader straight at epoch 2: a resumed run */
    ck_assert_mem_eq(s2, s3, sizeof s2);
    ck_assert(memcmp(s1, s2, sizeof s1) != 0);
    int32_t order[40];
    loader_order(&o, 40, 2, order);
    ck_assert_mem_eq(order, s2, sizeof order);
    o.shuffle = false;
    loader_order(&o, 40, 2, order);
    for (int i = 0; i < 40; i++) ck_assert_int_eq(order[i], i);
    loader_free(a), loader_free(b);
    tensor_free(x), tensor_free(y);
}
END_TEST

/* The worker prepares ahead but delivers the same batches, even when an epoch is left
 * half done. */
START_TEST(test_worker_gives_the_same_batches)
{
    Tensor *x, *y;
    dataset(57, &x, &y);
    LoaderOptions o = {6, true, false, 3, 0, false};
    Loader *plain, *ahead;
    ck_assert_int_eq(loader_new(x, y, device_cpu(), &o, &plain), ERR_OK);
    o.num_workers = 1;
    ck_assert_int_eq(loader_new(x, y, device_cpu(), &o, &ahead), ERR_OK);
    ck_assert_int_eq(loader_begin(ahead, 9), ERR_OK);
    Batch b;
    bool done;
    ck_assert_int_eq(loader_next(ahead, &b, &done), ERR_OK); /* then abandoned */
    for (long e = 1; e <= 4; e++) {
        int32_t s1[57], s2[57];
        int64_t z1[16], z2[16];
        ck_assert_int_eq(run_epoch(plain, e, s1, z1), run_epoch(ahead, e, s2, z2));
        ck_assert_mem_eq(s1, s2, sizeof s1);
    }
    loader_free(plain);
    ck_assert_int_eq(loader_begin(ahead, 1), ERR_OK);
    loader_free(ahead); /* freed with a batch being prepared: the worker stops */
    tensor_free(x), tensor_free(y);
}
END_TEST

START_TEST(test_loader_errors)
{
    Tensor *x, *y;
    dataset(10, &x, &y);
    Loader *l = NULL;
    LoaderOptions o = {0, false, false, 1, 0, false};
    ck_assert_int_eq(loader_new(x, y, device_cpu(), &o, &l), ERR_ARG);
    ck_assert(strstr(err_message(), "batch_size") != NULL);
    o.batch_size = 4;
    o.num_workers = 2;
    ck_assert_int_eq(loader_new(x, y, device_cpu(), &o, &l), ERR_ARG);
    o.num_workers = 0;
    o.pin_memory = true;
    ck_assert_int_eq(loader_new(x, y, device_cpu(), &o, &l), ERR_ARG);
    ck_assert(strstr(err_message(), "pin_memory") != NULL);
    o.pin_memory = false;
    Tensor *short_y = tensor_new(DTYPE_I32, device_cpu(), 1, (int64_t[]){9});
    ck_assert_int_eq(loader_new(x, short_y, device_cpu(), &o, &l), ERR_SHAPE);
    ck_assert_ptr_null(l);
    ck_assert_int_eq(loader_new(x, y, device_cpu(), &o, &l), ERR_OK);
    Batch b;
    bool done;
    ck_assert_int_eq(loader_next(l, &b, &done), ERR_ARG); /* before loader_begin */
    ck_assert_int_eq(loader_begin(l, 0), ERR_ARG);
    loader_free(l);
    tensor_free(x), tensor_free(y), tensor_free(short_y);
}
END_TEST

Suite *loader_suite(void)
{
    Suite *s = suite_create("loader");
    TCase *tc = tcase_create("batches");
    tcase_add_test(tc, test_batches_cover_the_data_once);
    tcase_add_test(tc, test_order_per_epoch);
    tcase_add_test(tc, test_worker_gives_the_same_batches);
    tcase_add_test(tc, test_loader_errors);
    suite_add_tcase(s, tc);
    return s;
}
