#!/usr/bin/env python3
"""The include rules of lib/ and of the CUDA simulator, as their READMEs state them.

lib/ (lib/README.md): each folder of lib may include its own headers and those its
README's "May include:" line names, and nothing else of lib.

lib/cudasim/ (lib/cudasim/README.md): each room (a folder) may include its own files
and those its README's "May include:" line names: other rooms by folder name, the
headers at the top of lib/cudasim by file name. The headers at the top follow the
line of lib/cudasim/README.md, and no other file stands at the top. A file names
what it includes relative to itself; no files include each other in a loop; and from
outside lib/cudasim the simulator is entered only by its doors (cudasim.h, include/,
profile/warp_access.h).

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
    for b in broken:
        print("check_includes: " + b)
    if broken:
        return 1
    print("check_includes: lib/ keeps its layers (%d folders); the simulator's %d rooms keep "
          "their rules (lib/cudasim)" % (folders, rooms))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
