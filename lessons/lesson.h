/*
 * lesson.h: what the parts of `lesson37` share.
 *
 * lessons/lesson37.c is the narrated program; each lesson's lesson.c provides
 * one part as a function with this signature. The driver parses the options
 * every part understands (--quiet, --out, --no-plot) into a LessonContext and
 * hands the rest of the command line to the part.
 */
#ifndef WB_LESSON_H
#define WB_LESSON_H

#include <getopt.h>
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

/* Exit statuses of a part (and of lesson37). */
enum { LESSON_OK = 0, LESSON_FAILED = 1, LESSON_BAD_INPUT = 2 };

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

/* Print a part's heading. */
void lesson_heading(int part, const char *title, const char *readme);

/* Print an error message as one line on stderr ("lesson37: part 1: ..."). */
void lesson_error(int part, const char *message);

/* Part options, read with getopt_long (opterr = 0, optstring ":h"). After
 * getopt_long returned c: lesson_option_error reports a missing value (':'),
 * an unknown option (anything else), or, with c = 0, a value that does not
 * parse for option `name`; it prints the part's usage to stderr and returns
 * LESSON_BAD_INPUT. lesson_option_name gives an option's long name from its
 * value; lesson_no_arguments refuses what follows the options. */
int lesson_option_error(int part, int c, char **argv, const char *name, void (*usage)(FILE *));
const char *lesson_option_name(const struct option *longopts, int c);
int lesson_no_arguments(int part, int argc, char **argv, void (*usage)(FILE *));

/* A path inside the repository shown relative to it ("lessons/data/iris.csv"). */
const char *lesson_path(const char *path);

/* Parse a whole decimal integer or float option; false on junk or out of range. */
bool lesson_parse_long(const char *s, long lo, long hi, long *out);
bool lesson_parse_float(const char *s, float lo, float hi, float *out);

#endif /* WB_LESSON_H */
