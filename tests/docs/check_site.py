#!/usr/bin/env python3
"""The built Doxygen site, opened in a real browser (headless Chromium).

Serves the site on 127.0.0.1 and opens each page of it. A page fails on:
  - an image that did not load, or loaded empty (naturalWidth 0)
  - a figure (figure.wb-figure) whose image is not shown, or is one single colour
  - a link to a page or file of the site that is not there, or to an anchor that the
    page it points to does not have
  - a lesson page (md_lessons_*) without one figure made on this machine
  - a figure of docs/figures.py's record (figures.json) missing from its page: an
    image where the figure was made, the note saying why where it was not
A screenshot of each page is kept for review.

    python3 tests/docs/check_site.py build/docs/html [--figures build/docs/figures.json]
        [--screenshots build/docs/screenshots] [--pages PAGE.html ...]

Exit status 0 when every page passes, 1 with one line per problem, 2 when the browser
cannot be started (with the packages to install).
"""
import argparse
import functools
import http.server
import json
import os
import sys
import threading
import urllib.parse

# What the page reports, computed in the browser once every image has settled.
PAGE_SCRIPT = r"""
const done = arguments[arguments.length - 1];
const imgs = Array.from(document.images);
Promise.all(imgs.map(i => i.complete ? Promise.resolve() :
    new Promise(r => { i.addEventListener('load', r); i.addEventListener('error', r); })))
.then(() => {
  const out = {images: [], figures: [], missing: [], links: [], ids: []};
  for (const i of imgs) {
    out.images.push({src: i.getAttribute('src'), url: i.src, ok: i.complete && i.naturalWidth > 0,
                     w: i.naturalWidth, h: i.naturalHeight});
  }
  for (const f of document.querySelectorAll('figure.wb-figure')) {
    const i = f.querySelector('img');
    const r = {id: f.id, img: !!i, shown: false, colours: 0, caption: ''};
    const c = f.querySelector('figcaption');
    r.caption = c ? c.textContent.trim() : '';
    if (i && i.complete && i.naturalWidth > 0) {
      const box = i.getBoundingClientRect();
      r.shown = box.width > 0 && box.height > 0;
      try {
        const cv = document.createElement('canvas');
        cv.width = i.naturalWidth; cv.height = i.naturalHeight;
        const cx = cv.getContext('2d');
        cx.drawImage(i, 0, 0);
        const d = cx.getImageData(0, 0, cv.width, cv.height).data;
        const seen = new Set();
        const step = Math.max(1, Math.floor(d.length / 4 / 200000)) * 4;
        for (let k = 0; k < d.length && seen.size < 3; k += step)
          seen.add((d[k] << 24 | d[k + 1] << 16 | d[k + 2] << 8 | d[k + 3]) >>> 0);
        r.colours = seen.size;
      } catch (e) { r.colours = -1; r.error = String(e); }
    }
    out.figures.push(r);
  }
  for (const m of document.querySelectorAll('div.wb-missing')) out.missing.push(m.id);
  for (const a of document.querySelectorAll('a[href]')) out.links.push(a.getAttribute('href'));
  for (const e of document.querySelectorAll('[id]')) out.ids.push(e.id);
  for (const e of document.querySelectorAll('a[name]')) out.ids.push(e.getAttribute('name'));
  const content = document.getElementById('doc-content') || document.body;
  out.height = Math.max(content.scrollHeight, document.body.scrollHeight);
  done(out);
});
"""


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(root):
    handler = functools.partial(Quiet, directory=root)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--hide-scrollbars", "--window-size=1280,1000"):
        opts.add_argument(a)
    for path in ("/usr/bin/chromium", "/usr/bin/chromium-browser"):
        if os.path.exists(path):
            opts.binary_location = path
            break
    driver_path = next((p for p in ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver")
                        if os.path.exists(p)), None)
    service = Service(driver_path) if driver_path else Service()
    d = webdriver.Chrome(service=service, options=opts)
    d.set_script_timeout(60)
    d.set_page_load_timeout(60)
    return d


def is_lesson(page):
    return page.startswith("md_lessons_") and page.endswith("_README.html")


