"""The independence rule holds on the paths no flush sees: set-based inserts (``db.bulk.insert_rows``,
COPY on PostgreSQL) and ``session.execute(insert(...))``; the backstop is registered by ``make_engine``,
not by importing a module. (Updates, Core statements and the ORM-free listener: tests/db/test_write_rules.py.)"""

import json
from datetime import datetime
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import func, insert, select
from sqlalchemy.orm import Session

import db.bulk
from db.bulk import insert_rows
from db.engine import transaction
from db.models import AnnotationAssignment, Translation, User
from db.workfile import import_work_file
from db.write_rules import OwnTranslation
from tests.support.independence_records import AWARE, BLIND_BY_RAVI, SENTENCE

ROOT = Path(__file__).resolve().parents[2]
OTHER = {"type": "sentence", "id": "3122", "domain": "restaurant", "split": "train", "text": "Good food.",
         "aspects": [{"term": "food", "from": 5, "to": 9, "polarity": "positive"}]}
OTHER_BY_KIRAN = {"type": "translation", "sentence_id": "3122", "phase": "aware", "translator": "kiran",
                  "text": "अच्छा खाना।", "untranslatable": False}
COLUMNS = ("user_id", "translation_id", "status", "created_at", "updated_at")
NOW = datetime(2026, 11, 28, 3, 0)
COLLEAGUE = "annotators never tag a colleague's translation of a sentence they translate"


def _world(engine):
    """asha and ravi translate sentence 3121 (aware, blind); kiran translates 3122; meera translates nothing."""
    lines = [SENTENCE, OTHER, AWARE, BLIND_BY_RAVI, OTHER_BY_KIRAN]
    import_work_file(engine, "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in lines).encode(), "w.jsonl")
    with Session(engine) as s:
        users = dict(s.execute(select(User.username, User.id)).all())
        meera = User(username="meera", display_name="meera")
        s.add(meera)
        s.commit()
        users["meera"] = meera.id
        translations = {name: tid for tid, name in s.execute(
            select(Translation.id, User.username).join(User, Translation.translator_id == User.id)).all()}
    return users, translations


def _assignments(engine) -> int:
    with Session(engine) as s:
        return s.scalar(select(func.count()).select_from(AnnotationAssignment))


@pytest.fixture(params=["copy", "executemany"])
def bulk_path(request, monkeypatch):
    """Both of insert_rows's ways in (COPY only differs from executemany on PostgreSQL)."""
    monkeypatch.setattr(db.bulk, "USE_COPY", request.param == "copy")
    return request.param


@pytest.mark.parametrize("annotator,translation,why", [
    ("asha", "asha", "annotators never tag their own translation"),
    ("ravi", "asha", COLLEAGUE),  # ravi translated the sentence blind: asha's aware one is a colleague's
])
def test_a_bulk_insert_that_breaks_the_rule_is_refused(any_engine, bulk_path, annotator, translation, why):
    users, translations = _world(any_engine)
    before = _assignments(any_engine)
    with pytest.raises(OwnTranslation, match=why), transaction(any_engine) as session:
        insert_rows(session, AnnotationAssignment, COLUMNS, [
            (users["meera"], translations["asha"], "assigned", NOW, NOW),  # allowed: the refusal is per row
            (users[annotator], translations[translation], "assigned", NOW, NOW),
        ])
    assert _assignments(any_engine) == before  # the whole transaction rolled back


def test_a_bulk_insert_the_rule_allows_goes_in(any_engine, bulk_path):
    users, translations = _world(any_engine)
    with transaction(any_engine) as session:
        # kiran translates another sentence only; meera translates nothing
        count = insert_rows(session, AnnotationAssignment, COLUMNS, (
            (users[name], translations[whose], "assigned", NOW, NOW) for name, whose in
            (("kiran", "asha"), ("kiran", "ravi"), ("meera", "asha"), ("asha", "kiran"))
        ))
    assert count == 4 and _assignments(any_engine) == 4


@pytest.mark.parametrize("form", ["parameters", "values", "multi values"])
def test_a_statement_run_through_the_session_is_refused_too(any_engine, form):
    users, translations = _world(any_engine)
    row = {"user_id": users["ravi"], "translation_id": translations["asha"], "status": "assigned",
           "created_at": NOW, "updated_at": NOW}
    with pytest.raises(OwnTranslation, match=COLLEAGUE), transaction(any_engine) as session:
        if form == "parameters":
            session.execute(insert(AnnotationAssignment), [row])
        elif form == "values":
            session.execute(insert(AnnotationAssignment).values(**row))
        else:
            session.execute(insert(AnnotationAssignment).values([row]))
    assert _assignments(any_engine) == 0


def test_an_object_added_to_the_session_is_refused_by_the_whole_rule(any_engine):
    users, translations = _world(any_engine)
    with pytest.raises(OwnTranslation, match=COLLEAGUE), transaction(any_engine) as session:
        session.add(AnnotationAssignment(user_id=users["ravi"], translation_id=translations["asha"]))
    assert _assignments(any_engine) == 0


def test_the_backstop_is_registered_by_make_engine_not_by_an_import():
    """(The listener's module imported by the services, no engine made: nothing listens yet.)"""
    probe = (
        "from sqlalchemy import Engine, event\n"
        "import db.workfile, db.tagging, db.bulk, db.write_rules as w\n"
        "print(event.contains(Engine, 'before_execute', w._before_execute))\n"
        "from db.engine import make_engine\n"
        "make_engine('sqlite://')\n"
        "print(event.contains(Engine, 'before_execute', w._before_execute))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["False", "True"]
