#!/usr/bin/env python3
"""make grade-all with the real grader, as CI runs it (.ci/run): a class of eight
submissions of mixed quality (all solved, none, single lessons, a compile error, a wrong
function and an endless loop, a link to the answers, files inside a folder of their own),
graded on Lessons 01 and 04:

  1. JOBS=1, then JOBS=2 interrupted (Ctrl-C) and run again to the end: the same
     summary.csv, gradebook.csv and report.html; then an unchanged rerun, in a small
     fraction of the first run's time;
  2. the SLURM array of tests/graded/class/grade_all.sbatch (two tasks at once, SHARD=1/2 and
     2/2, under a stand-in for sbatch), then make grade-report: the same files again;
  3. the grader's shared files untouched by all those make grade running at once;
  4. report.html in headless Chromium (tests/graded/selfcheck/check_report.py);
  5. a class of bad input on Lesson 04 (odd names: a space, bytes that are not UTF-8, a
     spreadsheet formula; links, a FIFO, a hard link, an enormous file, nothing handed in,
     a loose file, files named like results, code that reaches for another's results):
     each graded or refused with its line, the odd names graded from copies and shown
     escaped, and the one good submission's results the same as when it is graded alone;
  6. a Gradescope export and a Canvas download (zips) graded into gradebook.csv.

Before that, the unit tests of grade-all (test_grade_all_layouts.py, _run.py, _input.py).

    python3 tests/graded/selfcheck/grade_all_check.py [--no-browser] [--keep]

Everything is built and graded under build/grade-all-check/ (removed at the end unless
--keep). Exit status 0 when every check passes.
"""
import argparse
import csv
import hashlib
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
CLASS_DIR = os.path.join(os.path.dirname(HERE), "class")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, CLASS_DIR)
from gradeall.layouts import generated_key  # noqa: E402
WORK = "build/grade-all-check"
SEED = "20261204"
L01, L04 = "01_cpu_baseline/exercises.c", "04_callable_objects/exercises.c"


def fail(msg):
    print("grade_all_check: FAILED: " + msg, flush=True)
    sys.exit(1)


def step(msg):
    print("== " + msg, flush=True)


def read(path, mode="r"):
    with open(os.path.join(REPO, path), mode) as f:
        return f.read()


def put(path, text):
    full = os.path.join(REPO, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)


