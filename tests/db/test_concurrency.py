"""Two people saving the same record never silently overwrite each other; many saving at once lose nothing.

Every save here goes through the functions the pages call (``db.translation.save_translation`` and
``db.tagging.save_annotation``), most of them through the load generator's page-like wrappers
(``bench.load.save_text`` / ``save_tags``) on the tasks its seed assigns. Every test runs on SQLite
(WAL, BEGIN IMMEDIATE) and on PostgreSQL (``any_engine``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session
from sqlalchemy.orm.exc import StaleDataError

from bench.load import save_tags, save_text, seed_load_data
from db.conflicts import SavedFirst
from db.engine import ProjectBusy
from db.models import Annotation, Revision, Translation
from db.translation import StaleTranslation

ROOT = Path(__file__).resolve().parents[2]


def _revisions(engine, entity: str, entity_id: int) -> list[Revision]:
    with Session(engine) as session:
        return list(session.scalars(select(Revision).where(Revision.entity == entity, Revision.entity_id == entity_id)
                                    .order_by(Revision.id)))


def _translation(engine, row_id: int) -> Translation:
    with Session(engine) as session:
        return session.get(Translation, row_id)


def _blind_task(seed, user: int, n: int = 0):
    """The user's ``n``-th blind task (each sentence's aware task stays locked until it is submitted)."""
    return [t for t in seed.translation_tasks[user] if t.phase == "blind"][n]


def _until_not_busy(save):
    """``save()``, again while the database's write lock is not had in time (ProjectBusy: nothing was written;
    the page keeps the text and sends it with the next change). On a loaded machine SQLite's wait can run out."""
    while True:
        try:
            return save()
        except ProjectBusy:
            time.sleep(0.01)


def _save_until_accepted(engine, user_id: int, task, text: str) -> int:
    """What a page does on conflict: reload, keep my text, save again (and on a busy database, send it again).
    Returns how many conflicts it met."""
    conflicts = 0
    while True:
        with Session(engine) as session:
            version = session.scalars(select(Translation.version).where(
                Translation.sentence_id == task.sentence_id, Translation.phase == task.phase,
                Translation.translator_id == user_id)).one()
        try:
            _until_not_busy(lambda: save_text(engine, user_id, task, text, version))
            return conflicts
        except StaleTranslation:
            conflicts += 1



def _run_at_once(worker, count: int, timeout: float) -> None:
    """``worker(0)`` … ``worker(count - 1)`` in threads started together; returns when all have ended."""
    workers = [threading.Thread(target=worker, args=(i,)) for i in range(count)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=timeout)

def test_stale_save_is_refused_with_both_versions(any_engine):
    seed = seed_load_data(any_engine, users=2, tasks_per_user=1)
    user = seed.users[0]
    task = _blind_task(seed, user)
    v1 = save_text(any_engine, user, task, "पहला", 0)
    v2 = save_text(any_engine, user, task, "दूसरा (टैब A)", v1.version)
    assert (v1.version, v2.version) == (1, 2)

    with pytest.raises(StaleTranslation) as caught:
        save_text(any_engine, user, task, "तीसरा (टैब B, पुराना)", v1.version)
    conflict = caught.value
    assert isinstance(conflict, SavedFirst)
    assert conflict.theirs.version == 2 and "version 2" in str(conflict)
    assert conflict.mine.text == "तीसरा (टैब B, पुराना)"
    assert conflict.theirs.text == "दूसरा (टैब A)"
    assert _translation(any_engine, v1.translation_id).text == "दूसरा (टैब A)"
    assert [r.version for r in _revisions(any_engine, "translation", v1.translation_id)] == [1, 2]


def test_a_row_loaded_before_someone_else_saved_is_refused_at_flush(any_engine):
    """The models' version counter (``UPDATE ... WHERE version = :loaded``) catches what an explicit check
    cannot see: a row read in an earlier transaction that someone else has changed since. The save
    functions turn that StaleDataError into their conflict."""
    seed = seed_load_data(any_engine, users=2, tasks_per_user=1)
    user = seed.users[0]
    task = _blind_task(seed, user)
    row_id = save_text(any_engine, user, task, "मूल", 0).translation_id

    mine = Session(any_engine, expire_on_commit=False)
    stale_row = mine.get(Translation, row_id)
    mine.commit()  # the page keeps the row it showed, at version 1
    save_text(any_engine, user, task, "किसी और ने बदला", 1)

    stale_row.text = "मेरा बदलाव"
    with pytest.raises(StaleDataError):
        mine.flush()
    mine.rollback()
    mine.close()
    assert _translation(any_engine, row_id).text == "किसी और ने बदला"
    assert len(_revisions(any_engine, "translation", row_id)) == 2


