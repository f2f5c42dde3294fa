"""grade-all's own files, read and saved as lib/core/fileio.h reads and saves the
workbook's: one reader and one writer, through which every file grade-all makes or
reads in OUT and the build folder goes (results, records, logs, the seed, locks, the
three reports, a Gradescope export's metadata).

Reading (read()): opened with O_NONBLOCK and O_NOCTTY (and O_NOFOLLOW unless the caller
follows links), so a FIFO or a terminal neither waits nor is taken over; anything but a
regular file is refused by name; a file over the caller's limit is refused before a
byte is read, or read in part where the caller asks for its head or its tail (a log).

Saving (save()): the data goes to a new file beside the target, NAME.tmp-HOST-PID-XXXXXXXX
(the host too, as OUT may be shared by machines), created O_CREAT | O_EXCL | O_NOFOLLOW, so
a planted link is never followed; the target must be absent or a regular file (a link, a
FIFO, a device or a folder there is refused by name and left as it was); a target
without write permission is refused as cp refuses it, unless the caller says to replace
it; the new file gets the old one's mode (and owner and group where this process may set
them); it is fsync()ed, renamed over the target, and the folder fsync()ed. Any failure
(a full disk, a file-size limit, a read-only folder) removes the new file, leaves the
target as it was, and raises FileError with one line naming the file, the step and the
reason. A save never opens the target's path, so it never blocks.
"""
import errno
import fcntl
import os
import re
import secrets
import socket
import stat

from . import shown

MAX_DEFAULT = 256 << 20  # fileio.h's FILEIO_MAX_DEFAULT

_READ = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_TEMP = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_HOST = re.sub(r"[^A-Za-z0-9.]", "", socket.gethostname()) or "host"
_HINTS = {errno.ENOENT: " (does the folder exist?)", errno.ENOSPC: " (the disk is full)",
          errno.EDQUOT: " (the disk quota is used up)", errno.EFBIG: " (a file-size limit: ulimit -f)",
          errno.EACCES: " (no permission to write in that folder)",
          errno.EPERM: " (no permission to write in that folder)"}


class FileError(Exception):
    """A file that cannot be read or saved: one line naming it and why; errno when the
    system said."""

    def __init__(self, message, err=None):
        super().__init__(message)
        self.errno = err


