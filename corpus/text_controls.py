"""Control characters inside a translation: what a save makes of them, and what a work file may not hold.

A translation is one line of text: every export format (TSV, CoNLL, JSONL read line by line, SemEval XML
offsets) breaks or shifts on a line break or a control character inside it, and a carriage return pasted
from another program is invisible in the form. A save therefore normalises them (``one_line_text``); a work
file, which the project writes itself and which must round-trip unchanged, is refused instead
(``line_break_in``), with the character and its position.
"""

from __future__ import annotations

import re

#: Line breaks: every character ``str.splitlines`` splits on (CR LF counts as one break). LF, CR, VT, FF,
#: FS, GS, RS, NEL (U+0085), LINE SEPARATOR (U+2028) and PARAGRAPH SEPARATOR (U+2029). The tab joins them:
#: it separates words like a space and fields in TSV.
_BREAKS = "\r\n|[\n\r\t\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]"
#: The other C0 controls (U+0000-U+001F), DEL (U+007F) and the other C1 controls (U+0080-U+009F).
_OTHER_CONTROLS = "[\x00-\x08\x0e-\x1b\x1f\x7f\x80-\x84\x86-\x9f]"
_PATTERN = re.compile(f"({_BREAKS})|{_OTHER_CONTROLS}")
_BREAK_IN_FILE = re.compile("[\n\r\t\x0b\x0c\x1c\x1d\x1e\x85]")

_NAMES = {"\n": "line feed", "\r": "carriage return", "\t": "tab", "\x0b": "vertical tab", "\x0c": "form feed",
          "\x1c": "file separator", "\x1d": "group separator", "\x1e": "record separator", "\x85": "next line",
          "\u2028": "line separator", "\u2029": "paragraph separator"}


def one_line_text(text: str) -> str:
    """``text`` as a translation is stored: each line break (CR LF, LF, CR, VT, FF, FS, GS, RS, NEL, U+2028,
    U+2029; CR LF as one) and each tab becomes one space; every other C0 control (U+0000-U+001F), DEL
    (U+007F) and C1 control (U+0080-U+009F) is removed. Nothing else changes: spaces are not collapsed, and
    ZWJ/ZWNJ, bidi marks and every printable character stay. Idempotent."""
    if text.isprintable():
        return text  # the usual text: no control, no separator
    return _PATTERN.sub(lambda m: " " if m.group(1) else "", text)


def line_break_in(text: str) -> str | None:
    """The first control character that breaks ``text``'s line (LF, CR, VT, FF, FS, GS, RS, NEL) or a tab, as
    ``U+000D (carriage return) at position 12``, or None. LINE and PARAGRAPH SEPARATOR (U+2028, U+2029) are
    not controls: a work file keeps them as they are (only a save makes them spaces). The other control
    characters are ``corpus.workfile.check_string``'s."""
    if text.isprintable():
        return None
    found = _BREAK_IN_FILE.search(text)
    if found is None:
        return None
    char = found.group()
    return f"U+{ord(char):04X} ({_NAMES[char]}) at position {found.start()}"


def breaks_as_spaces(text: str) -> str:
    """Each character ``line_break_in`` refuses, replaced by one space, so a translation stored before saves
    made it one line still goes into a work file that its import accepts (CR LF becomes two spaces: the
    length stays, so aspect-map offsets still point at the same words)."""
    if text.isprintable():
        return text
    return _BREAK_IN_FILE.sub(" ", text)
