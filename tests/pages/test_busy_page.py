"""A save on a page while another process holds SQLite's write lock (``python -m corpus import-work`` or a
restore): the page says the project is busy and the work is kept, never a traceback; the next save, once
the lock is gone, stores the kept text. The database-level version: tests/db/test_busy_saves.py."""

from __future__ import annotations

import sqlite3
import time
from contextlib import contextmanager

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

import db.engine
from db.engine import ProjectBusy, reader
from db.models import Translation, TypedForm
from tests.pages.test_translate_page import commit, editor_data, open_page, type_text
from tests.support.translation_fixtures import add_sentence, add_user, assign
from ui.translation_editor import BUSY_RETRY_S

FIRST = "खाना बढ़िया था।"
SECOND = "खाना बढ़िया था, सेवा धीमी थी।"


@contextmanager
def write_lock_held(sqlite_url: str):
    """Another connection (another process, as far as the app can tell) in a write transaction."""
    other = sqlite3.connect(sqlite_url.removeprefix("sqlite:///"), isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        yield
    finally:
        other.execute("ROLLBACK")
        other.close()


@pytest.fixture
def task(app_engine, monkeypatch):
    monkeypatch.setattr(db.engine, "BUSY_TIMEOUT_S", 0.3)  # the page's engine waits 0.3 s, not 30
    engine = app_engine
    user = add_user(engine, "asha", "translator")
    sentence = add_sentence(engine, "1", "The food was great but the service was slow.", ("food",), ordinal=1)
    return engine, user, assign(engine, user, sentence, "blind")


def stored_text(engine) -> str | None:
    with Session(reader(engine)) as session:  # a read: it needs no write lock
        return session.scalars(select(Translation.text)).one_or_none()


def test_a_save_while_the_project_is_busy_says_so_keeps_the_text_and_the_next_save_stores_it(task, sqlite_url):
    engine, user, aid = task
    at = open_page(engine, user, task=aid)
    type_text(at, aid, FIRST)  # a pause in typing: the autosave stores it
    assert stored_text(engine) == FIRST
    with write_lock_held(sqlite_url):
        type_text(at, aid, SECOND)  # the autosave meets the lock (type_text asserts no exception)
        assert [e.value for e in at.error] == [ProjectBusy.MESSAGE]
        assert "Traceback" not in "".join(str(e.value) for e in at.error)
        assert at.session_state[f"tx{aid}_text"] == SECOND  # the work is kept in the editor
        assert stored_text(engine) == FIRST
    commit(at, aid, "save")  # the editor's Save draft (commit asserts no exception)
    assert not at.error
    assert stored_text(engine) == SECOND


def test_a_submit_while_the_project_is_busy_stays_on_the_task_with_the_message(task, sqlite_url):
    engine, user, aid = task
    at = open_page(engine, user, task=aid)
    type_text(at, aid, FIRST)
    with write_lock_held(sqlite_url):
        commit(at, aid, "submit")  # the editor's Submit (commit asserts no exception)
        assert ProjectBusy.MESSAGE in [e.value for e in at.error]
        assert at.session_state[f"tx{aid}_text"] == FIRST
    with Session(engine) as session:
        assert session.scalars(select(Translation.status)).one() == "draft"  # the autosave's, not a submission
    commit(at, aid, "submit")
    with Session(engine) as session:
        assert session.scalars(select(Translation.status)).one() == "submitted"


def test_a_tag_save_while_the_project_is_busy_says_so_and_the_next_change_saves_the_spans(app_engine, sqlite_url,
                                                                                            monkeypatch):
    from db.models import Annotation
    from db.assignment import assign_annotators
    from tests.pages.test_tag_page import tagging_page
    from tests.support import tagging_fixtures as tf
    from tests.support.span_editor_driver import commit, editor_data

    monkeypatch.setattr(db.engine, "BUSY_TIMEOUT_S", 0.3)
    engine = app_engine
    asha, meera = tf.add_user(engine, "asha", "translator"), tf.add_user(engine, "meera", "annotator")
    tf.add_user(engine, "kiran", "annotator")
    sentence = tf.add_sentence(engine, "s1", "But the staff service was very bad.", ["staff service"], ordinal=1)
    tf.add_translation(engine, sentence, "aware", asha, "लेकिन स्टाफ़ सर्विस बहुत बुरी थी।")
    assign_annotators(engine, tf.project_id(engine), per_item=2)
    at = tagging_page(engine, meera)
    with write_lock_held(sqlite_url):
        commit(at, "tag_editor", "mark", spans=[(1, 3)])
        assert not at.exception, at.exception
        shown = [e.value for e in at.error] + [str(editor_data(at, "tag_editor").get("status"))]
        assert any(ProjectBusy.MESSAGE in text for text in shown), shown
        assert editor_data(at, "tag_editor")["spans"] == [[1, 3]]  # the marked span stays in the editor
    with Session(reader(engine)) as session:
        assert session.scalars(select(Annotation.tags)).all() == []
    commit(at, "tag_editor", "mark", spans=[(1, 3)])
    assert not at.exception, at.exception
    with Session(reader(engine)) as session:
        assert session.scalars(select(Annotation.tags)).all() == [["O", "B", "I", "O", "O", "O", "O"]]


def test_a_save_refused_as_busy_is_retried_in_the_background_until_stored_then_the_message_goes(task, sqlite_url):
    engine, user, aid = task
    at = open_page(engine, user, task=aid)
    type_text(at, aid, FIRST)
    version = at.session_state[f"tx{aid}"].version
    with write_lock_held(sqlite_url):
        type_text(at, aid, SECOND)
        assert [e.value for e in at.error] == [ProjectBusy.MESSAGE]
        assert at.session_state[f"tx{aid}"].version == version  # the version is not moved by a refusal
        time.sleep(BUSY_RETRY_S)
        at.run()  # the background retry (a fragment every BUSY_RETRY_S s; a full run runs it too) meets the lock
        assert not at.exception, at.exception
        assert [e.value for e in at.error] == [ProjectBusy.MESSAGE]
        assert at.session_state[f"tx{aid}_text"] == SECOND
        assert stored_text(engine) == FIRST
    time.sleep(BUSY_RETRY_S)
    at.run()  # nothing typed since: the retry alone stores the kept draft
    assert not at.exception, at.exception
    assert not at.error
    assert stored_text(engine) == SECOND
    assert at.session_state[f"tx{aid}"].version == version + 1
    assert editor_data(at, aid)["status"]["kind"] == "ok"


def test_a_retry_right_after_the_refusal_waits_its_turn_so_the_message_comes_after_one_wait(task, sqlite_url,
                                                                                            monkeypatch):
    """One interactive wait, not a second one by a retry in the same run: counted as save attempts, not timed."""
    import ui.translate_view  # the page's saves go through it (TaskSaves)

    engine, user, aid = task
    attempts = []
    real = ui.translate_view.save_translation

    def counted(*args, **kwargs):
        attempts.append(kwargs.get("action"))
        return real(*args, **kwargs)

    monkeypatch.setattr(ui.translate_view, "save_translation", counted)
    at = open_page(engine, user, task=aid)
    with write_lock_held(sqlite_url):
        attempts.clear()
        type_text(at, aid, FIRST)
        assert [e.value for e in at.error] == [ProjectBusy.MESSAGE]
        assert len(attempts) == 1, attempts


def test_forms_picked_while_busy_are_sent_again_with_the_retry(task, sqlite_url):
    engine, user, aid = task
    at = open_page(engine, user, task=aid)
    with write_lock_held(sqlite_url):
        type_text(at, aid, FIRST, accepted=[("khana", "खाना")])  # the picks meet the lock first: no save tried
        assert [e.value for e in at.error] == [ProjectBusy.MESSAGE]
        assert at.session_state[f"tx{aid}"].picks == [("khana", "खाना")]
    with Session(reader(engine)) as session:
        assert session.scalars(select(TypedForm.roman)).all() == []
    time.sleep(BUSY_RETRY_S)
    at.run()
    assert not at.exception, at.exception
    assert not at.error
    assert stored_text(engine) == FIRST
    with Session(reader(engine)) as session:
        assert [(f.roman, f.devanagari, f.uses) for f in session.scalars(select(TypedForm))] == [("khana", "खाना", 1)]
    assert at.session_state[f"tx{aid}"].picks == []


def test_a_skip_while_the_project_is_busy_keeps_the_task_open_with_the_message(task, sqlite_url):
    engine, user, aid = task
    at = open_page(engine, user, task=aid)
    type_text(at, aid, FIRST)
    with write_lock_held(sqlite_url):
        commit(at, aid, "skip")
        assert ProjectBusy.MESSAGE in [e.value for e in at.error]
        assert at.session_state["tx_active"] == aid
        assert at.session_state[f"tx{aid}_text"] == FIRST


def test_a_save_whose_reply_was_lost_is_followed_not_shown_as_a_conflict(task):
    """A run stopped by a newer one after its save landed loses the stored version: the next save finds the row
    one version on holding exactly what this session sent, follows it and stores, with no conflict panel."""
    engine, user, aid = task
    at = open_page(engine, user, task=aid)
    type_text(at, aid, FIRST)
    assert stored_text(engine) == FIRST
    at.session_state[f"tx{aid}"].version -= 1  # as if the reply of that save never reached this session
    type_text(at, aid, SECOND)
    assert not at.exception, at.exception
    assert stored_text(engine) == SECOND
    assert at.session_state[f"tx{aid}"].conflict is None


def test_a_save_over_another_tabs_text_is_still_a_conflict(task):
    engine, user, aid = task
    other = open_page(engine, user, task=aid)
    at = open_page(engine, user, task=aid)
    type_text(other, aid, FIRST)
    type_text(at, aid, SECOND)
    assert stored_text(engine) == FIRST
    assert at.session_state[f"tx{aid}"].conflict is not None
