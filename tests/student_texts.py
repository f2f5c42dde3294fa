#!/usr/bin/env python3
"""
student_texts.py: what a student reads agrees with the tree.

    python3 tests/student_texts.py              check this checkout
    python3 tests/student_texts.py --self-test  show that each check finds the slip it
                                                looks for, in planted copies of the texts

1. Loop bounds are written as C writes them. A hint that says "for i from 1 to n - 1"
   reads, to a C programmer, as `i < n - 1`: one sample short. lessons/*/hints.md, the
   stubs' comments (lessons/*/exercises.c and .cu) and the comments of the exercises'
   declarations may not say "for i from A to B", "i in 0..n-1", "0 .. world - 1",
   "up to n - 1" or "range(...)"; they write `for (i = 1; i < n; i++)` or `i < n`.
2. Every "declared in" is true: each header a lesson README's exercise table names in a
   row declares every function of that row, and each header a stub's top comment names
   where it says where the exercises are declared declares the exercises listed after
   it ("lib/nn/module.h (04.3)"), or, with no list, one of the stub's functions.
3. Every message a graded case compares with the student's is written down for the
   student: in the comment of the exercise's declaration or in its hint. A message the
   case compares whole (strcmp) must match one of the messages quoted there, with the
   numbers, the quoted names and the <placeholders> of the quote as the values that
   vary, and what follows a ": " free (lib's err_context() puts the inner error
   there). A phrase the case looks for in a message (strstr) must be in those texts as
   it is; a phrase that holds a value of the case's input (a number, a quoted name, a
   tensor's name) is the input's echo and is not looked for.
4. No page's HTML title doubles the project's name or shows a tag: Doxygen titles a
   page "PROJECT_NAME: its first heading", as plain text, so no first heading of a page
   docs/Doxyfile reads may start with the project's name or hold a code span; and where
   the site is built (build/docs/html), no <title> does either.

Exit status 0 when every check passes; each problem is one line naming the file.
"""
import glob
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def strip_c_comments(text):
    """The code of a C file, its comments blanked (line numbers kept)."""
    return re.sub(r"/\*.*?\*/|//[^\n]*",
                  lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)


def comments_of(text):
    """The comments of a C file, one string, without their leading stars."""
    parts = re.findall(r"/\*(.*?)\*/|//([^\n]*)", text, flags=re.S)
    out = []
    for block, line in parts:
        body = block or line
        out.append("\n".join(re.sub(r"^\s*\*? ?", "", l) for l in body.split("\n")))
    return "\n".join(out)


def comments_in_place(text):
    """The comments of a C file where they stand, its code blanked (line numbers kept)."""
    out = re.sub(r"[^\n]", " ", text)
    for m in re.finditer(r"/\*.*?\*/|//[^\n]*", text, flags=re.S):
        out = out[:m.start()] + m.group(0) + out[m.end():]
    return out


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


# ---- the exercises: from the stubs -----------------------------------------------------

def stub_files():
    return sorted(glob.glob(os.path.join(ROOT, "lessons", "[0-9][0-9]_*", "exercises.c")) +
                  glob.glob(os.path.join(ROOT, "lessons", "[0-9][0-9]_*", "exercises.cu")))


DEF_RE = re.compile(r'^(?:extern "C"\s+)?(?:static\s+)?[A-Za-z_][\w \t\*]*?\b([a-z_]\w*)\s*\(',
                    re.M)


def stub_exercises(path, text=None):
    """{exercise: [functions]} of a stub file: each function defined after a
    TODO(exNN.N) belongs to that exercise."""
    text = read(path) if text is None else text
    code = strip_c_comments(text)
    todos = [(m.start(), m.group(1)) for m in re.finditer(r"TODO\(ex(\d\d\.\d)\)", text)]
    out = {}
    for m in DEF_RE.finditer(code):
        start = m.start()
        # a definition: its parameter list is followed by a body
        rest = code[m.end():]
        depth, i = 1, 0
        while i < len(rest) and depth:
            depth += {"(": 1, ")": -1}.get(rest[i], 0)
            i += 1
        if not rest[i:].lstrip().startswith("{"):
            continue
        ex = None
        for pos, e in todos:
            if pos < start:
                ex = e
        if ex:
            out.setdefault(ex, [])
            if m.group(1) not in out[ex]:
                out[ex].append(m.group(1))
    return out


