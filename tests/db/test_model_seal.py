"""Stored suggestion models are untrusted bytes (issue 31, N3): the server opens one with CRFsuite's C reader
only when it carries this server's MAC (``db.model_seal``). A truncated or bit-flipped real model written
into the database (as a hostile restore or a shared database could) is never parsed: the server process
goes on and the suggestion is simply absent."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from corpus.baseline import LabelledSequence, load_model, suggest_spans, train_model_file
from db import model_seal
from db.engine import make_engine, transaction
from db.model_store import _store
from db.suggestion_model import current_model, model_spans
from db.models import SuggestionModel
from tests.support.tagging_fixtures import project_id

ROOT = Path(__file__).resolve().parents[2]
TOKENS = ["लेकिन", "स्टाफ़", "बहुत", "बुरा", "था", "।"]


@pytest.fixture(scope="module")
def real_model() -> bytes:
    """A real CRFsuite model file, trained on a handful of sentences."""
    sequences = [LabelledSequence(f"restaurant/train/{i}", "restaurant", "train", tuple(TOKENS),
                                  ("O", "B", "O", "O", "O", "O")) for i in range(6)]
    sequences += [LabelledSequence(f"restaurant/train/x{i}", "restaurant", "train", ("खाना", "अच्छा", "था"),
                                   ("B", "O", "O")) for i in range(6)]
    return train_model_file(sequences).data


def _malformed(model: bytes) -> dict[str, bytes]:
    flipped = bytearray(model)
    for at in range(48, len(flipped), 97):
        flipped[at] ^= 0xFF
    return {"truncated": model[: len(model) // 3], "bit-flipped": bytes(flipped), "header-only": model[:48]}


def test_a_sealed_model_opens_and_any_change_to_it_is_refused(engine, real_model):
    sealed = model_seal.seal(engine, 1, real_model)
    assert model_seal.unseal(engine, 1, sealed) == real_model
    assert model_seal.unseal(engine, 2, sealed) is None  # another project's model
    assert model_seal.unseal(engine, 1, real_model) is None  # unsealed (an older release's, or put there)
    for bad in _malformed(real_model).values():
        assert model_seal.unseal(engine, 1, model_seal.MAGIC + sealed[len(model_seal.MAGIC):][:32] + bad) is None
    assert model_seal.unseal(engine, 1, sealed[:-1]) is None


def test_the_key_lives_outside_the_database_readable_by_its_owner_only(engine, monkeypatch):
    path = model_seal.key_file(engine)
    model_seal.seal(engine, 1, b"model")
    assert path.name == "corpus.db.model-key" and path.stat().st_mode & 0o077 == 0
    monkeypatch.setenv(model_seal.KEY_ENV, "a-secret-shared-by-every-server")
    assert model_seal.unseal(engine, 1, model_seal.seal(engine, 1, b"model")) == b"model"
    monkeypatch.delenv(model_seal.KEY_ENV)
    assert model_seal.unseal(engine, 1, model_seal.seal(engine, 1, b"model")) == b"model"


def test_a_model_the_server_stored_is_used_for_suggestions(engine, real_model):
    pid = project_id(engine)
    _store(engine, pid, 12, "test", real_model, 0.1)
    with Session(engine) as session:
        model = current_model(session, pid)
    assert model is not None
    assert suggest_spans(model, [TOKENS])[0] == suggest_spans(load_model(real_model), [TOKENS])[0]


SERVER = """
import sys
from sqlalchemy.orm import Session
from db.engine import make_engine
from db.suggestion_model import model_spans
engine = make_engine(sys.argv[1])
with Session(engine) as session:
    print("spans", model_spans(session, int(sys.argv[2]), {tokens!r}))
"""


@pytest.mark.parametrize("damage", ["truncated", "bit-flipped", "header-only"])
def test_a_malformed_stored_model_never_reaches_crfsuite_and_the_server_process_survives(engine, real_model,
                                                                                       damage):
    pid = project_id(engine)
    bad = _malformed(real_model)[damage]
    with transaction(engine) as session:  # written straight into the table, as a hostile database would hold it
        session.add(SuggestionModel(project_id=pid, gold_count=12, signature="x", model=bad, train_seconds=0.1))
    run = subprocess.run([sys.executable, "-c", SERVER.format(tokens=TOKENS), str(engine.url), str(pid)],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.strip() == "spans []"
    with Session(engine) as session:
        assert current_model(session, pid) is None and model_spans(session, pid, TOKENS) == []
        assert session.scalar(select(SuggestionModel.model)) == bad  # left as it is, for the lead to retrain
