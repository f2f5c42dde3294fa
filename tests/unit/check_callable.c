/* check_callable.c: callables (state, calls, release, partial, map, sort),
 * the module call protocol with hooks, inference mode and the batcher. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/nn/batcher.h"
#include "lib/core/callable.h"
#include "lib/core/err.h"
#include "lib/nn/layers.h"
#include "lib/nn/loss.h"
#include "lib/train/train.h"
#include "suites.h"

START_TEST(test_counter_keeps_state)
{
    Callable a, b;
    Value r;
    ck_assert_int_eq(counter_new(&a), ERR_OK);
    ck_assert_int_eq(counter_new(&b), ERR_OK);
    for (int i = 1; i <= 3; i++) {
        ck_assert_int_eq(callable_call(a, NULL, 0, &r), ERR_OK);
        ck_assert_int_eq(r.kind, VALUE_INT);
        ck_assert_int_eq(r.as.i, i);
    }
    ck_assert_int_eq(callable_call(b, NULL, 0, &r), ERR_OK);
    ck_assert_int_eq(r.as.i, 1); /* each object has its own state */
    ck_assert_int_eq(((CounterState *)callable_state(a))->count, 3);
    ck_assert_str_eq(callable_name(a), "Counter");
    callable_release(a);
    callable_release(b);
}
END_TEST

START_TEST(test_adder_greeter_and_arity)
{
    Callable add, greet;
    Value r, args[2] = {value_int(3), value_int(5)};
    ck_assert_int_eq(adder_new(&add), ERR_OK);
    ck_assert_int_eq(callable_call(add, args, 2, &r), ERR_OK);
    ck_assert_int_eq(r.as.i, 8);
    args[0] = value_float(0.25);
    ck_assert_int_eq(callable_call(add, args, 2, &r), ERR_OK);
    ck_assert_int_eq(r.kind, VALUE_FLOAT);
    ck_assert_double_eq(r.as.f, 5.25);
    ck_assert_int_eq(callable_call(add, args, 1, &r), ERR_ARG);
    ck_assert_str_eq(err_message(), "Adder takes 2 arguments, 1 given");
    args[1] = value_str("x");
    ck_assert_int_eq(callable_call(add, args, 2, &r), ERR_ARG);
    ck_assert_str_eq(err_message(), "Adder: argument 2 is a str, not a number");
    ck_assert_int_eq(greeter_new("Hi", &greet), ERR_OK);
    Value name = value_str("Grace");
    ck_assert_int_eq(callable_call(greet, &name, 1, &r), ERR_OK);
    ck_assert_str_eq(r.as.s, "Hi, Grace");
    callable_release(add);
    callable_release(greet);
}
END_TEST

START_TEST(test_released_handles_are_caught)
{
    Callable c, copy;
    Value r;
    ck_assert_int_eq(counter_new(&c), ERR_OK);
    copy = c;
    ck_assert_int_eq(callable_release(c), ERR_OK);
    ck_assert(!callable_alive(copy));
    ck_assert_int_eq(callable_call(copy, NULL, 0, &r), ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err_message(), "calling a callable that has been released"));
    ck_assert_int_eq(callable_release(c), ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err_message(), "releasing a callable that has been released"));
    /* The slot is reused; the stale handle stays dead. */
    Callable d;
    ck_assert_int_eq(counter_new(&d), ERR_OK);
    ck_assert_int_eq(d.slot, c.slot);
    ck_assert(!callable_alive(c));
    ck_assert(callable_alive(d));
    callable_release(d);
}
END_TEST

