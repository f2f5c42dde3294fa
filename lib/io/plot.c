/* plot.c: run gnuplot scripts without a shell in between. */
#define _POSIX_C_SOURCE 200809L
#include "lib/io/plot.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/core/err.h"
#include "lib/core/fileio.h"

bool plot_available(void)
{
    const char *path = getenv("PATH");
    if (!path) return false;
    char dir[4096];
    while (*path) {
        size_t n = strcspn(path, ":");
        if (n > 0 && n < sizeof dir - 16) {
            memcpy(dir, path, n);
            snprintf(dir + n, sizeof dir - n, "/gnuplot");
            if (access(dir, X_OK) == 0) return true;
        }
        path += n + (path[n] == ':');
    }
    return false;
}

/* Append @p s to @p out as the inside of a gnuplot single-quoted string, where a
 * quote is written twice (the only escape such strings have). */
static void quoted(char *out, size_t size, const char *s)
{
    size_t n = strlen(out);
    for (; *s && n + 2 < size; s++) {
        if (*s == '\'') out[n++] = '\'';
        out[n++] = *s;
    }
    out[n] = '\0';
}

/* What gnuplot is run with: its -e text and the script (and the data file, for messages). */
typedef struct Gnuplot {
    const char *vars, *script, *datafile;
} Gnuplot;

/* Run gnuplot; with out >= 0 its standard output is out, and its outfile /dev/stdout.
 * (out's close-on-exec flag is cleared first: dup2() of a descriptor onto itself keeps
 * it, and gnuplot would then open whatever file took its number.) */
static int run_gnuplot(const Gnuplot *g, int out)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) return err_set(ERR_IO, "plot: cannot start gnuplot (fork failed)");
    if (pid == 0) {
        if (out >= 0 && (fcntl(out, F_SETFD, 0) != 0 || dup2(out, 1) != 1)) _exit(126);
        execlp("gnuplot", "gnuplot", "-e", g->vars, g->script, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) < 0) return err_set(ERR_IO, "plot: lost track of gnuplot");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return err_set(ERR_IO, "gnuplot failed on %s (exit status %d) for %s", g->script,
                       WIFEXITED(status) ? WEXITSTATUS(status) : -1, g->datafile);
    return ERR_OK;
}

/* fileio_save()'s writer of a PNG: gnuplot writes it to the temporary file, its stdout. */
static int write_png(FILE *f, void *ctx)
{
    fflush(f);
    return run_gnuplot(ctx, fileno(f));
}

/* The files gnuplot reads must be regular files (a FIFO would stop it for ever). */
static int check_readable(const char *path, const char *what)
{
    int fd;
    size_t size;
    TRY(fileio_open_read(path, FILEIO_MAX_DEFAULT, what, &fd, &size));
    close(fd);
    return ERR_OK;
}

int plot_draw(const char *script, const char *datafile, const char *outfile, const char *title)
{
    if (!plot_available())
        return err_set(ERR_UNSUPPORTED, "gnuplot is not installed (make deps installs it); the "
                                        "data is in %s",
                       datafile);
    const char *parts[] = {script, datafile, outfile ? outfile : "", title ? title : ""};
    static const char *const names[] = {"script", "data file", "output file", "title"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (strchr(parts[i], '\n') || strlen(parts[i]) > 900)
            return err_set(ERR_ARG, "plot: the %s \"%.60s\" %s", names[i], parts[i],
                           strchr(parts[i], '\n') ? "holds a line break: give it on one line"
                                                  : "is longer than 900 characters");
    TRY(check_readable(script, "gnuplot script"));
    TRY(check_readable(datafile, "plot's data file"));
    /* Each value inside single quotes, its quotes doubled: "the trainer's history". */
    const char *slash = strrchr(script, '/');
    char dir[1024] = "";
    if (slash) snprintf(dir, sizeof dir, "%.*s", (int)(slash - script + 1), script);
    char vars[8192] = "datafile='";
    quoted(vars, sizeof vars, datafile);
    strcat(vars, "'; outfile='");
    quoted(vars, sizeof vars, outfile ? "/dev/stdout" : "");
    strcat(vars, "'; title='");
    quoted(vars, sizeof vars, title ? title : "");
    snprintf(vars + strlen(vars), sizeof vars - strlen(vars), "'; dumb=%d; scriptdir='",
             outfile ? 0 : 1);
    quoted(vars, sizeof vars, dir);
    strcat(vars, "'");
    Gnuplot g = {vars, script, datafile};
    /* The PNG goes through the one save of the workbook: a new file renamed over outfile. */
    return outfile ? fileio_save(outfile, "chart", write_png, &g) : run_gnuplot(&g, -1);
}
