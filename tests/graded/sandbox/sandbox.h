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
 *                   Its /proc is read-only: no write to its own memory through
 *                   /proc/self/mem, which the kernel allows a process on its own code.
 *   the user        as root: the runner runs as a user and group of this grading's own
 *                   (sandbox_limits.c: one of a pool, GRADE_UIDS, held with a lock), so
 *                   the judge's files (results.json, score.txt) are out of its reach and
 *                   no two gradings share its thread limit. A runner is not dumpable:
 *                   its /proc/self files belong to root, not to its user.
 *   Landlock        where there are no namespaces: files may be written only
 *                   below the case's scratch folder, and what the runner must not
 *                   see (the hidden paths) cannot be read; with namespaces whose
 *                   view could not be made read-only, writes only to the private /tmp.
 *   the limits      (sandbox_limits.c) a cgroup of the judge's own for its runners
 *                   (memory, tasks, CPU bandwidth), or resource limits where none can be
 *                   made; file size and CPU time per process in any case. The compile
 *                   and the static checks of a submission have limits of their own
 *                   (confine.c), and the compiler a view of its own (sandbox_compile.c).
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

/* The unprivileged user and group the runner runs as when the judge is root and no user
 * of its own could be claimed (shared by every grading that is in that case). */
#define SANDBOX_UID 65534
/* The pool of users of their own (GRADE_UIDS=FIRST-LAST in the environment changes it):
 * ids no account uses (a user the system knows is skipped). */
#define SANDBOX_UID_FIRST 400000
#define SANDBOX_UID_LAST 400999
#define SANDBOX_PATH_MAX 4096
/* A runner's address space (RLIMIT_AS, which it sets itself: not on a real GPU, whose driver
 * reserves far more, nor under AddressSanitizer), so that a huge allocation fails. */
#define SANDBOX_RUNNER_AS_MB 2048
/* The processes and threads a runner's user may have at once (RLIMIT_NPROC). */
#define SANDBOX_TASKS 512

/* What this machine lets the judge use (sandbox_probe). */
typedef struct SandboxPlan {
    int filter;     /* the seccomp filter can be installed */
    int namespaces; /* mount, PID, IPC, network and UTS namespaces */
    int user_ns;    /* ... made inside a user namespace (the judge is not root) */
    int readonly;   /* the namespaces' view is read-only (mount_setattr) */
    int drop_user;  /* the runner runs as SANDBOX_UID (the judge is root) */
    int landlock;   /* writes confined by Landlock (used without namespaces) */
    int unsandboxed; /* GRADE_UNSANDBOXED=1 and no filter: graded, marked */
    unsigned uid;   /* the runner's user when drop_user */
    int own_uid;    /* ... one of this grading's own (sandbox_claim_user) */
    int uid_lock;   /* the lock that holds it */
    char uid_why[160]; /* why it is not */
    int grouped;    /* the runners run in a cgroup of the judge's own */
    char limits[400]; /* the limits, as sandbox_group_describe says */
    char missing[768]; /* the layers that are not used and why, "" if none */
} SandboxPlan;

/* Probe the layers in a child process (nothing of the judge changes) and fill @p plan.
 * GRADE_SANDBOX_LAYERS (a test's knob) may switch layers off: a list of "-ns",
 * "-readonly", "-landlock", "-user" to leave out. */
void sandbox_probe(SandboxPlan *plan);

/* As root with the user layer: claim a user of this grading's own for its runners (held
 * until this process ends); where none can be, the plan keeps SANDBOX_UID and says why. */
void sandbox_claim_user(SandboxPlan *plan);

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

/* Become user and group @p uid, with no other groups (as root). Returns 0, or -1. */
int sandbox_become(unsigned uid, char *err, size_t size);

/* Whether GRADE_SANDBOX_LAYERS (a test's knob) switches @p layer off ("ns", "readonly",
 * "landlock", "user", "cgroup"). */
int sandbox_layer_off(const char *layer);

/* ---- limits (sandbox_limits.c) ----------------------------------------------------------- */

/* What a submission's processes may use. */
typedef struct SandboxLimits {
    long long memory_mb; /* of the group together (or of each process's address space) */
    int tasks;           /* processes and threads of the group at once */
    int cpus;            /* cores' worth of CPU time per second of the group (0: any) */
    long long cpu_s;     /* CPU seconds of each process (RLIMIT_CPU; 0: any) */
    long long file_mb;   /* the largest file a process may write (RLIMIT_FSIZE) */
} SandboxLimits;

/* A judge's runners, all at once (a case of several ranks is several processes). */
#define SANDBOX_RUN_LIMITS {4096, SANDBOX_TASKS, 2, 0, 256}
/* The compile of one lesson's files, with its static checks and link (confine.c). */
#define SANDBOX_COMPILE_LIMITS {2048, 256, 2, 0, 256}

