"""Every export format read back by the library trainers use, with its default options (issue 28, part 1).

A tiny project whose translations hold what breaks naive writers: a text that starts with a quote, a
vertical tab, a carriage return (CRLF) inside the sentence, ``</text>``, a final ``.`` instead of the
danda, an aspect-blind final translation (no aspect map of its own) and a term no map links. The
export goes through ``python -m corpus export``; the JSONL is the reference every other reader's
rows, tokens and tags must equal.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from cli.commands import main
from corpus.export.hub import CONLL_COLUMNS
from db.engine import make_engine
from db.models import FinalChoice
from tests.support.databases import copy_of
from tests.support.export_factory import Corpus

ROOT = Path(__file__).resolve().parents[2]
POLARITIES = {"positive", "negative", "neutral", "conflict"}


def build_tricky(engine) -> None:
    with Session(engine) as session:
        c = Corpus(session)
        s = c.sentence("1", '"Great" pasta, said the waiter.', [("pasta", 8, 13, "positive")])
        c.gold(s, '"बढ़िया" पास्ता, वेटर ने कहा।', ["पास्ता"], links={0: "पास्ता"})
        s = c.sentence("2", "The food was good.", [("food", 4, 8, "positive")])
        c.gold(s, "खाना\r\nअच्छा था।", ["खाना"], links={0: "खाना"})
        s = c.sentence("3", "Service </text> fine, the decor odd.",
                       [("Service", 0, 7, "neutral"), ("decor", 26, 31, "negative")])
        # The final translation is an aspect-blind one: its aspects are linked through the aware map's words.
        c.translation(s, "asha", "aware", "सर्विस </text> ठीक, सजावट अजीब।", links={0: "सर्विस", 1: "सजावट"})
        c.gold(s, "सर्विस </text> ठीक\x0bथी, डेकोर अजीब.", ["सर्विस", "डेकोर"], translator="ravi", phase="blind")
        s = c.sentence("4", "Nice staff.", [("staff", 5, 10, "positive")], split="test")
        c.gold(s, "अच्छा स्टाफ़।", ["स्टाफ़"], links={0: "स्टाफ़"})
        s = c.sentence("5", "The keyboard is \"fine\".", [("keyboard", 4, 12, "positive")], domain="laptop")
        c.gold(s, "कीबोर्ड \"ठीक\" है।", ["कीबोर्ड"], links={0: "कीबोर्ड"})
        s = c.sentence("6", "Battery life: short!", [("Battery life", 0, 12, "negative")], domain="laptop",
                       split="test")
        c.gold(s, "बैटरी लाइफ़: कम!", ["बैटरी लाइफ़"], links={0: "बैटरी लाइफ़"})
        session.commit()


@pytest.fixture(scope="module")
def exported(migrated_sqlite, tmp_path_factory):
    """The tricky project's export, made once for the module: the tests only read its files."""
    folder = tmp_path_factory.mktemp("exported")
    url = copy_of(migrated_sqlite, folder / "corpus.db")
    engine = make_engine(url)
    build_tricky(engine)
    engine.dispose()
    out = folder / "out"
    assert main(["--db", url, "export", "--out", str(out), "--id-comments", "--no-auto-final"]) == 0
    return out


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_the_tricky_texts_are_exported_on_one_line_with_offsets_that_hold(exported):
    rows = _jsonl(exported / "jsonl/train.jsonl") + _jsonl(exported / "jsonl/test.jsonl")
    assert len(rows) == 6
    by_id = {r["sentence_id"]: r for r in rows}
    assert by_id["2"]["text"] == "खाना  अच्छा था।"  # CR and LF: one space each, offsets unchanged
    assert by_id["3"]["text"] == "सर्विस </text> ठीक थी, डेकोर अजीब."
    assert by_id["1"]["text"].startswith('"')
    for r in rows:
        for a in r["aspects"]:
            assert r["text"][a["from"]:a["to"]] == a["term"]


