"""The translator's work: open a task, save drafts, submit, skip, and the team glossary.

Every function takes the logged-in user's id and filters by it, so a translator can only ever
reach their own tasks and their own translations, whatever id a page or URL hands in. Blindness
is enforced here, not only in the page: an aware task will not open (or save) until the same
translator's blind task of the sentence is submitted (a skipped one is not), and a blind task
carries no aspect data at all.
Every save writes a full snapshot to the revision history and checks the optimistic version.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from sqlalchemy import Engine, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from sqlalchemy.orm.exc import StaleDataError

from corpus.aspect_map import MAPPED_TWICE, NOT_OF_THIS_SENTENCE, Marked, links_of_map, map_refusals, submission_refused
from corpus.assignment import aware_locked, blind_contaminated
from corpus.glossary import GlossaryEntry, validate_entry
from corpus.guidelines import guidelines_version as current_guidelines_version
from corpus.records import UNTRANSLATABLE_REASONS
from corpus.revisions import MappedAspect, translation_payload
from corpus.text_controls import one_line_text
from corpus.tokens import normalize, tokenize_with_offsets
from corpus.vocabulary import SAVE_ACTIONS, RevisionAction, Role, Status, aspect_phases, phase_spec
from corpus.workfile import MAX_TEXT_CHARS, check_string
from db.access import SessionEnded, check_writer
from db.conflicts import SavedFirst
from db.engine import INTERACTIVE_BUSY_S, ProjectBusy, reader, transaction
from db.models import (
    AspectAlignment,
    AuditEvent,
    GlossaryTerm,
    SourceSentence,
    Translation,
    TranslationAssignment,
    utcnow,
)
from db.project_settings import ProjectNotFound, load_settings
from db.revisions import record_revision

ACTIONS = tuple(str(a) for a in SAVE_ACTIONS)  # plain strings: the error message lists them
# Time between two saves counts as work up to this many seconds (a tab left open overnight does not).
MAX_SAVE_INTERVAL_S = 900.0


class TaskNotFound(LookupError):
    """No such task in this user's queue (it may exist for someone else: we do not say)."""


class TaskLocked(PermissionError):
    """The task exists but blindness forbids opening it now."""


class SessionEndedWhileTranslating(TaskLocked, SessionEnded):
    """The writer's session ended (logout elsewhere, password change, deactivation): nothing is saved."""


class SubmissionRefused(ValueError):
    def __init__(self, problems: Sequence[str]):
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


class InputRefused(SubmissionRefused):
    """The form holds something no save may store (control characters, excess length): nothing is written."""


class TranslationBusy(InputRefused, ProjectBusy):
    """The project is busy (an import holds SQLite's write lock past the wait): nothing was written and
    the editor keeps the text. An InputRefused, so the page shows the message and does not save again."""

    def __init__(self) -> None:
        super().__init__([ProjectBusy.MESSAGE])


@dataclass(frozen=True)
class AspectView:
    id: int
    position: int
    term: str
    start: int
    end: int


@dataclass(frozen=True)
class LinkDraft:
    """Where one source aspect went: a character span of the (canonical) translation, or dropped."""

    aspect_term_id: int
    start: int | None = None
    end: int | None = None
    dropped: bool = False
    reason: str | None = None


@dataclass(frozen=True)
class Draft:
    text: str | None
    untranslatable: bool = False
    reason: str | None = None
    note: str | None = None
    links: tuple[LinkDraft, ...] = ()
    # What the editor's map could not place (``corpus.aspect_map.links_of_map``): refuses a submit.
    unplaced: tuple[str, ...] = ()


@dataclass(frozen=True)
class TaskView:
    assignment_id: int
    phase: str
    status: str
    sentence_pk: int
    domain: str
    split: str
    sentence_id: str
    source_text: str
    # Always empty for a blind task: the aspects never leave the database for that page.
    aspects: tuple[AspectView, ...] = ()
    translation_id: int | None = None
    text: str = ""
    untranslatable: bool = False
    reason: str | None = None
    note: str | None = None
    version: int = 0
    translation_status: str | None = None
    time_spent_s: float = 0.0
    guidelines_version: str | None = None
    updated_at: str | None = None
    links: tuple[LinkDraft, ...] = field(default=())

    @property
    def draft(self) -> Draft:
        return Draft(self.text, self.untranslatable, self.reason, self.note, self.links)


