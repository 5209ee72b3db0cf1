"""Aspect tagging: frozen tokens, the annotator's queue and item, and annotation saves with optimistic locking.

Who tags what is ``db.assignment`` (each tagging target goes to K annotators who are never its translator,
nor anyone who translates its sentence). Tokens are frozen in a ``TaggingItem`` when the first annotator opens the item, so every annotator
labels the same tokens even if the tokenizer or the text changes later. Every save writes a revision.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import Engine, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from sqlalchemy.orm.exc import StaleDataError

from corpus.bio import annotation_refusal, char_span_to_token_span, tags_to_spans
from corpus.revisions import annotation_payload
from corpus.suggestions import confidence_label, shown_record
from corpus.tokens import TOKENIZER_SIGNATURE, tokenize, tokenize_with_offsets
from corpus.vocabulary import INACTIVE_STATUSES, SAVE_ACTIONS, RevisionAction, Role, Status
from db.access import SessionEnded, check_writer
from db.conflicts import SavedFirst
from db.engine import INTERACTIVE_BUSY_S, reader, transaction
from db.models import (
    Annotation,
    AnnotationAssignment,
    AspectAlignment,
    AspectTerm,
    Revision,
    SourceSentence,
    TaggingItem,
    Translation,
    utcnow,
)
from db.project_settings import ProjectSettings, settings_in
from db.revisions import record_revision
from db.saving import is_unique_violation
from db.suggestion_model import Suggestion
from db.write_rules import OwnTranslation  # noqa: F401  (raised by the backstop on every write path)

INACTIVE = INACTIVE_STATUSES


class NotAssigned(PermissionError):
    """The user has no assignment for this item: annotators see only their own work."""


class SessionEndedWhileTagging(NotAssigned, SessionEnded):
    """The writer's session ended (logout elsewhere, password change, deactivation): nothing is saved."""


class StaleAnnotation(SavedFirst):
    """The annotation changed since it was loaded (another tab or device saved first); nothing was written.

    ``mine`` is what this save tried to store (its version is the one it expected); ``theirs`` is what is
    stored now, or None if there is nothing stored. The page shows both and lets the annotator choose.
    """

    def __init__(self, message: str, mine: AnnotationState | None = None, theirs: AnnotationState | None = None):
        super().__init__(message, mine=mine, theirs=theirs, when=theirs.saved_at if theirs is not None else None)


@dataclass(frozen=True)
class QueueRow:
    translation_id: int
    sentence_key: str
    phase: str
    status: str  # assignment status: assigned, draft, submitted
    snippet: str = ""  # the start of the translation, so the queue names sentences, not ids


@dataclass(frozen=True)
class AnnotationState:
    annotation_id: int | None
    tags: list[str]
    no_aspects: bool
    status: str
    version: int | None
    # Suggested spans the annotator rejected; kept in the save's revision (no column needed), so they
    # stay rejected after a reload.
    rejected: tuple[tuple[int, int], ...] = ()
    saved_at: datetime | None = field(default=None, compare=False)  # when it was stored (None: not yet)

    @property
    def spans(self) -> list[tuple[int, int]]:
        return tags_to_spans(self.tags)


@dataclass(frozen=True)
class ItemView:
    item_id: int
    translation_id: int
    sentence_key: str
    phase: str
    tokens: list[str]
    source_text: str | None  # None unless the project lets annotators see the source
    source_aspects: list[str]
    source_aspect_spans: list[tuple[int, int]]  # character offsets of the aspects in the source text
    suggestions: list[Suggestion]
    annotation: AnnotationState
    text_changed: bool  # the translation was edited after its tokens were frozen


#: Steps another concept takes inside this module's write transaction, handed in by ``db.workflows`` (the one
#: place that says which): after a submit or a reopen, the item's automatic gold (``ItemStep``: session, item
#: id); when an item opens, the suggestion model's retrain check (``OpenStep``: session, project id, settings).
ItemStep = Callable[[Session, int], object]
OpenStep = Callable[[Session, int, ProjectSettings], object]


def sentence_key(sentence: SourceSentence) -> str:
    return f"{sentence.domain}/{sentence.split}/{sentence.sentence_id}"


