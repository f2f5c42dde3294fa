/*
 * options.c: the one option parser of lesson37 and its parts (lessons/lesson.h).
 *
 * Each part describes its options in a table (name, what the value is, where it
 * goes, its range, its line of help); lesson_options() reads a part's command
 * line with getopt_long and lesson_usage() prints the part's usage from the same
 * table. lesson37's own options, which may stand anywhere on the command line,
 * are taken out of it with lesson_options_pick().
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "lessons/lesson.h"
#include "lib/device/device.h"

/* Most options a table may have; getopt_long gets them as values FIRST_VAL + index. */
#define MAX_OPTIONS 24
#define FIRST_VAL 256
/* The usage's synopsis wraps before this column. */
#define USAGE_WIDTH 80

static bool takes_value(const LessonOption *o)
{
    return o->kind != LESSON_OPT_SET && o->kind != LESSON_OPT_CLEAR;
}

/* A whole decimal integer or a float, all of s, from lo to hi. */
static bool parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi) return false;
    *out = v;
    return true;
}

static bool parse_float(const char *s, float lo, float hi, float *out)
{
    char *end;
    errno = 0;
    float v = strtof(s, &end);
    if (end == s || *end || errno || !(v >= lo && v <= hi)) return false;
    *out = v;
    return true;
}

/* Check `value` (NULL for an option without one) and store it; false if it is not valid. */
static bool store(const LessonOption *o, const char *value)
{
    switch (o->kind) {
    case LESSON_OPT_SET: *(bool *)o->to = true; return true;
    case LESSON_OPT_CLEAR: *(bool *)o->to = false; return true;
    case LESSON_OPT_LONG: return parse_long(value, (long)o->lo, (long)o->hi, o->to);
    case LESSON_OPT_FLOAT: return parse_float(value, (float)o->lo, (float)o->hi, o->to);
    case LESSON_OPT_TEXT: *(const char **)o->to = value; return true;
    case LESSON_OPT_DEVICE: /* the spelling, as a config's "device" is checked */
        if (!device_spelled(value)) return false;
        *(const char **)o->to = value;
        return true;
    case LESSON_OPT_CHOICE:
        for (int i = 0; o->choices[i]; i++) {
            if (strcmp(value, o->choices[i]) == 0) {
                *(const char **)o->to = value;
                return true;
            }
        }
        return false;
    }
    return false;
}

/* What an option takes, for a message: "a number from 1 to 5". */
static const char *takes(const LessonOption *o, char *buf, size_t n)
{
    switch (o->kind) {
    case LESSON_OPT_LONG:
        snprintf(buf, n, "a number from %ld to %ld", (long)o->lo, (long)o->hi);
        break;
    case LESSON_OPT_FLOAT:
        snprintf(buf, n, "a number from %g to %g", o->lo, o->hi);
        break;
    case LESSON_OPT_DEVICE: snprintf(buf, n, "%s", DEVICE_SPELLING); break;
    case LESSON_OPT_CHOICE:
        snprintf(buf, n, "one of");
        for (int i = 0; o->choices[i]; i++)
            snprintf(buf + strlen(buf), n - strlen(buf), "%s %s", i ? "," : "", o->choices[i]);
        break;
    default: snprintf(buf, n, "a value"); break;
    }
    return buf;
}

/* "--log-every N" or "--quick": how the option is written. */
static int spelled(const LessonOption *o, char *buf, size_t n)
{
    return snprintf(buf, n, "--%s%s%s", o->name, o->value ? " " : "", o->value ? o->value : "");
}

void lesson_usage(FILE *out, int part, const LessonOption *opts)
{
    char lead[32], item[64];
    int col = snprintf(lead, sizeof lead, "usage: lesson37 --part %d", part), width = 0;
    fputs(lead, out);
    for (int i = 0; opts[i].name; i++) {
        int len = spelled(&opts[i], item, sizeof item);
        if (len > width) width = len;
        if (col + len + 3 > USAGE_WIDTH) { /* " [" ... "]" */
            fprintf(out, "\n%*s", (int)strlen(lead), "");
            col = (int)strlen(lead);
        }
        col += fprintf(out, " [%s]", item);
    }
    fputc('\n', out);
    for (int i = 0; opts[i].name; i++) {
        spelled(&opts[i], item, sizeof item);
        fprintf(out, "  %-*s  %s\n", width, item, opts[i].help);
    }
    fprintf(out, "  and lesson37's own: --quiet, --out DIR, --no-plot\n");
}

