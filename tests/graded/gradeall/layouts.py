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
intake; or, for an archive and for Canvas's flat names, a folder this run lays out
(files.py: links, oversized and special files reproduced or named, never followed).
"""
import io
import os
import re
import stat
import zipfile

from . import files

SAFE_NAME = re.compile(r"[\w@+][\w.@+-]{0,99}")  # what make and a shell take as they are
CANVAS_NAME = re.compile(r"(?P<who>[^_/]+?)(?P<late>_LATE)?_(?P<uid>\d+)_(?P<sid>\d+)_(?P<file>.+)")
RESUBMITTED = re.compile(r"(?P<stem>.+?)(?:-(?P<n>\d+))?(?P<ext>\.[A-Za-z0-9]+)?")
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
        graded = sorted(m.group(1) for m in (re.fullmatch(r"grade(\d\d)\.c", f) for f in
                                             os.listdir(os.path.join(repo, "tests", "graded"))) if m)
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

    def __init__(self, key, people, source=None, stage=None, loose=None, notes=(), refused=None):
        self.key, self.people = key, people
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
        self.layout, self.notes = layout, notes
        self.submissions = sorted(submissions, key=lambda s: s.key)


def slug(text):
    """A safe key made of a name: other characters become '-'."""
    s = re.sub(r"[^A-Za-z0-9.@+-]", "-", text).strip("-.") or "x"
    return s[:60]


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


def _check_name(name):
    if SAFE_NAME.fullmatch(name):
        return None
    return ("refused: the folder name %r has characters make and the shell cannot take as "
            "they are; rename it with letters, digits and . _ - @ +" % name)


# ---- one folder per student ----------------------------------------------------------------

def _folders(path, course):
    subs, notes = [], []
    for e in sorted(os.listdir(path)):
        full = os.path.join(path, e)
        st = os.lstat(full)
        if e.startswith(".") or e == "__MACOSX":
            notes.append("ignored: %s (hidden)" % e)
            continue
        key = e if SAFE_NAME.fullmatch(e) else "%s-%08x" % (slug(e), _crc(e))
        person = [{"name": e, "id": e}]
        if stat.S_ISLNK(st.st_mode):
            subs.append(Submission(key, person, refused="refused: %s is a symbolic link (to %s): "
                                   "the grader copies files, never what a link points to; hand in "
                                   "the folder itself" % (e, os.readlink(full))))
        elif not stat.S_ISDIR(st.st_mode):
            notes.append("ignored: %s is %s, not a submission folder" % (e, files.kind_of(st.st_mode)))
        elif _check_name(e):
            subs.append(Submission(key, person, refused=_check_name(e)))
        else:
            root = _folder_root(full, course)
            subs.append(Submission(key, person, source=os.path.join(full, root) if root else full,
                                   loose=course.single,
                                   notes=["graded from its folder %s" % root] if root else []))
    return Class("folders", subs, notes)


def _crc(text):
    import zlib
    return zlib.crc32(text.encode("utf-8", "surrogateescape"))


# ---- Gradescope ----------------------------------------------------------------------------

def _yaml_load(text, where):
    try:
        import yaml
    except ImportError:
        raise LayoutError("%s: reading a Gradescope export needs PyYAML: sudo apt-get install "
                          "python3-yaml" % where)

    class Loader(yaml.SafeLoader):  # Ruby's tags (!ruby/object:...) read as plain values
        pass

    def plain(loader, suffix, node):
        if isinstance(node, yaml.MappingNode):
            return loader.construct_mapping(node, deep=True)
        if isinstance(node, yaml.SequenceNode):
            return loader.construct_sequence(node, deep=True)
        return loader.construct_scalar(node)
    Loader.add_multi_constructor("!", plain)
    try:
        data = yaml.load(text, Loader=Loader)
    except yaml.YAMLError as e:
        raise LayoutError("%s: not YAML Gradescope wrote (%s)" % (where, str(e).splitlines()[0]))
    if not isinstance(data, dict):
        raise LayoutError("%s: expected one entry per submission folder" % where)
    return data


def _field(d, name):
    """A field of Gradescope's yml, written by Ruby as :name: (or plain name:)."""
    if not isinstance(d, dict):
        return None
    v = d.get(":" + name, d.get(name))
    return None if v is None else v


