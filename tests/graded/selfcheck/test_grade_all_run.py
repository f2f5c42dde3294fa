#!/usr/bin/env python3
"""make grade-all's running of a class (tests/graded/class/gradeall/run.py, report.py, and
grade_all.py itself), with a stand-in for make that grades in a few milliseconds what a
file says it scores: parallel runs agree, unchanged submissions are not graded again,
shards split the class and merge, an interrupted run (Ctrl-C, SIGKILL, a full disk, a
half-written result) leaves nothing a later run trusts, one submission's failure stops
no other. tests/graded/selfcheck/grade_all_check.py does the same with the real grader.

    python3 tests/graded/selfcheck/test_grade_all_run.py
"""
import contextlib
import csv
import errno
import hashlib
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CLASS_DIR = os.path.join(os.path.dirname(HERE), "class")
sys.path.insert(0, CLASS_DIR)
sys.path.insert(0, HERE)

import grade_all  # noqa: E402
from gradeall import report, run  # noqa: E402

L01 = "01_cpu_baseline/exercises.c"
L04 = "04_callable_objects/exercises.c"

# make grade, as far as grade-all can tell: per lesson, its file says what it scores
# ("score K" of 10 for NN.1; "two" passes NN.2), "sleep S" takes S seconds, "broken" does
# not compile, "crash" stops make grade without results. Every call is logged.
FAKE_MAKE = r'''
import json, os, sys, time
args = dict(a.split("=", 1) for a in sys.argv[1:] if "=" in a)
goals = [a for a in sys.argv[1:] if "=" not in a and not a.startswith("-")]
with open(os.environ["FAKE_MAKE_LOG"], "a") as f:
    f.write("%s %s %d\n" % (" ".join(goals), args.get("STUDENT_DIR", ""), os.getpid()))
if goals != ["grade"]:
    sys.exit(0)
src, out, seed = args["STUDENT_DIR"], args["GRADE_OUT"], os.environ["GRADE_SEED"]
folders = {d[:2]: d for d in os.listdir("lessons") if d[:2].isdigit()}
tests, total = [], 0
for l in args["LESSON"].split():
    path = os.path.join(src, folders[l], "exercises.c")
    status, log, text = 0, "", ""
    if os.path.islink(path):
        status, log = 1, "refused: %s is a symbolic link" % path
    elif not os.path.exists(path):
        status, log = 1, "not handed in: %s has no %s/exercises.c" % (src, folders[l])
    else:
        text = open(path).read()
        if "broken" in text:
            status, log = 1, "%s:3:1: error: expected ';' before '}' token" % path
    for w in text.split("\n"):
        if w.startswith("sleep "):
            time.sleep(float(w.split()[1]) * float(os.environ.get("FAKE_MAKE_SLOW", "1")))
        if w.startswith("apart "):  # a step in a process group of its own, as timeout(1) runs one
            import subprocess
            c = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(%s)" % w.split()[1]],
                                 process_group=0, close_fds=False)
            open(os.path.join(os.environ["FAKE_MAKE_LOG"] + ".apart"), "w").write("%d\n" % c.pid)
            c.wait()
    if "crash" in text:
        sys.exit(2)
    open(os.path.join(out, "compile_%s.status" % l), "w").write("%d\n" % status)
    open(os.path.join(out, "compile_%s.log" % l), "w").write(log + "\n")
    k = 0
    for w in text.split("\n"):
        if w.startswith("score "):
            k = int(w.split()[1])
    ok2 = status == 0 and "two" in text
    tests.append({"name": "ex%s.1 first: a check" % l, "number": l + ".1", "score": k if not status else 0,
                  "max_score": 10, "status": "passed" if k == 10 and not status else "failed",
                  "output": "passed" if k == 10 else log or "expected 10, got %d (seed %s)" % (k, seed)})
    tests.append({"name": "ex%s.2 second: a check" % l, "number": l + ".2", "score": 5 if ok2 else 0,
                  "max_score": 5, "status": "passed" if ok2 else "failed",
                  "output": "passed" if ok2 else log or "timed out after 5 s in %s" % path})
    total += (k if not status else 0) + (5 if ok2 else 0)
json.dump({"score": total, "execution_time": int(time.time()), "tests": tests},
          open(os.path.join(out, "results.json"), "w"))
open(os.path.join(out, "score.txt"), "w").write("%d %d\n" % (total, 15 * len(args["LESSON"].split())))
print("graded %s" % src)
'''

