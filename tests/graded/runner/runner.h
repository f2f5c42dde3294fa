/*
 * runner.h: the RUN half of a graded case (see graded.h).
 *
 *   runNN --case NAME --fd N    run one case, records to descriptor N
 *   runNN --device --fd N       write where CUDA work runs (a GPU's name, the
 *                               simulator, or nothing)
 *
 * A RUN body calls the student's code and records what it did; it decides
 * nothing. Check's assertion macros still work in a RUN body for its own
 * set-up (ck_assert_msg(loaded, ...)): in the runner a failed one records the
 * message, which fails the case, and ends the process.
 */
#ifndef WB_GRADED_RUNNER_H
#define WB_GRADED_RUNNER_H

#include <check.h>
#include <stdint.h>

#define RUN(name) void name##_run(void)

typedef struct RunCase {
    const char *name;
    void (*run)(void);
} RunCase;

/* Each suite's table (GRADED_SUITE). */
extern const RunCase run_cases[];
extern const int n_run_cases;

/* Cases whose code must run as several processes (Lesson 06): a suite may
 * define a second table, rank_cases, of bodies that run in each rank of an
 * mpirun launch (`runNN --rank NAME --out PREFIX`, each rank recording into
 * PREFIX.RANK). A RUN body starts them with run_ranks(), which launches this
 * runner as @p ranks ranks under a time limit, waits, and records what each
 * rank recorded under "rR." (r0.rc, r1.flat, ...), whether the rank reached its
 * end (rR.ended) and its own failure (rR.fail), and how the launch ended
 * (ranks.timed_out, ranks.status, ranks.log: the end of their output). The
 * ranks' code runs under the same rules as any student code; the judge still
 * decides from data alone. */
extern const RunCase rank_cases[];
extern const int n_rank_cases;
void run_ranks(const char *rank_case, int ranks, double limit_s);
/* The cases of the suite whose RUN body only calls run_ranks(): their runner starts
 * mpirun, so it loads no student code (the ranks load it, inside the filter). */
extern const char *const launcher_cases[];
extern const int n_launcher_cases;
/* In a rank: the process group the runner joined before it installed the filter. */
struct ProcessGroup *runner_process_group(void);

/* What a case records. Names are unique within a case (key() builds them). */
void put_i64(const char *name, int64_t v);
void put_f64(const char *name, double v);
void put_f32(const char *name, const float *p, int64_t n);
void put_str(const char *name, const char *s); /* NULL is recorded as absent */

/* An exercise's return value, with lib's error code and message after it:
 * name, name.code and name.msg. */
void put_rc(const char *name, int rc);

/* A float buffer with guard zones (graded.h); put_guarded sends it with its
 * guards, for the judge's got_guarded. */
float *guarded_new(int64_t n, float fill);
void put_guarded(const char *name, const float *p);
/* A copy of n input floats with guard zones whose float next to the data is the
 * NaN (graded.h): a read past either end brings a NaN into the result. */
float *guarded_copy(const float *src, int64_t n);
void guarded_free(float *p);

/* The stand-in for an exercise that check_student.pl refused: fails the case
 * with the reason. */
void graded_refused(const char *why) __attribute__((noreturn));
/* What the runner has in place of a function it leaves out (a finished implementation of
 * the lesson's exercises): fails the case, naming it and why. */
void graded_withheld(const char *name, const char *why) __attribute__((noreturn));
/* What the forbidden calls of refused code are pointed at: fails the case too. */
void graded_refused_call(void) __attribute__((noreturn));

/* A copy of n floats (the input a function must only read, kept to send back). */
float *copy_of(const float *p, int64_t n);

#endif
