/*
 * student.h: the student's code in the runner.
 *
 * A runner is built without the exercises it grades: the student's objects (or the
 * answers', for make grade IMPL=solutions) are a shared object that the runner loads
 * with dlopen once the system-call filter is in place (sandbox.h), so nothing of the
 * student's code, its constructors included, runs before the filter. lib and the
 * suite call the exercises by name as usual: each name is a trampoline of the runner
 * (tests/graded/allow/gen_trampolines.pl writes them from tests/graded/allow/) that jumps
 * to the function dlsym found in the shared object, or to a stub that fails the case
 * when the file does not define it.
 */
#ifndef WB_GRADED_STUDENT_H
#define WB_GRADED_STUDENT_H

/* What a trampoline jumps to (any signature: the trampoline passes its arguments on). */
typedef void (*StudentFn)(void);

/* One trampoline's name and the slot it jumps through. */
typedef struct StudentSymbol {
    const char *name;
    StudentFn *slot;
} StudentSymbol;

/* The table gen_trampolines.pl writes; a runner built with the answers linked in (the
 * reference runner) has none. */
extern const StudentSymbol student_symbols[] __attribute__((weak));
extern const int n_student_symbols __attribute__((weak));

/* Whether this runner grades a shared object (it has trampolines). */
int student_expected(void);

/* Load the shared object open on descriptor @p fd and point every trampoline at its
 * function. Returns 0, or -1 with a reason in @p err. */
int student_load(int fd, char *err, unsigned long size);

/* What a trampoline jumps to while its exercise is missing: fails the case. */
void student_missing(const char *name) __attribute__((noreturn));

#endif
