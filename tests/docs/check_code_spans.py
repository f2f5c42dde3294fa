#!/usr/bin/env python3
"""Every code span of the Markdown pages must reach the built HTML as it was written.

Doxygen renders the lessons' READMEs and the guides (the Markdown files of the
Doxyfile's INPUT). Its Markdown is not CommonMark: characters such as `<`, `|`, `*`
or a backslash inside a code span can come out changed, and a reader then copies a
command that is not the one written. This check reads each page's source, collects
its code spans (inline ones and fenced blocks, as CommonMark reads them), and looks
for each in the HTML page Doxygen made of it: an inline span must be the whole text
of one `<code>` element, a fenced block the text of one code fragment, verbatim
(links Doxygen adds inside code are markup, not text, and do not count).

    python3 tests/docs/check_code_spans.py build/docs/html [--doxyfile docs/Doxyfile]
        [--root .]

Exit status 0 when every span is found, 1 with one line per span that is not
(`FILE:LINE: code span `SPAN` is not in PAGE.html verbatim; in its place there: ...`),
2 when a page or its HTML cannot be read.

What Doxygen 1.9 (Debian 12's) changes, and how to write around it: a code span that
holds more than one line break is not one (re-wrap it onto two lines at most); a span
of single backticks that holds a `'` followed by a non-letter becomes typographic
quotes (use double backticks: ``` `` it's 'x' `` ```); a span inside "double quotes"
or in a heading below the title is not rendered as code; a `\|` inside a span in a
table stays a backslash and a bar (keep `|` out of table cells' code).
"""
import argparse
import difflib
import html
import os
import re
import sys
import textwrap

FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
QUOTE = re.compile(r"^ {0,3}> ?")
COMMENT = re.compile(r"<!--.*?-->", re.S)
HEADING = re.compile(r"^#\s+(.*?)\s*#*\s*$")


def markdown_pages(doxyfile, root):
    """The Markdown files Doxygen renders: those the Doxyfile's INPUT names, as paths
    under root with the build copies' prefix (build/docs/src/, docs/figures.py's) taken
    off, and the *.md files of the folders it names (lib/core/README.md; not their
    subfolders, as RECURSIVE = NO)."""
    text = open(doxyfile, encoding="utf-8").read().replace("\\\n", " ")
    m = re.search(r"^INPUT\s*=(.*)$", text, re.M)
    pages = []
    for item in (m.group(1).split() if m else []):
        rel = item[len("build/docs/src/"):] if item.startswith("build/docs/src/") else item
        path = os.path.join(root, rel)
        if item.endswith(".md"):
            pages.append(path)
        elif os.path.isdir(path):
            pages += [os.path.join(path, n) for n in sorted(os.listdir(path)) if n.endswith(".md")]
    return pages


def strip_quote(line):
    """A line without its blockquote markers (a span may continue on the next "> " line)."""
    while True:
        m = QUOTE.match(line)
        if not m:
            return line
        line = line[m.end():]


def code_spans(text):
    """(line, kind, code) of every code span of a Markdown text: kind "inline" or
    "block"; a block's code is its lines joined by newlines."""
    spans = []
    lines = text.split("\n")
    para = []  # (line number, text) of the paragraph being gathered

    def flush():
        if para:
            spans.extend(inline_spans(para))
            para.clear()

    i = 0
    while i < len(lines):
        line = strip_quote(lines[i])
        m = FENCE.match(line)
        if m and not (m.group(2)[0] == "`" and "`" in m.group(3)):
            flush()
            indent, fence = len(m.group(1)), m.group(2)
            body, start = [], i + 1
            i += 1
            while i < len(lines):
                inner = strip_quote(lines[i])
                close = FENCE.match(inner)
                if (close and close.group(2)[0] == fence[0] and len(close.group(2)) >= len(fence)
                        and not close.group(3).strip()):
                    break
                # CommonMark: the opening fence's indentation is removed from each line
                body.append(re.sub("^ {0,%d}" % indent, "", inner))
                i += 1
            spans.append((start, "block", "\n".join(body)))
            i += 1
            continue
        if not line.strip():
            flush()
        else:
            # CommonMark: a paragraph's lines lose their leading whitespace
            para.append((i + 1, line.lstrip()))
        i += 1
    flush()
    return spans


def inline_spans(para):
    """The inline code spans of one paragraph: [(line, "inline", code)]."""
    text, starts = "", []
    for number, line in para:
        starts.append((len(text), number))
        # A table row: "\|" inside its code spans is a "|" that does not end the cell.
        text += (line.replace("\\|", "|") if line.lstrip().startswith("|") else line) + "\n"
    text = COMMENT.sub(lambda m: " " * len(m.group(0)), text)

    def line_of(pos):
        number = starts[0][1]
        for offset, n in starts:
            if offset <= pos:
                number = n
        return number

    spans, pos = [], 0
    while pos < len(text):
        c = text[pos]
        if c == "\\" and pos + 1 < len(text):
            pos += 2  # an escaped character, a backtick included, is text
            continue
        if c != "`":
            pos += 1
            continue
        run = len(re.match(r"`+", text[pos:]).group(0))
        close = re.compile(r"(?<!`)`{%d}(?!`)" % run)
        m = close.search(text, pos + run)
        if not m:
            pos += run  # an unmatched run is literal backticks
            continue
        code = text[pos + run:m.start()].replace("\n", " ")
        if len(code) > 1 and code[0] == " " and code[-1] == " " and code.strip():
            code = code[1:-1]
        spans.append((line_of(pos), "inline", code))
        pos = m.end()
    return spans


