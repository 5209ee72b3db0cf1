"""The dashboard's load after a save reads only what changed (``load_metrics_snapshot(..., previous)``),
and whatever changed, the result is the input a full load gives: on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

import db.metrics_data as metrics_data
from corpus.vocabulary import GoldSource, Status
from db.metrics_data import load_metrics_input, load_metrics_snapshot
from db.models import (
    Adjudication,
    Annotation,
    AnnotationAssignment,
    AspectAlignment,
    Translation,
    User,
)
from db.schema import default_project


@pytest.fixture
def world(any_engine):
    """The benchmarks' synthetic project at a small scale: 8 translations a sentence, 2 annotators an item,
    decisions, aspect maps."""
    from bench.synthetic import build_corpus

    build_corpus(any_engine, 24)
    return any_engine, default_project(any_engine)


def refreshed(engine, pid, previous):
    """The refresh from ``previous``, checked against a full load and a one-off load."""
    snapshot = load_metrics_snapshot(engine, pid, previous)
    assert snapshot.data == load_metrics_snapshot(engine, pid).data == load_metrics_input(engine, pid)
    return snapshot


def first(session, statement):
    return session.scalars(statement.limit(1)).one()


def test_after_every_kind_of_save_the_refresh_equals_a_full_load(world):
    engine, pid = world
    snapshot = load_metrics_snapshot(engine, pid)
    assert snapshot.data.translations and snapshot.data.tag_sets and snapshot.data.adjudicated

    with Session(engine) as session, session.begin():  # a submitted translation edited
        first(session, select(Translation).where(Translation.status == Status.SUBMITTED)).text = "नया अनुवाद"
    snapshot = refreshed(engine, pid, snapshot)
    assert "नया अनुवाद" in {t.text for t in snapshot.data.translations}

    with Session(engine) as session, session.begin():  # one reopened: it stops counting
        reopened = first(session, select(Translation).where(Translation.status == Status.SUBMITTED)
                         .order_by(Translation.id.desc()))
        reopened.status = Status.DRAFT
        reopened_id = reopened.id
    snapshot = refreshed(engine, pid, snapshot)
    assert reopened_id not in {t.pk for t in snapshot.data.translations}

    with Session(engine) as session, session.begin():  # and submitted again with new text
        again = session.get(Translation, reopened_id)
        again.status, again.text = Status.SUBMITTED, "फिर से"
    snapshot = refreshed(engine, pid, snapshot)

    with Session(engine) as session, session.begin():  # a new translation of a sentence
        model = first(session, select(Translation).where(Translation.status == Status.SUBMITTED))
        translator = session.scalars(select(User.id).where(User.id.not_in(
            select(Translation.translator_id).where(Translation.sentence_id == model.sentence_id,
                                                    Translation.phase == model.phase)))).first()
        session.add(Translation(sentence_id=model.sentence_id, phase=model.phase, translator_id=translator,
                                text="एक और अनुवाद", status=Status.SUBMITTED, submitted_at=model.submitted_at))
    snapshot = refreshed(engine, pid, snapshot)

    with Session(engine) as session, session.begin():  # an annotation's tags changed
        annotation = first(session, select(Annotation).where(Annotation.status == Status.SUBMITTED))
        annotation.tags = ["B"] + ["O"] * (len(annotation.tags) - 1)
    snapshot = refreshed(engine, pid, snapshot)

    with Session(engine) as session, session.begin():  # a decision withdrawn: gold changes, annotations do not
        decided = first(session, select(Adjudication).where(Adjudication.source != GoldSource.WITHDRAWN))
        session.add(Adjudication(item_id=decided.item_id, tags=None, source=GoldSource.WITHDRAWN))
    before = len(snapshot.data.adjudicated)
    snapshot = refreshed(engine, pid, snapshot)
    assert len(snapshot.data.adjudicated) == before - 1

    with Session(engine) as session, session.begin():  # an annotator taken off an item
        first(session, select(AnnotationAssignment).where(AnnotationAssignment.status == Status.SUBMITTED)
              ).status = Status.REASSIGNED
    snapshot = refreshed(engine, pid, snapshot)

    with Session(engine) as session, session.begin():  # an aspect map changed, its translation not
        kept = first(session, select(AspectAlignment).where(AspectAlignment.dropped.is_(False)))
        kept.dropped, kept.start, kept.end, kept.drop_reason = True, None, None, "no Hindi word"
    snapshot = refreshed(engine, pid, snapshot)

    with Session(engine) as session, session.begin():  # a user renamed: every record carries names
        session.execute(update(User).where(User.id == translator).values(username="renamed"))
    snapshot = refreshed(engine, pid, snapshot)
    assert "renamed" in {t.translator for t in snapshot.data.translations}


def test_a_row_that_becomes_visible_late_is_still_read(world):
    """A writer's update time is taken before its commit: a row can appear later than a newer-stamped
    one. The fingerprint check catches a row the recent window missed."""
    engine, pid = world
    snapshot = load_metrics_snapshot(engine, pid)
    latest = snapshot.translations.fingerprint[3]
    with engine.begin() as conn:
        pk = conn.scalar(select(func.min(Translation.id)).where(Translation.status == Status.SUBMITTED))
        conn.execute(update(Translation).where(Translation.id == pk).values(
            text="देर से दिखा", version=Translation.version + 1, updated_at=latest - timedelta(days=1)))
    snapshot = refreshed(engine, pid, snapshot)
    assert "देर से दिखा" in {t.text for t in snapshot.data.translations}


def test_a_deleted_row_leaves_the_refreshed_input(world):
    engine, pid = world
    snapshot = load_metrics_snapshot(engine, pid)
    with engine.begin() as conn:
        pk = conn.scalar(select(func.max(Annotation.id)).where(Annotation.status == Status.SUBMITTED))
        conn.execute(update(Adjudication).where(Adjudication.accepted_annotation_id == pk)
                     .values(accepted_annotation_id=None))
        conn.execute(delete(Annotation).where(Annotation.id == pk))
    refreshed(engine, pid, snapshot)


def test_with_nothing_changed_the_rows_and_gold_are_reused_not_read(world, monkeypatch):
    engine, pid = world
    snapshot = load_metrics_snapshot(engine, pid)

    def no_read(*args, **kwargs):
        raise AssertionError("the gold was read again")

    monkeypatch.setattr(metrics_data, "read_gold_in_force", no_read)
    again = load_metrics_snapshot(engine, pid, snapshot)
    assert again.translations is snapshot.translations and again.annotations is snapshot.annotations
    assert again.data == snapshot.data


def test_a_translation_save_reads_that_translation_and_reuses_the_annotations_and_gold(world, monkeypatch):
    engine, pid = world
    snapshot = load_metrics_snapshot(engine, pid)
    with Session(engine) as session, session.begin():
        edited = first(session, select(Translation).where(Translation.status == Status.SUBMITTED))
        edited.text = "बदला हुआ"
        edited_id = edited.id
    read_ids = []
    real_among = metrics_data.among

    def recording_among(column, ids):
        read_ids.append(sorted(ids))
        return real_among(column, ids)

    monkeypatch.setattr(metrics_data, "among", recording_among)
    monkeypatch.setattr(metrics_data, "read_gold_in_force", lambda *a, **k: pytest.fail("the gold was read again"))
    again = load_metrics_snapshot(engine, pid, snapshot)
    assert read_ids == [[edited_id]]
    assert again.annotations is snapshot.annotations
    monkeypatch.undo()
    assert again.data == load_metrics_snapshot(engine, pid).data


def test_many_changed_rows_are_read_in_one_full_read(world, monkeypatch):
    engine, pid = world
    snapshot = load_metrics_snapshot(engine, pid)
    with Session(engine) as session, session.begin():
        for translation in session.scalars(select(Translation).where(Translation.status == Status.SUBMITTED)):
            translation.text = (translation.text or "") + " ।"
    monkeypatch.setattr(metrics_data, "REREAD_BY_ID", 3)
    monkeypatch.setattr(metrics_data, "among", lambda *a: pytest.fail("read by id"))
    again = load_metrics_snapshot(engine, pid, snapshot)
    monkeypatch.undo()
    assert again.data == load_metrics_snapshot(engine, pid).data
    assert all(t.text.endswith(" ।") for t in again.data.translations if t.text)



def test_a_draft_saved_gives_back_the_same_input_and_a_submission_a_new_one(world):
    """Drafts never count: the refresh hands back the very input it had, so what readers derived from it
    stays valid (the dashboard keeps its figures through every autosave)."""
    engine, pid = world
    snapshot = load_metrics_snapshot(engine, pid)
    with Session(engine) as session, session.begin():
        model = first(session, select(Translation).where(Translation.status == Status.SUBMITTED))
        translator = session.scalars(select(User.id).where(User.id.not_in(
            select(Translation.translator_id).where(Translation.sentence_id == model.sentence_id,
                                                    Translation.phase == model.phase)))).first()
        draft = Translation(sentence_id=model.sentence_id, phase=model.phase, translator_id=translator,
                            text="आधा", status=Status.DRAFT)
        session.add(draft)
        session.flush()
        draft_id, submitted_at = draft.id, model.submitted_at
    again = refreshed(engine, pid, snapshot)
    assert again.data is snapshot.data
    with Session(engine) as session, session.begin():
        session.get(Translation, draft_id).text = "आधा लिखा"  # the next autosave
    again = refreshed(engine, pid, again)
    assert again.data is snapshot.data
    with Session(engine) as session, session.begin():
        submitted = session.get(Translation, draft_id)
        submitted.status, submitted.submitted_at = Status.SUBMITTED, submitted_at
    again = refreshed(engine, pid, again)
    assert again.data is not snapshot.data
    assert "आधा लिखा" in {t.text for t in again.data.translations}


def test_a_full_read_sums_its_fingerprint_to_what_the_table_sums_to(world):
    """The first read sums the ids and versions it read instead of asking the database to scan for them: the
    two must agree, drafts (rows read apart) included, or every later patch would read everything again."""
    engine, pid = world
    with Session(engine) as session, session.begin():
        draft = first(session, select(Translation).where(Translation.status == Status.SUBMITTED))
        draft.status = Status.DRAFT
        first(session, select(Annotation).where(Annotation.status == Status.SUBMITTED)).status = Status.DRAFT
    snapshot = load_metrics_snapshot(engine, pid)
    with engine.connect() as conn:
        assert snapshot.translations.fingerprint == metrics_data._fingerprint(conn, Translation)
        assert snapshot.annotations.fingerprint == metrics_data._fingerprint(conn, Annotation)
    assert None in snapshot.translations.records and None in snapshot.annotations.records
    assert snapshot.translations.ids == sorted(snapshot.translations.ids)
    assert load_metrics_snapshot(engine, pid, snapshot).translations is snapshot.translations
