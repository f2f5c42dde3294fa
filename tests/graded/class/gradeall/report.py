"""What grade-all and grade-report write from the results in OUT:

  summary.csv    student, score, max_score, status, submission: one line per submission
  gradebook.csv  one line per student (each submitter of a group submission): student, id,
                 (email), one column per lesson, total; column names configurable
  report.html    one page, figures inline: the distribution of totals, the pass rate of
                 every exercise, the most common first failure of each, the lessons not
                 graded and the cases that timed out, every student's points (sortable)

Names are shown as shown.py writes them (one line, every character visible, bytes that
are not UTF-8 as \\xNN), and a CSV cell that a spreadsheet would read as a formula (a
name starting with =, +, -, @) starts with ' and is quoted. Each file is saved through
fileio.save(): a new file renamed into place, a failed write an error.

Everything is computed from the results alone, in the submissions' order, with no time
or path of this run in it: the same results give the same files, byte for byte, whether
they were graded in one run or in shards.
"""
import base64
import html
import os
import re
import shutil
import statistics
import subprocess
import tempfile
from collections import Counter
from urllib.parse import quote

from . import fileio, shown
from .results import read_result
from .run import UsageError

HERE = os.path.dirname(os.path.abspath(__file__))


def _h(text):
    """Text for the page: every character visible (shown.escape), then HTML-escaped."""
    return html.escape(shown.escape(text))


class Row:
    def __init__(self, sub, res, failed):
        self.sub, self.res = sub, res
        self.status = res["status"] if res else ("failed" if failed else "missing")

    def total(self):
        """(score, max) or None when not graded."""
        if self.status == "graded":
            return self.res["score"], self.res["max_score"]
        return (0.0, None) if self.status == "refused" else None


def collect(out, cls):
    """The class's rows: each submission with its result in OUT, if any."""
    return [Row(s, read_result(os.path.join(out, s.key)),
                os.path.exists(os.path.join(out, ".failed", s.key + ".log")))
            for s in cls.submissions]


def pattern(message):
    """A failure message with what differs between students taken out, so that alike
    failures group: the first line, paths as <path>, numbers as N."""
    line = next((l.strip() for l in (message or "").splitlines() if l.strip()), "")[:300]
    line = re.sub(r"(?:[\w.+@~-]*/)+[\w.+@~-]*", "<path>", line)
    line = re.sub(r"(?<![A-Za-z_])(?:0x[0-9a-fA-F]+|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)",
                  "N", line)
    return re.sub(r"\s+", " ", line).strip() or "(no message)"


def _fmt(x):
    return "" if x is None else "%g" % x


# ---- summary and gradebook -----------------------------------------------------------------

def write_summary(out, rows):
    lines = [shown.csv_row(["student", "score", "max_score", "status", "submission"])]
    for r in rows:
        t = r.total()
        lines.append(shown.csv_row([r.sub.name, _fmt(t and t[0]), _fmt(t and t[1]), r.status,
                                    r.sub.key]))
    fileio.save(os.path.join(out, "summary.csv"), "".join(lines), "class summary")


def gradebook_columns(spec, lessons, has_email):
    """[(field, column name)]: student, id, (email), the lessons, total, renamed or left
    out by GRADEBOOK_COLUMNS ("01=Lab 1 (4411),total=Day 37,email=")."""
    cols = [("student", "student"), ("id", "id")] + ([("email", "email")] if has_email else []) + \
        [(l, "lesson " + l) for l in lessons] + [("total", "total")]
    known = dict(cols)
    for item in [i for i in (spec or "").split(",") if i.strip()]:
        field, eq, name = item.partition("=")
        field = field.strip()
        if not eq or field not in known:
            raise UsageError("GRADEBOOK_COLUMNS: %r is not FIELD=NAME with FIELD one of %s (an "
                             "empty NAME leaves the column out)" % (item, ", ".join(known)))
        known[field] = name.strip()
    return [(f, known[f]) for f, _ in cols if known[f]]