class StaleTranslation(SavedFirst):
    """The translation changed since this page loaded it (another tab or window saved): ``mine`` is the
    refused Draft, ``theirs`` the task as stored now."""

    def __init__(self, mine: Draft, theirs: TaskView):
        super().__init__(f"this translation was saved from another tab or window after you opened it "
                         f"(now version {theirs.version})", mine=mine, theirs=theirs, when=theirs.updated_at)


def canonical_text(text: str | None) -> str:
    """The stored form of a translation: NFC, without surrounding whitespace. Character spans of
    the aspect map are offsets into this form. Line breaks, tabs and control characters are normalised
    (``corpus.text_controls.one_line_text``)."""
    return normalize(one_line_text(text or "")).strip()


# ----------------------------------------------------------------------------- reading


def _owned_assignment(session: Session, user_id: int, assignment_id: int) -> TranslationAssignment:
    row = session.scalars(
        select(TranslationAssignment).where(
            TranslationAssignment.id == assignment_id,
            TranslationAssignment.user_id == user_id,
            TranslationAssignment.status != Status.REASSIGNED,
        )
    ).first()
    if row is None:
        raise TaskNotFound(f"task {assignment_id} is not in your queue")
    return row


def _sibling_status(session: Session, a: TranslationAssignment, phase: str) -> str | None:
    return session.scalars(
        select(TranslationAssignment.status).where(
            TranslationAssignment.user_id == a.user_id,
            TranslationAssignment.sentence_id == a.sentence_id,
            TranslationAssignment.phase == phase,
            TranslationAssignment.status != Status.REASSIGNED,
        )
    ).first()


def _own_translation(session: Session, user_id: int, sentence_id: int, phase: str) -> Translation | None:
    return session.scalars(
        select(Translation).where(
            Translation.sentence_id == sentence_id, Translation.phase == phase, Translation.translator_id == user_id
        )
    ).first()


def _check_blindness(session: Session, a: TranslationAssignment) -> None:
    spec = phase_spec(a.phase)
    if spec.opens_after is not None and aware_locked(_sibling_status(session, a, spec.opens_after)):
        raise TaskLocked(f"this {a.phase} task opens after you submit your {spec.opens_after} translation of the "
                         "same sentence")
    if spec.shows_source_aspects or a.status == Status.SUBMITTED:
        return
    for seen in aspect_phases():
        has_seen = _own_translation(session, a.user_id, a.sentence_id, seen) is not None
        if blind_contaminated(_sibling_status(session, a, seen), has_seen):
            raise TaskLocked(f"you have already worked on the {seen} translation of this sentence, "
                             f"so you cannot translate it {a.phase} any more; ask your lead to reassign it")


def _view(session: Session, a: TranslationAssignment) -> TaskView:
    s = session.get(SourceSentence, a.sentence_id)
    tr = _own_translation(session, a.user_id, a.sentence_id, a.phase)
    aspects: tuple[AspectView, ...] = ()
    links: tuple[LinkDraft, ...] = ()
    if phase_spec(a.phase).shows_source_aspects:
        aspects = tuple(AspectView(t.id, t.position, t.term, t.start, t.end) for t in s.aspects)
        if tr is not None:
            links = tuple(
                LinkDraft(link.aspect_term_id, link.start, link.end, link.dropped, link.drop_reason)
                for link in sorted(tr.aspect_links, key=lambda x: x.aspect_term_id)
            )
    base = dict(
        assignment_id=a.id, phase=a.phase, status=a.status, sentence_pk=s.id, domain=s.domain, split=s.split,
        sentence_id=s.sentence_id, source_text=s.text, aspects=aspects,
    )
    if tr is None:
        return TaskView(**base)
    return TaskView(
        **base, translation_id=tr.id, text=tr.text or "", untranslatable=tr.untranslatable,
        reason=tr.untranslatable_reason, note=tr.untranslatable_note, version=tr.version,
        translation_status=tr.status, time_spent_s=tr.time_spent_s or 0.0,
        guidelines_version=tr.guidelines_version,
        updated_at=tr.updated_at.strftime("%Y-%m-%d %H:%M:%S UTC") if tr.updated_at else None, links=links,
    )


