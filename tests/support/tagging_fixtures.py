"""Small builders for the tagging, adjudication and final-choice tests (rows made directly via the ORM)."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from db.auth import hash_password
from db.engine import transaction
from db.models import AspectAlignment, AspectTerm, Project, SourceSentence, Translation, User, UserRole

PASSWORD = "correct-horse-1"
T0 = datetime(2026, 1, 1, 12, 0, 0)


def add_user(engine: Engine, username: str, *roles: str, password: str | None = PASSWORD) -> int:
    with transaction(engine) as session:
        user = User(username=username, display_name=username,
                    password_hash=hash_password(password) if password else None,
                    roles=[UserRole(role=r) for r in roles])
        session.add(user)
        session.flush()
        return user.id


def project_id(engine: Engine) -> int:
    with Session(engine) as session:
        return session.scalars(select(Project.id).order_by(Project.id)).first()


def set_project(engine: Engine, **settings) -> None:
    with transaction(engine) as session:
        project = session.get(Project, project_id(engine))
        for key, value in settings.items():
            setattr(project, key, value)


def add_sentence(engine: Engine, sid: str, text: str, aspects: list[str] = (), ordinal: int = 0) -> int:
    with transaction(engine) as session:
        sentence = SourceSentence(project_id=project_id(engine), domain="restaurant", split="train",
                                  sentence_id=sid, text=text, ordinal=ordinal)
        session.add(sentence)
        session.flush()
        for i, term in enumerate(aspects):
            start = text.index(term)
            session.add(AspectTerm(sentence_id=sentence.id, position=i, term=term, start=start,
                                   end=start + len(term), polarity="positive"))
        return sentence.id


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