def page_title(text):
    """The page's title as Doxygen takes it: its first level-1 heading, markup removed."""
    for line in text.split("\n"):
        m = HEADING.match(line)
        if m:
            return re.sub(r"[`*]", "", m.group(1)).strip()
    return None


def html_text(fragment):
    """The text of an HTML fragment: tags removed, entities decoded."""
    return html.unescape(re.sub(r"<[^>]*>", "", fragment))


def html_code(page):
    """(inline, blocks): the texts of a page's <code> elements as a browser shows them
    (white space collapsed), and of its code fragments (lines without their common
    indentation, which Doxygen takes off)."""
    inline = [" ".join(html_text(m.group(1)).split())
              for m in re.finditer(r"<code>(.*?)</code>", page, re.S)]
    blocks = []
    for m in re.finditer(r'<div class="fragment">(.*?)</div><!-- fragment -->', page, re.S):
        lines = re.findall(r'<div class="line">(.*?)</div>', m.group(1), re.S)
        blocks.append(block_text("\n".join(html_text(line) for line in lines)))
    for m in re.finditer(r'<pre class="fragment">(.*?)</pre>', page, re.S):
        blocks.append(block_text(html_text(m.group(1))))
    return inline, blocks


def block_text(code):
    """A code block compared as shown: trailing blanks and blank last lines off, and the
    indentation all its lines share."""
    return textwrap.dedent("\n".join(l.rstrip() for l in code.rstrip().split("\n")))


def html_pages(html_dir):
    """{title: file name} of the HTML pages, and the main page's file."""
    titles = {}
    for name in sorted(os.listdir(html_dir)):
        if not name.endswith(".html"):
            continue
        page = open(os.path.join(html_dir, name), encoding="utf-8", errors="replace").read()
        m = re.search(r'<div class="title">(.*?)</div>', page, re.S)
        if m:
            titles.setdefault(html_text(m.group(1)).strip(), name)
    return titles


def check_page(md_text, html_name, html_page, shown):
    """The problems of one page: a line for each span not found in its HTML.

    The spans and the HTML's code appear in the same order, so the two sequences are
    aligned (the HTML may have more: code Doxygen or the figures' captions add); a span
    the alignment leaves out is reported, with the HTML code that stands in its place."""
    inline, blocks = html_code(html_page)
    spans = code_spans(md_text)
    problems = []
    for kind, have in (("inline", inline), ("block", blocks)):
        mine = [(line, code if kind == "inline" else block_text(code))
                for line, k, code in spans if k == kind]
        want = [code for _, code in mine]
        sm = difflib.SequenceMatcher(None, want, have, autojunk=False)
        for op, i1, i2, j1, j2 in sm.get_opcodes():
            if op in ("equal", "insert"):
                continue
            for k in range(i1, i2):
                near = have[j1 + min(k - i1, j2 - j1 - 1)] if j2 > j1 else ""
                problems.append((mine[k][0], "%s:%d: %s %s is not in %s verbatim; in its place "
                                 "there: %s" % (shown, mine[k][0], "code span" if kind == "inline"
                                                else "code block", quote(mine[k][1]), html_name,
                                                quote(near))))
    return [p for _, p in sorted(problems)]


def quote(code):
    code = code.replace("\n", "\\n")
    return "`%s`" % (code if len(code) <= 120 else code[:117] + "...")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("html_dir")
    ap.add_argument("--doxyfile", default="docs/Doxyfile")
    ap.add_argument("--root", default=".")
    args = ap.parse_args(argv)
    try:
        titles = html_pages(args.html_dir)
        pages = markdown_pages(args.doxyfile, args.root)
    except OSError as e:
        print("check_code_spans: %s" % e)
        return 2
    problems, spans = [], 0
    for md_path in pages:
        shown = os.path.relpath(md_path, args.root)
        try:
            md_text = open(md_path, encoding="utf-8").read()
        except OSError as e:
            print("check_code_spans: %s: %s" % (shown, e.strerror))
            return 2
        title = page_title(md_text)
        name = "index.html" if shown == "docs/mainpage.md" else titles.get(title)
        if not name:
            print("check_code_spans: %s: no HTML page titled %r in %s (run make docs first)"
                  % (shown, title, args.html_dir))
            return 2
        html_page = open(os.path.join(args.html_dir, name), encoding="utf-8").read()
        spans += len(code_spans(md_text))
        problems += check_page(md_text, name, html_page, shown)
    for p in problems:
        print(p)
    if problems:
        print("check_code_spans: %d of %d code spans of %d pages changed on their way to the "
              "HTML" % (len(problems), spans, len(pages)))
        return 1
    print("Code spans: all %d of %d pages reach the HTML verbatim" % (spans, len(pages)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
