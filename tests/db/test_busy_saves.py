"""Saves during a long import: on SQLite they wait for the import's write lock and then succeed, or,
past the wait, are refused with a message (never a database error) and succeed when tried again; on
PostgreSQL a save of unrelated rows is not held up by the import at all. Nothing is lost either way.
A page's save waits at most ``INTERACTIVE_BUSY_S`` (3 s) in all before it is refused as busy (imports keep
their longer wait), and a save of exactly what is stored is done, never a conflict, whatever version the
page last saw (the autosave and the button racing, a retry after a busy refusal)."""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

import db.engine
from db.engine import ProjectBusy, is_sqlite
from db.models import Annotation, Revision, Translation
from db.translation import Draft, TranslationBusy, save_translation
from db.workfile import import_work_file
from tests.support.translation_fixtures import add_sentence, add_user, assign

TEXT = "लेकिन स्टाफ़ हमारे साथ बहुत बुरा था।"
TAGS = ["O", "B", "O", "O", "O", "O", "O", "O"]


def _work_file(n: int = 30) -> bytes:
    """Sentences, translations and annotations that share nothing with the saving translator's task."""
    lines = []
    for i in range(n):
        sid = f"w{i}"
        lines.append({"type": "sentence", "id": sid, "domain": "laptop", "split": "train",
                      "text": "But the staff was so horrible to us.",
                      "aspects": [{"term": "staff", "from": 8, "to": 13, "polarity": "negative"}]})
        lines.append({"type": "translation", "sentence_id": sid, "phase": "aware", "translator": "ravi",
                      "text": TEXT, "untranslatable": False})
        for annotator in ("meera", "kiran"):
            lines.append({"type": "annotation", "sentence_id": sid, "phase": "aware", "translator": "ravi",
                          "annotator": annotator, "tags": TAGS})
    return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in lines).encode()


def _translator_task(engine) -> tuple[int, int]:
    user = add_user(engine, "asha", "translator")
    sentence = add_sentence(engine, "s1", "The food was great.", ("food",))
    return user, assign(engine, user, sentence, "blind")


class _HeldImport:
    """An import running in a thread, stopped after its rows are written and before it commits (the
    progress callback waits), so the test can save while the import holds its transaction open."""

    def __init__(self, engine, data: bytes) -> None:
        self.held, self.release = threading.Event(), threading.Event()
        self.result: list[object] = []
        self.thread = threading.Thread(target=self._run, args=(engine, data), daemon=True)

    def _progress(self, stage: str, done: int, total: int) -> None:
        if stage == "gold" and done == 0:
            self.held.set()
            self.release.wait(60)

    def _run(self, engine, data: bytes) -> None:
        try:
            self.result.append(import_work_file(engine, data, "big.jsonl", progress=self._progress))
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.result.append(exc)

    def __enter__(self) -> _HeldImport:
        self.thread.start()
        assert self.held.wait(60), "the import never reached its write"
        return self

    def __exit__(self, *exc_info) -> None:
        self.release.set()
        self.thread.join(60)


def _save_in_thread(engine, user: int, task: int, text: str, busy_timeout_s: float | None = None
                    ) -> tuple[threading.Thread, list[object]]:
    """A save in a thread; by default one allowed to wait as long as an import does (a page's save gives up
    after ``INTERACTIVE_BUSY_S``: see the tests below)."""
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(save_translation(engine, user, task, Draft(text), expected_version=0, action="save",
                                            busy_timeout_s=busy_timeout_s))
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


def _counts(engine) -> tuple[int, int, int]:
    with Session(engine) as s:
        return (s.scalar(select(func.count()).select_from(Translation)),
                s.scalar(select(func.count()).select_from(Annotation)),
                s.scalar(select(func.count()).select_from(Revision).where(Revision.entity == "translation")))


def test_a_save_during_an_import_waits_on_sqlite_passes_on_postgres_and_both_are_kept(any_engine):
    user, task = _translator_task(any_engine)
    with _HeldImport(any_engine, _work_file()) as held:
        saver, outcome = _save_in_thread(any_engine, user, task, "खाना बढ़िया था।")
        saver.join(1.5 if is_sqlite(any_engine) else 20)
        if is_sqlite(any_engine):
            assert saver.is_alive(), "on SQLite the save waits for the import's write lock"
        else:
            assert not saver.is_alive(), "on PostgreSQL an import of unrelated rows holds no save up"
            assert held.thread.is_alive() and not held.result, "the import was still open during the save"
    saver.join(60)
    assert not saver.is_alive()
    assert len(outcome) == 1 and not isinstance(outcome[0], BaseException), outcome
    assert outcome[0].text == "खाना बढ़िया था।" and outcome[0].version == 1
    assert len(held.result) == 1 and not isinstance(held.result[0], BaseException), held.result
    assert held.result[0].translations == 30 and held.result[0].annotations == 60
    assert _counts(any_engine) == (31, 60, 31)