def load_task(engine: Engine, user_id: int, assignment_id: int) -> TaskView:
    """One of the user's own tasks; TaskNotFound for anyone else's, TaskLocked if blindness forbids it."""
    with Session(reader(engine)) as session:
        a = _owned_assignment(session, user_id, assignment_id)
        _check_blindness(session, a)
        return _view(session, a)


# ----------------------------------------------------------------------------- validating and saving


def editor_draft(
    text: str | None, untranslatable: bool, reason: str | None, note: str | None,
    aspects: Sequence[tuple[int, str]], marked: Mapping[int, Marked],
) -> Draft:
    """A Draft from the editor's state: the map's token runs become character spans of the canonical text
    (``corpus.aspect_map.links_of_map``); what no longer fits is kept as ``unplaced``. ``aspects``: (id, term
    as a problem names it) of an aware task, empty for a blind one."""
    text = canonical_text(text)
    links, unplaced = links_of_map(tokenize_with_offsets(text), aspects, marked) if aspects else ([], [])
    return Draft(text, untranslatable, reason if untranslatable else None, note if untranslatable else None,
                 tuple(LinkDraft(k.aspect_id, k.start, k.end, k.dropped, k.reason) for k in links), tuple(unplaced))


def refuse_unplaced(draft: Draft, action: str) -> None:
    """The map's rule for a submit (``corpus.aspect_map.submission_refused``): SubmissionRefused while words
    marked for an aspect are no longer in the translation. The save applies it first; a page may ask before."""
    if action == RevisionAction.SUBMIT and (problems := submission_refused(draft.untranslatable, draft.unplaced)):
        raise SubmissionRefused(problems)


def input_problems(text: str, draft: Draft) -> list[str]:
    """What in the form's free text cannot be stored: control characters (PostgreSQL refuses NUL,
    and the work file refuses them all, so dump would fail later) and text beyond MAX_TEXT_CHARS."""
    fields = [("translation", text), ("note", draft.note or "")]
    fields += [("reason for dropping a term", link.reason or "") for link in draft.links]
    problems = []
    for name, value in fields:
        problem = check_string(value, name)
        if problem:
            problems.append(f"{problem}; remove it and save again")
        elif len(value) > MAX_TEXT_CHARS:
            problems.append(f"the {name} is {len(value):,} characters long (at most {MAX_TEXT_CHARS:,}); "
                            "shorten it and save again")
    return problems


def _valid_links(text: str, draft: Draft, aspects: dict[int, AspectView]) -> tuple[list[LinkDraft], list[str]]:
    """Links that keep the map's rule (``corpus.aspect_map.map_refusals``, which the work-file import applies
    too), and the problems with those whose words no longer fit the text. A link to an aspect not of this
    sentence, or a second link to one, is no editor's doing: a ValueError."""
    refused = map_refusals(text, [(k.aspect_term_id, k.start, k.end, k.dropped) for k in draft.links], aspects)
    if wrong := next((r for r in refused if r.rule in (NOT_OF_THIS_SENTENCE, MAPPED_TWICE)), None):
        raise ValueError(str(wrong))
    off = {r.position for r in refused}
    good, problems = [], []
    for position, link in enumerate(draft.links):
        if position in off:
            problems.append(f"the words marked for “{aspects[link.aspect_term_id].term}” no longer match your "
                            "translation; mark them again")
        elif link.dropped:
            good.append(LinkDraft(link.aspect_term_id, None, None, True, (link.reason or "").strip() or None))
        elif link.start is not None and link.end is not None:
            good.append(LinkDraft(link.aspect_term_id, link.start, link.end))
    return good, problems