def all_exercises():
    out = {}
    for path in stub_files():
        for ex, fns in stub_exercises(path).items():
            out.setdefault(ex, [])
            out[ex] += [f for f in fns if f not in out[ex]]
    return out


# ---- headers -------------------------------------------------------------------------------

HEADER_RE = re.compile(r"\b((?:lib|kernels)/(?:[\w.-]+/)*[\w.-]+\.h)\b")


def declares(header, function, text=None):
    """True when the header declares the function (outside its comments)."""
    if text is None:
        if not os.path.isfile(os.path.join(ROOT, header)):
            return False
        text = read(header)
    return re.search(r"\b%s\s*\(" % re.escape(function), strip_c_comments(text)) is not None


def declaring_headers():
    return sorted(os.path.relpath(p, ROOT) for p in
                  glob.glob(os.path.join(ROOT, "lib", "**", "*.h"), recursive=True) +
                  glob.glob(os.path.join(ROOT, "kernels", "*.h")))


def declaration_comment(function, headers=None):
    """(header, the comment right above the function's declaration), or (None, "")."""
    for h in headers or declaring_headers():
        text = read(h)
        code = strip_c_comments(text)
        m = re.search(r"\b%s\s*\(" % re.escape(function), code)
        if not m:
            continue
        start = code.rfind("\n", 0, m.start()) + 1
        # back over the declaration's first lines (a return type on a line of its own)
        before = text[:start]
        end = before.rstrip().rfind("*/")
        if end < 0 or before[end + 2:].strip() and not re.fullmatch(r"[\w \t\*]*",
                                                                      before[end + 2:].strip()):
            return h, ""
        open_ = before.rfind("/*", 0, end)
        return h, comments_of(before[open_:end + 2])
    return None, ""


# ---- hints ---------------------------------------------------------------------------------

def hint_sections(text):
    """{exercise: its section of a hints.md} (a section may name two exercises)."""
    out = {}
    parts = re.split(r"^## ", text, flags=re.M)
    for part in parts[1:]:
        title = part.split("\n", 1)[0]
        for ex in re.findall(r"\b\d\d\.\d\b", title.split(" ", 1)[0] + " "):
            out[ex] = part
    return out


def all_hints():
    out = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "lessons", "[0-9][0-9]_*", "hints.md"))):
        out.update(hint_sections(read(os.path.relpath(path, ROOT))))
    return out


# ---- 1. loop bounds ----------------------------------------------------------------------

BOUND_RES = [
    (re.compile(r"\bfor\b[^\n.;]*?\bfrom\s+[^\s,;]+\s+(?:to|through|till|until)\b", re.I),
     'a loop "from A to B"'),
    (re.compile(r"[\w\])](\s?)(?<!\.)\.\.(?!\.)\1(?=[\w(-])"), 'a range "A..B"'),
    (re.compile(r"\bin\s+range\s*\("), 'a Python "range(...)"'),
    (re.compile(r"\bup to\s+\w+\s*-\s*1\b"), 'a bound "up to n - 1"'),
]


def loop_bound_problems(name, text):
    """Problems of one text (a hint file, or the comments of a C file)."""
    out = []
    for rx, what in BOUND_RES:
        for m in rx.finditer(text):
            out.append("%s:%d: %s (\"%s\"): write the bound as C does, `for (i = 0; i < n; "
                       "i++)` or `i < n`" % (name, line_of(text, m.start()), what,
                                             m.group(0).strip()))
    return out


def check_loop_bounds():
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, "lessons", "[0-9][0-9]_*", "hints.md"))):
        rel = os.path.relpath(path, ROOT)
        out += loop_bound_problems(rel, read(rel))
    for path in stub_files():
        rel = os.path.relpath(path, ROOT)
        out += loop_bound_problems(rel, comments_in_place(read(rel)))
    for ex, fns in sorted(all_exercises().items()):
        for fn in fns:
            h, comment = declaration_comment(fn)
            if h:
                out += [p.replace("%s:" % h, "%s (the comment of %s), line " % (h, fn), 1)
                        for p in loop_bound_problems(h, comment)]
    return out


# ---- 2. "declared in" ------------------------------------------------------------------------