def kind(mode):
    """What a file of mode st_mode is, in fileio_kind()'s words."""
    for test, what in ((stat.S_ISREG, "a regular file"), (stat.S_ISDIR, "a folder"),
                       (stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device")):
        if test(mode):
            return what
    return "an unknown kind of file"


def _p(path):
    return shown.escape(os.fsdecode(path))


# ---- reading -------------------------------------------------------------------------------

def read(path, what, limit=MAX_DEFAULT, part=None, follow=False):
    """The bytes of path, a regular file of at most limit bytes (part='head' or 'tail':
    its first or last limit bytes, whatever its size). FileError otherwise, with errno
    ENOENT when it does not exist."""
    try:
        fd = os.open(path, _READ | (0 if follow else os.O_NOFOLLOW))
    except OSError as e:
        if e.errno == errno.ELOOP and not follow:
            raise FileError("%s: cannot read this %s: it is a symbolic link, not a regular "
                            "file" % (_p(path), what), e.errno)
        raise FileError("%s: cannot open the %s: %s" % (_p(path), what, e.strerror), e.errno)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise FileError("%s: cannot read this %s: it is %s, not a regular file" % (
                _p(path), what, kind(st.st_mode)), errno.EINVAL)
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        if st.st_size > limit:
            if part is None:
                raise FileError("%s: %d bytes, more than the %d bytes a %s may have (is it the "
                                "right file?)" % (_p(path), st.st_size, limit, what), errno.EFBIG)
            if part == "tail":
                os.lseek(fd, st.st_size - limit, os.SEEK_SET)
        chunks, total = [], 0
        while total <= limit:
            b = os.read(fd, min(1 << 20, limit + 1 - total))
            if not b:
                break
            chunks.append(b)
            total += len(b)
        data = b"".join(chunks)
        if len(data) > limit:
            if part is None:
                raise FileError("%s: longer than the %d bytes a %s may have (it grew while it "
                                "was read)" % (_p(path), limit, what), errno.EFBIG)
            data = data[:limit] if part == "head" else data[-limit:]
        return data
    except OSError as e:
        raise FileError("%s: cannot read the %s: %s" % (_p(path), what, e.strerror), e.errno)
    finally:
        os.close(fd)


def read_text(path, what, limit=MAX_DEFAULT, part=None, follow=False):
    """read() as text: UTF-8, bytes that are not kept as os.fsdecode keeps them."""
    return read(path, what, limit, part, follow).decode("utf-8", "surrogateescape")


# ---- saving --------------------------------------------------------------------------------

def _target(path, what, replace_readonly):
    """The target's stat when it is a regular file this save may replace, None when absent."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise FileError("%s: cannot save the %s: looking at it failed: %s" % (
            _p(path), what, e.strerror), e.errno)
    if not stat.S_ISREG(st.st_mode):
        raise FileError("%s: cannot save the %s here: it is %s, not a regular file (a save "
                        "replaces only a regular file: remove it or choose another path)" % (
                            _p(path), what, kind(st.st_mode)), errno.EINVAL)
    if not replace_readonly and not os.access(path, os.W_OK, effective_ids=os.access in
                                              os.supports_effective_ids):
        folder = os.path.dirname(path) or "."
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            raise FileError("%s: cannot save the %s: it is on a read-only file system" % (
                _p(path), what), errno.EROFS)
        raise FileError("%s: cannot save the %s: the file is read-only (mode %04o): make it "
                        "writable (chmod u+w) or remove it" % (
                            _p(path), what, stat.S_IMODE(st.st_mode)), errno.EACCES)
    return st


def _new_temp(path, what):
    """(fd, name) of a new file beside path, never one that existed (a planted link)."""
    for _ in range(100):
        tmp = "%s.tmp-%s-%d-%s" % (path, _HOST, os.getpid(), secrets.token_hex(4))
        try:
            return os.open(tmp, _TEMP, 0o666), tmp
        except FileExistsError:
            continue
        except OSError as e:
            raise FileError("%s: cannot save the %s: creating a new file beside it failed: "
                            "%s%s" % (_p(path), what, e.strerror, _HINTS.get(e.errno, "")), e.errno)
    raise FileError("%s: cannot save the %s: 100 names for a new file beside it are all taken"
                    % (_p(path), what), errno.EEXIST)


def _remove_stale(path):
    """Remove the new files that earlier saves of path on this host left when killed."""
    folder, name = os.path.split(path)
    pattern = re.compile(re.escape(name) + r"\.tmp-" + re.escape(_HOST) + r"-(\d+)-[0-9a-f]{8}")
    try:
        names = os.listdir(folder or ".")
    except OSError:
        return
    for n in names:
        m = pattern.fullmatch(n)
        if m and int(m.group(1)) != os.getpid() and not _alive(int(m.group(1))):
            try:
                os.unlink(os.path.join(folder, n))
            except OSError:
                pass


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def save(path, data, what, replace_readonly=False, new=False):
    """Save data (bytes, or str written as UTF-8) at path, as the module's comment says.
    new=True: only where path does not exist; the new file is linked into place, so that
    one another process put there meanwhile stays; returns False when path existed."""
    if isinstance(data, str):  # escaped text (shown.escape); a stray surrogate stays visible
        data = data.encode("utf-8", "backslashreplace")
    old = None if new else _target(path, what, replace_readonly)
    fd, tmp = _new_temp(path, what)
    step = "writing"
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            if old is not None:
                step = "giving it the old file's mode"
                os.fchmod(fd, stat.S_IMODE(old.st_mode))
                if (old.st_uid, old.st_gid) != (os.geteuid(), os.getegid()):
                    try:
                        os.fchown(fd, old.st_uid, old.st_gid)
                    except PermissionError:
                        pass  # as cp: the owner stays who saved it
            step = "fsync"
            os.fsync(fd)
        finally:
            os.close(fd)
        if new:
            step = "linking it into place"
            try:
                os.link(tmp, path)
            except FileExistsError:
                return False
            finally:
                os.unlink(tmp)
        else:
            _target(path, what, True)  # a link, FIFO or folder put there meanwhile
            step = "renaming it into place"
            os.rename(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError) and not isinstance(e, FileError):
            raise FileError("%s: cannot save the %s: %s failed: %s%s" % (
                _p(path), what, step, e.strerror, _HINTS.get(e.errno, "")), e.errno)
        raise
    folder = os.path.dirname(path) or "."
    try:
        dfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError as e:
        if e.errno != errno.EINVAL:
            raise FileError("%s: saved, but syncing the folder %s to disk failed: %s" % (
                _p(path), _p(folder), e.strerror), e.errno)
    _remove_stale(path)
    return True


def save_check(path, what):
    """Whether a save to path could start now (FileError if not): the target absent or a
    regular file it may replace, and a new file can be made beside it (one is, and removed)."""
    _target(path, what, False)
    fd, tmp = _new_temp(path, what)
    os.close(fd)
    os.unlink(tmp)


# ---- folders and locks ---------------------------------------------------------------------

def folder(path, what, follow=False):
    """Make the folder path (and those above it) unless it is there; FileError when it
    cannot be made or is not a folder of its own (a file; a link, unless follow)."""
    try:
        os.makedirs(path, exist_ok=True)
    except FileExistsError:
        pass
    except OSError as e:
        raise FileError("%s: cannot make the %s: %s%s" % (_p(path), what, e.strerror,
                                                          _HINTS.get(e.errno, "")), e.errno)
    st = os.stat(path) if follow else os.lstat(path)
    if not stat.S_ISDIR(st.st_mode):
        raise FileError("%s: the %s is %s, not a folder: remove it" % (
            _p(path), what, kind(st.st_mode)), errno.ENOTDIR)


def open_lock(path):
    """A file object for flock()ing path, a regular file made if absent, opened without
    following a link or waiting on a FIFO; FileError otherwise."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                     0o600)
    except OSError as e:
        why = "it is a symbolic link" if e.errno == errno.ELOOP else e.strerror
        raise FileError("%s: cannot open the lock file: %s" % (_p(path), why), e.errno)
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise FileError("%s: cannot use this lock file: it is %s, not a regular file" % (
            _p(path), kind(st.st_mode)), errno.EINVAL)
    return os.fdopen(fd, "r+b", buffering=0)