def test_a_save_that_waits_longer_than_the_limit_is_refused_with_a_message_and_kept_for_the_next_save(
    engine, monkeypatch,
):
    user, task = _translator_task(engine)
    monkeypatch.setattr(db.engine, "BUSY_TIMEOUT_S", 0.3)
    engine.dispose()  # new connections take the shorter busy timeout
    with _HeldImport(engine, _work_file()):
        with pytest.raises(TranslationBusy) as refused:
            save_translation(engine, user, task, Draft("खाना बढ़िया था।"), expected_version=0, action="save")
    # What the translate page shows: a refused input's problems (it does not save again), never a traceback.
    assert refused.value.problems == [ProjectBusy.MESSAGE]
    assert ProjectBusy.MESSAGE.startswith("The project is busy importing; your work is kept.")
    assert _counts(engine) == (30, 60, 30)
    view = save_translation(engine, user, task, Draft("खाना बढ़िया था।"), expected_version=0, action="save")
    assert view.version == 1 and view.text == "खाना बढ़िया था।"
    assert _counts(engine) == (31, 60, 31)


def test_an_annotation_save_refused_while_busy_is_a_value_error_the_tag_page_shows(engine, monkeypatch):
    """The tag page shows the message of any ValueError a save raises (and NotAssigned)."""
    from db.workflows import save_annotation

    monkeypatch.setattr(db.engine, "BUSY_TIMEOUT_S", 0.3)
    engine.dispose()
    with _HeldImport(engine, _work_file()):
        with pytest.raises(ValueError, match="The project is busy importing; your work is kept"):
            save_annotation(engine, 1, 1, ["O"], True, None, "save")


