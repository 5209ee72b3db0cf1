"""The data model for the whole method: source corpus, two translation phases, BIO tagging,
adjudication, final choice, and an append-only revision history.

Invariants live as database constraints too (unique keys, span start < end, phase in
{aware, blind}), so no code path can store what the method forbids. Rows that people edit carry a
``version`` used for optimistic locking: a save against a stale version raises instead of
overwriting someone else's work.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship
from corpus.reopen import RequestState, WorkKind
from corpus.vocabulary import RECORD_STATUSES, GoldSource, Phase, Role, Status, check_in


def utcnow() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON}


PHASE_CHECK = check_in("phase", Phase)


class Project(Base):
    """One corpus effort and its method settings."""

    __tablename__ = "projects"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    translators_per_phase: Mapped[int] = mapped_column(Integer, default=4)
    annotators_per_item: Mapped[int] = mapped_column(Integer, default=2)
    # "same": one translator may do both phases (blind first); "disjoint": separate groups per phase.
    phase_groups: Mapped[str] = mapped_column(String(20), default="same")
    # "all": every submitted translation is tagged; "best": only each phase's best translation.
    tagging_scope: Mapped[str] = mapped_column(String(20), default="all")
    annotators_see_source: Mapped[bool] = mapped_column(Boolean, default=True)
    prefill_from_aspect_map: Mapped[bool] = mapped_column(Boolean, default=True)
    # How the final translation is chosen between the aware and the blind winner.
    final_policy: Mapped[str] = mapped_column(String(40), default="aware-unless-blind-better")
    # What the translate editor opens in: "phonetic" (candidates as you type) or one of the strict schemes.
    transliteration_scheme: Mapped[str] = mapped_column(String(20), default="phonetic")
    settings: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)

    __table_args__ = (
        CheckConstraint("translators_per_phase >= 1", name="translators_positive"),
        CheckConstraint("annotators_per_item >= 1", name="annotators_positive"),
        CheckConstraint("phase_groups IN ('same', 'disjoint')", name="phase_groups_known"),
        CheckConstraint("tagging_scope IN ('all', 'best')", name="tagging_scope_known"),
    )


class User(Base):
    __tablename__ = "users"
    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(80), unique=True)
    display_name: Mapped[str | None] = mapped_column(String(200))
    # bcrypt hash; NULL means the user cannot log in until a lead sets a password.
    password_hash: Mapped[str | None] = mapped_column(String(200))
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    failed_logins: Mapped[int] = mapped_column(Integer, default=0)
    locked_until: Mapped[datetime | None] = mapped_column(DateTime)
    # Bumped when a user is deactivated or their password reset: older login sessions stop working.
    session_epoch: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)

    roles: Mapped[list[UserRole]] = relationship(
        back_populates="user", cascade="all, delete-orphan", lazy="selectin"
    )

    @property
    def role_names(self) -> set[str]:
        return {r.role for r in self.roles}


class UserRole(Base):
    __tablename__ = "user_roles"
    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    role: Mapped[str] = mapped_column(String(20))
    user: Mapped[User] = relationship(back_populates="roles")
    __table_args__ = (
        UniqueConstraint("user_id", "role", name="uq_user_roles_user_role"),
        CheckConstraint(check_in("role", Role), name="role_known"),
    )


class LoginSession(Base):
    """A login that survives a page refresh; the token travels in an HttpOnly cookie, only its hash is stored."""

    __tablename__ = "login_sessions"
    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    token_hash: Mapped[str] = mapped_column(String(128), unique=True)
    epoch: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(DateTime)
    revoked: Mapped[bool] = mapped_column(Boolean, default=False)
    # The last run that used it (updated at most once a minute): idle sessions end.
    last_seen_at: Mapped[datetime | None] = mapped_column(DateTime)


class SourceSentence(Base):
    """An English SemEval-2014 sentence; identity is (project, domain, split, sentence id)."""

    __tablename__ = "source_sentences"
    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id"))
    domain: Mapped[str] = mapped_column(String(40))
    split: Mapped[str] = mapped_column(String(10))
    sentence_id: Mapped[str] = mapped_column(String(100))
    text: Mapped[str] = mapped_column(Text)
    ordinal: Mapped[int] = mapped_column(Integer, default=0)
    # Review flags from import (e.g. "leading-nbsp", "duplicate-text").
    flags: Mapped[list[Any]] = mapped_column(default=list)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)

    aspects: Mapped[list[AspectTerm]] = relationship(
        back_populates="sentence", order_by="AspectTerm.position", lazy="selectin"
    )
    categories: Mapped[list[AspectCategory]] = relationship(
        back_populates="sentence", order_by="AspectCategory.position", lazy="selectin"
    )

    __table_args__ = (
        UniqueConstraint("project_id", "domain", "split", "sentence_id", name="uq_source_sentences_identity"),
        CheckConstraint("split IN ('train', 'test', 'dev')", name="split_known"),
        Index("ix_source_sentences_project_order", "project_id", "domain", "split", "ordinal"),
    )


class AspectTerm(Base):
    """A source aspect term; offsets are the truth (text[start:end] == term)."""

    __tablename__ = "aspect_terms"
    id: Mapped[int] = mapped_column(primary_key=True)
    sentence_id: Mapped[int] = mapped_column(ForeignKey("source_sentences.id"))
    position: Mapped[int] = mapped_column(Integer)
    term: Mapped[str] = mapped_column(Text)
    start: Mapped[int] = mapped_column(Integer)
    end: Mapped[int] = mapped_column(Integer)
    polarity: Mapped[str | None] = mapped_column(String(20))
    flags: Mapped[list[Any]] = mapped_column(default=list)
    sentence: Mapped[SourceSentence] = relationship(back_populates="aspects")

    __table_args__ = (
        UniqueConstraint("sentence_id", "position", name="uq_aspect_terms_position"),
        CheckConstraint("start >= 0 AND start < \"end\"", name="span_ordered"),
        CheckConstraint(
            "polarity IS NULL OR polarity IN ('positive', 'negative', 'neutral', 'conflict')",
            name="polarity_known",
        ),
    )


class AspectCategory(Base):
    __tablename__ = "aspect_categories"
    id: Mapped[int] = mapped_column(primary_key=True)
    sentence_id: Mapped[int] = mapped_column(ForeignKey("source_sentences.id"))
    position: Mapped[int] = mapped_column(Integer)
    category: Mapped[str] = mapped_column(String(100))
    polarity: Mapped[str | None] = mapped_column(String(20))
    sentence: Mapped[SourceSentence] = relationship(back_populates="categories")
    __table_args__ = (UniqueConstraint("sentence_id", "position", name="uq_aspect_categories_position"),)


class TranslationAssignment(Base):
    """A translator's task: one sentence in one phase."""

    __tablename__ = "translation_assignments"
    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    sentence_id: Mapped[int] = mapped_column(ForeignKey("source_sentences.id"))
    phase: Mapped[str] = mapped_column(String(10))
    # assigned -> draft -> submitted; skipped; reassigned (moved away from a deactivated user).
    status: Mapped[str] = mapped_column(String(20), default=Status.ASSIGNED)
    assigned_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, onupdate=utcnow)

    __table_args__ = (
        UniqueConstraint("user_id", "sentence_id", "phase", name="uq_translation_assignments_task"),
        CheckConstraint(PHASE_CHECK, name="phase_known"),
        CheckConstraint(
            check_in("status", Status), name="status_known"
        ),
        Index("ix_translation_assignments_queue", "user_id", "status"),
    )


