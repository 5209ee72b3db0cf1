"""The demo project gives a newcomer real content on every screen, and loading it twice changes nothing."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from db.disagreement_queue import disagreement_queue, gold_count
from db.demo import load_demo
from db.reopen import pending_requests
from db.models import FinalChoice, Translation
from tests.support.tagging_fixtures import project_id


def _lead_overrides(engine) -> list[tuple[str, str]]:
    with Session(engine) as session:
        rows = session.execute(
            select(FinalChoice.overridden, FinalChoice.note).where(FinalChoice.chosen_by.is_not(None))
        ).all()
    return [tuple(r) for r in rows]


def test_demo_has_gold_disagreements_finals_and_one_lead_override(engine):
    load_demo(engine)
    pid = project_id(engine)
    with_gold, items = gold_count(engine, pid)
    assert 0 < with_gold < items
    assert disagreement_queue(engine, pid)
    (override,) = _lead_overrides(engine)
    assert override[0] is True and "ravi" in override[1]
    (request,) = pending_requests(engine, pid)  # Home and Reopen requests have one to show
    assert "बैरा" in request.reason and request.worker == "Asha"


def test_loading_the_demo_again_adds_nothing(engine):
    load_demo(engine)
    with Session(engine) as session:
        before = (session.scalar(select(func.count()).select_from(FinalChoice)),
                  session.scalar(select(func.count()).select_from(Translation)))
    load_demo(engine)
    with Session(engine) as session:
        after = (session.scalar(select(func.count()).select_from(FinalChoice)),
                 session.scalar(select(func.count()).select_from(Translation)))
    assert after == before
    assert len(_lead_overrides(engine)) == 1
    assert len(pending_requests(engine, project_id(engine))) == 1
