"""The project's method settings, read (the lead changes them through ``db.settings_change``).

The one reader of a project's settings: ``load_settings(engine, ...)`` for pages and tools, ``settings_in``
for a service already inside a transaction. Both refuse a missing project with ``ProjectNotFound``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from corpus.llm_suggestions import DEFAULT_TIMEOUT_S
from corpus.suggestions import DEFAULT_MIN_GOLD, DEFAULT_RETRAIN_EVERY
from db.engine import read
from db.models import Project

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
