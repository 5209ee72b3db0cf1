"""The database's tables as SQLAlchemy Core ``Table`` objects on one ``MetaData``: the one definition of
every column, default, constraint and index.

``db.models`` maps its ORM classes onto these tables (``__table__``), so the pages' sessions and every Core
read or write (an import, the statistics) use the same definition; a command that maps no rows imports
this module and neither ``sqlalchemy.orm`` nor the models. What each table holds and why is said on its
class in ``db.models``; tests/db/test_engine.py checks the tables against the migrations.
"""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

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

metadata = MetaData(naming_convention=NAMING)

PHASE_CHECK = check_in("phase", Phase)


projects = Table(
    "projects",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(200), unique=True, nullable=False),
    Column("translators_per_phase", Integer, default=4, nullable=False),
    Column("annotators_per_item", Integer, default=2, nullable=False),
    # "same": one translator may do both phases (blind first); "disjoint": separate groups per phase.
    Column("phase_groups", String(20), default="same", nullable=False),
    # "all": every submitted translation is tagged; "best": only each phase's best translation.
    Column("tagging_scope", String(20), default="all", nullable=False),
    Column("annotators_see_source", Boolean, default=True, nullable=False),
    Column("prefill_from_aspect_map", Boolean, default=True, nullable=False),
    # How the final translation is chosen between the aware and the blind winner.
    Column("final_policy", String(40), default="aware-unless-blind-better", nullable=False),
    # What the translate editor opens in: "phonetic" (candidates as you type) or one of the strict schemes.
    Column("transliteration_scheme", String(20), default="phonetic", nullable=False),
    Column("settings", JSON, default=dict, nullable=False),
    Column("created_at", DateTime, default=utcnow, nullable=False),
    CheckConstraint("translators_per_phase >= 1", name="translators_positive"),
    CheckConstraint("annotators_per_item >= 1", name="annotators_positive"),
    CheckConstraint("phase_groups IN ('same', 'disjoint')", name="phase_groups_known"),
    CheckConstraint("tagging_scope IN ('all', 'best')", name="tagging_scope_known"),
)


users = Table(
    "users",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("username", String(80), unique=True, nullable=False),
    Column("display_name", String(200)),
    # bcrypt hash; NULL means the user cannot log in until a lead sets a password.
    Column("password_hash", String(200)),
    Column("active", Boolean, default=True, nullable=False),
    Column("failed_logins", Integer, default=0, nullable=False),
    Column("locked_until", DateTime),
    # Bumped when a user is deactivated or their password reset: older login sessions stop working.
    Column("session_epoch", Integer, default=0, nullable=False),
    Column("created_at", DateTime, default=utcnow, nullable=False),
)


user_roles = Table(
    "user_roles",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("user_id", Integer, ForeignKey("users.id"), nullable=False),
    Column("role", String(20), nullable=False),
    UniqueConstraint("user_id", "role", name="uq_user_roles_user_role"),
    CheckConstraint(check_in("role", Role), name="role_known"),
)


login_sessions = Table(
    "login_sessions",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("user_id", Integer, ForeignKey("users.id"), nullable=False),
    Column("token_hash", String(128), unique=True, nullable=False),
    Column("epoch", Integer, nullable=False),
    Column("created_at", DateTime, default=utcnow, nullable=False),
    Column("expires_at", DateTime, nullable=False),
    Column("revoked", Boolean, default=False, nullable=False),
    # The last run that used it (updated at most once a minute): idle sessions end.
    Column("last_seen_at", DateTime),
)


source_sentences = Table(
    "source_sentences",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("project_id", Integer, ForeignKey("projects.id"), nullable=False),
    Column("domain", String(40), nullable=False),
    Column("split", String(10), nullable=False),
    Column("sentence_id", String(100), nullable=False),
    Column("text", Text, nullable=False),
    Column("ordinal", Integer, default=0, nullable=False),
    # Review flags from import (e.g. "leading-nbsp", "duplicate-text").
    Column("flags", JSON, default=list, nullable=False),
    Column("created_at", DateTime, default=utcnow, nullable=False),
    UniqueConstraint("project_id", "domain", "split", "sentence_id", name="uq_source_sentences_identity"),
    CheckConstraint("split IN ('train', 'test', 'dev')", name="split_known"),
    Index("ix_source_sentences_project_order", "project_id", "domain", "split", "ordinal"),
)


