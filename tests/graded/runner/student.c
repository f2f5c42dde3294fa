/* student.c: loading the student's shared object into the runner (student.h). */
#define _GNU_SOURCE
#include "student.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "runner.h"

int student_expected(void)
{
    return student_symbols != NULL && &n_student_symbols != NULL && n_student_symbols > 0;
}

int student_load(int fd, char *err, unsigned long size)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    /* RTLD_LOCAL: its names stay its own; RTLD_NOW: a missing name fails here, once */
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(err, size, "the grader could not load the compiled exercises: %s", dlerror());
        return -1;
    }
    for (int i = 0; i < n_student_symbols; i++) {
        void *f = dlsym(h, student_symbols[i].name);
        if (f) memcpy(student_symbols[i].slot, &f, sizeof f); /* (POSIX: a function's address) */
    }
    return 0;
}

void student_missing(const char *name)
{
    char why[256];
    snprintf(why, sizeof why,
             "%s is not defined in the exercise file (was it renamed or deleted? the stub's "
             "name and arguments must stay as they were)",
             name);
    graded_refused(why);
}
