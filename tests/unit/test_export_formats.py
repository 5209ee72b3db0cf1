"""Formatters over plain records: every format re-read by an independent reader gives the stored spans."""

from __future__ import annotations

import csv
import io
import json
import zipfile

import defusedxml.ElementTree as DET
import pyarrow.json as pajson
import pytest
from seqeval.metrics import f1_score
from seqeval.metrics.sequence_labeling import get_entities
from seqeval.scheme import IOB2

from corpus.export import FORMATS, build_files
from corpus.export.options import FormatOptions
from corpus.export.records import (
    Alignment,
    EnglishAspect,
    ExportDataset,
    RecordProblem,
    build_sentence,
)
from corpus.export.splits import apply_dev_split, carve_dev, iterative_stratification, split_divergence
from corpus.export import writer
from corpus.export.writer import write_directory, zip_bytes
from corpus.tokens import normalize, tokenize
from tests.support.export_reading import char_offsets, read_conll, spans_from_tags

# (case, English text, English aspects, Hindi text, Hindi aspect terms, links {english position: hindi term})
CASES = [
    ("nukta", "But the staff was so horrible to us.", [("staff", 8, 13, "negative")],
     "लेकिन स्टाफ़ हमारे साथ बहुत बुरा था।", ["स्टाफ़"], {0: "स्टाफ़"}),
    ("precomposed-nukta", "The food was awful.", [("food", 4, 8, "negative")],
     "खाना बहुत \u095eीका था।", ["खाना"], {0: "खाना"}),
    ("zwj", "The screen is bright.", [("screen", 4, 10, "positive")],
     "स्\u200dक्रीन चमकदार है।", ["स्\u200dक्रीन"], {0: "स्\u200dक्रीन"}),
    ("roman-proper-noun", "I went to Brooklyn for the miso soup.", [("miso soup", 27, 36, "positive")],
     "मैं मिसो सूप के लिए Brooklyn गया।", ["मिसो सूप"], {0: "मिसो सूप"}),
    ("empty-aspects", "Brooklyn is great.", [], "Brooklyn बढ़िया है।", [], {}),
    ("multi-word-split", "The everything bagel with lox spread was good.",
     [("everything bagel with lox spread", 4, 36, "positive")],
     "लॉक्स स्प्रेड के साथ एवरीथिंग बेगल अच्छा था।", ["लॉक्स स्प्रेड", "एवरीथिंग बेगल"],
     {0: "लॉक्स स्प्रेड के साथ एवरीथिंग बेगल"}),
    ("adjacent-and-final", "Sushi, rice were fine; try the hard drive",
     [("Sushi", 0, 5, "positive"), ("rice", 7, 11, "positive"), ("hard drive", 31, 41, "neutral")],
     "सुशी चावल ठीक थे; हार्ड ड्राइव", ["सुशी", "चावल", "हार्ड ड्राइव"], {0: "सुशी", 1: "चावल", 2: "हार्ड ड्राइव"}),
    ("xml-special", 'Food & drinks <cheap> "great"', [("drinks", 7, 13, "positive")],
     'खाना & ड्रिंक्स <सस्ते> "बढ़िया"', ["ड्रिंक्स"], {0: "ड्रिंक्स"}),
]


def _tags(text: str, terms: list[str]) -> list[str]:
    from corpus.bio import char_spans_to_tags
    from corpus.tokens import tokenize_with_offsets

    text = normalize(text)
    spans, pos = [], 0
    for term in terms:
        start = text.index(normalize(term), pos)
        spans.append((start, start + len(normalize(term))))
        pos = start + 1
    return char_spans_to_tags(tokenize_with_offsets(text), spans)


def make_record(case, split="train", domain="restaurant", phase="aware", translator="asha"):
    name, en, en_aspects, hi, terms, links = case
    norm = normalize(hi)
    alignments = [Alignment(p, norm.index(normalize(t)), norm.index(normalize(t)) + len(normalize(t)))
                  for p, t in links.items()]
    return build_sentence(
        uid=f"{domain}/{split}/{name}", sentence_id=name, domain=domain, split=split, en_text=en,
        en_aspects=[EnglishAspect(t, s, e, p, i) for i, (t, s, e, p) in enumerate(en_aspects)],
        hi_text=hi, frozen_tokens=tokenize(hi), tags=_tags(hi, terms), phase=phase, translator=translator,
        alignments=alignments, categories=[("food", "positive")] if name == "nukta" else [],
    )


