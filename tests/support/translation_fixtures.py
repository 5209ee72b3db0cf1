"""Builders for the translation workspace tests: users, sentences with aspects, assignments."""

from __future__ import annotations

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from db.access import hash_password
from db.auth import start_session
from db.engine import transaction
from db.models import AspectTerm, Project, SourceSentence, TranslationAssignment, User, UserRole

PASSWORD = "correct-horse-1"


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


def set_project(engine: Engine, **values) -> None:
    with transaction(engine) as session:
        project = session.get(Project, project_id(engine))
        for key, value in values.items():
            setattr(project, key, value)


def add_sentence(
    engine: Engine, sid: str, text: str, aspects: tuple[str, ...] | list[str] = (), ordinal: int = 0,
    domain: str = "restaurant", split: str = "train",
) -> int:
    with transaction(engine) as session:
        sentence = SourceSentence(project_id=project_id(engine), domain=domain, split=split,
                                  sentence_id=sid, text=text, ordinal=ordinal)
        session.add(sentence)
        session.flush()
        for i, term in enumerate(aspects):
            start = text.index(term)
            session.add(AspectTerm(sentence_id=sentence.id, position=i, term=term, start=start,
                                   end=start + len(term), polarity="positive"))
        return sentence.id


def assign(engine: Engine, user_id: int, sentence_id: int, phase: str, status: str = "assigned") -> int:
    with transaction(engine) as session:
        row = TranslationAssignment(user_id=user_id, sentence_id=sentence_id, phase=phase, status=status)
        session.add(row)
        session.flush()
        return row.id


def token_for(engine: Engine, user_id: int) -> str:
    return start_session(engine, user_id)