def _submission_problems(text: str, draft: Draft, links: list[LinkDraft], aspects: Sequence[AspectView]) -> list[str]:
    problems = []
    if draft.untranslatable:
        if draft.reason not in UNTRANSLATABLE_REASONS:
            problems.append("choose why the sentence is untranslatable: " + ", ".join(UNTRANSLATABLE_REASONS))
        elif draft.reason == "other" and not (draft.note or "").strip():
            problems.append("say in the note why the sentence is untranslatable")
        return problems
    if not text:
        problems.append("the translation is empty: write it, or mark the sentence untranslatable")
        return problems
    by_id = {link.aspect_term_id: link for link in links}
    for aspect in aspects:
        link = by_id.get(aspect.id)
        if link is None:
            problems.append(f"mark the Hindi words for “{aspect.term}”, or mark it dropped")
        elif link.dropped and not link.reason:
            problems.append(f"say why “{aspect.term}” was dropped")
    return problems


def _snapshot(tr: Translation, a: TranslationAssignment, s: SourceSentence, aspects: dict[int, AspectView]) -> dict:
    return translation_payload(
        assignment_id=a.id, sentence=(s.domain, s.split, s.sentence_id), phase=tr.phase,
        translator_id=tr.translator_id, text=tr.text, untranslatable=tr.untranslatable,
        reason=tr.untranslatable_reason, note=tr.untranslatable_note, status=tr.status,
        time_spent_s=tr.time_spent_s, guidelines_version=tr.guidelines_version, submitted_at=tr.submitted_at,
        aspect_map=[
            MappedAspect(link.aspect_term_id, aspects[link.aspect_term_id].position if link.aspect_term_id in aspects
                         else None, aspects[link.aspect_term_id].term if link.aspect_term_id in aspects else None,
                         link.start, link.end, link.dropped, link.drop_reason)
            for link in tr.aspect_links
        ],
    )


def _apply_links(session: Session, tr: Translation, links: list[LinkDraft]) -> None:
    """Update the map in place (update, insert, delete by aspect) so the unique key never clashes."""
    wanted = {link.aspect_term_id: link for link in links}
    for row in list(tr.aspect_links):
        link = wanted.pop(row.aspect_term_id, None)
        if link is None:
            tr.aspect_links.remove(row)
            continue
        row.start, row.end, row.dropped, row.drop_reason = link.start, link.end, link.dropped, link.reason
    session.flush()
    for link in wanted.values():
        tr.aspect_links.append(
            AspectAlignment(aspect_term_id=link.aspect_term_id, start=link.start, end=link.end,
                            dropped=link.dropped, drop_reason=link.reason)
        )


def _holds_what_is_sent(view: TaskView, text: str, draft: Draft, links: Sequence[LinkDraft], action: str) -> bool:
    """Whether the stored translation already holds exactly what this save sends, as the save would store
    it (and, for a submit, is submitted): then the save is done, whatever version the page last saw (a
    retry, or the autosave and the button racing with the same text), never a conflict."""
    if view.translation_id is None:
        return False
    submitted = view.translation_status == Status.SUBMITTED
    if action == RevisionAction.SUBMIT and not submitted:
        return False
    untranslatable = bool(draft.untranslatable)
    cleared = submitted and untranslatable  # a submitted untranslatable sentence keeps no text or map
    sent = ("" if cleared or not text else text, untranslatable, draft.reason if untranslatable else None,
            ((draft.note or "").strip() or None) if untranslatable else None,
            () if cleared else tuple(sorted(links, key=lambda link: link.aspect_term_id)))
    return sent == (view.text, view.untranslatable, view.reason, view.note, view.links)