def readme_table_problems(name, text, decl=declares, known=None):
    """Each header named in a row of an exercise table declares each function of the row
    (of those its code spans name, the exercises' functions: known)."""
    if known is None:
        known = {f for fns in all_exercises().values() for f in fns}
    out = []
    for m in re.finditer(r"^\|\s*(\d\d\.\d)\s*\|(.*)$", text, flags=re.M):
        ex, row = m.group(1), m.group(2)
        functions = [f for f in re.findall(r"`([a-z_]\w*)`", row) if f in known]
        headers = HEADER_RE.findall(row)
        for h in headers:
            for f in functions:
                if not decl(h, f):
                    out.append("%s:%d: exercise %s: %s does not declare %s (the table says it "
                               "does)" % (name, line_of(text, m.start()), ex, h, f))
    return out


def stub_header_problems(name, text, decl=declares):
    """The top comment's sentence on where the exercises are declared names headers that
    declare them."""
    out = []
    top = re.match(r"\s*/\*(.*?)\*/", text, flags=re.S)
    if not top:
        return out
    comment = re.sub(r"\n\s*\* ?", " ", top.group(1))
    exercises = stub_exercises(name, text)
    functions = [f for fns in exercises.values() for f in fns]
    for sentence in re.split(r"\.(?:\s|$)", comment):
        if not re.search(r"\bdeclar", sentence):
            continue
        for m in HEADER_RE.finditer(sentence):
            h = m.group(1)
            listed = re.match(r"\s*\(([\d., and]+)\)", sentence[m.end():])
            wanted = []
            if listed:
                for ex in re.findall(r"\d\d\.\d", listed.group(1)):
                    lo = ex
                    wanted += exercises.get(lo, ["(exercise %s, not in this file)" % lo])
                # "01.2 to 01.8": every exercise between
                rng = re.search(r"(\d\d\.\d) to (\d\d\.\d)", listed.group(1))
                if rng:
                    for ex, fns in exercises.items():
                        if rng.group(1) <= ex <= rng.group(2):
                            wanted += fns
                bad = [f for f in wanted if not decl(h, f)]
                for f in bad:
                    out.append("%s: the top comment says %s declares %s; it does not" %
                               (name, h, f))
            elif not any(decl(h, f) for f in functions):
                out.append("%s: the top comment names %s where the exercises are declared; it "
                           "declares none of %s" % (name, h, ", ".join(functions)))
    return out


def check_declared_in():
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, "lessons", "[0-9][0-9]_*", "README.md"))):
        rel = os.path.relpath(path, ROOT)
        out += readme_table_problems(rel, read(rel))
    for path in stub_files():
        rel = os.path.relpath(path, ROOT)
        out += stub_header_problems(rel, read(rel))
    # every exercise is declared somewhere, and the table of its lesson names where
    for ex, fns in sorted(all_exercises().items()):
        for f in fns:
            h, _ = declaration_comment(f)
            if not h:
                out.append("exercise %s: %s is declared in no header of lib/ or kernels/" % (ex, f))
    return out


# ---- 3. messages -------------------------------------------------------------------------------

def c_args(text, open_paren):
    """The arguments of a call whose "(" is at open_paren: (list of texts, end)."""
    args, depth, i, start = [], 0, open_paren + 1, open_paren + 1
    while i < len(text):
        c = text[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < len(text) and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                args.append(text[start:i])
                return args, i
            depth -= 1
        elif c == "," and depth == 0:
            args.append(text[start:i])
            start = i + 1
        i += 1
    return args, i


C_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "'": "'"}


def c_unescape(s):
    return re.sub(r"\\(.)", lambda m: C_ESCAPES.get(m.group(1), m.group(1)), s)


def literal_of(arg):
    """The string an argument made of string literals spells (an identifier among them,
    a macro's parameter, stands for "X"); None when it holds no literal."""
    pieces = re.findall(r'"((?:[^"\\]|\\.)*)"|([A-Za-z_]\w*)', arg)
    if not any(p[0] or arg.strip().startswith('""') for p in pieces):
        return None
    if re.search(r'[^\s"\w\\]', re.sub(r'"((?:[^"\\]|\\.)*)"', "", arg)):
        return None  # an expression (a call, an operator), not a message
    return "".join(c_unescape(lit) if lit or not ident else "X" for lit, ident in pieces)


