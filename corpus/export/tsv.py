"""``tsv``: parallel English/Hindi sentence pairs for MT, with a header row.

Tabs and line breaks inside a text would break the format, so they are written as single spaces
(the card says so); no other character is changed.
"""

from __future__ import annotations

import re

from corpus.export.options import FormatOptions, render_split_files
from corpus.export.records import ExportDataset, ExportSentence

HEADER = ("id", "domain", "split", "phase", "en", "hi")
_BREAKS = re.compile(r"[\t\r\n\x0b\x0c\x85\u2028\u2029]+")


def _cell(text: str) -> str:
    return _BREAKS.sub(" ", text)


def _row(r: ExportSentence) -> str:
    return "\t".join(_cell(x) for x in (r.uid, r.domain, r.split, r.phase, r.en_text, r.hi_text)) + "\n"


def format_tsv(dataset: ExportDataset, options: FormatOptions) -> dict[str, str]:
    return render_split_files(dataset, "tsv", "tsv", options, _row, header="\t".join(HEADER) + "\n")