def save_translation(
    engine: Engine, user_id: int, assignment_id: int, draft: Draft, *, expected_version: int,
    action: str = RevisionAction.SAVE, elapsed_s: float = 0.0, guidelines_version: str | None = None,
    session_token: str | None = None, busy_timeout_s: float | None = INTERACTIVE_BUSY_S,
) -> TaskView:
    """Autosave, save or submit the user's translation for one of their tasks.

    ``expected_version`` is the translation version the page last saw (0 for none yet); if the
    stored one differs, nothing is written and StaleTranslation carries both versions, unless the
    stored translation already holds what this save sends: then nothing is written and the task is
    returned as stored (an idempotent retry; a submit of the same text over a newer draft is made).
    Submitting validates: text or an untranslatable reason, and in the aware phase a span or a
    dropped reason for every source aspect. Any save refuses input that cannot be stored
    (InputRefused). Returns the task as now stored. The writer is re-checked in the same transaction:
    an inactive user, or a ``session_token`` that is no longer live, gets SessionEndedWhileTranslating.
    A database busy past ``busy_timeout_s`` (all waits together; None: ``db.engine.BUSY_TIMEOUT_S``) is
    TranslationBusy, nothing written: the page keeps the text and tries again.
    """
    if action not in ACTIONS:
        raise ValueError(f"save_translation: action must be one of {ACTIONS}")
    refuse_unplaced(draft, action)
    if draft.reason is not None and draft.reason not in UNTRANSLATABLE_REASONS:
        raise ValueError(f"untranslatable reason must be one of {', '.join(UNTRANSLATABLE_REASONS)}")
    text = canonical_text(draft.text)
    if problems := input_problems(text, draft):
        raise InputRefused(problems)
    links: list[LinkDraft] | None = None
    try:
        with transaction(engine, busy_timeout_s) as session:
            check_writer(session, user_id, session_token, error=SessionEndedWhileTranslating)
            a = _owned_assignment(session, user_id, assignment_id)
            _check_blindness(session, a)
            s = session.get(SourceSentence, a.sentence_id)
            if not phase_spec(a.phase).shows_source_aspects and draft.links:
                raise ValueError("a blind translation has no aspect map")
            aspects = (
                {t.id: AspectView(t.id, t.position, t.term, t.start, t.end) for t in s.aspects}
                if phase_spec(a.phase).shows_source_aspects else {}
            )
            links, link_problems = _valid_links(text, draft, aspects)
            tr = _own_translation(session, user_id, a.sentence_id, a.phase)
            current = tr.version if tr is not None else 0
            if a.status == Status.SUBMITTED or expected_version != current:
                stored = _view(session, a)
                if _holds_what_is_sent(stored, text, draft, links, action):
                    return stored
                if a.status == Status.SUBMITTED:
                    raise SubmissionRefused(["this translation is already submitted; ask your lead to reopen it"])
                if not (action == RevisionAction.SUBMIT
                        and _holds_what_is_sent(stored, text, draft, links, RevisionAction.SAVE)):
                    raise StaleTranslation(draft, stored)
                # a submit of exactly the stored draft (the page's autosave got there first): made
            if action == RevisionAction.SUBMIT:
                problems = _submission_problems(text, draft, links, list(aspects.values()))
                if not draft.untranslatable:
                    problems = link_problems + problems
                if problems:
                    raise SubmissionRefused(problems)
            if tr is None:
                tr = Translation(sentence_id=a.sentence_id, phase=a.phase, translator_id=user_id, status=Status.DRAFT,
                                 time_spent_s=0.0)
                session.add(tr)
            submitting = action == RevisionAction.SUBMIT
            tr.untranslatable = bool(draft.untranslatable)
            tr.untranslatable_reason = draft.reason if draft.untranslatable else None
            tr.untranslatable_note = ((draft.note or "").strip() or None) if draft.untranslatable else None
            tr.text = None if (submitting and draft.untranslatable) or not text else text
            tr.time_spent_s = (tr.time_spent_s or 0.0) + min(max(float(elapsed_s), 0.0), MAX_SAVE_INTERVAL_S)
            tr.guidelines_version = guidelines_version or current_guidelines_version()
            tr.updated_at = utcnow()
            tr.status = Status.SUBMITTED if submitting else Status.DRAFT
            if submitting:
                tr.submitted_at = utcnow()
            session.flush()
            _apply_links(session, tr, [] if (submitting and draft.untranslatable) else links)
            a.status = Status.SUBMITTED if submitting else Status.DRAFT
            session.flush()
            session.refresh(tr)
            record_revision(session, "translation", tr.id, tr.version, user_id, action, _snapshot(tr, a, s, aspects))
            return _view(session, a)
    except (StaleDataError, IntegrityError) as exc:
        # Another save won the race between our read and our write: an update of a row that moved on,
        # or (PostgreSQL) a first save of the same task inserted beside ours. A constraint broken for
        # any other reason leaves the stored version where we saw it, and is not a conflict.
        with Session(reader(engine)) as session:
            theirs = _view(session, _owned_assignment(session, user_id, assignment_id))
        if isinstance(exc, IntegrityError) and theirs.version == expected_version:
            raise
        if links is not None and _holds_what_is_sent(theirs, text, draft, links, action):
            return theirs  # the save that won stored what this one sends
        raise StaleTranslation(draft, theirs) from None
    except ProjectBusy:
        raise TranslationBusy() from None


