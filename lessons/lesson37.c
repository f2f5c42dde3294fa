/*
 * lesson37: Day 37, "GPU training and the __call__ method", as one program.
 *
 * Runs the six parts in order (or one, with --part N). Options for one part
 * follow it on the command line: lesson37 --part 1 --epochs 5000.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lesson.h"
#include "lib/core/err.h"

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
    {"Beyond one GPU: data-parallel training", "06_data_parallel", lesson06_run},
};
#define N_PARTS ((int)(sizeof parts / sizeof parts[0]))

/* The usage, its option lines from main's table. */
static void usage(FILE *out, const LessonOption *opts)
{
    fprintf(out,
            "usage: lesson37 [--part N [PART OPTIONS]] [--quiet] [--out DIR] [--no-plot]\n"
            "\n"
            "Runs the parts of Day 37 in order, or only part N (1-%d).\n",
            N_PARTS);
    for (int i = 0; opts[i].name; i++) {
        char item[32];
        snprintf(item, sizeof item, "--%s%s%s", opts[i].name, opts[i].value ? " " : "",
                 opts[i].value ? opts[i].value : "");
        fprintf(out, "  %-11s  %s\n", item, opts[i].help);
    }
    fprintf(out, "  %-11s  %s\n", "--help", "this text");
}

void lesson_heading(int part, const char *title, const char *readme)
{
    printf("\n== Part %d: %s ==\n   (the lesson text: %s)\n\n", part, title, readme);
}

static bool stopped_at_exercise; /* a part stopped at a stub (LESSON_TODO) */

void lesson_error(int part, const char *message)
{
    /* exercise_todo's words (lib/core/err.c), from this process or a rank's */
    if (strstr(message, "() is not written yet: fill it in in ")) stopped_at_exercise = true;
    char shown[2048]; /* as every message shows names: invisible characters escaped */
    fflush(stdout);
    fprintf(stderr, "lesson37: part %d: %s\n", part,
            err_escape(message, strlen(message), sizeof shown, shown, sizeof shown));
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
    const LessonOption options[] = {
        OPT_LONG("part", &only, "N", 1, N_PARTS,
                 "run one part, with its own options\n"
                 "               (lesson37 --part 1 --help lists them)"),
        OPT_SET("quiet", &ctx.quiet, "print only each part's summary"),
        OPT_TEXT("out", &ctx.out_dir, "DIR", "where data files and plots go (default: out)"),
        OPT_CLEAR("no-plot", &ctx.plots, "do not run gnuplot"),
        OPT_END,
    };
    int status;
    if (!lesson_options_pick(options, &argc, argv, usage, &status)) return status;
    if (!only && argc > 1) {
        int help = strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0;
        if (help)
            usage(stdout, options);
        else {
            fprintf(stderr, "lesson37: \"%s\" is not an option of lesson37 (the options of one "
                            "part need --part N)\n\n", argv[1]);
            usage(stderr, options);
        }
        return help ? LESSON_OK : LESSON_BAD_INPUT;
    }
    if (mkdir(ctx.out_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "lesson37: cannot create the output folder %s: %s\n", ctx.out_dir,
                strerror(errno));
        return LESSON_BAD_INPUT;
    }
    /* A rank that part 6 started under mpirun: the first process has said this already. */
    if (!getenv("OMPI_COMM_WORLD_SIZE"))
        printf("Day 37: GPU training and the __call__ method (exercises from %s/)\n", ctx.impl);
    status = LESSON_OK;
    for (int p = 1; p <= N_PARTS; p++) {
        if (only && p != only) continue;
        const Part *part = &parts[p - 1];
        if (!part->run) {
            printf("\n== Part %d: %s: not built yet (lessons/%s is still to come) ==\n", p,
                   part->title, part->folder);
            continue;
        }
        stopped_at_exercise = false;
        int rc = part->run(&ctx, argc, argv);
        if (rc == LESSON_FAILED && stopped_at_exercise) rc = LESSON_TODO;
        if (rc != LESSON_OK && status != LESSON_FAILED) status = rc; /* a failure outranks */
        if (rc == LESSON_BAD_INPUT) break;
    }
    return status;
}
