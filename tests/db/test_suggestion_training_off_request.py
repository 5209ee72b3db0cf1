"""The suggestion model trains off the request path: an item opening only enqueues a job and returns before the
model is trained, and the job has the CRF trained in a worker process (CRFsuite keeps the GIL while it trains,
so training in a thread of the server would stall every page it serves); ``db.worker`` hands back results and
errors."""

from __future__ import annotations

import os
import threading
from dataclasses import replace

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from corpus.baseline import CrfSettings, train_model_file
from db import model_store
from db.model_seal import unseal
from db.model_store import forget_checks, gold_items, train_in_worker
from db.suggestion_model import model_info
from db.models import SuggestionModel, Translation
from db.project_settings import load_settings
from db.settings_change import save_settings
from db.assignment import assign_annotators
from db.workflows import open_item, run_jobs_until_idle, save_annotation
from db.worker import WorkerFailed, in_worker
from tests.support.tagging_fixtures import add_sentence, add_translation, add_user, project_id, set_project

SENTENCES = [
    (["यह", "खाना", "बहुत", "अच्छा", "था"], ["O", "B", "O", "O", "O"]),
    (["स्टाफ़", "बुरा", "था"], ["B", "O", "O"]),
    (["पिज़्ज़ा", "और", "खाना", "अच्छा"], ["B", "O", "B", "O"]),
    (["बहुत", "बुरा", "स्टाफ़"], ["O", "O", "B"]),
]


def _project(engine, copies: int):
    """``copies`` rounds of the four sentences, each tagged and submitted (automatic gold, one annotator); the
    threshold stays out of reach while building, so no opening starts training before the test means it to."""
    set_project(engine, annotators_per_item=1)
    pid = project_id(engine)
    save_settings(engine, pid, replace(load_settings(engine, pid), suggest_min_gold=10_000), None)
    asha, meera = add_user(engine, "asha", "translator"), add_user(engine, "meera", "annotator")
    data = SENTENCES * copies
    for i, (tokens, _) in enumerate(data):
        add_translation(engine, add_sentence(engine, f"s{i}", f"Sentence {i}.", ordinal=i), "aware", asha,
                        " ".join(tokens), minutes=i)
    assign_annotators(engine, pid)
    with Session(engine) as session:
        tids = session.scalars(select(Translation.id).order_by(Translation.id)).all()
    for tid, (tokens, tags) in zip(tids, data):
        save_annotation(engine, meera, open_item(engine, meera, tid).item_id, tags, False, None, "submit")
    return pid, asha, meera, tids


def test_the_worker_process_trains_the_same_model_as_training_here(engine):
    pid, *_ = _project(engine, 3)
    sequences = [g.sequence for g in gold_items(engine, pid)]
    trained = train_in_worker(sequences, CrfSettings())
    assert trained.pid != os.getpid()
    assert trained.data == train_model_file(sequences, CrfSettings()).data
    assert trained.cpu_seconds >= 0


def test_an_item_opening_returns_before_training_and_the_retrain_job_trains_in_a_worker_process(engine, monkeypatch):
    from db import jobs

    pid, asha, meera, tids = _project(engine, 6)
    save_settings(engine, pid, replace(load_settings(engine, pid), suggest_min_gold=20, suggest_retrain_every=5),
                  None)
    entered, release, used = threading.Event(), threading.Event(), []

    def held_worker(sequences, settings):
        entered.set()
        release.wait(120)
        trained = train_in_worker(sequences, settings)
        used.append(trained)
        return trained

    monkeypatch.setattr(model_store, "train_in_worker", held_worker)
    forget_checks()
    view = open_item(engine, meera, tids[0])  # the page's call: counts, enqueues a job, returns
    assert view.tokens == SENTENCES[0][0]
    [job] = jobs.history(engine, pid)
    assert (job.kind, job.state) == ("retrain-suggestions", "queued")
    worker = threading.Thread(target=run_jobs_until_idle, args=(engine,))  # an app server's or a worker's
    worker.start()
    assert entered.wait(60), "no training started after the gold crossed the threshold"
    assert model_info(engine, pid) is None  # the opening returned while training had not even begun
    assert jobs.get(engine, job.id).state == "running"
    release.set()
    worker.join(120)
    assert jobs.get(engine, job.id).state == "done"
    assert model_info(engine, pid).gold_count == 24
    assert len(used) == 1 and used[0].pid != os.getpid()
    with Session(engine) as session:
        stored = session.scalar(select(SuggestionModel.model).where(SuggestionModel.project_id == pid))
    assert unseal(engine, pid, stored) == used[0].data  # stored sealed with the server's MAC (db.model_seal)


def test_a_worker_hands_back_the_functions_result_or_its_exception():
    assert in_worker(os.getpid) != os.getpid()
    with pytest.raises(ValueError, match="invalid literal"):
        in_worker(int, "x")


def test_a_worker_that_dies_is_an_error_not_a_hang():
    with pytest.raises(WorkerFailed, match="exited with 3"):
        in_worker(os._exit, 3)


def test_the_pages_leaderboard_baseline_trains_in_a_worker_and_the_command_line_in_its_own_process(
        engine, monkeypatch):
    from corpus.baseline import LabelledSequence
    from db import baseline_data
    from db.baseline_data import baseline_evaluation

    calls = []
    monkeypatch.setattr(baseline_data, "in_worker", lambda fn, *args: calls.append(fn) or fn(*args))
    tokens, tags = ("खाना", "अच्छा", "था"), ("B", "O", "O")
    sequences = [LabelledSequence(f"restaurant/{split}/{i}", "restaurant", split, tokens, tags)
                 for split in ("train", "test") for i in range(3)]
    assert baseline_data.ensure_baseline_entry(engine, sequences) is True
    assert calls == [baseline_evaluation]
    assert baseline_data.ensure_baseline_entry(engine, sequences) is False  # the row exists: nothing trains
    calls.clear()
    other = [replace(s, key=s.key + "b") if s.split == "test" else s for s in sequences]  # another export version
    assert baseline_data.ensure_baseline_entry(engine, other, worker=False) is True
    assert calls == []
