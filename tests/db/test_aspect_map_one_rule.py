"""One aspect-map rule for both write paths: the same span on the same Hindi text is refused by the
translation save (on submit) and by the work-file import (a located error, nothing written), and kept by
both when it covers whole words (corpus.aspect_map.map_refusals, which both call)."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from corpus.aspect_map import CUTS_A_WORD, OUTSIDE_THE_TEXT
from corpus.errors import InputRejected
from db.models import AspectAlignment, AspectTerm, SourceSentence, Translation
from db.translation import Draft, LinkDraft, SubmissionRefused, load_task, save_translation
from db.workfile import import_work_file
from tests.support.independence_records import AWARE, SENTENCE
from tests.support.translation_fixtures import add_sentence, add_user, assign

HINDI = AWARE["text"]  # "लेकिन स्टाफ़ हमारे साथ बहुत बुरा था।", NFC
STAFF = (HINDI.index("स्टाफ़"), HINDI.index("स्टाफ़") + len("स्टाफ़"))

SPANS = [
    ("whole word", STAFF, None),
    ("two whole words", (0, STAFF[1]), None),
    ("nukta cut off", (STAFF[0], STAFF[1] - 1), CUTS_A_WORD),
    ("starts inside a word", (STAFF[0] + 1, STAFF[1]), CUTS_A_WORD),
    ("takes the space before", (STAFF[0] - 1, STAFF[1]), CUTS_A_WORD),
    ("past the last token", (len(HINDI) - 1, len(HINDI) + 2), OUTSIDE_THE_TEXT),
    ("no token there at all", (len(HINDI) + 2, len(HINDI) + 6), OUTSIDE_THE_TEXT),
]


def _app_submit(engine, span: tuple[int, int]):
    """Submit ``HINDI`` with ``span`` for the aspect, through the translator's save."""
    sid = add_sentence(engine, "app-1", SENTENCE["text"], ["staff"])
    asha = add_user(engine, "app-asha", "translator")
    blind, task = assign(engine, asha, sid, "blind"), assign(engine, asha, sid, "aware")
    save_translation(engine, asha, blind, Draft("अंधा अनुवाद"), expected_version=0, action="submit")
    [aspect] = load_task(engine, asha, task).aspects
    return save_translation(engine, asha, task, Draft(HINDI, links=(LinkDraft(aspect.id, *span),)),
                            expected_version=0, action="submit")


def _import(engine, span: tuple[int, int]):
    line = dict(AWARE, aspect_map=[{"aspect": 0, "from": span[0], "to": span[1]}])
    data = "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in (SENTENCE, line)).encode()
    return import_work_file(engine, data, "w.jsonl")


def _stored(engine) -> tuple[int, int]:
    with Session(engine) as session:
        return (session.scalar(select(func.count()).select_from(Translation)),
                session.scalar(select(func.count()).select_from(AspectAlignment)))


@pytest.mark.parametrize(("name", "span", "rule"), SPANS, ids=[s[0] for s in SPANS])
def test_the_app_and_the_import_refuse_the_same_spans_by_the_same_rule(any_engine, name, span, rule):
    engine = any_engine
    if rule is None:
        assert _app_submit(engine, span).links == (LinkDraft(_app_aspect_id(engine), *span),)
        assert _import(engine, span).translations == 1
        assert _stored(engine) == (3, 2)  # blind + aware in the app, aware imported; one link each aware
        return
    with pytest.raises(SubmissionRefused) as app:
        _app_submit(engine, span)
    assert app.value.problems[0] == "the words marked for “staff” no longer match your translation; mark them again"
    with pytest.raises(InputRejected) as imported:
        _import(engine, span)
    [error] = imported.value.errors
    assert (error.file, error.line, error.sentence_id) == ("w.jsonl", 2, "3121")
    assert error.message.startswith(f"aspect_map: aspect 0's span {span[0]}:{span[1]} ")
    assert error.message.endswith(f"aspect-map rule: {rule}")
    assert _stored(engine) == (1, 0)  # the app's blind translation only: the import wrote nothing


def _app_aspect_id(engine) -> int:
    with Session(engine) as session:
        return session.scalar(select(AspectTerm.id).join(SourceSentence, AspectTerm.sentence_id == SourceSentence.id)
                              .where(SourceSentence.sentence_id == "app-1"))


def test_the_command_line_import_prints_the_located_refusal_naming_the_rule(engine, sqlite_url, tmp_path, capsys):
    from cli.commands import main

    path = tmp_path / "w.jsonl"
    line = dict(AWARE, aspect_map=[{"aspect": 0, "from": STAFF[0], "to": STAFF[1] - 1}])
    path.write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in (SENTENCE, line)), encoding="utf-8")
    assert main(["--db", sqlite_url, "import-work", str(path)]) != 0
    err = capsys.readouterr().err
    assert f"{path}:2 sentence 3121: aspect_map: aspect 0's span {STAFF[0]}:{STAFF[1] - 1}" in err
    assert f"aspect-map rule: {CUTS_A_WORD}" in err
    assert _stored(engine) == (0, 0)
