/*
 * code_lines.h: the judge's reading of code addresses in a runner's messages.
 *
 * The simulator names the line of a kernel's fault by running addr2line; in the runner's
 * sandbox no new process may start, so it writes the code's place in its file instead,
 * FILE+0xOFFSET, FILE being the runner's name for the student's shared object
 * (/proc/self/fd/4: the judge hands it over as descriptor 4) or for the runner itself.
 * Outside the sandbox the judge reads the line from that file's debug information (it
 * only reads the file: no student code runs there).
 */
#ifndef WB_GRADED_CODE_LINES_H
#define WB_GRADED_CODE_LINES_H

#include <stddef.h>

/* The files a runner's FILE+0xOFFSET may name (NULL: none). */
typedef struct CodeFiles {
    const char *student;     /* the student's shared object (the runner's descriptor 4) */
    const char *runner;      /* the runner */
    const char *runner_full; /* the runner of the whole-lesson cases */
} CodeFiles;

/* Every FILE+0xOFFSET of msg (size bytes) that names one of files, as file:line: the
 * innermost line outside the simulator's and the system's sources, a translated file by
 * the .cu it came from, and a file of case_file's lesson folder (the grader compiled a
 * copy) as lessons/NN_name/... as case_file names it. The rest of msg is left as it is. */
void name_code_lines(char *msg, size_t size, const char *case_file, const CodeFiles *files);

#endif
