#!/usr/bin/env python3
"""
try.py: the exercises `make try EX=NN.N` runs: yours for exercise NN.N, the answers for
every other one.

    python3 lessons/try.py EX STUDENT_DIR OUT_DIR

Writes OUT_DIR/NN_name/exercises.c (and .cu) for every lesson, a folder laid out as
lessons/ is (make's STUDENT_DIR), and prints the number of the part that runs exercise
NN.N. Other lessons' files are copies of solutions/. In lesson NN, the file that does
not hold the exercise is the answers'; the one that holds it is

  - for a CUDA exercise (exercises.cu holds one): a copy of yours, whose reports name
    your file (a #line directive at its top);
  - for a C exercise: a file that includes the answers' exercises.c with the exercise's
    functions (and the answers' static helpers and macros) renamed away, and then yours,
    with the lesson's other exercises renamed away. The exercise compiles against its
    declaration in lib, and its warnings and errors name your file and line.

Which functions an exercise is comes from lib's headers (the "@brief Exercise NN.N"
comments above the declarations), which a student does not edit. A file is rewritten
only when its content changes, so make rebuilds only what changed. Bad input: one line
on standard error, exit status 2, nothing written.
"""
import glob
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def exercise_functions():
    """{exercise: [functions]} from the exercises' declarations in lib/ and kernels/."""
    out = {}
    headers = glob.glob(os.path.join(ROOT, "lib", "**", "*.h"), recursive=True) + \
        glob.glob(os.path.join(ROOT, "kernels", "*.h"))
    for h in sorted(headers):
        text = open(h, encoding="utf-8").read()
        for m in re.finditer(r"@brief Exercise (\d\d\.\d)\b[^*]*(?:\*(?!/)[^*]*)*\*/\s*"
                             r"([^;{]*?)\b([a-z_]\w*)\s*\(", text):
            out.setdefault(m.group(1), [])
            if m.group(3) not in out[m.group(1)]:
                out[m.group(1)].append(m.group(3))
    return out


def defines(text, function):
    """True when the C text defines the function (its parameter list, then a body)."""
    return re.search(r"^[^\n;#]*\b%s\s*\([^;{]*\)\s*\{" % re.escape(function), text,
                     flags=re.M) is not None


def write(path, text):
    if os.path.isfile(path) and open(path, encoding="utf-8", errors="replace").read() == text:
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(path + ".tmp", path)


def shown_path(path):
    """A path as a message shows it: from the repository's root when it is inside."""
    return os.path.relpath(path, ROOT) if path.startswith(ROOT + os.sep) else path


def quoted(path):
    """A path in a C string (#include, #line)."""
    return path.replace("\\", "\\\\").replace('"', '\\"')


def mixed_c(ex, functions, others, answers_path, yours_path, answers_text, yours_text):
    """The wrapper of a C exercise: the answers without `functions`, then yours with only
    `functions` under their names."""
    headers = []
    for text in (answers_text, yours_text):
        for h in re.findall(r'^\s*#\s*include\s*([<"][^>"]+[>"])', text, flags=re.M):
            if h not in headers:
                headers.append(h)
    statics = re.findall(r"^static\b[^;(=]*?\b([a-z_A-Z]\w*)\s*\(", answers_text, flags=re.M)
    macros = re.findall(r"^\s*#\s*define\s+(\w+)", answers_text, flags=re.M)
    renamed = functions + [s for s in statics if s not in functions]
    lines = ["/*",
             " * make try EX=%s: exercise %s (%s) from" % (ex, ex, ", ".join(functions)),
             " * %s," % shown_path(yours_path),
             " * the lesson's other exercises from the answers (%s)."
             % shown_path(answers_path),
             " * lessons/try.py writes this file again at every make try: edit your own.",
             " */"]
    # Every declaration first, under its own name: your functions are checked against it.
    lines += ["#include %s" % h for h in headers]
    lines.append("/* The answers, but for exercise %s. */" % ex)
    lines += ["#define %s try_answer_%s" % (f, f) for f in renamed]
    lines.append('#include "%s"' % quoted(answers_path))
    lines += ["#undef %s" % f for f in renamed]
    lines += ["#undef %s" % m for m in macros]
    lines.append("/* Yours: exercise %s, the lesson's other exercises renamed away. */" % ex)
    lines += ["#define %s try_yours_%s" % (f, f) for f in others]
    lines.append('#include "%s"' % quoted(yours_path))
    return "\n".join(lines) + "\n"


