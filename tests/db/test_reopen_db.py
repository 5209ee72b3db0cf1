"""Reopening submitted work, on SQLite and PostgreSQL: a worker's request, a lead's reopening or decline with a
reason, only by the lead role, against the version the lead saw, every revision kept."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from corpus.reopen import Notice, ReasonRefused, ReopenRefused, RequestState
from db.conflicts import SavedFirst
from db.models import Annotation, AnnotationAssignment, ReopenRequest, Revision, Translation, TranslationAssignment
from db.reopen import RecordNotFound, StaleReopen, decline, pending_requests, record_state, request_reopen, worker_view
from db.workflows import open_item, reopen, save_annotation
from db.assignment import assign_annotators
from db.translation import Draft, load_task, save_translation
from tests.support.databases import built_copy, replace_with_copy
from tests.support.translation_fixtures import add_sentence, add_user, assign, project_id

SOURCE = "The staff was friendly."
HINDI = "स्टाफ़ मिलनसार था।"  # स्टाफ़ मिलनसार था ।


def build_world(engine) -> dict:
    ids = {
        "lena": add_user(engine, "lena", "lead"),
        "root": add_user(engine, "root", "admin"),
        "boss": add_user(engine, "boss", "admin", "lead"),
        "asha": add_user(engine, "asha", "translator"),
        "ravi": add_user(engine, "ravi", "translator"),
        "meera": add_user(engine, "meera", "annotator"),
    }
    ids["s"] = add_sentence(engine, "1", SOURCE, ["staff"], ordinal=1)
    ids["blind_task"] = assign(engine, ids["asha"], ids["s"], "blind")
    view = save_translation(engine, ids["asha"], ids["blind_task"], Draft(HINDI), expected_version=0, action="submit")
    ids["t"], ids["t_version"] = view.translation_id, view.version
    return ids


@pytest.fixture(scope="module")
def built_world(migrated_sqlite, tmp_path_factory):
    """``build_world`` run once per module on SQLite; each SQLite test's world is a copy of it."""
    return built_copy(migrated_sqlite, tmp_path_factory.mktemp("world"), build_world)


@pytest.fixture
def world(any_engine, request):
    if any_engine.dialect.name == "sqlite":
        path, built = request.getfixturevalue("built_world")
        replace_with_copy(any_engine, path)
        return {**built, "engine": any_engine}
    return {**build_world(any_engine), "engine": any_engine}


def revisions(engine, entity: str, entity_id: int) -> list[tuple[str, int | None, dict]]:
    with Session(engine) as session:
        return [(r.action, r.author_id, r.payload) for r in session.scalars(
            select(Revision).where(Revision.entity == entity, Revision.entity_id == entity_id).order_by(Revision.id))]


def test_a_worker_asks_and_sees_the_request_pending_and_the_lead_lists_it(world):
    engine = world["engine"]
    request = request_reopen(engine, world["asha"], "translation", world["t"], "  मैंने एक शब्द छोड़ दिया  ")
    view = worker_view(engine, world["asha"], "translation", world["t"])
    assert view.notice == Notice("info", "You asked your lead to reopen this: मैंने एक शब्द छोड़ दिया. "
                                         "Waiting for their answer.")
    assert not view.may_ask and "already asked" in view.refusal
    [row] = pending_requests(engine, project_id(engine))
    assert (row.request_id, row.kind, row.record_id, row.record_version, row.worker, row.sentence_key,
            row.source_text, row.text, row.phase, row.reason) == (
        request, "translation", world["t"], world["t_version"], "asha", "restaurant/train/1", SOURCE, HINDI, "blind",
        "मैंने एक शब्द छोड़ दिया")
    with pytest.raises(ReopenRefused, match="already asked"):
        request_reopen(engine, world["asha"], "translation", world["t"], "again")


@pytest.mark.parametrize("reason", ["", "   ", "x" * 501, "bad\x00"])
def test_a_request_without_a_storable_reason_is_refused_and_nothing_is_stored(world, reason):
    engine = world["engine"]
    with pytest.raises(ReasonRefused):
        request_reopen(engine, world["asha"], "translation", world["t"], reason)
    assert pending_requests(engine, project_id(engine)) == []


def test_nobody_asks_about_someone_elses_work(world):
    with pytest.raises(RecordNotFound):
        request_reopen(world["engine"], world["ravi"], "translation", world["t"], "not mine")
    with pytest.raises(RecordNotFound):
        worker_view(world["engine"], world["ravi"], "translation", world["t"])


