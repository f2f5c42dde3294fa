#!/usr/bin/env python3
"""tests/check_includes.py must catch each way of breaking the rules it states: on a
copy of lib/ and the grader (tests/graded), each case below plants one break and expects
its line (and exit 1); the untouched copy must pass, and so must a change the rules allow.

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
    # the grader (tests/graded)
    ("the judge includes the runner",
     [("tests/graded/judge/driver.c", '#include "../runner/runner.h"\n')],
     "tests/graded/judge/driver.c:%d includes tests/graded/runner/runner.h: the judge's side "
     "(judge/, oracles/) never includes the student's side"),
    ("the judge includes the runner, its README opened to it",
     [("tests/graded/judge/README.md", ("May include: protocol, sandbox, lib/core",
                                        "May include: protocol, sandbox, lib/core, runner")),
      ("tests/graded/judge/judge.c", '#include "../runner/student.h"\n')],
     "tests/graded/judge/judge.c:%d includes tests/graded/runner/student.h: the judge's side "
     "(judge/, oracles/) never includes the student's side"),
    ("an oracle includes the kernels",
     [("tests/graded/oracles/oracle_mlp.c", '#include "kernels/kernels.h"\n')],
     "tests/graded/oracles/oracle_mlp.c:%d includes kernels/kernels.h: the judge's side"),
    ("a case includes an oracle outside its JUDGE half",
     [("tests/graded/cases/01/ex01_8_sgd.c", '#include "../../oracles/oracle_mlp.h"\n')],
     "tests/graded/cases/01/ex01_8_sgd.c:%d includes tests/graded/oracles/oracle_mlp.h outside "
     "a JUDGE half"),
    ("a case includes the runner in its JUDGE half",
     [("tests/graded/cases/05/ex05_1_grad_scaler_update.c",
       '#ifdef GRADE_JUDGE\n#include "../../runner/student.h"\n#endif\n')],
     "includes tests/graded/runner/student.h outside a RUN half"),
    ("a case includes the judge in an #else of its RUN half",
     [("tests/graded/cases/04/ex04_1_counter_call.c",
       '#ifndef GRADE_JUDGE\n#else\n#include "../../judge/judge.h"\n#endif\n')],
     None),  # the #else of "not the judge" is the judge's half: allowed
    ("a case includes the answers",
     [("tests/graded/cases/01/ex01_8_sgd.c", '#include "solutions/01_cpu_baseline/exercises.c"\n')],
     "tests/graded/cases/01/ex01_8_sgd.c:%d includes solutions/01_cpu_baseline/exercises.c: "
     "nothing of the grader compiles in a student's file or the answers"),
    ("a room of the grader includes a room its README leaves out",
     [("tests/graded/sandbox/confine.c", '#include "../protocol/protocol.h"\n')],
     "tests/graded/sandbox/confine.c:%d includes tests/graded/protocol/protocol.h: "
     "tests/graded/sandbox may include only lib/core"),
    ("a file of the grader named from the root",
     [("tests/graded/runner/student.c", '#include "tests/graded/protocol/protocol.h"\n')],
     'tests/graded/runner/student.c:%d includes "tests/graded/protocol/protocol.h" by its path '
     "from the root"),
    ("a lesson's cases include another lesson's",
     [("tests/graded/cases/03/ex03_1_train_logged.c", '#include "../02/suite.h"\n')],
     "tests/graded/cases/03/ex03_1_train_logged.c:%d includes tests/graded/cases/02/suite.h: a "
     "lesson's cases include only their own folder's files"),
    ("two files of the grader that include each other",
     [("tests/graded/protocol/protocol.h", '#include "drawn.h"\n')],
     "tests/graded: tests/graded/protocol/drawn.h, tests/graded/protocol/protocol.h include "
     "each other in a loop"),
    ("a file left at the top of tests/graded",
     [("tests/graded/helpers.c", '#include "protocol/protocol.h"\n')],
     "tests/graded/helpers.c stands at the top of tests/graded, where only README.md does"),
    ("a grader room's README that names neither a room nor a path",
     [("tests/graded/judge/README.md", ("May include: protocol, sandbox, lib/core",
                                        "May include: protocol, sandbox, lib/core, verdicts"))],
     "names verdicts, which is no room of tests/graded"),
]


def copy_tree(tmp):
    shutil.copytree(os.path.join(ROOT, "lib"), os.path.join(tmp, "lib"))
    os.makedirs(os.path.join(tmp, "tests", "sim"))
    for part in ("kernels", os.path.join("tests", "common"), os.path.join("tests", "graded")):
        shutil.copytree(os.path.join(ROOT, part), os.path.join(tmp, part),
                        ignore=shutil.ignore_patterns("__pycache__"))


def plant(tmp, path, text):
    full = os.path.join(tmp, path)
    if isinstance(text, tuple):  # a README's line replaced: (old, new)
        body = open(full, encoding="utf-8").read()
        assert text[0] in body, (path, text[0])
        open(full, "w", encoding="utf-8").write(body.replace(text[0], text[1]))
        return 0
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
            failed.append("the untouched copy of lib/ and tests/graded is refused:\n" + out)
    for what, plants, want in CASES:
        with tempfile.TemporaryDirectory() as tmp:
            copy_tree(tmp)
            line = 0
            for path, text in plants:
                line = plant(tmp, path, text)
            rc, out = run(tmp)
            if want is None:  # a change the rules allow: the tree must still pass
                if rc != 0:
                    failed.append("%s: refused, but the rules allow it:\n  %s"
                                  % (what, out.strip().replace("\n", "\n  ")))
                continue
            expect = want % line if "%d" in want else want
            if rc == 0 or expect not in out:
                failed.append("%s: not caught (exit %d); wanted\n  %s\ngot\n  %s"
                              % (what, rc, expect, out.strip().replace("\n", "\n  ")))
    for f in failed:
        print("check_includes_test: " + f)
    if failed:
        return 1
    breaks = sum(1 for c in CASES if c[2] is not None)
    print("check_includes_test: all %d ways of breaking the include rules are caught, and the "
          "tree as it is passes (and %d change the rules allow)" % (breaks, len(CASES) - breaks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
