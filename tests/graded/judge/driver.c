/*
 * driver.c: `make grade` after the graders are built.
 *
 *   driver --impl lessons|solutions --out DIR --bin DIR --lessons "01 02"
 *
 * For each lesson: if its student file did not compile (DIR/compile_NN.status
 * is not 0), every case scores 0 and the compiler's message is shown;
 * otherwise the lesson's grader runs (student output goes to DIR/run_NN.log)
 * and writes DIR/lessonNN.tsv. Then the driver prints a table per lesson, the
 * total and the next exercise to do, and writes DIR/results.json in
 * Gradescope's autograder format. Its exit status is 0 whenever grading ran.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/core/fileio.h"

#define MAX_CASES 512
#define MAX_LESSONS 8

typedef struct Case {
    char lesson[8];
    char exercise[16];
    char function[96];
    char checks[256];
    double points, score;
    int passed;
    char message[2048];
    char file[256]; /* the student's file */
} Case;

static Case cases[MAX_CASES];
static int n_cases;
static char ran_on[8][160]; /* per lesson: the device its kernels ran on ("" if none) */
static char sandbox[8][1024]; /* per lesson: the sandbox's layers, as its judge found them */

/* What student code can put into the texts this prints (its error messages, its
 * compiler's messages, the device it claims) is shown, not obeyed: control characters
 * (an escape sequence that clears the terminal or rewrites the table, in ASCII or as
 * UTF-8's C1 codes) become '?'. Newlines stay, where a text has lines. (The device a
 * lesson ran on comes from the judge, already printable ASCII.) */
static void shown_not_obeyed(char *s)
{
    for (unsigned char *u = (unsigned char *)s; *u; u++) {
        if ((*u < 0x20 && *u != '\n') || *u == 0x7f) {
            *u = '?';
        } else if (*u == 0xc2 && u[1] >= 0x80 && u[1] <= 0x9f) {
            u[0] = '?';
            u[1] = '?';
            u++;
        }
    }
}
static int reading_lesson;
static int color;

static const char *c_green(void)
{
    return color ? "\033[32m" : "";
}
static const char *c_red(void)
{
    return color ? "\033[31m" : "";
}
static const char *c_bold(void)
{
    return color ? "\033[1m" : "";
}
static const char *c_off(void)
{
    return color ? "\033[0m" : "";
}

/* Replace every `from` in text (of size bytes) with `to`, cutting the end if it grows past. */
static void replace_all(char *text, size_t size, const char *from, const char *to)
{
    char out[4096];
    size_t o = 0, nf = strlen(from), nt = strlen(to);
    for (const char *p = text; *p && o < sizeof out - 1;) {
        if (strncmp(p, from, nf) == 0 && o + nt < sizeof out - 1) {
            memcpy(out + o, to, nt);
            o += nt;
            p += nf;
        } else {
            out[o++] = *p++;
        }
    }
    out[o] = '\0';
    size_t n = o < size - 1 ? o : size - 1;
    memcpy(text, out, n);
    text[n] = '\0';
}

/* Copy src into dst, cutting it short if it does not fit. */
static void copy_text(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (n >= size) n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *b = realloc(buf, cap *= 2);
            if (!b) break;
            buf = b;
        }
    }
    fclose(f);
    if (buf) buf[n] = '\0';
    return buf;
}