def test_the_lead_reopens_with_a_reason_the_worker_reads_and_the_worker_edits_again(world):
    engine = world["engine"]
    request = request_reopen(engine, world["asha"], "translation", world["t"], "typo")
    answer = reopen(engine, world["lena"], "translation", world["t"], " fix the typo ",
                    expected_version=world["t_version"])
    assert (answer.state, answer.lead, answer.reason, answer.version, answer.answered) == (
        "reopened", "lena", "fix the typo", world["t_version"] + 1, (request,))
    task = load_task(engine, world["asha"], world["blind_task"])
    assert (task.status, task.translation_status, task.version) == ("draft", "draft", answer.version)
    assert worker_view(engine, world["asha"], "translation", world["t"]) == \
        type(worker_view(engine, world["asha"], "translation", world["t"]))(
            Notice("warning", "Reopened by lena: fix the typo"), False, None)
    assert pending_requests(engine, project_id(engine)) == []
    history = revisions(engine, "translation", world["t"])
    assert [(action, author) for action, author, _ in history] == [("submit", world["asha"]), ("reopen", world["lena"])]
    assert history[1][2]["status"] == "draft" and history[1][2]["text"] == HINDI
    assert (history[1][2]["reopened_by"], history[1][2]["reopen_reason"]) == ("lena", "fix the typo")
    edited = save_translation(engine, world["asha"], world["blind_task"], Draft(HINDI + " "), expected_version=answer.version,
                              action="submit")
    assert edited.status == "submitted"
    assert [a for a, _, _ in revisions(engine, "translation", world["t"])] == ["submit", "reopen", "submit"]
    assert worker_view(engine, world["asha"], "translation", world["t"]).notice is None  # submitted again


@pytest.mark.parametrize("who", ["root", "asha", "meera"])
def test_only_the_lead_role_reopens_an_admin_alone_does_not(world, who):
    engine = world["engine"]
    with pytest.raises(ReopenRefused, match="only a lead"):
        reopen(engine, world[who], "translation", world["t"], "no", expected_version=world["t_version"])
    assert record_state(engine, "translation", world["t"]).status == "submitted"
    assert [a for a, _, _ in revisions(engine, "translation", world["t"])] == ["submit"]


def test_an_admin_who_is_also_a_lead_reopens(world):
    answer = reopen(world["engine"], world["boss"], "translation", world["t"], "ok", expected_version=world["t_version"])
    assert answer.lead == "boss"


def test_a_reopening_against_a_version_that_moved_on_writes_nothing_and_says_who_has_it(world):
    engine = world["engine"]
    reopen(engine, world["lena"], "translation", world["t"], "first", expected_version=world["t_version"])
    with pytest.raises(StaleReopen) as refused:
        reopen(engine, world["boss"], "translation", world["t"], "second", expected_version=world["t_version"])
    assert isinstance(refused.value, SavedFirst)
    assert refused.value.mine == "second"
    assert (refused.value.theirs.status, refused.value.theirs.version) == ("draft", world["t_version"] + 1)
    assert [a for a, _, _ in revisions(engine, "translation", world["t"])] == ["submit", "reopen"]


def test_a_draft_cannot_be_reopened(world):
    engine = world["engine"]
    answer = reopen(engine, world["lena"], "translation", world["t"], "first", expected_version=world["t_version"])
    with pytest.raises(ReopenRefused, match="not submitted"):
        reopen(engine, world["lena"], "translation", world["t"], "again", expected_version=answer.version)


def test_a_lead_reopening_without_a_request_is_stored_as_answered(world):
    engine = world["engine"]
    reopen(engine, world["lena"], "translation", world["t"], "please recheck", expected_version=world["t_version"])
    with Session(engine) as session:
        row = session.scalars(select(ReopenRequest)).one()
        assert (row.state, row.request_reason, row.answered_by, row.answer_reason, row.worker_id) == (
            "reopened", None, world["lena"], "please recheck", world["asha"])


def test_a_declined_request_is_read_by_the_worker_who_may_ask_again(world):
    engine = world["engine"]
    request_reopen(engine, world["asha"], "translation", world["t"], "typo")
    [row] = pending_requests(engine, project_id(engine))
    with pytest.raises(ReopenRefused, match="only a lead"):
        decline(engine, world["root"], row.request_id, "no", expected_version=row.request_version)
    answer = decline(engine, world["lena"], row.request_id, "it reads fine", expected_version=row.request_version)
    assert (answer.state, answer.version) == ("declined", None)
    view = worker_view(engine, world["asha"], "translation", world["t"])
    assert view.notice == Notice("info", "Your request to reopen this was declined by lena: it reads fine")
    assert view.may_ask
    assert record_state(engine, "translation", world["t"]).status == "submitted"
    with pytest.raises(StaleReopen, match="already answered"):
        decline(engine, world["lena"], row.request_id, "twice", expected_version=row.request_version)
    request_reopen(engine, world["asha"], "translation", world["t"], "the typo is real")
    assert [r.reason for r in pending_requests(engine, project_id(engine))] == ["the typo is real"]


