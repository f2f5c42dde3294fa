"""The class: which submissions a SUBMISSIONS path holds, in the layouts instructors have.

  folders     DIR/NAME/01_cpu_baseline/exercises.c, one folder per student (as lessons/)
  gradescope  Gradescope's "Export Submissions": submission_metadata.yml beside one folder
              submission_ID/ per submission (the zip, or the folder it unzips to); the yml
              names each folder's submitters (:name:, :sid:, :email:)
  canvas      Canvas's "Download Submissions": flat files NAME_[LATE_]USERID_SUBMISSIONID_FILE
              (the zip, or the folder it unzips to); FILE is what the student uploaded,
              Canvas adding -N before the extension of a resubmitted file

In every layout a submission holds its lesson folders (01_cpu_baseline/exercises.c), maybe
inside one folder of its own, or, for a class graded on one lesson (LESSON=NN), a loose
exercises.c (and exercises.cu); a Canvas upload may also be a zip of those. A submission
is graded from a folder: the student's own folder or Gradescope's, read by make grade's
intake; or, for an archive, for Canvas's flat names and for a folder whose name make
cannot take as it is, a folder this run lays out (files.py: links, oversized and special
files reproduced or named, never followed).

Each submission has a key, its folder under OUT: its folder's name where that is a plain
ASCII name (KEY), else one generated from the name (a Canvas student's, a folder named
"Ann Lee" or with bytes that are not UTF-8); a generated key that another submission's
name, or one of OUT's own files, already holds is renamed, with a note (settle_keys()).
A damaged archive, or a Gradescope metadata file that Gradescope would not write
(metadata.py), is a LayoutError: one line, and nothing graded.
"""
import io
import os
import re
import stat
import zipfile
import zlib

from . import fileio, files, metadata, shown

# A key: a submission's folder under OUT, and its line's name. A name of this form is its
# own key; any other (a space, a quote, a byte that is not UTF-8, a letter beyond ASCII
# that may be invisible or look like another) gets a generated one (generated_key()).
KEY = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.@+-]{0,99}", re.ASCII)
RESERVED = {"summary.csv", "gradebook.csv", "report.html", "report.png", "seed.txt"}  # OUT's own
CANVAS_NAME = re.compile(r"(?P<who>[^_/]+?)(?P<late>_LATE)?_(?P<uid>\d{1,20})_(?P<sid>\d{1,20})_"
                         r"(?P<file>.+)", re.ASCII)
RESUBMITTED = re.compile(r"(?P<stem>.+?)(?:-(?P<n>\d{1,9}))?(?P<ext>\.[A-Za-z0-9]+)?", re.ASCII)
NESTED_ZIP_MAX = 64 << 20


class LayoutError(Exception):
    """SUBMISSIONS cannot be read as a class at all (one line saying why)."""


class Course:
    """The lessons of this checkout and those graded: lessons/NN_name/exercises.c (and .cu)."""

    def __init__(self, repo, lessons=None):
        self.folder, self.cu = {}, set()
        base = os.path.join(repo, "lessons")
        for d in sorted(os.listdir(base)):
            m = re.fullmatch(r"(\d\d)_\w+", d)
            if m and os.path.isfile(os.path.join(base, d, "exercises.c")):
                self.folder[m.group(1)] = d
                if os.path.isfile(os.path.join(base, d, "exercises.cu")):
                    self.cu.add(m.group(1))
        cases = os.path.join(repo, "tests", "graded", "cases")
        graded = sorted(d for d in os.listdir(cases)
                        if re.fullmatch(r"\d\d", d) and os.path.isfile(os.path.join(cases, d, "suite.c")))
        wanted = sorted(set(lessons)) if lessons else graded
        unknown = [l for l in wanted if l not in graded or l not in self.folder]
        if unknown:
            raise LayoutError("LESSON=%s: no graded lesson %s (graded: %s)" % (
                " ".join(wanted), " ".join(unknown), " ".join(graded)))
        self.lessons = wanted
        self.has_answers = any(os.path.isfile(os.path.join(repo, "solutions", d, "exercises.c"))
                               for d in self.folder.values())

    @property
    def single(self):
        """The lesson a loose exercises.c belongs to: the one graded, if only one is."""
        return self.lessons[0] if len(self.lessons) == 1 else None

    def files(self, lesson):
        d = self.folder[lesson]
        return [d + "/exercises.c"] + ([d + "/exercises.cu"] if lesson in self.cu else [])

    def graded_files(self):
        """The paths whose contents decide a grade (all lessons' where the grader links the
        student's own code for the lessons a lesson builds on: the grader package)."""
        return [f for l in (self.lessons if self.has_answers else sorted(self.folder))
                for f in self.files(l)]

    def loose_names(self):
        return [f.split("/")[1] for f in self.files(self.single)] if self.single else []


