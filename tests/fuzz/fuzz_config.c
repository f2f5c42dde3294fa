/* fuzz_config.c: libFuzzer on the experiment-config reader (jansson and the strict schema
 * over it). A refused input must leave the config as it was; an accepted one must be
 * written by experiment_config_json() and read back to the same config, bit for bit.
 * Seeds: tests/fuzz/seeds/config and tests/hostile/configs. make fuzz runs it. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/core/err.h"
#include "lib/train/experiment.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ExperimentConfig c, before;
    experiment_config_default(&c);
    before = c;
    if (experiment_config_parse((const char *)data, size, "input.json", &c) != ERR_OK) {
        if (memcmp(&c, &before, sizeof c) != 0) abort(); /* a refusal changes nothing */
        if (!strstr(err_message(), "input.json")) abort();
        return 0;
    }
    char *text = NULL;
    if (experiment_config_json(&c, size % 2 == 0, &text) != ERR_OK) {
        fprintf(stderr, "read, but cannot be written: %s\n", err_message());
        abort();
    }
    ExperimentConfig back;
    experiment_config_default(&back);
    if (experiment_config_parse(text, strlen(text), "written", &back) != ERR_OK ||
        memcmp(&back, &c, sizeof c) != 0) {
        fprintf(stderr, "written and read back, it changed:\n%s\n", text);
        abort();
    }
    free(text);
    return 0;
}