class Translation(Base):
    """One translator's Hindi translation of a sentence in one phase (the latest revision)."""

    __tablename__ = "translations"
    id: Mapped[int] = mapped_column(primary_key=True)
    sentence_id: Mapped[int] = mapped_column(ForeignKey("source_sentences.id"))
    phase: Mapped[str] = mapped_column(String(10))
    translator_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    text: Mapped[str | None] = mapped_column(Text)
    untranslatable: Mapped[bool] = mapped_column(Boolean, default=False)
    untranslatable_reason: Mapped[str | None] = mapped_column(String(40))
    untranslatable_note: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(20), default=Status.DRAFT)
    time_spent_s: Mapped[float] = mapped_column(Float, default=0.0)
    guidelines_version: Mapped[str | None] = mapped_column(String(40))
    version: Mapped[int] = mapped_column(Integer, nullable=False, default=1)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, onupdate=utcnow)
    submitted_at: Mapped[datetime | None] = mapped_column(DateTime)

    translator: Mapped[User] = relationship(lazy="joined")
    sentence: Mapped[SourceSentence] = relationship()
    aspect_links: Mapped[list[AspectAlignment]] = relationship(
        back_populates="translation", cascade="all, delete-orphan", lazy="selectin"
    )

    __mapper_args__ = {"version_id_col": version}
    __table_args__ = (
        UniqueConstraint("sentence_id", "phase", "translator_id", name="uq_translations_task"),
        CheckConstraint(PHASE_CHECK, name="phase_known"),
        CheckConstraint(check_in("status", RECORD_STATUSES), name="status_known"),
        CheckConstraint(
            f"status = '{Status.DRAFT}' OR untranslatable OR (text IS NOT NULL AND length(trim(text)) > 0)",
            name="submitted_has_text",
        ),
        CheckConstraint(
            "untranslatable_reason IS NULL OR untranslatable_reason IN ('idiom', 'pun', 'missing context', 'other')",
            name="reason_known",
        ),
        Index("ix_translations_phase_status", "phase", "status"),
        Index("ix_translations_updated", "updated_at", "version"),  # the figures' fingerprint and recent rows
    )