aspect_terms = Table(
    "aspect_terms",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("sentence_id", Integer, ForeignKey("source_sentences.id"), nullable=False),
    Column("position", Integer, nullable=False),
    Column("term", Text, nullable=False),
    Column("start", Integer, nullable=False),
    Column("end", Integer, nullable=False),
    Column("polarity", String(20)),
    Column("flags", JSON, default=list, nullable=False),
    UniqueConstraint("sentence_id", "position", name="uq_aspect_terms_position"),
    CheckConstraint("start >= 0 AND start < \"end\"", name="span_ordered"),
    CheckConstraint(
        "polarity IS NULL OR polarity IN ('positive', 'negative', 'neutral', 'conflict')",
        name="polarity_known",
    ),
)


aspect_categories = Table(
    "aspect_categories",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("sentence_id", Integer, ForeignKey("source_sentences.id"), nullable=False),
    Column("position", Integer, nullable=False),
    Column("category", String(100), nullable=False),
    Column("polarity", String(20)),
    UniqueConstraint("sentence_id", "position", name="uq_aspect_categories_position"),
)


translation_assignments = Table(
    "translation_assignments",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("user_id", Integer, ForeignKey("users.id"), nullable=False),
    Column("sentence_id", Integer, ForeignKey("source_sentences.id"), nullable=False),
    Column("phase", String(10), nullable=False),
    # assigned -> draft -> submitted; skipped; reassigned (moved away from a deactivated user).
    Column("status", String(20), default=Status.ASSIGNED, nullable=False),
    Column("assigned_by", Integer, ForeignKey("users.id")),
    Column("created_at", DateTime, default=utcnow, nullable=False),
    Column("updated_at", DateTime, default=utcnow, onupdate=utcnow, nullable=False),
    UniqueConstraint("user_id", "sentence_id", "phase", name="uq_translation_assignments_task"),
    CheckConstraint(PHASE_CHECK, name="phase_known"),
    CheckConstraint(
        check_in("status", Status), name="status_known"
    ),
    Index("ix_translation_assignments_queue", "user_id", "status"),
)


