"""The data model for the whole method: source corpus, two translation phases, BIO tagging,
adjudication, final choice, and an append-only revision history.

Invariants live as database constraints too (unique keys, span start < end, phase in
{aware, blind}), so no code path can store what the method forbids. Rows that people edit carry a
``version`` used for optimistic locking: a save against a stale version raises instead of
overwriting someone else's work.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.orm import DeclarativeBase, Mapped, relationship

from db import tables
from db.tables import NAMING, PHASE_CHECK, utcnow

__all__ = ["NAMING", "PHASE_CHECK", "utcnow"]  # (re-exported: older importers name them here)


class Base(DeclarativeBase):
    metadata = tables.metadata


class Project(Base):
    """One corpus effort and its method settings."""

    __table__ = tables.projects
    id: Mapped[int]
    name: Mapped[str]
    translators_per_phase: Mapped[int]
    annotators_per_item: Mapped[int]
    phase_groups: Mapped[str]
    tagging_scope: Mapped[str]
    annotators_see_source: Mapped[bool]
    prefill_from_aspect_map: Mapped[bool]
    final_policy: Mapped[str]
    transliteration_scheme: Mapped[str]
    settings: Mapped[dict[str, Any]]
    created_at: Mapped[datetime]



class User(Base):
    __table__ = tables.users
    id: Mapped[int]
    username: Mapped[str]
    display_name: Mapped[str | None]
    password_hash: Mapped[str | None]
    active: Mapped[bool]
    failed_logins: Mapped[int]
    locked_until: Mapped[datetime | None]
    session_epoch: Mapped[int]
    created_at: Mapped[datetime]

    roles: Mapped[list[UserRole]] = relationship(
        back_populates="user", cascade="all, delete-orphan", lazy="selectin"
    )

    @property
    def role_names(self) -> set[str]:
        return {r.role for r in self.roles}


class UserRole(Base):
    __table__ = tables.user_roles
    id: Mapped[int]
    user_id: Mapped[int]
    role: Mapped[str]
    user: Mapped[User] = relationship(back_populates="roles")


class LoginSession(Base):
    """A login that survives a page refresh; the token travels in an HttpOnly cookie, only its hash is stored."""

    __table__ = tables.login_sessions
    id: Mapped[int]
    user_id: Mapped[int]
    token_hash: Mapped[str]
    epoch: Mapped[int]
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime]
    revoked: Mapped[bool]
    last_seen_at: Mapped[datetime | None]


class SourceSentence(Base):
    """An English SemEval-2014 sentence; identity is (project, domain, split, sentence id)."""

    __table__ = tables.source_sentences
    id: Mapped[int]
    project_id: Mapped[int]
    domain: Mapped[str]
    split: Mapped[str]
    sentence_id: Mapped[str]
    text: Mapped[str]
    ordinal: Mapped[int]
    flags: Mapped[list[Any]]
    created_at: Mapped[datetime]

    aspects: Mapped[list[AspectTerm]] = relationship(
        back_populates="sentence", order_by="AspectTerm.position", lazy="selectin"
    )
    categories: Mapped[list[AspectCategory]] = relationship(
        back_populates="sentence", order_by="AspectCategory.position", lazy="selectin"
    )



class AspectTerm(Base):
    """A source aspect term; offsets are the truth (text[start:end] == term)."""

    __table__ = tables.aspect_terms
    id: Mapped[int]
    sentence_id: Mapped[int]
    position: Mapped[int]
    term: Mapped[str]
    start: Mapped[int]
    end: Mapped[int]
    polarity: Mapped[str | None]
    flags: Mapped[list[Any]]
    sentence: Mapped[SourceSentence] = relationship(back_populates="aspects")



class AspectCategory(Base):
    __table__ = tables.aspect_categories
    id: Mapped[int]
    sentence_id: Mapped[int]
    position: Mapped[int]
    category: Mapped[str]
    polarity: Mapped[str | None]
    sentence: Mapped[SourceSentence] = relationship(back_populates="categories")


class TranslationAssignment(Base):
    """A translator's task: one sentence in one phase."""

    __table__ = tables.translation_assignments
    id: Mapped[int]
    user_id: Mapped[int]
    sentence_id: Mapped[int]
    phase: Mapped[str]
    status: Mapped[str]
    assigned_by: Mapped[int | None]
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]



