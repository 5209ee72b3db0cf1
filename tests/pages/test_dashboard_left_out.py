"""The dashboard counts what keeps sentences out of the dataset as the Export page does (issue 28): not
translated yet, awaiting a final decision and left out for a reason apart, each with a link to the page
that resolves it; the counts are the export's own (``db.export_data.left_out_counts``)."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from corpus.export.selection import AWAITING_DECISION, NOT_TRANSLATED_YET, LeftOutSummary, left_out_summary
from db.engine import transaction
from db.export_data import left_out_counts, load_export
from db.final_choice import mark_untranslatable
from corpus.vocabulary import Status
from db.models import FinalChoice, SourceSentence, Translation, User
from tests.support.app_pages import open_page
from tests.support.metrics_fixtures import build_small_project
from tests.support.translation_fixtures import add_sentence


def test_left_out_summary_puts_every_reason_in_one_of_three_groups():
    counts = {NOT_TRANSLATED_YET: 4, AWAITING_DECISION: 2, "not tagged": 3, "annotators disagree": 1,
              "untranslatable by majority": 5}
    assert left_out_summary(counts) == LeftOutSummary(4, 2, 9)
    assert left_out_summary({}) == LeftOutSummary(0, 0, 0)
    assert sum(left_out_summary(counts)) == sum(counts.values())


def _leave_out_by_lead(engine, sentence_id: str) -> None:
    """The lead decided that a sentence stays out (a final choice without a translation)."""
    with transaction(engine) as session:
        lead = session.scalars(select(User.id).where(User.username == "lead")).one()
        row = session.scalars(select(SourceSentence.id).where(SourceSentence.sentence_id == sentence_id)).one()
        session.add(FinalChoice(sentence_id=row, translation_id=None, policy="lead", chosen_by=lead,
                                note="pun in the source"))


def _one_of_each(engine) -> None:
    build_small_project(engine, domain_r2="laptop")
    from db.users import create_user

    create_user(engine, "lead", {"lead"}, "lead-password")
    add_sentence(engine, "n1", "Nobody translated this yet.", ordinal=99)
    with Session(engine) as session:
        first = session.scalars(select(SourceSentence.sentence_id).order_by(SourceSentence.ordinal)).first()
    _leave_out_by_lead(engine, first)


def test_the_counts_equal_the_exports_left_out_list(any_engine):
    _one_of_each(any_engine)
    counts = left_out_counts(any_engine)
    assert counts == load_export(any_engine).left_out_counts()
    assert left_out_summary(counts) == LeftOutSummary(1, 1, 1)


@pytest.fixture
def dashboard_db(app_engine):
    _one_of_each(app_engine)
    return app_engine


def test_the_dashboard_counts_not_translated_awaiting_and_left_out_apart_with_links(dashboard_db):
    at = open_page(dashboard_db, "lead", "pages/dashboard.py")
    assert not at.exception, at.exception
    metrics = {m.label: m.value for m in at.metric}
    expected = left_out_summary(load_export(dashboard_db).left_out_counts())
    assert expected == LeftOutSummary(1, 1, 1)
    assert (metrics["Not translated yet"], metrics["Awaiting a final decision"],
            metrics["Left out for a reason"]) == tuple(str(n) for n in expected)
    links = {p.proto.label: (p.proto.page.rsplit("/", 1)[-1], p.proto.query_string) for p in at.get("page_link")}
    assert links["Assign the 1 untranslated sentence(s)"] == ("assign", "phase=aware&show=unassigned")
    assert links["Decide the 1 final translation(s)"] == ("final", "show=undecided")
    assert links["See them by reason on Export"][0] == "export"


def test_a_decision_moves_a_sentence_out_of_awaiting_at_the_next_run(dashboard_db):
    at = open_page(dashboard_db, "lead", "pages/dashboard.py")
    assert {m.label: m.value for m in at.metric}["Awaiting a final decision"] == "1"
    with Session(dashboard_db) as session:
        decided = {r for (r,) in session.execute(select(FinalChoice.sentence_id))}
        waiting = session.scalars(select(SourceSentence.id).where(
            SourceSentence.id.not_in(decided), SourceSentence.sentence_id != "n1")).one()
        lead = session.scalars(select(User.id).where(User.username == "lead")).one()
    mark_untranslatable(dashboard_db, waiting, lead, expected=None, note="the lead's decision")
    at.run()
    assert not at.exception, at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert (metrics["Awaiting a final decision"], metrics["Left out for a reason"]) == ("0", "2")
    assert not [p for p in at.get("page_link") if p.proto.label.startswith("Decide the")]


def test_a_draft_saved_does_not_make_the_dashboard_count_the_left_out_again(dashboard_db, monkeypatch):
    """The counts run the export's selection (seconds at paper scale): keyed by the counted corpus and the
    decisions beside it, so an autosaved draft, which moves the save stamp, reads nothing again."""
    import db.export_data
    from db.metrics_data import latest_save
    from db.schema import default_project

    calls = []
    real = db.export_data.left_out_reasons  # the selection the counts run (all sentences, or the touched ones)
    monkeypatch.setattr(db.export_data, "left_out_reasons", lambda *a, **k: calls.append(a[2:]) or real(*a, **k))
    at = open_page(dashboard_db, "lead", "pages/dashboard.py")
    assert not at.exception, at.exception
    before = len(calls)
    pid = default_project(dashboard_db)
    stamp = latest_save(dashboard_db, pid)
    with Session(dashboard_db) as session, session.begin():  # a draft's autosave: a version moves, nothing counted
        draft = session.scalars(select(Translation).where(Translation.status != Status.SUBMITTED)).first()
        assert draft is not None
        draft.version += 1
    assert latest_save(dashboard_db, pid) != stamp
    at.run()
    assert not at.exception, at.exception
    assert len(calls) == before


def test_a_saved_translation_that_is_not_final_keeps_the_counts_and_a_final_one_counts_again(dashboard_db, monkeypatch):
    """What the counts read (``db.metrics_data.left_out_basis``) is the final translations, not every one: a save
    of another submitted translation changes the figures, not the left-out counts, and runs no selection."""
    import db.export_data

    calls = []
    real = db.export_data.left_out_reasons  # the selection the counts run (all sentences, or the touched ones)
    monkeypatch.setattr(db.export_data, "left_out_reasons", lambda *a, **k: calls.append(a[2:]) or real(*a, **k))
    at = open_page(dashboard_db, "lead", "pages/dashboard.py")
    assert not at.exception, at.exception
    shown = {m.label: m.value for m in at.metric}

    def edit(translation_id: int, text: str) -> None:
        with Session(dashboard_db) as session, session.begin():
            session.get(Translation, translation_id).text = text

    with Session(dashboard_db) as session:
        submitted = session.scalars(select(Translation.id).where(Translation.status == Status.SUBMITTED,
                                                                 Translation.untranslatable.is_(False))
                                    .order_by(Translation.id)).all()
        lead = session.scalars(select(User.id).where(User.username == "lead")).one()
    edit(submitted[0], "अनुवाद जो अंतिम नहीं है")
    before = len(calls)
    at.run()
    assert not at.exception, at.exception
    assert len(calls) == before and {m.label: m.value for m in at.metric} == shown

    final = submitted[-1]
    with transaction(dashboard_db) as session:
        chosen = session.get(Translation, final)
        session.add(FinalChoice(sentence_id=chosen.sentence_id, translation_id=final, policy="lead", chosen_by=lead))
    at.run()
    counted = len(calls)
    assert counted == before + 1
    edit(final, "अंतिम अनुवाद बदला")
    at.run()
    assert not at.exception, at.exception
    assert len(calls) == counted + 1
    with Session(dashboard_db) as session:
        sentence = session.get(Translation, final).sentence_id
    assert calls[-1][1] == {sentence}  # only the saved final translation's sentence is selected again
    shown = {m.label: m.value for m in at.metric}
    expected = left_out_summary(load_export(dashboard_db).left_out_counts())
    assert (shown["Not translated yet"], shown["Awaiting a final decision"],
            shown["Left out for a reason"]) == tuple(str(n) for n in expected)


def test_a_failed_read_of_the_touched_sentences_leaves_nothing_half_kept(dashboard_db, monkeypatch):
    """The sentences a save touched are read with the left-out basis, before the new snapshot is kept: when
    that read fails (a busy database), the next run reads both again and counts what the export leaves out."""
    import db.metrics_data

    with Session(dashboard_db) as session:
        final = session.scalars(select(Translation.id).where(Translation.status == Status.SUBMITTED,
                                                             Translation.untranslatable.is_(False))
                                .order_by(Translation.id.desc()).limit(1)).one()
        lead = session.scalars(select(User.id).where(User.username == "lead")).one()
    with transaction(dashboard_db) as session:
        chosen = session.get(Translation, final)
        session.add(FinalChoice(sentence_id=chosen.sentence_id, translation_id=final, policy="lead", chosen_by=lead))
    at = open_page(dashboard_db, "lead", "pages/dashboard.py")
    assert not at.exception, at.exception
    with Session(dashboard_db) as session, session.begin():
        session.get(Translation, final).text = "अंतिम अनुवाद पूरा बदला"  # a save of the final translation
    real = db.metrics_data.left_out_touched

    def busy(*args, **kwargs):
        raise RuntimeError("database is locked")

    import db.export_data

    calls = []
    counted = db.export_data.left_out_reasons
    monkeypatch.setattr(db.export_data, "left_out_reasons", lambda *a, **k: calls.append(a[2:]) or counted(*a, **k))
    monkeypatch.setattr(db.metrics_data, "left_out_touched", busy)
    at.run()
    assert at.exception and not calls
    monkeypatch.setattr(db.metrics_data, "left_out_touched", real)
    at.run()
    assert not at.exception, at.exception
    assert len(calls) == 1  # the save is seen: its counts run (not the ones kept from before it)
    shown = {m.label: m.value for m in at.metric}
    expected = left_out_summary(load_export(dashboard_db).left_out_counts())
    assert (shown["Not translated yet"], shown["Awaiting a final decision"],
            shown["Left out for a reason"]) == tuple(str(n) for n in expected)
