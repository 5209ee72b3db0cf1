"""A record's revision reads the same whether the app saved it or a work file brought it in: one builder per
record kind (``corpus.revisions``) for the app's saves and the import alike.

The same work is made twice: once through the app's services (a translation saved and submitted, two
annotations submitted, gold decided by the automatic rule), once by importing a work file holding it. The
revision payloads are then compared field by field; only what differs by nature (row ids, the save's time
and the seconds spent) is set aside, and even those must be present on both paths."""

import json
from datetime import datetime

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from db.models import AspectTerm, Revision
from db.workflows import open_item, save_annotation
from db.translation import Draft, LinkDraft, save_translation
from db.workfile import import_work_file
from tests.support.translation_fixtures import add_sentence, add_user, assign

TEXT = "लेकिन स्टाफ़ हमारे साथ बहुत बुरा था।"
SOURCE = "But the staff was so horrible to us and the food cold."
TAGS = ["O", "B", "O", "O", "O", "O", "O", "O"]
#: Row ids and times: present on both paths, equal only by accident.
BY_NATURE = {"translation": {"assignment_id", "translator_id", "submitted_at", "time_spent_s"},
             "annotation": {"item_id", "translation_id"}, "adjudication": {"item_id"}}


def _app(engine) -> None:
    asha = add_user(engine, "asha", "translator")
    meera = add_user(engine, "meera", "annotator")
    tara = add_user(engine, "tara", "annotator")
    sentence = add_sentence(engine, "3121", SOURCE, ["staff", "food"])
    task = assign(engine, asha, sentence, "aware")
    with Session(engine) as s:
        terms = dict(s.execute(select(AspectTerm.term, AspectTerm.id).where(AspectTerm.sentence_id == sentence)).all())
    draft = Draft(TEXT, links=(LinkDraft(terms["staff"], 6, 12), LinkDraft(terms["food"], dropped=True,
                                                                           reason="omitted")))
    saved = save_translation(engine, asha, task, draft, expected_version=0, action="submit",
                             guidelines_version="1.0", busy_timeout_s=None)
    from db.engine import transaction
    from db.models import AnnotationAssignment

    with transaction(engine) as session:
        for user in (meera, tara):
            session.add(AnnotationAssignment(user_id=user, translation_id=saved.translation_id))
    for user in (meera, tara):
        item = open_item(engine, user, saved.translation_id).item_id
        save_annotation(engine, user, item, TAGS, False, None, "submit")


def _imported(engine) -> None:
    lines = [
        {"type": "sentence", "id": "3121", "domain": "restaurant", "split": "train", "text": SOURCE,
         "aspects": [{"term": "staff", "from": 8, "to": 13, "polarity": "positive"},
                     {"term": "food", "from": 44, "to": 48, "polarity": "positive"}]},
        {"type": "translation", "sentence_id": "3121", "phase": "aware", "translator": "asha", "text": TEXT,
         "untranslatable": False, "guidelines_version": "1.0",
         "aspect_map": [{"aspect": 0, "from": 6, "to": 12}, {"aspect": 1, "dropped": True, "reason": "omitted"}]},
        *({"type": "annotation", "sentence_id": "3121", "phase": "aware", "translator": "asha", "annotator": name,
           "tags": TAGS} for name in ("meera", "tara")),
    ]
    import_work_file(engine, "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in lines).encode(), "w.jsonl")


def _payloads(engine) -> dict[str, list[dict]]:
    """The last revision of each record, by kind."""
    out: dict[str, dict[int, dict]] = {}
    with Session(engine) as s:
        for entity, entity_id, payload in s.execute(
                select(Revision.entity, Revision.entity_id, Revision.payload).order_by(Revision.id)):
            out.setdefault(entity, {})[entity_id] = payload
    return {kind: list(by_id.values()) for kind, by_id in out.items()}


@pytest.fixture
def both(engine, postgres_engine_or_second_sqlite):
    _app(engine)
    _imported(postgres_engine_or_second_sqlite)
    return _payloads(engine), _payloads(postgres_engine_or_second_sqlite)


@pytest.fixture(params=["sqlite", "postgresql"])
def postgres_engine_or_second_sqlite(request, migrated_sqlite, tmp_path):
    """Where the import goes: a second SQLite database, or PostgreSQL (the app's saves go to SQLite)."""
    if request.param == "postgresql":
        yield request.getfixturevalue("postgres_engine")
        return
    from db.engine import make_engine
    from tests.support.databases import copy_of

    engine = make_engine(copy_of(migrated_sqlite, tmp_path / "imported.db"))
    yield engine
    engine.dispose()


@pytest.mark.parametrize("kind", ["translation", "annotation", "adjudication"])
def test_the_app_and_the_import_write_the_same_revision_payloads(both, kind):
    app, imported = both
    assert len(app[kind]) == len(imported[kind]) > 0
    for saved, brought in zip(sorted(app[kind], key=repr), sorted(imported[kind], key=repr)):
        assert saved.keys() == brought.keys()
        for key in BY_NATURE[kind]:
            assert (saved[key] is None) == (brought[key] is None), key
        same = {k: v for k, v in saved.items() if k not in BY_NATURE[kind]}
        assert same == {k: v for k, v in brought.items() if k not in BY_NATURE[kind]}


def test_the_translation_payload_holds_the_whole_record(both):
    app, imported = both
    for payload in (app["translation"][0], imported["translation"][0]):
        assert payload["text"] == TEXT and payload["status"] == "submitted"
        assert payload["sentence"] == {"domain": "restaurant", "split": "train", "id": "3121"}
        assert [(m["position"], m["term"], m["start"], m["end"], m["dropped"], m["reason"])
                for m in payload["aspect_map"]] == [(0, "staff", 6, 12, False, None), (1, "food", None, None, True,
                                                                                        "omitted")]
        datetime.fromisoformat(payload["submitted_at"])
        assert payload["assignment_id"] is not None
