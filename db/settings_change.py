"""The lead's change of the project's method settings: validated, stored, and audited field by field.

Read them through ``db.project_settings``; the optional local model's address is the admin's alone
(``LLM_SETTINGS``: text leaves the machine to it).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from sqlalchemy import Engine

from corpus.assignment import PHASE_GROUP_MODES
from corpus.final_choice import POLICIES
from corpus.llm_suggestions import endpoint_problems
from corpus.vocabulary import Role
from db.access import check_writer
from db.engine import transaction
from db.models import AuditEvent, Project
from db.project_settings import (
    JSON_SETTINGS,
    LLM_SETTINGS,
    PHONETIC_SCHEME,
    TAGGING_SCOPES,
    ProjectNotFound,
    ProjectSettings,
    settings_in,
)


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