START_TEST(test_partial_binds_leading_arguments)
{
    Callable add, add10, add10_5;
    Value r, ten = value_int(10), five = value_int(5);
    ck_assert_int_eq(adder_new(&add), ERR_OK);
    ck_assert_int_eq(callable_partial(add, &ten, 1, &add10), ERR_OK);
    ck_assert_int_eq(callable_call(add10, &five, 1, &r), ERR_OK);
    ck_assert_int_eq(r.as.i, 15);
    ck_assert_int_eq(callable_partial(add10, &five, 1, &add10_5), ERR_OK); /* partial of partial */
    ck_assert_int_eq(callable_call(add10_5, NULL, 0, &r), ERR_OK);
    ck_assert_int_eq(r.as.i, 15);
    ck_assert_int_eq(callable_call(add10, NULL, 0, &r), ERR_ARG); /* add(10): 1 argument */
    ck_assert_str_eq(err_message(), "partial: Adder takes 2 arguments, 1 given");
    callable_release(add);
    ck_assert_int_eq(callable_call(add10, &five, 1, &r), ERR_ARG); /* the inner one is gone */
    ck_assert_ptr_nonnull(strstr(err_message(), "has been released"));
    callable_release(add10);
    callable_release(add10_5);
}
END_TEST

static int negate(void *state, const Value *args, int nargs, Value *out)
{
    (void)state, (void)nargs;
    if (args[0].as.i == 13) return err_set(ERR_ARG, "unlucky");
    *out = value_int(-args[0].as.i);
    return ERR_OK;
}
static const CallableClass negate_class = {"Negate", 1, negate, NULL};

static int cmp_count(void *state, const Value *args, int nargs, Value *out)
{
    (void)nargs;
    (*(int *)state)++;
    *out = value_int(*(const int *)args[0].as.p / 10 - *(const int *)args[1].as.p / 10);
    return ERR_OK;
}
static const CallableClass cmp_class = {"ByTens", 2, cmp_count, free};

START_TEST(test_map_and_sort)
{
    Callable neg, cmp;
    ck_assert_int_eq(callable_new(&negate_class, NULL, &neg), ERR_OK);
    Value in[4] = {value_int(1), value_int(2), value_int(13), value_int(4)}, out[4];
    ck_assert_int_eq(callable_map(neg, in, 2, out), ERR_OK);
    ck_assert_int_eq(out[1].as.i, -2);
    ck_assert_int_eq(callable_map(neg, in, 4, out), ERR_ARG);
    ck_assert_str_eq(err_message(), "map, item 2: Negate: unlucky");
    int *count = calloc(1, sizeof *count);
    ck_assert_int_eq(callable_new(&cmp_class, count, &cmp), ERR_OK);
    int nums[6] = {31, 12, 35, 17, 5, 30}; /* by tens, stable: 5, 12, 17, 31, 35, 30 */
    void *items[6];
    for (int i = 0; i < 6; i++) items[i] = &nums[i];
    ck_assert_int_eq(callable_sort(items, 6, cmp), ERR_OK);
    const int want[6] = {5, 12, 17, 31, 35, 30};
    for (int i = 0; i < 6; i++) ck_assert_int_eq(*(int *)items[i], want[i]);
    ck_assert_int_gt(*count, 0);
    ck_assert_int_le(*count, 6 * 3);
    callable_release(neg);
    callable_release(cmp);
}
END_TEST

/* ---- hooks ----------------------------------------------------------------- */

typedef struct Log {
    char text[256];
    Tensor *replacement;
    int fail;
} Log;

static int log_pre(void *state, const Value *args, int nargs, Value *out)
{
    (void)args, (void)nargs;
    Log *l = state;
    strcat(l->text, "pre ");
    *out = l->replacement ? value_ptr(l->replacement) : value_none();
    return ERR_OK;
}
static int log_post(void *state, const Value *args, int nargs, Value *out)
{
    (void)args, (void)nargs;
    Log *l = state;
    strcat(l->text, "post ");
    if (l->fail) return err_set(ERR_ARG, "hook failed on purpose");
    *out = l->replacement ? value_ptr(l->replacement) : value_none();
    return ERR_OK;
}
static const CallableClass pre_class = {"LogPre", 2, log_pre, NULL};
static const CallableClass post_class = {"LogPost", 3, log_post, NULL};

