"""The metrics load hands the gold reader the submitted annotations it has read (``db.gold.SubmittedColumns``)
instead of letting it read the decided items' versions again: the gold must be the gold the reader reads
itself, with decisions, withdrawals, reassignments and tags that are not B/I/O about. SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from sqlalchemy import Text, cast, select
from sqlalchemy.orm import Session

from corpus.vocabulary import GoldSource, Status
from db.engine import reader
from db.gold import SubmittedColumns, read_gold_in_force
from db.metrics_data import load_metrics_input, load_metrics_snapshot, read_metrics_input
from db.models import Adjudication, Annotation, AnnotationAssignment, TaggingItem
from db.rows import fetch
from db.schema import default_project


@pytest.fixture
def world(any_engine):
    from bench.synthetic import build_corpus

    build_corpus(any_engine, 24)
    return any_engine, default_project(any_engine)


def both_ways(engine, pid):
    with Session(reader(engine)) as session:
        rows = fetch(session.connection(), select(
            Annotation.id, TaggingItem.translation_id, Annotation.annotator_id, cast(Annotation.tags, Text))
            .join(TaggingItem, TaggingItem.id == Annotation.item_id).where(Annotation.status == Status.SUBMITTED)
            .order_by(Annotation.id))
        columns = SubmittedColumns(*(list(c) for c in zip(*rows)))
        given = read_gold_in_force(session, pid, decided_only=True, submitted=columns)
        read = read_gold_in_force(session, pid, decided_only=True)
    return given, read


def test_gold_from_the_rows_already_read_is_the_gold_read_again(world):
    engine, pid = world
    given, read = both_ways(engine, pid)
    assert given == read and any(g.gold is not None for g in read.values())

    with Session(engine) as session, session.begin():
        decided = session.scalars(select(Adjudication).order_by(Adjudication.id)).all()
        session.add(Adjudication(item_id=decided[0].item_id, tags=None, source=GoldSource.WITHDRAWN))
        reassigned = session.scalars(select(AnnotationAssignment).where(
            AnnotationAssignment.status == Status.SUBMITTED).order_by(AnnotationAssignment.id).limit(1)).one()
        reassigned.status = Status.REASSIGNED
        odd = session.scalars(select(Annotation).where(Annotation.item_id == decided[-1].item_id,
                                                       Annotation.status == Status.SUBMITTED).limit(1)).one()
        odd.tags = ["B-ASP"] + ["O"] * (len(odd.tags) - 1)  # not B/I/O: kept as a list, never gold letters
        reopened = session.scalars(select(Annotation).where(Annotation.item_id == decided[1].item_id,
                                                            Annotation.status == Status.SUBMITTED).limit(1)).one()
        reopened.status = Status.DRAFT
    given, read = both_ways(engine, pid)
    assert given == read


def test_a_full_load_equals_a_refreshed_one_whose_gold_was_read(world):
    engine, pid = world
    snapshot = load_metrics_snapshot(engine, pid)
    with Session(engine) as session, session.begin():
        decided = session.scalars(select(Adjudication).order_by(Adjudication.id).limit(1)).one()
        session.add(Adjudication(item_id=decided.item_id, tags=None, source=GoldSource.WITHDRAWN))
    refreshed = load_metrics_snapshot(engine, pid, snapshot)  # gold key moved: read by the reader itself
    assert refreshed.data == load_metrics_snapshot(engine, pid).data == load_metrics_input(engine, pid)


def test_the_export_reads_the_annotations_once_for_its_gold_and_figures(world):
    """The export hands the submitted annotations it read to the gold reader and to the metrics input: both
    must be what each reads by itself, also after a withdrawal, a reassignment and tags that are not B/I/O."""
    from db.export_data import ExportOptions, read_export

    engine, pid = world

    def check():
        read = read_export(engine, ExportOptions(project_id=pid))
        finals = {t for t, _ in read.rows.finals.values() if t is not None}
        with Session(reader(engine)) as session:
            gold = read_gold_in_force(session, pid, translations=finals, and_decided=True)
            figures_input = read_metrics_input(session, pid, gold)  # its own read of every row
        assert read.rows.gold == {g.translation_id: g for g in gold.values()}
        assert read.metrics_input == figures_input
        return read

    assert check().metrics_input.tag_sets
    with Session(engine) as session, session.begin():
        decided = session.scalars(select(Adjudication).order_by(Adjudication.id)).all()
        session.add(Adjudication(item_id=decided[0].item_id, tags=None, source=GoldSource.WITHDRAWN))
        session.scalars(select(AnnotationAssignment).where(AnnotationAssignment.status == Status.SUBMITTED)
                        .order_by(AnnotationAssignment.id).limit(1)).one().status = Status.REASSIGNED
        odd = session.scalars(select(Annotation).where(Annotation.item_id == decided[-1].item_id,
                                                       Annotation.status == Status.SUBMITTED).limit(1)).one()
        odd.tags = ["B-ASP"] + ["O"] * (len(odd.tags) - 1)
    check()


def test_translation_columns_read_in_sentence_order_reach_the_figures_in_id_order():
    """A project's translations are made phase by phase, so the database's sentence index hands them over with
    ids out of order; the metrics input takes them by id (as its own read gives them)."""
    from db.export_data import in_id_order

    by_sentence = [[5, 1, 6, 2], ["blind", "aware", "blind", "aware"], [1, 1, 2, 2]]
    assert in_id_order(by_sentence) == [[1, 2, 5, 6], ["aware", "aware", "blind", "blind"], [1, 2, 1, 2]]
    in_order = [[1, 2, 3], ["a", "b", "c"]]
    assert in_id_order(in_order) is in_order
    assert in_id_order([[], []]) == [[], []]
