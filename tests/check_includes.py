#!/usr/bin/env python3
"""The include rules of lib/ (lib/README.md): each folder of lib may include its own
headers and those its README's "May include:" line names, and nothing else of lib.

    python3 tests/check_includes.py        # exit 1 and one line per broken rule
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIB = os.path.join(ROOT, "lib")
INCLUDE = re.compile(r'^\s*#\s*include\s+"lib/([a-z_]+)/([^"]+)"', re.M)
SKIP = {"cudasim"}  # the simulator, a program part of its own (docs/simulator.md)


def rules():
    out = {}
    for folder in sorted(os.listdir(LIB)):
        readme = os.path.join(LIB, folder, "README.md")
        if folder in SKIP or not os.path.isdir(os.path.join(LIB, folder)):
            continue
        if not os.path.exists(readme):
            sys.exit("check_includes: lib/%s has no README.md saying what it may include" % folder)
        m = re.search(r"^May include:\s*(.+)$", open(readme, encoding="utf-8").read(), re.M)
        if not m:
            sys.exit("check_includes: lib/%s/README.md has no 'May include:' line" % folder)
        out[folder] = {f.strip() for f in m.group(1).split(",")}
    return out


def main():
    allowed = rules()
    broken = []
    for folder, may in allowed.items():
        for name in sorted(os.listdir(os.path.join(LIB, folder))):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(LIB, folder, name)
            text = open(path, encoding="utf-8").read()
            for m in INCLUDE.finditer(text):
                target = m.group(1)
                line = text.count("\n", 0, m.start()) + 1
                if target in SKIP and name == "backend_cuda.c":
                    continue  # the CUDA backend, built for the simulator, asks it for reports
                if target not in may:
                    broken.append("lib/%s/%s:%d includes lib/%s/%s: lib/%s may include only %s "
                                  "(lib/%s/README.md)" % (folder, name, line, target, m.group(2),
                                                          folder, ", ".join(sorted(may)), folder))
    for b in broken:
        print("check_includes: " + b)
    if broken:
        return 1
    print("check_includes: lib/ keeps its layers (%d folders)" % len(allowed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