START_TEST(test_module_call_with_hooks)
{
    Rng rng;
    rng_seed(&rng, 2, 0);
    Module *fc = linear_new("fc1", 3, 2, &rng);
    Tensor *x = tensor_new_2d(4, 3), *x2 = tensor_new_2d(4, 3), *y2 = tensor_new_2d(4, 2);
    ck_assert_int_eq(tensor_fill(x, 1.0f), ERR_OK);
    ck_assert_int_eq(tensor_fill(x2, 2.0f), ERR_OK);
    ck_assert_int_eq(tensor_fill(y2, 7.0f), ERR_OK);
    Log log = {"", NULL, 0}, log2 = {"", NULL, 0};
    Callable pre, post, post2;
    ck_assert_int_eq(callable_new(&pre_class, &log, &pre), ERR_OK);
    ck_assert_int_eq(callable_new(&post_class, &log, &post), ERR_OK);
    ck_assert_int_eq(callable_new(&post_class, &log2, &post2), ERR_OK);
    HookHandle hp, hq, hr;
    ck_assert_int_eq(module_register_forward_pre_hook(fc, pre, &hp), ERR_OK);
    ck_assert_int_eq(module_register_forward_hook(fc, post, &hq), ERR_OK);
    const Tensor *y;
    ck_assert_int_eq(module_call(fc, x, &y), ERR_OK);
    ck_assert_str_eq(log.text, "pre post ");
    /* A pre-hook's replacement is what forward sees. */
    log.replacement = x2;
    const Tensor *ya;
    ck_assert_int_eq(module_call(fc, x, &ya), ERR_OK);
    ck_assert_ptr_eq(fc->input, x2);
    /* A forward hook's replacement is what the caller gets (the second hook's, last). */
    log.replacement = NULL;
    ck_assert_int_eq(module_register_forward_hook(fc, post2, &hr), ERR_OK);
    log2.replacement = y2;
    ck_assert_int_eq(module_call(fc, x, &y), ERR_OK);
    ck_assert_ptr_eq(y, y2);
    /* A failing hook names itself and the module. */
    log2.fail = 1;
    ck_assert_int_eq(module_call(fc, x, &y), ERR_ARG);
    ck_assert_str_eq(err_message(), "forward hook 2 of Linear fc1: LogPost: hook failed on purpose");
    log2.fail = 0;
    /* Removal, and removal twice. */
    ck_assert_int_eq(module_remove_hook(hr), ERR_OK);
    ck_assert_int_eq(module_remove_hook(hr), ERR_ARG);
    ck_assert_str_eq(err_message(), "Linear fc1: hook 3 is not registered (removed twice?)");
    ck_assert_int_eq(module_remove_hook(hp), ERR_OK);
    ck_assert_int_eq(module_remove_hook(hq), ERR_OK);
    log.text[0] = '\0';
    ck_assert_int_eq(module_call(fc, x, &y), ERR_OK);
    ck_assert_str_eq(log.text, "");
    callable_release(pre);
    callable_release(post);
    callable_release(post2);
    tensor_free(x);
    tensor_free(x2);
    tensor_free(y2);
    module_free(fc);
}
END_TEST

/* lib calls a model as model(x), never model.forward(x): a hook sees the batches of
 * evaluation (train_evaluate) and of chunked inference (predict_chunked) too. */
START_TEST(test_lib_calls_the_model_with_its_hooks)
{
    Rng rng;
    rng_seed(&rng, 3, 0);
    Module *fc = linear_new("fc1", 3, 2, &rng);
    Tensor *x = tensor_new_2d(5, 3), *out = tensor_new_2d(5, 2);
    Tensor *y = tensor_new(DTYPE_I32, device_cpu(), 1, (int64_t[]){5});
    Loss *loss = loss_cross_entropy_new();
    ck_assert(fc && x && out && y && loss);
    ck_assert_int_eq(tensor_fill(x, 0.5f), ERR_OK);
    Log log = {"", NULL, 0};
    Callable post;
    HookHandle h;
    ck_assert_int_eq(callable_new(&post_class, &log, &post), ERR_OK);
    ck_assert_int_eq(module_register_forward_hook(fc, post, &h), ERR_OK);
    float acc;
    ck_assert_msg(train_evaluate(fc, loss, x, y, NULL, &acc) == ERR_OK, "%s", err_message());
    ck_assert_str_eq(log.text, "post ");
    ck_assert_msg(predict_chunked(fc, x, 2, out) == ERR_OK, "%s", err_message());
    ck_assert_str_eq(log.text, "post post post post "); /* chunks of 2, 2 and 1 rows */
    ck_assert_int_eq(module_remove_hook(h), ERR_OK);
    callable_release(post);
    loss_free(loss);
    tensor_free(x), tensor_free(out), tensor_free(y);
    module_free(fc);
}
END_TEST