def make(*args, code=0, env=None):
    """make ARGS in the repository: (output, seconds)."""
    t0 = time.monotonic()
    r = subprocess.run(["make", "--no-print-directory"] + list(args), cwd=REPO, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != code:
        fail("make %s ended with %d, not %d:\n%s" % (" ".join(args), r.returncode, code, r.stdout[-4000:]))
    return r.stdout, time.monotonic() - t0


def grade_all(cls, out, *more, code=0):
    return make("grade-all", "SUBMISSIONS=" + cls, "OUT=" + out, "GRADE_SEED=" + SEED, *more, code=code)


def outputs(out):
    return {n: read(os.path.join(out, n), "rb") for n in ("summary.csv", "gradebook.csv", "report.html")}


def same(a, b, what):
    oa, ob = outputs(a), outputs(b)
    for n in oa:
        if oa[n] != ob[n]:
            fail("%s: %s/%s and %s/%s differ" % (what, a, n, b, n))
    print("   %s: summary.csv, gradebook.csv and report.html the same as %s's" % (b, a))


def summary(out):
    with open(os.path.join(REPO, out, "summary.csv")) as f:
        return {r["submission"]: r for r in csv.DictReader(f)}


def expect_scores(out, want):
    got = summary(out)
    for key, (score, status) in want.items():
        row = got.get(key)
        if row is None or row["status"] != status or (score is not None and row["score"] != score):
            fail("%s: %s is %s, expected %s %s" % (out, key, row and dict(row), status, score))


# ---- the class of eight --------------------------------------------------------------------

def make_class(cls):
    sol = lambda rel: read("solutions/" + rel)
    stub = lambda rel: read("lessons/" + rel)
    files = {
        "alice": {L01: sol(L01), L04: sol(L04)},
        "bob": {L01: stub(L01), L04: stub(L04)},
        "carol": {L01: sol(L01)},
        "dave": {L04: sol(L04)},
        "erin": {L01: sol(L01) + "\nint broken(void) { return 0 }\n", L04: sol(L04)},
        "frank": {L01: sol(L01).replace("y[i] = x[i] > 0.0f ? x[i] : 0.0f;", "y[i] = x[i];"),
                  L04: sol(L04).replace("c->count++;", "for (volatile int spin = 1; spin;) {}")},
        "grace": {L04: sol(L04), "README.md": "my notes\n", "a.out": "\x7fELF"},
        "heidi": {"lab/" + L01: sol(L01), "lab/" + L04: stub(L04)},
    }
    if files["frank"][L01] == sol(L01) or files["frank"][L04] == sol(L04):
        fail("the planted faults no longer match solutions/")
    for who, fs in files.items():
        for rel, text in fs.items():
            put(os.path.join(cls, who, rel), text)
    os.makedirs(os.path.join(REPO, cls, "grace", "01_cpu_baseline"))
    os.symlink(os.path.join(REPO, "solutions", L01), os.path.join(REPO, cls, "grace", L01))


def snapshot():
    """The grader's files every submission shares (not those kept apart per STUDENT_DIR)."""
    apart = ("obj/student/", "obj/sim/student/", "obj/cuda/student/", "sim/student/", "intake/",
             "grade/student/")
    seen = {}
    base = os.path.join(REPO, "build", "rel")
    for d, _, names in os.walk(base):
        for n in names:
            rel = os.path.relpath(os.path.join(d, n), base)
            if not rel.startswith(apart):
                st = os.lstat(os.path.join(d, n))
                seen[rel] = (st.st_mtime_ns, st.st_size)
    return seen


def interrupted_then_resumed(cls, out):
    """JOBS=2, Ctrl-C once two results are in, then the same command to the end."""
    p = subprocess.Popen(["make", "--no-print-directory", "grade-all", "SUBMISSIONS=" + cls, "OUT=" + out,
                          "GRADE_SEED=" + SEED, "LESSON=01 04", "JOBS=2"], cwd=REPO,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 300
    while time.time() < deadline and p.poll() is None:
        done = [k for k in os.listdir(os.path.join(REPO, cls))
                if os.path.exists(os.path.join(REPO, out, k, "submission.json"))]
        if len(done) >= 2:
            break
        time.sleep(0.1)
    os.killpg(p.pid, signal.SIGINT)  # Ctrl-C: to make and grade-all alike
    text = p.communicate(timeout=120)[0]
    if "interrupted; the results complete so far are kept" not in text:
        fail("Ctrl-C: grade-all did not stop as it should:\n" + text[-3000:])
    left = os.listdir(os.path.join(REPO, out, ".tmp"))
    if left:
        fail("Ctrl-C left temporary results: %s" % left)
    kept = [k for k in os.listdir(os.path.join(REPO, cls)) if os.path.exists(os.path.join(REPO, out, k))]
    for k in kept:
        if not os.path.exists(os.path.join(REPO, out, k, "submission.json")) or \
                not os.path.exists(os.path.join(REPO, out, k, "results.json")):
            fail("Ctrl-C left an incomplete result in %s/%s" % (out, k))
    text, _ = grade_all(cls, out, "LESSON=01 04", "JOBS=2")
    m = re.search(r"Graded 8 submissions in \d+ s: (\d+) graded, (\d+) unchanged", text)
    if not m or int(m.group(2)) != len(kept) or int(m.group(1)) != 8 - len(kept):
        fail("the run after Ctrl-C should keep the %d complete results:\n%s" % (len(kept), text))
    print("   Ctrl-C after %d results: nothing half-written; the next run graded the other %d"
          % (len(kept), 8 - len(kept)))


def fake_sbatch(argv, script, env):
    """sbatch, as far as a job array goes: every task of --array (the command line's, else
    the script's #SBATCH line) runs the script at once, with SLURM's variables."""
    opts = {}
    for line in read(script).splitlines():
        if line.startswith("#SBATCH "):
            k, _, v = line[8:].strip().partition("=")
            opts[k] = v
    for a in argv:
        k, _, v = a.partition("=")
        opts[k] = v
    lo, hi = (int(x) for x in opts["--array"].split("-"))
    task_env = dict(env)
    for kv in opts.get("--export", "ALL").split(",")[1:]:
        k, _, v = kv.partition("=")
        task_env[k] = v
    procs = []
    for t in range(lo, hi + 1):
        e = dict(task_env, SLURM_ARRAY_JOB_ID="4242", SLURM_ARRAY_TASK_ID=str(t),
                 SLURM_ARRAY_TASK_MIN=str(lo), SLURM_ARRAY_TASK_MAX=str(hi),
                 SLURM_ARRAY_TASK_COUNT=str(hi - lo + 1), SLURM_SUBMIT_DIR=REPO,
                 SLURM_CPUS_PER_TASK=opts.get("--cpus-per-task", "1"))
        procs.append(subprocess.Popen(["bash", script], cwd="/", env=e, stdout=subprocess.PIPE,
                                      stderr=subprocess.STDOUT, text=True))
    return [(p.communicate()[0], p.returncode) for p in procs]


# ---- bad input, exports --------------------------------------------------------------------

def bad_class(cls, out):
    good = read("solutions/" + L04)
    put(os.path.join(cls, "good", L04), good)
    put(os.path.join(cls, "Bad Name", L04), good)
    put(os.path.join(cls, "=HYPERLINK(1)", L04), good)
    odd = os.path.join(os.fsencode(os.path.join(REPO, cls)), b"n\xffo\x1b[2J", os.fsencode(L04))
    os.makedirs(os.path.dirname(odd))
    with open(odd, "w") as f:
        f.write(good)
    os.symlink("good", os.path.join(REPO, cls, "linked"))
    os.makedirs(os.path.join(REPO, cls, "lnfile", "04_callable_objects"))
    os.symlink(os.path.join(REPO, "solutions", L04), os.path.join(REPO, cls, "lnfile", L04))
    os.makedirs(os.path.join(REPO, cls, "huge", "04_callable_objects"))
    with open(os.path.join(REPO, cls, "huge", L04), "wb") as f:
        f.truncate(2 << 30)  # sparse: 2 GiB said, nothing written
    os.makedirs(os.path.join(REPO, cls, "fifo", "04_callable_objects"))
    os.mkfifo(os.path.join(REPO, cls, "fifo", L04))
    put(os.path.join(WORK, "elsewhere.c"), good)
    os.makedirs(os.path.join(REPO, cls, "hardlink", "04_callable_objects"))
    os.link(os.path.join(REPO, WORK, "elsewhere.c"), os.path.join(REPO, cls, "hardlink", L04))
    os.makedirs(os.path.join(REPO, cls, "nothing"))
    put(os.path.join(cls, "loose", "exercises.c"), good)
    target = os.path.join(REPO, out, "good", "results.json")
    put(os.path.join(cls, "hostile", L04), "#include <stdio.h>\n" + good.replace(
        "c->count++;", 'c->count++; { FILE *f = fopen("%s", "w"); if (f) { fputs("{}", f); '
        'fclose(f); } }' % target))
    for n in ("results.json", "submission.json", "score.txt"):
        put(os.path.join(cls, "hostile", n), '{"score": 1000}\n')
    put(os.path.join(cls, "roster.csv"), "name\n")
    put(os.path.join(cls, ".DS_Store"), "")


def check_bad_class(cls, out, alone):
    before = hashlib.sha256(read(os.path.join(cls, "good", L04), "rb")).hexdigest()
    text, _ = grade_all(cls, out, "LESSON=04", "JOBS=2")
    for line in ("ignored: roster.csv is a regular file, not a submission folder",
                 "ignored: .DS_Store (hidden)",
                 "linked: refused: linked is a symbolic link (to good)"):
        if line not in text:
            fail("bad input: no line %r in:\n%s" % (line, text))
    if "\x1b" in text:
        fail("bad input: a name's escape code reached the terminal:\n" + text)
    odd = {n: generated_key(os.fsdecode(n)) for n in ("Bad Name", "=HYPERLINK(1)", b"n\xffo\x1b[2J")}
    expect_scores(out, {k: ("70", "graded") for k in odd.values()})
    got = summary(out)
    for name, shown in (("Bad Name", "Bad Name"), ("=HYPERLINK(1)", "'=HYPERLINK(1)"),
                        (b"n\xffo\x1b[2J", "n\\xffo\\x1b[2J")):
        if got[odd[name]]["student"] != shown:
            fail("bad input: %r shows as %r in summary.csv, not %r" % (
                name, got[odd[name]]["student"], shown))
    expect_scores(out, {"good": ("70", "graded"), "loose": ("70", "graded"),
                        "nothing": ("0", "graded"), "lnfile": ("0", "graded"),
                        "huge": ("0", "graded"), "fifo": ("0", "graded"),
                        "hardlink": ("0", "graded"), "linked": ("0", "refused")})
    why = {k: read(os.path.join(out, k, "compile_04.log")) for k in
           ("nothing", "lnfile", "huge", "fifo", "hardlink")}
    for k, w in (("nothing", "not handed in"), ("lnfile", "is a symbolic link"),
                 ("huge", "is 2147483648 bytes, more than the 1048576"),
                 ("fifo", "is a FIFO (named pipe), not a regular file"),
                 ("hardlink", "has 2 names (a hard link)")):
        if w not in why[k]:
            fail("bad input: %s's lesson 04 should say %r, says %r" % (k, w, why[k]))
    report = read(os.path.join(out, "report.html"))
    for w in ("is a FIFO", "not handed in", "has 2 names", "Bad Name", "n\\xffo\\x1b[2J"):
        if w not in report:
            fail("bad input: the report does not show %r" % w)
    # nothing any other submission holds or does changed the good one's results
    grade_all(os.path.join(cls, "..", "alone"), alone, "LESSON=04")
    strip = lambda s: re.sub(r'"execution_time": \d+', "", s)
    if strip(read(os.path.join(out, "good", "results.json"))) != \
            strip(read(os.path.join(alone, "good", "results.json"))):
        fail("bad input: good's results differ from those it gets graded alone")
    if hashlib.sha256(read(os.path.join(cls, "good", L04), "rb")).hexdigest() != before:
        fail("bad input: good's own file changed")
    print("   each bad submission graded or refused with its line; good's results the same "
          "as when graded alone")


def exports(work):
    sol, stub = read("solutions/" + L04).encode(), read("lessons/" + L04).encode()
    gs = os.path.join(REPO, work, "gradescope.zip")
    with zipfile.ZipFile(gs, "w") as z:
        z.writestr("assignment_9_export/submission_metadata.yml", (
            "submission_11:\n  :submitters:\n  - :name: Ada Lovelace\n    :sid: '42'\n"
            "    :email: ada@example.edu\nsubmission_12:\n  :submitters:\n  - :name: Bo One\n"
            "    :sid: '7'\n    :email: bo@example.edu\n"))
        z.writestr("assignment_9_export/submission_11/exercises.c", sol)
        z.writestr("assignment_9_export/submission_12/" + L04, stub)
    grade_all(os.path.join(work, "gradescope.zip"), os.path.join(work, "out-gradescope"), "LESSON=04",
              "GRADEBOOK_COLUMNS=student=Name,id=SID,04=Lab 4 (4411),total=")
    book = read(os.path.join(work, "out-gradescope", "gradebook.csv"))
    if book != "Name,SID,email,Lab 4 (4411)\nAda Lovelace,42,ada@example.edu,70\nBo One,7,bo@example.edu,0\n":
        fail("Gradescope export: gradebook.csv is\n" + book)
    cv = os.path.join(REPO, work, "canvas.zip")
    with zipfile.ZipFile(cv, "w") as z:
        z.writestr("lovelaceada_42_901_exercises.c", stub)
        z.writestr("lovelaceada_42_902_exercises-1.c", sol)  # resubmitted: this one counts
        z.writestr("oneb_LATE_7_903_exercises.c", stub)
    grade_all(os.path.join(work, "canvas.zip"), os.path.join(work, "out-canvas"), "LESSON=04")
    book = read(os.path.join(work, "out-canvas", "gradebook.csv"))
    if book != "student,id,lesson 04,total\nlovelaceada,42,70,70\noneb,7,0,0\n":
        fail("Canvas download: gradebook.csv is\n" + book)
    print("   a Gradescope export and a Canvas download graded into gradebook.csv")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--no-browser", action="store_true", help="skip the Chromium check")
    ap.add_argument("--keep", action="store_true", help="keep build/grade-all-check")
    a = ap.parse_args()
    t_start = time.monotonic()
    step("grade-all's unit tests (a stand-in for make)")
    for t in ("test_grade_all_layouts.py", "test_grade_all_run.py", "test_grade_all_input.py"):
        r = subprocess.run([sys.executable, os.path.join(HERE, t)], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            fail("%s:\n%s" % (t, r.stdout[-4000:]))
    shutil.rmtree(os.path.join(REPO, WORK), ignore_errors=True)
    cls = os.path.join(WORK, "class")
    make_class(cls)
    make("grader")
    shared = snapshot()

    step("eight submissions, Lessons 01 and 04: JOBS=1, then JOBS=2 interrupted and resumed")
    text, t1 = grade_all(cls, WORK + "/one", "LESSON=01 04", "JOBS=1")
    print("   JOBS=1: %.0f s" % t1)
    expect_scores(WORK + "/one", {"alice": ("174", "graded"), "bob": ("0", "graded"),
                                  "carol": ("104", "graded"), "dave": ("70", "graded"),
                                  "erin": ("70", "graded"), "grace": ("70", "graded"),
                                  "heidi": ("104", "graded")})
    frank = float(summary(WORK + "/one")["frank"]["score"])
    if not 0 < frank < 174:
        fail("frank's planted faults should cost some points, not all: %g" % frank)
    report = read(WORK + "/one/report.html")
    for what in ("does not compile", "refused by the grader", "not handed in", "timed out",
                 "GRADE_SEED=" + SEED):
        if what not in report:
            fail("report.html does not show %r" % what)
    interrupted_then_resumed(cls, WORK + "/two")
    same(WORK + "/one", WORK + "/two", "JOBS=2 after Ctrl-C")
    text, t2 = grade_all(cls, WORK + "/two", "LESSON=01 04", "JOBS=2")
    if "8 unchanged" not in text or t2 > t1 / 5:
        fail("an unchanged rerun took %.1f s (the first %.1f s):\n%s" % (t2, t1, text))
    print("   unchanged rerun: %.1f s, %.0f %% of the first run's" % (t2, 100 * t2 / t1))
    same(WORK + "/one", WORK + "/two", "the rerun")

    step("the SLURM array of tests/graded/class/grade_all.sbatch (tasks 1 and 2 at once), then grade-report")
    env = dict(os.environ)
    env.pop("MAKEFLAGS", None)
    runs = fake_sbatch(["--array=1-2", "--cpus-per-task=1", "--export=ALL,SUBMISSIONS=%s,OUT=%s,"
                        "LESSON=01 04,GRADE_SEED=%s" % (cls, WORK + "/shards", SEED)],
                       os.path.join(CLASS_DIR, "grade_all.sbatch"), env)
    for k, (text, rc) in enumerate(runs, 1):
        if rc != 0 or "shard %d/2" % k not in text:
            fail("array task %d ended with %d:\n%s" % (k, rc, text[-3000:]))
    make("grade-report", "SUBMISSIONS=" + cls, "OUT=" + WORK + "/shards", "LESSON=01 04")
    same(WORK + "/one", WORK + "/shards", "SHARD=1/2 + SHARD=2/2 + grade-report")

    step("the grader's shared files: untouched by the submissions graded at once")
    now = snapshot()
    changed = sorted(k for k in set(shared) | set(now) if shared.get(k) != now.get(k))
    if changed:
        fail("make grade of several submissions at once changed shared files: %s" % changed[:20])
    print("   none of %d shared files changed" % len(shared))

    if not a.no_browser:
        step("report.html in headless Chromium")
        py = next((p for p in (sys.executable, "/usr/bin/python3") if subprocess.run(
            [p, "-c", "import selenium"], capture_output=True).returncode == 0), None)
        if py is None:
            fail("the browser check needs Selenium and Chromium: sudo apt-get install -y chromium "
                 "chromium-driver python3-selenium (or --no-browser)")
        r = subprocess.run([py, os.path.join(HERE, "check_report.py"), os.path.join(REPO, WORK, "one")],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        print("   " + r.stdout.strip().replace("\n", "\n   "))
        if r.returncode != 0:
            fail("report.html in Chromium")

    step("bad input, one submission at a time (Lesson 04)")
    bad_class(WORK + "/bad", WORK + "/out-bad")
    put(os.path.join(WORK, "alone", "good", L04), read("solutions/" + L04))
    check_bad_class(WORK + "/bad", WORK + "/out-bad", WORK + "/out-alone")

    step("the exports instructors have (Lesson 04)")
    exports(WORK)

    if not a.keep:
        shutil.rmtree(os.path.join(REPO, WORK), ignore_errors=True)
    print("grade_all_check: every check passes (%.0f s)" % (time.monotonic() - t_start))
    return 0


if __name__ == "__main__":
    sys.exit(main())
