"""A TSV row is what the ``csv`` module writes of the record's six fields after tabs and line breaks became
spaces, whether or not a field needs quoting or a break replaced (rows that need neither are joined as
they are)."""

from __future__ import annotations

import csv
import io
import re
from dataclasses import replace

import pytest

from corpus.export.records import ExportSentence
from corpus.export.tsv import _row

RECORD = ExportSentence(
    uid="laptops/test/7", sentence_id="7", domain="laptops", split="test", en_text="The screen is bright.",
    en_aspects=(), en_tokens=(), en_tags=(), hi_text="स्क्रीन चमकदार है।", hi_tokens=(), hi_tags=(), hi_aspects=(),
    phase="blind", translator="t2",
)


def _csv_row(r: ExportSentence) -> str:
    out = io.StringIO()
    spaced = [re.sub(r"[\t\r\n\x0b\x0c\x85\u2028\u2029]+", " ", v)
              for v in (r.uid, r.domain, r.split, r.phase, r.en_text, r.hi_text)]
    csv.writer(out, delimiter="\t", lineterminator="\n").writerow(spaced)
    return out.getvalue()


@pytest.mark.parametrize("changes", [
    {},
    {"en_text": 'The "screen" is bright.'},
    {"hi_text": "स्क्रीन\tचमकदार\r\nहै।"},
    {"hi_text": 'एक "उद्धरण"\u2028और', "uid": 'laptops/test/"7"'},
    {"en_text": "tab\tand \"quote\""},
], ids=["plain", "quote", "breaks", "quote-and-break", "tab-and-quote"])
def test_tsv_row_is_what_the_csv_module_writes(changes):
    record = replace(RECORD, **changes)
    assert _row(record) == _csv_row(record)
