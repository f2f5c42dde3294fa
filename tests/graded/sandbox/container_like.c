/*
 * container_like.c: run a command as Docker's default profile would let it run, for
 * tests/graded/selfcheck/selftest.py (the grader in a Gradescope-like container).
 *
 *   container_like [--no-seccomp] COMMAND ARGS...
 *
 * Docker's default seccomp profile refuses unshare, setns and a clone that makes a
 * namespace to a process without CAP_SYS_ADMIN (which it does not grant); run this
 * under `capsh --drop=cap_sys_admin --` for the capability. --no-seccomp also refuses
 * seccomp() and prctl(PR_SET_SECCOMP), as a kernel without seccomp filters would. Every
 * refusal is EPERM, as Docker's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define NS_FLAGS                                                                                   \
    (CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS |    \
     CLONE_NEWCGROUP)

int main(int argc, char **argv)
{
    int first = 1, no_seccomp = 0;
    if (argc > 1 && strcmp(argv[1], "--no-seccomp") == 0) no_seccomp = 1, first = 2;
    if (first >= argc) {
        fprintf(stderr, "usage: container_like [--no-seccomp] COMMAND ARGS...\n");
        return 2;
    }
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    int rc = ctx ? 0 : -ENOMEM;
    if (!rc) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 0);
    if (!rc) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(setns), 0);
    /* (a clone3 cannot be read by a filter: Docker answers ENOSYS, and the C library
     * falls back to clone) */
    if (!rc) rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
    for (unsigned long f = 1; !rc && f; f <<= 1)
        if (f & NS_FLAGS)
            rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                                  SCMP_A0(SCMP_CMP_MASKED_EQ, f, f));
    if (!rc && no_seccomp) {
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EINVAL), SCMP_SYS(seccomp), 0);
        if (!rc)
            rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EINVAL), SCMP_SYS(prctl), 1,
                                  SCMP_A0(SCMP_CMP_EQ, PR_SET_SECCOMP));
    }
    if (!rc) rc = seccomp_load(ctx);
    if (rc) {
        fprintf(stderr, "container_like: cannot install the filter: %s\n", strerror(-rc));
        return 2;
    }
    execvp(argv[first], argv + first);
    fprintf(stderr, "container_like: cannot run %s: %s\n", argv[first], strerror(errno));
    return 127;
}