def test_a_save_waiting_on_another_process_s_write_lock_is_refused_with_the_message_then_succeeds(
    engine, sqlite_url, monkeypatch,
):
    """Another process (``python -m corpus import-work``) holding SQLite's write lock past the busy timeout."""
    import sqlite3

    user, task = _translator_task(engine)
    monkeypatch.setattr(db.engine, "BUSY_TIMEOUT_S", 0.3)
    engine.dispose()
    other = sqlite3.connect(sqlite_url.removeprefix("sqlite:///"), isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(TranslationBusy, match="The project is busy importing; your work is kept"):
            save_translation(engine, user, task, Draft("खाना बढ़िया था।"), expected_version=0, action="save")
    finally:
        other.execute("ROLLBACK")
        other.close()
    view = save_translation(engine, user, task, Draft("खाना बढ़िया था।"), expected_version=0, action="save")
    assert view.version == 1


# ------------------------------------------------------------------ a page's save: busy within its own wait


@contextmanager
def _turns_asked():
    """(wait asked, slot had) of every write turn this thread asks for inside the block."""
    import db.write_gate

    asked: list[tuple[float, bool]] = []
    acquire = db.write_gate._Gate.acquire
    me = threading.get_ident()

    def spy(gate, timeout_s):  # noqa: ANN001
        taken = acquire(gate, timeout_s)
        if threading.get_ident() == me:
            asked.append((timeout_s, taken))
        return taken

    db.write_gate._Gate.acquire = spy
    try:
        yield asked
    finally:
        db.write_gate._Gate.acquire = acquire


def test_a_page_save_during_an_import_is_refused_as_busy_after_its_own_wait_not_the_imports(engine):
    """An import in this process holds the write turn; a page's save gives up after INTERACTIVE_BUSY_S
    (3 s), far short of the 30 s an import would wait, with the busy refusal the page catches. The wait
    asked of the write turn is checked, not measured with a clock (a loaded machine stretches any wait)."""
    user, task = _translator_task(engine)
    assert db.engine.INTERACTIVE_BUSY_S == 3.0 and db.engine.BUSY_TIMEOUT_S == 30.0
    with _HeldImport(engine, _work_file()), _turns_asked() as asked:
        with pytest.raises(TranslationBusy) as refused:
            save_translation(engine, user, task, Draft("खाना बढ़िया था।"), expected_version=0, action="save")
    assert isinstance(refused.value, ProjectBusy) and refused.value.problems == [ProjectBusy.MESSAGE]
    assert asked == [(db.engine.INTERACTIVE_BUSY_S, False)]  # its own 3 s, never the import's 30 s, then refused
    assert _counts(engine) == (30, 60, 30)  # the import's rows are in; the save wrote nothing
    view = save_translation(engine, user, task, Draft("खाना बढ़िया था।"), expected_version=0, action="save")
    assert view.version == 1


def test_an_annotation_save_during_an_import_is_refused_as_busy_after_its_own_wait(engine):
    from db.workflows import save_annotation

    with _HeldImport(engine, _work_file()), _turns_asked() as asked:
        with pytest.raises(ProjectBusy):
            save_annotation(engine, 1, 1, ["O"], True, None, "save", busy_timeout_s=0.5)
    assert asked == [(0.5, False)]


def test_the_wait_is_the_transactions_own_and_the_next_transaction_on_the_connection_waits_as_before(
    engine, sqlite_url,
):
    """Another process holds SQLite's write lock: a save with a short wait is refused; an import-like
    transaction on the same pooled connection afterwards still waits its full time and gets the lock."""
    import sqlite3

    from sqlalchemy import event

    from db.engine import transaction

    user, task = _translator_task(engine)
    busy_ms: list[int] = []  # SQLite's busy timeout as set on the connection before each transaction

    def pragma(conn, cursor, statement, parameters, context, executemany):  # noqa: ANN001
        if statement.startswith("PRAGMA busy_timeout="):
            busy_ms.append(int(statement.rpartition("=")[2]))

    other = sqlite3.connect(sqlite_url.removeprefix("sqlite:///"), isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    event.listen(engine, "before_cursor_execute", pragma)
    try:
        with pytest.raises(TranslationBusy):
            save_translation(engine, user, task, Draft("खाना बढ़िया था।"), expected_version=0, action="save",
                             busy_timeout_s=0.4)
        assert len(busy_ms) == 1 and 0 < busy_ms[0] <= 400  # what was left of its 0.4 s, not 30 s
        releaser = threading.Timer(1.0, lambda: other.execute("ROLLBACK"))
        releaser.start()
        with transaction(engine) as session:  # the default wait (30 s): outlasts the 1 s hold
            session.execute(select(func.count()).select_from(Translation))
        releaser.join()
        assert busy_ms[1:] == [int(db.engine.BUSY_TIMEOUT_S * 1000)]  # the same connection waits as before
    finally:
        event.remove(engine, "before_cursor_execute", pragma)
        other.close()


def test_a_page_save_blocked_by_a_row_lock_on_postgres_is_refused_as_busy(postgres_engine):
    """PostgreSQL: another transaction holds the task's row (a long import, a stuck writer); the save's
    ``lock_timeout`` ends its wait with the busy refusal, nothing written, and it saves once the row is free."""
    from sqlalchemy import text

    from db.models import TranslationAssignment

    user, task = _translator_task(postgres_engine)
    with postgres_engine.connect() as other:
        other.execute(select(TranslationAssignment).where(TranslationAssignment.id == task).with_for_update())
        with pytest.raises(TranslationBusy):
            save_translation(postgres_engine, user, task, Draft("खाना बढ़िया था।"), expected_version=0,
                             action="save", busy_timeout_s=0.5)
        other.execute(text("ROLLBACK"))
    assert _counts(postgres_engine) == (0, 0, 0)
    view = save_translation(postgres_engine, user, task, Draft("खाना बढ़िया था।"), expected_version=0, action="save")
    assert view.version == 1


# ------------------------------------------------------------------ a save of what is stored: never a conflict


def _translation_revisions(engine) -> list[tuple[int, str]]:
    with Session(engine) as s:
        return [(r.version, r.action) for r in s.scalars(
            select(Revision).where(Revision.entity == "translation").order_by(Revision.id))]


def test_a_retry_of_the_stored_text_with_a_stale_version_is_done_not_a_conflict(any_engine):
    from db.translation import StaleTranslation

    user, task = _translator_task(any_engine)
    first = save_translation(any_engine, user, task, Draft("खाना बढ़िया था।"), expected_version=0, action="autosave")
    again = save_translation(any_engine, user, task, Draft("  खाना बढ़िया था। "), expected_version=0, action="save")
    assert (again.version, again.text) == (1, "खाना बढ़िया था।") == (first.version, first.text)
    assert _translation_revisions(any_engine) == [(1, "autosave")]  # nothing written twice
    with pytest.raises(StaleTranslation):  # a different text over a newer version is still a conflict
        save_translation(any_engine, user, task, Draft("खाना अच्छा था।"), expected_version=0, action="save")


def test_the_autosave_and_the_buttons_save_racing_with_one_version_both_succeed(any_engine):
    user, task = _translator_task(any_engine)
    start = threading.Barrier(2)
    outcome: list[object] = [None, None]

    def save(n: int, action: str) -> None:
        start.wait()
        try:
            outcome[n] = save_translation(any_engine, user, task, Draft("खाना बढ़िया था।"), expected_version=0,
                                          action=action)
        except Exception as exc:  # noqa: BLE001 - the test asserts on the kind
            outcome[n] = exc

    threads = [threading.Thread(target=save, args=(0, "autosave")), threading.Thread(target=save, args=(1, "save"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(isinstance(o, BaseException) for o in outcome), outcome
    assert {o.version for o in outcome} == {1} and {o.text for o in outcome} == {"खाना बढ़िया था।"}
    assert len(_translation_revisions(any_engine)) == 1


def test_a_submit_retried_after_it_was_made_is_done_and_a_late_autosave_of_the_same_text_too(any_engine):
    from db.translation import SubmissionRefused

    user, task = _translator_task(any_engine)
    draft = save_translation(any_engine, user, task, Draft("खाना बढ़िया था।"), expected_version=0, action="autosave")
    # the button's submit, sent with the version the page had before its autosave landed: made
    submitted = save_translation(any_engine, user, task, Draft("खाना बढ़िया था।"), expected_version=0,
                                 action="submit")
    assert (submitted.version, submitted.translation_status) == (draft.version + 1, "submitted")
    retry = save_translation(any_engine, user, task, Draft("खाना बढ़िया था।"), expected_version=draft.version,
                             action="submit")
    late = save_translation(any_engine, user, task, Draft("खाना बढ़िया था।"), expected_version=draft.version,
                            action="autosave")
    assert retry == submitted and late == submitted
    assert _translation_revisions(any_engine) == [(1, "autosave"), (2, "submit")]
    with pytest.raises(SubmissionRefused, match="already submitted"):  # other text after a submit: refused
        save_translation(any_engine, user, task, Draft("खाना अच्छा था।"), expected_version=2, action="save")


def _annotation_world(engine) -> tuple[int, int]:
    from db.models import AnnotationAssignment
    from db.assignment import assign_annotators
    from db.workflows import open_item
    from tests.support.tagging_fixtures import add_translation, project_id

    asha = add_user(engine, "asha", "translator")
    add_user(engine, "meera", "annotator")
    s = add_sentence(engine, "3121", "But the staff was so horrible to us.", ("staff",))
    translation = add_translation(engine, s, "aware", asha, TEXT)
    assign_annotators(engine, project_id(engine), per_item=1)
    with Session(engine) as session:
        user = session.scalars(select(AnnotationAssignment.user_id)).one()
    return user, open_item(engine, user, translation).item_id


def _annotation_revisions(engine) -> list[tuple[int, str]]:
    with Session(engine) as s:
        return [(r.version, r.action) for r in s.scalars(
            select(Revision).where(Revision.entity == "annotation").order_by(Revision.id))]


def test_an_annotation_save_of_the_stored_tags_with_a_stale_version_is_done_not_a_conflict(any_engine):
    from db.tagging import StaleAnnotation
    from db.workflows import save_annotation

    user, item = _annotation_world(any_engine)
    first = save_annotation(any_engine, user, item, TAGS, False, None, "autosave")
    again = save_annotation(any_engine, user, item, TAGS, False, None, "save")  # the page never saw version 1
    assert (again.version, again.tags) == (first.version, TAGS)
    submitted = save_annotation(any_engine, user, item, TAGS, False, None, "submit")  # over the same draft: made
    assert (submitted.status, submitted.version) == ("submitted", 2)
    assert save_annotation(any_engine, user, item, TAGS, False, 1, "submit").version == 2  # a retry: done
    assert _annotation_revisions(any_engine) == [(1, "autosave"), (2, "submit")]
    with pytest.raises(StaleAnnotation):  # other tags over a newer version are still a conflict
        save_annotation(any_engine, user, item, ["O"] * 8, True, 1, "save")


def test_an_annotations_autosave_and_save_racing_with_one_version_both_succeed(any_engine):
    from db.workflows import save_annotation

    user, item = _annotation_world(any_engine)
    start = threading.Barrier(2)
    outcome: list[object] = [None, None]

    def save(n: int, action: str) -> None:
        start.wait()
        try:
            outcome[n] = save_annotation(any_engine, user, item, TAGS, False, None, action)
        except Exception as exc:  # noqa: BLE001 - the test asserts on the kind
            outcome[n] = exc

    threads = [threading.Thread(target=save, args=(0, "autosave")), threading.Thread(target=save, args=(1, "save"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(isinstance(o, BaseException) for o in outcome), outcome
    assert {o.version for o in outcome} == {1} and all(o.tags == TAGS for o in outcome)
    assert len(_annotation_revisions(any_engine)) == 1