CLASS = {  # student: {lesson file: text}
    "alice": {L01: "score 10\ntwo", L04: "score 10\ntwo"},
    "bob": {L01: "score 0", L04: "score 0"},
    "carol": {L01: "score 10\ntwo"},
    "dave": {L04: "score 7\ntwo"},
    "erin": {L01: "broken", L04: "score 10"},
    "frank": {L01: "score 3", L04: "score 9\ntwo"},
    "grace": {L01: "score 10", L04: "score 1"},
    "heidi": {L01: "score 5\ntwo", L04: "two"},
}


@contextlib.contextmanager
def held_lock(path):
    """path's flock, held by another process meanwhile."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    hold = ("import fcntl, time; f = open(%r, 'a'); fcntl.flock(f, fcntl.LOCK_EX); "
            "print('held', flush=True); time.sleep(120)" % path)
    other = subprocess.Popen([sys.executable, "-c", hold], stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout.readline() == "held\n"
        yield
    finally:
        other.kill()
        other.wait()
        other.stdout.close()


def interruptible():
    """Ctrl-C as at a terminal: a command started in the background of a script (CI's
    `... &`) inherits SIGINT ignored, and Python then never raises KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def text_of(path):
    try:
        with open(path) as f:
            return f.read()
    except FileNotFoundError:
        return ""


class Class(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="grade-all-run-")
        self.cls = os.path.join(self.tmp, "class")
        for who, fs in CLASS.items():
            for rel, text in fs.items():
                self.put(who, rel, text)
        self.make = os.path.join(self.tmp, "fake_make.py")
        with open(self.make, "w") as f:
            f.write(FAKE_MAKE)
        self.log = os.path.join(self.tmp, "make.log")
        os.environ["FAKE_MAKE_LOG"] = self.log

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def put(self, who, rel, text):
        p = os.path.join(self.cls, who, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)

    def argv(self, out, *more, command="grade"):
        return [command, "--submissions", self.cls, "--out", os.path.join(self.tmp, out),
                "--lessons", "01 04", "--build-root", os.path.join(self.tmp, "build"),
                "--make", "%s %s" % (sys.executable, self.make)] + list(more)

    def grade(self, out, *more, command="grade", code=0):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            rc = grade_all.main(self.argv(out, *more, command=command))
        self.assertEqual(rc, code, buf.getvalue())
        return buf.getvalue()

    def graded(self):
        """The submissions make grade was called for since the last call."""
        try:
            with open(self.log) as f:
                lines = f.read().split("\n")
            os.unlink(self.log)
        except FileNotFoundError:
            return []
        return sorted(os.path.basename(l.split()[1]) for l in lines if l.startswith("grade "))

    def read(self, out, name):
        with open(os.path.join(self.tmp, out, name), "rb") as f:
            return f.read()

    def summary(self, out):
        with open(os.path.join(self.tmp, out, "summary.csv")) as f:
            return list(csv.reader(f))

    def assert_same_outputs(self, a, b):
        for name in ("summary.csv", "gradebook.csv", "report.html"):
            self.assertEqual(self.read(a, name), self.read(b, name), name)

    def assert_only_complete_results(self, out):
        """Every OUT/KEY a later run would trust is whole; nothing half-made is left."""
        o = os.path.join(self.tmp, out)
        for key in CLASS:
            rec = run.read_record(os.path.join(o, key))
            if os.path.exists(os.path.join(o, key)):
                self.assertIsNotNone(rec, key)
                self.assertTrue(os.path.isfile(os.path.join(o, key, "score.txt")), key)


