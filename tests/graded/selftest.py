#!/usr/bin/env python3
"""Prove that the grader is honest (CI runs this after make grade).

    python3 tests/graded/selftest.py             # everything below
    python3 tests/graded/selftest.py --validate build/grade/results.json

1. The reference answers get full marks, on every case.
2. The untouched stubs get 0 on every case: a case that passes on a stub is a bug.
3. Planted faults, each in one exercise of a copy of the answers, fail that
   exercise's cases (and the whole-lesson case that trains with it) with a
   message naming what happened, and nothing else:
   a crash, an endless loop, an exit(0), a huge allocation, a compile error
   (with a Latin-1 byte in it, which results.json must still carry as UTF-8).
4. A student file replaced by an older-dated one is recompiled, not reused.
Every results.json written on the way is checked against Gradescope's format.
"""
import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOP_KEYS = {"score", "execution_time", "output", "output_format", "test_output_format",
            "test_name_format", "visibility", "stdout_visibility", "extra_data", "tests",
            "leaderboard"}
TEST_KEYS = {"score", "max_score", "status", "name", "name_format", "number", "output",
             "output_format", "tags", "visibility", "extra_data"}
VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}


def fail(msg):
    print("selftest: FAILED: " + msg)
    sys.exit(1)


def validate(path):
    """Check results.json against Gradescope's autograder results format."""
    with open(path) as f:
        r = json.load(f)
    if not isinstance(r, dict):
        fail("%s: the top level must be an object" % path)
    extra = set(r) - TOP_KEYS
    if extra:
        fail("%s: unknown top-level keys %s" % (path, sorted(extra)))
    if "score" not in r and not all("score" in t for t in r.get("tests", [])):
        fail("%s: a score is needed at the top or on every test" % path)
    for key in ("score", "execution_time"):
        if key in r and not isinstance(r[key], (int, float)):
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
        extra = set(t) - TEST_KEYS
        if extra:
            fail("%s: test %r has unknown keys %s" % (path, t.get("name"), sorted(extra)))
        for key in ("score", "max_score"):
            if not isinstance(t.get(key), (int, float)):
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
    if abs(total - r["score"]) > 1e-9:
        fail("%s: the top-level score %s is not the sum of the tests' %s" % (path, r["score"], total))
    return r


def grade(name, impl, student_dir=None, lesson="01"):
    out = os.path.join("build", "selftest", name)
    args = ["make", "--no-print-directory", "grade", "IMPL=" + impl, "GRADE_OUT=" + out]
    if lesson:
        args.append("LESSON=" + lesson)
    if student_dir:
        args.append("STUDENT_DIR=" + student_dir)
    p = subprocess.run(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, errors="replace")
    if p.returncode != 0:
        fail("%s: make grade exited with %d (it must exit 0 whenever grading ran):\n%s"
             % (name, p.returncode, p.stdout[-3000:]))
    print("selftest: %-14s %s" % (name, p.stdout.strip().splitlines()[-3]))
    return validate(os.path.join(ROOT, out, "results.json")), p.stdout


def plant(name, function, code, lesson="01_cpu_baseline", filename="exercises.c",
          returns="int"):
    """A copy of the answers with `code` put at the start of `function`."""
    src = os.path.join(ROOT, "solutions", lesson, filename)
    text = open(src).read()
    m = re.search(r"\n%s %s\([^)]*\)\n\{\n" % (re.escape(returns), function), text)
    if not m:
        fail("cannot find %s in %s" % (function, src))
    text = text[:m.end()] + "    " + code + "\n" + text[m.end():]
    folder = os.path.join("build", "selftest", "plants", name)
    os.makedirs(os.path.join(ROOT, folder, lesson), exist_ok=True)
    for other in os.listdir(os.path.join(ROOT, "solutions", lesson)):
        if other != filename:
            shutil.copy(os.path.join(ROOT, "solutions", lesson, other),
                        os.path.join(ROOT, folder, lesson, other))
    # Latin-1, not UTF-8: a plant may carry a byte like a student's editor would.
    with open(os.path.join(ROOT, folder, lesson, filename), "w", encoding="latin-1") as f:
        f.write("#include <stdlib.h>\n#include <string.h>\n" + text)
    return folder


