#!/usr/bin/env python3
"""make grade-all's reading of a class (tests/graded/class/gradeall/layouts.py, files.py), on
small synthetic classes: a folder per student, Gradescope's and Canvas's exports, and the
bad input a class brings (odd names, links, special and enormous files, paths out of an
archive). No grading here: test_grade_all_run.py grades, with a stand-in for make.

    python3 tests/graded/selfcheck/test_grade_all_layouts.py
"""
import os
import shutil
import stat
import sys
import tempfile
import unittest
import zipfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "class"))

from gradeall import files, layouts  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
L01 = "01_cpu_baseline/exercises.c"
L04 = "04_callable_objects/exercises.c"

GRADESCOPE_YML = """\
submission_1001:
  :submitters:
  - :name: Ada Lovelace
    :sid: '42'
    :email: ada@example.edu
  :created_at: 2026-11-30 12:00:00.000000000 -08:00
  :score: !ruby/object:BigDecimal 18:0.0
submission_1002:
  :submitters:
  - :name: Bo One
    :sid: '7'
    :email: bo@example.edu
  - :name: Cy Two
    :sid: '8'
    :email: cy@example.edu
submission_1003:
  :submitters:
  - :name: No Folder
    :sid: '9'
"""


def write(path, text="int x;\n"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def zip_with(path, members):
    """A zip of (name, bytes or ('link', target) or ('big', size))."""
    with zipfile.ZipFile(path, "w") as z:
        for name, what in members:
            if isinstance(what, tuple) and what[0] == "link":
                info = zipfile.ZipInfo(name)
                info.create_system = 3
                info.external_attr = (stat.S_IFLNK | 0o777) << 16
                z.writestr(info, what[1])
            elif isinstance(what, tuple) and what[0] == "big":
                z.writestr(name, b"x" * what[1], compress_type=zipfile.ZIP_DEFLATED)
            else:
                z.writestr(name, what)


class Case(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="grade-all-test-")
        self.course = layouts.Course(REPO, ["01", "04"])
        self.one = layouts.Course(REPO, ["04"])

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def stage(self, sub):
        dest = os.path.join(self.tmp, "stage-" + sub.key)
        os.makedirs(dest)
        return dest, sub.stage(dest)

    def by_key(self, cls):
        return {s.key: s for s in cls.submissions}


class TestFolders(Case):
    def test_a_folder_per_student_and_its_bad_entries(self):
        c = os.path.join(self.tmp, "class")
        write(os.path.join(c, "alice", L01))
        write(os.path.join(c, "bob", "lessons", L04))       # zipped a folder
        write(os.path.join(c, "Ann Lee", L01))              # a space: make cannot take it
        write(os.path.join(c, "notes.txt"))                 # a file at the class's top
        write(os.path.join(c, ".git", "HEAD"))
        os.symlink(os.path.join(REPO, "solutions"), os.path.join(c, "mallory"))
        cls = layouts.discover(c, self.course)
        self.assertEqual(cls.layout, "folders")
        subs = self.by_key(cls)
        self.assertEqual(sorted(subs), sorted(["alice", "bob", "mallory",
                                               [k for k in subs if k.startswith("Ann-Lee-")][0]]))
        self.assertEqual(subs["alice"].source, os.path.join(c, "alice"))
        self.assertIsNone(subs["alice"].refused)
        self.assertEqual(subs["bob"].source, os.path.join(c, "bob", "lessons/"))
        self.assertIn("graded from its folder lessons/", subs["bob"].notes)
        self.assertRegex(subs["mallory"].refused, r"mallory is a symbolic link \(to .*solutions\)")
        odd = [s for k, s in subs.items() if k.startswith("Ann-Lee-")][0]
        self.assertIsNone(odd.refused)  # graded from a copy under a name make takes
        self.assertEqual(odd.people, [{"name": "Ann Lee", "id": "Ann Lee"}])
        self.assertIn("graded from a copy under the name %s" % odd.key, odd.notes[0])
        dest, notes = self.stage(odd)
        self.assertEqual((files.state(dest, L01).split()[0], files.state(dest, L04)), ("file", "missing"))
        self.assertTrue(any("notes.txt is a regular file, not a submission folder" in n
                            for n in cls.notes))
        self.assertTrue(any(".git (hidden)" in n for n in cls.notes))

    def test_loose_files_belong_to_the_one_lesson_graded(self):
        c = os.path.join(self.tmp, "class")
        write(os.path.join(c, "alice", "exercises.c"))
        self.assertEqual(self.by_key(layouts.discover(c, self.one))["alice"].loose, "04")
        self.assertIsNone(self.by_key(layouts.discover(c, self.course))["alice"].loose)

    def test_errors_name_the_path(self):
        with self.assertRaisesRegex(layouts.LayoutError, "does not exist"):
            layouts.discover(os.path.join(self.tmp, "nothing"), self.course)
        write(os.path.join(self.tmp, "grades.csv"))
        with self.assertRaisesRegex(layouts.LayoutError, "not a zip archive"):
            layouts.discover(os.path.join(self.tmp, "grades.csv"), self.course)
        with self.assertRaisesRegex(layouts.LayoutError, "LESSON=07 99: no graded lesson 07 99"):
            layouts.Course(REPO, ["99", "07"])


class TestGradescope(Case):
    def test_the_unzipped_export(self):
        top = os.path.join(self.tmp, "assignment_77_export")
        write(os.path.join(top, "submission_metadata.yml"), GRADESCOPE_YML)
        write(os.path.join(top, "submission_1001", "exercises.c"))
        write(os.path.join(top, "submission_1002", L04))
        write(os.path.join(top, "submission_1004", L04))  # not in the yml
        cls = layouts.discover(self.tmp, self.one)       # found one folder down
        self.assertEqual(cls.layout, "gradescope")
        subs = self.by_key(cls)
        self.assertEqual(sorted(subs), ["submission_1001", "submission_1002", "submission_1003",
                                        "submission_1004"])
        ada = subs["submission_1001"]
        self.assertEqual(ada.people, [{"name": "Ada Lovelace", "id": "42", "email": "ada@example.edu"}])
        self.assertEqual((ada.source, ada.loose), (os.path.join(top, "submission_1001"), "04"))
        self.assertEqual(subs["submission_1002"].name, "Bo One & Cy Two")
        self.assertRegex(subs["submission_1003"].refused, "has no folder submission_1003")
        self.assertEqual(subs["submission_1004"].notes, ["not in submission_metadata.yml"])

    def test_the_zip_is_laid_out_without_following_anything(self):
        z = os.path.join(self.tmp, "export.zip")
        zip_with(z, [("assignment_77_export/submission_metadata.yml", GRADESCOPE_YML),
                     ("assignment_77_export/submission_1001/" + L01, b"int a;"),
                     ("assignment_77_export/submission_1001/" + L04, ("link", "/etc/passwd")),
                     ("assignment_77_export/submission_1001/README.md", b"hi"),
                     ("assignment_77_export/submission_1002/" + L01, ("big", files.FILE_MAX + 10)),
                     ("assignment_77_export/submission_1002/04_callable_objects", ("link", "/tmp")),
                     ("assignment_77_export/submission_1002/" + L04, b"through the link"),
                     ("assignment_77_export/../../evil.c", b"out")])
        cls = layouts.discover(z, self.course)
        self.assertEqual(cls.layout, "gradescope")
        self.assertTrue(any("leaves the archive" in n for n in cls.notes))
        subs = self.by_key(cls)
        dest, notes = self.stage(subs["submission_1001"])
        with open(os.path.join(dest, L01)) as f:
            self.assertEqual(f.read(), "int a;")
        self.assertEqual(os.readlink(os.path.join(dest, L04)), "/etc/passwd")
        self.assertEqual(files.state(dest, L04), "link /etc/passwd")
        self.assertIn("ignored: 1 other file", notes)
        dest, notes = self.stage(subs["submission_1002"])
        self.assertEqual(os.path.getsize(os.path.join(dest, L01)), files.FILE_MAX + 10)
        self.assertEqual(files.state(dest, L01), "big %d" % (files.FILE_MAX + 10))
        # the member behind the linked folder is not written through the link
        self.assertEqual(os.readlink(os.path.join(dest, "04_callable_objects")), "/tmp")
        self.assertFalse(os.path.exists("/tmp/exercises.c") and
                         open("/tmp/exercises.c").read() == "through the link")
        self.assertTrue(any("already a link" in n for n in notes))


class TestCanvas(Case):
    def canvas_zip(self, members):
        z = os.path.join(self.tmp, "submissions.zip")
        zip_with(z, members)
        return z

    def test_names_lessons_and_resubmissions(self):
        nested = os.path.join(self.tmp, "nested.zip")
        zip_with(nested, [("mywork/" + L04, b"from the zip"), ("mywork/notes.txt", b"n")])
        with open(nested, "rb") as f:
            nested_bytes = f.read()
        z = self.canvas_zip([("lovelaceada_42_9001_exercises.c", b"first"),
                             ("lovelaceada_42_9002_exercises-1.c", b"second"),
                             ("oneb_LATE_7_9003_exercises.c", b"late"),
                             ("twoc_8_9004_lab.zip", nested_bytes),
                             ("twoc_8_9005_report.pdf", b"%PDF"),
                             ("index.html", b"<html>")])
        cls = layouts.discover(z, self.one)
        self.assertEqual(cls.layout, "canvas")
        self.assertTrue(any("index.html (not named as Canvas names files)" in n for n in cls.notes))
        subs = self.by_key(cls)
        self.assertEqual(sorted(subs), ["lovelaceada_42", "oneb_7", "twoc_8"])
        self.assertEqual(subs["lovelaceada_42"].people, [{"name": "lovelaceada", "id": "42"}])
        dest, notes = self.stage(subs["lovelaceada_42"])
        with open(os.path.join(dest, L04)) as f:
            self.assertEqual(f.read(), "second")  # the resubmission, -1
        self.assertTrue(any("an earlier upload" in n for n in notes))
        self.assertIn("handed in late (Canvas marked it LATE)", subs["oneb_7"].notes)
        dest, notes = self.stage(subs["twoc_8"])
        with open(os.path.join(dest, L04)) as f:
            self.assertEqual(f.read(), "from the zip")
        self.assertTrue(any("report.pdf (not an exercise file)" in n for n in notes))
        self.assertTrue(any("folder mywork/" in n for n in notes))

    def test_a_loose_file_needs_one_lesson(self):
        z = self.canvas_zip([("lovelaceada_42_9001_exercises.c", b"x")])
        sub = layouts.discover(z, self.course).submissions[0]
        dest, notes = self.stage(sub)
        self.assertTrue(any("grade this class with LESSON=NN" in n for n in notes))
        self.assertEqual(files.state(dest, L01), "missing")

    def test_the_unzipped_folder_refuses_what_intake_would(self):
        c = os.path.join(self.tmp, "canvas")
        write(os.path.join(c, "lovelaceada_42_9001_exercises.c"), "ok")
        write(os.path.join(self.tmp, "elsewhere.c"), "answers")
        os.link(os.path.join(self.tmp, "elsewhere.c"), os.path.join(c, "oneb_7_9002_exercises.c"))
        os.symlink("/etc/passwd", os.path.join(c, "twoc_8_9003_exercises.c"))
        os.mkfifo(os.path.join(c, "threed_9_9004_exercises.c"))
        with open(os.path.join(c, "huge_10_9005_exercises.c"), "wb") as f:
            f.truncate(3 << 30)
        subs = self.by_key(layouts.discover(c, self.one))
        self.assertEqual(files.state(self.stage(subs["lovelaceada_42"])[0], L04).split()[0], "file")
        dest, notes = self.stage(subs["oneb_7"])
        self.assertTrue(any("has 2 names (a hard link)" in n for n in notes))
        self.assertEqual(files.state(dest, L04), "missing")
        self.assertEqual(files.state(self.stage(subs["twoc_8"])[0], L04), "link /etc/passwd")
        dest, notes = self.stage(subs["threed_9"])
        self.assertTrue(any("is a FIFO (named pipe), not a regular file" in n for n in notes))
        self.assertEqual(files.state(self.stage(subs["huge_10"])[0], L04), "big %d" % (3 << 30))


class TestState(Case):
    def test_state_never_follows_nor_blocks(self):
        s = os.path.join(self.tmp, "s")
        write(os.path.join(s, L01), "a")
        before = files.state(s, L01)
        write(os.path.join(s, L01), "b")
        self.assertNotEqual(files.state(s, L01), before)
        self.assertEqual(files.state(s, L04), "missing")
        os.makedirs(os.path.join(s, "04_callable_objects"))
        os.mkfifo(os.path.join(s, L04))  # opening it to read would wait for ever
        self.assertEqual(files.state(s, L04), "a FIFO (named pipe)")
        os.unlink(os.path.join(s, L04))
        os.symlink(os.path.join(REPO, "solutions", L04), os.path.join(s, L04))
        self.assertTrue(files.state(s, L04).startswith("link "))
        shutil.rmtree(os.path.join(s, "04_callable_objects"))
        os.symlink(os.path.join(REPO, "solutions", "04_callable_objects"),
                   os.path.join(s, "04_callable_objects"))
        self.assertRegex(files.state(s, L04), "^04_callable_objects: a symbolic link")
        os.link(os.path.join(s, L01), os.path.join(self.tmp, "second-name"))
        self.assertTrue(files.state(s, L01).endswith(" 2"))
        self.assertTrue(files.state(os.path.join(self.tmp, "nothing"), L01).startswith("root "))


if __name__ == "__main__":
    unittest.main(verbosity=1)