class TestParallel(Class):
    def test_jobs_shards_and_reruns_agree(self):
        out1 = self.grade("one", "--jobs", "1", "--seed", "5")
        self.assertEqual(self.graded(), sorted(CLASS))
        self.assertIn("[8/8]", out1)
        self.grade("four", "--jobs", "4", "--seed", "5")
        self.assertEqual(self.graded(), sorted(CLASS))
        self.assert_same_outputs("one", "four")
        rows = {r[0]: r for r in self.summary("one")[1:]}
        self.assertEqual(rows["alice"][1:4], ["30", "30", "graded"])
        self.assertEqual(rows["erin"][1:4], ["10", "30", "graded"])
        # unchanged: nothing graded again, the same files
        out = self.grade("four", "--jobs", "4")
        self.assertEqual(self.graded(), [])
        self.assertIn("8 unchanged", out)
        self.assert_same_outputs("one", "four")
        # a changed file, a new submission: only they are graded
        self.put("bob", L01, "score 10\ntwo")
        self.put("ivan", L04, "score 2")
        self.grade("four", "--jobs", "4")
        self.assertEqual(self.graded(), ["bob", "ivan"])
        # another seed: everything again
        self.grade("four", "--jobs", "4", "--seed", "6")
        self.assertEqual(len(self.graded()), 9)

    def test_shards_split_the_class_and_the_report_merges_them(self):
        self.grade("whole", "--seed", "9")
        self.graded()
        first = self.grade("sharded", "--shard", "1/2", "--seed", "9")
        part1 = self.graded()
        self.assertIn("not graded yet", first)
        self.assertIn("Not graded yet", self.read("sharded", "report.html").decode())
        self.grade("sharded", "--shard", "2/2")
        part2 = self.graded()
        self.assertEqual(sorted(part1 + part2), sorted(CLASS))
        self.assertFalse(set(part1) & set(part2))
        self.assertEqual(part1, sorted(k for k in CLASS if run.shard_of(k, 2) == 1))
        self.grade("sharded", command="report")
        self.assertEqual(self.graded(), [])
        self.assert_same_outputs("whole", "sharded")

    def test_options_are_checked_before_anything_runs(self):
        for more, msg in ((("--shard", "3/2"), "SHARD=3/2: give K/N"),
                          (("--jobs", "zero"), "JOBS=zero"),
                          (("--columns", "nickname=Nick"), "GRADEBOOK_COLUMNS: 'nickname=Nick'"),
                          (("--seed", "-4"), "GRADE_SEED=-4")):
            out = self.grade("bad", *more, code=2)
            self.assertIn(msg, out)
        self.assertEqual(self.graded(), [])
        self.assertIn("no graded class", self.grade("never", command="report", code=2))


