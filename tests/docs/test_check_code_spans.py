#!/usr/bin/env python3
"""The code-span check of the docs must be able to fail: tests/docs/check_code_spans.py
run against small made-up sites, a page and its HTML, one fault each.

    python3 tests/docs/test_check_code_spans.py     # exit 1 when a fault goes unnoticed

The good site must pass and each broken one must fail naming the span that changed,
so a check that passes everything (or nothing) is caught here. Doxygen is not needed.
"""
import contextlib
import io
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_code_spans  # noqa: E402

PAGE = """# A page

Run `make test | tee log` and `a<b && c>d` with `x*y*z` and `C:\\path`.
> A quote whose span `goes on
> the next line`.

| cell | code |
|---|---|
| one | `p \\| q` |

```c
int main(void)
{
    return 0;
}
```

``it's 'x'``
"""

GOOD = """<div class="title">A page</div>
<p>Run <code>make test | tee log</code> and <code>a&lt;b &amp;&amp; c&gt;d</code> with
<code>x*y*z</code> and <code>C:\\path</code>.</p>
<blockquote><p>A quote whose span <code>goes on
the next line</code>.</p></blockquote>
<table><tr><td>one</td><td><code>p | q</code></td></tr></table>
<div class="fragment"><div class="line"><span class="keyword">int</span> <a class="el"
href="x.html">main</a>(void)</div>
<div class="line">{</div>
<div class="line">    return 0;</div>
<div class="line">}</div>
</div><!-- fragment -->
<p><code>it's 'x'</code></p>
"""

# (what breaks, the HTML, a word the report must hold)
BROKEN = [
    ("a < escaped twice", GOOD.replace("a&lt;b", "a&amp;lt;b"), "`a<b && c>d`"),
    ("a bar left escaped in a table", GOOD.replace("p | q", "p \\| q"), "`p | q`"),
    ("a span not rendered as code", GOOD.replace("<code>x*y*z</code>", "`x*y*z`"), "`x*y*z`"),
    ("quotes made of a backtick", GOOD.replace("<code>it's 'x'</code>", "&lsquo;it's &rsquo;x'"),
     "`it's 'x'`"),
    ("a line of a block lost", GOOD.replace('<div class="line">    return 0;</div>\n', ""),
     "code block"),
    ("a backslash doubled", GOOD.replace("C:\\path", "C:\\\\path"), "`C:\\path`"),
]


def site(tmp, html_text):
    """A made-up site in tmp: the page, a Doxyfile naming it, its HTML."""
    os.makedirs(os.path.join(tmp, "html"), exist_ok=True)
    with open(os.path.join(tmp, "page.md"), "w") as f:
        f.write(PAGE)
    with open(os.path.join(tmp, "Doxyfile"), "w") as f:
        f.write("INPUT = build/docs/src/page.md \\\n  lib/core\n")
    with open(os.path.join(tmp, "html", "md_page.html"), "w") as f:
        f.write(html_text)


def run(tmp):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = check_code_spans.main([os.path.join(tmp, "html"), "--doxyfile",
                                        os.path.join(tmp, "Doxyfile"), "--root", tmp])
    return status, out.getvalue()


def main():
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        site(tmp, GOOD)
        status, out = run(tmp)
        if status != 0:
            failures.append("the good site fails (%d):\n%s" % (status, out))
    for what, html_text, word in BROKEN:
        with tempfile.TemporaryDirectory() as tmp:
            site(tmp, html_text)
            status, out = run(tmp)
            if status != 1 or word not in out:
                failures.append("%s: exit %d, the report does not name %s:\n%s"
                                % (what, status, word, out))
    with tempfile.TemporaryDirectory() as tmp:
        site(tmp, GOOD.replace("A page", "Another page"))
        status, out = run(tmp)
        if status != 2 or "no HTML page titled" not in out:
            failures.append("a page without its HTML: exit %d:\n%s" % (status, out))
    for f in failures:
        print("test_check_code_spans: " + f)
    if failures:
        return 1
    print("test_check_code_spans: the good site passes, %d broken ones fail as they should"
          % (len(BROKEN) + 1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