def test_tsv_reads_back_row_for_row_with_pandas_csv_and_datasets(exported, tmp_path):
    import pandas as pd
    from datasets import load_dataset

    for split in ("train", "test"):
        reference = _jsonl(exported / f"jsonl/{split}.jsonl")
        path = exported / f"tsv/{split}.tsv"
        frame = pd.read_csv(path, sep="\t", dtype=str, keep_default_na=False)
        assert list(frame["id"]) == [r["id"] for r in reference]
        assert list(frame["hi"]) == [r["text"] for r in reference]
        assert list(frame["en"]) == [r["en_text"] for r in reference]
        with path.open(encoding="utf-8", newline="") as f:
            rows = list(csv.DictReader(f, delimiter="\t"))
        assert [(r["id"], r["hi"], r["en"]) for r in rows] == [(r["id"], r["text"], r["en_text"]) for r in reference]
    tsv = load_dataset(str(exported / "tsv"), cache_dir=str(tmp_path / "hf"))
    for split in ("train", "test"):
        reference = _jsonl(exported / f"jsonl/{split}.jsonl")
        assert tsv[split]["hi"] == [r["text"] for r in reference]


def test_datasets_loads_each_split_once_from_the_export_and_every_config(exported, tmp_path):
    from datasets import load_dataset

    cache = str(tmp_path / "hf")
    combined = {s: _jsonl(exported / f"jsonl/{s}.jsonl") for s in ("train", "test")}
    for folder in (exported, exported / "jsonl"):
        loaded = load_dataset(str(folder), cache_dir=cache)
        assert {s: loaded[s].num_rows for s in loaded} == {"train": 4, "test": 2}
        assert loaded["train"]["id"] == [r["id"] for r in combined["train"]]
        assert loaded["test"]["tags"] == [r["tags"] for r in combined["test"]]
        for domain in ("restaurant", "laptop"):
            one = load_dataset(str(folder), domain, cache_dir=cache)
            for split in ("train", "test"):
                assert one[split]["id"] == [r["id"] for r in combined[split] if r["domain"] == domain]
    for fmt in ("conll", "conll-en", "lince"):
        loaded = load_dataset(str(exported / fmt), cache_dir=cache, column_names=CONLL_COLUMNS[fmt])
        assert set(loaded) == {"train", "test"}  # the .ids.tsv side files are not read
        for split in ("train", "test"):
            tokens = "en_tokens" if fmt == "conll-en" else "tokens"
            tags = "en_tags" if fmt == "conll-en" else "tags"
            assert loaded[split]["tokens"] == [r[tokens] for r in combined[split]]
            assert loaded[split]["tags"] == [r[tags] for r in combined[split]]
        if fmt == "lince":
            assert loaded["train"]["lid"] == [r["lid"] for r in combined["train"]]


def test_nltk_and_seqeval_read_the_conll_as_the_jsonl_says(exported):
    import nltk
    from nltk.corpus.reader import ConllCorpusReader
    from seqeval.metrics.sequence_labeling import get_entities

    for split in ("train", "test"):
        reference = _jsonl(exported / f"jsonl/{split}.jsonl")
        if str(exported / "conll") not in nltk.data.path:
            nltk.data.path.append(str(exported / "conll"))  # NLTK reads only from the directories it is told about
        reader = ConllCorpusReader(str(exported / "conll"), [f"{split}.conll"], ("words", "pos"))
        sents = reader.tagged_sents()
        assert [[w for w, _ in s] for s in sents] == [r["tokens"] for r in reference]
        assert [[t for _, t in s] for s in sents] == [r["tags"] for r in reference]
        for s, r in zip(sents, reference):
            spans = [(start, end + 1) for _, start, end in get_entities([t for _, t in s])]
            assert spans == [(a["token_from"], a["token_to"]) for a in r["aspects"]]