class Translation(Base):
    """One translator's Hindi translation of a sentence in one phase (the latest revision)."""

    __table__ = tables.translations
    id: Mapped[int]
    sentence_id: Mapped[int]
    phase: Mapped[str]
    translator_id: Mapped[int]
    text: Mapped[str | None]
    untranslatable: Mapped[bool]
    untranslatable_reason: Mapped[str | None]
    untranslatable_note: Mapped[str | None]
    status: Mapped[str]
    time_spent_s: Mapped[float]
    guidelines_version: Mapped[str | None]
    version: Mapped[int]
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    submitted_at: Mapped[datetime | None]

    translator: Mapped[User] = relationship(lazy="joined")
    sentence: Mapped[SourceSentence] = relationship()
    aspect_links: Mapped[list[AspectAlignment]] = relationship(
        back_populates="translation", cascade="all, delete-orphan", lazy="selectin"
    )

    __mapper_args__ = {"version_id_col": tables.translations.c.version}


class AspectAlignment(Base):
    """The aspect-aware map: which Hindi characters render a source aspect, or why it was dropped."""

    __table__ = tables.aspect_alignments
    id: Mapped[int]
    translation_id: Mapped[int]
    aspect_term_id: Mapped[int]
    start: Mapped[int | None]
    end: Mapped[int | None]
    dropped: Mapped[bool]
    drop_reason: Mapped[str | None]
    translation: Mapped[Translation] = relationship(back_populates="aspect_links")



class TaggingItem(Base):
    """A translation to be tagged, with its tokens frozen when the first annotator opens it,
    so every annotator labels the same tokens even if tokenization or text changes later."""

    __table__ = tables.tagging_items
    id: Mapped[int]
    translation_id: Mapped[int]
    tokens: Mapped[list[Any]]
    tokenizer: Mapped[str]
    translation_version: Mapped[int]
    created_at: Mapped[datetime]
    translation: Mapped[Translation] = relationship(lazy="joined")


class AnnotationAssignment(Base):
    __table__ = tables.annotation_assignments
    id: Mapped[int]
    user_id: Mapped[int]
    translation_id: Mapped[int]
    status: Mapped[str]
    assigned_by: Mapped[int | None]
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]


class Annotation(Base):
    """One annotator's BIO tags over a tagging item's frozen tokens (the latest revision)."""

    __table__ = tables.annotations
    id: Mapped[int]
    item_id: Mapped[int]
    annotator_id: Mapped[int]
    tags: Mapped[list[Any]]
    no_aspects: Mapped[bool]
    status: Mapped[str]
    time_spent_s: Mapped[float]
    version: Mapped[int]
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    submitted_at: Mapped[datetime | None]

    item: Mapped[TaggingItem] = relationship(lazy="joined")
    annotator: Mapped[User] = relationship(lazy="joined")

    __mapper_args__ = {"version_id_col": tables.annotations.c.version}


class Adjudication(Base):
    """A gold-label decision for a tagging item (automatic or a lead's); append-only, the latest one is
    in force, and a withdrawn one in force means the item has no gold."""

    __table__ = tables.adjudications
    id: Mapped[int]
    item_id: Mapped[int]
    tags: Mapped[list[Any] | None]
    source: Mapped[str]
    accepted_annotation_id: Mapped[int | None]
    decided_by: Mapped[int | None]
    note: Mapped[str | None]
    created_at: Mapped[datetime]


class FinalChoice(Base):
    """The translation kept for a sentence; append-only, the latest row is in force.
    ``auto_translation_id`` is what the automatic rule picked, so overrides can be counted."""

    __table__ = tables.final_choices
    id: Mapped[int]
    sentence_id: Mapped[int]
    translation_id: Mapped[int | None]
    auto_translation_id: Mapped[int | None]
    overridden: Mapped[bool]
    policy: Mapped[str]
    chosen_by: Mapped[int | None]
    note: Mapped[str | None]
    created_at: Mapped[datetime]