def test_first_saves_racing_to_create_the_same_record_leave_one_and_tell_the_other(any_engine):
    seed = seed_load_data(any_engine, users=2, tasks_per_user=1)
    user = seed.users[0]
    task = _blind_task(seed, user)
    outcome: dict[str, object] = {}

    first = Session(any_engine)
    first.add(Translation(sentence_id=task.sentence_id, phase=task.phase, translator_id=user, text="टैब A पहले"))
    first.flush()  # inserted, not committed: the other tab's insert must wait, then be told

    def other_tab() -> None:
        try:
            outcome["result"] = save_text(any_engine, user, task, "टैब B", 0)
        except Exception as exc:  # noqa: BLE001
            outcome["result"] = exc

    thread = threading.Thread(target=other_tab)
    thread.start()
    time.sleep(0.3)
    first.commit()
    first.close()
    thread.join(timeout=30)
    result = outcome["result"]
    assert isinstance(result, StaleTranslation), result
    assert result.theirs is not None and result.theirs.text == "टैब A पहले"
    with Session(any_engine) as session:
        texts = session.scalars(select(Translation.text).where(Translation.sentence_id == task.sentence_id,
                                                                Translation.translator_id == user)).all()
    assert texts == ["टैब A पहले"]


def test_many_threads_saving_at_once_lose_and_duplicate_nothing(any_engine):
    threads_n, saves_each = 6, 8
    seed = seed_load_data(any_engine, users=threads_n, tasks_per_user=2)
    shared_user = seed.users[0]
    shared_task = _blind_task(seed, shared_user, 0)
    shared_id = save_text(any_engine, shared_user, shared_task, "आरंभ", 0).translation_id
    errors: list[BaseException] = []
    conflicts = [0] * threads_n
    own_ids: dict[int, int] = {}

    def worker(i: int) -> None:
        try:
            user = seed.users[i]
            task = _blind_task(seed, user, 1)
            version, tag_version = 0, None
            for n in range(saves_each):
                saved = _until_not_busy(lambda: save_text(any_engine, user, task, f"धागा {i} सहेजना {n}", version))
                own_ids[i], version = saved.translation_id, saved.version
                item = seed.tagging_tasks[user][0]
                tag_version = _until_not_busy(
                    lambda: save_tags(any_engine, user, item, ["O"] * item.n_tokens, tag_version)).version
                # everyone also edits one shared translation, retrying on conflict as a page would
                conflicts[i] += _save_until_accepted(any_engine, shared_user, shared_task, f"{i}/{n}")
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    _run_at_once(worker, threads_n, timeout=120)
    assert not errors, errors

    shared = _translation(any_engine, shared_id)
    assert shared.version == 1 + threads_n * saves_each
    assert [r.version for r in _revisions(any_engine, "translation", shared_id)] == list(range(1, shared.version + 1))
    for i, row_id in own_ids.items():
        row = _translation(any_engine, row_id)
        assert (row.version, row.text) == (saves_each, f"धागा {i} सहेजना {saves_each - 1}")
        assert len(_revisions(any_engine, "translation", row_id)) == saves_each
    with Session(any_engine) as session:
        versions = session.scalars(select(Annotation.version)).all()
        assert sorted(versions) == [saves_each] * threads_n
        assert session.scalar(select(func.count()).select_from(Revision).where(Revision.entity == "annotation")) \
            == threads_n * saves_each


_WRITER = """
import sys
sys.path.insert(0, {root!r})
from sqlalchemy import select
from sqlalchemy.orm import Session
from bench.load import TranslationTask, save_text
from db.conflicts import SavedFirst
from db.engine import ProjectBusy, make_engine
from db.models import Translation
engine = make_engine({url!r})
me, user, task, saves = {me}, {user}, TranslationTask(*{task!r}), {saves}
for n in range(saves):
    while True:
        with Session(engine) as s:
            v = s.scalars(select(Translation.version).where(Translation.sentence_id == task.sentence_id,
                          Translation.phase == task.phase, Translation.translator_id == user)).one()
        try:
            save_text(engine, user, task, f"process {{me}} save {{n}}", v)
            break
        except (SavedFirst, ProjectBusy):  # conflict: reload and save again; busy: nothing written, send again
            pass
print("done", flush=True)
"""


