"""The optional local model's call: one short HTTP request per item and model, never an error for the page.

Off unless the project names the endpoint (``llm_base_url`` and ``llm_model`` in the project's settings; the
admin's to set). Then the item's Hindi tokens, its English sentence and the English aspects the projection rules
did not find go, as one chat-completions request, to that address and nowhere else: no proxy from the environment
is used and no redirect is followed. The request has the project's timeout per network step and its answer is read
up to a size and a deadline; a failure (refused, timed out, an HTTP error, an answer that is no chat answer) is
logged and gives no suggestion.

Opening an item must not become slow for everyone: each (endpoint, model, item, question) is asked at most once
per process and its outcome kept in memory, a second opener of the same item at the same moment waits for the
first one's answer, and after a failure of the network or the server the endpoint is left alone for
``PAUSE_AFTER_FAILURE_S``, so a stopped server costs one timeout a minute, not one per item. The call runs after
the item's transaction, never inside one.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import logging
import threading
import time
import urllib.error
import urllib.request
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from corpus.llm_suggestions import (
    DEFAULT_TIMEOUT_S,
    MAX_ANSWER_CHARS,
    LlmSpan,
    answer_content,
    chat_messages,
    chat_url,
    endpoint_problems,
    parse_answer,
    request_body,
)

log = logging.getLogger(__name__)

#: Seconds an endpoint is not asked again after its network or server failed.
PAUSE_AFTER_FAILURE_S = 60.0
#: Outcomes kept per process (a few hundred bytes each).
CACHE_ITEMS = 50_000
#: Bytes of a response read at most (an answer is a few hundred; JSON escapes Devanagari to 6 bytes a letter).
MAX_RESPONSE_BYTES = 8 * MAX_ANSWER_CHARS


@dataclass(frozen=True)
class LlmEndpoint:
    base_url: str
    model: str
    timeout_s: float = DEFAULT_TIMEOUT_S


def endpoint_of(settings) -> LlmEndpoint | None:
    """The project's model endpoint (a ``db.project_settings.ProjectSettings``), or None while it is off or its
    stored settings would not pass the settings page's checks."""
    url, model = (settings.llm_base_url or "").strip(), (settings.llm_model or "").strip()
    if not url or endpoint_problems(url, model, settings.llm_timeout_s):
        return None
    return LlmEndpoint(url, model, float(settings.llm_timeout_s))


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Text goes to the configured address only: a redirect is an HTTP error, never followed."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


def build_opener() -> urllib.request.OpenerDirector:
    """An opener that goes to the address it is given only: no proxy from the environment (an empty
    ProxyHandler replaces urllib's default one), no redirects, no cookies."""
    return urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirect())


_OPENER = build_opener()

_lock = threading.Lock()
_outcomes: OrderedDict[tuple, tuple[LlmSpan, ...]] = OrderedDict()
_pending: dict[tuple, threading.Event] = {}
_paused_until: dict[tuple[str, str], float] = {}


class _Failed(Exception):
    """The network or the server failed (as opposed to the model answering junk)."""


def clear() -> None:
    """Forget every outcome and pause (tests; a process that wants to ask again)."""
    with _lock:
        _outcomes.clear()
        _paused_until.clear()


def _post(endpoint: LlmEndpoint, messages: list[dict[str, str]]) -> bytes:
    body = json.dumps(request_body(endpoint.model, messages), ensure_ascii=False).encode("utf-8")
    request = urllib.request.Request(chat_url(endpoint.base_url), data=body, method="POST",
                                     headers={"Content-Type": "application/json", "Accept": "application/json"})
    deadline = time.monotonic() + endpoint.timeout_s
    try:
        with _OPENER.open(request, timeout=endpoint.timeout_s) as response:
            chunks, size = [], 0
            while size <= MAX_RESPONSE_BYTES:
                if time.monotonic() > deadline:
                    raise _Failed(f"no whole answer within {endpoint.timeout_s:g} s")
                chunk = response.read(16_384)
                if not chunk:
                    return b"".join(chunks)
                chunks.append(chunk)
                size += len(chunk)
            raise _Failed(f"answer longer than {MAX_RESPONSE_BYTES} bytes")
    except urllib.error.HTTPError as exc:
        raise _Failed(f"HTTP {exc.code}") from None
    except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError) as exc:  # refused, timed out, reset
        raise _Failed(f"{type(exc).__name__}: {getattr(exc, 'reason', exc)}") from None


def _ask(endpoint: LlmEndpoint, item_id: int, tokens: Sequence[str], aspects: Sequence[str],
         messages: list[dict[str, str]]) -> tuple[LlmSpan, ...]:
    """The model's validated spans; () when it failed or answered nothing usable (logged). Raises _Failed."""
    started = time.monotonic()
    raw = _post(endpoint, messages)
    content = answer_content(raw)
    if content is None:
        log.warning("local model %s at %s: item %s: the response is not a chat answer (%d bytes)",
                    endpoint.model, endpoint.base_url, item_id, len(raw))
        return ()
    spans = tuple(parse_answer(content, tokens, aspects))
    log.info("local model %s at %s: item %s: %d span(s) in %.2f s", endpoint.model, endpoint.base_url, item_id,
             len(spans), time.monotonic() - started)
    if not spans and content.strip():
        log.info("local model %s: item %s: no usable span in its answer (%d characters)", endpoint.model, item_id,
                 len(content))
    return spans


def llm_spans(endpoint: LlmEndpoint | None, item_id: int, tokens: Sequence[str], english: str,
              aspects: Sequence[str]) -> tuple[LlmSpan, ...]:
    """The model's spans for ``aspects`` (English terms, once per occurrence) in the item's ``tokens``: asked at
    most once per endpoint, model, item and question in this process; () when the model is off, paused after a
    failure, failed or answered junk. Never raises."""
    if endpoint is None or not aspects or not tokens:
        return ()
    try:
        messages = chat_messages(tokens, english, aspects)
        digest = hashlib.sha256(json.dumps(messages, ensure_ascii=False).encode("utf-8")).hexdigest()
        where = (endpoint.base_url, endpoint.model)
        key = (*where, item_id, digest)
        with _lock:
            if key in _outcomes:
                _outcomes.move_to_end(key)
                return _outcomes[key]
            if time.monotonic() < _paused_until.get(where, 0.0):
                return ()
            waiting = _pending.get(key)
            if waiting is None:
                _pending[key] = threading.Event()
        if waiting is not None:  # another session asks about this item right now: wait for its answer
            waiting.wait(2 * endpoint.timeout_s + 1)
            with _lock:
                return _outcomes.get(key, ())
        spans: tuple[LlmSpan, ...] = ()
        try:
            spans = _ask(endpoint, item_id, tokens, aspects, messages)
        except _Failed as exc:
            log.warning("local model %s at %s: item %s: %s; no suggestions from it, and it is not asked again for "
                        "%g s", endpoint.model, endpoint.base_url, item_id, exc, PAUSE_AFTER_FAILURE_S)
            with _lock:
                _paused_until[where] = time.monotonic() + PAUSE_AFTER_FAILURE_S
        finally:
            with _lock:
                _outcomes[key] = spans
                while len(_outcomes) > CACHE_ITEMS:
                    _outcomes.popitem(last=False)
                _pending.pop(key).set()
        return spans
    except Exception:  # never an error page for a suggestion
        log.exception("local model %s at %s: item %s: unexpected failure", endpoint.model, endpoint.base_url,
                      item_id)
        return ()
