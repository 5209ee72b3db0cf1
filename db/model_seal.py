"""Stored suggestion models are sealed with a server-side MAC before CRFsuite ever parses them.

CRFsuite's model reader is C code that trusts its input: a crafted model file (23 of 36 fuzzed files did)
kills the process that opens it. The model bytes live in the database (``suggestion_models``), which a
restore, a shared database or anyone with write access to it could change. So the app stores
``MAGIC + HMAC-SHA256(key, project id + model) + model`` and opens a model only when the MAC is right; any
other bytes (an old unsealed model, a truncated or altered one, another project's) are not opened and the
project simply shows no model suggestions until the model is retrained.

The key is a secret kept outside the database:

- ``CORPUS_MODEL_KEY`` (any string of 16+ characters), when set: every server and worker of a project
  that share a database must then share this value;
- else a key file: ``<database file>.model-key`` beside a SQLite database, else ``~/.corpus-model-key``
  (PostgreSQL: servers on one machine under one user share it). It is created on first use with 32
  random bytes, readable by its owner only (0600).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from functools import cache
from pathlib import Path

from sqlalchemy import Engine

KEY_ENV = "CORPUS_MODEL_KEY"
KEY_SUFFIX = ".model-key"
HOME_KEY = ".corpus-model-key"
MAGIC = b"corpus-crf-hmac-sha256:"
MAC_BYTES = 32
MIN_ENV_KEY = 16


def key_file(engine: Engine) -> Path:
    """Where the key lives when ``CORPUS_MODEL_KEY`` is not set."""
    database = engine.url.database if engine.url.get_backend_name() == "sqlite" else None
    if database and database != ":memory:" and not database.startswith("file:"):
        return Path(database).resolve().with_name(Path(database).name + KEY_SUFFIX)
    return Path.home() / HOME_KEY


@cache
def _read_or_create(path: Path) -> bytes:
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        key = path.read_bytes()
        if len(key) < MIN_ENV_KEY:
            raise ValueError(f"{path}: the model key file is shorter than {MIN_ENV_KEY} bytes") from None
        return key
    key = secrets.token_bytes(32)
    try:
        os.write(fd, key)
    finally:
        os.close(fd)
    return key


def model_key(engine: Engine) -> bytes:
    env = os.environ.get(KEY_ENV, "")
    if env:
        if len(env) < MIN_ENV_KEY:
            raise ValueError(f"{KEY_ENV} must hold at least {MIN_ENV_KEY} characters")
        return env.encode("utf-8")
    return _read_or_create(key_file(engine))


def _mac(key: bytes, project_id: int, model: bytes) -> bytes:
    return hmac.new(key, str(project_id).encode("ascii") + b"\0" + model, hashlib.sha256).digest()


def seal(engine: Engine, project_id: int, model: bytes) -> bytes:
    """The bytes to store for a model this process trained."""
    return MAGIC + _mac(model_key(engine), project_id, model) + model


def unseal(engine: Engine, project_id: int, stored: bytes | None) -> bytes | None:
    """The model bytes when ``stored`` was sealed with this server's key for this project, else None."""
    if not stored or not stored.startswith(MAGIC) or len(stored) <= len(MAGIC) + MAC_BYTES:
        return None
    mac, model = stored[len(MAGIC):len(MAGIC) + MAC_BYTES], stored[len(MAGIC) + MAC_BYTES:]
    try:
        key = model_key(engine)
    except (OSError, ValueError):
        return None
    return model if hmac.compare_digest(mac, _mac(key, project_id, model)) else None