def test_several_processes_saving_the_same_record_lose_nothing(any_engine):
    processes_n, saves_each = 3, 10
    seed = seed_load_data(any_engine, users=1, tasks_per_user=1)
    user = seed.users[0]
    task = _blind_task(seed, user)
    row_id = save_text(any_engine, user, task, "आरंभ", 0).translation_id
    url = any_engine.url.render_as_string(hide_password=False)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER.format(root=str(ROOT), url=url, me=i, user=user, saves=saves_each,
                                                  task=(task.assignment_id, task.sentence_id, str(task.phase)))],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        for i in range(processes_n)
    ]
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        assert out.strip() == "done"

    row = _translation(any_engine, row_id)
    assert row.version == 1 + processes_n * saves_each
    revisions = _revisions(any_engine, "translation", row_id)
    assert [r.version for r in revisions] == list(range(1, row.version + 1))
    texts = [r.payload["text"] for r in revisions[1:]]
    for i in range(processes_n):
        assert [t for t in texts if t.startswith(f"process {i} ")] == [f"process {i} save {n}" for n in range(saves_each)]


def test_the_revision_a_save_writes_is_json_safe(any_engine):
    seed = seed_load_data(any_engine, users=1, tasks_per_user=1)
    user = seed.users[0]
    saved = save_text(any_engine, user, _blind_task(seed, user), "पाठ", 0, "submit")
    (revision,) = _revisions(any_engine, "translation", saved.translation_id)
    payload = json.loads(json.dumps(revision.payload))
    assert payload["text"] == "पाठ" and payload["status"] == "submitted" and payload["submitted_at"]


def test_a_save_keeps_the_record_and_moves_its_version_by_one(any_engine):
    seed = seed_load_data(any_engine, users=1, tasks_per_user=1)
    user = seed.users[0]
    task = _blind_task(seed, user)
    first = save_text(any_engine, user, task, "पाठ", 0)
    before = _translation(any_engine, first.translation_id)
    second = save_text(any_engine, user, task, "नया पाठ", first.version)
    after = _translation(any_engine, first.translation_id)
    assert second.translation_id == first.translation_id
    assert (after.id, after.created_at, after.sentence_id, after.translator_id) == \
        (before.id, before.created_at, before.sentence_id, before.translator_id)
    assert (before.version, after.version, after.text) == (1, 2, "नया पाठ")


# ----------------------------------------------------------------------------- the app's own save path
# These drive db.translation.save_translation directly, from several threads at once, on tasks built with
# the tests' own fixtures.


def _translation_world(engine, translators: int) -> tuple[list[int], list[int]]:
    """``translators`` translators, each with one blind task on a sentence of their own."""
    from tests.support.translation_fixtures import add_sentence, add_user, assign

    users, tasks = [], []
    for i in range(translators):
        user = add_user(engine, f"t{i}", "translator")
        sid = add_sentence(engine, f"s{i}", f"The food number {i} was good.", ordinal=i)
        users.append(user)
        tasks.append(assign(engine, user, sid, "blind"))
    return users, tasks


def _page_revisions(engine, translation_id: int) -> list[Revision]:
    return _revisions(engine, "translation", translation_id)