class Submission:
    """One submission: its key (its folder under OUT, a safe name), the people it is for
    (name, id, email: what a gradebook matches), and where its files come from."""

    def __init__(self, key, people, source=None, stage=None, loose=None, notes=(), refused=None,
                 generated=False):
        self.key, self.people = key, people
        self.generated = generated  # the key is made of a name, not the name itself
        self.source = source    # a folder make grade reads as STUDENT_DIR
        self.stage = stage      # or: lays the files out in a new folder, returns notes
        self.loose = loose      # the lesson of a loose exercises.c (intake.c --loose)
        self.notes = list(notes)
        self.refused = refused  # why the whole submission is not graded

    @property
    def name(self):
        return " & ".join(p.get("name") or p.get("id") or self.key for p in self.people)


class Class:
    def __init__(self, layout, submissions, notes):
        self.layout, self.notes = layout, list(notes)
        self.notes += settle_keys(submissions)
        self.submissions = sorted(submissions, key=lambda s: s.key)


def settle_keys(subs):
    """Give every submission a key of its own: a name that is its own key keeps it (unless
    it is one of OUT's own files); a generated key, or a reserved name, taken by another is
    renamed KEY-2, KEY-3, ... Returns a note for each renamed one (also in its own notes)."""
    taken = {s.key for s in subs if not s.generated and s.key not in RESERVED}
    notes = []
    for s in sorted((s for s in subs if s.generated or s.key in RESERVED),
                    key=lambda s: (s.key, [os.fsencode(p.get("name", "")) for p in s.people])):
        key, n = s.key, 2
        while key in taken or key in RESERVED:
            key, n = "%s-%d" % (s.key, n), n + 1
        if key != s.key:
            why = "one of OUT's own files" if s.key in RESERVED else "another submission's"
            note = "%s: graded as %s, since %s is %s" % (
                shown.escape(s.name), key, s.key, why)
            s.notes.append("graded as %s, since %s is %s" % (key, s.key, why))
            notes.append(note)
            s.key = key
        taken.add(key)
    return notes


def slug(text):
    """A safe key made of a name: other characters become '-'."""
    s = re.sub(r"[^A-Za-z0-9.@+-]", "-", text).lstrip("-.@+").rstrip("-.") or "x"
    return s[:60]


def generated_key(name):
    """The key of a name that is not one: its letters and digits, and a hash of all of it."""
    return "%s-%08x" % (slug(name), zlib.crc32(os.fsencode(name)))


def _pick_root(present, wanted, loose):
    """Where in a submission its files are: '' (its top), or 'X/' when none is at the top
    and one folder X holds them (a student who zipped a folder). present: the paths there."""
    firsts = {w.split("/")[0] for w in wanted}

    def holds(root):
        return any(p.startswith(root) and (p[len(root):].split("/")[0] in firsts or
                                           p[len(root):] in loose) for p in present)
    if holds(""):
        return ""
    found = [t + "/" for t in sorted({p.split("/")[0] for p in present if "/" in p})
             if holds(t + "/")]
    return found[0] if len(found) == 1 else ""


def _folder_root(path, course):
    """_pick_root for a folder on disk (listing folders, never following a link)."""
    def listing(d):
        try:
            return [e for e in os.listdir(d) if not e.startswith(".")]
        except OSError:
            return []
    present = set(listing(path))
    for e in sorted(present):
        full = os.path.join(path, e)
        if stat.S_ISDIR(os.lstat(full).st_mode):
            present |= {e + "/" + x for x in listing(full)}
    return _pick_root(present, course.graded_files(), course.loose_names())


def _stage_members(zf, members, root, course, dest):
    """Lay out an archive's members under root as a submission in dest: only the exercise
    files (and the folders or links on their way); the rest is counted as ignored."""
    wanted = set(course.graded_files()) | set(course.loose_names())
    prefixes = {"/".join(w.split("/")[:i]) for w in wanted for i in range(1, w.count("/") + 1)}
    notes, extra = [], 0
    for info, rel in members:
        if not rel.startswith(root):
            extra += 1
            continue
        sub = rel[len(root):]
        if sub in wanted or sub in prefixes:
            note = files.extract_member(zf, info, dest, sub)
            if note:
                notes.append(note)
        elif not info.is_dir():
            extra += 1
    if extra:
        notes.append("ignored: %d other file%s" % (extra, "s" if extra > 1 else ""))
    return notes


