"""`python -m corpus export`: every format into a temp dir, each validated by an independent reader."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import defusedxml.ElementTree as DET
from seqeval.metrics import f1_score
from seqeval.scheme import IOB2

from corpus.cli import main
from export_factory import build_sample
from test_export_formats import char_offsets, read_conll, spans_from_tags

ROOT = Path(__file__).resolve().parent.parent


def _conll_files(out: Path, fmt: str):
    return sorted((out / fmt).rglob("*.conll"))


def test_export_writes_every_format_and_each_validates(engine, sqlite_url, tmp_path, capsys):
    build_sample(engine)
    out = tmp_path / "out"
    # The sample's final choices are recorded ones: export them as they are (no automatic picks).
    assert main(["--db", sqlite_url, "export", "--out", str(out), "--id-comments", "--zip", "--no-auto-final"]) == 0
    captured = capsys.readouterr()
    assert "exported 5 sentences" in captured.out
    assert "untranslatable by majority 1" in captured.err

    for fmt in ("conll", "conll-en", "lince"):
        files = _conll_files(out, fmt)
        assert files, fmt
        for path in files:
            sentences = read_conll(path.read_text(encoding="utf-8"), columns=3 if fmt == "lince" else 2,
                                   ids=path.with_suffix(".ids.tsv").read_text(encoding="utf-8"))
            tags = [[row[-1] for row in rows] for _, rows in sentences]
            assert all(t in ("B", "I", "O") for seq in tags for t in seq)
            for seq in tags:
                spans_from_tags(seq)
            assert f1_score(tags, tags, mode="strict", scheme=IOB2) == 1.0
    hi = read_conll((out / "conll/train.conll").read_text(encoding="utf-8"),
                    ids=(out / "conll/train.ids.tsv").read_text(encoding="utf-8"))
    en = read_conll((out / "conll-en/train.conll").read_text(encoding="utf-8"),
                    ids=(out / "conll-en/train.ids.tsv").read_text(encoding="utf-8"))
    assert [sid for sid, _ in hi] == [sid for sid, _ in en]

    rows = [json.loads(line) for p in sorted((out / "jsonl").glob("*.jsonl"))
            for line in p.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 5
    by_id = {r["id"]: r for r in rows}
    for (sid, conll_rows) in hi:
        obj = by_id[sid]
        tokens = [r[0] for r in conll_rows]
        offsets = char_offsets(obj["text"], tokens)
        spans = spans_from_tags([r[1] for r in conll_rows])
        assert [(offsets[s][0], offsets[e - 1][1]) for s, e in spans] == [(a["from"], a["to"]) for a in obj["aspects"]]
    for obj in rows:
        for a in obj["aspects"]:
            assert obj["text"][a["from"]:a["to"]] == a["term"]

    for path in sorted((out / "semeval-xml").rglob("*.xml")):
        root = DET.parse(str(path)).getroot()
        assert root.tag == "sentences"
        for sentence in root.iter("sentence"):
            text = sentence.find("text").text
            for term in sentence.iter("aspectTerm"):
                assert text[int(term.get("from")):int(term.get("to"))] == term.get("term")

    tsv = (out / "tsv/train.tsv").read_text(encoding="utf-8").splitlines()
    assert all(len(line.split("\t")) == 6 for line in tsv)
    assert (out / "README.md").exists() and (out / "left_out.tsv").exists()
    with zipfile.ZipFile(out / "export.zip") as zf:
        assert "hindi-aspect-corpus/README.md" in zf.namelist()
        assert zf.read("hindi-aspect-corpus/metrics.json") == (out / "metrics.json").read_bytes()


def test_format_is_repeatable_and_limits_the_files(engine, sqlite_url, tmp_path):
    build_sample(engine)
    out = tmp_path / "out"
    assert main(["--db", sqlite_url, "export", "--out", str(out), "--format", "jsonl", "--format", "tsv",
                 "--layout", "combined", "--dev-fraction", "0.5"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "jsonl", "left_out.tsv", "metrics.json", "tsv"]
    assert not any(p.is_dir() for p in (out / "jsonl").iterdir())


def test_unknown_format_fails_with_where_message(engine, sqlite_url, tmp_path, capsys):
    assert main(["--db", sqlite_url, "export", "--out", str(tmp_path / "o"), "--format", "bogus"]) == 1
    assert capsys.readouterr().err.startswith("export: unknown format(s) bogus")
    assert not (tmp_path / "o").exists()


def test_module_entry_point_runs_export(engine, sqlite_url, tmp_path):
    build_sample(engine)
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-m", "corpus", "--db", sqlite_url, "export", "--out", str(out), "--format", "conll",
         "--pseudonymize", "--all-translations"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert (out / "conll" / "train.conll").exists()
