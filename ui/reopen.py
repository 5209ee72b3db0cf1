"""Reopening, as widgets: the lead's controls (``reopen_controls``: a reason, Reopen, and Decline when a
request is answered) and the worker's panel (``worker_reopen_panel``: what the lead said, and a request
form on submitted work). Every string from a person is shown as text (``md_escape`` / ``st.text``).

The lead's controls are used on the "Reopen requests" page and beside each submitted translation or
annotation of the sentence view. A reopening refused because the record moved on shows the one conflict
panel (``ui/conflict.py``).
"""

from __future__ import annotations

import streamlit as st
from sqlalchemy import Engine

from corpus.reopen import MAX_REASON_CHARS, ReasonRefused, ReopenRefused, may_answer
from corpus.vocabulary import Status
from db.auth import CurrentUser
from db.reopen import PendingRequest, RecordNotFound, StaleReopen, decline, record_state, request_reopen, worker_view
from db.workflows import reopen
from ui.conflict import Choice, Side, conflict_panel
from ui.text import md_escape

FLASH = "reopen_flash"
CONFLICTS = "reopen_conflicts"  # key -> (kind, record_id) of every reopening refused as stale, until settled


def show_flash() -> None:
    """The last answer's confirmation (its row leaves the list, so the page says it once at the top)."""
    message = st.session_state.pop(FLASH, None)
    if message:
        st.success(md_escape(message))


def _reason(key: str) -> str:
    return st.session_state.get(key + "_reason") or ""


def _on_reopen(engine: Engine, lead_id: int, kind: str, record_id: int, version: int, key: str,
               answering: tuple[int, int] | None = None) -> None:
    st.session_state.pop(key + "_error", None)
    try:
        answer = reopen(engine, lead_id, kind, record_id, _reason(key), expected_version=version, answering=answering)
    except StaleReopen as exc:
        st.session_state[key + "_conflict"] = exc
        st.session_state.setdefault(CONFLICTS, {})[key] = (kind, record_id)
        return
    except (ReasonRefused, ReopenRefused) as exc:
        st.session_state[key + "_error"] = str(exc)
        return
    _leave(key)
    st.session_state.pop(key + "_reason", None)
    st.session_state[FLASH] = f"Reopened the {kind} (now version {answer.version}): its worker reads your reason."


def _on_decline(engine: Engine, lead_id: int, request: PendingRequest, key: str) -> None:
    st.session_state.pop(key + "_error", None)
    try:
        decline(engine, lead_id, request.request_id, _reason(key), expected_version=request.request_version)
    except StaleReopen as exc:
        st.session_state[key + "_error"] = f"{exc.message}: nothing was written."
        return
    except (ReasonRefused, ReopenRefused, LookupError) as exc:
        st.session_state[key + "_error"] = str(exc)
        return
    st.session_state.pop(key + "_reason", None)
    st.session_state[FLASH] = f"Declined {request.worker}'s request: they read your reason."


def _leave(key: str) -> None:
    st.session_state.pop(key + "_conflict", None)
    st.session_state.get(CONFLICTS, {}).pop(key, None)


def unsettled_conflicts(shown: set[str]) -> list[tuple[str, str, int]]:
    """(key, kind, record_id) of reopenings refused as stale whose controls the page no longer shows (their
    request was answered meanwhile): the page shows them with ``reopen_controls(..., key=key)`` until settled."""
    return [(key, kind, record_id) for key, (kind, record_id) in st.session_state.get(CONFLICTS, {}).items()
            if key not in shown and key + "_conflict" in st.session_state]


def _reopen_theirs(engine: Engine, lead_id: int, key: str) -> None:
    conflict: StaleReopen = st.session_state[key + "_conflict"]
    _leave(key)
    theirs = conflict.theirs
    if theirs is not None and theirs.status == Status.SUBMITTED:
        st.session_state[key + "_reason"] = conflict.mine
        _on_reopen(engine, lead_id, theirs.kind, theirs.record_id, theirs.version, key)
    else:
        st.session_state[key + "_error"] = "It is no longer submitted: there is nothing to reopen."