def test_every_semeval_aspect_term_has_a_polarity_and_offsets_into_its_text(exported):
    terms = {}
    for path in sorted((exported / "semeval-xml").rglob("*.xml")):
        for sentence in ET.parse(path).getroot().iter("sentence"):
            text = sentence.find("text").text
            for term in sentence.iter("aspectTerm"):
                assert text[int(term.attrib["from"]):int(term.attrib["to"])] == term.attrib["term"]
                terms[(sentence.attrib["id"], term.attrib["term"])] = term.attrib["polarity"]
    assert all(p in POLARITIES | {""} for p in terms.values())
    # The blind final translation of sentence 3: "सर्विस" takes the aware map's link, "डेकोर" no map names.
    assert terms[("3", "सर्विस")] == "neutral" and terms[("3", "डेकोर")] == ""
    assert terms[("1", "पास्ता")] == "positive"
    card = (exported / "README.md").read_text(encoding="utf-8")
    assert "1 of 7 Hindi aspect terms are linked to none" in card


def test_the_project_imports_its_own_semeval_export(exported, tmp_path):
    url = f"sqlite:///{tmp_path / 'again.db'}"
    for path in sorted((exported / "semeval-xml").rglob("*.xml")):
        domain, split = path.parent.name, path.stem
        assert main(["--db", url, "import-semeval", str(path), "--domain", domain, "--split", split]) == 0, path


def test_the_card_reports_sentences_that_do_not_end_with_the_danda(exported):
    card = (exported / "README.md").read_text(encoding="utf-8")
    assert "4 of 6 Hindi sentences end with the danda `।`; 2 end otherwise:" in card
    assert "| full stop `.` | 1 | `restaurant/train/3` |" in card
    assert "| exclamation mark `!` | 1 | `laptop/test/6` |" in card