START_TEST(test_inference_mode_keeps_nothing)
{
    Rng rng;
    rng_seed(&rng, 2, 0);
    Module *fc = linear_new("fc1", 3, 2, &rng);
    Tensor *x = tensor_new_2d(4, 3);
    const Tensor *y;
    module_set_grad_enabled(false);
    ck_assert_int_eq(module_call(fc, x, &y), ERR_OK);
    module_set_grad_enabled(true);
    ck_assert_int_eq(module_backward(fc, y, NULL), ERR_ARG);
    ck_assert_ptr_nonnull(strstr(err_message(), "inference mode"));
    tensor_free(x);
    module_free(fc);
}
END_TEST

START_TEST(test_batcher_chunks_in_order)
{
    Rng rng;
    rng_seed(&rng, 4, 0);
    Module *layers[] = {linear_new("fc1", 5, 6, &rng), relu_new("relu"),
                        linear_new("fc2", 6, 3, &rng)};
    Module *model = sequential_new("m", 3, layers);
    Tensor *x = tensor_new_2d(11, 5);
    ck_assert_int_eq(tensor_uniform(x, &rng, -1.0f, 1.0f), ERR_OK);
    const Tensor *whole;
    ck_assert_int_eq(module_call(model, x, &whole), ERR_OK);
    Tensor *want = tensor_clone(whole);
    Callable b;
    ck_assert_int_eq(batcher_new(model, device_cpu(), 4, 5, 3, &b), ERR_OK);
    Value arg = value_ptr(x), r;
    ck_assert_int_eq(callable_call(b, &arg, 1, &r), ERR_OK);
    Tensor *got = r.as.p;
    ck_assert_int_eq(got->shape[0], 11);
    for (int i = 0; i < 33; i++)
        ck_assert_float_eq_tol(tensor_f32(got)[i], tensor_f32(want)[i], 1e-6f);
    ck_assert(module_grad_enabled()); /* restored */
    tensor_free(got);
    Tensor *empty = tensor_new_2d(0, 5);
    arg = value_ptr(empty);
    ck_assert_int_eq(callable_call(b, &arg, 1, &r), ERR_OK);
    ck_assert_int_eq(((Tensor *)r.as.p)->shape[0], 0);
    tensor_free(r.as.p);
    Tensor *wrong = tensor_new_2d(3, 4);
    arg = value_ptr(wrong);
    ck_assert_int_eq(callable_call(b, &arg, 1, &r), ERR_SHAPE);
    ck_assert_str_eq(err_message(), "Batcher: the input has shape (3, 4), expected (N, 5)");
    callable_release(b);
    tensor_free(wrong);
    tensor_free(empty);
    tensor_free(want);
    tensor_free(x);
    module_free(model);
}
END_TEST

Suite *callable_suite(void)
{
    Suite *s = suite_create("callable");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_counter_keeps_state);
    tcase_add_test(tc, test_adder_greeter_and_arity);
    tcase_add_test(tc, test_released_handles_are_caught);
    tcase_add_test(tc, test_partial_binds_leading_arguments);
    tcase_add_test(tc, test_map_and_sort);
    tcase_add_test(tc, test_module_call_with_hooks);
    tcase_add_test(tc, test_lib_calls_the_model_with_its_hooks);
    tcase_add_test(tc, test_inference_mode_keeps_nothing);
    tcase_add_test(tc, test_batcher_chunks_in_order);
    suite_add_tcase(s, tc);
    return s;
}
