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
from corpus.transliterate import SCHEME_KEYS
from db.engine import read, transaction
from db.models import AuditEvent, Project

TAGGING_SCOPES = ("all", "best")


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
    return ProjectSettings(
        p.name, p.translators_per_phase, p.annotators_per_item, p.phase_groups, p.tagging_scope,
        p.annotators_see_source, p.prefill_from_aspect_map, p.final_policy, p.transliteration_scheme,
    )


def load_settings(engine: Engine, project_id: int) -> ProjectSettings:
    """The project's settings, read in a read-only transaction of their own."""
    return read(engine, settings_in, project_id)


def validate(settings: ProjectSettings) -> list[str]:
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
    if settings.transliteration_scheme not in SCHEME_KEYS:
        problems.append(f"transliteration scheme must be one of {', '.join(SCHEME_KEYS)}")
    return problems


def save_settings(engine: Engine, project_id: int, settings: ProjectSettings, actor_id: int | None) -> dict[str, Any]:
    """Store the settings; returns what changed ({field: [old, new]}). ValueError if invalid."""
    problems = validate(settings)
    if problems:
        raise ValueError("; ".join(problems))
    changed: dict[str, Any] = {}
    with transaction(engine) as session:
        p = session.get(Project, project_id)
        if p is None:
            raise ProjectNotFound(project_id)
        for key, value in asdict(settings).items():
            if key == "name":
                value = value.strip()
            if getattr(p, key) != value:
                changed[key] = [getattr(p, key), value]
                setattr(p, key, value)
        if changed:
            session.add(AuditEvent(actor_id=actor_id, action="project-settings", detail=changed))
    return changed
