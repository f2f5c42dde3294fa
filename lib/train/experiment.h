/**
 * @file experiment.h
 * @brief An experiment: a configuration file, and a folder with everything a run made.
 *
 * The source material's last step: instead of editing constants in a
 * script, a run is described by a JSON config (dataset, model, optimizer,
 * scheduler, epochs, precision, device, seed, ...) and lives in a folder:
 *
 *     out/experiments/NAME/config.json            the config, as used
 *     out/experiments/NAME/checkpoint.safetensors the whole training state
 *     out/experiments/NAME/best.safetensors       the best model's weights
 *     out/experiments/NAME/metrics.csv            one row per epoch
 *
 * A config is checked strictly: an unknown key (a typo) or a value of the
 * wrong type is an error that names the file, the line and the key, so a
 * run never trains for an hour with a default it did not mean. What a
 * config holds is what its file says: numbers are kept as the doubles the
 * file writes, so a config written by experiment_config_json() reads back to
 * the same values, bit for bit. One seed makes a CPU run repeat exactly: the
 * weights, the batch order and everything else are drawn from it.
 */
#ifndef WB_EXPERIMENT_H
#define WB_EXPERIMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/core/err.h"
#include "lib/train/data.h"
#include "lib/nn/layers.h"
#include "lib/train/trainer.h"

/** Everything a run is made from; experiment_config_default() gives each field a value. */
typedef struct ExperimentConfig {
    char name[64];          /**< the experiment's folder name */
    char data[16];          /**< "digits", "iris" or "synthetic" */
    int64_t synthetic_n;    /**< synthetic: rows (a fifth more are made for validation) */
    int64_t synthetic_features; /**< synthetic: features per row */
    int synthetic_classes;  /**< synthetic: classes */
    int64_t hidden[MLP_MAX_HIDDEN]; /**< hidden widths of the MLP */
    int n_hidden;           /**< how many */
    char optimizer[8];      /**< "sgd" or "adam" */
    double lr;              /**< learning rate (the optimizer rounds it to float) */
    double momentum;        /**< SGD's momentum (0: plain SGD) */
    double weight_decay;    /**< L2 penalty, as PyTorch's weight_decay */
    char scheduler[8];      /**< "none", "step" or "cosine" */
    int step_size;          /**< step: epochs between decays */
    double gamma;           /**< step: the decay factor */
    double eta_min;         /**< cosine: the lowest learning rate */
    long epochs;            /**< epochs in all */
    int64_t batch_size;     /**< rows per batch */
    double clip_norm;       /**< clip gradients to this global norm (0: off) */
    char precision[10];     /**< "float32", "float16" or "bfloat16" */
    bool grad_scaler;       /**< loss scaling (with float16) */
    char device[16];        /**< "cpu", "cuda", "cuda:N" */
    uint64_t seed;          /**< everything random comes from it */
    int patience;           /**< early stopping after this many epochs without improvement (0: off) */
    double min_delta;       /**< the least improvement that counts: for early stopping and for
                                 the best epoch (the best model saved) */
    int num_workers;        /**< loader: 0 or 1 background worker */
    bool pin_memory;        /**< loader: pinned staging memory (GPU only) */
    long checkpoint_every;  /**< save the full checkpoint every N epochs */
    double loss_weight;     /**< minimise loss_weight x the loss (trainer.h) */
} ExperimentConfig;

/** @brief The defaults: digits, one hidden layer of 64, SGD with momentum 0.9, 20 epochs, ... */
void experiment_config_default(ExperimentConfig *c);

/**
 * @brief Read a JSON config over the values already in @p c (keys it leaves out keep them).
 *
 * @p source names the text in messages. Unknown keys (with a did-you-mean),
 * wrong types, values out of range and combinations that make no sense
 * (float16 without a GPU-free emulation is fine; a GradScaler with float32 is
 * not) are errors naming the source, line and key; @p c is unchanged then.
 * Numbers are stored as the file writes them (in double), so a config reads
 * back from experiment_config_json() to the same bits, and are checked as
 * written, before rounding (json_as_int(), json_as_number()): an integer key
 * takes a whole number (`20`, `20.0`, `2e1`; not `20.000000000000000000001`
 * or `1e-400`), a real key refuses a number that underflows to 0 (`1e-400`),
 * and a key whose range starts at 0 refuses `-0`. The name is a folder name
 * that shows what it is: no control, format or bidi character (U+200B-U+200F,
 * U+202A-U+202E, U+2066-U+2069, U+FEFF: err_invisible()), no slash, quote or
 * leading dot.
 */