def compared_messages(text):
    """(position, "exact"|"phrase", message) of what a grader's JUDGE code compares with
    the student's messages."""
    code = strip_c_comments(text)
    found = []

    def calls(name):
        for m in re.finditer(r"\b%s\s*\(" % name, code):
            args, _ = c_args(text, m.end() - 1)
            yield m.start(), args

    for pos, args in calls("strcmp"):
        if len(args) == 2:
            for a, b in (args, args[::-1]):
                lit = literal_of(b)
                if lit is not None and re.search(r"msg|reason|message", a):
                    found.append((pos, "exact", lit))
    for pos, args in calls("strstr"):
        if len(args) == 2 and re.search(r"msg|reason|message", args[0]):
            lit = literal_of(args[1])
            if lit is not None:
                found.append((pos, "phrase", lit))
    for pos, args in calls("expect_error"):  # grade04: (key, code, whole message, what)
        if len(args) == 4 and literal_of(args[2]) is not None:
            found.append((pos, "exact", literal_of(args[2])))
    for pos, args in calls("expect_refused"):  # grade05: (key, what, phrase, phrase)
        for a in args[2:4]:
            if literal_of(a) is not None:
                found.append((pos, "phrase", literal_of(a)))
    for pos, args in calls("REFUSED"):  # grade02: a table of (code, whole message)
        if len(args) == 2 and literal_of(args[1]) is not None:
            found.append((pos, "exact", literal_of(args[1])))
    for m in re.finditer(r"\bwant\w*\s*\[\s*\]\s*=\s*\{", code):  # tables of messages
        args, _ = c_args(text, m.end() - 1)
        for a in args:
            lit = literal_of(a)
            if lit is not None and a.strip().startswith('"'):
                found.append((m.start(), "exact", lit))
    return found


def exercise_at(text, pos):
    """The exercises of the grader's section (/* ---- exNN.N ... */) that holds pos."""
    exs = []
    for m in re.finditer(r"^/\* ---- (ex[^\n]*)", text, flags=re.M):
        if m.start() < pos:
            exs = re.findall(r"ex(\d\d\.\d)", m.group(1))
    return exs


PRINTF = r"%[-+ #0]*\d*(?:\.\d+)?(?:hh|h|ll|l|z|j|t)?[diouxXeEfgGcsp]"


def template_regex(t):
    """A quoted message as a pattern: its numbers, quoted names, printf conversions,
    <placeholders> and "..." stand for any value."""
    out, i = [], 0
    token = re.compile(r'(%s)|(<[^<>]+>)|(\.\.\.)|(\d+)|("[^"]*")' % PRINTF)
    for m in token.finditer(t):
        out.append(re.escape(t[i:m.start()]))
        if m.group(4):
            out.append(r"\d+")
        elif m.group(5):
            out.append(r'"[^"]*"')
        else:
            out.append(r".+?" if not m.group(3) else r".*?")
        i = m.end()
    out.append(re.escape(t[i:]))
    return "".join(out)


def quoted_messages(doc):
    """The messages a text quotes: its code spans and its C strings (escapes read)."""
    out = set()
    for span in re.findall(r"`([^`\n]+)`", doc):
        out.add(span)
    flat = re.sub(r"\s*\n\s*", " ", doc)
    flat = re.sub(r'"\s+"', "", flat)  # C joins adjacent strings: "a " "b" is "a b"
    for span in re.findall(r"`([^`]+)`", flat):
        out.add(span)
    for s in re.findall(r'"((?:[^"\\\n]|\\.)*)"', flat):
        out.add(c_unescape(s))
    # a C string inside a code span: its content too
    for span in list(out):
        for s in re.findall(r'"((?:[^"\\]|\\.)*)"', span):
            if len(s) > 8:
                out.add(c_unescape(s))
    return [t for t in out if len(re.sub(r"%s|<[^<>]+>|[^A-Za-z]" % PRINTF, "", t)) >= 6]


def message_covered(message, templates):
    for t in templates:
        if re.match(template_regex(t) + r"(?=: |$)", message, flags=re.S):
            return True
    return False


def phrase_is_input(phrase):
    return re.search(r'[\d"\[\].]', phrase) is not None


def flatten(doc):
    return re.sub(r"\s+", " ", doc)