def test_a_blind_translation_whose_aware_one_began_stays_closed(world):
    engine = world["engine"]
    aware = assign(engine, world["asha"], world["s"], "aware")
    save_translation(engine, world["asha"], aware, Draft("स्टाफ़"), expected_version=0, action="save")
    with pytest.raises(ReopenRefused, match="reassign"):
        reopen(engine, world["lena"], "translation", world["t"], "redo", expected_version=world["t_version"])
    with Session(engine) as session:
        assert session.get(Translation, world["t"]).status == "submitted"
        assert session.get(TranslationAssignment, world["blind_task"]).status == "submitted"


def test_the_lead_reopens_an_annotation_and_the_annotator_tags_again(world):
    engine = world["engine"]
    assign_annotators(engine, project_id(engine), per_item=1)
    item = open_item(engine, world["meera"], world["t"])
    state = save_annotation(engine, world["meera"], item.item_id, ["B", "O", "O", "O"], False, None, "submit",
                            rejected=[(1, 2)])
    request_reopen(engine, world["meera"], "annotation", state.annotation_id, "wrong span")
    [row] = pending_requests(engine, project_id(engine))
    assert (row.kind, row.worker, row.text, row.phase) == ("annotation", "meera", HINDI, "blind")
    answer = reopen(engine, world["lena"], "annotation", state.annotation_id, "mark the whole term",
                    expected_version=row.record_version)
    with Session(engine) as session:
        annotation = session.get(Annotation, state.annotation_id)
        task = session.scalars(select(AnnotationAssignment).where(AnnotationAssignment.user_id == world["meera"])).one()
        assert (annotation.status, task.status, annotation.version) == ("draft", "draft", answer.version)
    history = revisions(engine, "annotation", state.annotation_id)
    assert [(a, author) for a, author, _ in history] == [("submit", world["meera"]), ("reopen", world["lena"])]
    assert history[1][2]["rejected_suggestions"] == [[1, 2]] and history[1][2]["tags"] == ["B", "O", "O", "O"]
    assert worker_view(engine, world["meera"], "annotation", state.annotation_id).notice == \
        Notice("warning", "Reopened by lena: mark the whole term")
    again = save_annotation(engine, world["meera"], item.item_id, ["B", "I", "O", "O"], False, answer.version, "submit")
    assert again.status == "submitted"


def test_requests_of_another_project_or_answered_ones_are_not_listed(world):
    engine = world["engine"]
    request_reopen(engine, world["asha"], "translation", world["t"], "typo")
    assert len(pending_requests(engine, project_id(engine))) == 1
    assert pending_requests(engine, project_id(engine) + 1) == []
    with Session(engine) as session:
        assert session.scalars(select(ReopenRequest.state)).all() == [RequestState.PENDING]


def test_reopening_a_request_another_lead_declined_meanwhile_writes_nothing(world):
    engine = world["engine"]
    request_reopen(engine, world["asha"], "translation", world["t"], "typo")
    [row] = pending_requests(engine, project_id(engine))
    decline(engine, world["boss"], row.request_id, "it reads fine", expected_version=row.request_version)
    with pytest.raises(StaleReopen, match="already answered") as refused:
        reopen(engine, world["lena"], "translation", world["t"], "fix it", expected_version=row.record_version,
               answering=(row.request_id, row.request_version))
    assert refused.value.who == "boss" and refused.value.theirs.status == "submitted"
    assert [a for a, _, _ in revisions(engine, "translation", world["t"])] == ["submit"]


def _race(*calls) -> list:
    """Run the calls at once in threads; each result is its return value or the exception it raised."""
    import threading

    results: list = [None] * len(calls)
    start = threading.Barrier(len(calls))

    def run(i, call):
        start.wait()
        try:
            results[i] = call()
        except Exception as exc:  # noqa: BLE001 (the test reads what each raised)
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return results


def test_two_leads_reopening_at_once_one_wins_and_the_other_is_told(world):
    engine = world["engine"]
    request_reopen(engine, world["asha"], "translation", world["t"], "typo")
    [row] = pending_requests(engine, project_id(engine))
    results = _race(
        lambda: reopen(engine, world["lena"], "translation", world["t"], "lena's", expected_version=row.record_version,
                       answering=(row.request_id, row.request_version)),
        lambda: reopen(engine, world["boss"], "translation", world["t"], "boss's", expected_version=row.record_version,
                       answering=(row.request_id, row.request_version)),
        lambda: decline(engine, world["lena"], row.request_id, "no", expected_version=row.request_version),
    )
    won = [r for r in results if not isinstance(r, Exception)]
    lost = [r for r in results if isinstance(r, Exception)]
    assert all(isinstance(e, (StaleReopen, ReopenRefused)) for e in lost), lost
    assert len(won) == 1, results
    reopens = [a for a, _, _ in revisions(engine, "translation", world["t"])].count("reopen")
    with Session(engine) as session:
        request = session.scalars(select(ReopenRequest)).one()
        status = session.get(Translation, world["t"]).status
    if won[0].state == "reopened":
        assert (reopens, status, request.state) == (1, "draft", "reopened")
    else:
        assert (reopens, status, request.state) == (0, "submitted", "declined")