class AspectAlignment(Base):
    """The aspect-aware map: which Hindi characters render a source aspect, or why it was dropped."""

    __tablename__ = "aspect_alignments"
    id: Mapped[int] = mapped_column(primary_key=True)
    translation_id: Mapped[int] = mapped_column(ForeignKey("translations.id"))
    aspect_term_id: Mapped[int] = mapped_column(ForeignKey("aspect_terms.id"))
    start: Mapped[int | None] = mapped_column(Integer)
    end: Mapped[int | None] = mapped_column(Integer)
    dropped: Mapped[bool] = mapped_column(Boolean, default=False)
    drop_reason: Mapped[str | None] = mapped_column(Text)
    translation: Mapped[Translation] = relationship(back_populates="aspect_links")

    __table_args__ = (
        UniqueConstraint("translation_id", "aspect_term_id", name="uq_aspect_alignments_link"),
        CheckConstraint(
            "(dropped AND start IS NULL AND \"end\" IS NULL) OR "
            "(NOT dropped AND start IS NOT NULL AND \"end\" IS NOT NULL AND start >= 0 AND start < \"end\")",
            name="span_or_dropped",
        ),
    )


class TaggingItem(Base):
    """A translation to be tagged, with its tokens frozen when the first annotator opens it,
    so every annotator labels the same tokens even if tokenization or text changes later."""

    __tablename__ = "tagging_items"
    id: Mapped[int] = mapped_column(primary_key=True)
    translation_id: Mapped[int] = mapped_column(ForeignKey("translations.id"), unique=True)
    tokens: Mapped[list[Any]] = mapped_column()
    tokenizer: Mapped[str] = mapped_column(String(40))
    translation_version: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    translation: Mapped[Translation] = relationship(lazy="joined")


class AnnotationAssignment(Base):
    __tablename__ = "annotation_assignments"
    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    translation_id: Mapped[int] = mapped_column(ForeignKey("translations.id"))
    status: Mapped[str] = mapped_column(String(20), default=Status.ASSIGNED)
    assigned_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, onupdate=utcnow)
    __table_args__ = (
        UniqueConstraint("user_id", "translation_id", name="uq_annotation_assignments_task"),
        CheckConstraint(
            check_in("status", Status), name="status_known"
        ),
        Index("ix_annotation_assignments_queue", "user_id", "status"),
        Index("ix_annotation_assignments_translation", "translation_id", "status", "user_id"),  # the gold reader
        Index("ix_annotation_assignments_updated", "updated_at"),
    )


class Annotation(Base):
    """One annotator's BIO tags over a tagging item's frozen tokens (the latest revision)."""

    __tablename__ = "annotations"
    id: Mapped[int] = mapped_column(primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("tagging_items.id"))
    annotator_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    tags: Mapped[list[Any]] = mapped_column()
    # "No aspects in this sentence" is an explicit answer, distinct from an untouched draft.
    no_aspects: Mapped[bool] = mapped_column(Boolean, default=False)
    status: Mapped[str] = mapped_column(String(20), default=Status.DRAFT)
    time_spent_s: Mapped[float] = mapped_column(Float, default=0.0)
    version: Mapped[int] = mapped_column(Integer, nullable=False, default=1)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, onupdate=utcnow)
    submitted_at: Mapped[datetime | None] = mapped_column(DateTime)

    item: Mapped[TaggingItem] = relationship(lazy="joined")
    annotator: Mapped[User] = relationship(lazy="joined")

    __mapper_args__ = {"version_id_col": version}
    __table_args__ = (
        UniqueConstraint("item_id", "annotator_id", name="uq_annotations_task"),
        CheckConstraint(check_in("status", RECORD_STATUSES), name="status_known"),
        Index("ix_annotations_updated", "updated_at", "version"),  # the figures' fingerprint and recent rows
    )