def dataset(cases=CASES) -> ExportDataset:
    recs = [make_record(c, split="test" if i % 3 == 2 else "train", domain="laptop" if i % 4 == 3 else "restaurant")
            for i, c in enumerate(cases)]
    return ExportDataset(recs)


# --- independent readers (no corpus.bio, no corpus.tokens) ------------------------------------------


# --- tests ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_hindi_spans_satisfy_text_slice_equals_term(case):
    rec = make_record(case)
    assert rec.hi_text == normalize(case[3])
    assert [a.term for a in rec.hi_aspects] == [normalize(t) for t in case[4]]
    for a in rec.hi_aspects:
        assert rec.hi_text[a.start:a.end] == a.term
        assert "".join(rec.hi_tokens[a.token_start:a.token_end]) == a.term.replace(" ", "")


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_conll_round_trip_gives_stored_spans(case):
    ds = ExportDataset([make_record(case)])
    files = build_files(ds, ["conll"], FormatOptions(id_comments=True, layout="combined"))
    [(sid, rows)] = read_conll(files["conll/train.conll"], ids=files["conll/train.ids.tsv"])
    rec = ds.sentences[0]
    assert sid == rec.uid
    tokens, tags = [r[0] for r in rows], [r[1] for r in rows]
    spans = spans_from_tags(tags)
    assert spans == [(a.token_start, a.token_end) for a in rec.hi_aspects]
    offsets = char_offsets(rec.hi_text, tokens)
    assert [(offsets[s][0], offsets[e - 1][1]) for s, e in spans] == [(a.start, a.end) for a in rec.hi_aspects]
    assert [rec.hi_text[offsets[s][0]:offsets[e - 1][1]] for s, e in spans] == [a.term for a in rec.hi_aspects]
    assert [(s, e) for _, s, e in get_entities(tags)] == [(s, e - 1) for s, e in spans]  # seqeval: inclusive end


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_conll_en_is_parallel_and_follows_semeval_offsets(case):
    rec = make_record(case)
    ds = ExportDataset([rec])
    files = build_files(ds, ["conll", "conll-en"], FormatOptions(layout="combined"))
    [(_, rows)] = read_conll(files["conll-en/train.conll"])
    tokens, tags = [r[0] for r in rows], [r[1] for r in rows]
    offsets = char_offsets(rec.en_text, tokens)
    expected = []
    for term, start, end, _ in case[2]:
        inside = [i for i, (s, e) in enumerate(offsets) if s < end and e > start]
        expected.append((inside[0], inside[-1] + 1))
    assert spans_from_tags(tags) == sorted(expected)
    assert len(read_conll(files["conll/train.conll"])) == len(read_conll(files["conll-en/train.conll"]))


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_jsonl_round_trip_gives_stored_spans(case):
    rec = make_record(case)
    files = build_files(ExportDataset([rec]), ["jsonl"], FormatOptions(layout="combined"))
    [obj] = [json.loads(line) for line in files["jsonl/train.jsonl"].splitlines()]
    assert obj["text"] == rec.hi_text and obj["tokens"] == list(rec.hi_tokens)
    assert [(a["from"], a["to"]) for a in obj["aspects"]] == [(a.start, a.end) for a in rec.hi_aspects]
    for a in obj["aspects"]:
        assert obj["text"][a["from"]:a["to"]] == a["term"]
        assert (a["token_from"], a["token_to"]) in spans_from_tags(obj["tags"])
    for a in obj["en_aspects"]:
        assert obj["en_text"][a["from"]:a["to"]] == a["term"]
    assert [a["polarity"] for a in obj["aspects"]] == [a.polarity for a in rec.hi_aspects]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_semeval_xml_round_trip_gives_stored_spans(case):
    rec = make_record(case)
    files = build_files(ExportDataset([rec]), ["semeval-xml"])
    root = DET.fromstring(files["semeval-xml/restaurant/train.xml"].encode("utf-8"))
    assert root.tag == "sentences"
    [sentence] = root.findall("sentence")
    assert sentence.get("id") == rec.sentence_id
    assert [c.tag for c in sentence] == ["text"] + (["aspectTerms"] if rec.hi_aspects else []) + (
        ["aspectCategories"] if rec.categories else [])
    text = sentence.find("text").text
    assert text == rec.hi_text
    terms = sentence.findall("aspectTerms/aspectTerm")
    assert [(t.get("term"), int(t.get("from")), int(t.get("to"))) for t in terms] == [
        (a.term, a.start, a.end) for a in rec.hi_aspects]
    for t in terms:
        assert text[int(t.get("from")):int(t.get("to"))] == t.get("term")
        assert set(t.attrib) <= {"term", "polarity", "from", "to"}


