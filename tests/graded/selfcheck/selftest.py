#!/usr/bin/env python3
"""Prove that the grader is honest (CI runs this after make grade).

    python3 tests/graded/selfcheck/selftest.py             # everything below
    python3 tests/graded/selfcheck/selftest.py --forgeries # only the forgery set (6.)
    python3 tests/graded/selfcheck/selftest.py --forgeries NAME ...  # only these forgeries
    python3 tests/graded/selfcheck/selftest.py --package   # the Gradescope package (7.) only
    python3 tests/graded/selfcheck/selftest.py --layers    # the sandbox's settings (3.) only
    python3 tests/graded/selfcheck/selftest.py --validate build/grade/results.json

1. The reference answers get full marks, on every case.
2. The untouched stubs get 0 on every case: a case that passes on a stub is a bug.
3. A student file replaced by an older-dated one is recompiled, not reused; the
   answers keep full marks with the repository inside the grader's home (hidden), and
   in each setting of the sandbox (as root, without privileges, as in a container), where
   an exercise cannot open the runner's memory through /proc either; a repository whose
   root folder is private gets full marks or one line and status 2, never a partial score.
   No refusal of a system call is in the run logs of the answers or of the stubs.
4. Planted faults, each in one exercise of a copy of the answers, fail that
   exercise's cases (and the whole-lesson case that trains with it) with a
   message naming what happened, and nothing else: a crash, an endless loop,
   printing in a loop, a huge allocation, a kernel writing past its buffer.
5. Compiler messages with bytes that are not UTF-8 (Latin-1, over-long forms,
   surrogates, F5-FF) still give a valid results.json.
6. The forgeries of tests/graded/selfcheck/forgeries.py score 0 where they forge (whole
   exercises, or single cases: a correct but slow kernel keeps its result's
   points), and the honest part of each file keeps its marks; those marked
   `unchecked` (every one that reaches for a shell, a file or another process)
   score 0 even with the symbol check skipped, so the runner/judge split and the sandbox hold alone, and
   again with the sandbox's layers of their `layers` switched off. None may say
   that a step the sandbox must stop went through ("rt-escaped:", in its results
   or its log), leave a file at the paths it was given, or change results.json and
   score.txt after make grade returned. Before them, the system-call filter is
   tried directly in each form a runner installs (tests/graded/sandbox/filter_check.c).
7. (--package) make grader-package holds no answers, and graded from it as
   Gradescope does (run_autograder), the answers get full marks on Lesson 01,
   the stubs 0, and every forgery scores 0 where it forges, the `unchecked` ones
   also with the symbol check skipped.
Every results.json written on the way is checked against Gradescope's format.

One script, its checks in the order above, all made of the same few steps (grade(),
make_copy(), check_forgery(), validate()); the forgeries themselves are tables of their
own (forgeries.py, forgeries_sandbox.py).
"""
import atexit
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
GRADED = os.path.dirname(HERE)
ROOT = os.path.dirname(os.path.dirname(GRADED))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(GRADED, "class"))
import forgeries  # noqa: E402
from gradeall import run  # noqa: E402

TOP_KEYS = {"score", "execution_time", "output", "output_format", "test_output_format",
            "test_name_format", "visibility", "stdout_visibility", "extra_data", "tests",
            "leaderboard"}
TEST_KEYS = {"score", "max_score", "status", "name", "name_format", "number", "output",
             "output_format", "tags", "visibility", "extra_data"}
VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}
WORK = os.path.join("build", "selftest")


def fail(msg):
    print("selftest: FAILED: " + msg)
    sys.exit(1)


