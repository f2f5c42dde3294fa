#!/usr/bin/env python3
"""Grade a class, and report on it: make grade-all and make grade-report.

    grade_all.py grade  --submissions PATH [--out DIR] [--jobs N] [--shard K/N]
                        [--lessons "01 04"] [--seed N] [--columns SPEC]
                        [--build-root DIR] [--build DIR] [--make PROGRAM]
    grade_all.py report --submissions PATH [--out DIR] [--lessons ...] [--columns SPEC]

`grade` builds the grader once (make grader, one machine at a time per build folder),
then grades the submissions of PATH (tests/graded/class/gradeall/layouts.py: a folder per
student, a Gradescope or a Canvas export), or its shard K of N, JOBS at once, each by its
own make grade into OUT/NAME; a submission whose files and grader have not changed since
its last grading keeps its result. Then, as `report` does alone, it writes OUT's
summary.csv, gradebook.csv and report.html from every result there, naming the
submissions that have none yet.

Every line it prints passes through shown.escape(): a name's control characters, escape
codes and bytes that are not UTF-8 reach the terminal as visible escapes.

Exit status: 0 when every submission of the run was graded (whatever it scored), 1 when
one could not be (its log in OUT/.failed/), 2 on bad input or when OUT cannot be written
(a read-only folder, a full disk, a file-size limit), with one line saying which and why,
130 when interrupted (the complete results are kept: the same command goes on from there).
"""
import argparse
import errno
import fcntl
import hashlib
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gradeall import fileio, layouts, report, run, shown  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
MAKE_SAFE = re.compile(r"[\w/.+@~-]+")
OUTPUTS = (("summary.csv", "class summary"), ("gradebook.csv", "gradebook"),
           ("report.html", "class report"), ("seed.txt", "class's seed"))


def say(line="", err=False):
    """Print one line, every character of it visible (shown.escape)."""
    print(shown.escape(line), file=sys.stderr if err else sys.stdout, flush=True)


def _path(p, what):
    """p relative to the repository when it is inside (make grade runs there), else absolute;
    refused when make could not take it as it is."""
    full = os.path.abspath(p)
    rel = os.path.relpath(full, REPO)
    p = full if rel.startswith("..") else rel
    if not MAKE_SAFE.fullmatch(p):
        raise run.UsageError("%s=%s: make cannot take a path with spaces or any of $#:;%%'\"()* "
                             "in it; move or rename it" % (what, p))
    return p


def _build_grader(args):
    """make grader, under a lock in the build folder: shards started together on machines
    that share it build it once, one after the other finding it done."""
    fileio.folder(args.build_root, "build folder", follow=True)
    with fileio.open_lock(os.path.join(args.build_root, ".grader.lock")) as lock:
        fcntl.lockf(lock, fcntl.LOCK_EX)
        r = subprocess.run(args.make + ["--no-print-directory", "grader", "BUILD_ROOT=" + args.build_root],
                           cwd=REPO, capture_output=True, text=True,
                           env=run.make_environment(0))
    if r.returncode != 0:
        for line in (r.stdout + r.stderr)[-3000:].splitlines():
            say(line)
        raise run.UsageError("make grader failed (status %d): the grader must build before a "
                             "class is graded" % r.returncode)


def _setup(args):
    args.submissions = _path(args.submissions, "SUBMISSIONS")
    args.out = _path(args.out, "OUT")
    args.build_root = _path(args.build_root, "BUILD_ROOT")
    course = layouts.Course(REPO, args.lessons.split() if args.lessons else None)
    report.gradebook_columns(args.columns, course.lessons, True)  # a bad spec stops here
    cls = layouts.discover(args.submissions, course)
    return course, cls


def _writable(out):
    """Refuse, before anything is graded, an OUT where the results could not be saved."""
    fileio.folder(out, "output folder (OUT)", follow=True)
    for name, what in OUTPUTS:
        fileio.save_check(os.path.join(out, name), what)


def _finish(args, cls, course, seed):
    rows = report.write_all(args.out, cls, course, seed, args.columns)
    missing = [r.sub.key for r in rows if r.status in ("missing", "failed")]
    say("Wrote %s/summary.csv, gradebook.csv and report.html (%d submissions%s)" % (
        args.out, len(rows), "; not graded yet: %d: %s" % (
            len(missing), " ".join(missing[:12]) + (" ..." if len(missing) > 12 else ""))
        if missing else ", all graded"))