class Adjudication(Base):
    """A gold-label decision for a tagging item (automatic or a lead's); append-only, the latest one is
    in force, and a withdrawn one in force means the item has no gold."""

    __tablename__ = "adjudications"
    id: Mapped[int] = mapped_column(primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("tagging_items.id"))
    # SQL NULL (not JSON null) only for a withdrawal, which leaves the item without gold.
    tags: Mapped[list[Any] | None] = mapped_column(JSON(none_as_null=True), nullable=True)
    # corpus.gold.SOURCES: "agreed"/"single" (automatic), "accepted"/"edited" (a lead), "withdrawn".
    source: Mapped[str] = mapped_column(String(20))
    accepted_annotation_id: Mapped[int | None] = mapped_column(ForeignKey("annotations.id"))
    decided_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    note: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    __table_args__ = (
        CheckConstraint(check_in("source", GoldSource), name="source_known"),
        CheckConstraint("(source = 'withdrawn') = (tags IS NULL)", name="tags_unless_withdrawn"),
        Index("ix_adjudications_item", "item_id", "id"),
    )


class FinalChoice(Base):
    """The translation kept for a sentence; append-only, the latest row is in force.
    ``auto_translation_id`` is what the automatic rule picked, so overrides can be counted."""

    __tablename__ = "final_choices"
    id: Mapped[int] = mapped_column(primary_key=True)
    sentence_id: Mapped[int] = mapped_column(ForeignKey("source_sentences.id"))
    translation_id: Mapped[int | None] = mapped_column(ForeignKey("translations.id"))
    auto_translation_id: Mapped[int | None] = mapped_column(ForeignKey("translations.id"))
    overridden: Mapped[bool] = mapped_column(Boolean, default=False)
    policy: Mapped[str] = mapped_column(String(40))
    chosen_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    note: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    __table_args__ = (Index("ix_final_choices_sentence", "sentence_id", "id"),)


class Revision(Base):
    """Append-only history: every save of a translation, annotation, adjudication or final choice
    stores a full snapshot here, so no save ever destroys earlier work."""

    __tablename__ = "revisions"
    id: Mapped[int] = mapped_column(primary_key=True)
    entity: Mapped[str] = mapped_column(String(20))
    entity_id: Mapped[int] = mapped_column(Integer)
    version: Mapped[int] = mapped_column(Integer)
    author_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    # "autosave", "save", "submit", "import", "adjudicate", ...
    action: Mapped[str] = mapped_column(String(20))
    payload: Mapped[dict[str, Any]] = mapped_column()
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    __table_args__ = (
        CheckConstraint(
            "entity IN ('translation', 'annotation', 'adjudication', 'final_choice')", name="entity_known"
        ),
        Index("ix_revisions_entity", "entity", "entity_id", "id"),
    )


class ReopenRequest(Base):
    """A worker's request that a lead reopen their submitted translation or annotation, and the lead's
    answer (reopened or declined, with a reason the worker reads). A lead's reopening without a request is
    a row without one (``request_reason`` NULL), answered at once. ``record_id`` names the record as the
    revision history does (``kind``, id). Rows are never deleted; ``version`` guards two leads answering."""

    __tablename__ = "reopen_requests"
    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(20))
    record_id: Mapped[int] = mapped_column(Integer)
    worker_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    request_reason: Mapped[str | None] = mapped_column(Text)
    requested_at: Mapped[datetime | None] = mapped_column(DateTime)
    state: Mapped[str] = mapped_column(String(20), default=RequestState.PENDING)
    answered_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    answer_reason: Mapped[str | None] = mapped_column(Text)
    answered_at: Mapped[datetime | None] = mapped_column(DateTime)
    # The record's version the reopening wrote (its "reopen" revision); NULL unless reopened.
    record_version: Mapped[int | None] = mapped_column(Integer)
    version: Mapped[int] = mapped_column(Integer, nullable=False, default=1)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)

    __mapper_args__ = {"version_id_col": version}
    __table_args__ = (
        CheckConstraint(check_in("kind", WorkKind), name="kind_known"),
        CheckConstraint(check_in("state", RequestState), name="state_known"),
        CheckConstraint(f"state = '{RequestState.PENDING}' OR (answered_by IS NOT NULL AND answer_reason IS NOT NULL"
                        " AND answered_at IS NOT NULL)", name="answered_with_reason"),
        CheckConstraint(f"state <> '{RequestState.PENDING}' OR (request_reason IS NOT NULL AND answered_by IS NULL)",
                        name="pending_is_a_request"),
        CheckConstraint(f"request_reason IS NOT NULL OR state = '{RequestState.REOPENED}'",
                        name="decline_answers_a_request"),
        Index("ix_reopen_requests_record", "kind", "record_id", "id"),
        Index("ix_reopen_requests_state", "state", "id"),
    )