def message_problems(grader_name, grader_text, docs):
    """docs: {exercise: (where, text)}; the problems of one grader."""
    out = []
    for pos, how, msg in compared_messages(grader_text):
        exs = exercise_at(grader_text, pos)
        if not exs:
            continue
        where = "; ".join(docs[e][0] for e in exs if e in docs) or "its docs"
        text = "\n".join(docs[e][1] for e in exs if e in docs)
        line = line_of(grader_text, pos)
        if how == "exact":
            if not message_covered(msg, quoted_messages(text)):
                out.append('%s:%d: exercise %s: the case compares the message "%s", which %s '
                           "does not quote" % (grader_name, line, "/".join(exs), msg, where))
        elif not phrase_is_input(msg) and msg not in flatten(text):
            out.append('%s:%d: exercise %s: the case looks for "%s" in the message, which %s '
                       "does not say" % (grader_name, line, "/".join(exs), msg, where))
    return out


def exercise_docs():
    hints = all_hints()
    docs = {}
    for ex, fns in all_exercises().items():
        wheres, texts = [], []
        for fn in fns:
            h, comment = declaration_comment(fn)
            if h:
                wheres.append("the comment of %s in %s" % (fn, h))
                texts.append(comment)
        if ex in hints:
            wheres.append("the hint of %s" % ex)
            texts.append(hints[ex])
        docs[ex] = (" or ".join(wheres), "\n".join(texts))
    return docs


def check_messages():
    docs = exercise_docs()
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "graded", "cases", "[0-9][0-9]", "*.[ch]"))):
        rel = os.path.relpath(path, ROOT)
        out += message_problems(rel, read(rel), docs)
    return out


# ---- 4. the site's titles ------------------------------------------------------------------------

def doxyfile_pages(doxyfile):
    inputs = re.search(r"^INPUT\s*=((?:[^\n]*\\\n)*[^\n]*)", doxyfile, flags=re.M).group(1)
    pages = []
    for item in inputs.replace("\\\n", " ").split():
        if item.endswith(".md"):
            pages.append(re.sub(r"^build/docs/src/", "", item))
    name = re.search(r'^PROJECT_NAME\s*=\s*"?([^"\n]*)"?', doxyfile, flags=re.M).group(1)
    return name.strip(), pages


def heading_problems(name, first_heading, project):
    out = []
    h = first_heading.lstrip("#").strip()
    if h.lower().startswith(project.lower()):
        out.append('%s: its first heading "%s" starts with the project\'s name, so its HTML '
                   'title reads "%s: %s"' % (name, h, project, h))
    if "`" in h or re.search(r"(?<!\\)__\w", h):
        out.append('%s: its first heading "%s" holds a code span or bare underscores, which '
                   "the HTML title shows as a tag (write \\_\\_ for an underscore)" % (name, h))
    return out


def title_problems(name, html, project):
    m = re.search(r"<title>(.*?)</title>", html, flags=re.S)
    if not m:
        return []
    title = m.group(1).strip()
    out = []
    if title.count(project) > 1:
        out.append('%s: the title "%s" doubles the project\'s name' % (name, title))
    if "&lt;" in title or "<" in title:
        out.append('%s: the title "%s" shows a tag' % (name, title))
    return out


def check_titles():
    project, pages = doxyfile_pages(read("docs/Doxyfile"))
    out = []
    for page in pages:
        if not os.path.isfile(os.path.join(ROOT, page)):
            out.append("docs/Doxyfile: its page %s is not in the tree" % page)
            continue
        first = next((l for l in read(page).split("\n") if l.startswith("#")), "")
        out += heading_problems(page, first, project)
    for path in sorted(glob.glob(os.path.join(ROOT, "build", "docs", "html", "*.html"))):
        with open(path, encoding="utf-8", errors="replace") as f:
            out += title_problems(os.path.relpath(path, ROOT), f.read(), project)
    return out


# ---- the self-test: each check against a planted slip --------------------------------------------