def write_gradebook(out, rows, lessons, spec):
    has_email = any(p.get("email") for r in rows for p in r.sub.people)
    cols = gradebook_columns(spec, lessons, has_email)
    lines = [shown.csv_row([name for _, name in cols])]
    for r in rows:
        t = r.total()
        for p in r.sub.people:
            vals = {"student": p.get("name", ""), "id": p.get("id", ""), "email": p.get("email", ""),
                    "total": _fmt(t and t[0])}
            for l in lessons:
                if r.status == "graded" and l in r.res["lessons"]:
                    vals[l] = _fmt(r.res["lessons"][l]["score"])
                else:
                    vals[l] = "0" if r.status == "refused" else ""
            lines.append(shown.csv_row([vals[f] for f, _ in cols]))
    fileio.save(os.path.join(out, "gradebook.csv"), "".join(lines), "gradebook")


# ---- figures -------------------------------------------------------------------------------

def _plot(script, data, title, tmp):
    """A PNG drawn by gnuplot from data (text), as a data: URI; None without gnuplot."""
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        return None
    datafile, outfile = os.path.join(tmp, script + ".dat"), os.path.join(tmp, script + ".png")
    fileio.save(datafile, data, "figure's data")
    q = lambda s: "'" + s.replace("'", "") + "'"
    r = subprocess.run([gnuplot, "-e", "datafile=%s; outfile=%s; title=%s" % (
        q(datafile), q(outfile), q(title)), os.path.join(HERE, script + ".gp")],
        capture_output=True, text=True, timeout=120)
    if r.returncode != 0 or not os.path.isfile(outfile):
        return None
    try:
        png = fileio.read(outfile, "figure", 64 << 20)
    except fileio.FileError:
        return None
    return "data:image/png;base64," + base64.b64encode(png).decode()


def _figure(fid, uri, alt, caption):
    if uri is None:
        return ('<p class="missing" id="%s">No figure: gnuplot is not installed (sudo apt-get '
                'install gnuplot-nox); the table below has the numbers.</p>' % fid)
    return ('<figure id="%s"><img src="%s" alt="%s"><figcaption>%s</figcaption></figure>'
            % (fid, uri, _h(alt), caption))


# ---- the page ------------------------------------------------------------------------------

SORT_JS = """
for (const th of document.querySelectorAll('table.sortable th')) {
  th.addEventListener('click', () => {
    const body = th.closest('table').tBodies[0], col = th.cellIndex;
    const up = th.dataset.order !== 'up';
    for (const h of th.parentNode.cells) delete h.dataset.order;
    th.dataset.order = up ? 'up' : 'down';
    const key = r => { const c = r.cells[col], v = c.dataset.v !== undefined ? c.dataset.v : c.textContent;
                       return v !== '' && !isNaN(v) ? [0, Number(v)] : [1, v.toLowerCase()]; };
    const rows = Array.from(body.rows).sort((a, b) => {
      const x = key(a), y = key(b);
      const d = x[0] - y[0] || (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0);
      return up ? d : -d; });
    for (const r of rows) body.appendChild(r);
  });
}
"""

CSS = """
body { font-family: sans-serif; margin: 2em auto; max-width: 70em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #bbb; padding: 0.2em 0.6em; text-align: left; vertical-align: top; }
td.n { text-align: right; }
table.sortable th { cursor: pointer; background: #eef; }
table.sortable th[data-order=up]::after { content: " \\25b2"; }
table.sortable th[data-order=down]::after { content: " \\25bc"; }
figure { margin: 1em 0; } figure img { max-width: 100%; border: 1px solid #ddd; }
.missing, .warn { color: #a33; } code { font-size: 90%; }
"""


def _table(head, rows, cls="", tid=""):
    out = ['<table%s%s><thead><tr>%s</tr></thead><tbody>' % (
        ' class="%s"' % cls if cls else "", ' id="%s"' % tid if tid else "",
        "".join("<th>%s</th>" % _h(h) for h in head))]
    for r in rows:
        out.append("<tr>%s</tr>" % "".join(r))
    out.append("</tbody></table>")
    return "\n".join(out)


def _td(text, num=None, raw=False):
    body = text if raw else _h(str(text))
    if num is None:
        return "<td>%s</td>" % body
    return '<td class="n" data-v="%s">%s</td>' % (num, body)