def _members(zf, prefix=""):
    """(info, path under prefix) of an archive's members with safe paths; notes for the rest."""
    out, notes = [], []
    for info in zf.infolist()[:files.ENTRIES_MAX]:
        rel = files.safe_member(info.filename)
        if rel is None:
            notes.append("ignored: %r (a path that leaves the archive)" % info.filename)
        elif rel.startswith(prefix) and rel != prefix.rstrip("/"):
            out.append((info, rel[len(prefix):]))
    if len(zf.infolist()) > files.ENTRIES_MAX:
        notes.append("ignored: the archive's entries after the first %d" % files.ENTRIES_MAX)
    return out, notes


def _stage_folder(full, course):
    """A stage() that copies a folder's exercise files (files.take_path: no link followed):
    a submission whose name is not a key is graded from that copy."""
    def stage(dest):
        root = _folder_root(full, course)
        notes = ["graded from its folder %s" % shown.escape(root)] if root else []
        for rel in course.graded_files() + course.loose_names():
            note = files.take_path(os.path.join(full, root) if root else full, rel, dest)
            if note:
                notes.append(note)
        return notes
    return stage


def _renamed(name, key):
    return ("graded from a copy under the name %s: its folder's name %s is not one make and "
            "the shell take as it is" % (key, shown.escape(name)))


# ---- one folder per student ----------------------------------------------------------------

def _folders(path, course):
    subs, notes = [], []
    for e in sorted(os.listdir(path)):
        full = os.path.join(path, e)
        st = os.lstat(full)
        if e.startswith(".") or e == "__MACOSX":
            notes.append("ignored: %s (hidden)" % e)
            continue
        own = KEY.fullmatch(e) is not None
        key = e if own else generated_key(e)
        person = [{"name": e, "id": e}]
        if stat.S_ISLNK(st.st_mode):
            subs.append(Submission(key, person, generated=not own, refused=(
                "refused: %s is a symbolic link (to %s): the grader copies files, never what a "
                "link points to; hand in the folder itself" % (
                    shown.escape(e), shown.escape(os.readlink(full))))))
        elif not stat.S_ISDIR(st.st_mode):
            notes.append("ignored: %s is %s, not a submission folder" % (
                shown.escape(e), files.kind_of(st.st_mode)))
        elif not own:
            subs.append(Submission(key, person, stage=_stage_folder(full, course), loose=course.single,
                                   notes=[_renamed(e, key)], generated=True))
        else:
            root = _folder_root(full, course)
            subs.append(Submission(key, person, source=os.path.join(full, root) if root else full,
                                   loose=course.single,
                                   notes=["graded from its folder %s" % root] if root else []))
    return Class("folders", subs, notes)


# ---- Gradescope ----------------------------------------------------------------------------

def _meta(data, where):
    try:
        return metadata.load(data, where)
    except metadata.MetadataError as e:
        raise LayoutError(str(e))


def _gradescope(meta, folders, course, source_of, stage_of, links=()):
    """Submissions of a Gradescope export: meta ({folder: people} of the yml), folders (the
    submission folders the export holds), links (those of them that are symbolic links)."""
    subs = []
    for folder in sorted(set(meta) | set(folders)):
        people = meta.get(folder) or [{"name": folder, "id": "", "email": ""}]
        own = KEY.fullmatch(folder) is not None
        key = folder if own else generated_key(folder)
        notes = [] if own else [_renamed(folder, key)]
        if folder not in folders:
            subs.append(Submission(key, people, generated=not own, refused=(
                "refused: the export has no folder %s (submission_metadata.yml names it)" %
                shown.escape(folder))))
        elif folder in links and not own:
            subs.append(Submission(key, people, generated=True, refused=(
                "refused: %s is a symbolic link: the grader copies files, never what a link "
                "points to" % shown.escape(folder))))
        else:
            if folder not in meta:
                notes.append("not in submission_metadata.yml")
            src, stage = (source_of(folder), stage_of(folder)) if own else (None, stage_of(folder, True))
            subs.append(Submission(key, people, source=src, stage=stage, loose=course.single,
                                   notes=notes, generated=not own))
    return Class("gradescope", subs, [])


def _find_meta(path):
    for d in [path] + sorted(os.path.join(path, e) for e in os.listdir(path)
                             if not e.startswith(".")):
        if os.path.isfile(os.path.join(d, "submission_metadata.yml")) and \
                not os.path.islink(os.path.join(d, "submission_metadata.yml")):
            return d
    return None