def self_test():
    failures = []

    def expect(what, problems, want):
        if bool(problems) != want:
            failures.append("self-test: %s: %s" % (what, problems or "no problem found"))

    expect("a hint's 'for i from 1 to n - 1'",
           loop_bound_problems("h", "    for i from 1 to n - 1: lo = min(lo, x[i])"), True)
    expect("a stub's 'for i in 0..n-1'",
           loop_bound_problems("s", "y[i] = max(x[i], 0) for i in 0..n-1."), True)
    expect("'rank outside 0 .. world - 1'",
           loop_bound_problems("s", "rank outside 0 .. world - 1"), True)
    expect("'for k in range(n)'", loop_bound_problems("s", "for k in range(n):"), True)
    expect("C's bounds", loop_bound_problems("h", "for (i = 1; i < n; i++) and x[j * n], "
                                             "..., x[j * n + n - 1]; see ../README.md"), False)

    headers = {"lib/a.h": "int f(int x);\nint g(void);", "lib/b.h": "int h(void);"}

    def decl(h, fn):
        return declares(h, fn, headers.get(h, ""))

    expect("a table row naming the wrong header",
           readme_table_problems("R", "| 01.2 | `f` | lib/b.h | y |\n", decl, {"f", "g"}), True)
    expect("a table row naming the right header",
           readme_table_problems("R", "| 01.2 | `f`, `g` | lib/a.h | `tensor_to` |\n", decl,
                                 {"f", "g"}), False)
    stub = ('/*\n * Lesson 01.\n * The shapes are in lib/b.h, next to each declaration.\n */\n'
            '/* TODO(ex01.1): f */\nint f(int x)\n{\n    return x;\n}\n')
    expect("a stub naming a header that declares none of its exercises",
           stub_header_problems("S", stub, decl), True)
    expect("a stub naming the right header",
           stub_header_problems("S", stub.replace("lib/b.h", "lib/a.h"), decl), False)
    listed = stub.replace("are in lib/b.h,", "are declared in lib/a.h (01.1) and lib/b.h (01.1)")
    expect("a stub listing an exercise under the wrong header",
           stub_header_problems("S", listed, decl), True)

    grader = ('/* ---- ex04.3 hooks ---- */\n'
              'static void j(void) {\n'
              '    expect_error("pre", ERR_ARG, "forward pre-hook 2 of Linear fc1: P: boom", "w");\n'
              '    ck_assert(strcmp(got_rc_msg("f"), "forward hook 2 of Linear fc1: Q: boom") == 0);\n'
              '    ck_assert(strstr(got_rc_msg("r"), "has been released"));\n'
              '}\n')
    docs = {"04.3": ("the hint", 'return err_context("forward hook %d of %s", i + 1, label);')}
    problems = message_problems("G", grader, docs)
    expect("a compared message no text quotes (the pre-hook's)",
           [p for p in problems if "pre-hook" in p], True)
    expect("a compared message the hint quotes",
           [p for p in problems if '"forward hook 2' in p], False)
    expect("a phrase no text says", [p for p in problems if "has been released" in p], True)
    docs["04.3"] = ("the hint", docs["04.3"][1] + '\n`"forward pre-hook 2 of Linear fc1: '
                    '<the hook\'s message>"`; lib\'s own error for a callable that has been '
                    "released")
    expect("the same messages, once quoted", message_problems("G", grader, docs), False)
    expect("a device message with other numbers",
           message_problems("G", '/* ---- ex02.1 p ---- */\nx = REFUSED(ERR_DEVICE, "cuda:7 '
                            'requested but only 1 CUDA device is visible");\n',
                            {"02.1": ("c", "`cuda:3 requested but only 2 CUDA devices are "
                                      "visible`")}), True)

    expect("a heading that repeats the project's name",
           heading_problems("p", "# Day 37 workbook: GPU training", "Day 37 workbook"), True)
    expect("a heading with a code span",
           heading_problems("p", "# GPU training and the `__call__` method", "W"), True)
    expect("a heading with escaped underscores",
           heading_problems("p", "# GPU training and the \\_\\_call\\_\\_ method", "W"), False)
    expect("a doubled HTML title",
           title_problems("i", "<title>W: W: GPU training and the &lt;tt&gt;x</title>", "W"), True)
    return failures


def main():
    if sys.argv[1:] == ["--self-test"]:
        failures = self_test()
        for f in failures:
            print(f)
        if not failures:
            print("student texts: the self-test finds every planted slip")
        return 1 if failures else 0
    if sys.argv[1:]:
        print("usage: python3 tests/student_texts.py [--self-test]", file=sys.stderr)
        return 2
    problems = []
    for check in (check_loop_bounds, check_declared_in, check_messages, check_titles):
        problems += check()
    for p in problems:
        print("student texts: " + p)
    if not problems:
        print("student texts: loop bounds as C writes them, every \"declared in\" true, every "
              "compared message written down, the site's titles plain")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
