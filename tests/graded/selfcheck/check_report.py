#!/usr/bin/env python3
"""make grade-all's report.html, opened in headless Chromium (as tests/docs/check_site.py
opens the docs). The page fails on:
  - a figure whose image did not load, or is one single colour
  - a submission of summary.csv without its row in the students' table, or with other points
  - an exercise of a graded submission's results.json missing from the exercises' table
  - a students' table that a click on its "total" heading does not sort (up, then down)
A screenshot is kept beside the report (report.png).

    python3 tests/graded/selfcheck/check_report.py OUT [--figures N]

Exit status 0 when the page passes, 1 with one line per problem, 2 when the browser
cannot be started (with the packages to install).
"""
import argparse
import csv
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs"))

PAGE_SCRIPT = r"""
const done = arguments[arguments.length - 1];
const imgs = Array.from(document.querySelectorAll('figure img'));
Promise.all(imgs.map(i => i.complete ? Promise.resolve() :
    new Promise(r => { i.addEventListener('load', r); i.addEventListener('error', r); })))
.then(() => {
  const figures = imgs.map(i => {
    const r = {id: i.closest('figure').id, w: i.naturalWidth, colours: 0};
    if (i.naturalWidth > 0) {
      const cv = document.createElement('canvas');
      cv.width = i.naturalWidth; cv.height = i.naturalHeight;
      const cx = cv.getContext('2d'); cx.drawImage(i, 0, 0);
      const d = cx.getImageData(0, 0, cv.width, cv.height).data, seen = new Set();
      for (let k = 0; k < d.length && seen.size < 3; k += 4 * 7) seen.add(d[k] << 16 | d[k + 1] << 8 | d[k + 2]);
      r.colours = seen.size;
    }
    return r; });
  const table = id => Array.from(document.querySelectorAll('#' + id + ' tbody tr'))
      .map(tr => Array.from(tr.cells).map(c => c.textContent.trim()));
  const heads = Array.from(document.querySelectorAll('#students th')).map(h => h.textContent);
  done({figures, students: table('students'), exercises: table('exercises'), heads});
});
"""


def sorted_by_total(driver):
    """The totals column as shown after one click and after a second on its heading."""
    heads = driver.find_elements("css selector", "#students th")
    total = [h for h in heads if h.text.startswith("total")][0]
    col = heads.index(total)
    shown = []
    for _ in range(2):
        total.click()
        shown.append([c.get_attribute("data-v") for c in driver.find_elements(
            "css selector", "#students tbody tr td:nth-child(%d)" % (col + 1))])
    return shown


def check_report(out, figures, shot):
    from check_site import browser
    problems = []
    with open(os.path.join(out, "summary.csv"), encoding="utf-8") as f:
        summary = list(csv.DictReader(f))
    exercises = set()
    for row in summary:
        if row["status"] == "graded":
            with open(os.path.join(out, row["submission"], "results.json"), encoding="utf-8") as f:
                exercises |= {t["number"] for t in json.load(f)["tests"]}
    driver = browser()
    try:
        driver.set_window_size(1280, 1000)
        driver.get("file://" + os.path.abspath(os.path.join(out, "report.html")))
        r = driver.execute_async_script(PAGE_SCRIPT)
        if len(r["figures"]) != figures:
            problems.append("%d figures, not %d" % (len(r["figures"]), figures))
        for f in r["figures"]:
            if f["w"] == 0 or f["colours"] < 2:
                problems.append("figure %s: not shown, or one single colour" % f["id"])
        rows = {s[0]: s for s in r["students"]}
        for row in summary:
            shown = rows.get(row["submission"])
            if shown is None:
                problems.append("student %s: no row in the table" % row["submission"])
            elif shown[-1] != row["score"]:
                problems.append("student %s: total %r in the table, %r in summary.csv" % (
                    row["submission"], shown[-1], row["score"]))
        listed = {e[0] for e in r["exercises"]}
        for e in sorted(exercises - listed):
            problems.append("exercise %s: not in the exercises' table" % e)
        up, down = sorted_by_total(driver)
        key = lambda v: float(v) if v else float("inf")
        if [key(v) for v in up] != sorted(key(v) for v in up) or \
                [key(v) for v in down if v] != sorted((key(v) for v in down if v), reverse=True):
            problems.append("the students' table does not sort by total (%s, then %s)" % (up, down))
        driver.set_window_size(1280, int(driver.execute_script("return document.body.scrollHeight")) + 40)
        driver.save_screenshot(shot)
    finally:
        driver.quit()
    return problems, len(summary), len(exercises)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", help="grade-all's OUT (holding report.html and summary.csv)")
    ap.add_argument("--figures", type=int, default=2, help="the figures the page must show")
    a = ap.parse_args()
    shot = os.path.join(a.out, "report.png")
    try:
        problems, students, exercises = check_report(a.out, a.figures, shot)
    except Exception as e:  # no Selenium, or a browser that does not start
        if not isinstance(e, ImportError) and not type(e).__module__.startswith("selenium"):
            raise
        print("check_report: no headless Chromium (%s); sudo apt-get install -y chromium "
              "chromium-driver python3-selenium" % (str(e).strip().splitlines() or ["?"])[0])
        return 2
    for p in problems:
        print("  " + p)
    if problems:
        return 1
    print("check_report: %s shows its figures, its %d students and %d exercises, and sorts "
          "(screenshot: %s)" % (os.path.join(a.out, "report.html"), students, exercises, shot))
    return 0


if __name__ == "__main__":
    sys.exit(main())
