"""The bulk import's fast paths write what the plain ones write: the JSON text of tags, tokens and revision
payloads is ``json.dumps``'s, SQLite datetimes are SQLAlchemy's text; and the cycle collector is on again
after an import."""

from __future__ import annotations

import gc
import json
from datetime import datetime

import pytest


def test_json_text_of_tags_tokens_and_annotation_payloads_is_json_dumps():
    from db.bulk import json_list_of_strings, json_string
    from db.workfile import annotation_payload

    samples = [[], ["O"], ["B", "I", "O"], ["लेकिन", "स्टाफ़", "।"], ['"quoted"', "back\\slash", "tab\t", "\u2028",
                                                                   "😀", "\u200d"]]
    for values in samples:
        assert json_list_of_strings(values) == json.dumps(values)
        assert json_list_of_strings(tuple(values)) == json.dumps(values)
        for status in ("submitted", "draft"):
            text = annotation_payload(json_list_of_strings(values), status)
            assert text == json.dumps({"tags": values, "status": status})
    assert json_string("स्टाफ़") == json.dumps("स्टाफ़")


def test_sqlite_datetimes_are_written_as_sqlalchemy_writes_them():
    from sqlalchemy.dialects import sqlite
    from sqlalchemy.dialects.sqlite.base import DATETIME

    from db.bulk import _SQLITE_DATETIME_FORMAT, _sqlite_datetime

    assert DATETIME._storage_format == _SQLITE_DATETIME_FORMAT
    theirs = DATETIME().bind_processor(sqlite.dialect())
    ours = _sqlite_datetime(theirs)
    for value in (datetime(2024, 5, 1, 9, 30), datetime(2024, 5, 1, 9, 30, 0, 7), datetime(999, 12, 31, 23, 59, 59),
                  None):
        assert ours(value) == theirs(value)


def test_the_cycle_collector_is_on_again_after_an_import_and_after_a_refused_one(engine):
    from corpus.errors import InputRejected
    from db.bulk import cycle_collection_paused
    from db.workfile import import_work_file

    assert gc.isenabled()
    line = {"type": "sentence", "id": "1", "domain": "restaurant", "split": "train", "text": "Good food.",
            "aspects": [{"term": "food", "from": 5, "to": 9}]}
    import_work_file(engine, (json.dumps(line) + "\n").encode(), "w.jsonl")
    assert gc.isenabled()
    with pytest.raises(InputRejected):
        import_work_file(engine, b"{not json\n", "bad.jsonl")
    assert gc.isenabled()
    with cycle_collection_paused():
        with cycle_collection_paused():  # nested (or two imports at once): on only when the last ends
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
