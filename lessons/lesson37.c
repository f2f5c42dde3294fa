/*
 * lesson37: Day 37, "GPU training and the __call__ method", as one program.
 *
 * Runs the five parts in order (or one, with --part N). Options for one part
 * follow it on the command line: lesson37 --part 1 --epochs 5000.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lesson.h"

#ifndef WB_IMPL
#define WB_IMPL "solutions"
#endif

typedef struct Part {
    const char *title;
    const char *folder;
    int (*run)(const LessonContext *ctx, int argc, char **argv);
} Part;

static const Part parts[] = {
    {"The CPU baseline", "01_cpu_baseline", lesson01_run},
    {"Moving work to the GPU", "02_device_transfer", lesson02_run},
    {"Why the GPU looks slower", "03_why_gpu_slower", lesson03_run},
    {"Callable objects and the module call", "04_callable_objects", lesson04_run},
    {"The full trainer", "05_trainer", lesson05_run},
};
#define N_PARTS ((int)(sizeof parts / sizeof parts[0]))

static void usage(FILE *out)
{
    fprintf(out,
            "usage: lesson37 [--part N [PART OPTIONS]] [--quiet] [--out DIR] [--no-plot]\n"
            "\n"
            "Runs the parts of Day 37 in order, or only part N (1-%d).\n"
            "  --part N     run one part, with its own options\n"
            "               (lesson37 --part 1 --help lists them)\n"
            "  --quiet      print only each part's summary\n"
            "  --out DIR    where data files and plots go (default: out)\n"
            "  --no-plot    do not run gnuplot\n"
            "  --help       this text\n",
            N_PARTS);
}

void lesson_heading(int part, const char *title, const char *readme)
{
    printf("\n== Part %d: %s ==\n   (the lesson text: %s)\n\n", part, title, readme);
}

void lesson_error(int part, const char *message)
{
    fflush(stdout);
    fprintf(stderr, "lesson37: part %d: %s\n", part, message);
}

bool lesson_parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi) return false;
    *out = v;
    return true;
}

bool lesson_parse_float(const char *s, float lo, float hi, float *out)
{
    char *end;
    errno = 0;
    float v = strtof(s, &end);
    if (end == s || *end || errno || !(v >= lo && v <= hi)) return false;
    *out = v;
    return true;
}

int lesson_option_error(int part, int c, char **argv, const char *name,
                        void (*part_usage)(FILE *))
{
    if (c == 0)
        fprintf(stderr, "lesson37: part %d: \"%s\" is not a valid value for --%s\n", part, optarg,
                name);
    else if (c == ':')
        fprintf(stderr, "lesson37: part %d: an option needs a value (%s)\n", part,
                argv[optind - 1]);
    else if (optopt)
        fprintf(stderr, "lesson37: part %d: unknown option \"-%c\"\n", part, optopt);
    else
        fprintf(stderr, "lesson37: part %d: unknown option \"%s\"\n", part, argv[optind - 1]);
    fputc('\n', stderr);
    part_usage(stderr);
    return LESSON_BAD_INPUT;
}

const char *lesson_option_name(const struct option *longopts, int c)
{
    for (int i = 0; longopts[i].name; i++)
        if (longopts[i].val == c) return longopts[i].name;
    return "?";
}

int lesson_no_arguments(int part, int argc, char **argv, void (*part_usage)(FILE *))
{
    if (optind >= argc) return LESSON_OK;
    fprintf(stderr, "lesson37: part %d: unexpected argument \"%s\"\n\n", part, argv[optind]);
    part_usage(stderr);
    return LESSON_BAD_INPUT;
}

const char *lesson_path(const char *path)
{
    size_t n = strlen(WB_ROOT);
    if (strncmp(path, WB_ROOT, n) == 0 && path[n] == '/') return path + n + 1;
    return path;
}

int main(int argc, char **argv)
{
    LessonContext ctx = {"out", false, true, isatty(STDOUT_FILENO) != 0, WB_IMPL};
    long only = 0;
    /* The options every part shares may stand anywhere; the rest go to the part. */
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    int n_rest = 0;
    if (!rest) return LESSON_FAILED;
    rest[n_rest++] = argv[0];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--quiet") == 0) {
            ctx.quiet = true;
        } else if (strcmp(a, "--no-plot") == 0) {
            ctx.plots = false;
        } else if (strcmp(a, "--out") == 0 || strcmp(a, "--part") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "lesson37: %s needs a value\n\n", a);
                usage(stderr);
                free(rest);
                return LESSON_BAD_INPUT;
            }
            if (a[2] == 'o') {
                ctx.out_dir = argv[++i];
            } else if (!lesson_parse_long(argv[++i], 1, N_PARTS, &only)) {
                fprintf(stderr, "lesson37: --part takes a number from 1 to %d, not \"%s\"\n",
                        N_PARTS, argv[i]);
                free(rest);
                return LESSON_BAD_INPUT;
            }
        } else {
            rest[n_rest++] = argv[i];
        }
    }
    if (!only && n_rest > 1) {
        int help = strcmp(rest[1], "--help") == 0 || strcmp(rest[1], "-h") == 0;
        if (help)
            usage(stdout);
        else {
            fprintf(stderr, "lesson37: \"%s\" is not an option of lesson37 (the options of one "
                            "part need --part N)\n\n", rest[1]);
            usage(stderr);
        }
        free(rest);
        return help ? LESSON_OK : LESSON_BAD_INPUT;
    }
    if (mkdir(ctx.out_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "lesson37: cannot create the output folder %s: %s\n", ctx.out_dir,
                strerror(errno));
        free(rest);
        return LESSON_BAD_INPUT;
    }
    printf("Day 37: GPU training and the __call__ method (exercises from %s/)\n", ctx.impl);
    int status = LESSON_OK;
    for (int p = 1; p <= N_PARTS; p++) {
        if (only && p != only) continue;
        const Part *part = &parts[p - 1];
        if (!part->run) {
            printf("\n== Part %d: %s: not built yet (lessons/%s is still to come) ==\n", p,
                   part->title, part->folder);
            continue;
        }
        optind = 0; /* let getopt_long start afresh for each part */
        int rc = part->run(&ctx, n_rest, rest);
        if (rc != LESSON_OK) status = rc;
        if (rc == LESSON_BAD_INPUT) break;
    }
    free(rest);
    return status;
}