def test_polarity_is_carried_over_only_where_the_aspect_map_links_and_is_empty_elsewhere():
    case = CASES[3]
    rec = make_record(case[:5] + ({},))
    assert [a.polarity for a in rec.hi_aspects] == [None]
    files = build_files(ExportDataset([rec]), ["semeval-xml"])
    term = DET.fromstring(files["semeval-xml/restaurant/train.xml"].encode()).find(".//aspectTerm")
    assert term.attrib["polarity"] == ""
    assert "1 of 1 Hindi aspect terms are linked to none" in files["README.md"]
    linked = make_record(case)
    assert [(a.polarity, a.source_position) for a in linked.hi_aspects] == [("positive", 0)]
    split = make_record(CASES[5])
    assert [a.polarity for a in split.hi_aspects] == ["positive", "positive"]


def test_lince_labels_devanagari_roman_proper_nouns_and_punctuation():
    ds = ExportDataset([make_record(CASES[3])])
    files = build_files(ds, ["lince"], FormatOptions(layout="combined"))
    [(_, rows)] = read_conll(files["lince/train.conll"], columns=3)
    lid = {tok: lab for tok, lab, _ in rows}
    assert lid["Brooklyn"] == "ne" and lid["मिसो"] == "lang2" and lid["।"] == "other"
    assert spans_from_tags([r[2] for r in rows]) == [(1, 3)]
    assert {lab for _, lab, _ in rows} <= {"lang1", "lang2", "ne", "other"}


def test_tsv_pairs_are_parallel_one_row_per_sentence():
    ds = dataset()
    files = build_files(ds, ["tsv"], FormatOptions(layout="combined"))
    lines = list(csv.reader(io.StringIO(files["tsv/train.tsv"]), delimiter="\t"))
    assert lines[0] == ["id", "domain", "split", "phase", "en", "hi"]
    train = [r for r in ds.sentences if r.split == "train"]
    assert len(lines) - 1 == len(train)
    for cells, rec in zip(lines[1:], train):
        assert cells[0] == rec.uid and cells[4] == rec.en_text and cells[5] == rec.hi_text


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_tsv_columns_are_the_stored_texts_exactly(case):
    rec = make_record(case)
    text = build_files(ExportDataset([rec]), ["tsv"], FormatOptions(layout="combined"))["tsv/train.tsv"]
    assert text.endswith("\n") and text.count("\n") == 2
    header, cells = csv.reader(io.StringIO(text), delimiter="\t")
    assert len(header) == len(cells) == 6
    assert cells[4] == rec.en_text == normalize(case[1])
    assert cells[5] == rec.hi_text == normalize(case[3])
    assert ("\u200d" in cells[5]) == ("\u200d" in case[3])


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_lince_tokens_and_tags_equal_the_conll_ones(case):
    rec = make_record(case)
    files = build_files(ExportDataset([rec]), ["conll", "lince"], FormatOptions(id_comments=True, layout="combined"))
    [(conll_id, conll_rows)] = read_conll(files["conll/train.conll"], ids=files["conll/train.ids.tsv"])
    [(lince_id, lince_rows)] = read_conll(files["lince/train.conll"], columns=3, ids=files["lince/train.ids.tsv"])
    assert lince_id == conll_id == rec.uid
    assert [r[0] for r in lince_rows] == [r[0] for r in conll_rows] == list(rec.hi_tokens)
    assert [r[2] for r in lince_rows] == [r[1] for r in conll_rows]
    lids = [r[1] for r in lince_rows]
    assert set(lids) <= {"lang1", "lang2", "ne", "other"}
    for token, lid in zip(rec.hi_tokens, lids):
        if not any(c.isalpha() for c in token):
            assert lid == "other", token