/* Read a grader's TSV (or --list output); returns the number of cases read. */
static int read_tsv(const char *lesson, const char *text)
{
    int before = n_cases;
    const char *p = text;
    while (p && *p && n_cases < MAX_CASES) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char line[4096];
        if (len >= sizeof line) len = sizeof line - 1;
        memcpy(line, p, len);
        line[len] = '\0';
        p = end ? end + 1 : NULL;
        char *f[9];
        int nf = 0;
        for (char *q = line; nf < 9;) {
            f[nf++] = q;
            char *tab = strchr(q, '\t');
            if (!tab) break;
            *tab = '\0';
            q = tab + 1;
        }
        if (nf >= 2 && strcmp(f[0], "#device") == 0) {
            snprintf(ran_on[reading_lesson], sizeof ran_on[0], "%s", f[1]);
            continue;
        }
        if (nf >= 2 && strcmp(f[0], "#sandbox") == 0) {
            snprintf(sandbox[reading_lesson], sizeof sandbox[0], "%s", f[1]);
            continue;
        }
        if (nf < 7) continue;
        Case *c = &cases[n_cases++];
        memset(c, 0, sizeof *c);
        snprintf(c->lesson, sizeof c->lesson, "%s", lesson);
        snprintf(c->exercise, sizeof c->exercise, "%s", f[1]);
        snprintf(c->function, sizeof c->function, "%s", f[2]);
        snprintf(c->checks, sizeof c->checks, "%s", f[3]);
        c->points = atof(f[4]);
        c->score = atof(f[5]);
        c->passed = strcmp(f[6], "passed") == 0;
        snprintf(c->message, sizeof c->message, "%s", nf > 7 ? f[7] : "");
        snprintf(c->file, sizeof c->file, "%s", nf > 8 ? f[8] : "");
        shown_not_obeyed(c->message);
        shown_not_obeyed(c->file);
    }
    return n_cases - before;
}

/* Run a command with stdout and stderr to a file; returns its exit status. */
static int run_to(char *const argv[], const char *log)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        FILE *f = freopen(log, "w", stdout);
        if (!f || dup2(fileno(stdout), 2) < 0) _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) < 0) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Length of the valid UTF-8 sequence at s, or 0 if it is not one: strict, as
 * RFC 3629 has it (no over-long forms, no surrogates, nothing above U+10FFFF). */
static int utf8_len(const unsigned char *s)
{
    unsigned char c = s[0];
    if (c < 0x80) return 1;
    int n;
    unsigned char lo = 0x80, hi = 0xbf; /* the range of the second byte */
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0)
            lo = 0xa0; /* over-long */
        else if (c == 0xed)
            hi = 0x9f; /* U+D800..U+DFFF, the surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0)
            lo = 0x90; /* over-long */
        else if (c == 0xf4)
            hi = 0x8f; /* above U+10FFFF */
    } else
        return 0; /* 0x80..0xc1 (a continuation byte or over-long), 0xf5..0xff */
    if (s[1] < lo || s[1] > hi) return 0;
    for (int i = 2; i < n; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    return n;
}

/* A JSON string. Bytes that are not valid UTF-8 (a Latin-1 file name, a
 * character cut in half by truncation) become U+FFFD, so the file stays valid. */
static void json_string(FILE *f, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    fputc('"', f);
    while (*s) {
        int n = utf8_len(s);
        if (n == 0) {
            fputs("\\ufffd", f);
            s++;
        } else if (n > 1) {
            fwrite(s, 1, (size_t)n, f);
            s += n;
        } else {
            if (*s == '"' || *s == '\\')
                fprintf(f, "\\%c", *s);
            else if (*s == '\n')
                fputs("\\n", f);
            else if (*s == '\t')
                fputs("\\t", f);
            else if (*s < 0x20 || *s == 0x7f)
                fprintf(f, "\\u%04x", *s);
            else
                fputc(*s, f);
            s++;
        }
    }
    fputc('"', f);
}

/* Print text indented by `indent` columns, in lines of at most `width`
 * characters, broken at spaces, and at most `limit` characters in all. */
static void print_wrapped(const char *text, int indent, int width, size_t limit)
{
    size_t n = strlen(text);
    if (n > limit) n = limit;
    size_t at = 0;
    while (at < n) {
        while (at < n && text[at] == ' ')
            at++;
        size_t room = (size_t)(width - indent), end = at + room;
        if (end >= n) {
            end = n;
        } else {
            size_t cut = end;
            while (cut > at && text[cut] != ' ')
                cut--;
            if (cut > at) end = cut; /* else a word longer than the line: cut it */
        }
        if (end > at) printf("%*s%.*s\n", indent, "", (int)(end - at), text + at);
        at = end;
    }
    if (strlen(text) > limit) printf("%*s...\n", indent, "");
}

