"""The work-file round trip compared with the records the file held, not a dump with a dump.

A dump that loses a field (every translation's aspect map, a reason, a time) loses it in both dumps of a
dump-import-dump round trip, which then still compares equal. Here the records read back from the
database are compared, field by field, with the records parsed from the file that went in."""

import dataclasses
import json

import pytest

from corpus.tokens import tokenize
from corpus.workfile import dump_work_file, parse_work_file
from db.workfile import import_work_file, load_work

SENTENCE = {"type": "sentence", "id": "3121", "domain": "restaurant", "split": "train",
            "text": "But the staff was so horrible to us and the food cold.",
            "aspects": [{"term": "staff", "from": 8, "to": 13, "polarity": "negative"},
                        {"term": "food", "from": 44, "to": 48, "polarity": "negative"}]}
RECORDS = [
    SENTENCE,
    {"type": "translation", "sentence_id": "3121", "domain": "restaurant", "split": "train", "phase": "aware",
     "translator": "asha", "text": "लेकिन स्टाफ़ हमारे साथ बहुत बुरा था और खाना ठंडा।", "untranslatable": False,
     "aspect_map": [{"aspect": 0, "from": 6, "to": 12}, {"aspect": 1, "from": 39, "to": 43}],
     "submitted_at": "2026-11-01T10:00:00", "time_spent_s": 60.0, "guidelines_version": "1.0"},
    {"type": "translation", "sentence_id": "3121", "domain": "restaurant", "split": "train", "phase": "aware",
     "translator": "ravi", "text": "पर स्टाफ़ का बर्ताव बहुत खराब था।", "untranslatable": False,
     "aspect_map": [{"aspect": 0, "from": 3, "to": 9}, {"aspect": 1, "dropped": True, "reason": "omitted"}],
     "submitted_at": "2026-11-02T10:01:00", "time_spent_s": 67.5, "guidelines_version": "1.0"},
    {"type": "translation", "sentence_id": "3121", "domain": "restaurant", "split": "train", "phase": "blind",
     "translator": "kiran", "text": None, "untranslatable": True, "reason": "idiom",
     "submitted_at": "2026-11-03T10:02:00"},
    {"type": "translation", "sentence_id": "3121", "domain": "restaurant", "split": "train", "phase": "blind",
     "translator": "dev", "text": "लेकिन कर्मचारी", "untranslatable": False, "status": "draft"},
    {"type": "annotation", "sentence_id": "3121", "domain": "restaurant", "split": "train", "phase": "aware",
     "translator": "asha", "annotator": "meera", "tags": ["O", "B", "O", "O", "O", "O", "O", "O", "B", "O", "O"],
     "submitted_at": "2026-11-05T09:00:00"},
    {"type": "annotation", "sentence_id": "3121", "domain": "restaurant", "split": "train", "phase": "aware",
     "translator": "asha", "annotator": "tara", "tags": ["O", "B", "O", "O", "O", "O", "O", "O", "O", "O", "O"],
     "status": "draft"},
]


def _without_lines(records):
    return sorted((dataclasses.replace(r, line=None) for r in records), key=repr)


@pytest.fixture
def original():
    data = "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in RECORDS).encode()
    work, errors = parse_work_file(data, "w.jsonl")
    assert errors == []
    assert any(t.aspect_map for t in work.translations)  # the field a lossy dump would drop
    return data, work


def test_records_read_back_equal_the_records_that_went_in(any_engine, original):
    data, work = original
    import_work_file(any_engine, data, "w.jsonl")
    back = load_work(any_engine)
    assert _without_lines(back.sentences) == _without_lines(work.sentences)
    assert _without_lines(back.translations) == _without_lines(work.translations)
    assert _without_lines(dataclasses.replace(a, tokens=None) for a in back.annotations) == _without_lines(
        work.annotations)
    text = next(t.text for t in work.translations if (t.phase, t.translator) == ("aware", "asha"))
    assert {a.tokens for a in back.annotations} == {tuple(tokenize(text))}


def test_the_dump_of_what_went_in_parses_back_to_the_same_records(engine, original):
    data, work = original
    import_work_file(engine, data, "w.jsonl")
    dumped, errors = parse_work_file(dump_work_file(load_work(engine)).encode(), "dump.jsonl")
    assert errors == []
    assert _without_lines(dumped.translations) == _without_lines(work.translations)
    assert {(a.annotator, a.tags, a.status) for a in dumped.annotations} == {
        (a.annotator, a.tags, a.status) for a in work.annotations}
