"""The dashboard counts the left-out sentences again only when what the counts read changed
(``db.metrics_data.left_out_basis``): two equal bases must mean equal counts, whatever was saved between
them. On SQLite and PostgreSQL, over the benchmarks' synthetic project at a small scale."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from corpus.vocabulary import GoldSource, Status
from db.export_data import left_out_counts, left_out_reasons, reason_counts
from db.metrics_data import left_out_basis, left_out_touched, load_metrics_snapshot
from db.models import Adjudication, Annotation, AnnotationAssignment, FinalChoice, TaggingItem, Translation
from db.schema import default_project


@pytest.fixture
def world(any_engine):
    from bench.synthetic import build_corpus

    build_corpus(any_engine, 24)
    return any_engine, default_project(any_engine)


def final_ids(session) -> set[int]:
    latest = select(func.max(FinalChoice.id)).group_by(FinalChoice.sentence_id)
    return set(session.scalars(select(FinalChoice.translation_id).where(FinalChoice.id.in_(latest)))) - {None}


def a_submitted(session, final: bool) -> Translation:
    finals = final_ids(session)
    chosen = Translation.id.in_(finals) if final else Translation.id.not_in(finals)
    return session.scalars(select(Translation).where(Translation.status == Status.SUBMITTED, chosen,
                                                     Translation.untranslatable.is_(False))
                           .order_by(Translation.id).limit(1)).one()


def final_annotation(session) -> Annotation:
    return session.scalars(select(Annotation).join(TaggingItem, TaggingItem.id == Annotation.item_id)
                           .where(TaggingItem.translation_id.in_(final_ids(session)),
                                  Annotation.status == Status.SUBMITTED).order_by(Annotation.id).limit(1)).one()


class Tracker:
    """Each state's basis and counts, the snapshot refreshed from the one before, as the dashboard does."""

    def __init__(self, engine, pid):
        self.engine, self.pid = engine, pid
        self.snapshot = load_metrics_snapshot(engine, pid)
        self.states = [(left_out_basis(engine, pid, self.snapshot), left_out_counts(engine, pid))]

    def after(self, change) -> tuple[bool, bool]:
        """Apply ``change`` (a function of a session, in one transaction); whether the basis and the counts moved."""
        with Session(self.engine) as session, session.begin():
            change(session)
        self.snapshot = load_metrics_snapshot(self.engine, self.pid, self.snapshot)
        self.states.append((left_out_basis(self.engine, self.pid, self.snapshot), left_out_counts(self.engine, self.pid)))
        (basis_before, counts_before), (basis, counts) = self.states[-2:]
        return basis != basis_before, counts != counts_before


def test_equal_bases_mean_equal_counts_after_every_kind_of_save(world):
    engine, pid = world
    track = Tracker(engine, pid)

    def edit_non_final(session):
        a_submitted(session, final=False).text = "नया अनुवाद जो अंतिम नहीं"

    assert track.after(edit_non_final) == (False, False)  # the point: no count after most saves

    def draft_autosave(session):
        draft = session.scalars(select(Translation).where(Translation.status != Status.SUBMITTED).limit(1)).first()
        if draft is not None:
            draft.time_spent_s = (draft.time_spent_s or 0) + 1

    assert track.after(draft_autosave)[0] is False

    def edit_final(session):  # its frozen tokens no longer match: the final translation is left out
        a_submitted(session, final=True).text = "पूरी तरह बदला हुआ अंतिम अनुवाद"

    assert track.after(edit_final) == (True, True)

    def non_final_untranslatable(session):
        a_submitted(session, final=False).untranslatable = True

    assert track.after(non_final_untranslatable)[0] is True

    def reopen_non_final(session):
        a_submitted(session, final=False).status = Status.DRAFT

    assert track.after(reopen_non_final)[0] is True

    def retag_final(session):
        annotation = final_annotation(session)
        annotation.tags = ["B"] * len(annotation.tags)

    assert track.after(retag_final)[0] is True

    def withdraw(session):
        decided = session.scalars(select(Adjudication).where(Adjudication.source != GoldSource.WITHDRAWN)
                                  .order_by(Adjudication.id).limit(1)).one()
        session.add(Adjudication(item_id=decided.item_id, tags=None, source=GoldSource.WITHDRAWN))

    assert track.after(withdraw)[0] is True

    def unassign(session):
        session.scalars(select(AnnotationAssignment).where(AnnotationAssignment.status == Status.SUBMITTED)
                        .order_by(AnnotationAssignment.id).limit(1)).one().status = Status.REASSIGNED

    assert track.after(unassign)[0] is True

    def choose_another_final(session):
        chosen = a_submitted(session, final=False)
        session.add(FinalChoice(sentence_id=chosen.sentence_id, translation_id=chosen.id, policy="lead"))

    assert track.after(choose_another_final)[0] is True

    def edit_non_final_again(session):
        a_submitted(session, final=False).text = "फिर से बदला"

    assert track.after(edit_non_final_again)[0] is False

    for i, (basis, counts) in enumerate(track.states):
        for other_basis, other_counts in track.states[i + 1:]:
            if basis == other_basis:
                assert counts == other_counts