def _assignment(session: Session, user_id: int, translation_id: int) -> AnnotationAssignment:
    row = session.scalars(
        select(AnnotationAssignment).where(
            AnnotationAssignment.user_id == user_id,
            AnnotationAssignment.translation_id == translation_id,
            AnnotationAssignment.status.not_in(INACTIVE),
        )
    ).first()
    if row is None:
        raise NotAssigned("this item is not assigned to you")
    return row


def my_queue(engine: Engine, user_id: int) -> list[QueueRow]:
    """The user's own assignments, in corpus order; nothing about other annotators."""
    with Session(reader(engine)) as session:
        rows = session.execute(
            select(AnnotationAssignment, Translation, SourceSentence)
            .join(Translation, AnnotationAssignment.translation_id == Translation.id)
            .join(SourceSentence, Translation.sentence_id == SourceSentence.id)
            .where(AnnotationAssignment.user_id == user_id, AnnotationAssignment.status.not_in(INACTIVE))
            .order_by(SourceSentence.domain, SourceSentence.split, SourceSentence.ordinal, SourceSentence.id,
                      Translation.phase, Translation.id)
        ).all()
        return [QueueRow(t.id, sentence_key(s), t.phase, a.status, snippet(t.text)) for a, t, s in rows]


def snippet(text: str | None, limit: int = 60) -> str:
    """The start of a sentence for a queue label, cut at a space when one is near."""
    text = " ".join((text or "").split())
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[:cut if cut > limit // 2 else limit] + "…"


def progress(engine: Engine, user_id: int) -> tuple[int, int]:
    """(submitted, total) over the user's active assignments."""
    queue = my_queue(engine, user_id)
    return sum(1 for q in queue if q.status == Status.SUBMITTED), len(queue)


def freeze_item(session: Session, translation: Translation) -> TaggingItem:
    """The item for a translation, creating it (tokens frozen now) if nobody opened it before."""
    item = session.scalars(select(TaggingItem).where(TaggingItem.translation_id == translation.id)).first()
    if item is not None:
        return item
    if translation.text is None:
        raise ValueError("an untranslatable sentence has nothing to tag")
    try:
        with session.begin_nested():
            item = TaggingItem(
                translation_id=translation.id,
                tokens=tokenize(translation.text),
                tokenizer=TOKENIZER_SIGNATURE,
                translation_version=translation.version,
            )
            session.add(item)
    except IntegrityError:  # another annotator froze it a moment earlier
        item = session.scalars(select(TaggingItem).where(TaggingItem.translation_id == translation.id)).one()
    return item


def _suggestions_for(session: Session, item: TaggingItem, translation: Translation) -> list[Suggestion]:
    """Token spans from the translator's aspect map, when the frozen tokens still match the text."""
    if translation.text is None or tokenize(translation.text) != list(item.tokens):
        return []
    tokens = tokenize_with_offsets(translation.text)
    out: list[Suggestion] = []
    taken: list[tuple[int, int]] = []
    for alignment, term in session.execute(
        select(AspectAlignment, AspectTerm)
        .join(AspectTerm, AspectAlignment.aspect_term_id == AspectTerm.id)
        .where(AspectAlignment.translation_id == translation.id, AspectAlignment.dropped.is_(False))
        .order_by(AspectAlignment.start)
    ).all():
        span = char_span_to_token_span(tokens, alignment.start, alignment.end)
        if span is None or any(span[0] < e and s < span[1] for s, e in taken):
            continue
        taken.append(span)
        out.append(Suggestion(span, term.term))
    return out


def _item_suggestions(session: Session, item: TaggingItem, translation: Translation, project_id: int,
                      project: ProjectSettings) -> list[Suggestion]:
    """The aspect map's suggestions; where there are none (aspect-blind translations), the project's model's,
    with its confidence. Never tags until the annotator accepts one."""
    out = _suggestions_for(session, item, translation) if project.prefill_from_aspect_map else []
    if not project.model_suggestions:
        return out
    from db.suggestion_model import model_spans
    from db.projection import map_complete

    if out and map_complete(session, translation.id, translation.sentence_id):
        return out
    return out + [Suggestion((s, e), confidence_label(c), c, "crf") for s, e, c in
                  model_spans(session, project_id, item.tokens) if not any(s < x.span[1] and x.span[0] < e for x in out)]


def _model_spans_shown(session: Session, item: TaggingItem) -> list[tuple[int, int, float]]:
    """The model suggestions the editor shows on this item (what a save records); without a stored model,
    one small query and nothing else."""
    from db.suggestion_model import current_model

    translation = item.translation
    project_id = session.scalar(select(SourceSentence.project_id).where(SourceSentence.id == translation.sentence_id))
    if current_model(session, project_id) is None:
        return []
    return [(*x.span, x.confidence) for x in _item_suggestions(session, item, translation, project_id,
                                                                settings_in(session, project_id))
            if x.confidence is not None]


def _state(annotation: Annotation | None, n_tokens: int, rejected: Sequence[Sequence[int]] = ()) -> AnnotationState:
    if annotation is None:
        return AnnotationState(None, ["O"] * n_tokens, False, "new", None)
    return AnnotationState(annotation.id, list(annotation.tags), annotation.no_aspects, annotation.status,
                           annotation.version, _spans(rejected), annotation.updated_at or annotation.created_at)


def _spans(pairs: Sequence[Sequence[int]]) -> tuple[tuple[int, int], ...]:
    return tuple(sorted({(int(s), int(e)) for s, e in pairs}))


def _stored_state(session: Session, annotation: Annotation | None, n_tokens: int) -> AnnotationState:
    """The annotation with the rejected suggestions its latest revision recorded."""
    if annotation is None:
        return _state(None, n_tokens)
    payload = session.scalars(
        select(Revision.payload)
        .where(Revision.entity == "annotation", Revision.entity_id == annotation.id)
        .order_by(Revision.id.desc()).limit(1)
    ).first()
    return _state(annotation, n_tokens, (payload or {}).get("rejected_suggestions", ()))


def _own_annotation(session: Session, item_id: int, user_id: int) -> Annotation | None:
    return session.scalars(
        select(Annotation).where(Annotation.item_id == item_id, Annotation.annotator_id == user_id)
    ).first()


def open_item(engine: Engine, user_id: int, translation_id: int, *, on_open: OpenStep) -> ItemView:
    """What the annotator sees: frozen tokens, their own tags only, and optional context; suggestions from
    the translator's map, else projected from the aware translations, the glossary and the loanword
    transliteration (``db.projection``, read after the write transaction), else the model's."""
    from db.projection import with_projection

    return with_projection(engine, _open_item(engine, user_id, translation_id, on_open))


def _open_item(engine: Engine, user_id: int, translation_id: int, on_open: OpenStep) -> ItemView:
    with transaction(engine) as session:
        check_writer(session, user_id, roles=(Role.ANNOTATOR,), error=SessionEndedWhileTagging)
        _assignment(session, user_id, translation_id)
        translation = session.get(Translation, translation_id)
        item = freeze_item(session, translation)
        sentence = session.get(SourceSentence, translation.sentence_id)
        project = settings_in(session, sentence.project_id)
        show_source = project.annotators_see_source
        on_open(session, sentence.project_id, project)  # db.workflows.kick: enqueues a retrain if due; never waits
        return ItemView(
            item_id=item.id,
            translation_id=translation.id,
            sentence_key=sentence_key(sentence),
            phase=translation.phase,
            tokens=list(item.tokens),
            source_text=sentence.text if show_source else None,
            source_aspects=[a.term for a in sentence.aspects] if show_source else [],
            source_aspect_spans=[(a.start, a.end) for a in sentence.aspects] if show_source else [],
            suggestions=_item_suggestions(session, item, translation, sentence.project_id, project),
            annotation=_stored_state(session, _own_annotation(session, item.id, user_id), len(item.tokens)),
            text_changed=tokenize(translation.text or "") != list(item.tokens),
        )


SAVED_ELSEWHERE = "your tags were saved from another window since you loaded them"


def stored_annotation(engine: Engine, user_id: int, item_id: int) -> AnnotationState | None:
    """The annotator's annotation as committed now, or None if they have none."""
    with Session(reader(engine)) as session:
        item = session.get(TaggingItem, item_id)
        annotation = _own_annotation(session, item_id, user_id)
        return None if item is None or annotation is None else _stored_state(session, annotation, len(item.tokens))


def save_annotation(
    engine: Engine,
    user_id: int,
    item_id: int,
    tags: list[str],
    no_aspects: bool,
    expected_version: int | None,
    action: str = RevisionAction.AUTOSAVE,
    time_spent_s: float = 0.0,
    rejected: Sequence[tuple[int, int]] = (),
    session_token: str | None = None,
    shown: Sequence[tuple[int, int, str, float | None]] | None = None,
    keys: int | None = None,
    busy_timeout_s: float | None = INTERACTIVE_BUSY_S,
    *,
    decide_gold: ItemStep,
) -> AnnotationState:
    """Save the annotator's tags; ``expected_version`` is the version they loaded (None for a first save).
    A stored annotation that already holds what this save sends is returned as it is, nothing written,
    whatever version the page saw (an idempotent retry, never a conflict; a submit over the same draft is
    made). A database busy past ``busy_timeout_s`` (all waits together) is ``db.engine.ProjectBusy``,
    nothing written: the page keeps the tags and tries again.
    ``rejected`` are the suggested spans they turned down, stored with the save so they stay turned down.
    ``shown`` are the suggestions the editor showed ((start, end, source, confidence)) and ``keys`` the
    editor's key presses and clicks on the item so far: the revision records both, with what was accepted
    per source (``corpus.suggestions.shown_record``).

    "No aspects in this sentence" must be said explicitly: submitting all-O tags without it is an error,
    so an untouched item can never pass as a finished one.
    """
    if action not in SAVE_ACTIONS:
        raise ValueError(f"action must be one of {', '.join(SAVE_ACTIONS)}")
    submitting = action == RevisionAction.SUBMIT
    mine = AnnotationState(None, list(tags), no_aspects, Status.SUBMITTED if submitting else Status.DRAFT,
                           expected_version, _spans(rejected))
    try:
        return _save(engine, user_id, item_id, mine, action, time_spent_s, decide_gold, session_token, shown, keys,
                     busy_timeout_s)
    except (StaleDataError, IntegrityError) as exc:
        # PostgreSQL: another save of this annotation committed between our read and our write, so our
        # UPDATE ... WHERE version matched nothing, or our first INSERT met theirs.
        if isinstance(exc, IntegrityError) and not is_unique_violation(exc):
            raise
        theirs = stored_annotation(engine, user_id, item_id)
        if theirs is None or theirs.version == expected_version:
            raise
        if _holds_what_is_sent(theirs, mine, action):
            return theirs  # the save that won stored what this one sends
        raise StaleAnnotation(SAVED_ELSEWHERE, mine, theirs) from None


def _holds_what_is_sent(stored: AnnotationState, mine: AnnotationState, action: str) -> bool:
    """Whether the stored annotation already holds exactly what this save sends (tags, "no aspects", the
    rejected suggestions; for a submit, submitted): then the save is done whatever version the page last
    saw (a retry, or the autosave and the button racing), never a conflict."""
    if action == RevisionAction.SUBMIT and stored.status != Status.SUBMITTED:
        return False
    return (stored.tags, stored.no_aspects, stored.rejected) == (list(mine.tags), mine.no_aspects, mine.rejected)


def _save(
    engine: Engine, user_id: int, item_id: int, mine: AnnotationState, action: str, time_spent_s: float,
    decide_gold: ItemStep, session_token: str | None = None,
    shown_records: Sequence[tuple[int, int, str, float | None]] | None = None,
    keys: int | None = None, busy_timeout_s: float | None = None,
) -> AnnotationState:
    tags, no_aspects, expected_version = mine.tags, mine.no_aspects, mine.version
    with transaction(engine, busy_timeout_s) as session:
        check_writer(session, user_id, session_token, roles=(Role.ANNOTATOR,), error=SessionEndedWhileTagging)
        item = session.get(TaggingItem, item_id)
        if item is None:
            raise ValueError(f"no tagging item {item_id}")
        assignment = _assignment(session, user_id, item.translation_id)
        refusal = annotation_refusal(tags, len(item.tokens), no_aspects=no_aspects,
                                     submit=action == RevisionAction.SUBMIT)
        if refusal is not None:
            raise ValueError(refusal)
        if any(not 0 <= start < end <= len(tags) for start, end in mine.rejected):
            raise ValueError(f"a rejected suggestion lies outside the {len(tags)} tokens")

        annotation = _own_annotation(session, item_id, user_id)
        now = utcnow()
        if annotation is None:
            if expected_version is not None:
                raise StaleAnnotation("this annotation no longer exists", mine, None)
            annotation = Annotation(item_id=item_id, annotator_id=user_id, tags=list(tags), no_aspects=no_aspects,
                                    status=Status.DRAFT, time_spent_s=time_spent_s, created_at=now)
            session.add(annotation)
        else:
            if expected_version != annotation.version:
                stored = _stored_state(session, annotation, len(item.tokens))
                if _holds_what_is_sent(stored, mine, action):
                    return stored
                if not (action == RevisionAction.SUBMIT and _holds_what_is_sent(stored, mine, RevisionAction.SAVE)):
                    raise StaleAnnotation(SAVED_ELSEWHERE, mine, stored)
                # a submit of exactly the stored draft (the page's autosave got there first): made
            annotation.tags = list(tags)
            annotation.no_aspects = no_aspects
            annotation.time_spent_s = (annotation.time_spent_s or 0.0) + time_spent_s
        annotation.updated_at = now
        if action == RevisionAction.SUBMIT:
            annotation.status = Status.SUBMITTED
            annotation.submitted_at = now
        session.flush()
        assignment.status = Status.SUBMITTED if annotation.status == Status.SUBMITTED else Status.DRAFT
        shown = _model_spans_shown(session, item) if shown_records is None else \
            [(s, e, c or 0.0) for s, e, source, c in shown_records if source == "crf"]
        record_revision(
            session, "annotation", annotation.id, annotation.version, user_id, action,
            annotation_payload(item_id=item_id, translation_id=item.translation_id, tokens=item.tokens, tags=tags,
                               no_aspects=no_aspects, status=annotation.status, rejected=mine.rejected,
                               model_spans_shown=shown,
                               shown=shown_record(shown_records, tags, keys) if shown_records is not None else None),
        )
        if annotation.status == Status.SUBMITTED:
            decide_gold(session, item_id)
        return _state(annotation, len(item.tokens), mine.rejected)


def reopen_annotation(engine: Engine, user_id: int, item_id: int, expected_version: int | None,
                      session_token: str | None = None, *, decide_gold: ItemStep) -> AnnotationState:
    """Make the annotator's submitted annotation a draft again, so it can be edited: an explicit step
    (a submitted annotation is what gold is built from), recorded as a revision with action "reopen".
    Automatic gold then follows the submitted versions as after any save. StaleAnnotation if it changed
    since the annotator loaded it; SessionEndedWhileTagging, and nothing changes, when the annotator's
    session has ended or they are no annotator any more."""
    with transaction(engine) as session:
        check_writer(session, user_id, session_token, roles=(Role.ANNOTATOR,), error=SessionEndedWhileTagging)
        item = session.get(TaggingItem, item_id)
        if item is None:
            raise ValueError(f"no tagging item {item_id}")
        assignment = _assignment(session, user_id, item.translation_id)
        annotation = _own_annotation(session, item_id, user_id)
        if annotation is None:
            raise StaleAnnotation("this annotation no longer exists", None, None)
        current = _stored_state(session, annotation, len(item.tokens))
        if expected_version != annotation.version:
            raise StaleAnnotation(SAVED_ELSEWHERE, None, current)
        if annotation.status != Status.SUBMITTED:
            return current
        annotation.status = Status.DRAFT
        annotation.submitted_at = None
        annotation.updated_at = utcnow()
        session.flush()
        assignment.status = Status.DRAFT
        record_revision(
            session, "annotation", annotation.id, annotation.version, user_id, RevisionAction.REOPEN,
            annotation_payload(item_id=item_id, translation_id=item.translation_id, tokens=item.tokens,
                               tags=annotation.tags, no_aspects=annotation.no_aspects, status=Status.DRAFT,
                               rejected=current.rejected),
        )
        decide_gold(session, item_id)
        return _state(annotation, len(item.tokens), current.rejected)


def item_source(engine: Engine, item_id: int) -> tuple[str, list[tuple[int, int]]]:
    """The English source of a tagging item and the character spans of its aspect terms (for the lead)."""
    with Session(reader(engine)) as session:
        item = session.get(TaggingItem, item_id)
        if item is None:
            raise ValueError(f"no tagging item {item_id}")
        sentence = session.get(Translation, item.translation_id).sentence
        return sentence.text, [(a.start, a.end) for a in sentence.aspects]