def _record_lines(state) -> list[str]:
    return [f"{state.kind} by {state.worker}, {state.phase} phase: {state.status}", state.text]


def reopen_controls(engine: Engine, user: CurrentUser, kind: str, record_id: int, *, version: int | None = None,
                    request: PendingRequest | None = None, key: str | None = None) -> None:
    """A lead's reason field and Reopen button for one submitted translation or annotation (``kind``,
    ``record_id``), and a Decline button when ``request`` is the pending request being answered. ``version``
    is the record's version the lead sees (read now when not given). Shows nothing to someone who is no
    lead; for a record that is not submitted it says so."""
    if not may_answer(user.roles):
        return
    key = key or f"reopen_{kind}_{record_id}"
    conflict: StaleReopen | None = st.session_state.get(key + "_conflict")
    if conflict is not None:
        conflict_panel(
            conflict,
            Side("Your reopening (not done)", [f"Reason: {conflict.mine}"]),
            Side("Saved now", ["none: it no longer exists"] if conflict.theirs is None else _record_lines(conflict.theirs),
                 note=None if conflict.theirs is None else f"version {conflict.theirs.version}"),
            replace_with_mine=Choice("Reopen the saved version", key + "_again", _reopen_theirs, (engine, user.id, key)),
            keep_theirs=Choice("Leave it as it is", key + "_leave", _leave, (key,)),
        )
        return
    if version is None:
        state = record_state(engine, kind, record_id)
        if state is None or state.status != Status.SUBMITTED:
            st.caption("Not submitted: nothing to reopen.")
            return
        version = state.version
    st.text_input("Reason (the worker reads it)", key=key + "_reason", max_chars=MAX_REASON_CHARS,
                  placeholder="What should be changed, or why it stays as it is")
    buttons = st.columns(2 if request is not None else 1)
    buttons[0].button("Reopen", key=key + "_reopen", type="primary", on_click=_on_reopen,
                      args=(engine, user.id, kind, record_id, version, key,
                            None if request is None else (request.request_id, request.request_version)),
                      help="Sets it back to draft so its worker can edit it; recorded in its history.")
    if request is not None:
        buttons[1].button("Decline", key=key + "_decline", on_click=_on_decline, args=(engine, user.id, request, key),
                          help="Keeps it submitted; the worker reads your reason and may ask again.")
    error = st.session_state.get(key + "_error")
    if error:
        st.error(md_escape(error))


# ----------------------------------------------------------------------------- the worker


def _on_request(engine: Engine, user_id: int, kind: str, record_id: int, key: str) -> None:
    st.session_state.pop(key + "_error", None)
    try:
        request_reopen(engine, user_id, kind, record_id, st.session_state.get(key + "_why") or "")
    except (ReasonRefused, ReopenRefused, RecordNotFound) as exc:
        st.session_state[key + "_error"] = str(exc)
        return
    st.session_state.pop(key + "_why", None)
    st.session_state[key + "_sent"] = True


def worker_reopen_panel(engine: Engine, user: CurrentUser, kind: str, record_id: int, *, key: str) -> None:
    """On the worker's own task: what their lead answered ("Reopened by …: …", a decline) or that their
    request waits; on submitted work they may ask, a form with a reason (required)."""
    try:
        view = worker_view(engine, user.id, kind, record_id)
    except RecordNotFound:
        return
    if st.session_state.pop(key + "_sent", False):
        st.success("Sent: your lead sees your request in their list of reopen requests.")
    if view.notice is not None:
        show = st.warning if view.notice.kind == "warning" else st.info
        show(md_escape(view.notice.text), icon=":material/lock_open:")
    if view.may_ask:
        with st.expander("Ask your lead to reopen this", expanded=bool(st.session_state.get(key + "_error"))):
            st.text_area("Why should it be reopened?", key=key + "_why", max_chars=MAX_REASON_CHARS,
                         placeholder="What you would change (required)")
            st.button("Send request", key=key + "_ask", on_click=_on_request, args=(engine, user.id, kind, record_id, key))
            error = st.session_state.get(key + "_error")
            if error:
                st.error(md_escape(error))