def fail(message):
    print("make try: " + message, file=sys.stderr)
    sys.exit(2)


def main():
    if len(sys.argv) != 4:
        fail("usage: python3 lessons/try.py EX STUDENT_DIR OUT_DIR")
    ex, student_dir, out_dir = sys.argv[1], sys.argv[2], sys.argv[3]
    if not ex:
        fail("EX is not set: make try EX=02.4 runs exercise 02.4 (an exercise is its "
             "lesson, a dot and its number)")
    if any(ord(c) < 32 or c == "\x7f" for c in student_dir):
        fail("STUDENT_DIR=%s: a folder whose name holds a control character cannot be "
             "#included; copy it to a plain name" % student_dir.encode("unicode_escape")
             .decode("ascii"))
    table = exercise_functions()
    if ex not in table:
        shown = ex.encode("unicode_escape").decode("ascii")
        fail("EX=%s: there is no exercise %s (the exercises: %s)"
             % (shown, shown, " ".join(sorted(table))))
    functions = table[ex]
    lessons = sorted(os.path.basename(d) for d in glob.glob(os.path.join(ROOT, "solutions",
                                                                          "[0-9][0-9]_*")))
    folder = next((l for l in lessons if l.startswith(ex[:2] + "_")), None)
    if not folder:
        fail("EX=%s: no lesson folder %s_* in solutions/" % (ex, ex[:2]))
    yours_dir = os.path.join(student_dir if os.path.isabs(student_dir)
                             else os.path.join(ROOT, student_dir), folder)
    # Every lesson but this one: the answers.
    for lesson in lessons:
        for name in ("exercises.c", "exercises.cu"):
            src = os.path.join(ROOT, "solutions", lesson, name)
            if os.path.isfile(src) and lesson != folder:
                write(os.path.join(out_dir, lesson, name), open(src, encoding="utf-8").read())
    # This lesson: the file with the exercise mixed, the other the answers'.
    placed = False
    for name in ("exercises.c", "exercises.cu"):
        answers_path = os.path.join(ROOT, "solutions", folder, name)
        if not os.path.isfile(answers_path):
            continue
        answers = open(answers_path, encoding="utf-8").read()
        target = os.path.join(out_dir, folder, name)
        if not all(defines(answers, f) for f in functions):
            write(target, answers)
            continue
        yours_path = os.path.join(yours_dir, name)
        if not os.path.isfile(yours_path):
            fail("EX=%s: %s is not there (exercise %s is in it)"
                 % (ex, os.path.relpath(yours_path, ROOT), ex))
        yours = open(yours_path, encoding="utf-8", errors="replace").read()
        shown = shown_path(yours_path)
        if name.endswith(".cu"):
            # A CUDA file is translated for the simulator as a whole: a copy, named as yours.
            write(target, '#line 1 "%s"\n%s' % (quoted(shown), yours))
        else:
            others = [f for e, fs in table.items() if e[:2] == ex[:2] and e != ex for f in fs
                      if defines(answers, f)]
            write(target, mixed_c(ex, functions, others, answers_path, yours_path, answers,
                                  yours))
        placed = True
    if not placed:
        fail("EX=%s: no file of solutions/%s defines %s" % (ex, folder, ", ".join(functions)))
    print(int(ex[:2]))


if __name__ == "__main__":
    main()
