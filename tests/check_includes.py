#!/usr/bin/env python3
"""The include rules of lib/, of the CUDA simulator and of the grader, as their READMEs
state them.

lib/ (lib/README.md): each folder of lib may include its own headers and those its
README's "May include:" line names, and nothing else of lib.

lib/cudasim/ (lib/cudasim/README.md): each room (a folder) may include its own files
and those its README's "May include:" line names: other rooms by folder name, the
headers at the top of lib/cudasim by file name. The headers at the top follow the
line of lib/cudasim/README.md, and no other file stands at the top. A file names
what it includes relative to itself; no files include each other in a loop; and from
outside lib/cudasim the simulator is entered only by its doors (cudasim.h, include/,
profile/warp_access.h).

tests/graded/ (tests/graded/README.md): each room of the grader (a folder) may include
its own files and what its README's "May include:" line names: other rooms by folder
name, the rest of the repository by path (lib/core, tests/common/fixture.h). Whatever
the lines say, the judge's side (judge/, oracles/) never includes the student's side
(runner/, lessons/, solutions/, kernels/); in a graded case, runner/ is included only
in its RUN half and judge/ and oracles/ only in its JUDGE half (cases/graded.h); a
lesson's folder of cases includes no other lesson's; nothing of the grader includes
the answers. Files of the grader name each other relative to themselves; no files
include each other in a loop; nothing but README.md stands at the top.

    python3 tests/check_includes.py [--root DIR]   # exit 1 and one line per broken rule
"""
import os
import re
import sys

LIB_INCLUDE = re.compile(r'^\s*#\s*include\s+"lib/([a-z_]+)/([^"]+)"', re.M)
SKIP = {"cudasim"}  # the simulator, a program part of its own, with rules of its own below

SIM = os.path.join("lib", "cudasim")
QUOTED = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SIM_SOURCES = (".c", ".cpp", ".h")
# The one include that crosses the rules: a translated kernel (CUDASIM_KERNEL_SOURCE)
# that includes <cuda_runtime.h> gets the device side of CUDA C++ with it.
SIM_EXCEPTIONS = {("include/cuda_runtime.h", "exec/kernel.h")}
# The files at the top of lib/cudasim; everything else is in a room.
TOP = {"README.md", "cudasim.h", "internal.h"}
# The folders of lib below the simulator that a room may name (its files, by path
# relative to themselves: "../../core/fileio.h").
LIB_BELOW = {"lib/core"}
# What code outside lib/cudasim may include of it.
DOORS = ("cudasim.h", "include/", "profile/warp_access.h")
OUTSIDE = ("lib", "kernels", "lessons", "solutions", "tests", "docs")
OUTSIDE_SOURCES = (".c", ".cpp", ".h", ".cu", ".cuh")


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def may_include(readme, where):
    """The names of a README's "May include:" line ("none": no name)."""
    if not os.path.exists(readme):
        sys.exit("check_includes: %s has no README.md saying what it may include" % where)
    m = re.search(r"^May include:\s*(.+)$", open(readme, encoding="utf-8").read(), re.M)
    if not m:
        sys.exit("check_includes: %s/README.md has no 'May include:' line" % where)
    names = {f.strip() for f in m.group(1).split(",")}
    return set() if names == {"none"} else names


# ---- lib/ ------------------------------------------------------------------------

def lib_rules(root):
    lib = os.path.join(root, "lib")
    out = {}
    for folder in sorted(os.listdir(lib)):
        if folder in SKIP or not os.path.isdir(os.path.join(lib, folder)):
            continue
        out[folder] = may_include(os.path.join(lib, folder, "README.md"), "lib/" + folder)
    return out


def check_lib(root, broken):
    allowed = lib_rules(root)
    for folder, may in allowed.items():
        for name in sorted(os.listdir(os.path.join(root, "lib", folder))):
            if not name.endswith((".c", ".h")):
                continue
            text = open(os.path.join(root, "lib", folder, name), encoding="utf-8").read()
            for m in LIB_INCLUDE.finditer(text):
                target = m.group(1)
                if target in SKIP and name == "backend_cuda.c":
                    continue  # the CUDA backend, built for the simulator, asks it for reports
                if target not in may:
                    broken.append("lib/%s/%s:%d includes lib/%s/%s: lib/%s may include only %s "
                                  "(lib/%s/README.md)" % (folder, name, line_of(text, m.start()),
                                                          target, m.group(2), folder,
                                                          ", ".join(sorted(may)), folder))
    return len(allowed)


# ---- lib/cudasim -----------------------------------------------------------------

