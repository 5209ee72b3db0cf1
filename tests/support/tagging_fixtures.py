"""Small builders for the tagging, adjudication and final-choice tests (rows made directly via the ORM).

People, the project and sentences come from ``translation_fixtures``: one builder each.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import Engine, select

from db.engine import transaction
from db.models import AspectAlignment, AspectTerm, Translation
from tests.support.translation_fixtures import (
    PASSWORD,
    add_sentence,
    add_user,
    project_id,
    set_project,
)

__all__ = ["PASSWORD", "T0", "add_sentence", "add_translation", "add_user", "project_id", "set_project"]

T0 = datetime(2026, 1, 1, 12, 0, 0)


def add_translation(
    engine: Engine, sentence_id: int, phase: str, translator_id: int, text: str | None,
    untranslatable: bool = False, aspect_map: dict[str, str | None] | None = None, minutes: int = 0,
) -> int:
    """A submitted translation; ``aspect_map`` maps an English term to the Hindi words rendering it (None: dropped)."""
    with transaction(engine) as session:
        t = Translation(sentence_id=sentence_id, phase=phase, translator_id=translator_id, text=text,
                        untranslatable=untranslatable, untranslatable_reason="idiom" if untranslatable else None,
                        status="submitted", submitted_at=T0 + timedelta(minutes=minutes))
        session.add(t)
        session.flush()
        for english, hindi in (aspect_map or {}).items():
            term = session.scalars(select(AspectTerm).where(AspectTerm.sentence_id == sentence_id,
                                                            AspectTerm.term == english)).one()
            if hindi is None:
                session.add(AspectAlignment(translation_id=t.id, aspect_term_id=term.id, dropped=True,
                                            drop_reason="no Hindi word"))
            else:
                start = text.index(hindi)
                session.add(AspectAlignment(translation_id=t.id, aspect_term_id=term.id, start=start,
                                            end=start + len(hindi)))
        return t.id


def change_settings(engine: Engine, **changes) -> None:
    """The project's settings with ``changes`` (field=value), saved as the command line would (no page writer)."""
    from dataclasses import replace

    from db.project_settings import load_settings
    from db.settings_change import save_settings

    pid = project_id(engine)
    save_settings(engine, pid, replace(load_settings(engine, pid), **changes), None)
