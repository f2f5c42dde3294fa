/* check_data.c: CSV loading (good and bad files), splits and MinMax scaling. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/common/fixture.h"
#include "lib/train/data.h"
#include "lib/core/err.h"
#include "lib/train/iris.h"
#include "suites.h"

/* Write text to a fresh temporary file; returns its path (static buffer). */
static const char *tmp_csv(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/wb-test-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

START_TEST(test_iris_loads_with_the_sklearn_split)
{
    Dataset train, test;
    ck_assert_int_eq(dataset_load_csv(iris_csv_path(), iris_spec(), &train, &test), ERR_OK);
    ck_assert_int_eq(train.x->shape[0], 120);
    ck_assert_int_eq(test.x->shape[0], 30);
    ck_assert_int_eq(train.n_features, 4);
    ck_assert_int_eq(train.n_classes, 3);
    ck_assert_str_eq(train.feature_names[2], "petal_length");
    ck_assert_str_eq(test.class_names[2], "virginica");
    /* First rows of X_train and X_test of train_test_split(..., random_state=42). */
    const float tr0[4] = {4.6f, 3.6f, 1.0f, 0.2f}, te0[4] = {6.1f, 2.8f, 4.7f, 1.2f};
    float rows[480];
    ck_assert_int_eq(tensor_get_rows(train.x, rows), ERR_OK);
    assert_close("x_train row 0", rows, tr0, 4, 0, 0);
    ck_assert_int_eq(tensor_get_rows(test.x, rows), ERR_OK);
    assert_close("x_test row 0", rows, te0, 4, 0, 0);
    /* Column-major: feature 1 of sample 0 sits one column (n values) further. */
    ck_assert_float_eq(tensor_f32(train.x)[120], 3.6f);
    ck_assert_int_eq(tensor_i32(train.y)[0], 0);
    ck_assert_int_eq(tensor_i32(test.y)[0], 1);
    int counts[3] = {0};
    for (int i = 0; i < 120; i++) counts[tensor_i32(train.y)[i]]++;
    ck_assert_int_eq(counts[0] + counts[1] + counts[2], 120);
    ck_assert(counts[0] > 30 && counts[1] > 30 && counts[2] > 30);
    dataset_free(&train);
    dataset_free(&test);
}
END_TEST

typedef struct BadCase {
    const char *text;
    ErrCode code;
    const char *message; /* must appear in the error */
} BadCase;

static const BadCase bad_cases[] = {
    {"", ERR_FORMAT, "the file is empty"},
    {"\n  \n", ERR_FORMAT, "the file is empty"},
    {"a,b,species,split\n", ERR_FORMAT, "no data rows after the header"},
    {"a,b,species,split\n1,2,setosa,train\n1,setosa,train\n", ERR_FORMAT,
     ":3: expected 4 fields (as in the header), found 3"},
    {"a,b,species,split\n1,2,setosa,train\n1,2,3,setosa,train\n", ERR_FORMAT,
     ":3: expected 4 fields (as in the header), found 5"},
    {"a,bee,species,split\n1,abc,setosa,train\n", ERR_FORMAT,
     ":2: field 2 (bee) is \"abc\", not a finite number"},
    {"a,b,species,split\n1,2x,setosa,train\n", ERR_FORMAT, "is \"2x\", not a finite number"},
    {"a,b,species,split\n1,nan,setosa,train\n", ERR_FORMAT, "not a finite number"},
    {"a,b,species,split\n1,1e99,setosa,train\n", ERR_FORMAT,
     ":2: field 2 (b) is \"1e99\", beyond float (the largest float is 3.4028235e+38)"},
    /* Numbers as written: finite in double but beyond float, not 0 but 0 in float, or
     * hexadecimal (strtod reads 0x1p1 as 2). */
    {"a,b,species,split\n1,1e39,setosa,train\n", ERR_FORMAT, "is \"1e39\", beyond float"},
    {"a,b,species,split\n1,-3.5e38,setosa,train\n", ERR_FORMAT, "is \"-3.5e38\", beyond float"},
    {"a,b,species,split\n1,1e-50,setosa,train\n", ERR_FORMAT,
     ":2: field 2 (b) is \"1e-50\", not 0 but underflows to 0 in float"},
    {"a,b,species,split\n1,-0.0000000000000000000000000000000000000000000001,setosa,train\n",
     ERR_FORMAT, "underflows to 0 in float"},
    {"a,b,species,split\n1,0x1p1,setosa,train\n", ERR_FORMAT,
     ":2: field 2 (b) is \"0x1p1\", a hexadecimal number: write it in decimal"},
    {"a,b,species,split\n1,-0X.8P1,setosa,train\n", ERR_FORMAT, "a hexadecimal number"},
    {"a,b,species,split\n1,inf,setosa,train\n", ERR_FORMAT, "is \"inf\", not a finite number"},
    {"a,b,species,split\n1,1e,setosa,train\n", ERR_FORMAT, "is \"1e\", not a finite number"},
    /* Line endings: CR alone is named, whether the whole file or one line has it. */
    {"a,b,species,split\r1,2,setosa,train\r1,2,setosa,test\r", ERR_FORMAT,
     ": the lines end in CR alone (classic Mac OS line endings)"},
    {"a,b,species,split\n1,2,setosa,train\n1,2,setosa,test\r1,2,setosa,test\n", ERR_FORMAT,
     ":3: mixed line endings: this line ends in CR alone, others in LF"},
    /* Invisible characters in a field are shown, not printed. */
    {"a,b,species,split\n1,2,set\xe2\x80\xaeosa,train\n", ERR_FORMAT,
     ":2: unknown label \"set\\u202eosa\""},
    {"a,b,species,split\n1,,setosa,train\n", ERR_FORMAT, "field 2 (b) is \"\""},
    {"a,b,species,split\n1,2,setosaa,train\n", ERR_FORMAT,
     ":2: unknown label \"setosaa\" in column \"species\" (expected one of: setosa, versicolor, "
     "virginica)"},
    {"a,b,species,split\n1,2,setosa,tain\n", ERR_FORMAT,
     ":2: column \"split\" is \"tain\" (expected train or test)"},
    {"a,b,label,split\n1,2,setosa,train\n", ERR_FORMAT, ":1: the header has no column \"species\""},
    {"a,b,species\n1,2,setosa\n", ERR_FORMAT, ":1: the header has no column \"split\""},
    {"species,split\nsetosa,train\n", ERR_FORMAT, "names no feature columns"},
};

START_TEST(test_bad_files_name_file_line_and_problem)
{
    const BadCase *c = &bad_cases[_i];
    const char *path = tmp_csv(c->text);
    Dataset train, test;
    int rc = dataset_load_csv(path, iris_spec(), &train, &test);
    ck_assert_msg(rc == (int)c->code, "case %d: got code %d (%s), expected %d", _i, rc,
                  err_message(), (int)c->code);
    ck_assert_msg(strstr(err_message(), c->message) != NULL,
                  "case %d: message \"%s\" does not contain \"%s\"", _i, err_message(), c->message);
    ck_assert_msg(strncmp(err_message(), path, strlen(path)) == 0,
                  "case %d: message \"%s\" does not start with the file name", _i, err_message());
    /* Nothing half-loaded. */
    ck_assert_ptr_null(train.x);
    ck_assert_ptr_null(test.x);
    unlink(path);
}
END_TEST

START_TEST(test_missing_file)
{
    Dataset train, test;
    ck_assert_int_eq(dataset_load_csv("/nonexistent/iris.csv", iris_spec(), &train, &test), ERR_IO);
    ck_assert_str_eq(err_message(), "/nonexistent/iris.csv: cannot open: No such file or directory");
}
END_TEST

START_TEST(test_nul_bytes_wide_headers_and_folders)
{
    Dataset train, test;
    char path[64] = "/tmp/wb-test-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    const char nul[] = "a,b,species,split\n1,2\0,setosa,train\n";
    ck_assert_int_eq(write(fd, nul, sizeof nul - 1), (ssize_t)(sizeof nul - 1));
    close(fd);
    ck_assert_int_eq(dataset_load_csv(path, iris_spec(), &train, &test), ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(err_message(), "NUL bytes"));
    unlink(path);

    /* 66 columns and no split column: 65 features, one more than supported. */
    char header[1024] = "", row[1024] = "";
    for (int i = 0; i < 65; i++) {
        snprintf(header + strlen(header), sizeof header - strlen(header), "f%d,", i);
        snprintf(row + strlen(row), sizeof row - strlen(row), "%d,", i);
    }
    char text[2200];
    snprintf(text, sizeof text, "%sspecies\n%ssetosa\n", header, row);
    const char *wide = tmp_csv(text);
    DatasetSpec no_split = {iris_spec()->label_column, iris_spec()->class_names, NULL};
    ck_assert_int_eq(dataset_load_csv(wide, &no_split, &train, NULL), ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(err_message(), "more than 64 feature columns"));
    unlink(wide);

    ck_assert_int_eq(dataset_load_csv("/tmp", iris_spec(), &train, &test), ERR_IO);
    ck_assert_str_eq(err_message(),
                     "/tmp: cannot read it as a CSV file: it is a directory, not a regular file");
}
END_TEST

/* What a float holds is taken as it is: the smallest subnormal, the largest float, a
 * negative zero written as such, and exponents that leave a plain number. */
START_TEST(test_numbers_a_float_holds_are_taken)
{
    const char *path = tmp_csv("a,b,species,split\n"
                               "1.4e-45,3.4028234e38,setosa,train\n"
                               "-0,1e-3,setosa,train\n"
                               "5.,.25e1,setosa,test\n");
    Dataset train, test;
    ck_assert_msg(dataset_load_csv(path, iris_spec(), &train, &test) == ERR_OK, "%s",
                  err_message());
    const float *x = tensor_f32(train.x); /* column-major: a of both rows, then b */
    ck_assert(x[0] == 1.4e-45f && x[0] > 0.0f);
    ck_assert(x[2] == 3.4028234e38f);
    ck_assert(x[1] == 0.0f);
    ck_assert(x[3] == 1e-3f);
    ck_assert(tensor_f32(test.x)[0] == 5.0f && tensor_f32(test.x)[1] == 2.5f);
    dataset_free(&train);
    dataset_free(&test);
    unlink(path);
}
END_TEST

/* A 100,000-byte field or column name: the message shows its start and its length, and
 * keeps its reason; a column name longer than a name may be is refused, not cut short. */
START_TEST(test_long_fields_keep_the_reason)
{
    enum { LONG = 100000 };
    char *text = malloc(2 * LONG + 200);
    char *big = malloc(LONG + 1);
    memset(big, '7', LONG);
    big[LONG] = '\0';
    big[1] = 'x'; /* "7x777...": not a number */
    snprintf(text, 2 * LONG + 200, "a,b,species,split\n1,%s,setosa,train\n", big);
    const char *path = tmp_csv(text);
    Dataset train, test;
    ck_assert_int_eq(dataset_load_csv(path, iris_spec(), &train, &test), ERR_FORMAT);
    ck_assert_msg(strstr(err_message(), "...\" (100000 bytes), not a finite number") &&
                      strlen(err_message()) < 300,
                  "%s", err_message());
    unlink(path);

    memset(big, 'c', LONG);
    snprintf(text, 2 * LONG + 200, "a,%s,species,split\n1,2,setosa,train\n", big);
    path = tmp_csv(text);
    ck_assert_int_eq(dataset_load_csv(path, iris_spec(), &train, &test), ERR_FORMAT);
    ck_assert_msg(strstr(err_message(), ":1: the name of column 2, \"cccc") &&
                      strstr(err_message(), "...\" (100000 bytes), is longer than the 31 bytes "
                                            "a column name may have: shorten it"),
                  "%s", err_message());
    unlink(path);
    /* 31 bytes is a name; 32 is refused. */
    snprintf(text, 2 * LONG + 200, "a,%.31s,species,split\n1,2,setosa,train\n1,2,setosa,test\n",
             big);
    path = tmp_csv(text);
    ck_assert_msg(dataset_load_csv(path, iris_spec(), &train, &test) == ERR_OK, "%s",
                  err_message());
    ck_assert_uint_eq(strlen(train.feature_names[1]), 31);
    dataset_free(&train);
    dataset_free(&test);
    unlink(path);
    snprintf(text, 2 * LONG + 200, "a,%.32s,species,split\n1,2,setosa,train\n", big);
    path = tmp_csv(text);
    ck_assert_int_eq(dataset_load_csv(path, iris_spec(), &train, &test), ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(err_message(), "\", is longer than the 31 bytes"));
    unlink(path);
    free(big);
    free(text);
}
END_TEST

START_TEST(test_crlf_blanks_and_integer_labels)
{
    const char *path = tmp_csv("x1, x2 ,y\r\n\r\n 1.5,-2,1\r\n3,4e-1,0\r\n\r\n7,8,2\r\n");
    DatasetSpec spec = {"y", NULL, NULL};
    Dataset all;
    ck_assert_int_eq(dataset_load_csv(path, &spec, &all, NULL), ERR_OK);
    ck_assert_int_eq(all.x->shape[0], 3);
    ck_assert_int_eq(all.n_classes, 3);
    ck_assert_str_eq(all.feature_names[1], "x2");
    const float want[6] = {1.5f, -2.0f, 3.0f, 0.4f, 7.0f, 8.0f}; /* row by row */
    float got[6];
    ck_assert_int_eq(tensor_get_rows(all.x, got), ERR_OK);
    assert_close("x", got, want, 6, 0, 0);
    ck_assert_int_eq(tensor_i32(all.y)[0], 1);
    ck_assert_int_eq(tensor_i32(all.y)[2], 2);
    dataset_free(&all);
    unlink(path);
}
END_TEST

START_TEST(test_split_is_seeded_disjoint_and_complete)
{
    const int n = 50;
    Dataset all = {0};
    all.x = tensor_new_2d(n, 2);
    int64_t nn = n;
    all.y = tensor_new(DTYPE_I32, device_cpu(), 1, &nn);
    all.n_features = 2;
    all.n_classes = 5;
    for (int i = 0; i < n; i++) { /* sample i: (i, i * i), label i % 5 */
        tensor_f32(all.x)[i] = (float)i;
        tensor_f32(all.x)[i + n] = (float)(i * i);
        tensor_i32(all.y)[i] = i % 5;
    }
    Dataset tr, te, tr2, te2;
    ck_assert_int_eq(dataset_split(&all, 0.2f, 42, &tr, &te), ERR_OK);
    ck_assert_int_eq(te.x->shape[0], 10);
    ck_assert_int_eq(tr.x->shape[0], 40);
    ck_assert_int_eq(dataset_split(&all, 0.2f, 42, &tr2, &te2), ERR_OK);
    ck_assert_mem_eq(te.x->data, te2.x->data, 10 * 2 * sizeof(float));
    dataset_free(&tr2);
    dataset_free(&te2);
    int seen[50] = {0};
    Dataset *parts[2] = {&tr, &te};
    for (int p = 0; p < 2; p++)
        for (int64_t i = 0, rows = parts[p]->x->shape[0]; i < rows; i++) {
            int row = (int)tensor_f32(parts[p]->x)[i];
            ck_assert_float_eq(tensor_f32(parts[p]->x)[i + rows], (float)(row * row));
            ck_assert_int_eq(tensor_i32(parts[p]->y)[i], row % 5);
            seen[row]++;
        }
    for (int i = 0; i < n; i++) ck_assert_int_eq(seen[i], 1);
    ck_assert_int_eq(dataset_split(&all, 0.0f, 1, &tr2, &te2) == ERR_OK, 0);
    ck_assert_int_eq(err_code(), ERR_ARG);
    dataset_free(&tr);
    dataset_free(&te);
    dataset_free(&all);
}
END_TEST

START_TEST(test_scaler_matches_sklearn)
{
    Dataset train, test;
    ck_assert_int_eq(dataset_load_csv(iris_csv_path(), iris_spec(), &train, &test), ERR_OK);
    Scaler s = {0};
    Tensor *xtr, *xte;
    ck_assert_int_eq(scaler_fit(&s, train.x), ERR_OK);
    assert_close("data_min", s.data_min, fixture("lesson01.txt", "minmax.data_min")->cm, 4, 0, 0);
    assert_close("data_max", s.data_max, fixture("lesson01.txt", "minmax.data_max")->cm, 4, 0, 0);
    ck_assert_int_eq(scaler_transform(&s, train.x, &xtr), ERR_OK);
    ck_assert_int_eq(scaler_transform(&s, test.x, &xte), ERR_OK);
    assert_close("x_train scaled", tensor_f32(xtr), fixture("lesson01.txt", "minmax.x_train")->cm,
                 480, 1e-6, 1e-6);
    assert_close("x_test scaled", tensor_f32(xte), fixture("lesson01.txt", "minmax.x_test")->cm,
                 120, 1e-6, 1e-6);
    tensor_free(xtr);
    tensor_free(xte);
    scaler_free(&s);
    dataset_free(&train);
    dataset_free(&test);
}
END_TEST

START_TEST(test_scaler_constant_column_and_errors)
{
    Tensor *x = tensor_new_2d(3, 2), *y = NULL;
    const float v[6] = {5, 1, 5, 3, 5, 2}; /* row by row: feature 0 is constant */
    ck_assert_int_eq(tensor_set_rows(x, v), ERR_OK);
    Scaler s = {0};
    ck_assert_int_eq(scaler_transform(&s, x, &y), ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err_message(), "not fitted"));
    ck_assert_int_eq(scaler_fit(&s, x), ERR_OK);
    ck_assert_int_eq(scaler_transform(&s, x, &y), ERR_OK);
    const float want[6] = {0, 0, 0, 1, 0, 0.5f};
    float got[6];
    ck_assert_int_eq(tensor_get_rows(y, got), ERR_OK);
    assert_close("scaled", got, want, 6, 0, 0);
    Tensor *wrong = tensor_new_2d(3, 3), *z = NULL;
    ck_assert_int_eq(scaler_transform(&s, wrong, &z), ERR_SHAPE);
    ck_assert_ptr_null(z);
    tensor_free(wrong);
    tensor_free(x);
    tensor_free(y);
    scaler_free(&s);
}
END_TEST

Suite *data_suite(void)
{
    Suite *s = suite_create("data");
    TCase *tc = tcase_create("csv");
    tcase_add_test(tc, test_iris_loads_with_the_sklearn_split);
    tcase_add_loop_test(tc, test_bad_files_name_file_line_and_problem, 0,
                        (int)(sizeof bad_cases / sizeof bad_cases[0]));
    tcase_add_test(tc, test_missing_file);
    tcase_add_test(tc, test_crlf_blanks_and_integer_labels);
    tcase_add_test(tc, test_nul_bytes_wide_headers_and_folders);
    tcase_add_test(tc, test_numbers_a_float_holds_are_taken);
    tcase_add_test(tc, test_long_fields_keep_the_reason);
    suite_add_tcase(s, tc);
    TCase *tc2 = tcase_create("split_scale");
    tcase_add_test(tc2, test_split_is_seeded_disjoint_and_complete);
    tcase_add_test(tc2, test_scaler_matches_sklearn);
    tcase_add_test(tc2, test_scaler_constant_column_and_errors);
    suite_add_tcase(s, tc2);
    return s;
}