def place(rel):
    """The room of a path inside lib/cudasim (its folder), or, for a file at the
    top, that file's name."""
    return rel.split("/", 1)[0]


def sim_rules(root):
    """{room: names it may include}; the key "" is the headers at the top."""
    sim = os.path.join(root, SIM)
    rooms = sorted(d for d in os.listdir(sim) if os.path.isdir(os.path.join(sim, d)))
    tops = sorted(f for f in os.listdir(sim) if f.endswith(SIM_SOURCES))
    known = set(rooms) | set(tops)
    out = {}
    for room in [""] + rooms:
        where = "lib/cudasim" + ("/" + room if room else "")
        names = may_include(os.path.join(sim, room, "README.md"), where)
        unknown = sorted(n for n in names - known if n not in LIB_BELOW)
        if unknown:
            sys.exit("check_includes: %s/README.md: 'May include: %s' names %s, which is no room "
                     "or header at the top of lib/cudasim (there are: %s)"
                     % (where, ", ".join(sorted(names)), ", ".join(unknown), ", ".join(sorted(known))))
        out[room] = names
    return out


def sim_files(root):
    sim = os.path.join(root, SIM)
    for top, dirs, files in os.walk(sim):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(SIM_SOURCES):
                path = os.path.join(top, name)
                yield os.path.relpath(path, sim).replace(os.sep, "/"), path