def _exercises(rows):
    """Every exercise of the graded submissions, in the grader's order, with who passed it
    and each failing student's first failure."""
    order, info = [], {}
    for r in rows:
        if r.status != "graded":
            continue
        for ex in r.res["exercises"]:
            e = info.get(ex["id"])
            if e is None:
                e = info[ex["id"]] = {"id": ex["id"], "function": ex["function"], "max": ex["max"],
                                      "passed": 0, "graded": 0, "failures": Counter(), "example": {},
                                      "not run": Counter()}
                order.append(ex["id"])
            e["graded"] += 1
            if ex["passed"]:
                e["passed"] += 1
            elif r.res["lessons"].get(ex["id"][:2], {}).get("state", "graded") != "graded":
                e["not run"][ex["failure"]] += 1  # its lesson did not compile, ...
            else:
                p = pattern(ex["failure"])
                e["failures"][p] += 1
                e["example"].setdefault(p, (ex["failure"] or "").strip().splitlines()[0][:400]
                                        if (ex["failure"] or "").strip() else "")
    return [info[i] for i in order]


def build_html(rows, lessons, seed, layout, class_notes, figures=True):
    graded = [r for r in rows if r.status == "graded"]
    counts = Counter(r.status for r in rows)
    exercises = _exercises(rows)
    lesson_max = {}
    for r in graded:
        for l, v in r.res["lessons"].items():
            lesson_max[l] = v["max"]
    top = sum(lesson_max.get(l, 0) for l in lessons)
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             "<title>Class report</title><style>%s</style></head><body>" % CSS,
             "<h1>Class report</h1>",
             "<p id=\"overview\">%d submissions (%s layout): %s. Lessons %s, %g points in all. "
             "Every submission was graded with the seed <code>GRADE_SEED=%d</code>.</p>" % (
                 len(rows), _h(layout),
                 ", ".join("%d %s" % (counts[s], s) for s in ("graded", "refused", "failed", "missing")
                           if counts[s]) or "none yet",
                 " ".join(lessons), top, seed)]
    waiting = [r for r in rows if r.status in ("missing", "failed")]
    if waiting:
        parts.append('<p class="warn" id="not-graded">Not graded yet (%d): %s. Run <code>make '
                     'grade-all</code> again (or the shards not finished), then <code>make '
                     'grade-report</code>.</p>' % (len(waiting), ", ".join(
                         _h(r.sub.key) + (" (grading failed: see .failed/%s.log)" %
                                                   _h(r.sub.key) if r.status == "failed" else "")
                         for r in waiting)))
    tmp = tempfile.mkdtemp(prefix="grade-report-")
    try:
        # totals
        totals = [100.0 * r.res["score"] / r.res["max_score"] if r.res["max_score"] else 0.0
                  for r in graded] + [0.0] * counts["refused"]
        bins = [(lo, lo + 10) for lo in range(0, 100, 10)] + [(100, 110)]
        hist = "".join("%d %d %d\n" % (lo, hi, sum(1 for t in totals if lo <= t < hi or
                                                     (lo == 100 and t >= 100))) for lo, hi in bins)
        parts.append("<h2>Totals</h2>")
        if totals:
            parts.append("<p id=\"totals-stats\">%d submissions with a total: mean %.1f %%, "
                         "median %.1f %%, lowest %.1f %%, highest %.1f %% of %g points.</p>" % (
                             len(totals), statistics.mean(totals), statistics.median(totals),
                             min(totals), max(totals), top))
            uri = _plot("totals", hist, "Totals of %d submissions" % len(totals), tmp) if figures else None
            parts.append(_figure("fig-totals", uri, "a histogram of the totals",
                                 "How many submissions have each total (in % of the maximum; "
                                 "the last bar is full marks)."))
        # pass rates and first failures
        parts.append("<h2>Exercises</h2>")
        if exercises:
            data = "".join("%d %s %.2f\n" % (i, e["id"], 100.0 * e["passed"] / e["graded"])
                           for i, e in enumerate(exercises))
            uri = _plot("passrate", data, "Pass rate of every exercise (%d graded)" % len(graded),
                        tmp) if figures else None
            parts.append(_figure("fig-passrate", uri, "the pass rate of every exercise",
                                 "The share of graded submissions that pass every check of an "
                                 "exercise (NN alone: the lesson's whole-lesson check)."))
            trs = []
            for e in exercises:
                ranked = sorted(e["failures"].items(), key=lambda kv: (-kv[1], kv[0]))
                common = "".join("<li>%d &times; <code>%s</code>%s</li>" % (
                    n, _h(p), ' <details><summary>for example</summary><code>%s</code>'
                    '</details>' % _h(e["example"][p]) if e["example"][p] != p else "")
                    for p, n in ranked[:3])
                if ranked[3:]:
                    common += "<li>%d other failures</li>" % sum(n for _, n in ranked[3:])
                if e["not run"]:
                    common += "<li>not run: %s</li>" % _h(", ".join(
                        "%d %s" % (n, w) for w, n in sorted(e["not run"].items())))
                trs.append([_td(e["id"]), _td(e["function"]), _td(_fmt(e["max"]), e["max"]),
                            _td("%d of %d" % (e["passed"], e["graded"]),
                                "%.4f" % (e["passed"] / e["graded"])),
                            _td("<ul>%s</ul>" % common if common else "", raw=True)])
            parts.append(_table(["exercise", "function", "points", "pass every check",
                                 "most common first failures (numbers as N, paths as <path>), "
                                 "then those whose lesson was not graded"],
                                trs, "sortable", "exercises"))
        # not graded lessons, timeouts
        trs = []
        for r in rows:
            if r.status == "refused":
                trs.append([_td(r.sub.key), _td("all"), _td("refused"), _td(r.res["refused"])])
            if r.status != "graded":
                continue
            for l, v in sorted(r.res["lessons"].items()):
                if v["state"] != "graded":
                    trs.append([_td(r.sub.key), _td(l), _td(v["state"]), _td(v["why"])])
            for t in sorted(set(r.res["timeouts"])):
                trs.append([_td(r.sub.key), _td(t[:2]), _td("timed out"), _td(t)])
        parts.append("<h2>Did not compile, refused, not handed in, timed out</h2>")
        parts.append(_table(["submission", "lesson", "what", "first line"], trs, "sortable", "problems")
                     if trs else "<p id=\"problems\">Every lesson of every graded submission "
                                 "compiled, and no case timed out.</p>")
        # students
        trs = []
        for r in rows:
            t = r.total()
            link = '<a href="%s/grade.txt">%s</a>' % (quote(r.sub.key), _h(r.sub.key)) \
                if r.status == "graded" else _h(r.sub.key)
            cells = [_td(link, raw=True), _td(r.sub.name), _td(r.status)]
            for l in lessons:
                v = r.res["lessons"].get(l) if r.status == "graded" else None
                cells.append(_td(_fmt(v["score"]), v["score"]) if v else _td("", ""))
            cells.append(_td(_fmt(t and t[0]), _fmt(t and t[0])))
            trs.append(cells)
        parts.append("<h2>Students</h2><p>Click a column's heading to sort by it.</p>")
        parts.append(_table(["submission", "student", "status"] +
                            ["lesson %s (%g)" % (l, lesson_max.get(l, 0)) for l in lessons] +
                            ["total (%g)" % top], trs, "sortable", "students"))
        notes = [(r.sub.key, n) for r in rows for n in
                 ((r.res or {}).get("notes") or r.sub.notes)]
        if notes or class_notes:
            parts.append("<h2>Notes</h2><ul id=\"notes\">%s</ul>" % "".join(
                "<li>%s</li>" % _h(("%s: %s" % n) if isinstance(n, tuple) else n)
                for n in class_notes + notes))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    parts.append("<script>%s</script></body></html>\n" % SORT_JS)
    return "\n".join(parts)


def write_all(out, cls, course, seed, columns):
    """summary.csv, gradebook.csv and report.html in OUT; returns the rows."""
    rows = collect(out, cls)
    write_summary(out, rows)
    write_gradebook(out, rows, course.lessons, columns)
    fileio.save(os.path.join(out, "report.html"),
                build_html(rows, course.lessons, seed, cls.layout, cls.notes), "class report")
    return rows