/* The compiler's own lines from a build log (not make's), at most 12. */
static void first_errors(const char *log, char *out, size_t size)
{
    out[0] = '\0';
    int lines = 0;
    for (const char *p = log; p && *p && lines < 12;) {
        const char *end = strchr(p, '\n');
        int len = end ? (int)(end - p) : (int)strlen(p);
        int noise = strncmp(p, "  CC ", 5) == 0 || strncmp(p, "  LINK ", 7) == 0 ||
                    strncmp(p, "  AR ", 5) == 0 || strncmp(p, "  CHECK ", 8) == 0 ||
                    strncmp(p, "  CXX ", 6) == 0 || strncmp(p, "  CU2SIM ", 9) == 0 ||
                    strncmp(p, "  NVCC ", 7) == 0 || strncmp(p, "make", 4) == 0 || len == 0;
        if (!noise) {
            size_t used = strlen(out);
            snprintf(out + used, size - used, "%s%.*s", used ? "\n" : "", len, p);
            lines++;
        }
        p = end ? end + 1 : NULL;
    }
    if (!out[0] && log) snprintf(out, size, "%.400s", log);
}

/* A judge that refused to grade at all (status 2: the sandbox cannot see what the cases
 * need, say) said why in one line: make grade says that line and ends with status 2, before
 * any case is graded, rather than give every case 0. */
static void refused_to_grade(const char *log)
{
    char *text = read_text(log);
    const char *line = text ? strstr(text, "grader: grading refused: ") : NULL;
    if (!line) {
        free(text);
        return;
    }
    printf("%.*s\n", (int)strcspn(line, "\n"), line);
    fflush(stdout);
    exit(2);
}

