#!/usr/bin/env python3
"""tests/check_includes.py must catch each way of breaking the rules it states: on a
copy of lib/, each case below plants one break and expects its line (and exit 1); the
untouched copy must pass.

    python3 tests/check_includes_test.py     # exit 1 and the cases that were not caught
"""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHECK = os.path.join(ROOT, "tests", "check_includes.py")

# (what is broken, [(file, text appended)], what the report must say)
CASES = [
    ("a room includes a room its README leaves out",
     [("lib/cudasim/profile/profile_gpu.cpp", '#include "../check/check_races.h"\n')],
     "lib/cudasim/profile/profile_gpu.cpp:%d includes lib/cudasim/check/check_races.h: "
     "lib/cudasim/profile may include only cudasim.h, include, internal.h"),
    ("a header at the top includes a room its line leaves out",
     [("lib/cudasim/internal.h", '#include "profile/profile.h"\n')],
     "includes lib/cudasim/profile/profile.h: the top of lib/cudasim may include only exec, include"),
    ("a public header includes the runtime's internals",
     [("lib/cudasim/include/curand.h", '#include "../internal.h"\n')],
     "lib/cudasim/include/curand.h:%d includes lib/cudasim/internal.h: lib/cudasim/include "
     "may include only include"),
    ("an include named as if by -I, not relative to the file",
     [("lib/cudasim/runtime/memory.cpp", '#include "internal.h"\n')],
     'lib/cudasim/runtime/memory.cpp:%d includes "internal.h", which is no file beside it'),
    ("an include outside lib/cudasim",
     [("lib/cudasim/check/report.cpp", '#include "../../core/err.h"\n')],
     'lib/cudasim/check/report.cpp:%d includes "../../core/err.h", outside lib/cudasim'),
    ("two files of one room that include each other",
     [("lib/cudasim/profile/warp_access.h", '#include "profile.h"\n'),
      ("lib/cudasim/profile/profile.h", '#include "warp_access.h"\n')],
     "lib/cudasim: profile/profile.h, profile/warp_access.h include each other in a loop"),
    ("code outside lib/cudasim through a door that is not one",
     [("tests/sim/planted.c", '#include "lib/cudasim/internal.h"\n')],
     "tests/sim/planted.c:1 includes lib/cudasim/internal.h: from outside, the simulator is "
     "entered only by cudasim.h, include/, profile/warp_access.h"),
    ("a folder of lib that includes one above it",
     [("lib/core/err.h", '#include "lib/device/tensor.h"\n')],
     "lib/core/err.h:%d includes lib/device/tensor.h: lib/core may include only core"),
    ("a source file left at the top, outside every room",
     [("lib/cudasim/new_api.cpp", '#include "internal.h"\n')],
     "lib/cudasim/new_api.cpp stands at the top of lib/cudasim, where only README.md, "
     "cudasim.h, internal.h do: move it into the room of its concept"),
    ("a room's README that names no room",
     [("lib/cudasim/libs/README.md", "")],
     "names kernel, which is no room or header at the top of lib/cudasim"),
]


def copy_tree(tmp):
    shutil.copytree(os.path.join(ROOT, "lib"), os.path.join(tmp, "lib"))
    os.makedirs(os.path.join(tmp, "tests", "sim"))


def plant(tmp, path, text):
    full = os.path.join(tmp, path)
    if path.endswith("README.md"):  # the case of a README: its rule names a room that is not
        body = open(full, encoding="utf-8").read()
        body = body.replace("May include: internal.h, include, profile",
                            "May include: internal.h, include, profile, kernel")
        open(full, "w", encoding="utf-8").write(body)
        return 0
    old = open(full, encoding="utf-8").read() if os.path.exists(full) else ""
    open(full, "w", encoding="utf-8").write(old + text)
    return old.count("\n") + 1  # the line the planted include lands on


def run(tmp):
    p = subprocess.run([sys.executable, CHECK, "--root", tmp], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def main():
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        copy_tree(tmp)
        rc, out = run(tmp)
        if rc != 0:
            failed.append("the untouched copy of lib/ is refused:\n" + out)
    for what, plants, want in CASES:
        with tempfile.TemporaryDirectory() as tmp:
            copy_tree(tmp)
            line = 0
            for path, text in plants:
                line = plant(tmp, path, text)
            expect = want % line if "%d" in want else want
            rc, out = run(tmp)
            if rc == 0 or expect not in out:
                failed.append("%s: not caught (exit %d); wanted\n  %s\ngot\n  %s"
                              % (what, rc, expect, out.strip().replace("\n", "\n  ")))
    for f in failed:
        print("check_includes_test: " + f)
    if failed:
        return 1
    print("check_includes_test: all %d ways of breaking the include rules are caught, and the "
          "tree as it is passes" % len(CASES))
    return 0


if __name__ == "__main__":
    sys.exit(main())
