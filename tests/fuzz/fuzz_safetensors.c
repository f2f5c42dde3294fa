/* fuzz_safetensors.c: libFuzzer on the safetensors reader and the checkpoint loader.
 *
 * Every input is parsed as a safetensors file (safetensors_parse); every tensor it
 * accepts is read through a pointer of its type (so a misaligned one is a UBSan error)
 * and every metadata value is looked up. An accepted file is then loaded as a checkpoint
 * into a small trainer (tests/hostile/hostile.h); a refusal must leave the trainer's
 * whole state as it was, or the fuzzer stops with the input. Seeds: what
 * `hostile_inputs --write-seeds` writes (a real checkpoint, with and without its checksum,
 * and the made-up files of tests/hostile). make fuzz runs it. */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/core/err.h"
#include "lib/io/safetensors.h"
#include "lib/train/checkpoint.h"
#include "lib/train/experiment.h"
#include "tests/hostile/hostile.h"

static Experiment *g_run;
static char g_dir[64], g_file[128];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int remove_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(path);
}

/* The folder goes when the fuzzer exits (at the end of its time, or with what it found:
 * the input that failed is kept by libFuzzer, not here). */
static void remove_dir(void)
{
    experiment_free(g_run);
    g_run = NULL;
    nftw(g_dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    snprintf(g_dir, sizeof g_dir, "/tmp/wb-fuzz-st-XXXXXX");
    if (!mkdtemp(g_dir)) abort();
    atexit(remove_dir);
    snprintf(g_file, sizeof g_file, "%s/input.safetensors", g_dir);
    ExperimentConfig c;
    hostile_config(&c, "fuzz");
    if (experiment_open(&c, g_dir, &g_run) != ERR_OK) {
        fprintf(stderr, "fuzz_safetensors: %s\n", err_message());
        abort();
    }
    g_run->trainer->opts.progress = false;
    if (trainer_call(g_run->trainer, 1) != ERR_OK) abort();
    return 0;
}

static volatile double g_sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    SafeTensors *st = NULL;
    if (safetensors_parse(data, size, "input", &st) != ERR_OK) return 0;
    double sum = 0;
    for (int i = 0; i < safetensors_count(st); i++) {
        const StTensor *t = safetensors_get(st, i);
        size_t n = t->bytes / dtype_size(t->dtype);
        for (size_t k = 0; k < n; k++) switch (t->dtype) {
            case DTYPE_F32: sum += ((const float *)t->data)[k]; break;
            case DTYPE_I32: sum += ((const int32_t *)t->data)[k]; break;
            default: sum += ((const uint16_t *)t->data)[k]; break;
            }
        if (safetensors_find(st, t->name) != t) abort(); /* two tensors of one name */
    }
    for (int i = 0; i < safetensors_meta_count(st); i++)
        sum += (double)strlen(safetensors_meta(st, safetensors_meta_key(st, i)));
    g_sink = sum;
    safetensors_free(st);

    /* As a checkpoint: refused, the trainer as it was. */
    FILE *f = fopen(g_file, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) abort();
    unsigned char *before, *after;
    size_t nb, na;
    if (checkpoint_state_bytes(g_run->trainer, &before, &nb) != ERR_OK) abort();
    if (checkpoint_load(g_run->trainer, g_file) != ERR_OK) {
        if (!strstr(err_message(), g_file)) {
            fprintf(stderr, "a refusal that does not name the file: %s\n", err_message());
            abort();
        }
        if (checkpoint_state_bytes(g_run->trainer, &after, &na) != ERR_OK) abort();
        if (na != nb || memcmp(before, after, nb) != 0) {
            fprintf(stderr, "a refused load changed the trainer: %s\n", err_message());
            abort();
        }
        free(after);
    } else if (checkpoint_save(g_run->trainer, g_run->trainer->hist.n, g_run->checkpoint) !=
               ERR_OK) {
        /* What was accepted must be a state the workbook itself would save. */
        fprintf(stderr, "an accepted checkpoint that cannot be saved again: %s\n", err_message());
        abort();
    }
    free(before);
    return 0;
}
