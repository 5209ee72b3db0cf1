"""The load generator (``bench.load``) saves through the pages' save functions, follows the pages' rules
(blind before aware, submitted is read-only, a conflict shows theirs), and its check catches a lost or
altered save. On SQLite and PostgreSQL (``any_engine``)."""

from __future__ import annotations

import random

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from bench.load import Results, SimulatedUser, run_load, seed_load_data, verify
from db.models import AnnotationAssignment, Revision, Translation, TranslationAssignment


def _revisions(engine, users: list[int]) -> list[Revision]:
    with Session(engine) as session:
        return list(session.scalars(select(Revision).where(Revision.author_id.in_(users)).order_by(Revision.id)))


def test_a_user_who_submits_everything_works_each_aware_task_after_its_blind_one(any_engine):
    seed = seed_load_data(any_engine, users=2, tasks_per_user=2)
    user = seed.users[0]
    results = Results()
    simulated = SimulatedUser(any_engine, seed, user, results, random.Random(3), stale_tab_share=0.3, submit_share=1.0)
    steps = 0
    while simulated.step():
        steps += 1
        assert steps < 200, "the simulated user never finished its queue"

    assert not results.failures and verify(any_engine, results, seed) == []
    with Session(any_engine) as session:
        tasks = session.scalars(select(TranslationAssignment).where(TranslationAssignment.user_id == user)).all()
        items = session.scalars(select(AnnotationAssignment).where(AnnotationAssignment.user_id == user)).all()
    assert len(tasks) == 4 and {t.status for t in tasks} == {"submitted"}
    assert len(items) == 4 and {a.status for a in items} == {"submitted"}
    # The revisions are the ones save_translation and save_annotation write, blind before aware per sentence.
    revisions = _revisions(any_engine, [user])
    translated = [(r.payload["sentence"]["id"], r.payload["phase"]) for r in revisions if r.entity == "translation"]
    assert sorted(translated, key=lambda t: t[0]) == [(s, p) for s in sorted({s for s, _ in translated})
                                                      for p in ("blind", "aware")]
    assert all("rejected_suggestions" in r.payload for r in revisions if r.entity == "annotation")


def test_stale_tabs_are_refused_and_nothing_acknowledged_is_lost(any_engine):
    # a count of saves, not a time: a loaded machine made only 8 saves in the 2 s this once ran for
    results, seed = run_load(any_engine, users=3, seconds=1, think_ms=2, stale_tab_share=0.5, submit_share=0.05,
                             tasks_per_user=3, min_saves=12)
    assert results.saves >= 12 and not results.failures
    assert results.conflicts > 0
    assert verify(any_engine, results, seed) == []


def test_the_check_reports_a_lost_save_and_a_record_changed_behind_the_users_back(any_engine):
    results, seed = run_load(any_engine, users=2, seconds=1, think_ms=2, stale_tab_share=0.0, submit_share=0.0,
                             tasks_per_user=2)
    translation = next(a for a in results.acks if a.entity == "translation")
    with Session(any_engine) as session, session.begin():
        session.execute(delete(Revision).where(Revision.entity == "translation",
                                               Revision.entity_id == translation.entity_id,
                                               Revision.version == translation.version))
        session.execute(update(Translation).where(Translation.id == translation.entity_id).values(text="बदला"))
    problems = verify(any_engine, results, seed)
    assert f"lost: translation {translation.entity_id} version {translation.version}" in problems
    assert any(p.startswith(f"translation {translation.entity_id} holds") for p in problems)
