"""A SemEval file is read as a stream: a large file imports with its counts in batches, with little memory,
all or nothing, and every protection of the whole-file reader (no entities, located errors) holds."""

import io
import tracemalloc
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

import corpus.semeval as semeval
from bench.bench_import import synthetic_file
from corpus.errors import InputRejected
from corpus.semeval import parse_semeval
from db.importing import import_semeval_stream, import_sentences
from db.models import AspectTerm, SourceSentence

FIXTURES = Path(__file__).parents[1] / "fixtures" / "semeval"


def opener(data: bytes):
    return lambda: io.BytesIO(data)


def count(engine, model):
    with Session(engine) as s:
        return s.scalar(select(func.count()).select_from(model))


def large_file(sentences: int, aspects: int) -> bytes:
    return synthetic_file(sentences, aspects, seed=3).encode()


def test_a_large_generated_file_imports_with_its_counts_in_batches(any_engine):
    data = large_file(6000, 7000)
    expected_aspects = data.count(b"<aspectTerm ")
    summary = import_semeval_stream(any_engine, opener(data), "large.xml", "restaurant", "train", batch=700)
    assert (summary.new_sentences, summary.new_aspects, summary.unchanged) == (6000, expected_aspects, 0)
    assert count(any_engine, SourceSentence) == 6000
    assert count(any_engine, AspectTerm) == expected_aspects
    with Session(any_engine) as s:
        ordinals = s.scalars(select(SourceSentence.ordinal).order_by(SourceSentence.ordinal)).all()
    assert ordinals == list(range(1, 6001))  # file order, across batches
    again = import_semeval_stream(any_engine, opener(data), "large.xml", "restaurant", "train", batch=700)
    assert (again.new_sentences, again.unchanged) == (0, 6000)
    assert count(any_engine, SourceSentence) == 6000


def test_the_stream_stores_what_the_whole_file_import_stores(engine, tmp_path):
    """Same rows, same review flags, a duplicate text in another batch included."""
    data = (FIXTURES / "quirks_laptop.xml").read_bytes()
    import_semeval_stream(engine, opener(data), "quirks_laptop.xml", "laptop", "train", batch=1)
    records, _ = parse_semeval(data, "quirks_laptop.xml", "laptop", "train")
    with Session(engine) as s:
        stored = {r.sentence_id: (r.text, tuple(r.flags), [(a.term, a.start, a.end, a.polarity, tuple(a.flags))
                                                          for a in r.aspects])
                  for r in s.scalars(select(SourceSentence))}
    expected = {r.key.id: (r.text, r.flags, [(a.term, a.start, a.end, a.polarity, a.flags) for a in r.aspects])
                for r in records}
    assert stored == expected
    assert "duplicate-text" in stored["106"][1] and "duplicate-text" in stored["107"][1]


@pytest.mark.parametrize("chunk", [7, 64, 1 << 20])
def test_the_reader_gives_the_same_records_and_errors_whatever_the_chunk_size(monkeypatch, chunk):
    monkeypatch.setattr(semeval, "CHUNK_BYTES", chunk)
    for name in ("quirks_laptop.xml", "offset_mismatch.xml", "malformed.xml", "bad_polarity.xml", "xxe.xml"):
        data = (FIXTURES / name).read_bytes()
        monkeypatch.setattr(semeval, "CHUNK_BYTES", 1 << 30)
        whole = parse_semeval(data, name, "laptop", "train")
        monkeypatch.setattr(semeval, "CHUNK_BYTES", chunk)
        assert parse_semeval(data, name, "laptop", "train") == whole
        assert parse_semeval(io.BytesIO(data), name, "laptop", "train") == whole


def test_external_entities_are_refused_by_the_stream_and_nothing_written(engine):
    data = (FIXTURES / "xxe.xml").read_bytes()
    with pytest.raises(InputRejected) as caught:
        import_semeval_stream(engine, opener(data), "xxe.xml", "laptop", "train")
    assert "entities are not allowed" in caught.value.errors[0].message
    assert count(engine, SourceSentence) == 0


def test_errors_from_the_stream_keep_their_line_and_sentence_id(engine):
    data = (FIXTURES / "offset_mismatch.xml").read_bytes()
    with pytest.raises(InputRejected) as caught:
        import_semeval_stream(engine, opener(data), "offset_mismatch.xml", "laptop", "train", batch=1)
    assert [(e.line, e.sentence_id) for e in caught.value.errors] == [(6, "201"), (12, "202")]
    assert str(caught.value.errors[0]).startswith("offset_mismatch.xml:6 sentence 201: offset mismatch")
    assert count(engine, SourceSentence) == 0


def test_a_conflict_in_a_late_batch_writes_nothing_from_the_earlier_ones(any_engine):
    data = (FIXTURES / "quirks_laptop.xml").read_bytes()
    records, _ = parse_semeval(data, "quirks_laptop.xml", "laptop", "train")
    import_sentences(any_engine, [r for r in records if r.key.id == "107"])
    edited = data.replace(b"Great laptop.", b"Great laptop!")
    with pytest.raises(InputRejected) as caught:
        import_semeval_stream(any_engine, opener(edited), "edited.xml", "laptop", "train", batch=1)
    assert [e.sentence_id for e in caught.value.errors] == ["107"]
    assert "already exists with a different text" in caught.value.errors[0].message
    assert count(any_engine, SourceSentence) == 1  # the sentences of the batches before it were rolled back


def test_a_file_that_changes_between_the_check_and_the_import_is_refused(engine):
    data = (FIXTURES / "quirks_laptop.xml").read_bytes()
    versions = iter([data, data.replace(b'id="103"', b'id="103" ').replace(b"dress cod", b"dress cxd", 1)])
    with pytest.raises(InputRejected):
        import_semeval_stream(engine, lambda: io.BytesIO(next(versions)), "moving.xml", "laptop", "train")
    assert count(engine, SourceSentence) == 0


def test_importing_a_large_file_as_a_stream_holds_a_small_part_of_what_the_whole_file_reader_holds(engine):
    """A 6 MB file: the stream's traced peak stays well under what reading its records whole takes."""
    data = large_file(24000, 29000)
    tracemalloc.start()
    try:
        parse_semeval(data, "large.xml", "restaurant", "train")
        _, whole_peak = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        import_semeval_stream(engine, opener(data), "large.xml", "restaurant", "train")
        _, stream_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count(engine, SourceSentence) == 24000
    assert stream_peak < whole_peak / 2, (stream_peak, whole_peak)
