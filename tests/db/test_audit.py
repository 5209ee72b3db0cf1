"""Corpus audit: Table 1, span defects by kind (exact counts), script inconsistency, sparsity, BIO."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from corpus.audit import (
    DEFECT_KINDS,
    AuditAspect,
    AuditInputError,
    AuditSentence,
    audit_bytes,
    audit_file,
    domain_of,
    span_defects,
)
from cli.commands import main

FIXTURES = Path(__file__).parents[1] / "fixtures" / "audit"
AKHTAR = FIXTURES / "akhtar_defects.xml"
CLEAN = FIXTURES / "clean_english.xml"
CONLL = FIXTURES / "hindi_bio.conll"
XXE = Path(__file__).parents[1] / "fixtures" / "semeval" / "xxe.xml"


@pytest.fixture(scope="module")
def akhtar():
    return audit_file(AKHTAR)


def _ids(report, kind):
    return [d.sentence_id for d in report.defects if d.kind == kind]


def test_each_span_defect_kind_is_counted_exactly(akhtar):
    assert akhtar.defect_counts == {
        "trailing-whitespace": 2,
        "leading-whitespace": 1,
        "starts-inside-word": 1,
        "ends-inside-word": 1,
        "offset-mismatch": 2,
        "bad-offsets": 1,
        "overlapping-spans": 1,
        "duplicated-span": 1,
        "zero-width-in-term": 2,
        "unknown-polarity": 1,
        "duplicate-sentence-id": 1,
        "missing-text": 1,
        "invalid-bio": 0,
        "malformed-line": 0,
    }


@pytest.mark.parametrize(("kind", "sentence_ids"), [
    ("trailing-whitespace", ["lap_3", "lap_5"]),
    ("leading-whitespace", ["mob_6"]),
    ("starts-inside-word", ["app_1"]),
    ("ends-inside-word", ["lap_4"]),
    ("offset-mismatch", ["lap_4", "mob_4"]),
    ("bad-offsets", ["app_3"]),
    ("overlapping-spans", ["lap_5"]),
    ("duplicated-span", ["mob_2"]),
    ("zero-width-in-term", ["mob_3", "mob_6"]),
    ("unknown-polarity", ["app_2"]),
    ("duplicate-sentence-id", ["app_3"]),
    ("missing-text", ["tab_1"]),
])
def test_defects_name_the_sentence_they_occur_in(akhtar, kind, sentence_ids):
    assert sorted(_ids(akhtar, kind)) == sentence_ids


def test_defects_carry_the_line_of_the_aspect_term(akhtar):
    swallowed = [d for d in akhtar.defects if d.kind in ("trailing-whitespace", "leading-whitespace")]
    assert len(swallowed) == 3
    lines = AKHTAR.read_text(encoding="utf-8").splitlines()
    for d in swallowed:
        assert "<aspectTerm" in lines[d.line - 1]
        assert f'term="{d.term}"' in lines[d.line - 1]


def test_leading_space_and_a_zwj_inside_a_term_are_reported_once_each(akhtar):
    found = [(d.kind, d.term) for d in akhtar.defects if d.sentence_id == "mob_6"]
    assert found == [("leading-whitespace", "डिस्प्ले"), ("zero-width-in-term", "स्\u200dक्रीन")]
    zwj = next(d for d in akhtar.defects if d.sentence_id == "mob_6" and d.kind == "zero-width-in-term")
    assert zwj.detail == "term contains ZWJ"


def test_swallowed_space_is_not_also_an_offset_mismatch():
    s = AuditSentence("x_1", "x", "कीबोर्ड अच्छा", (AuditAspect("कीबोर्ड", 0, 8, "pos"),))
    assert [d.kind for d in span_defects(s)] == ["trailing-whitespace"]


def test_span_stopping_before_the_last_letter_is_inside_a_word_and_a_mismatch():
    s = AuditSentence("x_1", "x", "dress code", (AuditAspect("dress code", 0, 9, "positive"),))
    assert sorted(d.kind for d in span_defects(s)) == ["ends-inside-word", "offset-mismatch"]


def test_a_clean_span_has_no_defects():
    s = AuditSentence("x_1", "x", "the dress code here", (AuditAspect("dress code", 4, 14, "positive"),))
    assert span_defects(s) == []


def test_mismatch_only_in_unicode_normalization_says_so():
    text = "\u095eोन अच्छा"  # precomposed फ़ (not NFC: nukta letters are composition exclusions)
    s = AuditSentence("x_1", "x", text, (AuditAspect("\u092b\u093cोन", 0, 3, "pos"),))
    (defect,) = span_defects(s)
    assert defect.kind == "offset-mismatch" and "Unicode normalization" in defect.detail


def test_three_mutually_overlapping_spans_count_three_pairs():
    s = AuditSentence("x_1", "x", "abc def ghi", (
        AuditAspect("abc def", 0, 7, None), AuditAspect("def", 4, 7, None), AuditAspect("c def g", 2, 9, None)))
    assert [d.kind for d in span_defects(s)].count("overlapping-spans") == 3


def test_table1_of_a_clean_file_matches_hand_counts():
    t = audit_file(CLEAN).table1
    assert (t["sentences"], t["aspect_terms"], t["marked_sentences"], t["tokens"]) == (3, 2, 2, 14)
    assert t["marked_share"] == pytest.approx(2 / 3)
    assert t["aspects_per_sentence"] == pytest.approx(2 / 3)
    assert t["aspects_per_marked_sentence"] == pytest.approx(1.0)
    # "The staff was great ." + "battery life is short" + "Nothing to say here ." = 5 + 4 + 5 tokens
    assert t["tag_share"] == pytest.approx({"B": 2 / 14, "I": 1 / 14, "O": 11 / 14})


def test_table1_counts_domains_from_id_prefixes(akhtar):
    t = akhtar.table1
    assert t["sentences"] == 17
    assert t["aspect_terms"] == 18
    assert t["marked_sentences"] == 14
    assert t["tokens"] == 87  # mob_6 adds इसका डिस्प्ले और स्‍क्रीन अच्छे हैं ।
    assert {d: v["sentences"] for d, v in t["per_domain"].items()} == {"app": 4, "lap": 6, "mob": 6, "tab": 1}


@pytest.mark.parametrize(("sentence_id", "domain"), [
    ("lap_17", "lap"), ("mob_3", "mob"), ("APP-2", "app"), ("3121", "(none)"), ("892:1", "(none)"),
])
def test_domain_is_the_id_prefix(sentence_id, domain):
    assert domain_of(sentence_id) == domain


def test_domains_under_the_threshold_are_flagged_sparse():
    report = audit_file(AKHTAR, sparse_threshold=5)
    assert report.sparse_domains == ["app", "tab"]
    lap = next(d for d in report.domains if d["domain"] == "lap")
    assert lap == {"domain": "lap", "sentences": 6, "aspect_terms": 8, "sentences_with_aspects": 6, "sparse": False}


def test_default_sparsity_threshold_is_fifty_sentences(akhtar):
    assert akhtar.sparse_threshold == 50
    assert akhtar.sparse_domains == ["app", "lap", "mob", "tab"]


def test_akhtar_short_polarities_are_understood(akhtar):
    assert akhtar.polarities == {"(unknown)": 1, "conflict": 1, "negative": 3, "neutral": 2, "positive": 11}


def test_same_term_in_roman_and_devanagari_is_a_script_inconsistency(akhtar):
    found = {tuple(sorted((f["term"], tuple(f["sentence_ids"])) for f in g["forms"]))
             for g in akhtar.script_inconsistencies}
    assert found == {
        (("processor", ("lap_2",)), ("प्रोसेसर", ("lap_1",))),
        (("megapixel camera", ("mob_1",)), ("मेगापिक्सल कैमरा", ("lap_5",))),
    }


def test_hyphenated_devanagari_spelling_is_a_variant_not_a_script_inconsistency(akhtar):
    assert [sorted(f["term"] for f in g["forms"]) for g in akhtar.spelling_variants] == [["की-बोर्ड", "कीबोर्ड"]]


def test_different_terms_are_not_grouped():
    xml = """<sentences>
      <sentence id="a_1"><text>battery ठीक</text><aspectTerms>
        <aspectTerm term="battery" polarity="pos" from="0" to="7"/></aspectTerms></sentence>
      <sentence id="a_2"><text>बटर ठीक</text><aspectTerms>
        <aspectTerm term="बटर" polarity="pos" from="0" to="3"/></aspectTerms></sentence>
      <sentence id="a_3"><text>processor ठीक</text><aspectTerms>
        <aspectTerm term="processor" polarity="pos" from="0" to="9"/></aspectTerms></sentence>
      <sentence id="a_4"><text>प्रोफेसर ठीक</text><aspectTerms>
        <aspectTerm term="प्रोफेसर" polarity="pos" from="0" to="8"/></aspectTerms></sentence>
    </sentences>""".encode()
    report = audit_bytes(xml, "inline.xml")
    assert report.script_inconsistencies == [] and report.spelling_variants == []


def test_conll_invalid_bio_and_malformed_lines_are_reported_with_lines():
    report = audit_file(CONLL)
    assert report.format == "conll"
    got = [(d.kind, d.sentence_id, d.line) for d in report.defects]
    assert got == [
        ("invalid-bio", "lap_2", 11),
        ("invalid-bio", "mob_1", 19),
        ("invalid-bio", "mob_2", 23),
        ("malformed-line", "mob_2", 24),
    ]


def test_conll_table1_reads_terms_after_the_conventional_repair():
    t = audit_file(CONLL).table1
    assert (t["sentences"], t["aspect_terms"], t["marked_sentences"], t["tokens"]) == (4, 4, 3, 17)
    assert t["tag_share"]["B"] == pytest.approx(4 / 17)
    assert t["tag_share"]["I"] == pytest.approx(1 / 17)


def test_conll_script_inconsistency_uses_tagged_terms():
    report = audit_file(CONLL)
    assert [sorted(f["term"] for f in g["forms"]) for g in report.script_inconsistencies] == [
        ["processor", "प्रोसेसर"]]


def test_audit_never_modifies_the_file(tmp_path):
    copy = tmp_path / "copy.xml"
    copy.write_bytes(AKHTAR.read_bytes())
    before = (hashlib.sha256(copy.read_bytes()).hexdigest(), os.stat(copy).st_mtime_ns)
    audit_file(copy)
    assert (hashlib.sha256(copy.read_bytes()).hexdigest(), os.stat(copy).st_mtime_ns) == before


def test_external_entities_are_refused_not_resolved():
    with pytest.raises(AuditInputError) as info:
        audit_file(XXE)
    assert info.value.error.line == 2
    assert "root:" not in str(info.value)


def test_malformed_xml_is_a_located_error():
    with pytest.raises(AuditInputError) as info:
        audit_bytes(b"<sentences>\n<sentence id='1'>\n</sentences>", "broken.xml")
    assert str(info.value).startswith("broken.xml:3: not well-formed XML")


def test_json_report_has_every_defect_kind_as_a_key(akhtar):
    data = akhtar.to_dict()
    assert list(data["defect_counts"]) == list(DEFECT_KINDS)
    assert set(data) == {"file", "format", "signature", "table1", "domains", "sparse_threshold",
                         "sparse_domains", "polarities", "defect_counts", "defects",
                         "script_inconsistencies", "spelling_variants", "notes"}


def test_audit_command_prints_json(capsys, tmp_path):
    code = main(["--db", f"sqlite:///{tmp_path / 'x.db'}", "audit", str(AKHTAR), "--json"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["defect_counts"]["trailing-whitespace"] == 2
    assert data["table1"]["sentences"] == 17
    assert {"kind": "missing-text", "sentence_id": "tab_1", "line": 90, "term": None,
            "detail": "sentence has no <text>"} in data["defects"]


def test_audit_command_prints_a_text_report(capsys, tmp_path):
    assert main(["--db", f"sqlite:///{tmp_path / 'x.db'}", "audit", str(CONLL)]) == 0
    out = capsys.readouterr().out
    assert "invalid-bio              3" in out
    assert "processor (roman" in out


def _our_table1(engine) -> dict:
    from corpus.stats import corpus_statistics
    from db.queries import load_stat_inputs

    return json.loads(json.dumps(corpus_statistics(load_stat_inputs(engine))))


def test_audit_command_shows_our_corpus_beside_the_file(capsys, demo_db):
    ours = _our_table1(demo_db)
    assert main(["audit", str(AKHTAR)]) == 0  # the database from DATABASE_URL
    lines = capsys.readouterr().out.splitlines()
    header = lines[lines.index("Table 1") + 1]
    assert header.split("  ")[-1].strip() == "Our corpus: Hindi (final, gold)"
    assert "Audited file" in header and "Our corpus: English (source)" in header
    sentences = next(line for line in lines if line.strip().startswith("Sentences  "))
    assert sentences.split()[1:] == ["17", f"{ours['english']['sentences']:,}", f"{ours['hindi']['sentences']:,}"]

    assert main(["audit", str(AKHTAR), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["our_corpus"] == ours
    assert data["table1"]["sentences"] == 17


def test_audit_command_without_a_database_says_so_in_one_line(capsys, tmp_path, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setattr("db.engine.DEFAULT_SQLITE_PATH", tmp_path / "data" / "corpus.db")
    assert main(["audit", str(AKHTAR)]) == 0
    out = capsys.readouterr().out
    notes = [line for line in out.splitlines() if "no database" in line]
    assert len(notes) == 1 and str(tmp_path / "data" / "corpus.db") in notes[0]
    assert "Our corpus" not in out
    assert not (tmp_path / "data" / "corpus.db").exists()

    assert main(["--db", f"sqlite:///{tmp_path / 'x.db'}", "audit", str(AKHTAR), "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["our_corpus"] is None
    assert len(captured.err.strip().splitlines()) == 1 and "no database" in captured.err
    assert not (tmp_path / "x.db").exists()


def test_audit_command_reports_unreadable_input_as_where_message(capsys, tmp_path):
    assert main(["--db", f"sqlite:///{tmp_path / 'x.db'}", "audit", str(XXE)]) != 0
    err = capsys.readouterr().err
    assert err.startswith(f"{XXE}:2: refused")
    assert main(["--db", f"sqlite:///{tmp_path / 'x.db'}", "audit", str(tmp_path / "missing.xml")]) != 0
    assert capsys.readouterr().err.startswith(f"{tmp_path / 'missing.xml'}: cannot read file")


def test_five_thousand_sentence_file_is_fully_audited():
    """Speed is measured by `python -m bench.bench_audit`; here the large file is audited completely."""
    from bench.bench_audit import generate

    report = audit_bytes(generate(5000).encode(), "bench.xml")
    assert report.table1["sentences"] == 5000


@pytest.mark.parametrize(("name", "head", "fmt"), [
    ("a.xml", b"  <sentences/>", "semeval-xml"),
    ("a.conll", b"<unk>\tO\n", "conll"),
    ("upload", b"\xef\xbb\xbf<?xml version='1.0'?><sentences/>", "semeval-xml"),
    ("upload", "कीमत\tB\n".encode(), "conll"),
])
def test_format_is_detected_by_extension_then_content(name, head, fmt):
    from corpus.audit import detect_format

    assert detect_format(head, name) == fmt
