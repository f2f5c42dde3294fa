#define _POSIX_C_SOURCE 200809L
/* check_layers.c: Linear and ReLU against PyTorch, gradients by finite
 * differences, initialisation, and the module protocol. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/common/fixture.h"
#include "lib/core/err.h"
#include "lib/nn/layers.h"
#include "lib/nn/loss.h"
#include "suites.h"

#define FX "lesson01.txt"

static Module *linear_from_fixture(void)
{
    Rng rng;
    rng_seed(&rng, 1, 0);
    Module *m = linear_new("fc", 5, 6, &rng);
    ck_assert_ptr_nonnull(m);
    memcpy(m->params[0].value->data, fixture(FX, "linear.w")->cm, 30 * sizeof(float));
    memcpy(m->params[1].value->data, fixture(FX, "linear.b")->cm, 6 * sizeof(float));
    return m;
}

START_TEST(test_linear_matches_pytorch)
{
    Module *m = linear_from_fixture();
    Tensor *x = fixture_tensor(FX, "linear.x", DTYPE_F32);
    Tensor *dy = fixture_tensor(FX, "linear.dy", DTYPE_F32);
    const Tensor *y, *dx;
    ck_assert_int_eq(module_forward(m, x, &y), ERR_OK);
    assert_close("y", tensor_f32(y), fixture(FX, "linear.y")->cm, 42, 1e-5, 1e-5);
    /* dx is written, not added to: fill it with junk first. */
    int64_t shape[2] = {7, 5};
    ck_assert_int_eq(tensor_resize(m->grad_input, 2, shape), ERR_OK);
    ck_assert_int_eq(tensor_fill(m->grad_input, 1e6f), ERR_OK);
    ck_assert_int_eq(module_backward(m, dy, &dx), ERR_OK);
    assert_close("dx", tensor_f32(dx), fixture(FX, "linear.dx")->cm, 35, 1e-5, 1e-5);
    assert_close("dw", tensor_f32(m->params[0].grad), fixture(FX, "linear.dw")->cm, 30, 1e-5,
                 1e-5);
    assert_close("db", tensor_f32(m->params[1].grad), fixture(FX, "linear.db")->cm, 6, 1e-5,
                 1e-5);
    /* Gradients accumulate like PyTorch's until zero_grad. */
    ck_assert_int_eq(module_backward(m, dy, NULL), ERR_OK);
    float twice[30];
    for (int i = 0; i < 30; i++) twice[i] = 2.0f * fixture(FX, "linear.dw")->cm[i];
    assert_close("dw after two backward calls", tensor_f32(m->params[0].grad), twice, 30, 1e-5,
                 1e-5);
    ck_assert_int_eq(module_zero_grad(m), ERR_OK);
    for (int i = 0; i < 30; i++) ck_assert_float_eq(tensor_f32(m->params[0].grad)[i], 0.0f);
    tensor_free(x);
    tensor_free(dy);
    module_free(m);
}
END_TEST

START_TEST(test_linear_shape_errors)
{
    Module *m = linear_from_fixture();
    Tensor *x = tensor_new_2d(7, 4);
    const Tensor *y;
    ck_assert_int_eq(module_forward(m, x, &y), ERR_SHAPE);
    ck_assert_str_eq(err_message(), "Linear fc forward: input has shape (7, 4), expected (N, 5)");
    ck_assert_int_eq(module_backward(m, x, NULL), ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err_message(), "backward called before forward"));
    tensor_free(x);
    module_free(m);
    ck_assert_ptr_null(linear_new("bad", 0, 3, NULL));
    ck_assert_int_eq(err_code(), ERR_ARG);
}
END_TEST

START_TEST(test_linear_init_is_pytorch_default)
{
    Rng a, b;
    rng_seed(&a, 5, 0);
    rng_seed(&b, 5, 0);
    Module *m = linear_new("big", 100, 300, &a), *m2 = linear_new("big", 100, 300, &b);
    const float bound = 0.1f; /* 1 / sqrt(100) */
    const float *w = tensor_f32(m->params[0].value);
    double sum = 0, sq = 0;
    for (int i = 0; i < 30000; i++) {
        ck_assert(w[i] >= -bound && w[i] < bound);
        sum += w[i];
        sq += (double)w[i] * w[i];
    }
    ck_assert_double_le(fabs(sum / 30000), 0.002);
    ck_assert_double_le(fabs(sq / 30000 - bound * bound / 3.0), 0.0002);
    for (int i = 0; i < 300; i++) {
        float bi = tensor_f32(m->params[1].value)[i];
        ck_assert(bi >= -bound && bi < bound);
    }
    ck_assert_mem_eq(m->params[0].value->data, m2->params[0].value->data, 30000 * sizeof(float));
    module_free(m);
    module_free(m2);
}
END_TEST

START_TEST(test_relu_matches_pytorch)
{
    Module *m = relu_new("relu");
    Tensor *x = fixture_tensor(FX, "relu.x", DTYPE_F32);
    Tensor *dy = fixture_tensor(FX, "relu.dy", DTYPE_F32);
    const Tensor *y, *dx;
    ck_assert_int_eq(module_forward(m, x, &y), ERR_OK);
    assert_close("relu y", tensor_f32(y), fixture(FX, "relu.y")->cm, 37, 0, 0);
    ck_assert_int_eq(module_backward(m, dy, &dx), ERR_OK);
    assert_close("relu dx", tensor_f32(dx), fixture(FX, "relu.dx")->cm, 37, 0, 0);
    tensor_free(x);
    tensor_free(dy);
    module_free(m);
}
END_TEST