enum { SANDBOX_GROUP_NONE, SANDBOX_GROUP_V2, SANDBOX_GROUP_V1 };

/* A control group of one submission's processes: one folder (v2), or one per hierarchy (v1:
 * memory, then pids and cpu where mounted). */
typedef struct SandboxGroup {
    int kind;   /* SANDBOX_GROUP_* */
    int n;      /* folders in dir, 0: none made */
    int pids;   /* which of dir limits the tasks (-1: none) */
    int cpu;    /* CPU bandwidth is limited */
    pid_t owner; /* the process that made it (and alone removes it) */
    char dir[3][SANDBOX_PATH_MAX];
} SandboxGroup;

/* Make a group with @p lim's memory, tasks and CPUs (what is left of those a leftover of a
 * killed grader is removed on the way). Returns 0, or -1 with the reason in @p why (then
 * only resource limits are left: sandbox_limits_set with grouped 0). */
int sandbox_group_make(SandboxGroup *g, const SandboxLimits *lim, char *why, size_t size);
/* Put the calling process into it (before it drops its privileges). Returns 0, or -1. */
int sandbox_group_join(const SandboxGroup *g);
/* Kill every process in it, until none is left. */
void sandbox_group_empty(const SandboxGroup *g);
/* How many of its processes the kernel has killed for memory since it was made. */
long long sandbox_group_oom_kills(const SandboxGroup *g);
/* Empty it and remove it (in the process that made it only). */
void sandbox_group_remove(SandboxGroup *g);
/* One phrase: the group and its limits, or the resource limits and @p why. */
void sandbox_group_describe(const SandboxGroup *g, const SandboxLimits *lim, const char *why,
                            char *out, size_t size);
/* The plan's limits phrase, for sandbox_describe. */
void sandbox_set_limits(SandboxPlan *plan, const SandboxGroup *g, const SandboxLimits *lim,
                        const char *why);
/* In the calling process (and so all it starts): no core files, @p lim's file size and CPU
 * time and, when not @p grouped, its memory as an address-space limit. */
void sandbox_limits_set(const SandboxLimits *lim, int grouped);

/* As root: claim a user of the pool no other grading holds (waiting up to a minute when all
 * are taken), held as long as @p lock_fd is open. Returns 0, or -1 with a reason. */
int sandbox_uid_claim(unsigned *uid, int *lock_fd, char *err, size_t size);

/* ---- Landlock (sandbox_landlock.c) ------------------------------------------------------- */

/* The Landlock ABI of this kernel, 0 where there is none. */
int sandbox_landlock_abi(void);

/* What a process may still do with files once confined. */
typedef struct SandboxLandlock {
    const char *const *write; /* folders below which anything may be done (NULL-terminated) */
    const char *const *show;  /* what may be read (NULL-terminated; the innermost of show and
                               * hide that holds a path decides) */
    const char *const *hide;  /* what may not be read */
    int read_all;             /* a path neither holds: readable (1) or not (0) */
    int keep_fds;             /* the regular files among 0 .. keep_fds-1 may be read and run */
} SandboxLandlock;

/* Confine the calling process (and all it starts) by @p rules: writes only below the
 * written folders and to /dev/null; with show or hide, reads only where they allow.
 * Returns 0, or -1 with a reason. */
int sandbox_landlock_confine(const SandboxLandlock *rules, char *err, size_t size);

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

/* ---- the compile's view (sandbox_compile.c) ---------------------------------------------- */

/* What a compile may see: the system's folders read-only without devices, and these. */
typedef struct CompileView {
    const char *root;             /* the repository: an empty folder in the view, the compile's
                                   * current folder */
    const char *const *read;      /* shown read-only at their own paths (NULL-terminated) */
    const char *const *read_from; /* shown read-only at the path of the same index in read_to */
    const char *const *read_to;
    const char *const *write;     /* folders shown writable (the compile's output) */
    const char *const *copy;      /* folders shown as a read-only copy its user can read (the
                                   * submission's, which only root may read) */
    const char *const *hide;      /* covered where a system folder would show them */
    unsigned uid;                 /* as root: the compile's user */
    int drop_user;
} CompileView;

/* In the calling process: a mount namespace (in a user namespace when not root) whose root
 * holds what @p v names, a /tmp of its own and /dev/null; then, as root, user v->uid.
 * Returns 0 (exec the compiler next), or -1 with a reason: then the process is spoiled. */
int sandbox_compile_view(const CompileView *v, char *err, size_t size);

/* Without namespaces: Landlock lets the calling process read only what the view would show
 * and write only the output folders and @p tmp (it stays the grader's user, who alone may
 * read the submission's copy and the output folders). */
int sandbox_compile_landlock(const CompileView *v, const char *tmp, char *err, size_t size);

#endif