int main(int argc, char **argv)
{
    const char *impl = "lessons", *out = "build/grade", *bin = "build/rel/grade";
    const char *files = "lessons"; /* the folder the graded exercises.c files are in */
    const char *so_dir = NULL;     /* where the compiled exercises (NN.so) are */
    const char *hide[32];          /* what the runners must not see */
    int n_hide = 0;
    char lessons_arg[256] = "01";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--so") == 0)
            so_dir = argv[i + 1];
        else if (strcmp(argv[i], "--hide") == 0 && n_hide < 30)
            hide[n_hide++] = argv[i + 1];
        if (strcmp(argv[i], "--impl") == 0)
            impl = argv[i + 1];
        else if (strcmp(argv[i], "--out") == 0)
            out = argv[i + 1];
        else if (strcmp(argv[i], "--bin") == 0)
            bin = argv[i + 1];
        else if (strcmp(argv[i], "--files") == 0)
            files = argv[i + 1];
        else if (strcmp(argv[i], "--lessons") == 0)
            snprintf(lessons_arg, sizeof lessons_arg, "%s", argv[i + 1]);
    }
    color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
    double t0 = (double)time(NULL);

    char *lessons[MAX_LESSONS];
    int n_lessons = 0;
    for (char *tok = strtok(lessons_arg, " ,"); tok && n_lessons < MAX_LESSONS;
         tok = strtok(NULL, " ,"))
        lessons[n_lessons++] = tok;

    char compile_msg[MAX_LESSONS][4096];
    int compiled[MAX_LESSONS], first_case[MAX_LESSONS], count[MAX_LESSONS];
    char titles[MAX_LESSONS][128];
    for (int l = 0; l < n_lessons; l++) {
        const char *id = lessons[l];
        char path[1024], log[1024];
        snprintf(titles[l], sizeof titles[l], "Lesson %s", id);
        snprintf(path, sizeof path, "%s/compile_%s.status", out, id);
        char *st = read_text(path);
        compiled[l] = st && atoi(st) == 0;
        free(st);
        compile_msg[l][0] = '\0';
        first_case[l] = n_cases;
        reading_lesson = l;
        ran_on[l][0] = '\0';
        char judge[1024], runner[1024], full[1024], so[1024], ref[1024];
        snprintf(judge, sizeof judge, "%s/judge%s", bin, id);
        snprintf(runner, sizeof runner, "%s/run%s", bin, id);
        snprintf(full, sizeof full, "%s/run%s-full", bin, id);
        snprintf(so, sizeof so, "%s/%s.so", so_dir ? so_dir : bin, id);
        snprintf(ref, sizeof ref, "%s/ref/%s.records", bin, id);
        if (compiled[l]) {
            char tsv[1024], run_log[1024];
            snprintf(log, sizeof log, "%s/judge_%s.log", out, id);
            snprintf(run_log, sizeof run_log, "%s/run_%s.log", out, id);
            snprintf(tsv, sizeof tsv, "%s/lesson%s.tsv", out, id);
            unlink(tsv);
            unlink(run_log);
            char *args[16 + 2 * 32];
            int k = 0;
            args[k++] = judge;
            args[k++] = "--out", args[k++] = (char *)out;
            args[k++] = "--runner", args[k++] = runner;
            if (access(full, X_OK) == 0) args[k++] = "--runner-full", args[k++] = full;
            args[k++] = "--student", args[k++] = so;
            args[k++] = "--ref", args[k++] = ref;
            args[k++] = "--log", args[k++] = run_log;
            for (int h = 0; h < n_hide; h++) args[k++] = "--hide", args[k++] = (char *)hide[h];
            args[k] = NULL;
            int rc = run_to(args, log);
            if (rc == 2) refused_to_grade(log);
            char *text = read_text(tsv);
            if (rc != 0 || !text || read_tsv(id, text) == 0) {
                compiled[l] = 0;
                snprintf(compile_msg[l], sizeof compile_msg[l],
                         "the grader of lesson %s stopped (status %d); see %s", id, rc, log);
            }
            free(text);
        } else {
            snprintf(log, sizeof log, "%s/compile_%s.log", out, id);
            char *text = read_text(log);
            first_errors(text, compile_msg[l], sizeof compile_msg[l]);
            free(text);
        }
        shown_not_obeyed(compile_msg[l]);
        if (!compiled[l]) {
            /* List the cases, all at 0. */
            char list_log[1024];
            snprintf(list_log, sizeof list_log, "%s/list_%s.tsv", out, id);
            char *args[] = {judge, "--list", NULL};
            run_to(args, list_log);
            char *text = read_text(list_log);
            int k = read_tsv(id, text);
            free(text);
            for (int i = n_cases - k; i < n_cases; i++)
                copy_text(cases[i].message, sizeof cases[i].message,
                          compile_msg[l][0] ? compile_msg[l] : "does not compile");
        }
        count[l] = n_cases - first_case[l];
    }

    /* Tables. */
    double total = 0, max_total = 0;
    const Case *next = NULL;
    /* The graders name lessons/NN_name/exercises.c; say where the file really is, in the
     * case's file and where its message names a file of that lesson folder (the line of a
     * kernel's fault, say). */
    for (int i = 0; i < n_cases; i++)
        if (strncmp(cases[i].file, "lessons/", 8) == 0) {
            char where[256], folder[256], moved[512];
            snprintf(where, sizeof where, "%s/%.200s", files, cases[i].file + 8);
            const char *slash = strrchr(cases[i].file, '/');
            snprintf(folder, sizeof folder, "%.*s/", (int)(slash - cases[i].file), cases[i].file);
            snprintf(moved, sizeof moved, "%s/%s", files, folder + 8);
            if (strcmp(folder, moved) != 0) replace_all(cases[i].message, sizeof cases[i].message,
                                                        folder, moved);
            copy_text(cases[i].file, sizeof cases[i].file, where);
        }
    printf("\n%sGrading%s the exercises in %s/ (%s)\n", c_bold(), c_off(), files,
           strcmp(impl, "lessons") == 0 ? "your code" : "the reference answers");
    /* The sandbox's layers, once (per lesson only where the judges found other ones). */
    const char *layers = NULL;
    int same = 1;
    for (int l = 0; l < n_lessons; l++) {
        if (!sandbox[l][0]) continue;
        if (layers && strcmp(layers, sandbox[l]) != 0) same = 0;
        if (!layers) layers = sandbox[l];
    }
    for (int l = 0; l < n_lessons && layers; l++) {
        if (!sandbox[l][0] || (same && sandbox[l] != layers)) continue;
        int unsandboxed = strncmp(sandbox[l], "UNSANDBOXED", 11) == 0;
        printf("%s%s sandbox: %s%s\n", unsandboxed ? c_red() : "",
               same ? "Student code ran in its" : lessons[l], sandbox[l], c_off());
    }
    /* ... and the compile, as tests/graded/sandbox/confine.c found it (once: the first lesson's) */
    char compiled_in[1200] = "";
    for (int l = 0; l < n_lessons && !compiled_in[0]; l++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/compile_%s.log.sandbox", out, lessons[l]);
        char *text = read_text(path);
        for (char *line = text ? strtok(text, "\n") : NULL; line; line = strtok(NULL, "\n")) {
            size_t u = strlen(compiled_in);
            snprintf(compiled_in + u, sizeof compiled_in - u, "%s%s", u ? "; " : "", line);
        }
        free(text);
    }
    if (compiled_in[0]) printf("Its compile: %s\n", compiled_in);
    /* The function column fits the longest name of any lesson (dist_broadcast_parameters),
     * so that every table's columns line up. */
    int fw = 24;
    for (int i = 0; i < n_cases; i++)
        if ((int)strlen(cases[i].function) > fw) fw = (int)strlen(cases[i].function);
    for (int l = 0; l < n_lessons; l++) {
        double score = 0, max = 0;
        printf("\n%sLesson %s%s", c_bold(), lessons[l], c_off());
        if (ran_on[l][0] && compiled[l]) printf("  (GPU checks ran on: %s)", ran_on[l]);
        printf("\n");
        if (!compiled[l] && compile_msg[l][0]) {
            printf("  %s%s%s, so every exercise of this lesson scores 0:\n", c_red(),
                   strstr(compile_msg[l], "refused:") ? "was refused by the grader"
                                                      : "does not compile",
                   c_off());
            for (const char *p = compile_msg[l]; *p;) {
                const char *end = strchr(p, '\n');
                int len = end ? (int)(end - p) : (int)strlen(p);
                printf("    %.*s\n", len, p);
                p = end ? end + 1 : p + len;
            }
        }
        printf("  %-5s %-*s %7s  %s\n", "ex", fw, "function", "points", "result");
        for (int i = first_case[l]; i < first_case[l] + count[l];) {
            /* One row per exercise: the sum of its cases and its first failure. */
            int j = i;
            double s = 0, m = 0;
            const Case *fail = NULL;
            while (j < first_case[l] + count[l] &&
                   strcmp(cases[j].exercise, cases[i].exercise) == 0) {
                s += cases[j].score;
                m += cases[j].points;
                if (!cases[j].passed && !fail) fail = &cases[j];
                j++;
            }
            char pts[32];
            snprintf(pts, sizeof pts, "%g/%g", s, m);
            if (!fail)
                printf("  %-5s %-*s %7s  %s%s%s\n", cases[i].exercise, fw, cases[i].function, pts,
                       c_green(), j - i == 1 ? "passes its check" : "passes all its checks",
                       c_off());
            else if (compiled[l] && strstr(fail->message, "not written yet"))
                printf("  %-5s %-*s %7s  %snot written yet%s\n", cases[i].exercise, fw,
                       cases[i].function, pts, c_red(), c_off());
            else if (compiled[l]) {
                printf("  %-5s %-*s %7s  %sfails: %s%s\n", cases[i].exercise, fw,
                       cases[i].function, pts, c_red(), fail->checks, c_off());
                print_wrapped(fail->message, 8, 100, 900);
            } else
                printf("  %-5s %-*s %7s  %s-%s\n", cases[i].exercise, fw, cases[i].function, pts,
                       c_red(), c_off());
            if (fail && !next && strchr(cases[i].exercise, '.')) next = fail;
            score += s;
            max += m;
            i = j;
        }
        printf("  %sLesson %s: %g/%g%s\n", c_bold(), lessons[l], score, max, c_off());
        char log[1024];
        struct stat sb;
        snprintf(log, sizeof log, "%s/run_%s.log", out, lessons[l]);
        if (compiled[l] && stat(log, &sb) == 0 && sb.st_size > 0)
            printf("  (what your code printed while graded: %s)\n", log);
        total += score;
        max_total += max;
    }
    printf("\n%sTotal: %g/%g%s\n", c_bold(), total, max_total, c_off());
    if (next)
        printf("Next: exercise %s (%s) in %s; make hint EX=%s\n", next->exercise, next->function,
               next->file, next->exercise);
    else if (max_total > 0 && n_lessons == 1)
        printf("Every exercise of Lesson %s passes (make grade without LESSON= grades them "
               "all).\n", lessons[0]);
    else if (max_total > 0)
        printf("Every exercise passes.\n");

    /* results.json (Gradescope). */
    char path[1024];
    snprintf(path, sizeof path, "%s/results.json", out);
    FILE *f = fileio_save_stream(path, "grade results"); /* saved when closed */
    if (!f) {
        fprintf(stderr, "%s\n", err_message());
        return 0;
    }
    fprintf(f, "{\n  \"score\": %g,\n  \"execution_time\": %.0f,\n", total,
            (double)time(NULL) - t0);
    char summary[8192] = "";
    for (int l = 0; l < n_lessons; l++) {
        size_t used = strlen(summary);
        if (!compiled[l] && compile_msg[l][0]) {
            snprintf(summary + used, sizeof summary - used, "Lesson %s %s, so it scores 0:\n",
                     lessons[l],
                     strstr(compile_msg[l], "refused:") ? "was refused by the grader"
                                                        : "does not compile");
            used = strlen(summary);
            copy_text(summary + used, sizeof summary - used, compile_msg[l]);
            used = strlen(summary);
            copy_text(summary + used, sizeof summary - used, "\n");
        }
    }
    for (int l = 0; l < n_lessons; l++) {
        size_t u = strlen(summary);
        if (sandbox[l][0] && (l == 0 || strcmp(sandbox[l], sandbox[l - 1]) != 0))
            snprintf(summary + u, sizeof summary - u, "Lesson %.8s's student code ran in its "
                     "sandbox: %.1000s.\n", lessons[l], sandbox[l]);
        u = strlen(summary);
        if (ran_on[l][0] && compiled[l])
            snprintf(summary + u, sizeof summary - u, "Lesson %s: its GPU checks ran on %s.\n",
                     lessons[l], ran_on[l]);
    }
    size_t used = strlen(summary);
    if (compiled_in[0])
        snprintf(summary + used, sizeof summary - used, "Its compile: %.1100s\n",
                 compiled_in);
    used = strlen(summary);
    snprintf(summary + used, sizeof summary - used, "Total: %g/%g", total, max_total);
    fputs("  \"output\": ", f);
    json_string(f, summary);
    fputs(",\n  \"visibility\": \"visible\",\n  \"stdout_visibility\": \"visible\",\n"
          "  \"tests\": [\n",
          f);
    for (int i = 0; i < n_cases; i++) {
        const Case *c = &cases[i];
        char name[512];
        snprintf(name, sizeof name, "ex%s %s: %s", c->exercise, c->function, c->checks);
        fprintf(f, "    {\"name\": ");
        json_string(f, name);
        fprintf(f, ", \"number\": ");
        json_string(f, c->exercise);
        fprintf(f, ", \"score\": %g, \"max_score\": %g, \"status\": \"%s\", \"output\": ", c->score,
                c->points, c->passed ? "passed" : "failed");
        char shown[2300];
        int l = 0;
        while (l < n_lessons - 1 && strcmp(lessons[l], c->lesson) != 0) l++;
        snprintf(shown, sizeof shown, "%s%s", c->passed ? "passed" : c->message,
                 strncmp(sandbox[l], "UNSANDBOXED", 11) == 0
                     ? " (graded UNSANDBOXED: GRADE_UNSANDBOXED=1 on a machine without a "
                       "system-call filter)"
                     : "");
        json_string(f, shown);
        fprintf(f, ", \"visibility\": \"visible\"}%s\n", i + 1 < n_cases ? "," : "");
    }
    fputs("  ]\n}\n", f);
    if (fclose(f) != 0) fprintf(stderr, "%s\n", err_message());
    snprintf(path, sizeof path, "%s/score.txt", out);
    FILE *sf = fileio_save_stream(path, "score file");
    if (sf) {
        fprintf(sf, "%g %g\n", total, max_total);
        if (fclose(sf) != 0) fprintf(stderr, "%s\n", err_message());
    }
    printf("Wrote %s/results.json (Gradescope) and Check's XML logs beside it.\n", out);
    return 0;
}