class GlossaryTerm(Base):
    """How the team writes a term (rule 2: transliterate; rule 1: keep Roman), for consistency."""

    __tablename__ = "glossary_terms"
    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id"))
    english: Mapped[str] = mapped_column(String(200))
    hindi: Mapped[str] = mapped_column(String(200))
    # "transliterate" (Devanagari) or "keep-roman" (proper noun).
    rule: Mapped[str] = mapped_column(String(20), default="transliterate")
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    __table_args__ = (
        UniqueConstraint("project_id", "english", name="uq_glossary_terms_english"),
        CheckConstraint("rule IN ('transliterate', 'keep-roman')", name="rule_known"),
    )


class TypedForm(Base):
    """A Devanagari form a translator accepted for a Roman word while typing, per project: the
    next look-up of that Roman word in the project offers the most used form first."""

    __tablename__ = "typed_forms"
    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id"))
    roman: Mapped[str] = mapped_column(String(60))
    devanagari: Mapped[str] = mapped_column(String(120))
    uses: Mapped[int] = mapped_column(Integer, default=1)
    first_user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    last_used_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    __table_args__ = (
        UniqueConstraint("project_id", "roman", "devanagari", name="uq_typed_forms_form"),
        CheckConstraint("uses > 0", name="uses_positive"),
    )


class AuditEvent(Base):
    """Who did what and when for actions that are not content saves (imports, assignments, user changes)."""

    __tablename__ = "audit_events"
    id: Mapped[int] = mapped_column(primary_key=True)
    actor_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    action: Mapped[str] = mapped_column(String(40))
    detail: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)

    # Every login attempt reads the recent failures: by action and time, not the whole log.
    __table_args__ = (Index("ix_audit_events_action_time", "action", "created_at"),)


class LoginCode(Base):
    """A single-use code that the login form hands to the browser, which trades it for the session
    cookie at ``/auth/session`` within seconds (Streamlit cannot set a cookie itself). Only its hash is stored."""

    __tablename__ = "login_codes"
    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    code_hash: Mapped[str] = mapped_column(String(128), unique=True)
    epoch: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(DateTime)
    used_at: Mapped[datetime | None] = mapped_column(DateTime)


class LeaderboardEntry(Base):
    """One scored row of the project's leaderboard: the CRF baseline or an outside team's predictions for
    the test split, with the export version (fingerprint of the test split's tokens and gold) it was
    scored against, so rows scored on older gold stay distinguishable."""

    __tablename__ = "leaderboard_entries"
    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id"))
    name: Mapped[str] = mapped_column(String(200))
    # "baseline" (the CRF, first row) or "submission"
    kind: Mapped[str] = mapped_column(String(20))
    export_version: Mapped[str] = mapped_column(String(80))
    f1: Mapped[float | None] = mapped_column(Float)
    scores: Mapped[dict[str, Any]] = mapped_column()
    signature: Mapped[str] = mapped_column(Text)
    submitted_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    __table_args__ = (
        CheckConstraint("kind IN ('baseline', 'submission')", name="kind_known"),
        Index("ix_leaderboard_entries_project", "project_id", "export_version"),
    )


class SuggestionModel(Base):
    """The project's CRF for model suggestions in the span editor: the CRFsuite model file's bytes, trained
    in the background on the gold of ``gold_count`` items. Derived data (retrained from gold), so backups
    leave it out; one row per project, replaced by each retraining."""

    __tablename__ = "suggestion_models"
    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id"), unique=True)
    gold_count: Mapped[int] = mapped_column(Integer)
    signature: Mapped[str] = mapped_column(Text)
    model: Mapped[bytes] = mapped_column(LargeBinary)
    train_seconds: Mapped[float] = mapped_column(Float)
    trained_at: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    __table_args__ = (CheckConstraint("gold_count >= 0", name="gold_count_not_negative"),)