def test_reasons_selected_again_for_the_touched_sentences_equal_a_full_recount_after_every_kind_of_save(world):
    """After a save, ``left_out_touched`` names the sentences whose reasons can have changed and
    ``left_out_reasons`` selects only those again, keeping the rest: the result must be the full recount's,
    whatever was saved; the saves of a final translation, its annotations and a new final choice are told
    apart (no full recount), a change of gold's decisions or assignees is not."""
    engine, pid = world
    snapshot = load_metrics_snapshot(engine, pid)
    state = {"basis": left_out_basis(engine, pid, snapshot), "reasons": left_out_reasons(engine, pid)}
    assert reason_counts(state["reasons"]) == left_out_counts(engine, pid)

    def after(change):
        """Apply ``change``; the sentences the save touched (None: the bases cannot tell)."""
        nonlocal snapshot
        with Session(engine) as session, session.begin():
            change(session)
        snapshot = load_metrics_snapshot(engine, pid, snapshot)
        basis = left_out_basis(engine, pid, snapshot)
        touched = left_out_touched(engine, state["basis"], basis)
        full = left_out_reasons(engine, pid)
        if touched is not None:
            patched = left_out_reasons(engine, pid, state["reasons"], touched)
            assert patched == full
            assert reason_counts(patched) == left_out_counts(engine, pid)
        state.update(basis=basis, reasons=full)
        return touched

    def edit_final(session):  # its frozen tokens no longer match: the final translation is left out
        a_submitted(session, final=True).text = "पूरी तरह बदला हुआ अंतिम अनुवाद"

    assert after(edit_final)

    def edit_non_final(session):
        a_submitted(session, final=False).text = "नया अनुवाद जो अंतिम नहीं"

    assert after(edit_non_final) == set()

    def non_final_untranslatable(session):
        a_submitted(session, final=False).untranslatable = True

    assert after(non_final_untranslatable)

    def final_untranslatable(session):
        a_submitted(session, final=True).untranslatable = True

    assert after(final_untranslatable)

    def reopen_final(session):
        a_submitted(session, final=True).status = Status.DRAFT

    assert after(reopen_final)

    def retag_final(session):
        annotation = final_annotation(session)
        annotation.tags = ["B"] * len(annotation.tags)

    assert after(retag_final)

    def reopen_final_annotation(session):
        final_annotation(session).status = Status.DRAFT

    assert after(reopen_final_annotation)

    def choose_another_final(session):
        chosen = a_submitted(session, final=False)
        session.add(FinalChoice(sentence_id=chosen.sentence_id, translation_id=chosen.id, policy="lead"))

    assert after(choose_another_final)

    def leave_out_by_lead(session):
        chosen = a_submitted(session, final=True)
        session.add(FinalChoice(sentence_id=chosen.sentence_id, translation_id=None, policy="lead", note="no"))

    assert after(leave_out_by_lead)

    def withdraw(session):
        decided = session.scalars(select(Adjudication).where(Adjudication.source != GoldSource.WITHDRAWN)
                                  .order_by(Adjudication.id).limit(1)).one()
        session.add(Adjudication(item_id=decided.item_id, tags=None, source=GoldSource.WITHDRAWN))

    assert after(withdraw) is None

    def unassign(session):
        session.scalars(select(AnnotationAssignment).where(AnnotationAssignment.status == Status.SUBMITTED)
                        .order_by(AnnotationAssignment.id).limit(1)).one().status = Status.REASSIGNED

    assert after(unassign) is None

    def delete_a_final_translation(session):
        final = a_submitted(session, final=True)
        for item in session.scalars(select(TaggingItem).where(TaggingItem.translation_id == final.id)):
            for annotation in session.scalars(select(Annotation).where(Annotation.item_id == item.id)):
                session.delete(annotation)
        final.status = Status.DRAFT

    after(delete_a_final_translation)
