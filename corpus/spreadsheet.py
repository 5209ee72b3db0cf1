"""CSV files meant for a spreadsheet: no cell can start a formula.

A cell starting with ``= + - @`` (or a tab or carriage return, which some spreadsheets skip before
one) is read by Excel, LibreOffice and Google Sheets as a formula, so an imported sentence or a
username like ``=HYPERLINK(...)`` would run when a lead opens the download (OWASP "CSV injection").
Such a text cell gets a leading apostrophe, which spreadsheets show as text. Numbers stay numbers.
Dataset files for programs (CoNLL, TSV, JSONL exports) do not go through this: they stay byte-exact.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralise_cell(value: object) -> object:
    """The value, or for text that a spreadsheet would take as a formula, that text after an apostrophe."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def spreadsheet_csv(rows: Iterable[Mapping[str, object]] | Iterable[Sequence[object]],
                    header: Sequence[str] | None = None) -> bytes:
    """UTF-8 CSV of dict rows (header from the first row's keys unless given) or of sequences under
    ``header``; every text cell neutralised, header too."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    rows = list(rows)
    if header is None and rows and isinstance(rows[0], Mapping):
        header = list(rows[0].keys())
    if header is not None:
        writer.writerow([neutralise_cell(h) for h in header])
    for row in rows:
        values = [row.get(h) for h in header] if isinstance(row, Mapping) else list(row)
        writer.writerow(["" if v is None else neutralise_cell(v) for v in values])
    return out.getvalue().encode("utf-8")


def frame_csv(frame) -> bytes:
    """``spreadsheet_csv`` of a pandas DataFrame (index left out); NaN cells are empty."""
    header = [str(c) for c in frame.columns]
    rows = ([None if _is_missing(v) else v for v in row] for row in frame.itertuples(index=False, name=None))
    return spreadsheet_csv(rows, header)


def _is_missing(value: object) -> bool:
    return isinstance(value, float) and value != value
