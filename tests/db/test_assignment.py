"""Assignment: balanced, idempotent, blind-first, disjoint groups, reassignment on deactivation."""

from __future__ import annotations

from collections import Counter

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from corpus.assignment import Task, aware_locked, blind_contaminated, plan_assignments, queue_order
from db.assignment import (
    assign_translations,
    my_queue,
    next_task_id,
    queue_counts,
    save_translator_groups,
    select_sentences,
)
from db.models import TranslationAssignment
from db.translation import skip_task
from tests.support.translation_fixtures import add_sentence, add_user, project_id, set_project

# ----------------------------------------------------------------------------- pure planner


def test_plan_gives_each_sentence_n_translators_per_phase_and_balances_load():
    plan = plan_assignments([1, 2, 3, 4, 5, 6], [10, 11, 12, 13], [], per_phase=2, mode="same")
    per_slot = Counter((t.sentence_id, t.phase) for t in plan.new)
    assert set(per_slot.values()) == {2} and len(per_slot) == 12
    load = Counter(t.user_id for t in plan.new)
    assert max(load.values()) - min(load.values()) <= 1
    assert not plan.shortfalls


def test_plan_is_idempotent():
    first = plan_assignments([1, 2], [10, 11, 12], [], per_phase=2)
    again = plan_assignments([1, 2], [10, 11, 12], first.new, per_phase=2)
    assert again.new == [] and again.already == 8


def test_plan_tops_up_after_reassignment_and_prefers_the_least_loaded():
    existing = [Task(10, 1, "blind", "reassigned"), Task(11, 1, "blind", "submitted"),
                Task(12, 9, "blind"), Task(12, 8, "blind")]
    plan = plan_assignments([1], [10, 11, 12, 13], existing, per_phase=2, phases=("blind",))
    assert plan.new == [Task(13, 1, "blind")]


def test_plan_never_gives_blind_to_someone_who_started_the_aware_task():
    existing = [Task(10, 1, "aware", "draft")]
    plan = plan_assignments([1], [10, 11], existing, per_phase=2, phases=("blind",))
    assert [t.user_id for t in plan.new] == [11]
    assert plan.shortfalls == [(1, "blind", 1)]


def test_plan_never_gives_a_sentence_to_someone_tagging_a_colleagues_translation_of_it():
    plan = plan_assignments([1, 2], [10, 11, 12], [], per_phase=2, tagging=[(10, 1)])
    assert {t.user_id for t in plan.new if t.sentence_id == 1} == {11, 12}
    assert 10 in {t.user_id for t in plan.new if t.sentence_id == 2}  # only that sentence is barred


def test_plan_disjoint_groups_keep_phases_apart():
    plan = plan_assignments([1, 2, 3], [1, 2, 3, 4], [], per_phase=2, mode="disjoint",
                            groups={"blind": [1, 2], "aware": [3, 4]})
    for t in plan.new:
        assert t.user_id in ({1, 2} if t.phase == "blind" else {3, 4})
    with pytest.raises(ValueError, match="share"):
        plan_assignments([1], [1, 2], [], 1, mode="disjoint", groups={"blind": [1], "aware": [1, 2]})


@pytest.mark.parametrize(
    ("blind_status", "locked"),
    [(None, False), ("assigned", True), ("draft", True), ("submitted", False), ("skipped", True),
     ("reassigned", False)],
)
def test_aware_lock_table(blind_status, locked):
    assert aware_locked(blind_status) is locked


@pytest.mark.parametrize(
    ("aware_status", "has_translation", "contaminated"),
    [(None, False, False), ("assigned", False, False), ("draft", False, True), ("submitted", False, True),
     (None, True, True)],
)
def test_blind_contamination_table(aware_status, has_translation, contaminated):
    assert blind_contaminated(aware_status, has_translation) is contaminated


def test_queue_order_puts_blind_before_aware_and_locked_last():
    keys = {
        "aware-open": queue_order("aware", "assigned", False, (1,)),
        "blind-open": queue_order("blind", "assigned", False, (2,)),
        "locked": queue_order("aware", "assigned", True, (0,)),
        "done": queue_order("blind", "submitted", False, (0,)),
    }
    assert sorted(keys, key=keys.get) == ["blind-open", "aware-open", "locked", "done"]


# ----------------------------------------------------------------------------- database service


def _corpus(engine, n=4):
    return [add_sentence(engine, str(i), f"Sentence number {i} about the food.", ["food"], ordinal=i)
            for i in range(n)]