def _gradescope_folder(top, course):
    where = os.path.join(top, "submission_metadata.yml")
    try:
        meta = _meta(fileio.read(where, "Gradescope export's metadata", metadata.META_MAX), where)
    except fileio.FileError as e:
        raise LayoutError(str(e))
    kinds = {e: os.lstat(os.path.join(top, e)).st_mode for e in os.listdir(top)
             if not e.startswith(".")}
    folders = {e for e, m in kinds.items() if stat.S_ISDIR(m)}
    # a symbolic link where a submission's folder should be: refused by make grade's intake
    links = {e for e in meta if e in kinds and stat.S_ISLNK(kinds[e])}

    def source_of(folder):
        full = os.path.join(top, folder)
        if folder in links:
            return full
        root = _folder_root(full, course)
        return os.path.join(full, root) if root else full

    def stage_of(folder, copy=False):
        return _stage_folder(os.path.join(top, folder), course) if copy else None
    return _gradescope(meta, folders | links, course, source_of, stage_of, links)


def _gradescope_zip(path, zf, meta_name, course):
    prefix = meta_name[:-len("submission_metadata.yml")]
    with zf.open(meta_name) as f:
        data = f.read(metadata.META_MAX + 1)
    if len(data) > metadata.META_MAX:
        raise LayoutError("%s:%s: more than the %d bytes a submission_metadata.yml may have" % (
            shown.escape(path), shown.escape(meta_name), metadata.META_MAX))
    meta = _meta(data, path + ":" + meta_name)
    members, notes = _members(zf, prefix)
    by_folder = {}
    for info, rel in members:
        if "/" in rel:
            by_folder.setdefault(rel.split("/")[0], []).append((info, rel))

    def stage_of(folder, copy=True):
        def stage(dest):
            own = [(i, r[len(folder) + 1:]) for i, r in by_folder[folder]]
            root = _pick_root({r for _, r in own}, course.graded_files(), course.loose_names())
            with zipfile.ZipFile(path) as z:
                return (["graded from its folder %s" % shown.escape(root)] if root else []) + \
                    _stage_members(z, own, root, course, dest)
        return stage
    cls = _gradescope(meta, set(by_folder), course, lambda folder: None, stage_of)
    cls.notes = notes + cls.notes
    return cls


# ---- Canvas --------------------------------------------------------------------------------

def _canvas(names, course, take, open_zip):
    """Submissions of a Canvas download: names (its flat file names); take(name, dest, rel)
    reproduces one file; open_zip(name) opens an uploaded zip (or returns a note)."""
    people = {}
    for n in sorted(names):
        m = CANVAS_NAME.fullmatch(n)
        people.setdefault((m.group("who"), m.group("uid")), []).append(m)
    subs = []
    for (who, uid), ms in sorted(people.items()):
        late = ["handed in late (Canvas marked it LATE)"] if any(m.group("late") for m in ms) else []
        subs.append(Submission("%s_%s" % (slug(who), uid), [{"name": who, "id": uid}],
                               stage=_canvas_stage(ms, course, take, open_zip), notes=late,
                               generated=True))
    return Class("canvas", subs, [])


def _canvas_stage(ms, course, take, open_zip):
    def stage(dest):
        notes, chosen = [], {}
        for m in ms:
            r = RESUBMITTED.fullmatch(m.group("file"))
            base = r.group("stem") + (r.group("ext") or "")
            n = int(r.group("n") or 0)
            if base.endswith(".zip"):
                target = ("zip",)
            elif base in ("exercises.c", "exercises.cu"):
                if not course.single:
                    notes.append("refused: %s: a loose %s belongs to one lesson; grade this class "
                                 "with LESSON=NN (a Canvas assignment for one lesson)" % (m.group(0), base))
                    continue
                if base not in course.loose_names():
                    notes.append("ignored: %s (lesson %s has no %s)" % (m.group(0), course.single, base))
                    continue
                target = (course.folder[course.single] + "/" + base,)
            else:
                notes.append("ignored: %s (not an exercise file)" % m.group(0))
                continue
            if target in chosen and chosen[target][0] > n:
                notes.append("ignored: %s (an earlier upload than %s)" % (m.group(0), chosen[target][1]))
                continue
            if target in chosen:
                notes.append("ignored: %s (an earlier upload than %s)" % (chosen[target][1], m.group(0)))
            chosen[target] = (n, m.group(0))
        for target, (_, name) in sorted(chosen.items()):
            if target[0] != "zip":
                note = take(name, dest, target[0])
            else:
                z = open_zip(name)
                if isinstance(z, str):
                    note = z
                else:
                    with z:
                        members, note_list = _members(z)
                        root = _pick_root({r for _, r in members}, course.graded_files(),
                                          course.loose_names())
                        notes.extend(note_list + (["graded from %s's folder %s" % (name, root)]
                                                  if root else []))
                        notes.extend(_stage_members(z, members, root, course, dest))
                    note = None
            if note:
                notes.append(note)
        return notes
    return stage