def _race(engine, user: int, task: int, seen: int, texts: list[str]) -> list[object]:
    """Several tabs save ``texts`` from the same loaded version at the same moment; what each got back."""
    from db.translation import Draft, save_translation

    barrier = threading.Barrier(len(texts))
    outcomes: list[object] = [None] * len(texts)

    def tab(i: int) -> None:
        barrier.wait()
        try:
            outcomes[i] = save_translation(engine, user, task, Draft(texts[i]), expected_version=seen)
        except BaseException as exc:  # noqa: BLE001
            outcomes[i] = exc

    threads = [threading.Thread(target=tab, args=(i,)) for i in range(len(texts))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return outcomes


def _one_winner(outcomes: list[object], seen: int):
    from db.translation import StaleTranslation

    winners = [o for o in outcomes if not isinstance(o, BaseException)]
    losers = [o for o in outcomes if isinstance(o, StaleTranslation)]
    assert len(winners) == 1 and len(losers) == len(outcomes) - 1, outcomes
    assert winners[0].version == seen + 1
    assert all(exc.theirs.version == seen + 1 and exc.theirs.text == winners[0].text for exc in losers)
    return winners[0]


def test_tabs_saving_the_same_translation_at_the_same_moment_keep_one_and_refuse_the_rest(any_engine):
    """Every round, several tabs save from the same loaded version: exactly one is acknowledged, the
    others get StaleTranslation naming the winner's version, and history holds only the acknowledged."""
    from db.translation import Draft, load_task, save_translation

    tabs, rounds = 4, 5
    (user,), (task,) = _translation_world(any_engine, 1)
    acknowledged = [save_translation(any_engine, user, task, Draft("पहला"), expected_version=0).text]
    for r in range(rounds):
        seen = load_task(any_engine, user, task).version
        acknowledged.append(_one_winner(_race(any_engine, user, task, seen, [f"दौर {r} टैब {i}" for i in range(tabs)]),
                                        seen).text)

    view = load_task(any_engine, user, task)
    assert (view.version, view.text) == (rounds + 1, acknowledged[-1])
    revisions = _page_revisions(any_engine, view.translation_id)
    assert [r.version for r in revisions] == list(range(1, rounds + 2))
    assert [r.payload["text"] for r in revisions] == acknowledged


def test_tabs_racing_to_create_the_same_translation_keep_one_and_refuse_the_rest(any_engine):
    from db.translation import load_task

    (user,), (task,) = _translation_world(any_engine, 1)
    winner = _one_winner(_race(any_engine, user, task, 0, [f"टैब {i}" for i in range(4)]), 0)
    view = load_task(any_engine, user, task)
    assert [r.payload["text"] for r in _page_revisions(any_engine, view.translation_id)] == [winner.text]


def test_many_threads_saving_through_the_app_lose_and_duplicate_nothing(any_engine):
    """Each thread saves its own translation (different records) and, as a second tab of one
    translator, a shared one (the same record), retrying on StaleTranslation as the page does, and on
    TranslationBusy as the page does too (its text kept, sent again): how long a save may wait for the write
    lock is a budget in seconds, which a loaded machine may exceed; losing or doubling a save is the subject
    here, and a busy save that had written anything would show as a lost or doubled text below."""
    from db.translation import Draft, StaleTranslation, TranslationBusy, load_task, save_translation

    def own_save(user: int, task: int, text: str, version: int) -> int:
        while True:
            try:
                return save_translation(any_engine, user, task, Draft(text), expected_version=version).version
            except TranslationBusy:
                continue

    threads_n, saves_each = 6, 8
    users, tasks = _translation_world(any_engine, threads_n + 1)
    shared_user, shared_task = users[-1], tasks[-1]
    save_translation(any_engine, shared_user, shared_task, Draft("आरंभ"), expected_version=0)
    acknowledged: list[list[str]] = [[] for _ in range(threads_n)]
    errors: list[BaseException] = []

    def worker(i: int) -> None:
        try:
            version = 0
            for n in range(saves_each):
                version = own_save(users[i], tasks[i], f"अपना {i}.{n}", version)
                seen = load_task(any_engine, shared_user, shared_task).version
                while True:
                    try:
                        save_translation(any_engine, shared_user, shared_task, Draft(f"साझा {i}.{n}"),
                                         expected_version=seen)
                        acknowledged[i].append(f"साझा {i}.{n}")
                        break
                    except StaleTranslation as exc:
                        seen = exc.theirs.version
                    except TranslationBusy:
                        continue
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    _run_at_once(worker, threads_n, timeout=180)
    assert not errors, errors

    shared = load_task(any_engine, shared_user, shared_task)
    assert shared.version == 1 + threads_n * saves_each == 1 + sum(map(len, acknowledged))
    texts = [r.payload["text"] for r in _page_revisions(any_engine, shared.translation_id)][1:]
    assert [r.version for r in _page_revisions(any_engine, shared.translation_id)] == list(range(1, shared.version + 1))
    assert sorted(texts) == sorted(t for mine in acknowledged for t in mine)  # none lost, none twice
    for i in range(threads_n):
        assert [t for t in texts if t.startswith(f"साझा {i}.")] == acknowledged[i]  # each tab's saves in order
        own = load_task(any_engine, users[i], tasks[i])
        assert (own.version, own.text) == (saves_each, f"अपना {i}.{saves_each - 1}")
        assert [r.payload["text"] for r in _page_revisions(any_engine, own.translation_id)] == \
            [f"अपना {i}.{n}" for n in range(saves_each)]
    with Session(any_engine) as session:
        assert session.scalar(select(func.count()).select_from(Translation)) == threads_n + 1
