/* check_tensor.c: allocation, shapes, copies and errors of tensors; errors. */
#include <check.h>
#include <string.h>

#include "lib/core/err.h"
#include "lib/device/tensor.h"
#include "suites.h"

START_TEST(test_new_is_zeroed_and_aligned)
{
    int64_t shape[3] = {3, 5, 7};
    Tensor *t = tensor_new(DTYPE_F32, device_cpu(), 3, shape);
    ck_assert_ptr_nonnull(t);
    ck_assert_int_eq(t->numel, 105);
    ck_assert_int_eq((uintptr_t)t->data % 64, 0);
    for (int i = 0; i < 105; i++) ck_assert_float_eq(tensor_f32(t)[i], 0.0f);
    ck_assert_ptr_null(tensor_i32(t));
    char buf[64];
    ck_assert_str_eq(tensor_shape_str(t, buf, sizeof buf), "(3, 5, 7)");
    tensor_free(t);
}
END_TEST

START_TEST(test_bad_shapes_and_devices_are_errors)
{
    int64_t neg[2] = {3, -1};
    ck_assert_ptr_null(tensor_new(DTYPE_F32, device_cpu(), 2, neg));
    ck_assert_int_eq(err_code(), ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err_message(), "negative"));
    int64_t ok[1] = {4};
    Device gpu = {DEVICE_CUDA, 0};
    ck_assert_ptr_null(tensor_new(DTYPE_F32, gpu, 1, ok));
    ck_assert_int_eq(err_code(), ERR_DEVICE);
    ck_assert_ptr_nonnull(strstr(err_message(), "cuda:0"));
    ck_assert_ptr_null(tensor_new(DTYPE_F32, device_cpu(), 5, ok));
    ck_assert_int_eq(err_code(), ERR_ARG);
}
END_TEST

START_TEST(test_resize_keeps_or_grows_memory)
{
    Tensor *t = tensor_new_2d(4, 4);
    void *before = t->data;
    int64_t small[2] = {2, 3};
    ck_assert_int_eq(tensor_resize(t, 2, small), ERR_OK);
    ck_assert_ptr_eq(t->data, before);
    ck_assert_int_eq(t->numel, 6);
    int64_t big[2] = {40, 40};
    ck_assert_int_eq(tensor_resize(t, 2, big), ERR_OK);
    ck_assert_int_eq(t->numel, 1600);
    ck_assert_uint_ge(t->capacity, 1600 * sizeof(float));
    ck_assert_int_eq(tensor_fill(t, 2.5f), ERR_OK);
    ck_assert_float_eq(tensor_f32(t)[1599], 2.5f);
    tensor_free(t);
}
END_TEST

START_TEST(test_copy_clone_and_mismatch)
{
    Tensor *a = tensor_new_2d(2, 3), *b = tensor_new_2d(3, 2), *c = tensor_new_1d(5);
    for (int i = 0; i < 6; i++) tensor_f32(a)[i] = (float)i * 1.5f;
    ck_assert_int_eq(tensor_copy(b, a), ERR_OK); /* same count: allowed */
    ck_assert_mem_eq(a->data, b->data, 6 * sizeof(float));
    ck_assert_int_eq(tensor_copy(c, a), ERR_SHAPE);
    ck_assert_ptr_nonnull(strstr(err_message(), "(2, 3)"));
    Tensor *d = tensor_clone(a);
    ck_assert_ptr_ne(d->data, a->data);
    ck_assert_mem_eq(a->data, d->data, 6 * sizeof(float));
    tensor_free(a);
    tensor_free(b);
    tensor_free(c);
    tensor_free(d);
}
END_TEST

START_TEST(test_column_major_order_and_row_conversion)
{
    Tensor *t = tensor_new_2d(2, 3);
    const float rows[6] = {1, 2, 3, 4, 5, 6}; /* [[1, 2, 3], [4, 5, 6]] */
    ck_assert_int_eq(tensor_set_rows(t, rows), ERR_OK);
    const float mem[6] = {1, 4, 2, 5, 3, 6}; /* column by column */
    ck_assert_mem_eq(t->data, mem, sizeof mem);
    float back[6];
    ck_assert_int_eq(tensor_get_rows(t, back), ERR_OK);
    ck_assert_mem_eq(back, rows, sizeof rows);
    ck_assert_int_eq(tensor_offset_of_row_major(t, 1), 2); /* (0, 1) */
    ck_assert_int_eq(tensor_offset_of_row_major(t, 3), 1); /* (1, 0) */
    int64_t s3[3] = {2, 3, 4};
    Tensor *u = tensor_new(DTYPE_F32, device_cpu(), 3, s3);
    /* (1, 2, 3) is row-major position 1*12 + 2*4 + 3 = 23, column-major 1 + 2*2 + 3*6 = 23 */
    ck_assert_int_eq(tensor_offset_of_row_major(u, 23), 23);
    /* (0, 1, 2) is row-major 6, column-major 0 + 1*2 + 2*6 = 14 */
    ck_assert_int_eq(tensor_offset_of_row_major(u, 6), 14);
    /* uniform draws follow PyTorch's order: the first draw lands at (0, 0), the second at (0, 1) */
    Rng a, b;
    rng_seed(&a, 9, 0);
    rng_seed(&b, 9, 0);
    ck_assert_int_eq(tensor_uniform(t, &a, 0.0f, 1.0f), ERR_OK);
    float first = rng_uniform(&b), second = rng_uniform(&b);
    ck_assert_float_eq(tensor_f32(t)[0], first);
    ck_assert_float_eq(tensor_f32(t)[2], second);
    tensor_free(t);
    tensor_free(u);
}
END_TEST