def _canvas_folder(path, names, course):
    def open_zip(name):
        full = os.path.join(path, name)
        st = os.lstat(full)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
            return "refused: %s is %s of its own, not a plain zip" % (
                shown.escape(name), files.kind_of(st.st_mode))
        try:
            return _open_nested(name, fileio.read(full, "submission's zip", NESTED_ZIP_MAX))
        except fileio.FileError as e:
            return "refused: %s" % e
    take = lambda name, dest, rel: files.take_file(path, name, dest, rel)
    return _canvas(names, course, take, open_zip)


def _open_nested(name, data):
    try:
        return zipfile.ZipFile(io.BytesIO(data))
    except files.ZIP_ERRORS as e:
        return "refused: %s is not a zip archive that can be read (%s)" % (
            shown.escape(name), shown.escape(str(e), 200))


def _canvas_zip(path, names, course):
    def take(name, dest, rel):
        with zipfile.ZipFile(path) as z:
            return files.extract_member(z, z.getinfo(name), dest, rel)

    def open_zip(name):
        with zipfile.ZipFile(path) as z:
            info = z.getinfo(name)
            if info.file_size > NESTED_ZIP_MAX:
                return "refused: %s is %d bytes, more than a submission's zip may have" % (
                    shown.escape(name), info.file_size)
            try:
                with z.open(info) as f:
                    data = f.read(NESTED_ZIP_MAX + 1)
            except files.ZIP_ERRORS as e:
                return "refused: %s cannot be read from the archive (%s)" % (
                    shown.escape(name), shown.escape(str(e), 200))
            return _open_nested(name, data)
    return _canvas(names, course, take, open_zip)


# ---- which layout --------------------------------------------------------------------------

def discover(path, course):
    """The class SUBMISSIONS names: a folder of student folders, or a Gradescope or Canvas
    export (zip or unzipped). LayoutError when it is none of them."""
    if not os.path.exists(path):
        raise LayoutError("SUBMISSIONS=%s does not exist" % path)
    if os.path.isfile(path):
        if not zipfile.is_zipfile(path):
            raise LayoutError("SUBMISSIONS=%s is a file but not a zip archive (a Gradescope or "
                              "Canvas export); give the folder of submissions instead" % path)
        try:
            return _zip_class(path, course)
        except files.ZIP_ERRORS as e:
            raise LayoutError("SUBMISSIONS=%s: a damaged zip archive (%s): download the export "
                              "again" % (path, shown.escape(str(e) or type(e).__name__, 200)))
    if not os.path.isdir(path):
        raise LayoutError("SUBMISSIONS=%s is neither a folder nor a zip archive" % path)
    top = _find_meta(path)
    if top:
        return _gradescope_folder(top, course)
    entries = sorted(os.listdir(path))
    kinds = {e: os.lstat(os.path.join(path, e)).st_mode for e in entries}
    canvas = [e for e in entries if CANVAS_NAME.fullmatch(e) and not stat.S_ISDIR(kinds[e])]
    folders = [e for e in entries if stat.S_ISDIR(kinds[e]) and not e.startswith(".")
               and e != "__MACOSX"]
    if canvas and not folders:
        cls = _canvas_folder(path, canvas, course)
        cls.notes = ["ignored: %s (not named as Canvas names files)" % e for e in entries
                     if e not in canvas and not e.startswith(".")] + cls.notes
        return cls
    return _folders(path, course)


def _zip_class(path, course):
    with zipfile.ZipFile(path) as zf:
        metas = sorted((n for n in zf.namelist()
                        if n.split("/")[-1] == "submission_metadata.yml" and n.count("/") <= 1),
                       key=len)
        if metas:
            return _gradescope_zip(path, zf, metas[0], course)
        members, notes = _members(zf)
        names = [r for i, r in members if "/" not in r and not i.is_dir()]
        canvas = [n for n in names if CANVAS_NAME.fullmatch(n)]
        if not canvas:
            raise LayoutError("SUBMISSIONS=%s: neither a Gradescope export (no "
                              "submission_metadata.yml) nor a Canvas download (no file named "
                              "NAME_USERID_SUBMISSIONID_FILE at its top)" % path)
        cls = _canvas_zip(path, canvas, course)
        cls.notes = notes + ["ignored: %s (not named as Canvas names files)" % n
                             for n in names if n not in canvas] + cls.notes
        return cls
