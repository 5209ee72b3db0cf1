"""Reopening submitted work: the reason's rules, who answers, what can be reopened, what the worker reads."""

from __future__ import annotations

import pytest

from corpus.reopen import (
    MAX_REASON_CHARS,
    Notice,
    ReasonRefused,
    RequestState,
    WorkKind,
    clean_reason,
    may_answer,
    reopen_refusal,
    request_refusal,
    waits_for_lead,
    worker_notice,
)
from corpus.vocabulary import Phase, Role, Status


@pytest.mark.parametrize(("given", "stored"), [
    ("  the term is wrong  ", "the term is wrong"),
    ("\u0928\u093c \u0917\u0932\u0924", "\u0929 \u0917\u0932\u0924"),  # न + nukta composes to ऩ (U+0929)
    ("cafe\u0301", "caf\u00e9"),
    ("x" * MAX_REASON_CHARS, "x" * MAX_REASON_CHARS),
])
def test_a_reason_is_stored_nfc_and_trimmed(given, stored):
    assert clean_reason(given) == stored


@pytest.mark.parametrize(("given", "says"), [
    (None, "required"),
    ("", "required"),
    (" \n\t ", "required"),
    ("x" * (MAX_REASON_CHARS + 1), "501 characters long (at most 500)"),
    ("bad\x00byte", "control character"),
    ("tab\x07bell", "control character"),
])
def test_a_reason_that_cannot_be_stored_is_refused_with_why(given, says):
    with pytest.raises(ReasonRefused, match=says.replace("(", r"\(").replace(")", r"\)")):
        clean_reason(given)


def test_only_the_lead_role_answers_an_admin_alone_does_not():
    assert may_answer({Role.LEAD}) and may_answer([Role.ADMIN, Role.LEAD])
    assert not may_answer({Role.ADMIN})
    assert not may_answer({Role.TRANSLATOR, Role.ANNOTATOR})
    assert not may_answer(set())


@pytest.mark.parametrize(("status", "pending", "refused"), [
    (Status.SUBMITTED, False, False),
    (Status.SUBMITTED, True, True),
    (Status.DRAFT, False, True),
])
def test_a_worker_asks_only_for_submitted_work_and_once_at_a_time(status, pending, refused):
    assert (request_refusal(status, pending) is not None) is refused


@pytest.mark.parametrize(("kind", "status", "phase", "aware_status", "has_aware", "refused"), [
    (WorkKind.TRANSLATION, Status.SUBMITTED, Phase.AWARE, None, False, False),
    (WorkKind.TRANSLATION, Status.SUBMITTED, Phase.BLIND, None, False, False),
    (WorkKind.TRANSLATION, Status.SUBMITTED, Phase.BLIND, Status.ASSIGNED, False, False),
    (WorkKind.TRANSLATION, Status.SUBMITTED, Phase.BLIND, Status.DRAFT, False, True),
    (WorkKind.TRANSLATION, Status.SUBMITTED, Phase.BLIND, Status.SUBMITTED, True, True),
    (WorkKind.TRANSLATION, Status.SUBMITTED, Phase.BLIND, Status.ASSIGNED, True, True),
    (WorkKind.TRANSLATION, Status.DRAFT, Phase.AWARE, None, False, True),
    (WorkKind.ANNOTATION, Status.SUBMITTED, None, None, False, False),
    (WorkKind.ANNOTATION, Status.DRAFT, None, None, False, True),
])
def test_what_a_lead_can_reopen(kind, status, phase, aware_status, has_aware, refused):
    assert (reopen_refusal(kind, status, phase, aware_status, has_aware) is not None) is refused


def test_a_blind_translation_after_the_aware_one_began_says_to_reassign():
    assert "reassign" in reopen_refusal(WorkKind.TRANSLATION, Status.SUBMITTED, Phase.BLIND, Status.DRAFT)


@pytest.mark.parametrize(("state", "record", "expected"), [
    (None, Status.SUBMITTED, None),
    (RequestState.PENDING, Status.SUBMITTED,
     Notice("info", "You asked your lead to reopen this: typo. Waiting for their answer.")),
    (RequestState.PENDING, Status.DRAFT, None),  # its worker reopened it themselves meanwhile
    (RequestState.REOPENED, Status.DRAFT, Notice("warning", "Reopened by lena: fix the term")),
    (RequestState.REOPENED, Status.SUBMITTED, None),  # submitted again since: nothing to say
    (RequestState.DECLINED, Status.SUBMITTED,
     Notice("info", "Your request to reopen this was declined by lena: fix the term")),
    (RequestState.DECLINED, Status.DRAFT, None),
])
def test_what_the_worker_reads_on_their_task(state, record, expected):
    assert worker_notice(state, record, "lena", "fix the term", "typo") == expected


@pytest.mark.parametrize(("state", "record", "waits"), [
    (RequestState.PENDING, Status.SUBMITTED, True),
    (RequestState.PENDING, Status.DRAFT, False),
    (RequestState.REOPENED, Status.SUBMITTED, False),
    (RequestState.DECLINED, Status.SUBMITTED, False),
])
def test_a_request_waits_for_a_lead_while_pending_on_submitted_work(state, record, waits):
    assert waits_for_lead(state, record) is waits


def test_states_and_kinds_are_the_stored_strings():
    assert [str(s) for s in RequestState] == ["pending", "reopened", "declined"]
    assert [str(k) for k in WorkKind] == ["translation", "annotation"]
