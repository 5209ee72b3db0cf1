"""What a revision stores of each record kind: one builder per kind, used by every path that writes it.

A revision is a full snapshot of a record as saved (``db.revisions``). The app's saves
(``db.translation``, ``db.tagging``, ``db.adjudication``) and the work-file import (``db.workfile``, whose
gold is decided by ``db.adjudication``'s set-based path) call the same builder, so a record's history reads
the same whichever way it came in; only the action ("save", "submit", "import", "auto", ...) tells them
apart. Pure: plain values in, a JSON-ready dict out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from corpus.suggestions import SHOWN_KEY, shown_payload


@dataclass(frozen=True)
class MappedAspect:
    """One link of a translation's aspect map as a revision records it: the stored aspect term (its row id,
    its position in the sentence, its English term) and where it went (a span, or dropped with a reason)."""

    aspect_term_id: int
    position: int | None
    term: str | None
    start: int | None
    end: int | None
    dropped: bool = False
    reason: str | None = None


def _iso(value: datetime | str | None) -> str | None:
    return value.isoformat() if isinstance(value, datetime) else value


def translation_payload(
    *, assignment_id: int | None, sentence: tuple[str, str, str], phase: str, translator_id: int,
    text: str | None, untranslatable: bool, reason: str | None, note: str | None, status: str,
    time_spent_s: float | None, guidelines_version: str | None, submitted_at: datetime | str | None,
    aspect_map: Iterable[MappedAspect],
) -> dict[str, Any]:
    """A translation's revision payload; ``sentence`` is (domain, split, id)."""
    domain, split, sentence_id = sentence
    return {
        "assignment_id": assignment_id,
        "sentence": {"domain": domain, "split": split, "id": sentence_id},
        "phase": str(phase),
        "translator_id": translator_id,
        "text": text,
        "untranslatable": bool(untranslatable),
        "reason": reason,
        "note": note,
        "status": str(status),
        "time_spent_s": time_spent_s,
        "guidelines_version": guidelines_version,
        "submitted_at": _iso(submitted_at),
        "aspect_map": [
            {"aspect_term_id": link.aspect_term_id, "position": link.position, "term": link.term,
             "start": link.start, "end": link.end, "dropped": bool(link.dropped), "reason": link.reason}
            for link in sorted(aspect_map, key=lambda x: x.aspect_term_id)
        ],
    }


def annotation_payload(
    *, item_id: int, translation_id: int, tokens: Sequence[str], tags: Sequence[str], no_aspects: bool,
    status: str, rejected: Iterable[Sequence[int]] = (), model_spans_shown: Iterable[tuple[int, int, float]] = (),
    shown: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """An annotation's revision payload. ``rejected``: the suggested spans the annotator turned down;
    ``model_spans_shown``: the model's spans the editor showed (``corpus.suggestions.shown_payload``);
    ``shown``: the editor's record of every suggestion it showed (``corpus.suggestions.shown_record``), which
    a save from the app has and an import has not."""
    return {
        "item_id": item_id, "translation_id": translation_id, "tokens": list(tokens), "tags": list(tags),
        "no_aspects": bool(no_aspects), "status": str(status),
        "rejected_suggestions": [list(span) for span in rejected],
        SHOWN_KEY: shown_payload(model_spans_shown),
        **(shown or {}),
    }


def gold_payload(*, item_id: int, tags: Sequence[str] | None, source: str,
                 accepted_annotation_id: int | None = None, note: str | None = None) -> dict[str, Any]:
    """A gold decision's revision payload (a lead's, or the automatic rule's after a save or an import)."""
    return {"item_id": item_id, "tags": None if tags is None else list(tags), "source": str(source),
            "accepted_annotation_id": accepted_annotation_id, "note": note}