/* A refusal: its line (already printed), a blank line and the usage, status BAD_INPUT. */
static bool refuse(int part, const LessonOption *opts, int *status)
{
    fputc('\n', stderr);
    lesson_usage(stderr, part, opts);
    *status = LESSON_BAD_INPUT;
    return false;
}

bool lesson_options(int part, const LessonOption *opts, int argc, char **argv, int *status)
{
    struct option longopts[MAX_OPTIONS + 2];
    int n = 0;
    for (; opts[n].name; n++) {
        if (n == MAX_OPTIONS) {
            fprintf(stderr, "lesson37: part %d: more than %d options in its table\n", part,
                    MAX_OPTIONS);
            *status = LESSON_FAILED;
            return false;
        }
        int has_arg = takes_value(&opts[n]) ? required_argument : no_argument;
        longopts[n] = (struct option){opts[n].name, has_arg, NULL, FIRST_VAL + n};
    }
    longopts[n] = (struct option){"help", no_argument, NULL, 'h'};
    longopts[n + 1] = (struct option){NULL, 0, NULL, 0};
    opterr = 0; /* the messages are ours */
    optind = 0; /* start afresh: getopt_long may have read another part's line */
    int c;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        if (c == 'h') {
            lesson_usage(stdout, part, opts);
            *status = LESSON_OK;
            return false;
        }
        if (c == ':') {
            fprintf(stderr, "lesson37: part %d: an option needs a value (%s)\n", part,
                    argv[optind - 1]);
            return refuse(part, opts, status);
        }
        if (c < FIRST_VAL || c >= FIRST_VAL + n) { /* '?' */
            if (optopt >= FIRST_VAL) /* --quick=yes */
                fprintf(stderr, "lesson37: part %d: --%s takes no value (\"%s\")\n", part,
                        opts[optopt - FIRST_VAL].name, argv[optind - 1]);
            else if (optopt)
                fprintf(stderr, "lesson37: part %d: unknown option \"-%c\"\n", part, optopt);
            else
                fprintf(stderr, "lesson37: part %d: unknown option \"%s\"\n", part,
                        argv[optind - 1]);
            return refuse(part, opts, status);
        }
        const LessonOption *o = &opts[c - FIRST_VAL];
        if (!store(o, optarg)) {
            char what[256];
            fprintf(stderr, "lesson37: part %d: --%s takes %s, not \"%s\"\n", part, o->name,
                    takes(o, what, sizeof what), optarg);
            return refuse(part, opts, status);
        }
    }
    if (optind < argc) {
        fprintf(stderr, "lesson37: part %d: unexpected argument \"%s\"\n", part, argv[optind]);
        return refuse(part, opts, status);
    }
    *status = LESSON_OK;
    return true;
}

bool lesson_options_pick(const LessonOption *opts, int *argc, char **argv,
                         void (*usage)(FILE *, const LessonOption *), int *status)
{
    int kept = 1;
    *status = LESSON_OK;
    for (int i = 1; i < *argc; i++) {
        const LessonOption *o = NULL;
        for (int k = 0; opts[k].name && !o; k++)
            if (strncmp(argv[i], "--", 2) == 0 && strcmp(argv[i] + 2, opts[k].name) == 0)
                o = &opts[k];
        if (!o) {
            argv[kept++] = argv[i];
            continue;
        }
        if (takes_value(o) && i + 1 >= *argc) {
            fprintf(stderr, "lesson37: %s needs a value\n\n", argv[i]);
            usage(stderr, opts);
            *status = LESSON_BAD_INPUT;
        } else if (!store(o, takes_value(o) ? argv[i + 1] : NULL)) {
            char what[256];
            fprintf(stderr, "lesson37: %s takes %s, not \"%s\"\n", argv[i],
                    takes(o, what, sizeof what), argv[i + 1]);
            *status = LESSON_BAD_INPUT;
        }
        if (*status != LESSON_OK) return false;
        if (takes_value(o)) i++;
    }
    argv[kept] = NULL;
    *argc = kept;
    return true;
}
