"""A submission's files, read and copied without following them.

make grade copies a submission with tests/graded/sandbox/intake.c, which refuses links, files
with a second name, special files and files over 1 MiB. grade-all looks at the same
files before that (to hash them, or to lay an export out as lesson folders) and never
follows a link either: what it cannot take as a plain file it reproduces as it is (a
link stays a link, a file too large stays that large, as a sparse file), so that
intake.c refuses it with its own words; what it cannot reproduce it names in a note.
"""
import errno
import hashlib
import lzma
import os
import stat
import zipfile
import zlib

from . import shown

FILE_MAX = 1 << 20  # intake.c's limit on an exercise file
SPARSE_MAX = 1 << 40  # the largest size a refused file is reproduced at
ENTRIES_MAX = 2000  # entries of one archive looked at

# what reading a damaged or unusual archive raises: a bad CRC or header, a damaged stream,
# a compression method or encryption zipfile lacks, a truncated member
ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, lzma.LZMAError,
              NotImplementedError, RuntimeError, EOFError, ValueError, OSError)

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


def kind_of(mode):
    """The kind of a file, in intake.c's words."""
    for test, what in ((stat.S_ISREG, "a regular file"), (stat.S_ISDIR, "a folder"),
                       (stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device")):
        if test(mode):
            return what
    return "not a file"


def _walk_to(root, rel):
    """(fd of rel's folder, rel's last name) under root, following no link; or
    (None, state) where the way is not a plain folder."""
    try:
        st = os.lstat(root)
    except OSError as e:
        return None, "root cannot be read (%s)" % e.strerror
    if stat.S_ISLNK(st.st_mode):
        return None, "root link %s" % os.readlink(root)
    if not stat.S_ISDIR(st.st_mode):
        return None, "root %s" % kind_of(st.st_mode)
    fd = os.open(root, _DIR)
    parts = rel.split("/")
    for i, part in enumerate(parts[:-1]):
        try:
            nfd = os.open(part, _DIR, dir_fd=fd)
        except OSError as e:
            where = "/".join(parts[:i + 1])
            os.close(fd)
            if e.errno == errno.ENOENT:
                return None, "missing"
            return None, "%s: %s" % (where, describe(root, where))
        os.close(fd)
        fd = nfd
    return fd, parts[-1]


def describe(root, rel):
    """What rel under root is, seen without following it: 'a symbolic link (to X)', ..."""
    fd, name = _walk_to(root, rel)
    if fd is None:
        return name
    try:
        st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        if stat.S_ISLNK(st.st_mode):
            return "a symbolic link (to %s)" % os.readlink(name, dir_fd=fd)
        return kind_of(st.st_mode)
    except OSError as e:
        return "cannot be read (%s)" % e.strerror
    finally:
        os.close(fd)


def _read_capped(fd, limit):
    chunks, total = [], 0
    while total <= limit:
        b = os.read(fd, min(65536, limit + 1 - total))
        if not b:
            break
        chunks.append(b)
        total += len(b)
    return b"".join(chunks)


def state(root, rel):
    """What intake.c would find at rel under root, as one line of text for a hash:
    'file SHA256 N' (N its number of names), 'missing', 'link TARGET', 'big SIZE', the
    kind of a special file, or why the way there is not a folder. Never follows a link,
    never blocks on a FIFO, never reads more than FILE_MAX + 1 bytes."""
    fd, name = _walk_to(root, rel)
    if fd is None:
        return name
    try:
        try:
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            return "missing"
        if stat.S_ISLNK(st.st_mode):
            return "link %s" % os.readlink(name, dir_fd=fd)
        if not stat.S_ISREG(st.st_mode):
            return kind_of(st.st_mode)
        if st.st_size > FILE_MAX:
            return "big %d" % st.st_size
        f = os.open(name, _FILE, dir_fd=fd)
        try:
            st = os.fstat(f)
            if not stat.S_ISREG(st.st_mode):
                return kind_of(st.st_mode)
            data = _read_capped(f, FILE_MAX)
        finally:
            os.close(f)
        return "file %s %d" % (hashlib.sha256(data).hexdigest(), st.st_nlink)
    except OSError as e:
        return "unreadable %s" % e.strerror
    finally:
        os.close(fd)


def _parent_fd(dest, rel):
    """fd of rel's folder under dest (a folder this run made), made as needed; None when
    a part of the way is not a folder of its own (an earlier entry made it a link)."""
    fd = os.open(dest, _DIR)
    for part in rel.split("/")[:-1]:
        try:
            os.mkdir(part, 0o700, dir_fd=fd)
        except FileExistsError:
            pass
        try:
            nfd = os.open(part, _DIR, dir_fd=fd)
        except OSError:
            os.close(fd)
            return None
        os.close(fd)
        fd = nfd
    return fd


def _write_new(dest, rel, data=b"", size=None, link=None):
    """Make rel under dest: a link to `link`, or a file holding data (then extended to
    `size`, sparse). False when the way there is not a plain folder."""
    fd = _parent_fd(dest, rel)
    if fd is None:
        return False
    name = rel.split("/")[-1]
    try:
        if link is not None:
            os.symlink(link, name, dir_fd=fd)
            return True
        f = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                    0o600, dir_fd=fd)
        try:
            os.write(f, data)
            if size is not None and size > len(data):
                os.ftruncate(f, min(size, SPARSE_MAX))
        finally:
            os.close(f)
        return True
    except FileExistsError:
        return False
    finally:
        os.close(fd)


def _take_at(fd, name, shown_name, dest, rel):
    """take_file of the entry name of the folder open as fd (shown_name: in notes)."""
    try:
        st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        if stat.S_ISLNK(st.st_mode):
            _write_new(dest, rel, link=os.readlink(name, dir_fd=fd))
            return None
        if not stat.S_ISREG(st.st_mode):
            return "refused: %s is %s, not a regular file: hand in the file itself" % (
                shown_name, kind_of(st.st_mode))
        if st.st_nlink != 1:
            return ("refused: %s has %d names (a hard link): its other name may be any "
                    "file, so the grader takes only a file of its own" % (shown_name, st.st_nlink))
        if st.st_size > FILE_MAX:
            _write_new(dest, rel, size=st.st_size)
            return None
        f = os.open(name, _FILE, dir_fd=fd)
        try:
            if not stat.S_ISREG(os.fstat(f).st_mode):
                return "refused: %s changed while it was read" % shown_name
            data = _read_capped(f, FILE_MAX)
        finally:
            os.close(f)
        _write_new(dest, rel, data=data, size=st.st_size)
        return None
    except OSError as e:
        return "refused: %s cannot be read (%s)" % (shown_name, e.strerror)


def take_file(src_dir, name, dest, rel):
    """Reproduce file `name` of folder src_dir as rel under dest (a folder this run made):
    a plain file is copied, a link stays a link, a file over FILE_MAX becomes a sparse file
    of its size, so that intake.c refuses what it refuses. Returns None, or a note saying
    why the file was not taken (a second name, a special file)."""
    try:
        fd = os.open(src_dir, _DIR)
    except OSError as e:
        return "refused: %s cannot be read (%s)" % (shown.escape(name), e.strerror)
    try:
        return _take_at(fd, name, shown.escape(name), dest, rel)
    finally:
        os.close(fd)


def take_path(root, rel, dest):
    """Reproduce rel of the folder root as rel under dest, following no link on the way:
    a folder on the way that is a link stays a link (intake.c refuses it), the file is
    taken as take_file() takes it, a path that is missing is left missing. Returns None
    or a note."""
    parts = rel.split("/")
    try:
        fd = os.open(root, _DIR)
    except OSError as e:
        return "refused: %s cannot be read (%s)" % (shown.escape(rel), e.strerror)
    try:
        for i, part in enumerate(parts):
            where = "/".join(parts[:i + 1])
            try:
                st = os.stat(part, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                return None
            if i == len(parts) - 1 or stat.S_ISLNK(st.st_mode):
                return _take_at(fd, part, shown.escape(where), dest, where)
            if not stat.S_ISDIR(st.st_mode):
                return None  # a file where a folder should be: nothing handed in there
            nfd = os.open(part, _DIR, dir_fd=fd)
            os.close(fd)
            fd = nfd
    except OSError as e:
        return "refused: %s cannot be read (%s)" % (shown.escape(rel), e.strerror)
    finally:
        os.close(fd)


def safe_member(name):
    """An archive member's path as a relative path with no way out, or None."""
    if not name or "\0" in name or "\\" in name or name.startswith("/"):
        return None
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        return None
    return "/".join(parts)


def zip_mode(info):
    """The Unix file mode a zip member carries (0 when the archive was made elsewhere)."""
    return (info.external_attr >> 16) & 0xFFFF if info.create_system == 3 else 0


def extract_member(zf, info, dest, rel):
    """Reproduce zip member info as rel under dest: a link stays a link, a file over
    FILE_MAX becomes a sparse file of its declared size, a file is read no further than
    FILE_MAX + 1 bytes (whatever its header says). Returns None or a note."""
    mode = zip_mode(info)
    try:
        if stat.S_ISLNK(mode):
            with zf.open(info) as f:
                target = f.read(4096).decode("utf-8", "replace")
            ok = _write_new(dest, rel, link=target)
        elif info.is_dir() or stat.S_ISDIR(mode):
            fd = _parent_fd(dest, rel + "/x")
            ok = fd is not None
            if ok:
                os.close(fd)
        elif info.file_size > FILE_MAX:
            ok = _write_new(dest, rel, size=info.file_size)
        else:
            with zf.open(info) as f:
                data = f.read(FILE_MAX + 1)
            ok = _write_new(dest, rel, data=data)
    except Exception as e:  # a damaged member: zlib, CRC, an unsupported method
        return "ignored: %s cannot be read from the archive (%s)" % (info.filename, e)
    if not ok:
        return "ignored: %s (a part of its path is already a link or a file)" % info.filename
    return None
