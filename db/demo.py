"""The demo project: a dozen SemEval-style reviews, Hindi translations in both phases, tags by two
annotators, users for every role, and open tasks so every screen has content at once.

Loading is idempotent: running it twice changes nothing and never overwrites anyone's work. It never
changes an existing account (password, roles): a name the database already has is used as it is.
``python -m corpus init --demo`` refuses a database that already holds work (``holds_work``) unless
``--force-demo`` is given, since the demo accounts' passwords are published in the README.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from corpus.semeval import parse_semeval
from corpus.vocabulary import Phase, Role
from db.access import hash_password
from db.engine import transaction
from db.importing import import_sentences
from db.models import (
    AnnotationAssignment,
    SourceSentence,
    Translation,
    TranslationAssignment,
    User,
    UserRole,
)
from db.workfile import import_work_file

DEMO = Path(__file__).resolve().parent.parent / "corpus" / "demo"

# username, roles, password (printed in the README; demo only; each meets the password policy)
DEMO_USERS = [
    ("admin", (Role.ADMIN, Role.LEAD), "admin-demo-pass"),  # not-vocabulary: a username
    ("lead", (Role.LEAD,), "lead-demo-pass"),  # not-vocabulary: a username
    ("asha", (Role.TRANSLATOR,), "asha-demo-pass"),
    ("ravi", (Role.TRANSLATOR,), "ravi-demo-pass"),
    ("priya", (Role.TRANSLATOR,), "priya-demo-pass"),
    ("meera", (Role.ANNOTATOR,), "meera-demo-pass"),
    ("arjun", (Role.ANNOTATOR,), "arjun-demo-pass"),
]

# Open work: (translator, domain, sentence id, phase)
OPEN_TRANSLATIONS = [
    ("asha", "restaurant", "1634", Phase.BLIND), ("ravi", "restaurant", "1634", Phase.BLIND),
    ("asha", "restaurant", "2210", Phase.BLIND), ("priya", "restaurant", "2210", Phase.BLIND),
    ("asha", "restaurant", "3345", Phase.BLIND), ("priya", "restaurant", "3345", Phase.BLIND),
    ("asha", "laptop", "1777", Phase.BLIND), ("ravi", "laptop", "1777", Phase.BLIND),
    ("priya", "laptop", "892:1", Phase.BLIND), ("ravi", "laptop", "892:1", Phase.BLIND),
    ("priya", "laptop", "812", Phase.BLIND), ("priya", "restaurant", "3121", Phase.AWARE),
]
# Open tagging: (annotator, domain, sentence id, phase, translator)
OPEN_TAGGING = [
    ("meera", "laptop", "2339", Phase.AWARE, "asha"), ("arjun", "laptop", "2339", Phase.AWARE, "asha"),
    ("meera", "laptop", "2339", Phase.AWARE, "ravi"), ("arjun", "laptop", "2339", Phase.AWARE, "ravi"),
    ("meera", "restaurant", "4001", Phase.BLIND, "ravi"), ("arjun", "restaurant", "4001", Phase.BLIND, "ravi"),
]


def holds_work(engine: Engine) -> bool:
    """True when the database has any sentence or any account: a real project the demo must not join."""
    with Session(engine) as session:
        return bool(session.scalar(select(func.count()).select_from(SourceSentence))
                    or session.scalar(select(func.count()).select_from(User)))


def _add_demo_users(engine: Engine) -> None:
    """The demo accounts that do not exist yet (before the work file, which would create them without
    a password); an existing account is never changed."""
    with transaction(engine) as session:
        for username, roles, password in DEMO_USERS:
            if session.scalars(select(User).where(User.username == username)).first() is None:
                session.add(User(username=username, display_name=username.capitalize(),
                                 password_hash=hash_password(password), roles=[UserRole(role=r) for r in roles]))


def load_demo(engine: Engine) -> str:
    _add_demo_users(engine)
    for name, domain in (("demo_restaurants.xml", "restaurant"), ("demo_laptops.xml", "laptop")):
        path = DEMO / name
        records, errors = parse_semeval(path.read_bytes(), str(path), domain, "train")
        assert not errors, errors
        import_sentences(engine, records, source=name)
    import_work_file(engine, (DEMO / "demo_work.jsonl").read_bytes(), "demo_work.jsonl")
    with transaction(engine) as session:
        users = {username: session.scalars(select(User).where(User.username == username)).one()
                 for username, _, _ in DEMO_USERS}
        sentences = {(s.domain, s.sentence_id): s for s in session.scalars(select(SourceSentence))}
        for username, domain, sid, phase in OPEN_TRANSLATIONS:
            sentence = sentences[(domain, sid)]
            exists = session.scalars(select(TranslationAssignment).where(
                TranslationAssignment.user_id == users[username].id, TranslationAssignment.sentence_id == sentence.id,
                TranslationAssignment.phase == phase)).first()
            if exists is None:
                session.add(TranslationAssignment(user_id=users[username].id, sentence_id=sentence.id, phase=phase,
                                                  assigned_by=users["lead"].id))
        for username, domain, sid, phase, translator in OPEN_TAGGING:
            translation = session.scalars(select(Translation).where(
                Translation.sentence_id == sentences[(domain, sid)].id, Translation.phase == phase,
                Translation.translator_id == users[translator].id)).one()
            exists = session.scalars(select(AnnotationAssignment).where(
                AnnotationAssignment.user_id == users[username].id,
                AnnotationAssignment.translation_id == translation.id)).first()
            if exists is None:
                session.add(AnnotationAssignment(user_id=users[username].id, translation_id=translation.id,
                                                 assigned_by=users["lead"].id))
    from db.adjudication import sync_agreed
    from db.disagreement_queue import gold_count
    from db.final_choice import record_auto_choices
    from db.schema import ensure_default_project

    project_id = ensure_default_project(engine)
    sync_agreed(engine, project_id)
    finals = record_auto_choices(engine, project_id)
    _lead_override(engine, users["lead"].id)
    _translator_asks_to_reopen(engine, users["asha"].id)
    with_gold, items = gold_count(engine, project_id)
    return (f"demo project loaded ({with_gold} of {items} tagged items have gold labels, {finals} final translations "
            "picked automatically, one overridden by the lead, one reopen request waiting): users "
            + ", ".join(u for u, _, _ in DEMO_USERS))


def _translator_asks_to_reopen(engine: Engine, translator_id: int) -> None:
    """One pending reopen request, so Home and the Reopen requests page show one: asha wants to replace
    the dated 'बैरा' in her submitted aspect-blind translation of restaurant 1102."""
    from corpus.reopen import WorkKind
    from corpus.vocabulary import Phase
    from db.models import ReopenRequest
    from db.reopen import request_reopen

    with transaction(engine) as session:
        sentence = session.scalars(select(SourceSentence).where(
            SourceSentence.domain == "restaurant", SourceSentence.sentence_id == "1102")).one()
        translation_id = session.scalars(select(Translation.id).where(
            Translation.sentence_id == sentence.id, Translation.phase == Phase.BLIND,
            Translation.translator_id == translator_id)).one()
        if session.scalars(select(ReopenRequest.id).where(
                ReopenRequest.kind == WorkKind.TRANSLATION, ReopenRequest.record_id == translation_id)).first():
            return  # asked already (the demo is loaded again)
    request_reopen(engine, translator_id, WorkKind.TRANSLATION, translation_id,
                   "'बैरा' sounds dated; may I write 'वेटर' as in my aspect-aware translation?")


def _lead_override(engine: Engine, lead_id: int) -> None:
    """One lead decision, so the Final translations page shows an override: on laptop 2339 the two aware
    translations tie on ROUGE-L and aspects kept, and the lead prefers ravi's wording."""
    from sqlalchemy import func

    from db.final_choice import choose
    from db.models import FinalChoice

    with transaction(engine) as session:
        sentence = session.scalars(select(SourceSentence).where(
            SourceSentence.domain == "laptop", SourceSentence.sentence_id == "2339")).one()
        if session.scalar(select(func.count()).select_from(FinalChoice).where(
                FinalChoice.sentence_id == sentence.id, FinalChoice.chosen_by.is_not(None))):
            return  # a lead has decided already (the demo is loaded again)
        ravi = session.scalars(select(Translation).join(User, User.id == Translation.translator_id).where(
            Translation.sentence_id == sentence.id, Translation.phase == Phase.AWARE, User.username == "ravi")).one()
        in_force = session.scalar(select(func.max(FinalChoice.id)).where(FinalChoice.sentence_id == sentence.id))
        sentence_pk, ravi_pk = sentence.id, ravi.id
    choose(engine, sentence_pk, ravi_pk, lead_id, expected=in_force,
           note="Both keep every aspect; ravi's 'के कारण … नहीं रखता' reads more naturally.")
