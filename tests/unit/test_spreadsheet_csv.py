"""CSV downloads meant for spreadsheets never start a cell with a formula; numbers stay numbers."""

from __future__ import annotations

import csv
import io

import pandas as pd
import pytest

from corpus.spreadsheet import frame_csv, neutralise_cell, spreadsheet_csv


@pytest.mark.parametrize("cell, shown", [
    ("=HYPERLINK(\"http://127.0.0.1:9/x\",\"click\")", "'=HYPERLINK(\"http://127.0.0.1:9/x\",\"click\")"),
    ("+1+1", "'+1+1"), ("-2+3", "'-2+3"), ("@SUM(A1)", "'@SUM(A1)"), ("\t=1", "'\t=1"), ("\r=1", "'\r=1"),
    ("खाना =1", "खाना =1"), ("a-b", "a-b"), ("", ""), (-5, -5), (2.5, 2.5), (None, None),
])
def test_neutralise_cell_table(cell, shown):
    assert neutralise_cell(cell) == shown


def _cells(data: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode("utf-8"))))


def test_a_frame_of_hostile_text_downloads_as_text_cells():
    frame = pd.DataFrame({"sentence id": ["=1+1", "1634"], "text": ["@cmd", "The food was great"],
                          "aspects": [2, -1]})
    assert _cells(frame_csv(frame)) == [["sentence id", "text", "aspects"], ["'=1+1", "'@cmd", "2"],
                                        ["1634", "The food was great", "-1"]]


def test_dict_rows_and_a_hostile_header_are_neutralised():
    assert _cells(spreadsheet_csv([{"=x": "-y", "n": 3}])) == [["'=x", "n"], ["'-y", "3"]]
