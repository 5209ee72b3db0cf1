"""SemEval-2014 import: every real-file quirk, all-or-nothing, idempotent, located errors."""

from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from corpus.errors import InputRejected
from corpus.semeval import parse_semeval
from db.importing import import_sentences
from db.models import AspectCategory, AspectTerm, SourceSentence

FIXTURES = Path(__file__).parents[1] / "fixtures" / "semeval"


def parse(name, domain="laptop", split="train"):
    return parse_semeval((FIXTURES / name).read_bytes(), name, domain, split)


def by_id(records):
    return {r.key.id: r for r in records}


def count(engine, model):
    with Session(engine) as s:
        return s.scalar(select(func.count()).select_from(model))


def test_leading_nbsp_is_kept_and_offsets_count_it():
    records, errors = parse("quirks_laptop.xml")
    assert errors == []
    s = by_id(records)["101"]
    assert s.text.startswith("\xa0")
    keyboard = s.aspects[0]
    assert (keyboard.start, keyboard.end) == (5, 13) and s.text[5:13] == "keyboard"
    assert s.aspects[1].term == "uninstall\xa0"
    assert "leading-nbsp" in s.flags


def test_repeated_term_is_located_by_offsets_not_string_search():
    records, _ = parse("quirks_laptop.xml")
    screens = by_id(records)["102"].aspects
    assert [(a.start, a.end) for a in screens] == [(4, 10), (30, 36)]


def test_mid_word_span_is_imported_and_flagged():
    records, _ = parse("quirks_laptop.xml")
    s = by_id(records)["103"]
    assert s.aspects[0].term == "dress cod"
    assert "ends-mid-word" in s.aspects[0].flags
    assert "aspect-review" in s.flags


def test_xml_entities_are_decoded_in_text_and_terms():
    records, _ = parse("quirks_laptop.xml")
    s = by_id(records)["104"]
    assert s.text == 'The "quick start" guide & the charger were missing.'
    assert s.aspects[0].term == '"quick start" guide'


def test_same_text_under_two_ids_is_flagged_not_merged():
    records, _ = parse("quirks_laptop.xml")
    assert "duplicate-text" in by_id(records)["106"].flags
    assert "duplicate-text" in by_id(records)["107"].flags


def test_test_file_ids_and_missing_polarity():
    records, errors = parse("restaurants_small.xml", "restaurant", "test")
    assert errors == []
    s = by_id(records)["32897564#894393#2"]
    assert s.aspects[0].polarity is None
    assert [c.category for c in by_id(records)["3121"].categories] == ["service"]


def test_offset_mismatch_names_every_sentence_and_keeps_the_valid_ones_parsed():
    records, errors = parse("offset_mismatch.xml")
    assert [e.sentence_id for e in errors] == ["201", "202"]
    assert all("offset mismatch" in e.message for e in errors)
    assert "text[5:17]" in errors[0].message
    assert errors[0].line == 6
    assert "203" in by_id(records)  # the valid sentence is parsed, so refusing the file is what keeps it out


def test_malformed_xml_reports_the_line():
    records, errors = parse("malformed.xml")
    assert records == []
    assert len(errors) == 1 and errors[0].line == 6
    assert str(errors[0]).startswith("malformed.xml:6: malformed XML")


def test_unknown_polarity_is_reported_with_sentence_id():
    _, errors = parse("bad_polarity.xml")
    assert len(errors) == 1
    assert errors[0].sentence_id == "1" and "unknown polarity 'great'" in errors[0].message


def test_external_entities_are_never_resolved():
    records, errors = parse("xxe.xml")
    assert records == []
    assert "entities are not allowed" in errors[0].message


def test_import_writes_sentences_aspects_and_categories(engine):
    records, _ = parse("restaurants_small.xml", "restaurant", "train")
    summary = import_sentences(engine, records, "restaurants_small.xml")
    assert (summary.new_sentences, summary.new_aspects) == (4, 5)
    assert count(engine, SourceSentence) == 4
    assert count(engine, AspectTerm) == 5
    assert count(engine, AspectCategory) == 4


def test_reimporting_the_same_file_changes_nothing(engine):
    records, _ = parse("quirks_laptop.xml")
    import_sentences(engine, records)
    again = import_sentences(engine, records)
    assert (again.new_sentences, again.new_aspects, again.unchanged) == (0, 0, 8)
    assert count(engine, SourceSentence) == 8


def test_conflicting_reimport_is_refused_without_overwriting(engine):
    records, _ = parse("quirks_laptop.xml")
    import_sentences(engine, records)
    changed = parse_semeval(
        (FIXTURES / "quirks_laptop.xml").read_text().replace("Great laptop.", "Great laptop!"),
        "edited.xml", "laptop", "train",
    )[0]
    with pytest.raises(InputRejected) as exc:
        import_sentences(engine, changed, "edited.xml")
    assert {e.sentence_id for e in exc.value.errors} == {"106", "107"}
    with Session(engine) as s:
        texts = s.scalars(select(SourceSentence.text).where(SourceSentence.sentence_id == "106")).all()
    assert texts == ["Great laptop."]


def test_same_id_in_another_domain_or_split_is_a_different_sentence(engine):
    laptop, _ = parse("quirks_laptop.xml", "laptop", "train")
    other, _ = parse("quirks_laptop.xml", "restaurant", "test")
    import_sentences(engine, laptop)
    import_sentences(engine, other)
    assert count(engine, SourceSentence) == 16


def test_import_on_postgres_and_sqlite(any_engine):
    records, _ = parse("quirks_laptop.xml")
    summary = import_sentences(any_engine, records)
    assert summary.new_sentences == 8
    with Session(any_engine) as s:
        row = s.scalars(select(SourceSentence).where(SourceSentence.sentence_id == "101")).one()
        assert row.text.startswith("\xa0") and row.aspects[1].term == "uninstall\xa0"


@pytest.mark.parametrize("domain,split", [("rest/aurant", "train"), ("..", "train"), ("laptop", "../test"),
                                          ("lap\\top", "train"), ("laptop", "te st")])
def test_a_domain_or_split_that_is_no_plain_name_is_refused_before_reading(engine, domain, split):
    records, errors = parse("quirks_laptop.xml", domain=domain, split=split)
    assert records == [] and errors
    assert all(e.file == "quirks_laptop.xml" for e in errors)
    assert any(repr(domain) in e.message or repr(split) in e.message for e in errors)
    assert "cannot name a file" in str(errors[0])
