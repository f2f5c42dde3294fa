"""Grading a class: every submission by its own `make grade`, several at once.

A submission is graded into a temporary folder OUT/.tmp/KEY~HOST~PID~N and, once its
results are complete, renamed to OUT/KEY; OUT/KEY/submission.json, written before the
rename, says for which inputs (its hash). So a folder OUT/KEY is always a complete
result, and a run that stops anywhere leaves nothing a later run trusts but complete
results: that run grades again what is missing or out of date.

The hash of a submission covers what decides its grade: its exercise files as make
grade's intake would find them (files.state: contents, links, sizes, never followed),
the grader (grader_fingerprint: what `make grader` built, the sources a student file is
compiled and checked against, the compilers), the lessons graded and the class's
seed. A submission is held by a lock (flock of OUT/.locks/KEY) while it is graded, so
runs that overlap (shards on several machines writing to one OUT) never grade it twice at
once, and its folder by another (BUILD_ROOT/grade-all/.locks/), as make grade keeps its
build folders by STUDENT_DIR, whatever the OUT; its make grade holds both locks too, so
even one left running by a grade-all that was killed (SIGKILL) keeps the next run off
them until it ends.
"""
import concurrent.futures
import contextlib
import errno
import fcntl
import glob
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import threading
import time

from . import fileio, files, shown

GRADE_TIMEOUT = 3600  # seconds for one submission's make grade, its cases' own limits aside
JOBS_MAX = 1024  # submissions graded at once, at most
SEED_MAX = (1 << 64) - 1  # the grader reads GRADE_SEED as an unsigned 64-bit number
DIGITS = re.compile(r"[0-9]{1,30}")  # isdigit() takes "²", which int() refuses; int() limits digits
RECORD_MAX = 64 << 20  # bytes of a submission.json
LOG_KEPT = 1 << 20  # the last bytes of a failed make grade's log kept in OUT/.failed/


class UsageError(Exception):
    """A bad option: one line saying what and how to fix it."""


def parse_shard(text):
    """SHARD=K/N as (K, N), None when empty."""
    text = (text or "").strip()
    if not text:
        return None
    m = re.fullmatch(r"([0-9]{1,9})/([0-9]{1,9})", text)
    if not m or not 1 <= int(m.group(1)) <= int(m.group(2)):
        raise UsageError("SHARD=%s: give K/N with 1 <= K <= N, e.g. SHARD=2/8 for the second "
                         "of eight shares" % shown.escape(text, 40))
    return int(m.group(1)), int(m.group(2))


def parse_jobs(text):
    """JOBS=N (default: the cores this process may use)."""
    text = (text or "").strip()
    if not text:
        return max(1, len(os.sched_getaffinity(0)))
    if not DIGITS.fullmatch(text) or not 1 <= int(text) <= JOBS_MAX:
        raise UsageError("JOBS=%s: give the number of submissions to grade at once, 1 to %d, "
                         "e.g. JOBS=4" % (shown.escape(text, 40), JOBS_MAX))
    return int(text)


def shard_of(key, n):
    """The share (1..n) of submission key: a hash of its name, so the split is the same on
    every machine and in every run, whatever else is in the class."""
    return int(hashlib.sha256(key.encode("utf-8")).hexdigest()[:12], 16) % n + 1


def class_seed(out, given=None):
    """The grading seed of this class (GRADE_SEED of every submission's make grade), kept
    in OUT/seed.txt: given, else the one there, else a new one, created so that runs
    starting together (shards) all take the same."""
    path = os.path.join(out, "seed.txt")
    given = (given or "").strip()
    if given:
        seed = parse_seed(given, "GRADE_SEED=%s" % shown.escape(given, 40))
        fileio.save(path, "%d\n" % seed, "class's seed")
        return seed
    for _ in range(2):
        try:
            text = fileio.read_text(path, "class's seed", 4096).strip()
            return parse_seed(text, "%s holds %s" % (path, shown.escape(repr(text), 60)),
                              " (or delete it to draw a new one)")
        except fileio.FileError as e:
            if e.errno != errno.ENOENT:
                raise
            # a new seed, linked into place: where another run made one first, it is theirs
            fileio.save(path, "%d\n" % (secrets.randbits(63) or 1), "class's seed", new=True)
    raise UsageError("%s: cannot be read" % path)


def parse_seed(text, what, fix=""):
    """A seed's text as a number, 1 to SEED_MAX, in ASCII digits."""
    if not DIGITS.fullmatch(text) or not 1 <= int(text) <= SEED_MAX:
        raise UsageError("%s: give a positive integer of at most %d%s" % (what, SEED_MAX, fix))
    return int(text)