def test_seqeval_parses_every_conll_file():
    files = build_files(dataset(), ["conll", "conll-en", "lince"])
    for path, text in files.items():
        if not path.endswith(".conll"):
            continue
        columns = 3 if path.startswith("lince/") else 2
        seqs = [[r[-1] for r in rows] for _, rows in read_conll(text, columns)]
        assert f1_score(seqs, seqs, mode="strict", scheme=IOB2) == pytest.approx(1.0) or not any(
            t != "O" for s in seqs for t in s), path


def test_jsonl_loads_with_the_arrow_json_reader_huggingface_uses():
    files = build_files(dataset(), ["jsonl"])
    for path, text in files.items():
        if path.endswith(".jsonl"):
            table = pajson.read_json(io.BytesIO(text.encode("utf-8")))
            assert table.num_rows == text.count("\n")
            assert {"id", "tokens", "tags", "aspects", "en_text", "agreement"} <= set(table.column_names)


def _json_types(value, path: str, out: dict[str, set[str]]) -> None:
    """Every leaf path of a JSON value (``[]`` for list items) with the JSON types found there."""
    if isinstance(value, dict):
        out.setdefault(path, set()).add("object")
        for key, item in value.items():
            _json_types(item, f"{path}.{key}", out)
    elif isinstance(value, list):
        out.setdefault(path, set()).add("array")
        for item in value:
            _json_types(item, f"{path}[]", out)
    else:
        out.setdefault(path, set()).add(
            "null" if value is None else "bool" if isinstance(value, bool) else type(value).__name__)


def _with_figures(rec, **changes):
    return rec.__class__(**{**rec.__dict__, **changes})


def _realistic_dataset() -> ExportDataset:
    """As the loader builds it: guidelines recorded, agreement figures where two annotators tagged."""
    recs = dataset().sentences
    figures = {"rouge_l_vs_others": 0.5, "rouge_l_phase_mean": 0.6, "translations_in_phase": 3, "best_in_phase": True,
               "annotators": 2, "token_agreement": 1.0, "cohen_kappa": 1.0}
    recs = [_with_figures(r, guidelines_version="1.0", agreement=figures if i % 2 else {}) for i, r in enumerate(recs)]
    unlinked = make_record(CASES[3][:5] + ({},), split="train")
    return ExportDataset(recs + [_with_figures(unlinked, uid="restaurant/train/unlinked", agreement=figures,
                                               guidelines_version="1.0")])


def test_jsonl_rows_have_the_same_keys_and_no_integer_field_is_ever_null():
    files = build_files(_realistic_dataset(), ["jsonl"], FormatOptions(layout="combined"))
    rows = [json.loads(line) for path, text in files.items() if path.endswith(".jsonl") for line in text.splitlines()]
    assert len({tuple(row) for row in rows}) == 1
    assert len({tuple(row["agreement"]) for row in rows}) == 1
    types: dict[str, set[str]] = {}
    for row in rows:
        _json_types(row, "", types)
    for path, found in types.items():
        assert len(found - {"null"}) == 1, (path, found)
        assert not ({"int", "null"} <= found), f"{path} mixes integers and null"
    unlinked = next(r for r in rows if r["id"] == "restaurant/train/unlinked")
    assert [a["source_aspect"] for a in unlinked["aspects"]] == [-1]


def _null_parts(arrow_type, path: str) -> list[str]:
    """Paths inside an Arrow type that were inferred as null (no value to infer a type from)."""
    import pyarrow as pa

    if pa.types.is_null(arrow_type):
        return [path]
    if pa.types.is_struct(arrow_type):
        return [p for f in arrow_type for p in _null_parts(f.type, f"{path}.{f.name}")]
    if pa.types.is_list(arrow_type):
        return _null_parts(arrow_type.value_type, f"{path}[]")
    return []