def test_assign_translations_uses_project_setting_and_is_idempotent(engine):
    ids = _corpus(engine)
    users = [add_user(engine, f"t{i}", "translator") for i in range(3)]
    add_user(engine, "lead", "lead")
    set_project(engine, translators_per_phase=2)
    first = assign_translations(engine, project_id(engine), ids, actor_id=None)
    assert first.created == 4 * 2 * 2 and not first.shortfalls
    again = assign_translations(engine, project_id(engine), ids, actor_id=None)
    assert again.created == 0
    with Session(engine) as session:
        rows = list(session.scalars(select(TranslationAssignment)))
    assert len(rows) == 16
    assert {r.user_id for r in rows} <= set(users)
    load = Counter(r.user_id for r in rows)
    assert max(load.values()) - min(load.values()) <= 1


def test_a_translator_tagging_a_colleagues_translation_of_a_sentence_is_not_given_that_sentence(engine):
    from db.engine import transaction
    from db.models import AnnotationAssignment
    from tests.support.tagging_fixtures import add_translation

    first, other = _corpus(engine, n=2)
    colleague, reader_, spare = (add_user(engine, name, "translator") for name in ("asha", "ravi", "sita"))
    colleagues_translation = add_translation(engine, first, "blind", colleague, "खाना अच्छा था।")
    with transaction(engine) as session:
        session.add(AnnotationAssignment(user_id=reader_, translation_id=colleagues_translation))
    set_project(engine, translators_per_phase=2)
    assign_translations(engine, project_id(engine), [first, other], actor_id=None)
    with Session(engine) as session:
        tasks = {(r.user_id, r.sentence_id) for r in session.scalars(select(TranslationAssignment))}
    assert (reader_, first) not in tasks
    assert (reader_, other) in tasks


def test_select_sentences_by_domain_split_and_range(engine):
    ids = _corpus(engine, 6)
    other = add_sentence(engine, "L1", "The screen is bright.", ["screen"], domain="laptop", split="test")
    pid = project_id(engine)
    assert select_sentences(engine, pid) == [other] + ids  # domain order: laptop < restaurant
    assert select_sentences(engine, pid, domain="laptop") == [other]
    assert select_sentences(engine, pid, domain="restaurant", split="train", first=2, last=4) == ids[1:4]


def test_disjoint_groups_from_settings(engine):
    ids = _corpus(engine, 2)
    a, b, c, d = (add_user(engine, n, "translator") for n in "abcd")
    set_project(engine, translators_per_phase=2, phase_groups="disjoint")
    save_translator_groups(engine, project_id(engine), {"blind": [a, b], "aware": [c, d]}, None)
    assign_translations(engine, project_id(engine), ids, None)
    with Session(engine) as session:
        rows = list(session.scalars(select(TranslationAssignment)))
    assert {(r.user_id, r.phase) for r in rows} == {(a, "blind"), (b, "blind"), (c, "aware"), (d, "aware")}


def test_queue_is_own_blind_first_and_aware_locked(engine):
    ids = _corpus(engine, 2)
    me = add_user(engine, "me", "translator")
    set_project(engine, translators_per_phase=1)
    assign_translations(engine, project_id(engine), ids, None)
    queue = my_queue(engine, me)
    assert [(q.sentence_pk, q.phase, q.locked) for q in queue] == [
        (ids[0], "blind", False), (ids[1], "blind", False), (ids[0], "aware", True), (ids[1], "aware", True),
    ]
    assert queue_counts(queue) == {"assigned": 2, "locked": 2, "total": 4}
    assert next_task_id(engine, me) == queue[0].assignment_id
    other = add_user(engine, "other", "translator")
    assert my_queue(engine, other) == []


def test_skipped_blind_task_comes_back_before_its_aware_task_opens(engine):
    ids = _corpus(engine, 1)
    me = add_user(engine, "me", "translator")
    set_project(engine, translators_per_phase=1)
    assign_translations(engine, project_id(engine), ids, None)
    blind = my_queue(engine, me)[0]
    skip_task(engine, me, blind.assignment_id)
    queue = my_queue(engine, me)
    assert [(q.phase, q.status, q.locked) for q in queue] == [("blind", "skipped", False), ("aware", "assigned", True)]
    assert "submit the blind translation" in queue[1].lock_reason
    assert next_task_id(engine, me) == blind.assignment_id
    assert next_task_id(engine, me, exclude=blind.assignment_id) is None  # never the aware one