def cmd_grade(args):
    course, cls = _setup(args)
    jobs = run.parse_jobs(args.jobs)
    shard = run.parse_shard(args.shard)
    _writable(args.out)
    seed = run.class_seed(args.out, args.seed)
    _build_grader(args)
    fingerprint = run.grader_fingerprint(REPO, args.build or os.path.join(args.build_root, "rel"))
    mine = [s for s in cls.submissions if not shard or run.shard_of(s.key, shard[1]) == shard[0]]
    staging = os.path.join(args.build_root, "grade-all",
                           hashlib.sha256(os.path.abspath(args.out).encode()).hexdigest()[:12])
    say("grade-all: %d submissions in %s (%s)%s, %d at a time; seed %d (%s/seed.txt)" % (
        len(cls.submissions), args.submissions, cls.layout,
        "; shard %d/%d: %d of them" % (shard[0], shard[1], len(mine)) if shard else "",
        jobs, seed, args.out))
    for n in cls.notes:
        say("  " + n)
    grader = run.ClassGrader(REPO, args.out, course, seed, fingerprint, args.make, staging,
                             hide=[os.path.abspath(args.out), os.path.abspath(args.submissions)],
                             jobs=jobs, say=say)
    t0 = time.monotonic()
    try:
        outcomes = grader.grade_all(mine)
    except KeyboardInterrupt:
        say("grade-all: interrupted; the results complete so far are kept, and the same "
            "command goes on from there")
        return 130
    n = {s: sum(1 for o in outcomes if o.status == s)
         for s in ("graded", "unchanged", "refused", "failed", "busy")}
    say("Graded %d submissions in %.0f s: %s" % (len(outcomes), time.monotonic() - t0, ", ".join(
        "%d %s" % (v, k) for k, v in n.items() if v)))
    for o in outcomes:
        if o.status == "failed":
            say("  %s could not be graded: %s (log: %s/.failed/%s.log)" % (
                o.sub.key, o.why, args.out, o.sub.key))
    _finish(args, cls, course, seed)
    return 1 if n["failed"] else 0


def cmd_report(args):
    course, cls = _setup(args)
    try:
        text = fileio.read_text(os.path.join(args.out, "seed.txt"), "class's seed", 4096).strip()
    except fileio.FileError as e:
        if e.errno != errno.ENOENT:
            raise
        raise run.UsageError("OUT=%s holds no graded class (no seed.txt): run make grade-all "
                             "first" % args.out)
    seed = run.parse_seed(text, "%s/seed.txt holds %r" % (args.out, text))
    for name, what in OUTPUTS[:3]:
        fileio.save_check(os.path.join(args.out, name), what)
    _finish(args, cls, course, seed)
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("command", choices=("grade", "report"))
    p.add_argument("--submissions", required=True)
    p.add_argument("--out", default="build/submissions")
    p.add_argument("--jobs", default="")
    p.add_argument("--shard", default="")
    p.add_argument("--lessons", default="")
    p.add_argument("--seed", default=os.environ.get("GRADE_SEED", ""))
    p.add_argument("--columns", default="")
    p.add_argument("--build-root", default="build")
    p.add_argument("--build", default="")
    p.add_argument("--make", default="make", help="the make program (a command line)")
    args = p.parse_args(argv)
    args.make = args.make.split()

    def terminate(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, terminate)
    try:
        return cmd_grade(args) if args.command == "grade" else cmd_report(args)
    except (run.UsageError, layouts.LayoutError, fileio.FileError) as e:
        say("grade-all: %s" % e, err=True)
        return 2
    except OSError as e:  # the class or OUT cannot be read or written where no check named it
        say("grade-all: %s%s: %s" % (e.filename or "", " -> %s" % e.filename2 if e.filename2
                                     else "", e.strerror or e), err=True)
        return 2
    except KeyboardInterrupt:  # before or after grading: nothing was left half-written
        say("grade-all: interrupted", err=True)
        return 130


if __name__ == "__main__":
    sys.exit(main())