WB_MUST_CHECK int experiment_config_parse(const char *text, size_t len, const char *source,
                            ExperimentConfig *c);

/** Largest config file read, in bytes. */
#define EXPERIMENT_CONFIG_MAX ((size_t)1 << 20)

/**
 * @brief experiment_config_parse() on the file at @p path, a regular file of at most
 *        ::EXPERIMENT_CONFIG_MAX bytes (fileio_read_max(): a FIFO or a device is refused
 *        at once, naming what it is).
 */
WB_MUST_CHECK int experiment_config_load(const char *path, ExperimentConfig *c);

/**
 * @brief The config as JSON (indented when @p pretty); the caller frees @p *text.
 *
 * Every field is written, numbers with as few digits as read back as the same
 * doubles, and the text is read back before it is handed out: a config that
 * would not read back to the same values (a learning rate of 0 set in code, a
 * seed above 2^63 - 1, a name with a slash) is ::ERR_ARG naming the field.
 */
WB_MUST_CHECK int experiment_config_json(const ExperimentConfig *c, bool pretty, char **text);

/** A running experiment: what it was made from and everything it made. */
typedef struct Experiment {
    ExperimentConfig cfg;   /**< the config, as used */
    char dir[512];          /**< its folder */
    char checkpoint[600];   /**< dir/checkpoint.safetensors */
    char best[600];         /**< dir/best.safetensors */
    char metrics[600];      /**< dir/metrics.csv */
    Device device;          /**< where it trains */
    Dataset train;          /**< the training data, on the CPU */
    Dataset val;            /**< the validation data */
    Tensor *x_train;        /**< the scaled training features */
    Tensor *x_val;          /**< the scaled validation features */
    Module *model;          /**< the MLP */
    Loss *loss;             /**< mean cross-entropy */
    Optimizer *opt;         /**< SGD or Adam */
    Scheduler *sched;       /**< NULL for "none" */
    Loader *train_loader;   /**< shuffled training batches */
    Loader *val_loader;     /**< validation batches */
    Trainer *trainer;       /**< the trainer over all of them */
    Callable callbacks[4];  /**< best model saver, metrics logger, checkpoint saver, early stopping */
    int n_callbacks;        /**< how many */
    char *config_json;      /**< the config, stored in every checkpoint */
} Experiment;

/**
 * @brief Make everything @p c describes, in the folder @p root/NAME (created, with
 *        config.json written into it).
 *
 * The device is resolved here (a config that asks for "cuda" on a machine
 * without one is an error that says so).
 */
WB_MUST_CHECK int experiment_open(const ExperimentConfig *c, const char *root, Experiment **out);

/**
 * @brief Load the checkpoint at @p path into the experiment's trainer (checkpoint_load()), and
 *        replay the loaded history through early stopping, so that its patience counts on
 *        as if the run had never stopped.
 *
 * All or nothing: the file is checked and staged (checkpoint_stage()), the
 * history replayed through a fresh early stopping, and only then is the
 * trainer changed. A bad file (or an early stopping that fails) changes
 * nothing, and the message names the file and the field.
 */
WB_MUST_CHECK int experiment_resume(Experiment *e, const char *path);

/**
 * @brief experiment_open() and experiment_resume() of @p path as one, for a run resumed
 *        from its checkpoint (`--resume`).
 *
 * Nothing is written until the checkpoint is taken: a refused file leaves the
 * experiment's folder as it was (its config.json still the one of the run that
 * saved it, or no folder at all), and returns its one message.
 */
WB_MUST_CHECK int experiment_open_resumed(const ExperimentConfig *c, const char *root,
                                          const char *path, Experiment **out);

/** @brief Release the experiment and everything it made; NULL is allowed. */
void experiment_free(Experiment *e);

#endif /* WB_EXPERIMENT_H */
