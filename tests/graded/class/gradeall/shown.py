"""How a name from a submission is shown: on the terminal, in the report, in a CSV cell.

A folder name, a Gradescope `:name:` or a Canvas file name is whatever its author typed:
escape codes that retitle or clear a terminal, a right-to-left override that shows
another text than it holds, bytes that are not UTF-8 (Python holds them as the
surrogates of os.fsdecode), or a spreadsheet formula. escape() writes the characters
that would act or hide as escapes, by the rules of lib/core/err.h's err_escape(), so a
message, the report and the gradebook all show the same one-line text; csv_cell()
then keeps a spreadsheet from reading a cell as a formula, as OWASP's "CSV injection"
page recommends (a leading ' and the cell quoted).
"""
import re

# err_invisible() of lib/core/err.c: controls, format and bidi controls, fillers,
# variation selectors, private use, noncharacters
_INVISIBLE = ((0x0, 0x1f), (0x7f, 0x9f), (0xad, 0xad), (0x34f, 0x34f), (0x61c, 0x61c),
              (0x115f, 0x1160), (0x17b4, 0x17b5), (0x180b, 0x180f), (0x200b, 0x200f),
              (0x2028, 0x202e), (0x2060, 0x206f), (0x3164, 0x3164), (0xe000, 0xf8ff),
              (0xfdd0, 0xfdef), (0xfe00, 0xfe0f), (0xfeff, 0xfeff), (0xffa0, 0xffa0),
              (0xfff0, 0xfffb), (0x1bca0, 0x1bca3), (0x1d173, 0x1d17a), (0xe0000, 0xe007f),
              (0xe0100, 0xe01ef), (0xf0000, 0x10ffff))
_PLAIN = re.compile(r"[ -~]*")  # printable ASCII: nothing to escape (the common case)


def invisible(cp):
    """Whether code point cp is written as an escape (err_invisible())."""
    if cp & 0xfffe == 0xfffe or 0xd800 <= cp <= 0xdfff:
        return True
    return any(lo <= cp <= hi for lo, hi in _INVISIBLE)


def _one(ch):
    cp = ord(ch)
    if 0xdc80 <= cp <= 0xdcff:  # a byte that is not UTF-8, as os.fsdecode() keeps it
        return "\\x%02x" % (cp - 0xdc00)
    if not invisible(cp):
        return ch
    if ch in "\n\r\t":
        return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch]
    if cp < 0x80:
        return "\\x%02x" % cp
    return "\\u%04x" % cp if cp <= 0xffff else "\\U%08x" % cp


def escape(text, limit=None):
    """text (a str, or bytes read as UTF-8) as one line of visible characters: a newline,
    CR and tab as \\n, \\r, \\t, other controls and bytes that are not UTF-8 as \\xNN,
    invisible code points as \\uNNNN (U+202E shows as \\u202e); backslashes as they are.
    Longer than limit characters, it is cut and followed by '... (N characters)'."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "surrogateescape")
    text = str(text)
    tail = ""
    if limit is not None and len(text) > limit:
        tail, text = "... (%d characters)" % len(text), text[:limit]
    if _PLAIN.fullmatch(text):
        return text + tail
    return "".join(_one(ch) for ch in text) + tail


def is_plain(text):
    """Whether escape() leaves text as it is."""
    return escape(text) == text


# ---- CSV ------------------------------------------------------------------------------

# what makes a spreadsheet read a cell as a formula (OWASP, CWE-1236), with the full-width
# forms that some spreadsheets take as the same, and NUL
FORMULA_START = "=+-@\t\r\n\0\uff1d\uff0b\uff0d\uff20"
_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?(?:e[-+][0-9]+)?")  # what %g writes of a score


def csv_cell(value):
    """One CSV cell of value (escaped): quoted when it holds a comma, a quote or a leading
    or trailing space (RFC 4180); and when it starts as a formula would, a ' before it and
    the cell quoted, so that Excel, LibreOffice and Sheets show it as text. A number the
    grader wrote (-1.5, 2e+06) stays a number."""
    text = escape("" if value is None else value)
    if text[:1] and text[0] in FORMULA_START and not _NUMBER.fullmatch(text):
        return '"\'%s"' % text.replace('"', '""')
    if any(c in text for c in ',"') or text != text.strip():
        return '"%s"' % text.replace('"', '""')
    return text


def csv_row(values):
    return ",".join(csv_cell(v) for v in values) + "\n"


def csv_value(cell):
    """What a cell read back by a CSV reader stood for before csv_cell() neutralised it
    (a reader of summary.csv that wants the names back)."""
    if cell[:2] and cell[0] == "'" and cell[1:2] in FORMULA_START:
        return cell[1:]
    return cell