def _digest_files(paths, base):
    h = hashlib.sha256()
    for p in sorted(set(paths)):
        try:
            d = hashlib.sha256(fileio.read(p, "grader's file", follow=True)).hexdigest()
        except fileio.FileError:
            d = "missing"
        h.update(("%s %s\n" % (os.path.relpath(p, base), d)).encode())
    return h


def grader_fingerprint(repo, build):
    """A hash of the grader: what `make grader` built into build (runners, judges, the
    reference records, lib, the kernels), the files a student's code is compiled and
    checked against (the Makefile, tests/graded's programs, cases and allow lists, the headers
    of lib/ and kernels/), and the compilers' versions."""
    g = os.path.join(build, "grade")
    built = [os.path.join(g, n) for n in ("driver", "intake")] + \
        glob.glob(os.path.join(g, "judge[0-9][0-9]")) + glob.glob(os.path.join(g, "run[0-9][0-9]")) + \
        glob.glob(os.path.join(g, "run[0-9][0-9]-full")) + glob.glob(os.path.join(g, "ref", "*.records")) + \
        glob.glob(os.path.join(build, "lib*.a")) + glob.glob(os.path.join(build, "obj", "*", "kernels", "*.o"))
    src = [os.path.join(repo, "Makefile")] + \
        [p for p in glob.glob(os.path.join(repo, "tests", "graded", "**", "*"), recursive=True)
         if p.endswith((".c", ".h", ".pl"))] + \
        glob.glob(os.path.join(repo, "tests", "graded", "allow", "*")) + \
        glob.glob(os.path.join(repo, "lib", "**", "*.h"), recursive=True) + \
        glob.glob(os.path.join(repo, "kernels", "*.h")) + glob.glob(os.path.join(repo, "kernels", "*.cuh"))
    h = _digest_files(built + src, repo)
    for cc in (os.environ.get("CC") or "cc", os.environ.get("CXX") or "g++"):
        try:
            v = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.TimeoutExpired):
            v = "none"
        h.update(v.split("\n")[0].encode())
    return h.hexdigest()


def read_record(folder):
    """OUT/KEY/submission.json when it describes a complete result, else None."""
    try:
        rec = json.loads(fileio.read(os.path.join(folder, "submission.json"), "submission's record",
                                     RECORD_MAX))
    except (fileio.FileError, ValueError, RecursionError):
        return None
    if not isinstance(rec, dict) or rec.get("status") not in ("graded", "refused") or \
            not isinstance(rec.get("hash"), str):
        return None
    if rec["status"] == "graded" and not os.path.isfile(os.path.join(folder, "results.json")):
        return None
    return rec


def _score(folder):
    """(score, max) of make grade's score.txt in folder."""
    text = fileio.read(os.path.join(folder, "score.txt"), "score", 4096).decode("ascii", "replace")
    score, top = (float(x) for x in text.split()[:2])
    return score, top


class Outcome:
    def __init__(self, sub, status, record=None, seconds=0.0, why=""):
        self.sub, self.status, self.record, self.seconds, self.why = sub, status, record, seconds, why


def make_environment(seed):
    """The environment of a submission's make: the seed, no colours, and of make's flags
    only the variables given on grade-all's command line (BUILD_ROOT=..., SIM=1), not
    its jobserver (each make grade runs on its own)."""
    env = dict(os.environ, GRADE_SEED=str(seed), NO_COLOR="1")
    flags = env.get("MAKEFLAGS", "")
    env["MAKEFLAGS"] = flags.split(" -- ", 1)[1] if " -- " in flags else ""
    for v in ("MFLAGS", "MAKELEVEL"):
        env.pop(v, None)
    return env


