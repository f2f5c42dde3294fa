/*
 * sandbox.h: the operating-system boundary around student code (make grade).
 *
 * A student's exercises are machine code: they can read and write any memory of
 * the process they run in, so no check of that code decides a grade. The
 * boundary is drawn by the kernel, in layers:
 *
 *   the filter      (sandbox_filter.c, in the runner) a seccomp allowlist,
 *                   installed on every thread before the student's code is loaded
 *                   (the runner loads it with dlopen afterwards, so no constructor of
 *                   it runs unfiltered): no new programs or processes (threads only), no
 *                   sockets, no ptrace, no signals to other processes, no
 *                   namespaces, mounts, io_uring, BPF or keyrings, no terminal
 *                   ioctls; files are opened for writing only where a layer
 *                   below confines them; once loaded, no new executable memory.
 *                   Everything not listed is refused (EPERM, named in the log).
 *   the view        (sandbox_os.c, in the judge's child) where the kernel
 *                   allows: mount, PID, IPC, network and UTS namespaces (through
 *                   a user namespace when not root); the whole file system
 *                   read-only, a private /tmp, the answers and the grader's
 *                   outputs hidden; the runner's processes die with the PID
 *                   namespace's first process, before any verdict is written.
 *   the user        as root: the runner runs as user and group 65534, so the
 *                   judge's files (results.json, score.txt) are out of its reach.
 *   Landlock        where there are no namespaces: files may be written only
 *                   below the case's scratch folder, and what the runner must not
 *                   see (the hidden paths) cannot be read; with namespaces whose
 *                   view could not be made read-only, writes only to the private /tmp.
 *   the session     always: a session of its own with no terminal, standard
 *                   input from /dev/null, a fixed environment, only the
 *                   protocol's descriptors open.
 *   the launcher    (sandbox_guard.c) a case of several ranks is started by a runner
 *                   without the filter, since it runs mpirun; from then on it and
 *                   mpirun may exec only mpirun and the ranks, so no rank can have
 *                   mpirun start anything else (MPI_Comm_spawn).
 *
 * Where a layer is missing the judge says once which and why (sandbox_describe);
 * without the filter it refuses to grade, unless GRADE_UNSANDBOXED=1, and then
 * every result is marked unsandboxed.
 */
#ifndef WB_GRADED_SANDBOX_H
#define WB_GRADED_SANDBOX_H

#include <stddef.h>
#include <sys/types.h>

/* The unprivileged user and group the runner runs as when the judge is root. */
#define SANDBOX_UID 65534
#define SANDBOX_GID 65534

/* What this machine lets the judge use (sandbox_probe). */
typedef struct SandboxPlan {
    int filter;     /* the seccomp filter can be installed */
    int namespaces; /* mount, PID, IPC, network and UTS namespaces */
    int user_ns;    /* ... made inside a user namespace (the judge is not root) */
    int readonly;   /* the namespaces' view is read-only (mount_setattr) */
    int drop_user;  /* the runner runs as SANDBOX_UID (the judge is root) */
    int landlock;   /* writes confined by Landlock (used without namespaces) */
    int unsandboxed; /* GRADE_UNSANDBOXED=1 and no filter: graded, marked */
    char missing[768]; /* the layers that are not used and why, "" if none */
} SandboxPlan;

/* Probe the layers in a child process (nothing of the judge changes) and fill @p plan.
 * GRADE_SANDBOX_LAYERS (a test's knob) may switch layers off: a list of "-ns",
 * "-readonly", "-landlock", "-user" to leave out. */
void sandbox_probe(SandboxPlan *plan);

/* One line: the layers in use, then what is missing and why. */
void sandbox_describe(const SandboxPlan *plan, char *out, size_t size);

/* Whether a layer of @p plan keeps a runner's writes away from the grader's files (a
 * read-only view, Landlock, or another user): then the filter may let it open files for
 * writing (--may-write), else it refuses every such open. */
int sandbox_writes_confined(const SandboxPlan *plan);

/* What a runner is started with. */
typedef struct SandboxRun {
    int program_fd;           /* the runner, open (close-on-exec); its path may be hidden */
    char *const *argv;        /* its arguments (argv[0] included) */
    const char *scratch;      /* a folder the judge made for this run (used without
                               * namespaces; with them the runner's /tmp is private) */
    const char *const *hide;  /* paths the runner must not see (NULL-terminated) */
    int keep_fds;             /* descriptors 0 .. keep_fds-1 stay open; the rest close */
} SandboxRun;

/* In the judge's forked child: enter the layers of @p plan and run the runner.
 * Returns only on failure, with a reason in @p err; the child should then exit 126. */
void sandbox_exec(const SandboxPlan *plan, const SandboxRun *run, char *err, size_t size);

/* Remove a scratch folder without following anything in it (what the runner left
 * there may be symbolic links to anywhere). Returns 0, or -1. */
int sandbox_remove_tree(const char *dir);

/* ---- in the runner (sandbox_filter.c) ------------------------------------------------ */

/* Install the allowlist before student code is loaded. @p may_write: files may be
 * opened for writing (a layer confines them to the scratch folder); @p gpu: the CUDA
 * driver's ioctls are allowed. Returns 0, or -1 with a reason in @p err. */
int sandbox_filter_install(int may_write, int gpu, char *err, size_t size);

/* Once the student's code is loaded: no new executable memory from now on. */
int sandbox_filter_seal(char *err, size_t size);

/* The name of a system call of this machine, for a message ("execve"), or NULL. */
const char *sandbox_syscall_name(int nr);

/* In a runner that starts mpirun (sandbox_guard.c): from now on this process and all it
 * starts may exec only @p programs (NULL-terminated; the paths exactly as passed to
 * execve), @p times in all; every other execve or execveat is refused. The ranks ask
 * mpirun for services over a socket, MPI_Comm_spawn among them, and mpirun runs without
 * the filter. A second call replaces the list and the count. Returns 0, or -1 with a
 * reason in @p err. */
int sandbox_guard_exec(const char *const *programs, int times, char *err, size_t size);

#endif
