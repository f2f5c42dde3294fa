/* check_train.c: the Iris MLP against PyTorch from the same initial weights,
 * one step in detail and the whole 20000-epoch run of the source lesson. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "tests/common/fixture.h"
#include "tests/common/iris.h"
#include "lib/train/data.h"
#include "lib/core/err.h"
#include "lib/nn/layers.h"
#include "lib/train/train.h"
#include "suites.h"

#define FX "lesson01.txt"

typedef struct Iris {
    Dataset train, test;
    Tensor *x_train, *x_test;
    Module *model;
    Loss *loss;
    Optimizer *opt;
} Iris;

static const char *const param_names[4] = {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"};

/* Iris scaled by our scaler, the MLP holding PyTorch's initial weights. */
static void iris_setup(Iris *s)
{
    iris_scaled(&s->train, &s->test, &s->x_train, &s->x_test);
    Rng rng;
    rng_seed(&rng, 0, 0);
    Module *layers[] = {linear_new("fc1", 4, 10, &rng), relu_new("relu"),
                        linear_new("fc2", 10, 3, &rng)};
    s->model = sequential_new("mlp", 3, layers);
    for (int i = 0; i < 4; i++) {
        char name[64];
        snprintf(name, sizeof name, "mlp.init.%s", param_names[i]);
        const Fixture *fx = fixture(FX, name);
        Param *p = module_find_param(s->model, param_names[i]);
        ck_assert_int_eq(p->value->numel, fx->n);
        memcpy(p->value->data, fx->cm, (size_t)fx->n * sizeof(float));
    }
    s->loss = loss_cross_entropy_new();
    s->opt = optim_sgd_new(s->model, 0.01f);
}

static void iris_teardown(Iris *s)
{
    optim_free(s->opt);
    loss_free(s->loss);
    module_free(s->model);
    iris_free(&s->train, &s->test, s->x_train, s->x_test);
}

START_TEST(test_first_step_matches_pytorch)
{
    Iris s;
    iris_setup(&s);
    const Tensor *logits, *dlogits;
    float value;
    ck_assert_int_eq(module_forward(s.model, s.x_train, &logits), ERR_OK);
    assert_close("logits", tensor_f32(logits), fixture(FX, "mlp.step1.logits")->cm, 360, 1e-5,
                 1e-5);
    ck_assert_int_eq(loss_forward(s.loss, logits, s.train.y, &value), ERR_OK);
    assert_close("loss", &value, fixture(FX, "mlp.step1.loss")->cm, 1, 1e-6, 1e-6);
    ck_assert_int_eq(optim_zero_grad(s.opt), ERR_OK);
    ck_assert_int_eq(loss_backward(s.loss, &dlogits), ERR_OK);
    ck_assert_int_eq(module_backward(s.model, dlogits, NULL), ERR_OK);
    ck_assert_int_eq(optim_step(s.opt), ERR_OK);
    for (int i = 0; i < 4; i++) {
        char name[64];
        Param *p = module_find_param(s.model, param_names[i]);
        snprintf(name, sizeof name, "mlp.step1.%s.grad", param_names[i]);
        assert_close(name, tensor_f32(p->grad), fixture(FX, name)->cm, p->grad->numel, 1e-6,
                     1e-5);
        snprintf(name, sizeof name, "mlp.step1.%s", param_names[i]);
        assert_close(name, tensor_f32(p->value), fixture(FX, name)->cm, p->value->numel, 1e-6,
                     1e-5);
    }
    iris_teardown(&s);
}
END_TEST

/* The source lesson's run: 20000 full-batch epochs, lr 0.01. The loss every
 * 1000 epochs and at the end is PyTorch's within 1e-3, and so is the test
 * accuracy. */
START_TEST(test_iris_20000_epochs_match_pytorch)
{
    Iris s;
    iris_setup(&s);
    const Fixture *want = fixture(FX, "iris.losses");
    ck_assert_int_eq(want->n, 20);
    for (int epoch = 1; epoch <= 20000; epoch++) {
        float value;
        ck_assert_int_eq(train_step(s.model, s.loss, s.opt, s.x_train, s.train.y, &value), ERR_OK);
        if (epoch % 1000 == 0) {
            float w = want->data[epoch / 1000 - 1];
            ck_assert_msg(fabsf(value - w) <= 1e-3f,
                          "loss at epoch %d: got %.6f, PyTorch %.6f (tolerance 1e-3)", epoch,
                          (double)value, (double)w);
        }
    }
    float final_loss, acc;
    ck_assert_int_eq(train_evaluate(s.model, s.loss, s.x_train, s.train.y, &final_loss, NULL),
                     ERR_OK);
    ck_assert_int_eq(train_evaluate(s.model, s.loss, s.x_test, s.test.y, NULL, &acc), ERR_OK);
    float want_loss = fixture(FX, "iris.final_train_loss")->cm[0];
    float want_acc = fixture(FX, "iris.test_accuracy")->cm[0];
    ck_assert_msg(fabsf(final_loss - want_loss) <= 1e-3f,
                  "final training loss %.6f, PyTorch %.6f", (double)final_loss, (double)want_loss);
    ck_assert_msg(fabsf(acc - want_acc) < 0.5f / 30.0f, "test accuracy %.4f, PyTorch %.4f",
                  (double)acc, (double)want_acc);
    iris_teardown(&s);
}
END_TEST

Suite *train_suite(void)
{
    Suite *s = suite_create("train");
    TCase *tc = tcase_create("iris");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_first_step_matches_pytorch);
    tcase_add_test(tc, test_iris_20000_epochs_match_pytorch);
    suite_add_tcase(s, tc);
    return s;
}
