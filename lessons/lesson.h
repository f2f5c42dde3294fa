/*
 * lesson.h: what the parts of `lesson37` share.
 *
 * lessons/lesson37.c is the narrated program; each lesson's lesson.c provides
 * one part as a function with this signature. The driver parses the options
 * every part understands (--quiet, --out, --no-plot) into a LessonContext and
 * hands the rest of the command line to the part. Both parse with one table
 * of options each and the parser of lessons/options.c.
 */
#ifndef WB_LESSON_H
#define WB_LESSON_H

#include <stdbool.h>
#include <stdio.h>

/* Where the repository is, so data and scripts are found from any directory. */
#ifndef WB_ROOT
#define WB_ROOT "."
#endif

typedef struct LessonContext {
    const char *out_dir; /* plots and data files go here ("out") */
    bool quiet;          /* only the summary lines */
    bool plots;          /* run gnuplot */
    bool tty;            /* standard output is a terminal */
    const char *impl;    /* which exercises are linked: "solutions" or "lessons" */
} LessonContext;

/* Exit statuses of a part (and of lesson37). LESSON_TODO: the part stopped at an exercise
 * not written yet, after a line that names it (lesson_error with the stub's message, which
 * lesson37 recognises, or a line of the part's own), where a student's run ends until the
 * exercise is written; `make lesson37` ends with that line and status 0. */
enum { LESSON_OK = 0, LESSON_FAILED = 1, LESSON_BAD_INPUT = 2, LESSON_TODO = 3 };

/* Part 1: lessons/01_cpu_baseline/lesson.c */
int lesson01_run(const LessonContext *ctx, int argc, char **argv);
/* Part 2: lessons/02_device_transfer/lesson.c */
int lesson02_run(const LessonContext *ctx, int argc, char **argv);
/* Part 3: lessons/03_why_gpu_slower/lesson.c */
int lesson03_run(const LessonContext *ctx, int argc, char **argv);
/* Part 4: lessons/04_callable_objects/lesson.c */
int lesson04_run(const LessonContext *ctx, int argc, char **argv);

/* Part 5: lessons/05_trainer/lesson.c */
int lesson05_run(const LessonContext *ctx, int argc, char **argv);
/* Part 6: lessons/06_data_parallel/lesson.c */
int lesson06_run(const LessonContext *ctx, int argc, char **argv);

/* Print a part's heading. */
void lesson_heading(int part, const char *title, const char *readme);

/* Print an error message as one line on stderr ("lesson37: part 1: ..."). */
void lesson_error(int part, const char *message);

/* A path inside the repository shown relative to it ("lessons/data/iris.csv"). */
const char *lesson_path(const char *path);

/* ---- options: a table per part, one parser (lessons/options.c) -------------------- */

/* What an option takes, and what it stores where its entry points. */
typedef enum LessonOptionKind {
    LESSON_OPT_SET,    /* no value: sets a bool (--quick) */
    LESSON_OPT_CLEAR,  /* no value: clears a bool (--no-matmul) */
    LESSON_OPT_LONG,   /* a whole decimal number from lo to hi, into a long */
    LESSON_OPT_FLOAT,  /* a number from lo to hi, into a float */
    LESSON_OPT_TEXT,   /* any text (a file, a device), into a const char * */
    LESSON_OPT_DEVICE, /* a device spelled "cpu", "cuda" or "cuda:N", into a const char * */
    LESSON_OPT_CHOICE, /* one of choices, into a const char * */
} LessonOptionKind;

/* One option: --name, or --name VALUE. A table of them ends with OPT_END. */
typedef struct LessonOption {
    const char *name;           /* "log-every" for --log-every; NULL ends the table */
    LessonOptionKind kind;
    void *to;                   /* where the value goes: a bool, long, float or const char * */
    const char *value;          /* the value's name in the usage ("N"); NULL without one */
    const char *help;           /* its line in the part's usage */
    double lo, hi;              /* LESSON_OPT_LONG and _FLOAT: the range allowed */
    const char *const *choices; /* LESSON_OPT_CHOICE: the values allowed, NULL-terminated */
} LessonOption;

/* The entries of a table, each checking the type of where its value goes. */
#define LESSON_OPT_TO_(type, to) (1 ? (to) : (type *)NULL)
#define OPT_SET(name, to, help) \
    {name, LESSON_OPT_SET, LESSON_OPT_TO_(bool, to), NULL, help, 0, 0, NULL}
#define OPT_CLEAR(name, to, help) \
    {name, LESSON_OPT_CLEAR, LESSON_OPT_TO_(bool, to), NULL, help, 0, 0, NULL}
#define OPT_LONG(name, to, value, lo, hi, help) \
    {name, LESSON_OPT_LONG, LESSON_OPT_TO_(long, to), value, help, lo, hi, NULL}
#define OPT_FLOAT(name, to, value, lo, hi, help) \
    {name, LESSON_OPT_FLOAT, LESSON_OPT_TO_(float, to), value, help, lo, hi, NULL}
#define OPT_TEXT(name, to, value, help) \
    {name, LESSON_OPT_TEXT, LESSON_OPT_TO_(const char *, to), value, help, 0, 0, NULL}
#define OPT_DEVICE(name, to, value, help) \
    {name, LESSON_OPT_DEVICE, LESSON_OPT_TO_(const char *, to), value, help, 0, 0, NULL}
#define OPT_CHOICE(name, to, value, choices, help) \
    {name, LESSON_OPT_CHOICE, LESSON_OPT_TO_(const char *, to), value, help, 0, 0, choices}
#define OPT_END {0}

/* Parse part `part`'s command line with its table (getopt_long: --epochs=5 and
 * an unambiguous --ep 5 work too), storing each value where its entry says.
 * Returns true to go on. Returns false to stop with *status: LESSON_OK after
 * --help (the usage, made from the table, on stdout); LESSON_BAD_INPUT after
 * an unknown option, a missing or bad value or an extra argument (one line on
 * stderr naming it, then the usage). */
bool lesson_options(int part, const LessonOption *opts, int argc, char **argv, int *status);

/* Part `part`'s usage, made from its table: the synopsis, a line per option. */
void lesson_usage(FILE *out, int part, const LessonOption *opts);

/* lesson37's own options, which may stand anywhere among a part's: takes each
 * option of the table (its exact name) and its value out of argv[1 .. *argc - 1],
 * keeps the other arguments in their order and shrinks *argc. Returns false with
 * *status = LESSON_BAD_INPUT after a missing value (then usage(stderr, opts)) or
 * a value out of range (one line saying what the option takes). */
bool lesson_options_pick(const LessonOption *opts, int *argc, char **argv,
                         void (*usage)(FILE *, const LessonOption *), int *status);

#endif /* WB_LESSON_H */
