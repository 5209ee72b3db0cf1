"""A hand-built project for the Assignments page's lists (unassigned per phase, overdue work): the db tests
and the page tests count the same rows."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine

from db.engine import transaction
from db.models import AnnotationAssignment, TranslationAssignment
from tests.support.tagging_fixtures import add_sentence, add_translation, add_user, set_project

NOW = datetime.now(UTC).replace(tzinfo=None)  # stored times are naive UTC


def task(engine: Engine, user: int, sentence: int, phase: str, status: str, days_ago: float) -> int:
    with transaction(engine) as session:
        row = TranslationAssignment(user_id=user, sentence_id=sentence, phase=phase, status=status,
                                    created_at=NOW - timedelta(days=days_ago))
        session.add(row)
        session.flush()
        return row.id


def tagging_task(engine: Engine, user: int, translation: int, days_ago: float, status: str = "assigned") -> int:
    with transaction(engine) as session:
        row = AnnotationAssignment(user_id=user, translation_id=translation, status=status,
                                   created_at=NOW - timedelta(days=days_ago))
        session.add(row)
        session.flush()
        return row.id


def build(engine: Engine) -> dict:
    """Four sentences s1..s4 (corpus order), one translator per phase, two annotators per item. By hand:

    - not assigned, blind: s4 (its only blind task was reassigned) -> [s4];
    - not assigned, aware: s2, s3, s4 (only s1 has an aware task) -> [s2, s3, s4];
    - overdue translation work, oldest first: asha's aware draft on s1 (10 days), ravi's blind task on s2
      (9 days); ravi's s3 task is 1 day old, asha's s1 blind one is submitted, uma's s4 one reassigned;
    - overdue tagging work: meera's task on asha's s1 blind translation (12 days); kiran's is 1 day old.
    """
    set_project(engine, translators_per_phase=1, annotators_per_item=2)
    ids = {name: add_user(engine, name, "translator") for name in ("asha", "ravi", "uma")}
    ids.update({name: add_user(engine, name, "annotator") for name in ("meera", "kiran", "neha")})
    ids["lead"] = add_user(engine, "lena", "lead")
    s = [add_sentence(engine, str(n), f"Sentence {n} about the food.", ["food"], ordinal=n) for n in range(1, 5)]
    ids["s"] = s
    task(engine, ids["asha"], s[0], "blind", "submitted", 20)
    ids["late_asha"] = task(engine, ids["asha"], s[0], "aware", "draft", 10)
    ids["late_ravi"] = task(engine, ids["ravi"], s[1], "blind", "assigned", 9)
    ids["fresh_ravi"] = task(engine, ids["ravi"], s[2], "blind", "assigned", 1)
    task(engine, ids["uma"], s[3], "blind", "reassigned", 30)
    ids["t1"] = add_translation(engine, s[0], "blind", ids["asha"], "खाना अच्छा था।")
    ids["late_meera"] = tagging_task(engine, ids["meera"], ids["t1"], 12)
    ids["fresh_kiran"] = tagging_task(engine, ids["kiran"], ids["t1"], 1)
    return ids