def test_spacy_converts_the_typed_conll_and_refuses_the_plain_one(engine, sqlite_url, tmp_path):
    pytest.importorskip("spacy")
    build_tricky(engine)
    typed, plain = tmp_path / "typed", tmp_path / "plain"
    assert main(["--db", sqlite_url, "export", "--out", str(typed), "--format", "conll", "--layout", "combined",
                 "--tag-style", "typed", "--no-auto-final"]) == 0
    assert main(["--db", sqlite_url, "export", "--out", str(plain), "--format", "conll", "--layout", "combined",
                 "--no-auto-final"]) == 0
    assert "B-ASP" in (typed / "conll/train.conll").read_text(encoding="utf-8")
    assert set((plain / "conll/train.conll").read_text(encoding="utf-8").split()) >= {"B", "O"}
    converted = tmp_path / "spacy"
    converted.mkdir()
    proc = subprocess.run([sys.executable, "-m", "spacy", "convert", str(typed / "conll/train.conll"),
                           str(converted), "--converter", "ner", "--lang", "xx"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    from spacy.tokens import DocBin
    from spacy.vocab import Vocab

    docs = list(DocBin().from_disk(converted / "train.spacy").get_docs(Vocab()))
    ents = [(e.text, e.label_) for d in docs for e in d.ents]
    assert ("पास्ता", "ASP") in ents and ("सर्विस", "ASP") in ents and len(ents) == 5
    # A short `spacy train` (a blank multi-language NER pipeline, three steps) takes the converted file.
    config = tmp_path / "ner.cfg"
    spacy_cli = [sys.executable, "-m", "spacy"]
    made = subprocess.run(spacy_cli + ["init", "config", str(config), "--lang", "xx", "--pipeline", "ner"],
                          capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stderr
    trained = subprocess.run(spacy_cli + ["train", str(config), "--paths.train", str(converted / "train.spacy"),
                                          "--paths.dev", str(converted / "train.spacy"), "--training.max_steps", "3",
                                          "--output", str(tmp_path / "model")],
                             capture_output=True, text=True, timeout=300)
    assert trained.returncode == 0, trained.stdout[-2000:] + trained.stderr[-2000:]
    assert (tmp_path / "model" / "model-last" / "ner").is_dir()
    refused = subprocess.run([sys.executable, "-m", "spacy", "convert", str(plain / "conll/train.conll"),
                              str(tmp_path), "--converter", "ner", "--lang", "xx"],
                             capture_output=True, text=True, timeout=300)
    assert refused.returncode != 0 or not (tmp_path / "train.spacy").exists()


# --- all or nothing (issue 28, part 2) -------------------------------------------------------------


def _final_rows(engine) -> int:
    with Session(engine) as session:
        return session.scalar(select(func.count()).select_from(FinalChoice))


def _with_unpicked_sentence(engine) -> None:
    """The tricky project, its final choices made by a lead, and one sentence nobody has decided yet."""
    build_tricky(engine)
    with Session(engine) as session:
        c = Corpus(session)
        lead = c.user("lena", "lead")
        session.execute(update(FinalChoice).values(chosen_by=lead.id))
        s = c.sentence("7", "Good rice.", [("rice", 5, 9, "positive")])
        t = c.translation(s, "asha", "aware", "अच्छे चावल।", links={0: "चावल"})
        c.translation(s, "ravi", "aware", "बढ़िया चावल।", links={0: "चावल"})
        item = c.item(t)
        from tests.support.export_factory import tags_for

        for a in ("meera", "kabir"):
            c.annotate(item, a, tags_for("अच्छे चावल।", ["चावल"]))
        session.commit()


def test_an_export_into_an_unwritable_folder_writes_nothing_and_records_no_pick(engine, sqlite_url, tmp_path, capsys):
    _with_unpicked_sentence(engine)
    before = _final_rows(engine)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    assert main(["--db", sqlite_url, "export", "--out", str(blocker / "out")]) == 1
    err = capsys.readouterr().err
    assert "cannot write" in err and "no final pick was recorded" in err and "Traceback" not in err
    assert _final_rows(engine) == before
    # A folder that exists but where one file cannot be made: nothing is left behind either.
    out = tmp_path / "out"
    (out / "jsonl").mkdir(parents=True)
    (out / "jsonl" / "restaurant").write_text("a file where a folder must go")
    assert main(["--db", sqlite_url, "export", "--out", str(out)]) == 1
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*")) == ["jsonl", "jsonl/restaurant"]
    assert _final_rows(engine) == before
    assert main(["--db", sqlite_url, "export", "--out", str(tmp_path / "ok")]) == 0
    assert "picked 1 final translation(s)" in capsys.readouterr().err
    assert _final_rows(engine) == before + 1


def test_dry_run_says_what_would_be_picked_and_writes_nothing(engine, sqlite_url, tmp_path, capsys):
    _with_unpicked_sentence(engine)
    before = _final_rows(engine)
    out = tmp_path / "out"
    assert main(["--db", sqlite_url, "export", "--out", str(out), "--dry-run", "--json"]) == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    assert summary["dry_run"] is True and summary["auto_final"]["planned"] == 1
    assert summary["sentences"] == 7 and summary["splits"] == {"train": 5, "test": 2}
    assert "would pick 1 final translation(s)" in captured.err
    assert not out.exists() and _final_rows(engine) == before


def test_a_read_only_database_exports_and_says_the_picks_were_not_recorded(engine, sqlite_url, tmp_path, capsys,
                                                                           monkeypatch):
    monkeypatch.chdir(tmp_path)  # db.engine makes the "parent folder" of a file: URI relative to the working one
    _with_unpicked_sentence(engine)
    before = _final_rows(engine)
    engine.dispose()
    path = sqlite_url.removeprefix("sqlite:///")
    read_only = f"sqlite:///file:{path}?mode=ro&uri=true"
    out = tmp_path / "out"
    assert main(["--db", read_only, "export", "--out", str(out), "--json"]) == 0
    captured = capsys.readouterr()
    assert "read-only" in captured.err and "not recorded" in captured.err and "Traceback" not in captured.err
    summary = json.loads(captured.out)
    assert summary["auto_final"] == {"planned": 1, "recorded": None, "policy": summary["auto_final"]["policy"]}
    assert summary["sentences"] == 7  # the automatic pick was used for the export
    assert _final_rows(engine) == before