def test_huggingface_infers_one_non_null_type_per_jsonl_column():
    files = build_files(_realistic_dataset(), ["jsonl"], FormatOptions(layout="combined"))
    text = files["jsonl/train.jsonl"]
    table = pajson.read_json(io.BytesIO(text.encode("utf-8")))
    assert table.num_rows == text.count("\n")
    for name in table.column_names:
        column = table.column(name)
        assert column.num_chunks >= 1 and len({chunk.type for chunk in column.chunks}) == 1, name
        assert _null_parts(column.type, name) == [], name
    assert str(table.schema.field("aspects").type.value_type.field("source_aspect").type) == "int64"
    assert str(table.schema.field("agreement").type.field("annotators").type) == "int64"


def test_layouts_give_combined_and_per_domain_files():
    ds = dataset()
    both = build_files(ds, ["conll"])
    assert {"conll/train.conll", "conll/test.conll", "conll/restaurant/train.conll", "conll/laptop/train.conll"} <= set(both)
    combined = build_files(ds, ["conll"], FormatOptions(layout="combined"))
    assert not any(p.count("/") > 1 for p in combined)
    per_domain_sentences = sum(len(read_conll(t)) for p, t in both.items() if p.count("/") == 2)
    assert per_domain_sentences == len(ds.sentences)


def test_id_comments_are_optional():
    ds = dataset()
    without = build_files(ds, ["conll"], FormatOptions(layout="combined"))["conll/train.conll"]
    assert "# id" not in without
    files = build_files(ds, ["conll"], FormatOptions(id_comments=True, layout="combined"))
    assert files["conll/train.conll"] == without  # the ids go beside the data, not into it
    with_ids = read_conll(files["conll/train.conll"], ids=files["conll/train.ids.tsv"])
    assert [sid for sid, _ in with_ids] == [r.uid for r in ds.sentences if r.split == "train"]


def test_unknown_format_is_an_error_naming_it():
    with pytest.raises(ValueError, match="bogus"):
        build_files(dataset(), ["bogus"])


def test_stale_tokens_and_invalid_tags_are_reported_not_repaired():
    name, en, aspects, hi, terms, links = CASES[0]
    with pytest.raises(RecordProblem) as stale:
        build_sentence(uid="x", sentence_id="x", domain="restaurant", split="train", en_text=en, en_aspects=[],
                       hi_text=hi + " और", frozen_tokens=tokenize(hi), tags=_tags(hi, terms), phase="aware",
                       translator="a")
    assert stale.value.reason == "tokens changed after tagging"
    bad = ["I"] + ["O"] * (len(tokenize(hi)) - 1)
    with pytest.raises(RecordProblem) as invalid:
        build_sentence(uid="x", sentence_id="x", domain="restaurant", split="train", en_text=en, en_aspects=[],
                       hi_text=hi, frozen_tokens=tokenize(hi), tags=bad, phase="aware", translator="a")
    assert invalid.value.reason == "invalid gold tags"


def test_english_offsets_survive_nfc_normalization():
    en = "The cafe\u0301 au lait was cold."  # decomposed é: NFC shortens the text by one
    rec = build_sentence(uid="x", sentence_id="x", domain="restaurant", split="train", en_text=en,
                         en_aspects=[EnglishAspect("lait", 13, 17, "negative", 0)], hi_text="कॉफ़ी ठंडी थी।",
                         frozen_tokens=tokenize("कॉफ़ी ठंडी थी।"), tags=["O", "O", "O", "O"], phase="aware",
                         translator="a")
    assert en[13:17] == "lait"
    [a] = rec.en_aspects
    assert (a.start, a.end) == (12, 16)
    assert rec.en_text[a.start:a.end] == "lait"


def test_iterative_stratification_spreads_each_label_in_proportion():
    label_sets = [{"tag:B", "len:<=10"} if i % 3 else {"tag:O", "len:>20"} for i in range(300)]
    assignment = iterative_stratification(label_sets, [0.8, 0.2], seed=1)
    assert sum(assignment) == pytest.approx(60, abs=2)
    rare = [a for a, labels in zip(assignment, label_sets) if "tag:O" in labels]
    assert sum(rare) == pytest.approx(20, abs=2)