def check_plant(name, function, code, exercise, message, lesson="01_cpu_baseline",
                filename="exercises.c", returns="int", may_pass=()):
    r, _ = grade(name, "lessons", plant(name, function, code, lesson, filename, returns),
                 lesson=lesson[:2])
    for t in r["tests"]:
        if any(m in t["name"] for m in may_pass):
            continue  # a check the planted fault does not reach
        own = t["number"] == exercise
        whole = "." not in t["number"]
        if own:
            if t["status"] != "failed" or message not in t["output"]:
                fail("%s: %r should fail with %r, got %s: %r"
                     % (name, t["name"], message, t["status"], t["output"]))
        elif whole:
            if t["status"] != "failed":
                fail("%s: the whole-lesson case %r passed with a broken exercise"
                     % (name, t["name"]))
        elif t["status"] != "passed":
            fail("%s: %r failed although the fault is in %s: %r"
                 % (name, t["name"], exercise, t["output"]))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--validate":
        validate(sys.argv[2])
        print("selftest: %s follows Gradescope's format" % sys.argv[2])
        return
    shutil.rmtree(os.path.join(ROOT, "build", "selftest"), ignore_errors=True)

    r, _ = grade("solutions", "solutions", lesson=None)
    bad = [t["name"] for t in r["tests"] if t["score"] != t["max_score"]]
    if bad:
        fail("the reference answers lose points on %s" % bad)

    stubs = os.path.join("build", "selftest", "plants", "stubs")
    for folder in sorted(os.listdir(os.path.join(ROOT, "lessons"))):
        if re.match(r"\d\d_", folder):
            shutil.copytree(os.path.join(ROOT, "lessons", folder), os.path.join(ROOT, stubs, folder))
    r, _ = grade("stubs", "lessons", stubs, lesson=None)
    bad = [t["name"] for t in r["tests"] if t["score"] != 0 or t["status"] != "failed"]
    if bad:
        fail("these cases pass on the untouched stubs: %s" % bad)

    # A submission replaced by an older file (unzipped with its old date) is
    # still recompiled: the stubs, dated 2000, must score 0 where the answers were.
    reuse = os.path.join("build", "selftest", "plants", "reuse")
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
        fail("an older-dated file in the same folder was not recompiled (score %s)" % r["score"])

    check_plant("crash", "linear_forward", "*(volatile int *)NULL = 1;", "01.2",
                "crashed: SIGSEGV")
    check_plant("endless-loop", "relu_backward", "for (volatile int spin = 0;; spin++) {}",
                "01.5", "timed out after 5 s")
    check_plant("exit0", "cross_entropy_backward", "exit(0);", "01.7",
                "exited early with status 0")
    check_plant("huge-alloc", "relu_forward",
                "volatile char *big = malloc((size_t)64 << 30); "
                "for (size_t i = 0; i < ((size_t)64 << 30); i += 4096) big[i] = 1;",
                "01.4", "crashed: SIGSEGV")

    # A kernel that writes one element too far: the simulator (or the GPU)
    # catches it, and only the kernel's checks and the whole-lesson one fail.
    check_plant("kernel-overflow", "k_relu_forward",
                "if (n > 0 && n <= 100000 && x && y) { "
                "relu_forward_kernel<<<1, 1, 0, s>>>(x, y + n, 1); }",
                "02.4", "past the end", lesson="02_device_transfer", filename="exercises.cu",
                returns='extern "C" cudaError_t', may_pass=("bad arguments",))

    r, out = grade("compile-error", "lessons",
                   plant("compile-error", "sgd_step", "this is not C; /* caf\u00e9 */"))
    if r["score"] != 0 or "does not compile" not in out or "error" not in r["output"]:
        fail("a compile error should score 0 and show the compiler's message:\n" + out[-2000:])
    print("selftest: the grader is honest")


if __name__ == "__main__":
    main()