def validate(path):
    """Check results.json against Gradescope's autograder results format."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
        r = json.loads(raw.decode("utf-8", errors="strict"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        fail("%s is not valid UTF-8 JSON: %s" % (path, e))
    if not isinstance(r, dict):
        fail("%s: the top level must be an object" % path)
    extra = set(r) - TOP_KEYS
    if extra:
        fail("%s: unknown top-level keys %s" % (path, sorted(extra)))
    if "score" not in r and not all(isinstance(t, dict) and "score" in t
                                    for t in r.get("tests", [])):
        fail("%s: a score is needed at the top or on every test" % path)
    for key in ("score", "execution_time"):
        if key in r and (not isinstance(r[key], (int, float)) or isinstance(r[key], bool)):
            fail("%s: %s must be a number" % (path, key))
    for key in ("visibility", "stdout_visibility"):
        if key in r and r[key] not in VISIBILITY:
            fail("%s: %s must be one of %s" % (path, key, sorted(VISIBILITY)))
    if "output" in r and not isinstance(r["output"], str):
        fail("%s: output must be a string" % path)
    tests = r.get("tests", [])
    if not isinstance(tests, list) or not tests:
        fail("%s: tests must be a non-empty list" % path)
    total = 0.0
    for t in tests:
        if not isinstance(t, dict):
            fail("%s: every test must be an object" % path)
        extra = set(t) - TEST_KEYS
        if extra:
            fail("%s: test %r has unknown keys %s" % (path, t.get("name"), sorted(extra)))
        for key in ("score", "max_score"):
            if not isinstance(t.get(key), (int, float)) or isinstance(t.get(key), bool):
                fail("%s: test %r needs a numeric %s" % (path, t.get("name"), key))
        if not 0 <= t["score"] <= t["max_score"]:
            fail("%s: test %r scores %s of %s" % (path, t["name"], t["score"], t["max_score"]))
        if t.get("status") not in ("passed", "failed"):
            fail("%s: test %r has status %r" % (path, t.get("name"), t.get("status")))
        for key in ("name", "number", "output"):
            if not isinstance(t.get(key), str):
                fail("%s: test %r needs a string %s" % (path, t.get("name"), key))
        if t.get("visibility", "visible") not in VISIBILITY:
            fail("%s: test %r has visibility %r" % (path, t["name"], t["visibility"]))
        total += t["score"]
    if not isinstance(r.get("score"), (int, float)) or abs(total - r["score"]) > 1e-9:
        fail("%s: the top-level score %s is not the sum of the tests' %s"
             % (path, r.get("score"), total))
    return r


def in_parallel(jobs):
    """Run the callables of jobs two at a time (SELFTEST_JOBS), in order of start: each
    grades a folder of its own into an output of its own, as grade-all's workers do. The
    first failure ends the self-test."""
    from concurrent.futures import ThreadPoolExecutor
    width = int(os.environ.get("SELFTEST_JOBS", "0")) or min(2, os.cpu_count() or 1)
    with ThreadPoolExecutor(max_workers=width) as pool:
        for f in [pool.submit(j) for j in jobs]:
            f.result()


# What a make grade that attacks the machine itself may use, whatever the grader's own
# limits do: each of its processes at most this much address space (so that a grader whose
# limits were lost cannot take the CI machine down with it).
DAMAGE_CAP = 4 << 30


def capped():
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (DAMAGE_CAP, DAMAGE_CAP))


def grade(name, impl, student_dir=None, lesson="01", extra=(), env=None, cap=False):
    out = os.path.join(WORK, name)
    args = ["make", "--no-print-directory", "grade", "IMPL=" + impl, "GRADE_OUT=" + out]
    if lesson:
        args.append("LESSON=" + lesson)
    if student_dir:
        args.append("STUDENT_DIR=" + student_dir)
    args += list(extra)
    p = subprocess.run(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, errors="replace", env=dict(os.environ, **(env or {})),
                       preexec_fn=capped if cap else None)
    if p.returncode != 0:
        fail("%s: make grade exited with %d (it must exit 0 whenever grading ran):\n%s"
             % (name, p.returncode, p.stdout[-3000:]))
    print("selftest: %-26s %s" % (name, p.stdout.strip().splitlines()[-3]))
    return validate(os.path.join(ROOT, out, "results.json")), p.stdout


def runners_of(session):
    """The live runners started (through a judge) by a process of session."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % name, "rb") as f:
                if f.read().split(b"\0")[0] != b"runner":
                    continue
        except OSError:
            continue
        pid, hops = int(name), 0
        while pid > 1 and hops < 10:
            st = run.proc_stat(pid)
            if not st or st[0] == "Z":
                break
            if st[2] == session:
                found.append(int(name))
                break
            pid, hops = st[1], hops + 1
    return found