def _people(entry, folder):
    people = []
    for s in _field(entry, "submitters") or []:
        name, sid, email = (_field(s, k) for k in ("name", "sid", "email"))
        people.append({"name": str(name or email or sid or folder), "id": str(sid or email or ""),
                       "email": str(email or "")})
    return people or [{"name": folder, "id": "", "email": ""}]


def _gradescope(meta, folders, course, source_of, stage_of):
    """Submissions of a Gradescope export: meta (the yml's mapping), folders (the
    submission folders the export holds)."""
    subs, notes = [], []
    for folder in sorted(set(meta) | set(folders)):
        entry = meta.get(folder)
        people = _people(entry, folder)
        if not SAFE_NAME.fullmatch(folder):
            subs.append(Submission(slug(folder), people, refused=_check_name(folder)))
        elif folder not in folders:
            subs.append(Submission(folder, people, refused="refused: the export has no folder "
                                   "%s (submission_metadata.yml names it)" % folder))
        else:
            extra = [] if entry is not None else ["not in submission_metadata.yml"]
            src, stage = source_of(folder), stage_of(folder)
            subs.append(Submission(folder, people, source=src, stage=stage, loose=course.single,
                                   notes=extra))
    return Class("gradescope", subs, notes)


def _find_meta(path):
    for d in [path] + sorted(os.path.join(path, e) for e in os.listdir(path)
                             if not e.startswith(".")):
        if os.path.isfile(os.path.join(d, "submission_metadata.yml")) and \
                not os.path.islink(os.path.join(d, "submission_metadata.yml")):
            return d
    return None


def _gradescope_folder(top, course):
    with open(os.path.join(top, "submission_metadata.yml"), encoding="utf-8", errors="replace") as f:
        meta = _yaml_load(f.read(), os.path.join(top, "submission_metadata.yml"))
    folders = {e for e in os.listdir(top)
               if not e.startswith(".") and stat.S_ISDIR(os.lstat(os.path.join(top, e)).st_mode)}
    # a symbolic link where a submission's folder should be: refused by make grade's intake
    folders |= {e for e in meta if os.path.islink(os.path.join(top, e))}

    def source_of(folder):
        full = os.path.join(top, folder)
        if os.path.islink(full):
            return full
        root = _folder_root(full, course)
        return os.path.join(full, root) if root else full
    return _gradescope(meta, folders, course, source_of, lambda folder: None)


def _gradescope_zip(path, zf, meta_name, course):
    prefix = meta_name[:-len("submission_metadata.yml")]
    with zf.open(meta_name) as f:
        meta = _yaml_load(f.read(1 << 26).decode("utf-8", "replace"), path + ":" + meta_name)
    members, notes = _members(zf, prefix)
    by_folder = {}
    for info, rel in members:
        if "/" in rel:
            by_folder.setdefault(rel.split("/")[0], []).append((info, rel))
    def stage_of(folder):
        def stage(dest):
            own = [(i, r[len(folder) + 1:]) for i, r in by_folder[folder]]
            root = _pick_root({r for _, r in own}, course.graded_files(), course.loose_names())
            with zipfile.ZipFile(path) as z:
                return (["graded from its folder %s" % root] if root else []) + \
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
                               stage=_canvas_stage(ms, course, take, open_zip), notes=late))
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
            return "refused: %s is %s of its own, not a plain zip" % (name, files.kind_of(st.st_mode))
        if st.st_size > NESTED_ZIP_MAX:
            return "refused: %s is %d bytes, more than a submission's zip may have" % (name, st.st_size)
        fd = os.open(full, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as f:
            return _open_nested(name, f.read(NESTED_ZIP_MAX + 1))
    take = lambda name, dest, rel: files.take_file(path, name, dest, rel)
    return _canvas(names, course, take, open_zip)


def _open_nested(name, data):
    try:
        return zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        return "refused: %s is not a zip archive that can be read" % name


def _canvas_zip(path, names, course):
    def take(name, dest, rel):
        with zipfile.ZipFile(path) as z:
            return files.extract_member(z, z.getinfo(name), dest, rel)
    def open_zip(name):
        with zipfile.ZipFile(path) as z:
            info = z.getinfo(name)
            if info.file_size > NESTED_ZIP_MAX:
                return "refused: %s is %d bytes, more than a submission's zip may have" % (
                    name, info.file_size)
            with z.open(info) as f:
                return _open_nested(name, f.read(NESTED_ZIP_MAX + 1))
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
                                 for n in names if n not in canvas]
            return cls
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
                     if e not in canvas and not e.startswith(".")]
        return cls
    return _folders(path, course)
