"""Saves during a long import: on SQLite they wait for the import's write lock and then succeed, or,
past the wait, are refused with a message (never a database error) and succeed when tried again; on
PostgreSQL a save of unrelated rows is not held up by the import at all. Nothing is lost either way."""

from __future__ import annotations

import json
import threading

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


def _save_in_thread(engine, user: int, task: int, text: str) -> tuple[threading.Thread, list[object]]:
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(save_translation(engine, user, task, Draft(text), expected_version=0, action="save"))
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
    from db.tagging import save_annotation

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