class TestInterrupted(Class):
    def start(self, out, *more, slow=1):
        """grade-all in a process of its own; its make grade's sleeps last slow times longer."""
        return subprocess.Popen([sys.executable, os.path.join(CLASS_DIR, "grade_all.py")] +
                                self.argv(out, "--seed", "3", *more), stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True,
                                env=dict(os.environ, FAKE_MAKE_SLOW=str(slow)),
                                preexec_fn=interruptible)

    def wait_for_results(self, out, n):
        deadline = time.time() + 60
        while time.time() < deadline:
            o = os.path.join(self.tmp, out)
            done = [k for k in CLASS if os.path.exists(os.path.join(o, k, "submission.json"))]
            if len(done) >= n:
                return
            time.sleep(0.05)
        self.fail("no results appeared")

    def wait_for_locks(self, out):
        import fcntl
        for key in CLASS:
            with open(os.path.join(self.tmp, out, ".locks", key), "a") as f:
                fcntl.flock(f.fileno(), fcntl.LOCK_EX)

    def test_ctrl_c_and_kill_leave_only_complete_results(self):
        for who in CLASS:  # each takes a while
            self.put(who, L04, "sleep 0.8\n" + CLASS[who].get(L04, ""))
        self.grade("whole", "--seed", "3", "--jobs", "4")
        for sig, code in ((signal.SIGINT, 130), (signal.SIGKILL, -9)):
            out = "stopped-%d" % sig
            # after SIGKILL, the make grades it left must still run when the next run starts,
            # however loaded the machine: they sleep 5 times longer (4 s)
            p = self.start(out, "--jobs", "2", slow=5 if sig == signal.SIGKILL else 1)
            self.wait_for_results(out, 2)
            p.send_signal(sig)
            text = p.communicate(timeout=60)[0]
            self.assertEqual(p.returncode, code, text)
            if sig == signal.SIGINT:
                self.assertIn("interrupted; the results complete so far are kept", text)
                self.assertEqual(os.listdir(os.path.join(self.tmp, out, ".tmp")), [])
            self.assert_only_complete_results(out)
            done_before = [k for k in CLASS if os.path.exists(os.path.join(self.tmp, out, k))]
            self.assertTrue(0 < len(done_before) < len(CLASS), done_before)
            if sig == signal.SIGKILL:  # its make grade goes on, holding its submission's lock
                self.assertIn("busy: being graded by another run", self.grade(out, "--jobs", "2"))
                self.wait_for_locks(out)
            self.graded()
            self.grade(out, "--jobs", "2")
            self.assertFalse(set(self.graded()) & set(done_before))  # kept, not graded again
            self.assertEqual(os.listdir(os.path.join(self.tmp, out, ".tmp")), [])
            self.assert_same_outputs("whole", out)

    def test_ctrl_c_ends_a_long_make_grade_at_once(self):
        self.put("alice", L01, "sleep 60")
        p = self.start("out", "--jobs", "1")
        deadline = time.time() + 30
        while "alice" not in text_of(self.log):
            self.assertLess(time.time(), deadline)
            time.sleep(0.05)
        pid = int(text_of(self.log).split()[-1])
        t0 = time.time()
        p.send_signal(signal.SIGINT)
        p.communicate(timeout=30)
        self.assertEqual(p.returncode, 130)
        self.assertLess(time.time() - t0, 15)
        with self.assertRaises(ProcessLookupError):
            os.kill(pid, 0)
        self.assertEqual(os.listdir(os.path.join(self.tmp, "out", ".tmp")), [])
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "out", "alice")))

    def test_ctrl_c_ends_what_make_grade_started_in_another_group(self):
        # make grade runs each lesson's compile under timeout(1), which moves it to a process
        # group of its own: Ctrl-C must end it too, else it holds the submission's lock (and
        # the next run finds it "busy") until the compile ends
        self.put("alice", L01, "apart 60")
        p = self.start("out", "--jobs", "1")
        deadline = time.time() + 30
        while not text_of(self.log + ".apart"):
            self.assertLess(time.time(), deadline)
            time.sleep(0.05)
        pid = int(text_of(self.log + ".apart"))
        p.send_signal(signal.SIGINT)
        p.communicate(timeout=30)
        self.assertEqual(p.returncode, 130)
        self.assertFalse(run.alive(pid), "the step make grade started apart outlived Ctrl-C")
        import fcntl
        with open(os.path.join(self.tmp, "out", ".locks", "alice"), "a") as f:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)  # free at once
        self.put("alice", L01, "score 10")
        self.assertNotIn("busy", self.grade("out", "--jobs", "1"))

    def test_a_half_result_is_graded_again(self):
        self.grade("out", "--seed", "3")
        self.graded()
        o = os.path.join(self.tmp, "out")
        os.unlink(os.path.join(o, "alice", "submission.json"))            # never committed
        with open(os.path.join(o, "bob", "submission.json"), "w") as f:   # cut short
            f.write('{"status": "graded", "ha')
        with open(os.path.join(o, "carol", "submission.json")) as f:
            rec = json.load(f)
        rec["hash"] = "0" * 64                                            # other inputs
        with open(os.path.join(o, "carol", "submission.json"), "w") as f:
            json.dump(rec, f)
        os.unlink(os.path.join(o, "dave", "results.json"))                # lost its results
        os.makedirs(os.path.join(o, ".tmp", "erin~elsewhere~1~1"))         # a run that died
        self.grade("out")
        self.assertEqual(self.graded(), ["alice", "bob", "carol", "dave"])
        self.assertEqual(os.listdir(os.path.join(o, ".tmp")), [])

    def test_a_full_disk_keeps_the_old_result(self):
        self.grade("out", "--seed", "3")
        self.graded()
        before = self.read("out", "alice/results.json")
        self.put("alice", L01, "score 4")
        real = os.write

        def full(fd, data):  # the disk is full while a record is saved
            if os.readlink("/proc/self/fd/%d" % fd).split("/")[-1].startswith("submission.json.tmp-"):
                raise OSError(errno.ENOSPC, "No space left on device")
            return real(fd, data)
        os.write = full
        try:
            out = self.grade("out", code=1)
        finally:
            os.write = real
        self.assertRegex(out, r"alice could not be graded: \S+/submission.json: cannot save the "
                         r"submission's record: writing failed: No space left on device \(the disk is full\)")
        self.assertEqual(self.read("out", "alice/results.json"), before)
        self.assertEqual(os.listdir(os.path.join(self.tmp, "out", ".tmp")), [])
        self.grade("out")
        self.assertIn(b'"score": 4', self.read("out", "alice/results.json"))


