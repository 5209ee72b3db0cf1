"""A SemEval file of up to ``db.importing.KEEP_SENTENCES`` sentences (every official file) is parsed once:
what it stores is what the two-pass stream stores, a file changed after its check is refused, and a stored
sentence is compared by its text and aspect terms as before."""

import io
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

import corpus.semeval as semeval
import db.importing as importing
from corpus.errors import InputRejected
from db.importing import import_semeval_stream
from db.models import AspectTerm, AuditEvent, SourceSentence

FIXTURES = Path(__file__).parents[1] / "fixtures" / "semeval"
QUIRKS = (FIXTURES / "quirks_laptop.xml").read_bytes()


def opener(data: bytes):
    return lambda: io.BytesIO(data)


def stored(engine) -> dict:
    with Session(engine) as s:
        return {r.sentence_id: (r.ordinal, r.text, tuple(r.flags),
                                [(a.position, a.term, a.start, a.end, a.polarity, tuple(a.flags)) for a in r.aspects])
                for r in s.scalars(select(SourceSentence))}


def count(engine, model) -> int:
    with Session(engine) as s:
        return s.scalar(select(func.count()).select_from(model))


def parses(monkeypatch) -> list[str]:
    """The sentence ids ``corpus.semeval`` parses, in order, from now on."""
    seen: list[str] = []
    parse = semeval._parse_sentence

    def counted(element, *args):  # noqa: ANN001, ANN002
        seen.append(element.get("id"))
        return parse(element, *args)

    monkeypatch.setattr(semeval, "_parse_sentence", counted)
    return seen


@pytest.mark.parametrize("batch", [1, 3, 1000])
def test_parsed_once_or_twice_the_file_stores_the_same_rows(engine, tmp_path, monkeypatch, batch):
    from db.engine import make_engine

    seen = parses(monkeypatch)
    once = import_semeval_stream(engine, opener(QUIRKS), "quirks_laptop.xml", "laptop", "train", batch=batch)
    assert len(seen) == 8  # each sentence once

    monkeypatch.setattr(importing, "KEEP_SENTENCES", 3)  # fewer than the file holds: read and parsed twice
    seen.clear()
    other = make_engine(f"sqlite:///{tmp_path / 'twice.db'}")
    from db.schema import upgrade

    upgrade(other)
    twice = import_semeval_stream(other, opener(QUIRKS), "quirks_laptop.xml", "laptop", "train", batch=batch)
    assert len(seen) == 16
    assert once == twice
    assert stored(engine) == stored(other)
    assert "duplicate-text" in stored(engine)["106"][2] and "duplicate-text" in stored(engine)["107"][2]
    other.dispose()


def test_a_file_changed_after_its_check_is_refused_even_with_the_same_counts(any_engine):
    """(Read twice, a change that keeps the counts was imported as read the second time.)"""
    edited = QUIRKS.replace(b"I bought it for my daughter.", b"I bought it for my son, too.")
    assert edited != QUIRKS
    versions = iter([QUIRKS, edited])
    with pytest.raises(InputRejected) as caught:
        import_semeval_stream(any_engine, lambda: io.BytesIO(next(versions)), "moving.xml", "laptop", "train")
    assert [e.message for e in caught.value.errors] == ["the file changed while it was imported"]
    assert count(any_engine, SourceSentence) == 0 and count(any_engine, AuditEvent) == 0


def test_the_same_file_again_is_unchanged_and_an_edited_aspect_is_a_conflict(any_engine):
    first = import_semeval_stream(any_engine, opener(QUIRKS), "quirks_laptop.xml", "laptop", "train")
    assert (first.new_sentences, first.new_aspects, first.unchanged) == (8, 8, 0)
    before = stored(any_engine)
    again = import_semeval_stream(any_engine, opener(QUIRKS), "quirks_laptop.xml", "laptop", "train")
    assert (again.new_sentences, again.unchanged) == (0, 8)
    # the second aspect of 104 (the order of a sentence's aspects is part of what is compared)
    edited = QUIRKS.replace(b'term="charger" polarity="negative"', b'term="charger" polarity="neutral"')
    with pytest.raises(InputRejected) as caught:
        import_semeval_stream(any_engine, opener(edited), "edited.xml", "laptop", "train")
    assert [e.sentence_id for e in caught.value.errors] == ["104"]
    assert "already exists with a different text or aspect terms" in caught.value.errors[0].message
    assert stored(any_engine) == before
    assert count(any_engine, AspectTerm) == 8


def test_the_import_is_recorded_in_the_audit_log(engine):
    import_semeval_stream(engine, opener(QUIRKS), "quirks_laptop.xml", "laptop", "train")
    with Session(engine) as s:
        event = s.scalars(select(AuditEvent)).one()
    assert (event.action, event.actor_id, event.created_at is not None) == ("import-semeval", None, True)
    assert event.detail == {"source": "quirks_laptop.xml", "sentences": 8, "aspects": 8, "unchanged": 0}
