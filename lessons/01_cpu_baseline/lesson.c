/*
 * Part 1: the CPU baseline.
 *
 * The source lesson's Iris MLP, line for line: load, split 80/20, MinMax
 * scaling fitted on the training part, a 4-10-3 network with ReLU, mean
 * cross-entropy, SGD with lr 0.01, 20000 full-batch epochs, the loss recorded
 * every epoch and printed every 100, the wall time, and the loss curve.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lessons/lesson.h"
#include "lib/device/cpuinfo.h"
#include "lib/train/data.h"
#include "lib/core/err.h"
#include "lib/core/fileio.h"
#include "lib/train/iris.h"
#include "lib/nn/layers.h"
#include "lib/nn/loss.h"
#include "lib/nn/optim.h"
#include "lib/io/plot.h"
#include "lib/core/timer.h"
#include "lib/train/train.h"

#define PART 1
#define README "lessons/01_cpu_baseline/README.md"

typedef struct Options {
    long epochs;
    float lr;
    long log_every;
    long seed;
    const char *data;
} Options;

/* The part's options; lesson37 --part 1 --help prints them from this table. */
static bool parse_options(int argc, char **argv, Options *o, int *status)
{
    const LessonOption table[] = {
        OPT_LONG("epochs", &o->epochs, "N", 1, 100000000,
                 "full-batch epochs (default 20000, as in the source lesson)"),
        OPT_FLOAT("lr", &o->lr, "X", 1e-9, 1e9, "SGD learning rate (default 0.01)"),
        OPT_LONG("log-every", &o->log_every, "N", 0, 100000000,
                 "print the loss every N epochs, 0 for never (default 100)"),
        OPT_LONG("seed", &o->seed, "S", 0, 2147483647,
                 "seed of the weight initialisation (default 42)"),
        OPT_TEXT("data", &o->data, "FILE", "the Iris CSV (default " IRIS_CSV ")"),
        OPT_END,
    };
    return lesson_options(PART, table, argc, argv, status);
}

/* Print lib's last error and pick the exit status that fits it. */
static int fail(void)
{
    lesson_error(PART, err_message());
    if (err_code() == ERR_IO || err_code() == ERR_FORMAT) return LESSON_BAD_INPUT;
    return LESSON_FAILED;
}

static void show_cpu(void)
{
    CpuInfo cpu;
    printf("Your CPU (what `lscpu` shows):\n");
    if (cpuinfo_read(&cpu) != ERR_OK) {
        printf("  (not available: %s)\n", err_message());
        return;
    }
    cpuinfo_print(&cpu, stdout);
    printf("  The source lesson ran on an i7-12800HX: 8 performance cores with 2 threads each\n"
           "  and 8 efficient cores with 1, 24 logical CPUs. Its lscpu, inside WSL's virtual\n"
           "  machine, printed them as 12 cores x 2 threads (README: the source box).\n\n");
}

typedef struct Losses {
    const float *v;
    long n;
} Losses;

static int put_losses(FILE *f, void *ctx)
{
    const Losses *l = ctx;
    fprintf(f, "# epoch training_loss\n");
    for (long i = 0; i < l->n; i++) fprintf(f, "%ld %.7g\n", i + 1, (double)l->v[i]);
    return ERR_OK;
}

static int write_losses(const char *path, const float *losses, long n)
{
    return fileio_save(path, "plot data file", put_losses, &(Losses){losses, n});
}

static void draw(const LessonContext *ctx, const char *data, long epochs)
{
    char png[1024], title[128];
    const char *script = WB_ROOT "/lessons/01_cpu_baseline/loss_curve.gp";
    snprintf(png, sizeof png, "%s/01_loss_curve.png", ctx->out_dir);
    snprintf(title, sizeof title, "Iris MLP on the CPU: training loss over %ld epochs", epochs);
    if (!ctx->plots) return;
    if (plot_draw(script, data, png, title) != ERR_OK) {
        printf("Plot: skipped (%s)\n", err_message());
        return;
    }
    /* The text plot goes to a terminal only (in a pipe or a log it would be noise), and
     * --quiet keeps to the summaries: say which kept it away. */
    if (!ctx->tty || ctx->quiet) {
        printf("Plot: %s (no text plot here: %s)\n", png,
               !ctx->tty ? "the output is not a terminal" : "--quiet");
        return;
    }
    printf("Plot: %s\n", png);
    if (plot_draw(script, data, NULL, title) != ERR_OK)
        printf("Plot in the terminal: skipped (%s)\n", err_message());
}

