"""`python -m corpus export`: every format into a temp dir, each validated by an independent reader."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import defusedxml.ElementTree as DET

from cli.commands import main
from tests.support.export_factory import build_sample
from tests.support.export_reading import char_offsets, read_conll, spans_from_tags

ROOT = Path(__file__).resolve().parents[2]


def _conll_files(out: Path, fmt: str):
    return sorted((out / fmt).rglob("*.conll"))


def test_export_writes_every_format_and_each_validates(engine, sqlite_url, tmp_path, capsys):
    from seqeval.metrics import f1_score  # imports scikit-learn: here, not in every worker's collection
    from seqeval.scheme import IOB2

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


# --- export picks the final translations itself (issue 15, part 4) ----------------------------------

def _work_file(path: Path) -> Path:
    """Three translatable sentences, each with two aware and one blind translation, every translation
    tagged by two agreeing annotators, no final choice; and one sentence most translators found untranslatable."""
    from corpus.tokens import tokenize
    from tests.support.export_factory import tags_for

    lines = []
    sentences = [
        ("1", "The staff was horrible.", [("staff", 4, 9)], ["स्टाफ़ बहुत बुरा था।", "स्टाफ़ बहुत ख़राब था।", "स्टाफ़ बेहद बुरा था।"], "स्टाफ़"),
        ("2", "Great pizza here.", [("pizza", 6, 11)], ["यहाँ बढ़िया पिज़्ज़ा है।", "यहाँ का पिज़्ज़ा बढ़िया है।", "बढ़िया पिज़्ज़ा यहाँ।"], "पिज़्ज़ा"),
        ("3", "Nice view.", [], ["अच्छा नज़ारा।", "सुंदर नज़ारा।", "अच्छा दृश्य।"], None),
    ]
    for sid, text, aspects, hindi, term in sentences:
        lines.append({"type": "sentence", "id": sid, "domain": "restaurant", "split": "train", "text": text,
                      "aspects": [{"term": t, "from": a, "to": b, "polarity": "positive"} for t, a, b in aspects]})
        for (phase, translator), hi in zip((("aware", "asha"), ("aware", "ravi"), ("blind", "neha")), hindi):
            lines.append({"type": "translation", "sentence_id": sid, "phase": phase, "translator": translator,
                          "text": hi, "untranslatable": False})
            for annotator in ("meera", "kabir"):
                lines.append({"type": "annotation", "sentence_id": sid, "phase": phase, "translator": translator,
                              "annotator": annotator, "tokens": list(tokenize(hi)),
                              "tags": tags_for(hi, [term] if term else [])})
    lines.append({"type": "sentence", "id": "4", "domain": "laptop", "split": "test",
                  "text": "It was the icing on the cake.", "aspects": []})
    for translator, untranslatable in (("asha", True), ("ravi", True), ("neha", False)):
        lines.append({"type": "translation", "sentence_id": "4", "phase": "aware", "translator": translator,
                      "text": None if untranslatable else "वह केक पर आइसिंग थी।", "untranslatable": untranslatable,
                      **({"reason": "idiom"} if untranslatable else {})})
    hi = "वह केक पर आइसिंग थी।"
    for annotator in ("meera", "kabir"):
        lines.append({"type": "annotation", "sentence_id": "4", "phase": "aware", "translator": "neha",
                      "annotator": annotator, "tags": ["O"] * len(tokenize(hi))})
    path.write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in lines), encoding="utf-8")
    return path


def _final_rows(engine) -> list[tuple[int, int | None, int | None]]:
    from sqlalchemy import select
    from sqlalchemy.orm import Session

    from db.models import FinalChoice

    with Session(engine) as session:
        return [tuple(r) for r in session.execute(
            select(FinalChoice.sentence_id, FinalChoice.translation_id, FinalChoice.chosen_by).order_by(FinalChoice.id))]


def test_export_alone_after_a_work_file_exports_every_translatable_sentence(any_engine, tmp_path, capsys):
    engine, sqlite_url = any_engine, any_engine.url.render_as_string(hide_password=False)  # SQLite and PostgreSQL
    work = _work_file(tmp_path / "work.jsonl")
    assert main(["--db", sqlite_url, "import-work", str(work)]) == 0
    capsys.readouterr()
    out = tmp_path / "out"
    assert main(["--db", sqlite_url, "export", "--out", str(out), "--format", "jsonl"]) == 0
    captured = capsys.readouterr()
    # The rule picks sentence 4's lone translation as the page would; the export keeps the majority's verdict.
    assert "picked 4 final translation(s) by the automatic rule" in captured.err
    assert "exported 3 sentences" in captured.out
    assert "untranslatable by majority 1" in captured.err  # the automatic rule never overrules the majority
    rows = [json.loads(line) for line in (out / "jsonl" / "train.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sorted(r["sentence_id"] for r in rows) == ["1", "2", "3"]

    # Recorded as the app records them: one automatic row and one revision each; a second export picks nothing new.
    from sqlalchemy import func, select
    from sqlalchemy.orm import Session

    from db.models import Revision

    assert [chosen_by for _, _, chosen_by in _final_rows(engine)] == [None] * 4  # sentence 4's lone translation too
    with Session(engine) as session:
        assert session.scalar(select(func.count()).select_from(Revision).where(Revision.entity == "final_choice")) == 4
    assert main(["--db", sqlite_url, "export", "--out", str(tmp_path / "again"), "--format", "jsonl"]) == 0
    assert "picked 0 final translation(s)" in capsys.readouterr().err


def test_export_never_replaces_the_leads_decision_and_no_auto_final_picks_nothing(engine, sqlite_url, tmp_path,
                                                                                 capsys):
    from sqlalchemy import select
    from sqlalchemy.orm import Session

    from db.final_choice import choose
    from db.models import SourceSentence, Translation, User
    from tests.support.translation_fixtures import add_user

    assert main(["--db", sqlite_url, "import-work", str(_work_file(tmp_path / "work.jsonl"))]) == 0
    assert main(["--db", sqlite_url, "export", "--out", str(tmp_path / "none"), "--no-auto-final"]) == 0
    captured = capsys.readouterr()
    assert "picked" not in captured.out and "exported 0 sentences" in captured.out
    assert "no final translation 3" in captured.err
    assert _final_rows(engine) == []

    lead = add_user(engine, "lena", "lead")
    with Session(engine) as session:
        sentence = session.scalar(select(SourceSentence.id).where(SourceSentence.sentence_id == "1"))
        neha = session.scalar(select(User.id).where(User.username == "neha"))
        blind = session.scalar(select(Translation.id).where(Translation.sentence_id == sentence,
                                                            Translation.translator_id == neha))
    choose(engine, sentence, blind, lead, expected=None, note="reads best")
    assert main(["--db", sqlite_url, "export", "--out", str(tmp_path / "out"), "--format", "jsonl"]) == 0
    assert "picked 3 final translation(s)" in capsys.readouterr().err
    in_force = {}
    for sentence_id, translation_id, chosen_by in _final_rows(engine):
        in_force[sentence_id] = (translation_id, chosen_by)
    assert in_force[sentence] == (blind, lead)
    rows = [json.loads(line) for line in (tmp_path / "out" / "jsonl" / "train.jsonl").read_text("utf-8").splitlines()]
    assert {r["sentence_id"]: r["phase"] for r in rows}["1"] == "blind"


# --- English side of every imported sentence (issue 15, part 5) --------------------------------------

def test_source_only_writes_every_imported_sentence_with_bio_from_the_semeval_offsets(engine, sqlite_url, tmp_path,
                                                                                     capsys):
    from sqlalchemy import select
    from sqlalchemy.orm import Session

    from db.models import FinalChoice, SourceSentence

    build_sample(engine)
    with Session(engine) as session:
        everything = sorted(f"{d}/{s}/{i}" for d, s, i in session.execute(
            select(SourceSentence.domain, SourceSentence.split, SourceSentence.sentence_id)))
        finals_before = session.query(FinalChoice).count()
    out = tmp_path / "out"
    assert main(["--db", sqlite_url, "export", "--out", str(out), "--format", "conll-en", "--source-only",
                 "--id-comments"]) == 0
    assert f"exported {len(everything)} source sentences" in capsys.readouterr().out
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "conll-en", "left_out.tsv"]
    # The export's own file names: combined per split, and per domain and split.
    names = sorted(str(p.relative_to(out)) for p in (out / "conll-en").rglob("*.conll"))
    assert names == ["conll-en/laptop/test.conll", "conll-en/restaurant/test.conll", "conll-en/restaurant/train.conll",
                     "conll-en/test.conll", "conll-en/train.conll"]
    read = {}
    for split in ("train", "test"):
        path = out / "conll-en" / f"{split}.conll"
        for sid, rows in read_conll(path.read_text("utf-8"), ids=path.with_suffix(".ids.tsv").read_text("utf-8")):
            read[sid] = rows
    assert sorted(read) == everything  # translated or not, left out of the Hindi export or not
    assert read["restaurant/train/502"] == [["Nice", "O"], ["view", "B"], [".", "O"]]  # never given a final pick
    assert [r for r in read["restaurant/train/77"] if r[1] != "O"] == [["miso", "B"], ["soup", "I"], ["sushi", "B"]]
    assert "English" in (out / "README.md").read_text("utf-8")
    with Session(engine) as session:
        assert session.query(FinalChoice).count() == finals_before  # the source side needs no final picks


def test_source_only_refuses_hindi_formats_and_options_it_cannot_honour(engine, sqlite_url, tmp_path, capsys):
    build_sample(engine)
    assert main(["--db", sqlite_url, "export", "--out", str(tmp_path / "a"), "--source-only", "--format", "conll"]) == 1
    assert capsys.readouterr().err.startswith("--source-only: writes only conll-en")
    assert main(["--db", sqlite_url, "export", "--out", str(tmp_path / "b"), "--source-only", "--dev-fraction", "0.2"]) == 1
    assert "--dev-fraction" in capsys.readouterr().err
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
    assert main(["--db", sqlite_url, "export", "--out", str(tmp_path / "c"), "--source-only"]) == 0
    assert sorted(p.name for p in (tmp_path / "c").iterdir()) == ["README.md", "conll-en", "left_out.tsv"]


def test_a_domain_stored_before_names_were_checked_stops_the_export_before_any_file(engine, sqlite_url, tmp_path,
                                                                                    capsys):
    from sqlalchemy.orm import Session

    from tests.support.export_factory import Corpus

    build_sample(engine)
    with Session(engine) as session:
        c = Corpus(session)
        s = c.sentence("9", "Nice view.", [("view", 5, 9, "positive")], domain="../../escape")
        c.gold(s, "अच्छा नज़ारा।", ["नज़ारा"])
        session.commit()
    out = tmp_path / "out"
    assert main(["--db", sqlite_url, "export", "--out", str(out), "--no-auto-final"]) == 1
    assert "refusing to write outside the export directory" in capsys.readouterr().err
    assert not out.exists() or not any(out.rglob("*"))
    assert not (tmp_path / "escape").exists()