class Revision(Base):
    """Append-only history: every save of a translation, annotation, adjudication or final choice
    stores a full snapshot here, so no save ever destroys earlier work."""

    __table__ = tables.revisions
    id: Mapped[int]
    entity: Mapped[str]
    entity_id: Mapped[int]
    version: Mapped[int]
    author_id: Mapped[int | None]
    action: Mapped[str]
    payload: Mapped[dict[str, Any]]
    created_at: Mapped[datetime]


class ReopenRequest(Base):
    """A worker's request that a lead reopen their submitted translation or annotation, and the lead's
    answer (reopened or declined, with a reason the worker reads). A lead's reopening without a request is
    a row without one (``request_reason`` NULL), answered at once. ``record_id`` names the record as the
    revision history does (``kind``, id). Rows are never deleted; ``version`` guards two leads answering."""

    __table__ = tables.reopen_requests
    id: Mapped[int]
    kind: Mapped[str]
    record_id: Mapped[int]
    worker_id: Mapped[int]
    request_reason: Mapped[str | None]
    requested_at: Mapped[datetime | None]
    state: Mapped[str]
    answered_by: Mapped[int | None]
    answer_reason: Mapped[str | None]
    answered_at: Mapped[datetime | None]
    record_version: Mapped[int | None]
    version: Mapped[int]
    created_at: Mapped[datetime]

    __mapper_args__ = {"version_id_col": tables.reopen_requests.c.version}


class GlossaryTerm(Base):
    """How the team writes a term (rule 2: transliterate; rule 1: keep Roman), for consistency."""

    __table__ = tables.glossary_terms
    id: Mapped[int]
    project_id: Mapped[int]
    english: Mapped[str]
    hindi: Mapped[str]
    rule: Mapped[str]
    created_by: Mapped[int | None]
    created_at: Mapped[datetime]


class TypedForm(Base):
    """A Devanagari form a translator accepted for a Roman word while typing, per project: the
    next look-up of that Roman word in the project offers the most used form first."""

    __table__ = tables.typed_forms
    id: Mapped[int]
    project_id: Mapped[int]
    roman: Mapped[str]
    devanagari: Mapped[str]
    uses: Mapped[int]
    first_user_id: Mapped[int | None]
    last_used_at: Mapped[datetime]


class AuditEvent(Base):
    """Who did what and when for actions that are not content saves (imports, assignments, user changes)."""

    __table__ = tables.audit_events
    id: Mapped[int]
    actor_id: Mapped[int | None]
    action: Mapped[str]
    detail: Mapped[dict[str, Any]]
    created_at: Mapped[datetime]

    # Every login attempt reads the recent failures: by action and time, not the whole log.


class LoginCode(Base):
    """A single-use code that the login form hands to the browser, which trades it for the session
    cookie at ``/auth/session`` within seconds (Streamlit cannot set a cookie itself). Only its hash is stored."""

    __table__ = tables.login_codes
    id: Mapped[int]
    user_id: Mapped[int]
    code_hash: Mapped[str]
    epoch: Mapped[int]
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None]


class LeaderboardEntry(Base):
    """One scored row of the project's leaderboard: the CRF baseline or an outside team's predictions for
    the test split, with the export version (fingerprint of the test split's tokens and gold) it was
    scored against, so rows scored on older gold stay distinguishable."""

    __table__ = tables.leaderboard_entries
    id: Mapped[int]
    project_id: Mapped[int]
    name: Mapped[str]
    kind: Mapped[str]
    export_version: Mapped[str]
    f1: Mapped[float | None]
    scores: Mapped[dict[str, Any]]
    signature: Mapped[str]
    submitted_by: Mapped[int | None]
    created_at: Mapped[datetime]


class SuggestionModel(Base):
    """The project's CRF for model suggestions in the span editor: the CRFsuite model file's bytes, trained
    in the background on the gold of ``gold_count`` items. Derived data (retrained from gold), so backups
    leave it out; one row per project, replaced by each retraining."""

    __table__ = tables.suggestion_models
    id: Mapped[int]
    project_id: Mapped[int]
    gold_count: Mapped[int]
    signature: Mapped[str]
    model: Mapped[bytes]
    train_seconds: Mapped[float]
    trained_at: Mapped[datetime]
