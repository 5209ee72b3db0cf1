"""The project's method settings, read and changed by the lead (each change is audited).

The one reader of a project's settings: ``load_settings(engine, ...)`` for pages and tools, ``settings_in``
for a service already inside a transaction. Both refuse a missing project with ``ProjectNotFound``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from corpus.assignment import PHASE_GROUP_MODES
from corpus.final_choice import POLICIES
from corpus.llm_suggestions import DEFAULT_TIMEOUT_S, endpoint_problems
from corpus.suggestions import DEFAULT_MIN_GOLD, DEFAULT_RETRAIN_EVERY
from corpus.vocabulary import Role
from db.auth import check_writer
from db.engine import read, transaction
from db.models import AuditEvent, Project

TAGGING_SCOPES = ("all", "best")
#: Settings kept in the ``projects.settings`` JSON rather than in columns (field name -> JSON key).
JSON_SETTINGS = {"model_suggestions": "model_suggestions", "suggest_min_gold": "suggest_min_gold",
                 "suggest_retrain_every": "suggest_retrain_every", "suggest_from_aware": "suggest_from_aware",
                 "suggest_from_glossary": "suggest_from_glossary",
                 "suggest_from_transliteration": "suggest_from_transliteration", "danda": "danda",
                 "llm_base_url": "llm_base_url", "llm_model": "llm_model", "llm_timeout_s": "llm_timeout_s"}
#: The optional local model's settings: text leaves the machine to that address, so only an admin changes them.
LLM_SETTINGS = ("llm_base_url", "llm_model", "llm_timeout_s")
#: The typing scheme that offers candidates as you type (the editor's default); the others are
#: ``corpus.transliterate.SCHEME_KEYS``.
PHONETIC_SCHEME = "phonetic"


@dataclass(frozen=True)
class ProjectSettings:
    name: str
    translators_per_phase: int
    annotators_per_item: int
    phase_groups: str
    tagging_scope: str
    annotators_see_source: bool
    prefill_from_aspect_map: bool
    final_policy: str
    transliteration_scheme: str
    # Model suggestions in the span editor (stored in ``projects.settings``, no column of their own):
    # on/off, the gold items before the first model, and the new gold items between retrainings.
    model_suggestions: bool = True
    suggest_min_gold: int = DEFAULT_MIN_GOLD
    suggest_retrain_every: int = DEFAULT_RETRAIN_EVERY
    # Projection suggestions (``corpus.projection``), one switch per source, also in ``projects.settings``:
    # the aware translators' maps, the glossary, the loanword's transliteration (the CRF's is model_suggestions).
    suggest_from_aware: bool = True
    suggest_from_glossary: bool = True
    suggest_from_transliteration: bool = True
    # The translate editor turns "." or "|" after a word into the danda "।" (also in ``projects.settings``).
    danda: bool = True
    # An optional local model (``corpus.llm_suggestions``; an OpenAI-compatible chat endpoint on the team's own
    # machine) proposes spans too: off while the address is empty. Admin only (``LLM_SETTINGS``).
    llm_base_url: str = ""
    llm_model: str = ""
    llm_timeout_s: float = DEFAULT_TIMEOUT_S


class ProjectNotFound(LookupError, ValueError):
    """No project with that id. A LookupError and a ValueError, so callers that handled either of the
    errors the old readers raised for a missing project still do."""

    def __init__(self, project_id: int | None) -> None:
        self.project_id = project_id
        super().__init__(f"no project with id {project_id}")


def settings_in(session: Session, project_id: int) -> ProjectSettings:
    """The project's settings, read in the caller's transaction (a service that reads and writes in one)."""
    p = session.get(Project, project_id) if project_id is not None else None
    if p is None:
        raise ProjectNotFound(project_id)
    extra = p.settings or {}
    return ProjectSettings(
        p.name, p.translators_per_phase, p.annotators_per_item, p.phase_groups, p.tagging_scope,
        p.annotators_see_source, p.prefill_from_aspect_map, p.final_policy, p.transliteration_scheme,
        bool(extra.get("model_suggestions", True)), int(extra.get("suggest_min_gold", DEFAULT_MIN_GOLD)),
        int(extra.get("suggest_retrain_every", DEFAULT_RETRAIN_EVERY)),
        suggest_from_aware=bool(extra.get("suggest_from_aware", True)),
        suggest_from_glossary=bool(extra.get("suggest_from_glossary", True)),
        suggest_from_transliteration=bool(extra.get("suggest_from_transliteration", True)),
        danda=bool(extra.get("danda", True)),
        llm_base_url=str(extra.get("llm_base_url") or ""), llm_model=str(extra.get("llm_model") or ""),
        llm_timeout_s=_number(extra.get("llm_timeout_s"), DEFAULT_TIMEOUT_S),
    )


def _number(value: Any, default: float) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else default


def load_settings(engine: Engine, project_id: int) -> ProjectSettings:
    """The project's settings, read in a read-only transaction of their own."""
    return read(engine, settings_in, project_id)


