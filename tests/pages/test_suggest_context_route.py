"""``GET /api/suggest`` with ``ctx``: the preceding Devanagari words reach the typing model, checked first."""

from __future__ import annotations

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from corpus import transliterate
from tests.support.translation_fixtures import add_user, token_for
from ui import api_routes as _api


@pytest.fixture
def asked(app_engine, monkeypatch):
    """The contexts the model was asked with (its ranking: fixed, the context's last word appended)."""
    _api._engine_for.cache_clear()
    calls: list[tuple[str, ...]] = []

    def suggest(roman, k=5, *, lexicon_extra=None, prefer=(), context=(), context_extra=None):
        calls.append(tuple(context))
        return (["मेरा", "मीरा"] + list(context[-1:]))[:k]

    monkeypatch.setattr(transliterate, "suggest", suggest, raising=False)
    with TestClient(Starlette(routes=_api.ROUTES)) as client:
        yield client, calls
    _api._engine_for.cache_clear()


@pytest.mark.parametrize(("ctx", "context"), [
    (None, ()),
    ("घर", ("घर",)),
    ("मैं घर में", ("मैं", "घर", "में")),
    ("आज मैं घर में", ("मैं", "घर", "में")),
    ("Sony का", ("का",)),
    ("<script>x</script>", ()),
    ("घर " * 100, ()),
])
def test_ctx_reaches_the_model_as_checked_devanagari_words(engine, asked, ctx, context):
    client, calls = asked
    token = token_for(engine, add_user(engine, "asha", "translator"))
    params = {"q": "mera", "k": 5} | ({"ctx": ctx} if ctx is not None else {})
    r = client.get("/api/suggest", params=params, headers={"X-Corpus-Session": token})
    assert r.status_code == 200
    assert calls[-1] == context
    assert r.json() == {"q": "mera", "candidates": ["मेरा", "मीरा", *context[-1:]]}