def loops(edges):
    """Each loop of includes once, as a list of files (Tarjan's strongly connected
    components of more than one file, or of one that includes itself)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1 or v in edges.get(v, ()):
                found.append(sorted(part))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def check_sim(root, broken):
    rules = sim_rules(root)
    sim = os.path.realpath(os.path.join(root, SIM))
    for name in sorted(os.listdir(sim)):
        if os.path.isfile(os.path.join(sim, name)) and name not in TOP:
            broken.append("lib/cudasim/%s stands at the top of lib/cudasim, where only %s do: "
                          "move it into the room of its concept (lib/cudasim/README.md; the "
                          "Makefile builds only the rooms' files)" % (name, ", ".join(sorted(TOP))))
    edges = {}
    for rel, path in sim_files(root):
        room = place(rel) if "/" in rel else ""
        may = rules[room]
        here = "lib/cudasim/" + rel
        rule_of = "lib/cudasim" + ("/" + room if room else "") + "/README.md"
        text = open(path, encoding="utf-8").read()
        for m in QUOTED.finditer(text):
            name, line = m.group(1), line_of(text, m.start())
            target = os.path.realpath(os.path.join(os.path.dirname(path), name))
            if not os.path.isfile(target):
                broken.append('%s:%d includes "%s", which is no file beside it: the simulator\'s '
                              "files name what they include relative to themselves "
                              "(lib/cudasim/README.md)" % (here, line, name))
                continue
            if not target.startswith(sim + os.sep):
                # lib's bottom floor, where a room's line names it (lib/core: the workbook's
                # one reader and writer of files)
                outside = os.path.relpath(target, os.path.realpath(root)).replace(os.sep, "/")
                if "/".join(outside.split("/")[:2]) in may:
                    continue
                broken.append('%s:%d includes "%s", outside lib/cudasim: the simulator includes '
                              "nothing else of the repository but the folders of lib its "
                              "room's line names (lib/cudasim/README.md)" % (here, line, name))
                continue
            trel = os.path.relpath(target, sim).replace(os.sep, "/")
            edges.setdefault(rel, set()).add(trel)
            to = place(trel)
            if "/" in rel and "/" in trel and place(rel) == to:
                continue  # within a room
            if to in may or (rel, trel) in SIM_EXCEPTIONS:
                continue
            broken.append("%s:%d includes lib/cudasim/%s: %s may include only %s (%s)"
                          % (here, line, trel, "lib/cudasim/" + room if room else
                             "the top of lib/cudasim", ", ".join(sorted(may)) or "its own files",
                             rule_of))
    for part in loops({v: {w for w in ws if (v, w) not in SIM_EXCEPTIONS}
                       for v, ws in edges.items()}):
        broken.append("lib/cudasim: %s include each other in a loop (lib/cudasim/README.md)"
                      % ", ".join(part))
    return len(rules) - 1


def check_doors(root, broken):
    """What code outside lib/cudasim includes of it: only its doors."""
    inc = re.compile(r'^\s*#\s*include\s+"lib/cudasim/([^"]+)"', re.M)
    for top in OUTSIDE:
        for dirpath, dirs, files in os.walk(os.path.join(root, top)):
            rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
            if rel_dir == SIM.replace(os.sep, "/") or rel_dir.startswith(SIM.replace(os.sep, "/") + "/"):
                dirs[:] = []
                continue
            dirs.sort()
            for name in sorted(files):
                if not name.endswith(OUTSIDE_SOURCES):
                    continue
                path = os.path.join(dirpath, name)
                try:
                    text = open(path, encoding="utf-8").read()
                except (UnicodeDecodeError, OSError):
                    continue
                for m in inc.finditer(text):
                    what = m.group(1)
                    if any(what.startswith(d) if d.endswith("/") else what == d for d in DOORS):
                        continue
                    broken.append("%s/%s:%d includes lib/cudasim/%s: from outside, the simulator "
                                  "is entered only by %s (lib/cudasim/README.md)"
                                  % (rel_dir, name, line_of(text, m.start()), what,
                                     ", ".join(DOORS)))


# ---- tests/graded ----------------------------------------------------------------

GRADED = os.path.join("tests", "graded")
GRADED_SOURCES = (".c", ".h")
# The two sides of a graded case (cases/graded.h): what runs the student's code, and
# what judges it without ever linking it.
STUDENT_SIDE = ("tests/graded/runner", "lessons", "solutions", "kernels")
JUDGE_SIDE = ("tests/graded/judge", "tests/graded/oracles")
NEVER = ("lessons", "solutions")  # the student's files and the answers: never compiled in
CONDITION = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)$")
DEFINED = re.compile(r"(!?)\s*defined\s*\(?\s*(\w+)\s*\)?")


def under(path, prefix):
    return path == prefix or path.startswith(prefix + "/")


def graded_rules(root):
    """({room: names it may include} for the rooms of tests/graded that hold C files,
    every room's name)."""
    top = os.path.join(root, GRADED)
    rooms = sorted(d for d in os.listdir(top) if os.path.isdir(os.path.join(top, d)))
    out = {}
    for room in rooms:
        where = "tests/graded/" + room
        if not os.path.exists(os.path.join(top, room, "README.md")):
            sys.exit("check_includes: %s has no README.md saying what is in it" % where)
        if not any(n.endswith(GRADED_SOURCES) for _, _, fs in os.walk(os.path.join(top, room))
                   for n in fs):
            continue
        names = may_include(os.path.join(top, room, "README.md"), where)
        unknown = sorted(n for n in names
                         if n not in rooms and not os.path.exists(os.path.join(root, n)))
        if unknown:
            sys.exit("check_includes: %s/README.md: 'May include: %s' names %s, which is no room "
                     "of tests/graded (there are: %s) nor a path of the repository"
                     % (where, ", ".join(sorted(names)), ", ".join(unknown), ", ".join(rooms)))
        out[room] = names
    return out, set(rooms)


def half_at(stack):
    """Which half of a graded case the preprocessor's conditions keep: "run" where
    GRADE_RUNNER is defined (or GRADE_JUDGE is not), "judge" where GRADE_JUDGE is (or
    GRADE_RUNNER is not), else None (both halves)."""
    for terms in stack:
        for name, yes in terms:
            if (name, yes) in (("GRADE_RUNNER", True), ("GRADE_JUDGE", False)):
                return "run"
            if (name, yes) in (("GRADE_JUDGE", True), ("GRADE_RUNNER", False)):
                return "judge"
    return None


def graded_includes(text):
    """(line, name, half) of each quoted include of a file, half as half_at says."""
    stack, out = [], []
    for n, line in enumerate(text.split("\n"), 1):
        m = CONDITION.match(line)
        if m:
            kind, rest = m.group(1), m.group(2)
            if kind == "ifdef":
                stack.append([(rest.split()[0], True)])
            elif kind == "ifndef":
                stack.append([(rest.split()[0], False)])
            elif kind == "if":
                terms = [(t.group(2), not t.group(1)) for t in DEFINED.finditer(rest)]
                stack.append(terms if "||" not in rest else [])
            elif kind == "elif" and stack:
                terms = [(t.group(2), not t.group(1)) for t in DEFINED.finditer(rest)]
                stack[-1] = terms if "||" not in rest else []
            elif kind == "else" and stack:
                flip = len(stack[-1]) == 1
                stack[-1] = [(name, not yes) for name, yes in stack[-1]] if flip else []
            elif kind == "endif" and stack:
                stack.pop()
            continue
        m = re.match(r'^\s*#\s*include\s+"([^"]+)"', line)
        if m:
            out.append((n, m.group(1), half_at(stack)))
    return out


def check_graded(root, broken):
    rules, rooms = graded_rules(root)
    top = os.path.join(root, GRADED)
    real_root = os.path.realpath(root)
    for name in sorted(os.listdir(top)):
        if os.path.isfile(os.path.join(top, name)) and name != "README.md":
            broken.append("tests/graded/%s stands at the top of tests/graded, where only README.md "
                          "does: move it into the room of its concept (tests/graded/README.md)"
                          % name)
    edges = {}
    for dirpath, dirs, files in os.walk(top):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(GRADED_SOURCES):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            parts = rel.split("/")
            if len(parts) < 4:
                continue  # at the top: refused above
            room = parts[2]
            may = rules.get(room, set())
            rule_of = "tests/graded/%s/README.md" % room
            text = open(path, encoding="utf-8").read()
            for line, inc, half in graded_includes(text):
                here = "%s:%d" % (rel, line)
                beside = os.path.realpath(os.path.join(dirpath, inc))
                if os.path.isfile(beside):
                    target = os.path.relpath(beside, real_root).replace(os.sep, "/")
                elif any(under(inc, p) for p in NEVER):
                    target = inc
                elif os.path.isfile(os.path.join(root, inc)):
                    target = inc
                    if under(target, "tests/graded"):
                        broken.append('%s includes "%s" by its path from the root: the grader\'s '
                                      "files name each other relative to themselves, so that each "
                                      "include says which room it reaches into "
                                      "(tests/graded/README.md)" % (here, inc))
                        continue
                else:
                    broken.append('%s includes "%s", which is no file beside it nor in the '
                                  "repository" % (here, inc))
                    continue
                if any(under(target, p) for p in NEVER):
                    broken.append("%s includes %s: nothing of the grader compiles in a student's "
                                  "file or the answers (the runner loads them from a checked "
                                  "shared object, tests/graded/runner/student.h)" % (here, target))
                    continue
                if room in ("judge", "oracles") and any(under(target, p) for p in STUDENT_SIDE):
                    broken.append("%s includes %s: the judge's side (judge/, oracles/) never "
                                  "includes the student's side (%s), so that no exercise code "
                                  "can reach a judge (tests/graded/README.md)"
                                  % (here, target, ", ".join(STUDENT_SIDE)))
                    continue
                if under(target, "tests/graded/runner") and room != "runner" and half != "run":
                    broken.append("%s includes %s outside a RUN half (#ifdef GRADE_RUNNER): the "
                                  "runner's side is compiled into runners only "
                                  "(tests/graded/cases/graded.h)" % (here, target))
                    continue
                if any(under(target, p) for p in JUDGE_SIDE) and room not in ("judge", "oracles") \
                        and half != "judge":
                    broken.append("%s includes %s outside a JUDGE half (#ifdef GRADE_JUDGE): what "
                                  "a case expects is compiled into judges only, never into the "
                                  "runner that holds the student's code "
                                  "(tests/graded/cases/graded.h)" % (here, target))
                    continue
                if under(target, "tests/graded"):
                    edges.setdefault(rel, set()).add(target)
                    to = target.split("/")[2]
                    if room == "cases" and len(parts) > 4 and to == "cases":
                        tparts = target.split("/")
                        if len(tparts) > 4 and tparts[3] != parts[3]:
                            broken.append("%s includes %s: a lesson's cases include only their own "
                                          "folder's files and the headers of tests/graded/cases "
                                          "(tests/graded/cases/README.md)" % (here, target))
                        continue
                    if to == room or to in may:
                        continue
                elif any(under(target, p) for p in may - rooms):
                    continue
                broken.append("%s includes %s: tests/graded/%s may include only %s (%s)"
                              % (here, target, room, ", ".join(sorted(may)) or "its own files",
                                 rule_of))
    for part in loops(edges):
        broken.append("tests/graded: %s include each other in a loop" % ", ".join(part))
    return len(rules)


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if len(argv) == 3 and argv[1] == "--root":
        root = os.path.abspath(argv[2])
    elif len(argv) != 1:
        sys.exit("usage: check_includes.py [--root DIR]")
    broken = []
    folders = check_lib(root, broken)
    rooms = check_sim(root, broken)
    check_doors(root, broken)
    graded = check_graded(root, broken)
    for b in broken:
        print("check_includes: " + b)
    if broken:
        return 1
    print("check_includes: lib/ keeps its layers (%d folders); the simulator's %d rooms keep "
          "their rules (lib/cudasim); the grader's %d rooms of code keep theirs, each half of a "
          "case its side (tests/graded)" % (folders, rooms, graded))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