translations = Table(
    "translations",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("sentence_id", Integer, ForeignKey("source_sentences.id"), nullable=False),
    Column("phase", String(10), nullable=False),
    Column("translator_id", Integer, ForeignKey("users.id"), nullable=False),
    Column("text", Text),
    Column("untranslatable", Boolean, default=False, nullable=False),  # not-vocabulary: a column's name
    Column("untranslatable_reason", String(40)),
    Column("untranslatable_note", Text),
    Column("status", String(20), default=Status.DRAFT, nullable=False),
    Column("time_spent_s", Float, default=0.0, nullable=False),
    Column("guidelines_version", String(40)),
    Column("version", Integer, nullable=False, default=1),
    Column("created_at", DateTime, default=utcnow, nullable=False),
    Column("updated_at", DateTime, default=utcnow, onupdate=utcnow, nullable=False),
    Column("submitted_at", DateTime),
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


aspect_alignments = Table(
    "aspect_alignments",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("translation_id", Integer, ForeignKey("translations.id"), nullable=False),
    Column("aspect_term_id", Integer, ForeignKey("aspect_terms.id"), nullable=False),
    Column("start", Integer),
    Column("end", Integer),
    Column("dropped", Boolean, default=False, nullable=False),
    Column("drop_reason", Text),
    UniqueConstraint("translation_id", "aspect_term_id", name="uq_aspect_alignments_link"),
    CheckConstraint(
        "(dropped AND start IS NULL AND \"end\" IS NULL) OR "
        "(NOT dropped AND start IS NOT NULL AND \"end\" IS NOT NULL AND start >= 0 AND start < \"end\")",
        name="span_or_dropped",
    ),
)


tagging_items = Table(
    "tagging_items",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("translation_id", Integer, ForeignKey("translations.id"), unique=True, nullable=False),
    Column("tokens", JSON, nullable=False),
    Column("tokenizer", String(40), nullable=False),
    Column("translation_version", Integer, nullable=False),
    Column("created_at", DateTime, default=utcnow, nullable=False),
)


annotation_assignments = Table(
    "annotation_assignments",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("user_id", Integer, ForeignKey("users.id"), nullable=False),
    Column("translation_id", Integer, ForeignKey("translations.id"), nullable=False),
    Column("status", String(20), default=Status.ASSIGNED, nullable=False),
    Column("assigned_by", Integer, ForeignKey("users.id")),
    Column("created_at", DateTime, default=utcnow, nullable=False),
    Column("updated_at", DateTime, default=utcnow, onupdate=utcnow, nullable=False),
    UniqueConstraint("user_id", "translation_id", name="uq_annotation_assignments_task"),
    CheckConstraint(
        check_in("status", Status), name="status_known"
    ),
    Index("ix_annotation_assignments_queue", "user_id", "status"),
    Index("ix_annotation_assignments_translation", "translation_id", "status", "user_id"),  # the gold reader
    Index("ix_annotation_assignments_updated", "updated_at"),
)


annotations = Table(
    "annotations",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("item_id", Integer, ForeignKey("tagging_items.id"), nullable=False),
    Column("annotator_id", Integer, ForeignKey("users.id"), nullable=False),
    Column("tags", JSON, nullable=False),
    # "No aspects in this sentence" is an explicit answer, distinct from an untouched draft.
    Column("no_aspects", Boolean, default=False, nullable=False),
    Column("status", String(20), default=Status.DRAFT, nullable=False),
    Column("time_spent_s", Float, default=0.0, nullable=False),
    Column("version", Integer, nullable=False, default=1),
    Column("created_at", DateTime, default=utcnow, nullable=False),
    Column("updated_at", DateTime, default=utcnow, onupdate=utcnow, nullable=False),
    Column("submitted_at", DateTime),
    UniqueConstraint("item_id", "annotator_id", name="uq_annotations_task"),
    CheckConstraint(check_in("status", RECORD_STATUSES), name="status_known"),
    Index("ix_annotations_updated", "updated_at", "version"),  # the figures' fingerprint and recent rows
)


adjudications = Table(
    "adjudications",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("item_id", Integer, ForeignKey("tagging_items.id"), nullable=False),
    # SQL NULL (not JSON null) only for a withdrawal, which leaves the item without gold.
    Column("tags", JSON(none_as_null=True), nullable=True),
    # corpus.gold.SOURCES: "agreed"/"single" (automatic), "accepted"/"edited" (a lead), "withdrawn".
    Column("source", String(20), nullable=False),
    Column("accepted_annotation_id", Integer, ForeignKey("annotations.id")),
    Column("decided_by", Integer, ForeignKey("users.id")),
    Column("note", Text),
    Column("created_at", DateTime, default=utcnow, nullable=False),
    CheckConstraint(check_in("source", GoldSource), name="source_known"),
    CheckConstraint("(source = 'withdrawn') = (tags IS NULL)", name="tags_unless_withdrawn"),
    Index("ix_adjudications_item", "item_id", "id"),
)


final_choices = Table(
    "final_choices",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("sentence_id", Integer, ForeignKey("source_sentences.id"), nullable=False),
    Column("translation_id", Integer, ForeignKey("translations.id")),
    Column("auto_translation_id", Integer, ForeignKey("translations.id")),
    Column("overridden", Boolean, default=False, nullable=False),
    Column("policy", String(40), nullable=False),
    Column("chosen_by", Integer, ForeignKey("users.id")),
    Column("note", Text),
    Column("created_at", DateTime, default=utcnow, nullable=False),
    Index("ix_final_choices_sentence", "sentence_id", "id"),
)


revisions = Table(
    "revisions",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("entity", String(20), nullable=False),
    Column("entity_id", Integer, nullable=False),
    Column("version", Integer, nullable=False),
    Column("author_id", Integer, ForeignKey("users.id")),
    # "autosave", "save", "submit", "import", "adjudicate", ...
    Column("action", String(20), nullable=False),
    Column("payload", JSON, nullable=False),
    Column("created_at", DateTime, default=utcnow, nullable=False),
    CheckConstraint(
        "entity IN ('translation', 'annotation', 'adjudication', 'final_choice')", name="entity_known"
    ),
    Index("ix_revisions_entity", "entity", "entity_id", "id"),
)


reopen_requests = Table(
    "reopen_requests",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("kind", String(20), nullable=False),
    Column("record_id", Integer, nullable=False),
    Column("worker_id", Integer, ForeignKey("users.id"), nullable=False),
    Column("request_reason", Text),
    Column("requested_at", DateTime),
    Column("state", String(20), default=RequestState.PENDING, nullable=False),
    Column("answered_by", Integer, ForeignKey("users.id")),
    Column("answer_reason", Text),
    Column("answered_at", DateTime),
    # The record's version the reopening wrote (its "reopen" revision); NULL unless reopened.
    Column("record_version", Integer),
    Column("version", Integer, nullable=False, default=1),
    Column("created_at", DateTime, default=utcnow, nullable=False),
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


glossary_terms = Table(
    "glossary_terms",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("project_id", Integer, ForeignKey("projects.id"), nullable=False),
    Column("english", String(200), nullable=False),
    Column("hindi", String(200), nullable=False),
    # "transliterate" (Devanagari) or "keep-roman" (proper noun).
    Column("rule", String(20), default="transliterate", nullable=False),
    Column("created_by", Integer, ForeignKey("users.id")),
    Column("created_at", DateTime, default=utcnow, nullable=False),
    UniqueConstraint("project_id", "english", name="uq_glossary_terms_english"),
    CheckConstraint("rule IN ('transliterate', 'keep-roman')", name="rule_known"),
)


typed_forms = Table(
    "typed_forms",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("project_id", Integer, ForeignKey("projects.id"), nullable=False),
    Column("roman", String(60), nullable=False),
    Column("devanagari", String(120), nullable=False),
    Column("uses", Integer, default=1, nullable=False),
    Column("first_user_id", Integer, ForeignKey("users.id")),
    Column("last_used_at", DateTime, default=utcnow, nullable=False),
    UniqueConstraint("project_id", "roman", "devanagari", name="uq_typed_forms_form"),
    CheckConstraint("uses > 0", name="uses_positive"),
)


audit_events = Table(
    "audit_events",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("actor_id", Integer, ForeignKey("users.id")),
    Column("action", String(40), nullable=False),
    Column("detail", JSON, default=dict, nullable=False),
    Column("created_at", DateTime, default=utcnow, nullable=False),
    Index("ix_audit_events_action_time", "action", "created_at"),
)


login_codes = Table(
    "login_codes",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("user_id", Integer, ForeignKey("users.id"), nullable=False),
    Column("code_hash", String(128), unique=True, nullable=False),
    Column("epoch", Integer, nullable=False),
    Column("created_at", DateTime, default=utcnow, nullable=False),
    Column("expires_at", DateTime, nullable=False),
    Column("used_at", DateTime),
)


leaderboard_entries = Table(
    "leaderboard_entries",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("project_id", Integer, ForeignKey("projects.id"), nullable=False),
    Column("name", String(200), nullable=False),
    # "baseline" (the CRF, first row) or "submission"
    Column("kind", String(20), nullable=False),
    Column("export_version", String(80), nullable=False),
    Column("f1", Float),
    Column("scores", JSON, nullable=False),
    Column("signature", Text, nullable=False),
    Column("submitted_by", Integer, ForeignKey("users.id")),
    Column("created_at", DateTime, default=utcnow, nullable=False),
    CheckConstraint("kind IN ('baseline', 'submission')", name="kind_known"),
    Index("ix_leaderboard_entries_project", "project_id", "export_version"),
)


suggestion_models = Table(
    "suggestion_models",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("project_id", Integer, ForeignKey("projects.id"), unique=True, nullable=False),
    Column("gold_count", Integer, nullable=False),
    Column("signature", Text, nullable=False),
    Column("model", LargeBinary, nullable=False),
    Column("train_seconds", Float, nullable=False),
    Column("trained_at", DateTime, default=utcnow, nullable=False),
    CheckConstraint("gold_count >= 0", name="gold_count_not_negative"),
)
