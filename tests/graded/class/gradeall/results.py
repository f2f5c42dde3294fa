"""One submission's result, as the class report reads it: OUT/KEY's submission.json,
make grade's results.json (Gradescope's format: one entry per graded case) and its
compile_NN.status and compile_NN.log (tests/graded/judge/driver.c)."""
import json
import os
import re

from . import fileio
from .run import read_record

TIMED_OUT = "timed out after"
LOG_READ = 1 << 20  # the first bytes of a compile log read for its first error


def lesson_state(folder, lesson):
    """How lesson NN of a graded submission went: (state, first line of why)."""
    def read(name):
        try:
            return fileio.read(os.path.join(folder, name), "compile log", LOG_READ,
                               part="head").decode("utf-8", "replace")
        except fileio.FileError:
            return None
    status, log = read("compile_%s.status" % lesson), read("compile_%s.log" % lesson) or ""
    if status is None:
        return "not graded", ""
    if status.strip() == "0":
        return "graded", ""
    lines = [l.strip() for l in log.splitlines() if l.strip()]
    for state, mark in (("refused by the grader", "refused:"), ("not handed in", "not handed in")):
        hit = [l for l in lines if mark in l]
        if hit:
            return state, hit[0]
    errors = [l for l in lines if re.search(r"\berror\b", l)] or \
        [l for l in lines if not re.match(r"(CC|CXX|CHECK|LINK|CU2SIM|NVCC|AR)\s|make", l)]
    return "does not compile", errors[0] if errors else ""


def read_result(folder):
    """A dict for the report, or None when folder holds no complete result:
    status ('graded' or 'refused'), score, max_score, notes, refused, lessons {NN: {score,
    max, state, why}}, exercises [{id, function, score, max, passed, failure}] in the
    grader's order, timeouts [exercise id and function]."""
    rec = read_record(folder)
    if rec is None:
        return None
    res = {"status": rec["status"], "notes": rec.get("notes", []), "refused": rec.get("refused"),
           "score": rec.get("score", 0.0), "max_score": rec.get("max_score", 0.0),
           "lessons": {}, "exercises": [], "timeouts": []}
    if rec["status"] != "graded":
        return res
    try:
        tests = json.loads(fileio.read(os.path.join(folder, "results.json"), "results")).get("tests", [])
    except (fileio.FileError, ValueError, RecursionError, AttributeError):
        return None
    states = {l: lesson_state(folder, l) for l in rec.get("lessons", [])}
    by_id = {}
    for t in tests:
        num = str(t.get("number", ""))
        lesson = num[:2]
        m = re.match(r"ex\S+ ([^:]*):", t.get("name", ""))
        ex = by_id.get(num)
        if ex is None:
            ex = by_id[num] = {"id": num, "function": m.group(1) if m else "", "score": 0.0,
                               "max": 0.0, "passed": True, "failure": None}
            res["exercises"].append(ex)
        ex["score"] += float(t.get("score", 0))
        ex["max"] += float(t.get("max_score", 0))
        state = states.get(lesson, ("graded", ""))[0]
        if t.get("status") != "passed":
            ex["passed"] = False
            if ex["failure"] is None:
                ex["failure"] = str(t.get("output", "")) if state == "graded" else state
            if state == "graded" and TIMED_OUT in str(t.get("output", "")):
                res["timeouts"].append("%s %s" % (num, ex["function"]))
        les = res["lessons"].setdefault(lesson, {"score": 0.0, "max": 0.0, "state": state,
                                                 "why": states.get(lesson, ("", ""))[1]})
        les["score"] += float(t.get("score", 0))
        les["max"] += float(t.get("max_score", 0))
    return res
