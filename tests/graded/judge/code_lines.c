/*
 * code_lines.c: the simulator's code addresses in a runner's messages, as file:line
 * (code_lines.h).
 */
#define _GNU_SOURCE
#include "code_lines.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The file a runner's FILE names: the student's shared object or a runner, or NULL. */
static const char *code_file(const char *module, size_t len, const CodeFiles *files)
{
    const char *base = module + len;
    while (base > module && base[-1] != '/') base--;
    size_t blen = (size_t)(module + len - base);
    if (len == strlen("/proc/self/fd/4") && strncmp(module, "/proc/self/fd/4", len) == 0)
        return files->student;
    const char *runners[] = {files->runner, files->runner_full};
    for (int i = 0; i < 2; i++) {
        const char *r = runners[i];
        if (!r) continue;
        const char *rb = strrchr(r, '/') ? strrchr(r, '/') + 1 : r;
        if (strlen(rb) == blen && strncmp(rb, base, blen) == 0) return r;
    }
    return NULL;
}

/* addr2line -i -e FILE 0xOFFSET's line, as the simulator would have named it: the innermost
 * of the inlined calls outside the simulator's sources and the system's, and a translated
 * file (.cpp) by the .cu it came from (its first line, `#line 1 "prog.cu"`). */
static int code_line(const char *file, const char *hex, char *out, size_t size)
{
    out[0] = '\0';
    int fd[2];
    if (!file || pipe(fd) != 0) return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) dup2(null, 0), dup2(null, 2);
        dup2(fd[1], 1);
        close(fd[0]);
        execlp("addr2line", "addr2line", "-i", "-e", file, hex, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    char text[4096];
    size_t got = 0;
    ssize_t n;
    while (got < sizeof text - 1 && (n = read(fd[0], text + got, sizeof text - 1 - got)) > 0)
        got += (size_t)n;
    text[got] = '\0';
    close(fd[0]);
    waitpid(pid, NULL, 0);
    for (char *line = text; *line;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        char *disc = strstr(line, " (discriminator");
        if (disc) *disc = '\0';
        size_t len = strlen(line);
        int useless = len < 3 || line[0] == '?' || strcmp(line + len - 2, ":0") == 0 ||
                      strcmp(line + len - 2, ":?") == 0;
        if (!useless && !strstr(line, "/lib/cudasim/") && strncmp(line, "/usr/", 5) != 0) {
            char *colon = strrchr(line, ':');
            char cu[1024] = "";
            if (colon && colon - line > 4 && strncmp(colon - 4, ".cpp", 4) == 0) {
                *colon = '\0';
                FILE *f = fopen(line, "r");
                char first[1100];
                if (f && fgets(first, sizeof first, f) && strncmp(first, "#line 1 \"", 9) == 0) {
                    char *end = strrchr(first + 9, '"');
                    if (end) snprintf(cu, sizeof cu, "%.*s", (int)(end - first - 9), first + 9);
                }
                if (f) fclose(f);
                *colon = ':';
            }
            if (cu[0])
                snprintf(out, size, "%s%s", cu, colon);
            else
                snprintf(out, size, "%s", line);
            return 0;
        }
        if (!nl) break;
        line = nl + 1;
    }
    return -1;
}

/* A source file as the student knows it: the file of the case's lesson folder
 * (lessons/NN_name/...) where it is one of that folder's (the grader compiled a copy),
 * else as it is. */
static void shown_file(const char *path, const char *case_file, char *out, size_t size)
{
    const char *slash = case_file ? strrchr(case_file, '/') : NULL;
    const char *folder = slash ? slash : case_file; /* "lessons/02_name" + "/exercises.cu" */
    if (slash) {
        const char *name = slash;
        while (name > case_file && name[-1] != '/') name--;
        char part[256];
        snprintf(part, sizeof part, "/%.*s/", (int)(slash - name), name);
        const char *at = strstr(path, part);
        if (at || strncmp(path, part + 1, strlen(part) - 1) == 0) {
            const char *rest = at ? at + strlen(part) : path + strlen(part) - 1;
            snprintf(out, size, "%.*s/%s", (int)(folder - case_file), case_file, rest);
            return;
        }
    }
    char cwd[1024];
    size_t c = getcwd(cwd, sizeof cwd) ? strlen(cwd) : 0;
    if (c && strncmp(path, cwd, c) == 0 && path[c] == '/') path += c + 1;
    snprintf(out, size, "%s", path);
}

/* Every FILE+0xOFFSET of a message that names the student's or the runner's code, as
 * file:line. */
void name_code_lines(char *msg, size_t size, const char *case_file, const CodeFiles *files)
{
    char out[4096];
    size_t o = 0;
    const char *p = msg;
    for (const char *hit; (hit = strstr(p, "+0x")) != NULL && o < sizeof out - 1;) {
        const char *start = hit;
        while (start > p && start[-1] != ' ' && start[-1] != '(') start--;
        const char *end = hit + 3;
        while (isxdigit((unsigned char)*end)) end++;
        char hex[32], line[1100], shown[1200];
        const char *file = *start == '/' ? code_file(start, (size_t)(hit - start), files)
                                              : NULL;
        snprintf(hex, sizeof hex, "0x%.*s", (int)(end - hit - 3 < 16 ? end - hit - 3 : 16), hit + 3);
        if (file && end > hit + 3 && code_line(file, hex, line, sizeof line) == 0) {
            shown_file(line, case_file, shown, sizeof shown);
            o += (size_t)snprintf(out + o, sizeof out - o, "%.*s%s", (int)(start - p), p, shown);
        } else {
            o += (size_t)snprintf(out + o, sizeof out - o, "%.*s", (int)(end - p), p);
        }
        if (o >= sizeof out) o = sizeof out - 1;
        p = end;
    }
    snprintf(out + o, sizeof out - o, "%s", p);
    size_t n = strlen(out) < size - 1 ? strlen(out) : size - 1; /* cut where it must be */
    memcpy(msg, out, n);
    msg[n] = '\0';
}