START_TEST(test_transpose_and_its_errors)
{
    Tensor *x = tensor_new_2d(2, 3), *out = tensor_new_2d(3, 2), *wrong = tensor_new_2d(2, 3);
    const float rows[6] = {1, 2, 3, 4, 5, 6}; /* [[1, 2, 3], [4, 5, 6]] */
    ck_assert_int_eq(tensor_set_rows(x, rows), ERR_OK);
    ck_assert_int_eq(tensor_transpose(x, out), ERR_OK);
    float back[6];
    ck_assert_int_eq(tensor_get_rows(out, back), ERR_OK);
    const float want[6] = {1, 4, 2, 5, 3, 6}; /* [[1, 4], [2, 5], [3, 6]] */
    ck_assert_mem_eq(back, want, sizeof want);
    ck_assert_int_eq(tensor_transpose(x, wrong), ERR_SHAPE);
    ck_assert_str_eq(err_message(),
                     "tensor_transpose: x is (2, 3), so out must be (3, 2), not (2, 3)");
    Tensor *sq = tensor_new_2d(2, 2);
    ck_assert_int_eq(tensor_transpose(sq, sq), ERR_ARG);
    tensor_free(x), tensor_free(out), tensor_free(wrong), tensor_free(sq);
}
END_TEST

START_TEST(test_check_2d_message)
{
    Tensor *t = tensor_new_2d(120, 5);
    ck_assert_int_eq(tensor_check_2d(t, DTYPE_F32, 0, 5, "op", "x"), ERR_OK);
    ck_assert_int_eq(tensor_check_2d(t, DTYPE_F32, 0, 4, "Linear", "input"), ERR_SHAPE);
    ck_assert_str_eq(err_message(), "Linear: input has shape (120, 5), expected (N, 4)");
    ck_assert_int_eq(tensor_check_2d(t, DTYPE_I32, 0, 0, "op", "y"), ERR_SHAPE);
    ck_assert_ptr_nonnull(strstr(err_message(), "float32, expected int32"));
    tensor_free(t);
}
END_TEST

START_TEST(test_device_names_and_equality)
{
    char buf[16];
    Device cpu = device_cpu(), g0 = {DEVICE_CUDA, 0}, g1 = {DEVICE_CUDA, 1};
    ck_assert_str_eq(device_str(cpu, buf, sizeof buf), "cpu");
    ck_assert_str_eq(device_str(g1, buf, sizeof buf), "cuda:1");
    ck_assert(device_equal(cpu, device_cpu()));
    ck_assert(!device_equal(cpu, g0));
    ck_assert(!device_equal(g0, g1));
    ck_assert(device_equal(g1, g1));
    ck_assert(!device_cuda_built()); /* this build has no CUDA backend yet */
}
END_TEST

START_TEST(test_same_device_rule)
{
    /* Tensors on one device pass without asking exercise 02.3; on two devices its
     * error comes back (here the answer's, PyTorch's message). Only the device
     * field is read. */
    Tensor a = {0}, b = {0};
    a.device = b.device = device_cpu();
    err_clear();
    ck_assert_int_eq(tensor_check_same_device("add", &a, &b), ERR_OK);
    a.device = b.device = device_cuda(1);
    ck_assert_int_eq(tensor_check_same_device("add", &a, &b), ERR_OK);
    b.device = device_cpu();
    ck_assert_int_eq(tensor_check_same_device("Linear fc1", &a, &b), ERR_DEVICE);
    ck_assert_str_eq(err_message(), "Linear fc1: expected all tensors to be on the same device, "
                                    "but found cuda:1 and cpu");
}
END_TEST

START_TEST(test_dtype_table)
{
    ck_assert_uint_eq(dtype_size(DTYPE_F32), 4);
    ck_assert_uint_eq(dtype_size(DTYPE_F16), 2);
    ck_assert_uint_eq(dtype_size(DTYPE_BF16), 2);
    ck_assert_str_eq(dtype_name(DTYPE_BF16), "bfloat16");
    int64_t s = 3;
    Tensor *h = tensor_new(DTYPE_F16, device_cpu(), 1, &s);
    ck_assert_uint_ge(h->capacity, 6);
    ck_assert_int_eq(tensor_fill(h, 1.0f), ERR_SHAPE);
    tensor_free(h);
}
END_TEST