def skip_task(engine: Engine, user_id: int, assignment_id: int) -> None:
    """Put a task back for later: it moves behind the fresh tasks in the queue."""
    try:
        with transaction(engine, INTERACTIVE_BUSY_S) as session:
            check_writer(session, user_id, roles=(Role.TRANSLATOR,), error=SessionEndedWhileTranslating)
            a = _owned_assignment(session, user_id, assignment_id)
            if a.status == Status.SUBMITTED:
                raise SubmissionRefused(["a submitted translation cannot be skipped"])
            a.status = Status.SKIPPED
    except ProjectBusy:
        raise TranslationBusy() from None


# ----------------------------------------------------------------------------- glossary and settings


def transliteration_scheme(engine: Engine, project_id: int) -> str:
    """The project's default typing scheme (a known one, else ITRANS)."""
    from corpus.transliterate import DEFAULT_SCHEME, SCHEME_KEYS

    try:
        scheme = load_settings(engine, project_id).transliteration_scheme
    except ProjectNotFound:
        return DEFAULT_SCHEME
    return scheme if scheme in SCHEME_KEYS else DEFAULT_SCHEME


def glossary(engine: Engine, project_id: int) -> list[GlossaryEntry]:
    with Session(reader(engine)) as session:
        rows = session.scalars(
            select(GlossaryTerm).where(GlossaryTerm.project_id == project_id).order_by(GlossaryTerm.english)
        )
        return [GlossaryEntry(r.english, r.hindi, r.rule) for r in rows]


def set_glossary_term(
    engine: Engine, project_id: int, english: str, hindi: str, rule: str, actor_id: int | None,
) -> GlossaryEntry:
    """Add or change how the team writes a term (one row per English term, case-insensitive)."""
    entry = validate_entry(english, hindi, rule)
    with transaction(engine) as session:
        check_writer(session, actor_id, roles=(Role.ADMIN, Role.LEAD))
        rows = session.scalars(select(GlossaryTerm).where(GlossaryTerm.project_id == project_id))
        row = next((r for r in rows if r.english.casefold() == entry.english.casefold()), None)
        if row is None:
            row = GlossaryTerm(project_id=project_id, english=entry.english, created_by=actor_id)
            session.add(row)
        row.hindi, row.rule = entry.hindi, entry.rule
        session.add(AuditEvent(actor_id=actor_id, action="set-glossary-term",
                               detail={"english": entry.english, "hindi": entry.hindi, "rule": entry.rule}))
    return entry


def delete_glossary_term(engine: Engine, project_id: int, english: str, actor_id: int | None) -> bool:
    with transaction(engine) as session:
        check_writer(session, actor_id, roles=(Role.ADMIN, Role.LEAD))
        rows = session.scalars(select(GlossaryTerm).where(GlossaryTerm.project_id == project_id))
        row = next((r for r in rows if r.english.casefold() == english.strip().casefold()), None)
        if row is None:
            return False
        session.delete(row)
        session.add(AuditEvent(actor_id=actor_id, action="delete-glossary-term", detail={"english": row.english}))
        return True
