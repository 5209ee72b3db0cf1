"""Non-finite numbers and deep nesting in every input are located errors (issue 31, N5 and N9): work files,
project archives, ``evaluate`` predictions, SemEval offsets. Never a stored NaN, never a RecursionError."""

from __future__ import annotations

import hashlib
import io
import json
import zipfile

import pytest

from corpus import json_input
from corpus.archive import ArchiveReader, ArchiveRefused, ColumnSpec, TableSpec, encode_row, write_archive
from corpus.evaluation import read_jsonl
from corpus.semeval import parse_semeval
from corpus.workfile import parse_work_file

DEEP = "[" * 100_000 + "]" * 100_000  # far past the parser's recursion limit
NON_FINITE = ["NaN", "Infinity", "-Infinity", "1e999", "-1e999"]
SENTENCE = {"type": "sentence", "id": "3121", "domain": "restaurant", "split": "train",
            "text": "But the staff was so horrible to us.", "aspects": [{"term": "staff", "from": 8, "to": 13}]}


def _work(*lines: str) -> bytes:
    return ("\n".join([json.dumps(SENTENCE), *lines]) + "\n").encode()


def _translation(time_spent: str) -> str:
    return ('{"type": "translation", "sentence_id": "3121", "phase": "aware", "translator": "asha", '
            f'"text": "लेकिन स्टाफ़ बुरा था।", "untranslatable": false, "time_spent_s": {time_spent}}}')


@pytest.mark.parametrize("value", NON_FINITE)
def test_json_input_refuses_non_finite_numbers_and_names_the_field(value):
    with pytest.raises(json_input.NotFinite) as refused:
        json_input.loads(f'{{"a": {{"b": [1, {value}]}}}}')
    assert refused.value.field == "a.b[1]"
    assert json_input.loads('{"a": 1.5e3, "b": -0.25}') == {"a": 1500.0, "b": -0.25}


def test_json_input_turns_deep_nesting_into_a_value_error():
    with pytest.raises(ValueError, match="nested too deeply"):
        json_input.loads(DEEP)


@pytest.mark.parametrize("value", NON_FINITE)
def test_a_work_file_with_a_non_finite_number_is_refused_at_its_line_naming_the_field(value):
    work, errors = parse_work_file(_work(_translation(value)), "w.jsonl")
    assert [(e.file, e.line, e.sentence_id) for e in errors] == [("w.jsonl", 2, "3121")]
    assert "time_spent_s" in errors[0].message and not work.translations


def test_a_work_file_line_nested_too_deeply_is_a_located_error():
    work, errors = parse_work_file(_work(DEEP), "w.jsonl")
    assert [(e.line, e.message) for e in errors] == [(2, "not valid JSON: nested too deeply to read")]


def test_a_huge_integer_time_is_refused_not_overflowed():
    _, errors = parse_work_file(_work(_translation("1" + "0" * 400)), "w.jsonl")
    assert len(errors) == 1 and "time_spent_s" in errors[0].message and errors[0].line == 2


@pytest.mark.parametrize("value", NON_FINITE)
def test_evaluate_predictions_with_a_non_finite_number_are_refused_at_their_line(value):
    data = (json.dumps({"id": "a", "tokens": ["x"], "tags": ["O"]}) + "\n"
            + f'{{"id": {value}, "tokens": ["y"], "tags": ["O"]}}\n').encode()
    sentences, errors = read_jsonl(data, "pred.jsonl")
    assert [(e.file, e.line) for e in errors] == [("pred.jsonl", 2)]
    assert "'id'" in errors[0].message and len(sentences) == 1


def test_evaluate_predictions_nested_too_deeply_are_a_located_error():
    _, errors = read_jsonl((DEEP + "\n").encode(), "pred.jsonl")
    assert [(e.line, e.message) for e in errors] == [(1, "not JSON: nested too deeply to read")]


@pytest.mark.parametrize("value", ["NaN", "Infinity", "1e999", "8.0"])
def test_semeval_offsets_that_are_not_integers_are_located_errors(value):
    xml = (f'<sentences><sentence id="7"><text>The staff was rude.</text><aspectTerms>'
           f'<aspectTerm term="staff" polarity="negative" from="{value}" to="9"/></aspectTerms></sentence>'
           '</sentences>').encode()
    records, errors = parse_semeval(xml, "r.xml", "restaurant", "train")
    assert len(errors) == 1 and errors[0].sentence_id == "7" and "not integers" in errors[0].message


# ------------------------------------------------------------------ archives

NOTES = TableSpec("notes", (ColumnSpec("id", "int", False), ColumnSpec("score", "float", True),
                            ColumnSpec("extra", "json", True)), ("id",))


def _archive(lines: bytes) -> bytes:
    """A well-formed archive (checksums right) whose notes file holds these lines."""
    out = io.BytesIO()
    write_archive(out, "0001", [(NOTES, [{"id": 1, "score": 1.0, "extra": None}])])
    src = zipfile.ZipFile(io.BytesIO(out.getvalue()))
    again = io.BytesIO()
    with zipfile.ZipFile(again, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in src.namelist():
            body = src.read(name)
            if name == "notes.jsonl":
                body = lines
            elif name == "manifest.json":
                doc = json.loads(body)
                doc["tables"][0].update(rows=lines.count(b"\n"), bytes=len(lines),
                                        sha256=hashlib.sha256(lines).hexdigest())
                body = json.dumps(doc).encode()
            zf.writestr(name, body)
    return again.getvalue()


def _read(data: bytes) -> list:
    with ArchiveReader(data, "a.zip", ("0001",)) as reader:
        return [row for _, row in reader.rows(NOTES, reader.manifest.tables[0])]


@pytest.mark.parametrize(("line", "message"), [
    (b'{"extra":null,"id":1,"score":1e999}\n', "field 'score' is Infinity"),
    (b'{"extra":{"deep":[-Infinity]},"id":1,"score":1}\n', "field 'extra.deep[0]' is -Infinity"),
    (b'{"extra":' + DEEP.encode() + b',"id":1,"score":1}\n', "nested too deeply"),
])
def test_an_archive_row_with_a_non_finite_number_or_deep_nesting_is_refused_at_its_line(line, message):
    with pytest.raises(ArchiveRefused) as refused:
        _read(_archive(line))
    assert refused.value.where == "a.zip/notes.jsonl:1" and message in refused.value.message


def test_an_archive_manifest_nested_too_deeply_is_refused_with_where():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr("manifest.json", '{"format": ' + DEEP + "}")
    with pytest.raises(ArchiveRefused) as refused:
        ArchiveReader(out.getvalue(), "a.zip", ("0001",))
    assert refused.value.where == "a.zip/manifest.json" and "nested too deeply" in refused.value.message


def test_a_row_holding_nan_cannot_be_archived_and_the_error_names_table_row_and_field():
    with pytest.raises(ValueError, match=r"notes row id=3: field 'score' is NaN"):
        encode_row(NOTES, {"id": 3, "score": float("nan"), "extra": None})