class ClassGrader:
    """Grades submissions into OUT: see the module's comment."""

    def __init__(self, repo, out, course, seed, fingerprint, make, staging, hide=(), jobs=1,
                 say=print):
        self.repo, self.out, self.course, self.seed = repo, out, course, seed
        self.fingerprint, self.make, self.staging, self.hide = fingerprint, make, staging, list(hide)
        self.jobs, self.say = jobs, say
        self.stopping = False
        self.running = {}  # key -> Popen
        self.mutex = threading.Lock()
        self.serial = 0
        for d in (".tmp", ".trash", ".locks", ".failed"):
            fileio.folder(os.path.join(out, d), "folder of grade-all's own")

    # ---- one submission ------------------------------------------------------------------

    def input_hash(self, sub, source):
        h = hashlib.sha256()
        h.update(json.dumps({"grader": self.fingerprint, "seed": self.seed,
                             "lessons": self.course.lessons, "loose": sub.loose,
                             "refused": sub.refused}, sort_keys=True).encode())
        if source is not None:
            for rel in self.course.graded_files() + (self.course.loose_names() if sub.loose else []):
                h.update(("%s %s\n" % (rel, files.state(source, rel))).encode())
        return h.hexdigest()

    def _unique(self, key):
        with self.mutex:
            self.serial += 1
            return "%s~%s~%d~%d" % (key, socket.gethostname(), os.getpid(), self.serial)

    @staticmethod
    def _try_lock(path):
        """An open file holding an exclusive flock of path, or None when another holds it."""
        fileio.folder(os.path.dirname(path), "folder of locks")
        f = fileio.open_lock(path)
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            return f
        except OSError:
            f.close()
            return None

    def grade_one(self, sub):
        """Grade one submission (or find its result up to date): an Outcome."""
        with contextlib.ExitStack() as held:
            try:
                lock = self._try_lock(os.path.join(self.out, ".locks", sub.key))
                if lock is None:
                    return Outcome(sub, "busy", why="being graded by another run")
                held.enter_context(lock)
                # Left by a run that stopped (this lock was free, so it is not running).
                for stale in glob.glob(os.path.join(self.out, ".tmp", sub.key + "~*")) + \
                        glob.glob(os.path.join(self.out, ".trash", sub.key + "~*")):
                    shutil.rmtree(stale, ignore_errors=True)
                return self._grade_locked(sub, held, [lock.fileno()])
            except fileio.FileError as e:  # a full disk, ...: this submission fails, the class goes on
                return Outcome(sub, "failed", why=str(e))
            except Exception as e:  # a harness problem: the same
                return Outcome(sub, "failed", why="%s: %s" % (type(e).__name__, e))

    def _grade_locked(self, sub, held, locks):
        notes, source = list(sub.notes), sub.source
        if not sub.refused and sub.stage:
            source = os.path.join(self.staging, sub.key)
            shutil.rmtree(source, ignore_errors=True)
            os.makedirs(source, 0o700)
            notes += sub.stage(source)
        h = self.input_hash(sub, None if sub.refused else source)
        dest = os.path.join(self.out, sub.key)
        prev = read_record(dest)
        if prev and prev["hash"] == h:
            return Outcome(sub, "unchanged", prev)
        if self.stopping:
            return Outcome(sub, "interrupted")
        if not sub.refused:
            # make grade keeps its build folders by STUDENT_DIR: one grading of a folder at a
            # time, whichever OUT it goes to
            lock = self._try_lock(os.path.join(os.path.dirname(self.staging), ".locks", hashlib.sha256(
                os.path.abspath(source).encode()).hexdigest()[:24]))
            if lock is None:
                return Outcome(sub, "busy", why="its folder is being graded into another OUT")
            locks.append(held.enter_context(lock).fileno())
        tmp = os.path.join(self.out, ".tmp", self._unique(sub.key))
        os.makedirs(tmp)
        try:
            t0 = time.monotonic()
            record = {"key": sub.key, "people": sub.people, "hash": h, "seed": self.seed,
                      "lessons": self.course.lessons, "notes": notes}
            if sub.refused:
                record.update(status="refused", refused=sub.refused)
            else:
                rc = self._make_grade(sub, source, tmp, locks)
                if self.stopping:
                    return Outcome(sub, "interrupted")
                why = self._check_results(tmp, rc)
                if why:
                    self._keep_log(sub.key, tmp)
                    return Outcome(sub, "failed", seconds=time.monotonic() - t0, why=why)
                score, top = _score(tmp)
                record.update(status="graded", score=score, max_score=top, source=source)
            record["seconds"] = round(time.monotonic() - t0, 1)
            fileio.save(os.path.join(tmp, "submission.json"),
                        json.dumps(record, indent=1, sort_keys=True) + "\n", "submission's record")
            self._commit(tmp, dest, sub.key)
            return Outcome(sub, record["status"], record, record["seconds"])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def _make_grade(self, sub, source, tmp, locks):
        cmd = list(self.make) + ["--no-print-directory", "grade", "IMPL=lessons",
                                 "STUDENT_DIR=" + source, "GRADE_OUT=" + tmp,
                                 "LESSON=" + " ".join(self.course.lessons),
                                 "GRADE_HIDE_ALSO=" + " ".join(self.hide)]
        if sub.loose:
            cmd.append("GRADE_INTAKE_OPTS=--loose " + sub.loose)
        with open(os.path.join(tmp, "grade.txt"), "xb") as log:  # a new file in a new folder
            p = subprocess.Popen(cmd, cwd=self.repo, stdin=subprocess.DEVNULL, stdout=log,
                                 stderr=subprocess.STDOUT, env=make_environment(self.seed),
                                 start_new_session=True, pass_fds=tuple(locks))
            with self.mutex:
                self.running[sub.key] = p
            try:
                return p.wait(timeout=GRADE_TIMEOUT)
            except subprocess.TimeoutExpired:
                _stop(p)
                return -1
            finally:
                with self.mutex:
                    self.running.pop(sub.key, None)

    @staticmethod
    def _check_results(tmp, rc):
        """Why the grade in tmp is not complete ('' when it is)."""
        if rc != 0:
            return "make grade ended with status %d" % rc
        try:
            res = json.loads(fileio.read(os.path.join(tmp, "results.json"), "results"))
            _score(tmp)
            if not isinstance(res.get("tests"), list) or not res["tests"]:
                return "make grade wrote no graded case"
        except (fileio.FileError, ValueError, IndexError, AttributeError, RecursionError) as e:
            return "make grade left no complete results.json and score.txt (%s)" % type(e).__name__
        return ""

    def _keep_log(self, key, tmp):
        """OUT/.failed/KEY.log: the end of make grade's output, where it says what failed."""
        try:
            log = fileio.read(os.path.join(tmp, "grade.txt"), "log", LOG_KEPT, part="tail")
            fileio.save(os.path.join(self.out, ".failed", key + ".log"), log, "log")
        except fileio.FileError:
            pass

    def _commit(self, tmp, dest, key):
        """Put tmp in dest's place: dest is the old result or the new one, whole, at every
        moment but one (between the renames, when it is absent: graded again next time)."""
        trash = None
        if os.path.lexists(dest):
            trash = os.path.join(self.out, ".trash", self._unique(key))
            os.rename(dest, trash)
        os.rename(tmp, dest)
        if trash:
            shutil.rmtree(trash, ignore_errors=True)
        failed = os.path.join(self.out, ".failed", key + ".log")
        if os.path.exists(failed):
            os.unlink(failed)

    # ---- the class -----------------------------------------------------------------------

    def stop(self):
        """Stop: no new make grade starts, the running ones are ended (their temporary
        folders removed by their threads)."""
        self.stopping = True
        with self.mutex:
            procs = list(self.running.values())
        for p in procs:
            _stop(p)

    def grade_all(self, subs):
        """Grade subs, JOBS at once, with a line per submission as it finishes. Returns the
        outcomes; KeyboardInterrupt (Ctrl-C, SIGTERM) stops cleanly and is raised again."""
        outcomes, t0 = [], time.monotonic()
        width = len(str(len(subs)))
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=self.jobs)
        futures = [pool.submit(self.grade_one, s) for s in subs]
        try:
            for fut in concurrent.futures.as_completed(futures):
                o = fut.result()
                outcomes.append(o)
                self.say(self._progress_line(o, outcomes, len(subs), width, t0))
        except KeyboardInterrupt:
            for f in futures:
                f.cancel()
            self.stop()
            pool.shutdown(wait=True)
            raise
        pool.shutdown(wait=True)
        return outcomes

    def _progress_line(self, o, outcomes, total, width, t0):
        rec = o.record or {}
        if o.status in ("graded", "unchanged") and rec.get("status") == "graded":
            what = "%g/%g%s" % (rec["score"], rec["max_score"],
                                " (%.0f s)" % o.seconds if o.status == "graded" else " (unchanged)")
        elif rec.get("status") == "refused":
            what = rec["refused"] + (" (unchanged)" if o.status == "unchanged" else "")
        else:
            what = "%s: %s" % (o.status, o.why) if o.why else o.status
        done = len(outcomes)
        failed = sum(1 for x in outcomes if x.status == "failed")
        with self.mutex:
            running = len(self.running)
        graded = [x.seconds for x in outcomes if x.status == "graded"]
        left = ""
        if graded and done < total:
            # the submissions left, at the pace of those graded so far, JOBS at a time
            est = (time.monotonic() - t0) / done * (total - done)
            left = ", about %s left" % _duration(est)
        return "[%*d/%d] %s: %s   (done %d, running %d, failed %d%s)" % (
            width, done, total, o.sub.key, what, done, running, failed, left)


def _duration(s):
    return "%d s" % s if s < 120 else "%d min" % round(s / 60)


def proc_stat(pid):
    """(state, parent, session) of process pid from /proc, or None once it has ended."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return fields[0].decode(), int(fields[1]), int(fields[3])
    except (OSError, IndexError, ValueError):
        return None


def alive(pid):
    """Whether pid runs (a zombie holds nothing, and a lazy init may leave it a while)."""
    st = proc_stat(pid)
    return bool(st) and st[0] != "Z"


def _session(sid):
    """The live processes of session sid."""
    pids = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            st = proc_stat(int(name))
            if st and st[0] != "Z" and st[2] == sid:
                pids.append(int(name))
    return pids


def _stop(p):
    """End a make grade and everything it started: its own session, every process group
    in it (timeout(1) runs each compile in a group of its own, and it and the compile
    hold the submission's locks as make does), then wait until none is left."""
    for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 30)):
        deadline = time.monotonic() + wait
        for pid in _session(p.pid):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        while True:
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.wait(timeout=0.05)
            if p.returncode is not None and not _session(p.pid):
                return
            if time.monotonic() > deadline:
                break