class TestOneFailsAlone(Class):
    def test_a_crash_or_a_busy_lock_stops_no_other(self):
        self.put("bob", L01, "crash")
        folder = hashlib.sha256(os.path.abspath(os.path.join(self.cls, "dave")).encode()).hexdigest()[:24]
        with held_lock(os.path.join(self.tmp, "out", ".locks", "carol")), \
                held_lock(os.path.join(self.tmp, "build", "grade-all", ".locks", folder)):
            # as if another run were grading carol into this OUT, and dave into another
            text = self.grade("out", "--seed", "3", "--jobs", "3", code=1)
        self.assertIn("bob could not be graded: make grade ended with status 2", text)
        self.assertIn("carol: busy: being graded by another run", text)
        self.assertIn("dave: busy: its folder is being graded into another OUT", text)
        self.assertTrue(os.path.exists(os.path.join(self.tmp, "out", ".failed", "bob.log")))
        rows = {r[0]: r[3] for r in self.summary("out")[1:]}
        self.assertEqual((rows["bob"], rows["carol"], rows["dave"], rows["alice"]),
                         ("failed", "missing", "missing", "graded"))
        self.put("bob", L01, "score 1")
        self.grade("out")
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "out", ".failed", "bob.log")))

    def test_the_seed_reaches_every_submission_and_is_shared(self):
        self.grade("out", "--jobs", "2")
        o = os.path.join(self.tmp, "out")
        seed = int(text_of(os.path.join(o, "seed.txt")))
        with open(os.path.join(o, "frank", "results.json")) as f:
            self.assertIn("(seed %d)" % seed, f.read())
        self.assertEqual(run.class_seed(o), seed)
        # shards starting at once draw one seed between them
        fresh = os.path.join(self.tmp, "fresh")
        os.makedirs(fresh)
        code = "import sys; sys.path.insert(0, %r); from gradeall import run; print(run.class_seed(%r))" % (
            CLASS_DIR, fresh)
        ps = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE) for _ in range(6)]
        self.assertEqual(len({p.communicate()[0] for p in ps}), 1)


class TestReport(unittest.TestCase):
    def test_alike_failures_group(self):
        a = report.pattern("expected 3.5 at [12], got -1e-3 in build/x/alice/01_cpu_baseline/exercises.c:4")
        b = report.pattern("expected 2 at [7], got 0.25 in /srv/class/bob/01_cpu_baseline/exercises.c:19\nmore")
        self.assertEqual(a, b)
        self.assertEqual(a, "expected N at [N], got N in <path>:N")
        self.assertNotEqual(a, report.pattern("expected 3 rows, got 2"))
        self.assertEqual(report.pattern("k_relu2 returned ERR_ARG"), "k_relu2 returned ERR_ARG")

    def test_gradebook_columns(self):
        self.assertEqual(report.gradebook_columns("01=Lab 1 (4411), total=Day 37,id=", ["01", "04"], False),
                         [("student", "student"), ("01", "Lab 1 (4411)"), ("04", "lesson 04"),
                          ("total", "Day 37")])
        with self.assertRaisesRegex(run.UsageError, "'02=Lab 2' is not FIELD=NAME"):
            report.gradebook_columns("02=Lab 2", ["01"], False)


if __name__ == "__main__":
    unittest.main(verbosity=1)