int lesson01_run(const LessonContext *ctx, int argc, char **argv)
{
    Options o = {20000, 0.01f, 100, 42, iris_csv_path()};
    int rc;
    if (!parse_options(argc, argv, &o, &rc)) return rc;
    if (ctx->quiet) o.log_every = 0;

    lesson_heading(PART, "The CPU baseline", README);
    if (!ctx->quiet) show_cpu();
    /* Fail now, not after training, if the results cannot be written. */
    char dat[1024];
    snprintf(dat, sizeof dat, "%s/01_losses.dat", ctx->out_dir);
    if (fileio_save_check(dat, "plot data file") != ERR_OK) {
        char msg[1200];
        snprintf(msg, sizeof msg, "%s (choose another --out folder)", err_message());
        lesson_error(PART, msg);
        return LESSON_BAD_INPUT;
    }

    /* Data: the split of train_test_split(test_size=0.2, random_state=42), which the
     * file's "split" column records; iris_spec() says how the file reads. */
    Dataset train = {0}, test = {0};
    Scaler scaler = {0};
    Tensor *x_train = NULL, *x_test = NULL;
    Module *model = NULL;
    Loss *loss = NULL;
    Optimizer *opt = NULL;
    float *losses = NULL;
    rc = LESSON_OK;
    if (dataset_load_csv(o.data, iris_spec(), &train, &test) != ERR_OK) {
        rc = fail();
        goto done;
    }
    char shown[600];
    if (!ctx->quiet)
        printf("Data: %s: %lld training and %lld test samples, %d features, %d classes\n",
               err_escape(lesson_path(o.data), strlen(lesson_path(o.data)), 400, shown,
                          sizeof shown),
               (long long)train.x->shape[0], (long long)test.x->shape[0], train.n_features,
               train.n_classes);
    if (train.x->shape[0] == 0 || test.x->shape[0] == 0) {
        char msg[1200];
        snprintf(msg, sizeof msg, "%s: no %s rows (its \"%s\" column must mark some rows "
                                  "train and some test)",
                 o.data, train.x->shape[0] == 0 ? "training" : "test", iris_spec()->split_column);
        lesson_error(PART, msg);
        rc = LESSON_BAD_INPUT;
        goto done;
    }

    /* MinMax scaling, fitted on the training part only (no peeking at the test part). */
    if (scaler_fit(&scaler, train.x) || scaler_transform(&scaler, train.x, &x_train) ||
        scaler_transform(&scaler, test.x, &x_test)) {
        rc = fail();
        goto done;
    }
    if (!ctx->quiet)
        printf("Scaling: MinMax fitted on the training part; the test part reuses its min and "
               "max\n");

    /* model = MLP(): fc1 = Linear(4, 10), relu, fc2 = Linear(10, 3). */
    Rng rng;
    rng_seed(&rng, (uint64_t)o.seed, 0);
    Module *layers[] = {linear_new("fc1", train.n_features, 10, &rng), relu_new("relu"),
                        linear_new("fc2", 10, train.n_classes, &rng)};
    model = sequential_new("mlp", 3, layers);
    loss = model ? loss_cross_entropy_new() : NULL;
    opt = loss ? optim_sgd_new(model, o.lr) : NULL;
    losses = malloc((size_t)o.epochs * sizeof *losses);
    if (!opt || !losses) {
        if (!losses) err_set(ERR_NOMEM, "no memory for %ld losses (try fewer --epochs)", o.epochs);
        rc = fail();
        goto done;
    }
    if (!ctx->quiet) {
        printf("Model (%lld parameters, initialised with seed %ld):\n",
               (long long)module_num_scalars(model), o.seed);
        module_print(model, stdout);
        printf("Training: %ld full-batch epochs, SGD lr %g, exercises from %s/\n\n", o.epochs,
               (double)o.lr, ctx->impl);
    }

    /* The training loop of the source. train_step() is its five lines:
     *   outputs = model(X_train)             module_call: the model's hooks run too
     *   loss = criterion(outputs, y_train)   loss_forward
     *   optimizer.zero_grad()                optim_zero_grad
     *   loss.backward()                      loss_backward, module_backward
     *   optimizer.step()                     optim_step
     * and it hands back the loss before the step (loss.item()). */
    double t0 = timer_now();
    long epoch;
    for (epoch = 0; epoch < o.epochs; epoch++) {
        float value;
        if (train_step(model, loss, opt, x_train, train.y, &value)) break;
        losses[epoch] = value; /* losses.append(loss.item()) */
        if (!isfinite(value)) {
            err_set(ERR_NUMERIC, "the loss became %g at epoch %ld: training diverged (try a "
                                 "smaller --lr than %g)",
                    (double)value, epoch + 1, (double)o.lr);
            break;
        }
        if (o.log_every && (epoch + 1) % o.log_every == 0)
            printf("Epoch [%ld/%ld], Loss: %.4f\n", epoch + 1, o.epochs, (double)value);
    }
    double seconds = timer_now() - t0;
    if (epoch < o.epochs) {
        rc = fail();
        goto done;
    }

    float train_loss, test_acc;
    if (train_evaluate(model, loss, x_train, train.y, &train_loss, NULL) ||
        train_evaluate(model, loss, x_test, test.y, NULL, &test_acc)) {
        rc = fail();
        goto done;
    }
    char took[32], per[32];
    printf("\nTraining time: %s for %ld epochs (%s per epoch)\n",
           timer_format(seconds, took, sizeof took), o.epochs,
           timer_format(seconds / (double)o.epochs, per, sizeof per));
    printf("Final training loss: %.4f (the last epoch's: %.4f)\n", (double)train_loss,
           (double)losses[o.epochs - 1]);
    printf("Test accuracy: %.1f%% (%d of %lld)\n", 100.0 * (double)test_acc,
           (int)lroundf(test_acc * (float)test.x->shape[0]), (long long)test.x->shape[0]);
    if (!ctx->quiet)
        printf("For scale: the source lesson's PyTorch loop took 4.62 s on its i7-12800HX;\n"
               "`make bench` times PyTorch and this program side by side on this machine.\n");

    if (write_losses(dat, losses, o.epochs) != ERR_OK) {
        rc = fail();
        goto done;
    }
    printf("Losses: %s\n", dat);
    draw(ctx, dat, o.epochs);

done:
    free(losses);
    optim_free(opt);
    loss_free(loss);
    module_free(model);
    tensor_free(x_train);
    tensor_free(x_test);
    scaler_free(&scaler);
    dataset_free(&train);
    dataset_free(&test);
    return rc;
}