START_TEST(test_device_memory_counts_and_limit)
{
    /* What tensors hold on the CPU, its peak, and a limit that refuses like a full GPU. */
    Device cpu = device_cpu();
    size_t base = device_memory(cpu).in_use;
    device_reset_peak_memory(cpu);
    Tensor *a = tensor_new(DTYPE_F32, cpu, 2, (int64_t[]){10, 10});
    ck_assert_ptr_nonnull(a);
    DeviceMemory m = device_memory(cpu);
    ck_assert_uint_eq(m.in_use, base + 400);
    ck_assert_uint_eq(m.peak, base + 400);
    tensor_free(a);
    m = device_memory(cpu);
    ck_assert_uint_eq(m.in_use, base);
    ck_assert_uint_eq(m.peak, base + 400); /* the peak stays until a reset */
    device_set_memory_limit(cpu, base + 300);
    ck_assert_ptr_null(tensor_new(DTYPE_F32, cpu, 1, (int64_t[]){100}));
    ck_assert_int_eq(err_code(), ERR_NOMEM);
    ck_assert_ptr_nonnull(strstr(err_message(), "out of memory on cpu: tried to allocate 400 B "
                                                "with 300 B free"));
    ck_assert_ptr_nonnull(strstr(err_message(), "gradient accumulation"));
    m = device_memory(cpu);
    ck_assert_uint_eq(m.in_use, base); /* a refusal holds nothing */
    ck_assert_uint_eq(m.peak, base + 400);
    Tensor *b = tensor_new(DTYPE_F32, cpu, 1, (int64_t[]){75}); /* 300 bytes: exactly the limit */
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_null(tensor_new(DTYPE_F32, cpu, 1, (int64_t[]){1}));
    tensor_free(b);
    device_set_memory_limit(cpu, 0);
    a = tensor_new(DTYPE_F32, cpu, 1, (int64_t[]){100});
    ck_assert_ptr_nonnull(a);
    tensor_free(a);
    device_reset_peak_memory(cpu);
    ck_assert_uint_eq(device_memory(cpu).peak, base);
}
END_TEST

Suite *tensor_suite(void)
{
    Suite *s = suite_create("tensor");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_new_is_zeroed_and_aligned);
    tcase_add_test(tc, test_bad_shapes_and_devices_are_errors);
    tcase_add_test(tc, test_resize_keeps_or_grows_memory);
    tcase_add_test(tc, test_copy_clone_and_mismatch);
    tcase_add_test(tc, test_column_major_order_and_row_conversion);
    tcase_add_test(tc, test_check_2d_message);
    tcase_add_test(tc, test_transpose_and_its_errors);
    tcase_add_test(tc, test_dtype_table);
    tcase_add_test(tc, test_device_names_and_equality);
    tcase_add_test(tc, test_same_device_rule);
    tcase_add_test(tc, test_device_memory_counts_and_limit);
    suite_add_tcase(s, tc);
    return s;
}

/* ---- err ------------------------------------------------------------- */

START_TEST(test_err_set_context_clear)
{
    ck_assert_int_eq(err_set(ERR_FORMAT, "line %d: bad", 7), ERR_FORMAT);
    ck_assert_int_eq(err_context("loading %s", "a.csv"), ERR_FORMAT);
    ck_assert_str_eq(err_message(), "loading a.csv: line 7: bad");
    ck_assert_str_eq(err_name(err_code()), "format");
    err_clear();
    ck_assert_int_eq(err_code(), ERR_OK);
    ck_assert_str_eq(err_message(), "");
}
END_TEST

START_TEST(test_exercise_todo_and_result)
{
    ck_assert_int_eq(exercise_todo("01.2", "linear_forward", "lessons/x.c"), ERR_TODO);
    ck_assert_ptr_nonnull(strstr(err_message(), "make hint EX=01.2"));
    ck_assert_int_eq(exercise_result(ERR_TODO, "01.2", "linear_forward"), ERR_TODO);
    ck_assert_ptr_nonnull(strstr(err_message(), "lessons/x.c"));
    ck_assert_int_eq(exercise_result(0, "01.2", "f"), ERR_OK);
    ck_assert_int_eq(exercise_result(5, "01.2", "f"), ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err_message(), "returned 5 without a message"));
    /* An error the exercise set itself passes through. */
    ck_assert_int_eq(exercise_result(err_set(ERR_DEVICE, "cuda:3 requested"), "02.1", "f"),
                     ERR_DEVICE);
    ck_assert_str_eq(err_message(), "cuda:3 requested");
    err_clear();
    ck_assert_int_eq(exercise_result(ERR_DEVICE, "02.1", "f"), ERR_ARG);
}
END_TEST

Suite *err_suite(void)
{
    Suite *s = suite_create("err");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_err_set_context_clear);
    tcase_add_test(tc, test_exercise_todo_and_result);
    suite_add_tcase(s, tc);
    return s;
}