def check_interrupted(student_dir):
    """make grade ended (Ctrl-C of grade-all: SIGTERM to every process of its session)
    while a case spins in an endless loop: the runner, in a session of its own, must end
    with the judge, not spin on with nobody to stop it."""
    p = subprocess.Popen(["make", "--no-print-directory", "grade", "IMPL=lessons", "LESSON=01",
                          "STUDENT_DIR=" + student_dir,
                          "GRADE_OUT=" + os.path.join(WORK, "interrupted")], cwd=ROOT,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    deadline, seen, spinning = time.time() + 120, {}, []
    while not spinning:  # a runner alive for 2 s (a case of lesson 01 takes milliseconds)
        if time.time() > deadline or p.poll() is not None:
            run._stop(p)
            fail("interrupted: no runner spun for %s" % student_dir)
        time.sleep(0.05)
        now = runners_of(p.pid)
        seen = {r: seen.get(r, time.time()) for r in now}
        spinning = [r for r in now if time.time() - seen[r] > 2]
    run._stop(p)
    deadline = time.time() + 5
    while any(run.alive(r) for r in spinning) and time.time() < deadline:
        time.sleep(0.05)
    left = [r for r in spinning if run.alive(r)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    if left:
        fail("interrupted: make grade was ended, its runner (%s) spins on" % left)
    print("selftest: %-26s the runner ended with its judge" % "interrupted")


def function_span(text, function, returns):
    """(start of body, end of body) of `returns function(...)\\n{ ... \\n}`."""
    m = re.search(r"\n%s %s\([^)]*\)\n\{\n" % (re.escape(returns), re.escape(function)), text)
    if not m:
        return None
    end = text.index("\n}\n", m.end())
    return m.end(), end + 1


def lib_offset(lesson, expr):
    """@OFFSET(a-b)@ of forgeries.py: lib's function a less its function b in the runner
    of lesson (two digits) built from the answers, from nm, as a student reads it."""
    a, b = expr.split("-")
    runner = os.path.join(build_dir(), "grade", "run" + lesson)
    p = subprocess.run(["make", "--no-print-directory", runner], cwd=ROOT,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        fail("cannot build %s for an offset:\n%s" % (runner, p.stdout[-3000:]))
    nm = subprocess.run(["nm", os.path.join(ROOT, runner)], stdout=subprocess.PIPE,
                        text=True).stdout
    addr = {}
    for line in nm.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "Tt":
            addr[f[2]] = int(f[0], 16)
    if a not in addr or b not in addr:
        fail("%s has no %s or %s for an offset" % (runner, a, b))
    return hex(addr[a] - addr[b])


def build_dir():
    p = subprocess.run(["make", "-s", "--no-print-directory", "--eval",
                        "selftest-build: ; @echo $(BUILD)", "selftest-build"], cwd=ROOT,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return os.path.join(ROOT, p.stdout.strip().splitlines()[-1])


def allow_list(lesson, key):
    names = []
    with open(os.path.join(GRADED, "allow", lesson + ".txt"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\s*" + re.escape(key) + r":\s*(.*)", line.split("#")[0])
            if m:
                names += m.group(1).split()
    return names


def check_withheld():
    """What a lesson's runner withholds (allow/NN.txt) is not in it: the linker's map of
    runNN keeps no section of a withheld function but its stub's, and no object of a
    withheld file; with OpenBLAS's product withheld, OpenBLAS is not loaded at all."""
    build = build_dir()
    lessons = sorted(f[:2] for f in os.listdir(os.path.join(GRADED, "allow")) if re.match(r"\d\d\.txt$", f))
    runners = [os.path.join(build, "grade", "run" + l) for l in lessons]
    p = subprocess.run(["make", "--no-print-directory"] + [os.path.relpath(r, ROOT) for r in runners],
                       cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        fail("cannot build the runners:\n" + p.stdout[-3000:])
    checked = 0
    for lesson, runner in zip(lessons, runners):
        names, files = allow_list(lesson, "withhold"), allow_list(lesson, "withhold-files")
        text = open(runner + ".map", encoding="utf-8", errors="replace").read()
        kept = text[text.index("Linker script and memory map"):]
        # an input section: " .text.NAME [address size] FILE", the name alone on its line
        # when it is long
        for m in re.finditer(r"^ (\.text\.(\S+?))(?:\n\s+|\s+)0x[0-9a-f]+\s+0x[0-9a-f]+ (\S+)$",
                             kept, re.M):
            section, fn, obj = m.groups()
            base = fn.split(".")[0]
            if base in names and "withheld_" + lesson not in obj:
                fail("run%s keeps %s from %s, which allow/%s.txt withholds" % (lesson, section, obj, lesson))
        for f in files:
            stem = os.path.splitext(f)[0] + ".o"
            if re.search(r"/(sim|cuda)/" + re.escape(stem) + r"\b", kept):
                fail("run%s links %s, which allow/%s.txt withholds" % (lesson, f, lesson))
        if "cblas_sgemm" in names:
            needed = subprocess.run(["readelf", "-d", runner], stdout=subprocess.PIPE, text=True).stdout
            if "openblas" in needed:
                fail("run%s still loads OpenBLAS, whose cblas_sgemm allow/%s.txt withholds"
                     % (lesson, lesson))
        checked += len(names) + len(files)
    if checked == 0:
        fail("no lesson withholds anything: the check above checked nothing")
    print("selftest: withheld                   %d names and files, gone from their runners" % checked)


# Student code whose loading alone reaches for the judge's folder, a shell and a process.
HOSTILE_SO = r"""
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((constructor)) static void grab(void)
{
    char p[600];
    snprintf(p, sizeof p, "%s/pwned-open", OUT);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd >= 0) close(fd);
    snprintf(p, sizeof p, "touch %s/pwned-shell", OUT);
    if (system(p) != 0) {}
    if (fork() == 0) { execl("/bin/sh", "sh", "-c", p, (char *)NULL); _exit(0); }
    snprintf(p, sizeof p, "%s/lesson01.tsv", OUT);
    fd = open(p, O_WRONLY | O_CREAT | O_APPEND, 0666);
    if (fd >= 0) { dprintf(fd, "0\t01.1\tx\tx\t10\t10\tpassed\t\tx\n"); close(fd); }
}
/* An exercise, so called after the seal: its own memory opened for writing through /proc. */
int relu_forward(const float *x, float *y, long n)
{
    (void)x, (void)y, (void)n;
    static const char *const paths[] = {"/proc/self/mem", "/proc/thread-self/mem"};
    for (int i = 0; i < 2; i++) {
        int fd = open(paths[i], O_RDWR);
        if (fd >= 0) {
            dprintf(2, "rt-escaped: %s opened for writing after the seal\n", paths[i]);
            close(fd);
        }
    }
    return -1;
}
"""


def check_layers():
    """The grader where its layers differ: as root (as CI runs), as a user without
    privileges (namespaces through a user namespace), as in Gradescope's Docker container
    (root without CAP_SYS_ADMIN, namespaces refused: tests/graded/sandbox/container_like.c under
    capsh), and without a seccomp filter (refused; GRADE_UNSANDBOXED=1 grades, marked).
    Each says its layers in the TSV; the answers get full marks where it grades; a shared
    object whose constructor reaches for the judge's folder, a shell and a process leaves
    nothing there, and its exercise, called after the seal, cannot open the runner's own
    memory for writing (/proc/self/mem)."""
    build = os.path.relpath(build_dir(), ROOT)
    g = os.path.join(build, "grade")
    need = [os.path.join(g, n) for n in ("judge01", "run01", "run01-full", "container_like",
                                         os.path.join("solutions", "01.so"),
                                         os.path.join("ref", "01.records"))]
    p = subprocess.run(["make", "--no-print-directory"] + need, cwd=ROOT,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        fail("cannot build the grader of Lesson 01:\n" + p.stdout[-3000:])
    import tempfile
    top = tempfile.mkdtemp(prefix="wb-layers-")
    os.chmod(top, 0o755)
    hostile_c = os.path.join(top, "hostile.c")
    root = os.geteuid() == 0
    settings = [("as this user", [], {}, "namespaces" if not root else "a user of its own")]
    if root and shutil.which("setpriv"):
        settings.append(("as a user without privileges",
                         ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"], {},
                         "system-call filter"))
    if root and shutil.which("capsh"):
        settings.append(("as in a container", ["capsh", "--drop=cap_sys_admin", "--", "-c",
                                                'exec "$0" "$@"', os.path.join(g, "container_like")],
                         {}, "no namespaces"))
    settings.append(("without seccomp", [os.path.join(g, "container_like"), "--no-seccomp"], {},
                     "grading refused"))
    settings.append(("without seccomp, unsandboxed", [os.path.join(g, "container_like"),
                                                     "--no-seccomp"],
                     {"GRADE_UNSANDBOXED": "1"}, "UNSANDBOXED"))
    for how, prefix, env, expect in settings:
        for so in ("answers", "hostile"):
            out = os.path.join(top, re.sub(r"\W+", "-", how) + "-" + so)
            os.makedirs(out)
            os.chmod(out, 0o777)
            if so == "answers":
                student = os.path.join(ROOT, g, "solutions", "01.so")
            else:
                with open(hostile_c, "w") as f:
                    f.write('#define OUT "%s"\n' % out + HOSTILE_SO)
                student = os.path.join(top, "hostile-%s.so" % len(os.listdir(top)))
                subprocess.run(["cc", "-shared", "-fPIC", "-o", student, hostile_c], check=True)
                os.chmod(student, 0o755)
            cmd = prefix + [os.path.join(ROOT, g, "judge01"), "--out", out,
                            "--runner", os.path.join(ROOT, g, "run01"),
                            "--runner-full", os.path.join(ROOT, g, "run01-full"),
                            "--student", student, "--ref", os.path.join(ROOT, g, "ref", "01.records"),
                            "--log", os.path.join(out, "log")]
            e = dict(os.environ, **env)
            e.pop("GRADE_SANDBOX_LAYERS", None)
            r = subprocess.run(cmd, cwd=ROOT, env=e, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            tsv = os.path.join(out, "lesson01.tsv")
            if r.returncode != 0 or not os.path.exists(tsv):
                fail("the judge %s: status %d\n%s" % (how, r.returncode, r.stdout[-2000:]))
            rows = [l.split("\t") for l in open(tsv, encoding="utf-8").read().splitlines()]
            layers = [l[1] for l in rows if l[0] == "#sandbox"]
            cases = [l for l in rows if not l[0].startswith("#")]
            if not layers or expect not in layers[0] + " ".join(c[7] for c in cases):
                fail("the judge %s should say %r: %s" % (how, expect, layers))
            refused = "refused" in expect
            for c in cases:
                want = "failed" if refused or so == "hostile" else "passed"
                if c[6] != want:
                    fail("the judge %s: %s case %s %s: %s" % (how, so, c[2], c[6], c[7]))
            leaked = [f for f in os.listdir(out) if f.startswith("pwned")]
            if leaked and not env:
                fail("the judge %s: student code wrote %s in the judge's folder" % (how, leaked))
            log = os.path.join(out, "log")
            said = open(log, errors="replace").read() if os.path.exists(log) else ""
            if "rt-escaped:" in said and not env:
                fail("the judge %s: %s" % (how, said[said.index("rt-escaped:"):].splitlines()[0]))
        print("selftest: %-27s %s" % (how, layers[0][:90]))
    shutil.rmtree(top, ignore_errors=True)


def check_private_clone():
    """A repository whose root folder is private (mode 0700: a clone into mktemp -d, or by a
    user whose umask is 077), graded as root, whose runners run as another user: the answers
    of Lesson 01 get full marks, or make grade ends with status 2 and one line that says why
    and how to fix it, before any case runs; never a partial score. With namespaces the
    runner's view shows the repository's entries in a folder it can enter (full marks);
    without them (a container) it cannot read the fixtures (the line)."""
    if os.geteuid() != 0:
        print("selftest: %-26s skipped: only root grades as another user" % "private-clone")
        return
    mode = os.stat(ROOT).st_mode & 0o7777
    # the answers, handed in as a student's (so that their compile runs in its view too)
    answers = os.path.join(WORK, "plants", "private-answers")
    shutil.rmtree(os.path.join(ROOT, answers), ignore_errors=True)
    shutil.copytree(os.path.join(ROOT, "solutions", "01_cpu_baseline"),
                    os.path.join(ROOT, answers, "01_cpu_baseline"))
    try:
        os.chmod(ROOT, 0o700)
        for layers, want in (("", "full marks"), ("-ns", "the line")):
            name = "private-clone" + layers
            out = os.path.join(WORK, name)
            p = subprocess.run(["make", "--no-print-directory", "grade", "IMPL=lessons",
                                "STUDENT_DIR=" + answers, "LESSON=01", "GRADE_OUT=" + out],
                               cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               errors="replace",
                               env=dict(os.environ, GRADE_SANDBOX_LAYERS=layers))
            said = [l for l in p.stdout.splitlines() if l.startswith("grader: grading refused:")]
            if p.returncode == 0:
                r = validate(os.path.join(ROOT, out, "results.json"))
                if r["score"] != sum(t["max_score"] for t in r["tests"]):
                    fail("%s: a partial score (%s) from a private repository: %s"
                         % (name, r["score"], [t["output"] for t in r["tests"]
                                                if t["score"] != t["max_score"]][:2]))
                got = "full marks"
            elif p.returncode == 2 and len(said) == 1 and "chmod" in said[0] and \
                    not os.path.exists(os.path.join(ROOT, out, "results.json")):
                got = "the line"
            else:
                fail("%s: make grade should give full marks or end with status 2 and one line "
                     "(status %d):\n%s" % (name, p.returncode, p.stdout[-2000:]))
            if got != want:
                fail("%s: expected %s here, got %s:\n%s" % (name, want, got, p.stdout[-2000:]))
            print("selftest: %-26s %s" % (name, said[0][:100] if said else "full marks"))
    finally:
        os.chmod(ROOT, mode)


def check_run_logs(folder, who):
    """No line of what graded code printed (run_NN.log) blames the student for a call that
    lib, the grader or a library made in its normal work (chmod of a case's scratch folder,
    OpenBLAS's mbind): the answers and the untouched stubs make no refused call."""
    for log in sorted(os.listdir(os.path.join(ROOT, WORK, folder))):
        if not (log.startswith("run_") and log.endswith(".log")):
            continue
        with open(os.path.join(ROOT, WORK, folder, log), errors="replace") as f:
            for line in f:
                if "grader sandbox: refused" in line:
                    fail("%s: %s holds a refusal of a call %s did not make: %s"
                         % (who, log, who, line.strip()))


def make_copy(name, lesson, base, changes, filename="exercises.c", grader=None):
    """A folder laid out like lessons/ with lesson's file from base, changed. grader: the
    root, build tree and output folder the changes' code names (@ROOT@, @BUILD@, @OUT@),
    if not this repository's (the unpacked grader package's)."""
    src_dir = os.path.join(ROOT, "solutions" if base == "solutions" else "lessons", lesson)
    folder = os.path.join(WORK, "plants", name)
    dst_dir = os.path.join(ROOT, folder, lesson)
    shutil.rmtree(os.path.join(ROOT, folder), ignore_errors=True)
    os.makedirs(dst_dir)
    for other in os.listdir(src_dir):
        if other.startswith("exercises."):
            shutil.copy(os.path.join(src_dir, other), os.path.join(dst_dir, other))
    path = os.path.join(dst_dir, filename)
    text = open(path, encoding="utf-8").read()
    returns = 'extern "C" cudaError_t' if filename.endswith(".cu") else "int"
    for function, how, code in changes:
        root, build, out = grader or (ROOT, None, os.path.join(ROOT, WORK, name))
        code = code.replace("@ROOT@", root).replace("@NAME@", name).replace("@OUT@", out)
        code = code.replace("@HOME@", os.path.expanduser("~"))  # the grader's home
        if "@FIFO@" in code:  # a named pipe that nothing writes, outside the submission
            fifo = "/tmp/wb-fifo-" + name
            if not os.path.exists(fifo):
                os.mkfifo(fifo)
            code = code.replace("@FIFO@", fifo)
        code = code.replace("@MARKS@", " ".join(escape_marks(name)))
        code = code.replace("@FORGE@", json.dumps(forgeries.FORGED_RESULTS_SCRIPT)[1:-1])
        if "@BUILD@" in code:
            code = code.replace("@BUILD@", build or build_dir())
        code = re.sub(r"@OFFSET\(([\w-]+)\)@", lambda m: lib_offset(lesson[:2], m.group(1)), code)
        if how == "top":
            text = code + text
        elif how == "end":
            text = text + code
        else:
            span = function_span(text, function, returns)
            if not span:
                fail("%s: cannot find %s in %s" % (name, function, path))
            start, end = span
            if how == "replace":
                text = text[:start] + "    " + code + "\n" + text[end:]
            else:
                text = text[:start] + "    " + code + "\n" + text[start:]
    return folder, path, text


def plant(name, function, code, lesson="01_cpu_baseline", filename="exercises.c",
          encoding="utf-8"):
    """A copy of the answers with `code` put at the start of `function`."""
    folder, path, text = make_copy(name, lesson, "solutions", [(function, "prefix", code)],
                                   filename)
    with open(path, "w", encoding=encoding) as f:
        f.write("#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n" + text)
    return folder


def check_plant(name, function, code, exercise, message, lesson="01_cpu_baseline",
                filename="exercises.c", may_pass=()):
    r, _ = grade(name, "lessons", plant(name, function, code, lesson, filename),
                 lesson=lesson[:2])
    for t in r["tests"]:
        if any(m in t["name"] for m in may_pass):
            continue  # a check the planted fault does not reach
        own = t["number"] == exercise
        whole = "." not in t["number"]
        messages = (message,) if isinstance(message, str) else message
        if own:
            if t["status"] != "failed" or not any(m in t["output"] for m in messages):
                fail("%s: %r should fail with %r, got %s: %r"
                     % (name, t["name"], message, t["status"], t["output"]))
        elif whole:
            if t["status"] != "failed":
                fail("%s: the whole-lesson case %r passed with a broken exercise"
                     % (name, t["name"]))
        elif t["status"] != "passed":
            fail("%s: %r failed although the fault is in %s: %r"
                 % (name, t["name"], exercise, t["output"]))


def escape_marks(name):
    """Where a forgery's shell leaves files if it gets out (@MARKS@ of forgeries_sandbox.py):
    the build tree, the repository and the machine's /tmp, none of them the runner's."""
    return [os.path.join(ROOT, WORK, "escaped-" + name), os.path.join(ROOT, "escaped-" + name),
            "/tmp/wb-escaped-" + name]


def expect_held(name, r, out, folder):
    """Nothing of forgery `name` got out: no "rt-escaped:" line in what make grade printed,
    in results.json or in the logs of folder, and no file at its marks."""
    texts = [out, r.get("output", "")] + [t["output"] for t in r["tests"]]
    for log in sorted(os.listdir(folder)):
        if log.endswith(".log"):
            with open(os.path.join(folder, log), errors="replace") as f:
                texts.append(f.read())
    for text in texts:
        if "rt-escaped:" in text:
            line = text[text.index("rt-escaped:"):].splitlines()[0]
            fail("forgery %s got out of the sandbox: %s" % (name, line))
    for mark in escape_marks(name):
        if os.path.exists(mark):
            fail("forgery %s got out of the sandbox: it wrote %s" % (name, mark))


def check_forgery(fg, unchecked=False, layers=None):
    name = fg["name"] + ("-unchecked" if unchecked else "")
    if layers:
        name += "-without" + layers.replace(",", "")
    filename = fg.get("file", "exercises.c")
    for mark in escape_marks(name):
        if os.path.exists(mark):
            os.remove(mark)
    folder, path, text = make_copy(name, fg["lesson"], fg["base"], fg["changes"], filename)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    extra = (["GRADE_UNCHECKED=1"] if unchecked else []) + fg.get("make", [])
    # (a seed set by hand is in the grader's environment, for whoever can read it)
    env = {"GRADE_SANDBOX_LAYERS": layers or "", "GRADE_SEED": ""}
    t0 = time.time()
    r, out = grade(name, "lessons", folder, lesson=fg["lesson"][:2], extra=extra, env=env,
                   cap=fg.get("damage", False))
    if os.path.exists("/tmp/wb-fifo-" + name):
        os.remove("/tmp/wb-fifo-" + name)
    results = os.path.join(ROOT, WORK, name)
    for log in os.listdir(results):  # a compile log keeps its first MB, as a run log does
        if log.startswith("compile_") and log.endswith(".log") and \
                os.path.getsize(os.path.join(results, log)) > (1 << 20) + 4096:
            fail("forgery %s: %s holds %d bytes (the grader keeps the first MB)"
                 % (name, log, os.path.getsize(os.path.join(results, log))))
    limit = next((int(m.split("=")[1]) for m in fg.get("make", [])
                  if m.startswith("GRADE_COMPILE_LIMIT=")), None)
    if limit and time.time() - t0 > 3 * limit + 120:
        fail("forgery %s: make grade took %d s with a compile limit of %d s"
             % (name, time.time() - t0, limit))
    for t in r["tests"]:
        forged = (t["number"] in fg["zero"] or fg.get("all_zero")
                  or any(c in t["name"] for c in fg.get("zero_cases", ())))
        if forged:
            if t["score"] != 0:
                fail("forgery %s (%s) earned %s points on %r: %r"
                     % (name, fg["why"], t["score"], t["name"], t["output"]))
            whole_held = "." not in t["number"] and "passes none of its own checks" in t["output"]
            says = fg["says"].get(t["number"], "") if isinstance(fg["says"], dict) else fg["says"]
            if (says and not unchecked and not whole_held
                    and says not in t["output"] + r["output"]):
                fail("forgery %s: %r should say %r, said %r"
                     % (name, t["name"], says, t["output"]))
        elif (fg["base"] == "solutions" and t["number"] not in fg.get("spared", ())
              and t["score"] != t["max_score"]):
            fail("forgery %s: the honest exercise %r lost its marks: %r"
                 % (name, t["name"], t["output"]))
    expect_held(name, r, out, results)
    if fg.get("post_exit"):
        written = {}
        for f in ("results.json", "score.txt"):
            with open(os.path.join(results, f), "rb") as fh:
                written[f] = fh.read()
        time.sleep(5)  # longer than what the forgery's survivors would wait
        for f, data in written.items():
            with open(os.path.join(results, f), "rb") as fh:
                if fh.read() != data:
                    fail("forgery %s rewrote %s after make grade returned" % (name, f))
        expect_held(name, r, out, results)


def filter_check():
    """tests/graded/sandbox/filter_check.c: the filter in each form a runner installs, tried directly
    (without a GPU, make grade never installs the GPU's form)."""
    program = os.path.join(build_dir(), "grade", "filter_check")
    p = subprocess.run(["make", "--no-print-directory", os.path.relpath(program, ROOT)], cwd=ROOT,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        fail("cannot build %s:\n%s" % (program, p.stdout[-3000:]))
    p = subprocess.run([program], cwd=ROOT, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, errors="replace")
    if p.returncode != 0:
        fail("the system-call filter lets through what it must refuse (or refuses what it "
             "must allow):\n" + "\n".join(l for l in p.stdout.splitlines()
                                          if not l.startswith("ok")))
    print("selftest: " + p.stdout.strip().splitlines()[-1])


def package():
    """make grader-package, unpacked and used as Gradescope would use it."""
    p = subprocess.run(["make", "--no-print-directory", "grader-package"], cwd=ROOT,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        fail("make grader-package failed:\n" + p.stdout[-3000:])
    import zipfile
    top = os.path.join(ROOT, WORK, "package")
    shutil.rmtree(top, ignore_errors=True)
    with zipfile.ZipFile(os.path.join(ROOT, "build", "grader-package.zip")) as z:
        names = z.namelist()
        if any(n.startswith("solutions/") or "/solutions/" in n for n in names):
            fail("the grader package holds solutions/")
        for n in ("setup.sh", "run_autograder", "Makefile", "tests/graded/ref/03.records"):
            if n not in names:
                fail("the grader package lacks %s" % n)
        z.extractall(top)
    for n in ("setup.sh", "run_autograder"):
        os.chmod(os.path.join(top, n), 0o755)
    p = subprocess.run(["make", "--no-print-directory", "grader"], cwd=top,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        fail("make grader in the package failed:\n" + p.stdout[-3000:])

    def autograde(name, submission, lesson, unchecked=False):
        results = os.path.join(ROOT, WORK, "package-results", name)
        env = dict(os.environ, SUBMISSION=submission, RESULTS=results, LESSON=lesson)
        if unchecked:
            env["GRADE_UNCHECKED"] = "1"
        env.pop("BUILD_ROOT", None)
        p = subprocess.run(["./run_autograder"], cwd=top, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, errors="replace")
        if p.returncode != 0:
            fail("%s: run_autograder exited with %d:\n%s" % (name, p.returncode, p.stdout[-3000:]))
        print("selftest: package %-18s %s" % (name, p.stdout.strip().splitlines()[-3]))
        r = validate(os.path.join(results, "results.json"))
        expect_held(name, r, p.stdout, results)
        return r

    # The answers of Lesson 01, handed in loose as for an assignment of one lesson.
    loose = os.path.join(ROOT, WORK, "package-submissions", "answers01")
    os.makedirs(loose)
    shutil.copy(os.path.join(ROOT, "solutions", "01_cpu_baseline", "exercises.c"), loose)
    r = autograde("answers01", loose, "01")
    if r["score"] != sum(t["max_score"] for t in r["tests"]):
        fail("graded from the package, the answers of Lesson 01 lose points")
    empty = os.path.join(ROOT, WORK, "package-submissions", "nothing")
    os.makedirs(empty)
    if autograde("nothing", empty, "")["score"] != 0:
        fail("graded from the package, an empty submission earns points")
    def one(fg, unchecked):
            name = "pkg-" + fg["name"] + ("-unchecked" if unchecked else "")
            grader = (top, os.path.join(top, os.path.relpath(build_dir(), ROOT)),
                      os.path.join(ROOT, WORK, "package-results", name))
            folder, path, text = make_copy(name, fg["lesson"], fg["base"], fg["changes"],
                                           fg.get("file", "exercises.c"), grader)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            r = autograde(name, os.path.join(ROOT, folder), fg["lesson"][:2], unchecked)
            for t in r["tests"]:
                if (t["number"] in fg["zero"] or fg.get("all_zero")) and t["score"] != 0:
                    fail("graded from the package, forgery %s earned %s on %r"
                         % (name, t["score"], t["name"]))
    in_parallel([lambda fg=fg, u=u: one(fg, u) for fg in forgeries.FORGERIES
                 for u in ((False, True) if fg.get("unchecked") else (False,))])


def utf8_messages():
    """A compile error whose message carries bytes that are not UTF-8."""
    folder, path, text = make_copy("bad-bytes", "01_cpu_baseline", "solutions", [])
    bad = (b"\xe9 \xf5\x80\x80\x80 \xed\xa0\x80 \xc0\xaf \xe0\x80\xaf \xf0\x80\x80\xaf "
           b"\xf4\x90\x80\x80 \xff \xc3")
    with open(path, "wb") as f:
        f.write(text.encode("utf-8") + b"\nthis is not C; /* " + bad + b" */\n"
                + b"#error " + bad + b"\n")
    r, out = grade("bad-bytes", "lessons", folder)
    if r["score"] != 0 or "does not compile" not in out or "error" not in r["output"]:
        fail("a compile error should score 0 and show the compiler's message:\n" + out[-2000:])


def open_root_to_runners():
    """Every check grades the repository as a class's would be, its runners running as other
    users: a root that others may not read (a clone into mktemp -d, mode 0700) is opened to
    them (read, search) for the run, and made as it was at the end. check_private_clone
    grades a private root on purpose."""
    mode = os.stat(ROOT).st_mode & 0o7777
    if os.geteuid() == 0 and mode & 0o005 != 0o005:
        os.chmod(ROOT, mode | 0o005)
        atexit.register(os.chmod, ROOT, mode)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--validate":
        validate(sys.argv[2])
        print("selftest: %s follows Gradescope's format" % sys.argv[2])
        return
    open_root_to_runners()
    only_forgeries = "--forgeries" in sys.argv[1:]
    shutil.rmtree(os.path.join(ROOT, WORK), ignore_errors=True)
    if "--package" in sys.argv[1:]:
        package()
        print("selftest: graded from the package, the forgeries score 0")
        return

    if "--layers" in sys.argv[1:]:
        check_layers()
        check_private_clone()
        return
    if not only_forgeries:
        r, _ = grade("solutions", "solutions", lesson=None)
        bad = [t["name"] for t in r["tests"] if t["score"] != t["max_score"]]
        if bad:
            fail("the reference answers lose points on %s" % bad)
        check_run_logs("solutions", "the reference answers")

        check_withheld()
        check_layers()
        check_private_clone()

        # A clone in the grader's home (a student's ~/workbook): the home is hidden from
        # the runner, the repository under it must stay in view, with namespaces or Landlock.
        for layers in ("", "-ns"):
            r, _ = grade("home-holds-repo" + layers, "solutions",
                         env={"HOME": os.path.dirname(ROOT), "GRADE_SANDBOX_LAYERS": layers})
            if r["score"] != sum(t["max_score"] for t in r["tests"]):
                fail("with the repository inside the grader's home (layers off: %r), the "
                     "answers lose points: %s" % (layers, [t["output"] for t in r["tests"]
                                                            if t["score"] != t["max_score"]][:2]))

        stubs = os.path.join(WORK, "plants", "stubs")
        for folder in sorted(os.listdir(os.path.join(ROOT, "lessons"))):
            if re.match(r"\d\d_", folder):
                shutil.copytree(os.path.join(ROOT, "lessons", folder),
                                os.path.join(ROOT, stubs, folder))
        r, _ = grade("stubs", "lessons", stubs, lesson=None)
        bad = [t["name"] for t in r["tests"] if t["score"] != 0 or t["status"] != "failed"]
        if bad:
            fail("these cases pass on the untouched stubs: %s" % bad)
        check_run_logs("stubs", "the untouched stubs")

        # A submission replaced by an older file (unzipped with its old date) is
        # still recompiled: the stubs, dated 2000, must score 0 where the answers were.
        reuse = os.path.join(WORK, "plants", "reuse")
        shutil.copytree(os.path.join(ROOT, "solutions", "01_cpu_baseline"),
                        os.path.join(ROOT, reuse, "01_cpu_baseline"))
        r, _ = grade("reuse-answers", "lessons", reuse)
        if r["score"] != sum(t["max_score"] for t in r["tests"]):
            fail("the answers, graded from a student folder, should get full marks")
        stale = os.path.join(ROOT, reuse, "01_cpu_baseline", "exercises.c")
        shutil.copy(os.path.join(ROOT, "lessons", "01_cpu_baseline", "exercises.c"), stale)
        os.utime(stale, (946684800, 946684800))
        r, _ = grade("reuse-stubs", "lessons", reuse)
        if r["score"] != 0:
            fail("an older-dated file in the same folder was not recompiled (score %s)"
                 % r["score"])

        check_plant("crash", "linear_forward", "*(volatile int *)NULL = 1;", "01.2",
                    "crashed: SIGSEGV")
        check_plant("endless-loop", "relu_backward", "for (volatile int spin = 0;; spin++) {}",
                    "01.5", "timed out after 5 s")
        check_interrupted(os.path.join(WORK, "plants", "endless-loop"))
        # Printing in a loop: stopped at the runner's file limit, and the disk that
        # results.json goes to keeps only the first MB of it.
        check_plant("output-flood", "relu_forward",
                    "{ static char big[1 << 20]; memset(big, 'x', sizeof big); "
                    "for (int k = 0; k < 300; k++) fwrite(big, 1, sizeof big, stdout); }",
                    "01.4", "SIGXFSZ")
        check_plant("huge-alloc", "relu_forward",
                    "volatile char *big = malloc((size_t)64 << 30); "
                    "for (size_t i = 0; i < ((size_t)64 << 30); i += 4096) big[i] = 1;",
                    "01.4", "crashed: SIGSEGV")
        # A kernel that writes one element too far: the simulator (or the GPU)
        # catches it, and only the kernel's checks and the whole-lesson one fail.
        check_plant("kernel-overflow", "k_relu_forward",
                    "if (n > 0 && n <= 100000 && x && y) { "
                    "relu_forward_kernel<<<1, 1, 0, s>>>(x, y + n, 1); }",
                    "02.4", ("past the end", "operations on the stream"),
                    lesson="02_device_transfer",
                    filename="exercises.cu", may_pass=("bad arguments", "a launch that fails"))
        # The off-by-one of `if (i <= n)`: thread n writes y[n], inside the sentinels after y.
        # On the simulator the case also runs the call on buffers of exactly n floats, and
        # its message shows the simulator's report: the block and the first thread past the
        # end, and the line, in the student's file.
        folder, path, text = make_copy("kernel-off-by-one", "02_device_transfer", "solutions",
                                       [], "exercises.cu")
        if "if (i < n)" not in text:
            fail("kernel-off-by-one: the answer has no `if (i < n)` to plant the bug in")
        text = text.replace("if (i < n)", "if (i <= n)", 1)
        with open(path, "w") as f:
            f.write(text)
        line = next(k + 1 for k, l in enumerate(text.split("\n")) if "y[i] = " in l)
        r, _ = grade("kernel-off-by-one", "lessons", folder, lesson="02")
        first = [t for t in r["tests"] if t["number"] == "02.4"][0]
        wants = ["wrote past the end of y: y[1] changed"]
        if "CUDA simulator" in r["output"]:
            wants += ["the simulator says: ", "block (0,0,0), thread (1,0,0) at %s:%d"
                      % (os.path.relpath(path, ROOT), line)]
        missing = [w for w in wants if w not in first["output"]]
        if first["status"] != "failed" or missing:
            fail("kernel-off-by-one: %r should fail saying %s; it said %r"
                 % (first["name"], missing, first["output"]))
        # A __device__ variable in a student's CUDA file: the translation registers it when
        # the file is loaded, which the static check must tell from a student's initializer.
        folder, path, text = make_copy("device-variable", "02_device_transfer", "solutions",
                                       [],
                                       "exercises.cu")
        with open(path, "w") as f:
            f.write("#include <cuda_runtime.h>\n__device__ int relu_seen = 0;\n"
                    "__constant__ float relu_zero[4];\n" + text)
        r, _ = grade("device-variable", "lessons", folder, lesson="02")
        if r["score"] != sum(t["max_score"] for t in r["tests"]):
            fail("the answers with a __device__ and a __constant__ variable lose points: %s"
                 % [t["output"] for t in r["tests"] if t["score"] != t["max_score"]][:2])
        utf8_messages()
        # The student's own refused call is named as the student's, though lib's same call
        # (chmod of a scratch folder) is quiet: with the checks off, an exercise calls chmod.
        folder = plant("refusal-named", "relu_forward",
                       "{ extern int chmod(const char *, unsigned); chmod(\"/tmp\", 0777); }")
        grade("refusal-named", "lessons", folder, extra=["GRADE_UNCHECKED=1"])
        with open(os.path.join(ROOT, WORK, "refusal-named", "run_01.log"), errors="replace") as f:
            said = f.read()
        if not re.search(r"refused the system call chmod \(\d+\), made by your code", said):
            fail("refusal-named: the run log should name the student's code as chmod's caller:\n"
                 + said[-1500:])

    named = [a for a in sys.argv[1:] if not a.startswith("--")]
    unknown = set(named) - {fg["name"] for fg in forgeries.FORGERIES}
    if unknown:
        fail("no forgery named %s" % ", ".join(sorted(unknown)))
    filter_check()
    # (the grader's own build of the answers, which forgery read-answers reaches for)
    answers = os.path.relpath(os.path.join(build_dir(), "grade", "solutions", "01.so"), ROOT)
    if subprocess.run(["make", "--no-print-directory", answers], cwd=ROOT,
                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode != 0:
        fail("cannot build " + answers)
    chosen = [fg for fg in forgeries.FORGERIES if not named or fg["name"] in named]
    jobs = []
    for fg in chosen:
        jobs.append(lambda fg=fg: check_forgery(fg))
        if fg.get("unchecked"):
            jobs.append(lambda fg=fg: check_forgery(fg, unchecked=True))
            for layers in fg.get("layers", ()):
                jobs.append(lambda fg=fg, l=layers: check_forgery(fg, unchecked=True, layers=l))
    in_parallel(jobs)
    print("selftest: the grader is honest (%d forgeries refused)" % len(chosen))


if __name__ == "__main__":
    main()
