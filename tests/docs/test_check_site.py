#!/usr/bin/env python3
"""The browser check of the docs must be able to fail: tests/docs/check_site.py run
against small sites, one fault each, in headless Chromium.

    python3 tests/docs/test_check_site.py     # exit 1 when a fault goes unnoticed

Each broken site must fail with the reason named, and the good one must pass, so a
check that passes everything (or nothing) is caught here.
"""
import os
import struct
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_site  # noqa: E402


def png(path, width, height, pixel):
    """Write an RGB PNG whose pixel (x, y) is pixel(x, y)."""
    raw = b"".join(b"\0" + b"".join(bytes(pixel(x, y)) for x in range(width))
                   for y in range(height))

    def chunk(kind, data):
        c = kind + data
        return struct.pack(">I", len(data)) + c + struct.pack(">I", zlib.crc32(c) & 0xffffffff)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


FIGURE = ('<figure class="wb-figure" id="figure-%s"><img src="%s"/>'
          '<figcaption>A chart. Made here.</figcaption></figure>')


def page(body):
    return "<!DOCTYPE html><html><body><div id='doc-content'>%s</div></body></html>" % body


# name: (what md_lessons_01_x_README.html holds, the words the problem must contain
# (None: the site must pass), the figures record)
CASES = {
    "good": (FIGURE % ("chart", "figures/chart.png") + '<a href="other.html#there">a link</a>',
             None, {"chart": {"made": True, "pages": ["lessons/01_x/README.md"]}}),
    "missing image": (FIGURE % ("chart", "figures/nowhere.png"), "missing or empty", None),
    "single colour": (FIGURE % ("flat", "figures/flat.png"), "single colour", None),
    "broken link": (FIGURE % ("chart", "figures/chart.png") + '<a href="gone.html">x</a>',
                    "broken link gone.html", None),
    "broken anchor": (FIGURE % ("chart", "figures/chart.png") + '<a href="other.html#nope">x</a>',
                      "no anchor nope", None),
    "no figure": ("<p>Only text.</p>", "without one figure", None),
    "figure not placed": (FIGURE % ("chart", "figures/chart.png"), "does not show it",
                          {"other": {"made": True, "pages": ["lessons/01_x/README.md"]}}),
    "not made, not said": (FIGURE % ("chart", "figures/chart.png"), "does not say so",
                           {"timeline": {"made": False, "pages": ["lessons/01_x/README.md"]}}),
}


def main():
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, (body, expect, figures) in CASES.items():
            site = os.path.join(tmp, name.replace(" ", "_"))
            os.makedirs(os.path.join(site, "figures"))
            png(os.path.join(site, "figures", "chart.png"), 40, 30,
                lambda x, y: (255, 255, 255) if (x + y) % 7 else (200, 0, 0))
            png(os.path.join(site, "figures", "flat.png"), 40, 30, lambda x, y: (255, 255, 255))
            with open(os.path.join(site, "other.html"), "w") as f:
                f.write(page('<h2 id="there">There</h2>'))
            with open(os.path.join(site, "md_lessons_01_x_README.html"), "w") as f:
                f.write(page(body))
            problems = check_site.check_site(site, ["md_lessons_01_x_README.html"], figures,
                                             log=lambda *a: None)
            if expect is None:
                ok = not problems
            else:
                ok = any(expect in p for p in problems)
            print("  %-20s %s%s" % (name, "ok" if ok else "WRONG",
                                    "" if ok else ": expected %s, got %s" % (
                                        repr(expect) if expect else "a pass", problems or "a pass")))
            failures += not ok
    if failures:
        print("test_check_site: %d case%s wrong" % (failures, "" if failures == 1 else "s"))
        return 1
    print("test_check_site: the check fails each broken site and passes the good one")
    return 0


if __name__ == "__main__":
    sys.exit(main())
