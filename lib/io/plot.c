/* plot.c: run gnuplot scripts without a shell in between. */
#define _POSIX_C_SOURCE 200809L
#include "lib/io/plot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/core/err.h"

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

int plot_draw(const char *script, const char *datafile, const char *outfile, const char *title)
{
    if (!plot_available())
        return err_set(ERR_UNSUPPORTED, "gnuplot is not installed (make deps installs it); the "
                                        "data is in %s",
                       datafile);
    const char *parts[] = {script, datafile, outfile ? outfile : "", title ? title : ""};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (strchr(parts[i], '\'') || strchr(parts[i], '\n'))
            return err_set(ERR_ARG, "plot: \"%s\" contains a quote or a newline", parts[i]);
    const char *slash = strrchr(script, '/');
    int dir_len = slash ? (int)(slash - script + 1) : 0;
    char vars[4096];
    snprintf(vars, sizeof vars,
             "datafile='%s'; outfile='%s'; title='%s'; dumb=%d; scriptdir='%.*s'", datafile,
             outfile ? outfile : "", title ? title : "", outfile ? 0 : 1, dir_len, script);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) return err_set(ERR_IO, "plot: cannot start gnuplot (fork failed)");
    if (pid == 0) {
        execlp("gnuplot", "gnuplot", "-e", vars, script, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) < 0) return err_set(ERR_IO, "plot: lost track of gnuplot");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return err_set(ERR_IO, "gnuplot failed on %s (exit status %d) for %s", script,
                       WIFEXITED(status) ? WEXITSTATUS(status) : -1, datafile);
    return ERR_OK;
}