def validate(settings: ProjectSettings) -> list[str]:
    from corpus.transliterate import SCHEME_KEYS  # not at import: the schemes load in ~0.1 s of CPU

    problems = []
    if not settings.name.strip():
        problems.append("the project needs a name")
    if settings.translators_per_phase < 1:
        problems.append("at least one translator per phase")
    if settings.annotators_per_item < 1:
        problems.append("at least one annotator per translation")
    if settings.phase_groups not in PHASE_GROUP_MODES:
        problems.append(f"phase groups must be one of {', '.join(PHASE_GROUP_MODES)}")
    if settings.tagging_scope not in TAGGING_SCOPES:
        problems.append(f"tagging scope must be one of {', '.join(TAGGING_SCOPES)}")
    if settings.final_policy not in POLICIES:
        problems.append(f"final policy must be one of {', '.join(POLICIES)}")
    if settings.transliteration_scheme not in (PHONETIC_SCHEME, *SCHEME_KEYS):
        problems.append(f"transliteration scheme must be one of {', '.join((PHONETIC_SCHEME, *SCHEME_KEYS))}")
    if settings.suggest_min_gold < 1:
        problems.append("model suggestions need at least one gold item before the first model")
    if settings.suggest_retrain_every < 1:
        problems.append("retrain the suggestion model after at least one new gold item")
    problems += endpoint_problems(settings.llm_base_url, settings.llm_model, settings.llm_timeout_s)
    return problems


def save_settings(engine: Engine, project_id: int, settings: ProjectSettings, actor_id: int | None) -> dict[str, Any]:
    """Store the settings; returns what changed ({field: [old, new]}). ValueError if invalid."""
    problems = validate(settings)
    if problems:
        raise ValueError("; ".join(problems))
    changed: dict[str, Any] = {}
    with transaction(engine) as session:
        check_writer(session, actor_id, roles=(Role.ADMIN, Role.LEAD))
        p = session.get(Project, project_id)
        if p is None:
            raise ProjectNotFound(project_id)
        extra = dict(p.settings or {})
        current = settings_in(session, project_id)
        for key, json_key in JSON_SETTINGS.items():
            old, value = getattr(current, key), getattr(settings, key)
            if isinstance(value, str):
                value = value.strip()
            if old != value:
                changed[key] = [old, value]
                extra[json_key] = value
        if changed.keys() & set(LLM_SETTINGS):  # where text may leave the machine: the admin's decision
            check_writer(session, actor_id, roles=(Role.ADMIN,))
        if extra != (p.settings or {}):
            p.settings = extra
        for key, value in asdict(settings).items():
            if key in JSON_SETTINGS:
                continue
            if key == "name":
                value = value.strip()
            if getattr(p, key) != value:
                changed[key] = [getattr(p, key), value]
                setattr(p, key, value)
        if changed:
            session.add(AuditEvent(actor_id=actor_id, action="project-settings", detail=changed))
    return changed