def test_dev_split_keeps_translations_of_one_sentence_together_and_reports_kl():
    recs = []
    for i in range(60):
        case = CASES[i % len(CASES)]
        case = (f"s{i}",) + case[1:]
        for translator in ("asha", "ravi"):
            r = make_record(case, split="train", translator=translator)
            recs.append(r.__class__(**{**r.__dict__, "uid": f"{r.uid}/{translator}"}))
    carved = carve_dev(recs, 0.2, seed=3)
    dev_ids = {r.sentence_id for r in carved if r.split == "dev"}
    assert 8 <= len(dev_ids) <= 16
    for r in carved:
        assert (r.split == "dev") == (r.sentence_id in dev_ids)
        assert r.source_split == "train"
    report = split_divergence(carved)
    assert set(report) == {"train", "dev"}
    assert all(v["kl_vs_whole"] >= 0 for v in report.values())
    ds = apply_dev_split(ExportDataset(list(recs)), 0.2, seed=3)
    card = build_files(ds, ["conll"])["README.md"]
    assert "iterative stratification" in card
    header, rows = card_table(card, "## Splits")
    assert header[-1] == "KL vs whole (nats)"
    by_split = {row[0]: row for row in rows}
    assert set(by_split) == {"train", "dev"}
    divergence = split_divergence(ds.sentences)
    for split in ("train", "dev"):
        assert by_split[split][1] == str(divergence[split]["sentences"])
        assert by_split[split][-1] == f"{divergence[split]['kl_vs_whole']:.6f}"
    with pytest.raises(ValueError):
        carve_dev(recs, 1.5)


def test_card_has_counts_statistics_tokenizer_and_license_field():
    card = build_files(dataset(), ["conll"])["README.md"]
    for heading in ("Counts per split and domain", "Table 1", "Table 2", "Splits", "What was left out",
                    "Guidelines", "License", "hi-canon/1.0"):
        assert heading in card


def card_table(card: str, heading: str) -> tuple[list[str], list[list[str]]]:
    """The first Markdown table after ``heading``: its header cells and body rows."""
    lines = card.split("\n")
    i = lines.index(heading)
    while not lines[i].startswith("|"):
        i += 1
    table = []
    while i < len(lines) and lines[i].startswith("|"):
        table.append([c.strip() for c in lines[i].strip("|").split("|")])
        i += 1
    return table[0], table[2:]


def test_card_names_guideline_versions_selection_and_license():
    recs = [_with_figures(r, guidelines_version="1.0" if i < 5 else "2.1") for i, r in enumerate(dataset().sentences)]
    ds = ExportDataset(recs, meta={"license": "CC BY-SA 4.0", "tagging_guidelines": "tagging-3.2",
                                   "selection": "Chosen by the lead from the aspect-aware phase."})
    card = build_files(ds, ["conll"])["README.md"]
    assert "- **License**: CC BY-SA 4.0" in card
    header, rows = card_table(card, "## Guidelines")
    assert header == ["translation guidelines version", "sentences"]
    assert rows == [["1.0", "5"], ["2.1", "3"]]
    assert "Tagging guidelines version: tagging-3.2" in card
    chosen = card.split("## How the items were chosen", 1)[1].split("##", 1)[0]
    assert "Chosen by the lead from the aspect-aware phase." in chosen
    unlicensed = build_files(dataset(), ["conll"])["README.md"]
    assert "- **License**: TO BE FILLED IN BY THE LEAD" in unlicensed


def test_card_code_mixing_table_equals_corpus_codemix():
    from corpus.codemix import corpus_cmi

    mixed = ("roman-common-noun", "The laptop is good.", [("laptop", 4, 10, "positive")],
             "यह laptop बहुत अच्छा है।", ["laptop"], {0: "laptop"})
    ds = ExportDataset([*dataset().sentences, make_record(mixed)])
    expected = corpus_cmi(r.lid for r in ds.sentences)
    assert expected.code_mixed >= 1 and expected.cmi_all > 0
    _, rows = card_table(build_files(ds, ["conll"])["README.md"], "## Code-mixing")
    table = dict(rows)
    assert table["CMI, all sentences"] == f"{expected.cmi_all:.3f}"
    assert table["CMI, code-mixed sentences only"] == f"{expected.cmi_mixed:.3f}"
    assert table["code-mixed sentences"] == str(expected.code_mixed)
    for lab in ("lang1", "lang2", "ne", "other"):
        assert table[f"`{lab}` tokens"] == str(expected.tag_counts[lab])