def check_page(driver, base, root, page, figures, shots, problems, anchors_of):
    url = base + page
    driver.set_window_size(1280, 1000)
    driver.get(url)
    r = driver.execute_async_script(PAGE_SCRIPT)
    say = lambda what: problems.append("%s: %s" % (page, what))
    for i in r["images"]:
        if not i["ok"]:
            say("image %s is missing or empty (naturalWidth %d)" % (i["src"], i["w"]))
    made = 0
    for f in r["figures"]:
        if not f["img"]:
            say("figure %s has no image" % f["id"])
        elif not f["shown"]:
            say("figure %s: its image is not shown (missing, empty or zero size)" % f["id"])
        elif f["colours"] == -1:
            say("figure %s: its pixels cannot be read (%s)" % (f["id"], f.get("error")))
        elif f["colours"] < 2:
            say("figure %s: its image is a single colour (an empty chart)" % f["id"])
        else:
            made += 1
        if f["img"] and not f["caption"]:
            say("figure %s has no caption" % f["id"])
    if is_lesson(page) and made == 0:
        say("a lesson page without one figure made on this machine")
    # What docs/figures.py placed on this page must be there, as it said.
    shown = {f["id"] for f in r["figures"]}
    for name, fig in (figures or {}).items():
        on_page = [p for p in fig.get("pages", [])
                   if page == "md_" + p.replace("/", "_").replace(".md", ".html")]
        if not on_page:
            continue
        fid = "figure-" + name
        if fig.get("made") and fid not in shown:
            say("figure %s was made but the page does not show it" % name)
        if not fig.get("made") and fid not in r["missing"]:
            say("figure %s was not made and the page does not say so" % name)
    # Links inside the site.
    for href in sorted(set(r["links"])):
        parts = urllib.parse.urlsplit(href)
        if parts.scheme or parts.netloc or href.startswith("javascript:"):
            continue
        target = urllib.parse.unquote(parts.path) or page
        path = os.path.normpath(os.path.join(root, os.path.dirname(page), target))
        if not path.startswith(os.path.abspath(root)) or not os.path.isfile(path):
            say("broken link %s (no such file in the site)" % href)
            continue
        if parts.fragment and target.endswith(".html"):
            ids = set(r["ids"]) if target == page else anchors_of(os.path.relpath(path, root))
            if ids is not None and parts.fragment not in ids:
                say("broken link %s (no anchor %s there)" % (href, parts.fragment))
    if shots:
        driver.set_window_size(1280, min(max(int(r["height"]) + 150, 800), 16000))
        driver.save_screenshot(os.path.join(shots, page.replace(".html", ".png")))
    return made


def anchors_reader(root):
    import html.parser
    cache = {}

    class Ids(html.parser.HTMLParser):
        def __init__(self):
            super().__init__()
            self.ids = set()

        def handle_starttag(self, tag, attrs):
            for k, v in attrs:
                if k == "id" or (tag == "a" and k == "name"):
                    self.ids.add(v)

    def read(rel):
        if rel not in cache:
            p = Ids()
            with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
                p.feed(f.read())
            cache[rel] = p.ids
        return cache[rel]
    return read


def check_site(root, pages=None, figures=None, shots=None, log=print):
    """Open each page of the site at root; returns the problems found (a list of lines)."""
    root = os.path.abspath(root)
    if pages is None:
        pages = sorted(p for p in os.listdir(root)
                       if p == "index.html" or (p.startswith("md_") and p.endswith(".html")))
    if shots:
        os.makedirs(shots, exist_ok=True)
    problems = []
    if not any(is_lesson(p) for p in pages):
        problems.append("%s: no lesson page (md_lessons_*_README.html) to check" % root)
    server = serve(root)
    base = "http://127.0.0.1:%d/" % server.server_address[1]
    driver = browser()
    try:
        read = anchors_reader(root)
        for page in pages:
            before = len(problems)
            made = check_page(driver, base, root, page, figures, shots, problems, read)
            log("  %-48s %s" % (page, "ok" if len(problems) == before else "FAILED") +
                ("  (%d figure%s)" % (made, "" if made == 1 else "s") if made else ""))
    finally:
        driver.quit()
        server.shutdown()
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("site", help="the HTML folder (build/docs/html)")
    ap.add_argument("--figures", help="docs/figures.py's record (build/docs/figures.json)")
    ap.add_argument("--screenshots", help="keep a screenshot of each page here")
    ap.add_argument("--pages", nargs="+", help="only these pages (default: index.html, md_*.html)")
    a = ap.parse_args()
    figures = None
    if a.figures:
        with open(a.figures, encoding="utf-8") as f:
            figures = json.load(f)["figures"]
    print("== the docs in headless Chromium: %s" % a.site)
    try:
        problems = check_site(a.site, a.pages, figures, a.screenshots)
    except ImportError:
        print("check_site: needs Selenium and Chromium: "
              "sudo apt-get install -y chromium chromium-driver python3-selenium")
        return 2
    except Exception as e:  # the browser did not start
        if type(e).__module__.startswith("selenium"):
            print("check_site: the browser did not start: %s" % str(e).strip().splitlines()[0])
            return 2
        raise
    for p in problems:
        print("  " + p)
    if problems:
        print("check_site: %d problem%s" % (len(problems), "" if len(problems) == 1 else "s"))
        return 1
    print("check_site: every page passes%s" % (
        "; screenshots in %s" % a.screenshots if a.screenshots else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
