"""The independence rule's backstop is one Core listener: it sees every INSERT and UPDATE of the tagging
assignments, from a flush, a session's statement or a plain connection, checks an UPDATE against the rows
it matches, refuses what it cannot check, and needs neither the ORM nor the models to be installed.
(The set-based inserts and the ORM insert paths: tests/db/test_write_rules_bulk.py.)"""

import json
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest
from sqlalchemy import func, insert, literal, select, update
from sqlalchemy.orm import Session

from db.engine import INTERACTIVE_BUSY_S, transaction
from db.models import AnnotationAssignment, Base, Translation, TranslationAssignment, User
from db.workfile import import_work_file
from db.write_rules import TABLE, TRANSLATION_ASSIGNMENTS, TRANSLATIONS, OwnTranslation
from tests.support.independence_records import AWARE, BLIND_BY_RAVI, SENTENCE

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 11, 28, 3, 0)
COLLEAGUE = "annotators never tag a colleague's translation of a sentence they translate"
OWN = "annotators never tag their own translation"


@pytest.fixture
def world(any_engine):
    """asha (aware) and ravi (blind) translate sentence 3121; meera translates nothing and is given asha's
    translation to tag."""
    lines = [SENTENCE, AWARE, BLIND_BY_RAVI]
    import_work_file(any_engine, "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in lines).encode(),
                     "w.jsonl")
    with Session(any_engine) as s:
        meera = User(username="meera", display_name="meera")
        s.add(meera)
        s.flush()
        users = dict(s.execute(select(User.username, User.id)).all())
        translations = {name: tid for tid, name in s.execute(
            select(Translation.id, User.username).join(User, Translation.translator_id == User.id)).all()}
        given = AnnotationAssignment(user_id=meera.id, translation_id=translations["asha"], created_at=NOW,
                                     updated_at=NOW)
        s.add(given)
        s.commit()
        return {"engine": any_engine, "users": users, "translations": translations, "given": given.id}


def _holder(engine, assignment_id: int) -> int:
    with Session(engine) as s:
        return s.get(AnnotationAssignment, assignment_id).user_id


@pytest.mark.parametrize("busy", [None, INTERACTIVE_BUSY_S])
def test_moving_an_object_onto_a_colleague_of_the_sentence_is_refused(world, busy):
    """(A page's save runs on the engine with its own busy wait: an engine of its own options.)"""
    engine, users = world["engine"], world["users"]
    with pytest.raises(OwnTranslation, match=COLLEAGUE), transaction(engine, busy) as session:
        session.get(AnnotationAssignment, world["given"]).user_id = users["ravi"]
    assert _holder(engine, world["given"]) == users["meera"]


def test_moving_an_object_onto_someone_the_rule_allows_is_written(world):
    engine = world["engine"]
    with transaction(engine) as session:
        kiran = User(username="kiran", display_name="kiran")
        session.add(kiran)
        session.flush()
        session.get(AnnotationAssignment, world["given"]).user_id = kiran.id
    assert _holder(engine, world["given"]) == kiran.id


@pytest.mark.parametrize("whose,why", [("asha", OWN), ("ravi", COLLEAGUE)])
def test_an_update_statement_is_checked_against_the_rows_it_matches(world, whose, why):
    engine, users = world["engine"], world["users"]
    with pytest.raises(OwnTranslation, match=why), transaction(engine) as session:
        session.execute(update(AnnotationAssignment).where(AnnotationAssignment.id == world["given"])
                        .values(user_id=users[whose]))
    assert _holder(engine, world["given"]) == users["meera"]


def test_an_update_by_primary_key_rows_is_checked_too(world):
    engine, users = world["engine"], world["users"]
    with pytest.raises(OwnTranslation, match=COLLEAGUE), transaction(engine) as session:
        session.execute(update(AnnotationAssignment), [{"id": world["given"], "user_id": users["ravi"]}])
    assert _holder(engine, world["given"]) == users["meera"]


def test_moving_the_translation_under_an_annotator_is_checked_too(world):
    """meera keeps the row; its translation becomes her own (she translates the sentence now, blind)."""
    engine, users, translations = world["engine"], world["users"], world["translations"]
    with transaction(engine) as session:
        session.get(Translation, translations["ravi"]).translator_id = users["meera"]
    with pytest.raises(OwnTranslation, match=OWN), transaction(engine) as session:
        session.execute(update(AnnotationAssignment.__table__)
                        .where(AnnotationAssignment.__table__.c.id == world["given"])
                        .values(translation_id=translations["ravi"]))


def test_an_update_that_moves_nothing_is_not_judged_again(world):
    """The rule judges who is given what: a status change of a row written earlier passes even when the
    annotator has since become a translator of the sentence."""
    engine, users = world["engine"], world["users"]
    with transaction(engine) as session:
        sentence = session.get(Translation, world["translations"]["asha"]).sentence_id
        session.add(TranslationAssignment(user_id=users["meera"], sentence_id=sentence, phase="blind",
                                          created_at=NOW, updated_at=NOW))
    with transaction(engine) as session:
        session.get(AnnotationAssignment, world["given"]).status = "draft"
        session.execute(update(AnnotationAssignment).where(AnnotationAssignment.id == world["given"])
                        .values(status="submitted"))
    with Session(engine) as s:
        assert s.get(AnnotationAssignment, world["given"]).status == "submitted"


def test_a_core_insert_on_a_plain_connection_is_refused(world):
    engine, users, translations = world["engine"], world["users"], world["translations"]
    row = {"user_id": users["ravi"], "translation_id": translations["asha"], "status": "assigned",
           "created_at": NOW, "updated_at": NOW}
    with pytest.raises(OwnTranslation, match=COLLEAGUE), engine.begin() as conn:
        conn.execute(insert(AnnotationAssignment.__table__), [row, {**row, "user_id": users["asha"]}])
    with Session(engine) as s:
        assert s.scalar(select(func.count()).select_from(AnnotationAssignment)) == 1


def test_what_the_rule_cannot_check_is_refused(world):
    """An INSERT from a SELECT, or a user given as an SQL expression: the rows are not known beforehand."""
    engine, users, translations = world["engine"], world["users"], world["translations"]
    table = AnnotationAssignment.__table__
    with pytest.raises(OwnTranslation, match="from a SELECT"), transaction(engine) as session:
        session.execute(insert(table).from_select(
            ["user_id", "translation_id", "status", "created_at", "updated_at"],
            select(literal(users["meera"]), literal(translations["ravi"]), literal("assigned"), literal(NOW),
                   literal(NOW))))
    with pytest.raises(OwnTranslation, match="SQL expression"), transaction(engine) as session:
        session.execute(update(table).where(table.c.id == world["given"])
                        .values(user_id=select(User.id).where(User.username == "ravi").scalar_subquery()))
    assert _holder(engine, world["given"]) == users["meera"]


def test_the_tables_the_rule_reads_by_name_are_the_models_tables():
    from db.schema import PROJECTS

    assert TABLE == AnnotationAssignment.__table__.name
    for light in (TRANSLATIONS, TRANSLATION_ASSIGNMENTS, PROJECTS):
        stored = Base.metadata.tables[light.name]
        assert {c.name for c in light.c} <= {c.name for c in stored.c}, light.name


def test_the_backstop_needs_neither_the_orm_nor_the_models():
    probe = (
        "import sys\n"
        "from db.engine import make_engine\n"
        "make_engine('sqlite://')\n"
        "print(sorted(m for m in ('sqlalchemy.orm', 'db.models') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