def _left_out_reasons_the_loader_gives() -> set[str]:
    """Reason strings in the loader, the selection and the records (LeftOut, RecordProblem, NoGold, gold())."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    reasons = set()
    for source in ("db/export_data.py", "corpus/export/selection.py", "corpus/export/records.py"):
        for node in ast.walk(ast.parse((root / source).read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("LeftOut", "RecordProblem", "NoGold"):
                args = node.args[3:4] if node.func.id == "LeftOut" else node.args[:1]
                reasons |= {a.value for a in args if isinstance(a, ast.Constant) and isinstance(a.value, str)}
            if (isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple) and len(node.value.elts) == 3
                    and isinstance(node.value.elts[0], ast.Constant) and node.value.elts[0].value is None
                    and isinstance(node.value.elts[1], ast.Constant)):
                reasons.add(node.value.elts[1].value)
    return reasons


@pytest.mark.parametrize("every_translation", [False, True])
def test_every_left_out_reason_the_loader_gives_is_explained(every_translation):
    from corpus.export.card import left_out_explained

    reasons = _left_out_reasons_the_loader_gives()
    assert {"not translated", "not tagged", "tagging incomplete", "tokens changed after tagging"} <= reasons
    explained = left_out_explained(every_translation)
    assert {r for r in reasons if not explained.get(r)} == set()


def _left_out_meanings(ds: ExportDataset) -> dict[str, str]:
    _, rows = card_table(build_files(ds, ["conll"])["README.md"], "## What was left out and why")
    return {row[0]: row[2] for row in rows}


def test_not_tagged_means_the_final_translation_only_in_a_final_translation_export():
    from corpus.export.records import LeftOut

    final = ExportDataset(dataset().sentences, [LeftOut("restaurant", "train", "9", "not tagged", "", 4)])
    assert "final translation" in _left_out_meanings(final)["not tagged"]
    recs = dataset().sentences
    every = ExportDataset([_with_figures(recs[0], is_final=False), *recs[1:]],
                          [LeftOut("restaurant", "train", "9", "not tagged", "", 4),
                           LeftOut("restaurant", "train", "10", "not translated")])
    meanings = _left_out_meanings(every)
    assert "final" not in meanings["not tagged"] and "tagging item" in meanings["not tagged"]
    assert "no translator" in meanings["not translated"]
    declared = ExportDataset(dataset().sentences, [LeftOut("restaurant", "train", "9", "not tagged", "", 4)],
                             meta={"all_translations": True})
    assert "final" not in _left_out_meanings(declared)["not tagged"]


def test_writer_writes_directory_and_zip_with_the_same_files(tmp_path):
    files = build_files(dataset())
    written = write_directory(files, tmp_path)
    assert len(written) == len(files)
    assert (tmp_path / "conll" / "train.conll").read_text(encoding="utf-8") == files["conll/train.conll"]
    with zipfile.ZipFile(io.BytesIO(zip_bytes(files))) as zf:
        names = zf.namelist()
        assert sorted(n.split("/", 1)[1] for n in names) == sorted(files)
        assert zf.read("hindi-aspect-corpus/README.md").decode("utf-8") == files["README.md"]
    with pytest.raises(ValueError):
        write_directory({"../evil.txt": "x"}, tmp_path)


def _stdlib_zip(files: dict[str, str], root: str) -> bytes:
    """The archive as ``zipfile`` alone writes it: the members one after another, deflate level 1."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        for rel, text in files.items():
            info = zipfile.ZipInfo(f"{root}/{rel}", date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, text.encode("utf-8"), compresslevel=1)
    return buffer.getvalue()


def test_zip_is_byte_for_byte_what_zipfile_writes_with_members_compressed_in_threads():
    files = build_files(dataset())
    files["empty.txt"] = ""
    files["हिंदी/नाम.tsv"] = "स्टाफ़\tB\n" * 5000  # a name zipfile marks as UTF-8, a member big enough to deflate
    files.update({f"many/{i}.txt": f"{i}\n" * i for i in range(40)})
    archive = zip_bytes(files, root="corpus")
    assert archive == _stdlib_zip(files, "corpus")
    # the path an archive past 4 GB or 65,535 members takes gives the same bytes
    assert writer._zipfile_bytes([f"corpus/{rel}" for rel in files], [t.encode("utf-8") for t in files.values()]) == archive
    with zipfile.ZipFile(io.BytesIO(archive)) as zf:
        assert zf.testzip() is None
        assert {n.removeprefix("corpus/"): zf.read(n).decode("utf-8") for n in zf.namelist()} == files


