"""``tsv``: parallel English/Hindi sentence pairs for MT, with a header row.

Tabs and line breaks inside a text would break the format, so they are written as single spaces
(the card says so); no other character is changed. Fields are quoted by the ``csv`` module's rules
(``QUOTE_MINIMAL`` with a tab delimiter): a field holding ``"`` is written inside double quotes with
each ``"`` doubled, so pandas ``read_csv(sep="\\t")``, the ``datasets`` csv loader and
``csv.DictReader(delimiter="\\t")`` with their default options give back every row and every text as it is.
"""

from __future__ import annotations

import re

from corpus.export.options import FormatOptions, render_split_files
from corpus.export.records import ExportDataset, ExportSentence

HEADER = ("id", "domain", "split", "phase", "en", "hi")
_BREAKS = re.compile(r"[\t\r\n\x0b\x0c\x85\u2028\u2029]+")


def cell(text: str) -> str:
    """One field as ``csv.writer(delimiter="\\t", lineterminator="\\n")`` writes it after the breaks became
    spaces: quoted (and its quotes doubled) only when it holds a quote character."""
    text = _BREAKS.sub(" ", text)
    return '"' + text.replace('"', '""') + '"' if '"' in text else text


def _row(r: ExportSentence) -> str:
    fields = (r.uid, r.domain, r.split, r.phase, r.en_text, r.hi_text)
    try:
        together = "".join(fields)
    except TypeError:  # a field that is no string: as ``cell`` writes it
        together = None
    if together is not None and '"' not in together and not _BREAKS.search(together):
        return "\t".join(fields) + "\n"  # no field needs a change (nearly every row): one test for all six
    return "\t".join(cell(x) for x in fields) + "\n"


def format_tsv(dataset: ExportDataset, options: FormatOptions) -> dict[str, str]:
    return render_split_files(dataset, "tsv", "tsv", options, _row, header="\t".join(HEADER) + "\n")
