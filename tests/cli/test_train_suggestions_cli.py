"""`python -m corpus train-suggestions`: trains the project's suggestion model now, stores it where the background
retrain does, says what it trained on, and refuses a project with too little gold, naming the setting and the count."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from cli.commands import main
from corpus.baseline import CrfSettings, train_model_file
from corpus.suggestions import training_sample
from db.model_seal import unseal
from db.model_store import gold_items
from db.suggestion_model import model_info
from db.models import SuggestionModel, Translation
from db.project_settings import load_settings
from db.settings_change import save_settings
from db.assignment import assign_annotators
from db.workflows import open_item, save_annotation
from tests.support.tagging_fixtures import add_sentence, add_translation, add_user, project_id, set_project

ROOT = Path(__file__).resolve().parents[2]
WORDS = ["यह", "था", "बहुत", "अच्छा", "बुरा", "और", "पर"]
ASPECTS = ["खाना", "स्टाफ़", "पिज़्ज़ा"]


def _tagged_project(engine, n: int, min_gold: int) -> int:
    """``n`` aware translations, each tagged and submitted by the one annotator per item (automatic gold)."""
    set_project(engine, annotators_per_item=1)
    pid = project_id(engine)
    save_settings(engine, pid, replace(load_settings(engine, pid), suggest_min_gold=min_gold), None)
    asha, meera = add_user(engine, "asha", "translator"), add_user(engine, "meera", "annotator")
    rng = random.Random(5)
    data = []
    for i in range(n):
        tokens = [rng.choice(WORDS) for _ in range(rng.randint(3, 6))]
        tokens.insert(rng.randrange(len(tokens)), ASPECTS[i % len(ASPECTS)])
        data.append((tokens, ["B" if t in ASPECTS else "O" for t in tokens]))
        s = add_sentence(engine, f"s{i}", f"Sentence {i}.", ordinal=i)
        add_translation(engine, s, "aware", asha, " ".join(tokens), minutes=i)
    assign_annotators(engine, pid)
    with Session(engine) as session:
        tids = session.scalars(select(Translation.id).order_by(Translation.id)).all()
    for tid, (tokens, tags) in zip(tids, data):
        view = open_item(engine, meera, tid)
        assert view.tokens == tokens
        save_annotation(engine, meera, view.item_id, tags, False, None, "submit")
    return pid


def _stored_model(engine, pid: int) -> bytes | None:
    with Session(engine) as session:
        return session.scalar(select(SuggestionModel.model).where(SuggestionModel.project_id == pid))


def test_train_suggestions_stores_the_model_the_background_retrain_would_and_says_what_it_trained_on(
        engine, sqlite_url, capsys):
    pid = _tagged_project(engine, 12, min_gold=10)
    assert main(["--db", sqlite_url, "train-suggestions", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    info = model_info(engine, pid)
    assert info.gold_count == 12
    assert (printed["project"], printed["gold_items"], printed["by_phase"], printed["by_domain"]) == \
        (pid, 12, {"aware": 12}, {"restaurant": 12})
    assert printed["signature"] == info.signature == CrfSettings().signature()
    assert printed["train_cpu_seconds"] >= 0 and printed["suggest_min_gold"] == 10
    expected = train_model_file([g.sequence for g in gold_items(engine, pid)], CrfSettings())
    assert unseal(engine, pid, _stored_model(engine, pid)) == expected.data  # the same CRF, stored where suggestions read it


def test_train_suggestions_trains_again_at_once_and_prints_a_summary_in_text(engine, sqlite_url, capsys):
    pid = _tagged_project(engine, 12, min_gold=10)
    assert main(["--db", sqlite_url, "train-suggestions", "--project", str(pid)]) == 0
    first = model_info(engine, pid).trained_at
    assert main(["--db", sqlite_url, "train-suggestions", "--project", str(pid)]) == 0  # no schedule to wait for
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"trained the suggestion model of project {pid} on 12 gold items (")
    assert "restaurant 12; aware 12" in out[0] and "s CPU" in out[0]
    assert out[1] == f"signature: {CrfSettings().signature()}"
    assert model_info(engine, pid).trained_at >= first


def test_past_the_training_cap_it_trains_on_a_round_over_sentences_and_says_how_many(
        engine, sqlite_url, capsys, monkeypatch):
    pid = _tagged_project(engine, 12, min_gold=10)
    monkeypatch.setattr("db.model_store.TRAINING_CAP", 5)
    assert main(["--db", sqlite_url, "train-suggestions", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert (printed["gold_items"], printed["trained_items"], printed["training_cap"]) == (12, 5, 5)
    assert model_info(engine, pid).gold_count == 12  # the retrain schedule counts every gold item
    items = gold_items(engine, pid)
    chosen = training_sample([(g.sentence_db_id, g.phase) for g in items], 5)
    expected = train_model_file([items[i].sequence for i in chosen], CrfSettings())
    assert unseal(engine, pid, _stored_model(engine, pid)) == expected.data
    assert main(["--db", sqlite_url, "train-suggestions"]) == 0
    assert " on 5 of its 12 gold items (at most 5: each sentence and phase once before any twice) (" in \
        capsys.readouterr().out


def test_too_little_gold_is_refused_naming_the_setting_and_the_count(engine, sqlite_url):
    pid = _tagged_project(engine, 6, min_gold=7)
    result = subprocess.run([sys.executable, "-m", "corpus", "--db", sqlite_url, "train-suggestions"],
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.strip() == (
        f"project {pid}: 6 gold items, fewer than the 7 the setting 'Gold items before suggesting' "
        "(suggest_min_gold) asks for before the first model: tag and decide more items, or lower it on "
        "Project settings")
    assert model_info(engine, pid) is None


def test_an_unknown_project_is_an_error_on_the_option(engine, sqlite_url, capsys):
    assert main(["--db", sqlite_url, "train-suggestions", "--project", "999"]) == 1
    assert capsys.readouterr().err.strip() == "--project: no project with id 999"


def test_a_project_with_suggestions_off_gets_its_model_and_is_told_so(engine, sqlite_url, capsys):
    pid = _tagged_project(engine, 12, min_gold=10)
    save_settings(engine, pid, replace(load_settings(engine, pid), model_suggestions=False), None)
    assert main(["--db", sqlite_url, "train-suggestions"]) == 0
    assert "model suggestions are switched off" in capsys.readouterr().err
    assert model_info(engine, pid).gold_count == 12