def test_every_format_is_registered():
    assert set(FORMATS) == {"conll", "conll-en", "jsonl", "semeval-xml", "tsv", "lince"}


# --- outside readers (issue 15, part 6) ---------------------------------------------------------------

def _lince_record():
    from corpus.export.records import EnglishAspect, build_sentence
    from corpus.tokens import tokenize

    source = "We ate at Joe's Pizza and the pizza was great."
    hindi = "हमने Joe's Pizza में खाया और pizza बढ़िया था।"
    tokens = tokenize(hindi)
    tags = ["B" if t == "pizza" else "O" for t in tokens]
    return build_sentence(
        uid="restaurant/train/9", sentence_id="9", domain="restaurant", split="train", en_text=source,
        en_aspects=[EnglishAspect("pizza", 30, 35, "positive", 0)], hi_text=hindi, frozen_tokens=tokens, tags=tags,
        phase="aware", translator="asha",
    )


def test_lince_names_are_matched_case_sensitively_and_keep_their_possessive():
    rec = _lince_record()
    files = build_files(ExportDataset([rec]), ["lince"], FormatOptions(layout="combined"))
    [(_, rows)] = read_conll(files["lince/train.conll"], columns=3)
    assert [(token, lid) for token, lid, _ in rows] == [
        ("हमने", "lang2"), ("Joe", "ne"), ("'", "other"), ("s", "ne"), ("Pizza", "ne"), ("में", "lang2"),
        ("खाया", "lang2"), ("और", "lang2"), ("pizza", "lang1"), ("बढ़िया", "lang2"), ("था", "lang2"), ("।", "other"),
    ]


def _nltk_conll_sentences(root, fileid: str, columns: tuple[str, ...]):
    nltk = pytest.importorskip("nltk")
    from nltk.corpus.reader import ConllCorpusReader

    if str(root) not in nltk.data.path:
        nltk.data.path.append(str(root))  # NLTK reads only from the directories it is told about
    return ConllCorpusReader(str(root), [fileid], columns).iob_sents() if "pos" in columns else \
        ConllCorpusReader(str(root), [fileid], columns).sents()


def _lince_loader(text: str) -> list[list[list[str]]]:
    """How LinCE's loaders read a file: ``# sent_enum = N`` lines skipped (N an integer), a blank line
    ends a sentence, every other line is tab-separated columns."""
    sentences, rows = [], []
    for line in text.split("\n"):
        if line.startswith("# sent_enum ="):
            int(line.split("=")[1].strip())
            continue
        if not line.strip():
            if rows:
                sentences.append(rows)
            rows = []
            continue
        cells = line.split("\t")
        assert len(cells) == 3, line
        rows.append(cells)
    return sentences


def test_files_with_sentence_ids_stay_readable_by_nltk_and_the_lince_loader(tmp_path):
    from corpus.export.writer import write_directory

    ds = dataset()
    files = build_files(ds, ["conll", "conll-en", "lince"], FormatOptions(id_comments=True, layout="combined"))
    write_directory(files, tmp_path)
    for fmt in ("conll", "conll-en"):
        text = files[f"{fmt}/train.conll"]
        # NLTK's grid check: every line of a sentence has the same number of tab-separated columns.
        for block in text.strip("\n").split("\n\n"):
            assert len({len(line.split("\t")) for line in block.split("\n")}) == 1, block
    sents = _nltk_conll_sentences(tmp_path / "conll", "train.conll", ("words", "ne"))
    train = [r for r in ds.sentences if r.split == "train"]
    assert [list(s) for s in sents] == [list(r.hi_tokens) for r in train]
    lince = _lince_loader(files["lince/train.conll"])
    assert [[row[0] for row in s] for s in lince] == [list(r.hi_tokens) for r in train]
    assert files["lince/train.conll"].startswith("# sent_enum = 1\n")
    ids = [line.split("\t") for line in files["lince/train.ids.tsv"].splitlines()[1:]]
    assert ids == [[str(n), r.uid] for n, r in enumerate(train, 1)]
