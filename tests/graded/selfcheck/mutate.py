#!/usr/bin/env python3
"""Mutation check of the graded suites: does each one notice a broken answer?

    python3 tests/graded/selfcheck/mutate.py                 # every mutant (about 10 minutes)
    python3 tests/graded/selfcheck/mutate.py --sample 24     # a fixed sample (CI)
    python3 tests/graded/selfcheck/mutate.py --lesson 03     # one lesson's answers
    python3 tests/graded/selfcheck/mutate.py --function train_step_accumulated   # one exercise's
    python3 tests/graded/selfcheck/mutate.py --list          # the mutants, without grading

A mutant is a copy of one answer file (solutions/NN_name/exercises.c or .cu)
with one small change inside a function body: a comparison flipped (< to <=,
== to !=), an operator swapped (+ to -, && to ||), a constant changed, a
+ 1 or - 1 dropped, or one statement deleted. Each is graded with
`make grade LESSON=NN STUDENT_DIR=...`; it is killed when it loses a point,
stillborn when it does not compile (not counted), and it survives when it gets
full marks. A surviving mutant is a hole in the suite, unless it is listed in
tests/graded/selfcheck/equivalent_mutants.txt with the reason it cannot change any
result. The exit status is 1 when a mutant survives that is not listed there.
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
WORK = os.path.join("build", "mutants")
EQUIVALENT = os.path.join(ROOT, "tests", "graded", "selfcheck", "equivalent_mutants.txt")

# (name, pattern, replacement): applied at one match at a time.
OPERATORS = [
    ("lt->le", r"(?<![<>=!])<(?![<=])", "<="),
    ("le->lt", r"<=", "<"),
    ("gt->ge", r"(?<![-<>=!])>(?![>=])", ">="),
    ("ge->gt", r">=", ">"),
    ("eq->ne", r"==", "!="),
    ("ne->eq", r"!=", "=="),
    ("and->or", r"&&", "||"),
    ("or->and", r"\|\|", "&&"),
    ("plus->minus", r"(?<=\s)\+(?=\s)", "-"),
    ("minus->plus", r"(?<=\s)-(?=\s)", "+"),
    ("times->div", r"(?<=\s)\*(?=\s)", "/"),
    ("drop+1", r"\s\+\s1\b(?!\.)", ""),
    ("drop-1", r"\s-\s1\b(?!\.)", ""),
    ("0->1", r"(?<![\w.])0(?![\w.x])", "1"),
    ("1->0", r"(?<![\w.])1(?![\w.])", "0"),
    ("inc->dec", r"\+\+", "--"),
    ("true->false", r"\btrue\b", "false"),
    ("false->true", r"\bfalse\b", "true"),
]


def answer_files(lesson):
    out = []
    for folder in sorted(os.listdir(os.path.join(ROOT, "solutions"))):
        if lesson and not folder.startswith(lesson):
            continue
        for name in ("exercises.c", "exercises.cu"):
            path = os.path.join("solutions", folder, name)
            if os.path.exists(os.path.join(ROOT, path)):
                out.append((folder, name, path))
    return out


def bodies(lines):
    """Indexes of the lines inside function bodies (between a line '{' and '}')."""
    inside, out = False, []
    for i, line in enumerate(lines):
        if line.startswith("{"):
            inside = True
            continue
        if line.startswith("}"):
            inside = False
            continue
        if inside:
            out.append(i)
    return out


def function_of(lines, i):
    """The name of the function whose body holds line i: the first identifier followed by
    '(' on the signature's first line (the last line before the body's '{' that starts in
    column 0)."""
    j = i
    while j > 0 and not lines[j].startswith("{"):
        j -= 1
    while j > 0:
        j -= 1
        if lines[j][:1].strip() and not lines[j].startswith(("}", "#", "/*", " *")):
            m = re.search(r"(\w+)\s*\(", lines[j])
            if m:
                return m.group(1)
    return ""


def strip_comment(line):
    cut = len(line)
    for mark in ("/*", "//"):
        k = line.find(mark)
        if k >= 0:
            cut = min(cut, k)
    return line[:cut]


def mutants():
    """Every mutant: (id, folder, file, path, line index, new line)."""
    out = []
    for folder, name, path in answer_files(None):
        lines = open(os.path.join(ROOT, path), encoding="utf-8").read().split("\n")
        for i in bodies(lines):
            line = lines[i]
            code = strip_comment(line)
            if not code.strip() or code.lstrip().startswith("#"):
                continue
            # Strings are left alone: mutate only outside quotes.
            masked = re.sub(r'"(\\.|[^"\\])*"', lambda m: "\0" * len(m.group(0)), code)
            for op, pattern, repl in OPERATORS:
                for m in re.finditer(pattern, masked):
                    new = line[:m.start()] + repl + line[m.end():]
                    out.append(("%s:%d:%d:%s" % (path, i + 1, m.start() + 1, op),
                                folder, name, path, i, new))
            stripped = code.strip()
            if (stripped.endswith(";") and not stripped.startswith(("return", "int ", "float ",
                "(void)",
                "double ", "long ", "int64_t ", "const ", "bool ", "char ", "Value ",
                "Tensor ", "unsigned ", "size_t ", "for ", "if ", "}", "else"))
                    and stripped.count(";") == 1):
                indent = line[:len(line) - len(line.lstrip())]
                out.append(("%s:%d:1:delete" % (path, i + 1), folder, name, path, i,
                            indent + "; /* deleted: " + stripped.replace("*/", "* /") + " */"))
    return out


def equivalent():
    known = {}
    if os.path.exists(EQUIVALENT):
        for line in open(EQUIVALENT, encoding="utf-8"):
            line = line.strip()
            if line and not line.startswith("#"):
                mid, _, why = line.partition(" ")
                known[mid] = why.strip()
    return known


def grade(mutant, index):
    mid, folder, name, path, i, new = mutant
    dst = os.path.join(ROOT, WORK, "m%04d" % index, folder)
    shutil.rmtree(os.path.dirname(dst), ignore_errors=True)
    shutil.copytree(os.path.join(ROOT, "solutions", folder), dst)
    lines = open(os.path.join(ROOT, path), encoding="utf-8").read().split("\n")
    lines[i] = new
    with open(os.path.join(dst, name), "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    out = os.path.join(WORK, "m%04d" % index, "grade")
    p = subprocess.run(["make", "--no-print-directory", "grade", "LESSON=" + folder[:2],
                        "STUDENT_DIR=" + os.path.dirname(dst), "GRADE_OUT=" + out],
                       cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       errors="replace")
    if p.returncode != 0:
        return "error", p.stdout[-2000:]
    status = open(os.path.join(ROOT, out, "compile_%s.status" % folder[:2])).read().strip()
    if status != "0":
        return "stillborn", ""
    score, max_score = open(os.path.join(ROOT, out, "score.txt")).read().split()
    if float(score) < float(max_score):
        return "killed", "%s/%s" % (score, max_score)
    return "survived", "%s/%s" % (score, max_score)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sample", type=int, help="grade this many mutants, a fixed sample")
    ap.add_argument("--seed", type=int, default=37, help="the sample's seed (default 37)")
    ap.add_argument("--lesson", help="only this lesson's answers (01, 02, ...)")
    ap.add_argument("--function", help="only the mutants inside this function's body")
    ap.add_argument("--list", action="store_true", help="list the mutants and stop")
    args = ap.parse_args()
    every = [m for m in mutants() if not args.lesson or m[1].startswith(args.lesson)]
    if args.function:
        texts = {}
        for m in every:
            texts.setdefault(m[3], open(os.path.join(ROOT, m[3]), encoding="utf-8").read()
                             .split("\n"))
        every = [m for m in every if function_of(texts[m[3]], m[4]) == args.function]
    chosen = every
    if args.sample and args.sample < len(every):
        chosen = sorted(random.Random(args.seed).sample(every, args.sample))
    if args.list:
        for m in chosen:
            print("%s\n    %s" % (m[0], m[5].strip()))
        print("%d mutants" % len(chosen))
        return 0
    known = equivalent()
    shutil.rmtree(os.path.join(ROOT, WORK), ignore_errors=True)
    counts = {"killed": 0, "survived": 0, "stillborn": 0, "equivalent": 0}
    holes = []
    for k, m in enumerate(chosen):
        verdict, detail = grade(m, k)
        if verdict == "error":
            print("mutate: make grade failed on %s:\n%s" % (m[0], detail))
            return 2
        if verdict == "survived" and m[0] in known:
            verdict = "equivalent"
        counts[verdict] += 1
        if verdict == "survived":
            holes.append(m)
        print("mutate: [%3d/%d] %-10s %s  %s" % (k + 1, len(chosen), verdict, m[0],
                                                 m[5].strip()[:70]), flush=True)
    live = counts["killed"] + counts["survived"]
    print("\nmutate: %d mutants: %d killed, %d survived, %d equivalent (listed), "
          "%d stillborn (did not compile)" % (len(chosen), counts["killed"], counts["survived"],
                                               counts["equivalent"], counts["stillborn"]))
    if live:
        print("mutate: mutation score %.1f%% (killed / (killed + survived))"
              % (100.0 * counts["killed"] / live))
    for m in holes:
        print("mutate: SURVIVED %s\n    %s" % (m[0], m[5].strip()))
    return 1 if holes else 0


if __name__ == "__main__":
    sys.exit(main())