static Module *small_mlp(uint64_t seed)
{
    Rng rng;
    rng_seed(&rng, seed, 0);
    Module *layers[] = {linear_new("fc1", 4, 5, &rng), relu_new("relu"),
                        linear_new("fc2", 5, 3, &rng)};
    return sequential_new("mlp", 3, layers);
}

static float loss_of(Module *m, Loss *loss, const Tensor *x, const Tensor *y)
{
    const Tensor *logits;
    float v;
    ck_assert_int_eq(module_forward(m, x, &logits), ERR_OK);
    ck_assert_int_eq(loss_forward(loss, logits, y, &v), ERR_OK);
    return v;
}

/* Compare each analytic gradient grad[i] of the n values v with a central
 * difference of the loss (in f32, hence the loose-looking tolerance). */
static void check_against_differences(const char *what, float *v, const float *grad, int64_t n,
                                      Module *m, Loss *loss, const Tensor *x, const Tensor *y)
{
    const float eps = 1e-2f;
    for (int64_t i = 0; i < n; i++) {
        float keep = v[i];
        v[i] = keep + eps;
        double up = loss_of(m, loss, x, y);
        v[i] = keep - eps;
        double down = loss_of(m, loss, x, y);
        v[i] = keep;
        double numeric = (up - down) / (2.0 * eps);
        ck_assert_msg(fabs(numeric - grad[i]) <= 2e-3 + 2e-2 * fabs(numeric),
                      "%s[%lld]: backward gives %.6g, finite differences %.6g", what, (long long)i,
                      (double)grad[i], numeric);
    }
}

/* Every parameter gradient of a small MLP + cross-entropy against central
 * differences (computed in f32, hence the loose-looking tolerance), and the
 * input gradient too. */
START_TEST(test_mlp_gradients_by_finite_differences)
{
    Module *m = small_mlp(11);
    Loss *loss = loss_cross_entropy_new();
    Rng rng;
    rng_seed(&rng, 12, 0);
    Tensor *x = tensor_new_2d(6, 4);
    ck_assert_int_eq(tensor_uniform(x, &rng, -2.0f, 2.0f), ERR_OK);
    int64_t n = 6;
    Tensor *y = tensor_new(DTYPE_I32, device_cpu(), 1, &n);
    const int32_t labels[6] = {0, 2, 1, 1, 0, 2};
    memcpy(y->data, labels, sizeof labels);

    const Tensor *dlogits, *dx;
    loss_of(m, loss, x, y);
    ck_assert_int_eq(module_zero_grad(m), ERR_OK);
    ck_assert_int_eq(loss_backward(loss, &dlogits), ERR_OK);
    ck_assert_int_eq(module_backward(m, dlogits, &dx), ERR_OK);
    Tensor *dx_copy = tensor_clone(dx);

    ParamRef refs[8];
    int np = module_parameters(m, refs, 8);
    ck_assert_int_eq(np, 4);
    for (int p = 0; p < np; p++)
        check_against_differences(refs[p].name, tensor_f32(refs[p].param->value),
                                  tensor_f32(refs[p].param->grad), refs[p].param->value->numel, m,
                                  loss, x, y);
    check_against_differences("dx", tensor_f32(x), tensor_f32(dx_copy), x->numel, m, loss, x, y);
    tensor_free(dx_copy);
    tensor_free(x);
    tensor_free(y);
    loss_free(loss);
    module_free(m);
}
END_TEST

START_TEST(test_module_protocol_names_and_print)
{
    Rng rng;
    rng_seed(&rng, 1, 0);
    Module *layers[] = {linear_new("fc1", 4, 10, &rng), relu_new("relu"),
                        linear_new("fc2", 10, 3, &rng)};
    Module *m = sequential_new("mlp", 3, layers);
    ck_assert_int_eq(module_num_scalars(m), 4 * 10 + 10 + 10 * 3 + 3);
    ParamRef refs[4];
    ck_assert_int_eq(module_parameters(m, refs, 4), 4);
    ck_assert_str_eq(refs[0].name, "fc1.weight");
    ck_assert_str_eq(refs[1].name, "fc1.bias");
    ck_assert_str_eq(refs[3].name, "fc2.bias");
    ck_assert_ptr_eq(module_find_param(m, "fc2.weight"), refs[2].param);
    ck_assert_ptr_null(module_find_param(m, "fc3.weight"));
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    module_print(m, f);
    fclose(f);
    ck_assert_str_eq(text, "Sequential(\n"
                           "  (fc1): Linear(in_features=4, out_features=10, bias=True)\n"
                           "  (relu): ReLU()\n"
                           "  (fc2): Linear(in_features=10, out_features=3, bias=True)\n"
                           ")\n");
    free(text);
    module_train(m, false);
    ck_assert(!m->children[2]->training);
    module_free(m);
}
END_TEST

START_TEST(test_sequential_frees_children_on_failure)
{
    Rng rng;
    rng_seed(&rng, 1, 0);
    Module *layers[] = {linear_new("fc1", 4, 10, &rng), NULL};
    ck_assert_ptr_null(sequential_new("broken", 2, layers));
    ck_assert_ptr_nonnull(strstr(err_message(), "child 1"));
    /* AddressSanitizer (make test SAN=1) reports a leak if fc1 was not freed. */
}
END_TEST

Suite *layers_suite(void)
{
    Suite *s = suite_create("layers");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_linear_matches_pytorch);
    tcase_add_test(tc, test_linear_shape_errors);
    tcase_add_test(tc, test_linear_init_is_pytorch_default);
    tcase_add_test(tc, test_relu_matches_pytorch);
    tcase_add_test(tc, test_mlp_gradients_by_finite_differences);
    tcase_add_test(tc, test_module_protocol_names_and_print);
    tcase_add_test(tc, test_sequential_frees_children_on_failure);
    suite_add_tcase(s, tc);
    return s;
}
