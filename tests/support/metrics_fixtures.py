"""A small project with hand-checked agreement figures, written through the ORM (SQLite and PostgreSQL).

Sentence r1 "But the staff was so horrible" (6 source words, aspect "staff"):
  aware  asha  "स्टाफ़ बुरा था"        (3 words; aspect map keeps "staff")
         bilal "स्टाफ़ बहुत बुरा था।"   (4 words; aspect map keeps "staff")
         chitra "खाना अच्छा था"        (3 words; aspect map drops "staff")
    pairs: asha-bilal 6/7, asha-chitra 1/3, bilal-chitra 2/7; unit mean 31/63;
    best asha (mean 25/42); weight 6 + 10/3, best weight 6 + 3.
  blind  asha  "खाना अच्छा था"  and  bilal "खाना अच्छा था" (identical, F = 1);
    tagged by meera and nikhil with no aspect span: coverage r1 lost its aspect.
Sentence r2 "Good food" (2 words, no aspect): aware asha "अच्छा खाना", chitra untranslatable -> unit excluded.
Drafts (a translation, an annotation) must never count.
Tags on r1 aware/asha: meera O B I -> "OBO"... see TAGS below; Fleiss and Cohen are computed in the tests.
"""

from __future__ import annotations

from datetime import datetime
from fractions import Fraction

from sqlalchemy import select
from sqlalchemy.orm import Session

from corpus.tokens import TOKENIZER_SIGNATURE, tokenize
from db.models import (
    Annotation,
    AspectAlignment,
    AspectTerm,
    Project,
    SourceSentence,
    TaggingItem,
    Translation,
    User,
    UserRole,
)

MONDAY = datetime(2026, 3, 2, 10, 0)  # a Monday
NEXT_WEEK = datetime(2026, 3, 9, 10, 0)

# translation (sentence, phase, translator) -> annotator -> tags (tokens are the canonical ones)
TAGS = {
    ("r1", "aware", "asha"): {"meera": "BOO", "nikhil": "BOO"},
    ("r1", "aware", "bilal"): {"meera": "BOOOO", "nikhil": "BIOOO"},
    ("r1", "blind", "asha"): {"meera": "OOO", "nikhil": "OOO"},
    ("r1", "blind", "bilal"): {"meera": "OOO", "nikhil": "OOO"},
}

F_ASHA_BILAL = Fraction(6, 7)
F_ASHA_CHITRA = Fraction(1, 3)
F_BILAL_CHITRA = Fraction(2, 7)
AWARE_MEAN = Fraction(31, 63)
AWARE_WEIGHT = 6 + Fraction(10, 3)
BLIND_WEIGHT = 6 + 3
AWARE_BEST = Fraction(25, 42)
AWARE_BEST_WEIGHT = 6 + 3
BLIND_BEST_WEIGHT = 6 + 3


def expected_rouge() -> dict:
    aware, blind = AWARE_MEAN, Fraction(1)
    return {
        "aware": float(aware),
        "blind": 1.0,
        "overall": float((aware * AWARE_WEIGHT + blind * BLIND_WEIGHT) / (AWARE_WEIGHT + BLIND_WEIGHT)),
        "best": float((AWARE_BEST * AWARE_BEST_WEIGHT + 1 * BLIND_BEST_WEIGHT) / (AWARE_BEST_WEIGHT + BLIND_BEST_WEIGHT)),
        "unweighted_overall": float((aware + blind) / 2),
    }


def _user(session: Session, name: str, role: str) -> User:
    user = User(username=name, display_name=name, roles=[UserRole(role=role)])
    session.add(user)
    session.flush()
    return user


def build_small_project(engine, domain_r2: str = "restaurant") -> int:
    """Write the project described above; returns the project id."""
    with Session(engine) as session:
        project = session.scalars(select(Project).order_by(Project.id)).first()
        project.annotators_per_item = 2
        people = {n: _user(session, n, "translator") for n in ("asha", "bilal", "chitra")}
        people |= {n: _user(session, n, "annotator") for n in ("meera", "nikhil")}
        r1 = SourceSentence(project_id=project.id, domain="restaurant", split="train", sentence_id="r1",
                            text="But the staff was so horrible", ordinal=1)
        r2 = SourceSentence(project_id=project.id, domain=domain_r2, split="test", sentence_id="r2",
                            text="Good food", ordinal=2)
        session.add_all([r1, r2])
        session.flush()
        staff = AspectTerm(sentence_id=r1.id, position=0, term="staff", start=8, end=13, polarity="negative")
        session.add(staff)
        session.flush()

        def translation(sentence, phase, who, text, when=MONDAY, status="submitted", untranslatable=False):
            t = Translation(sentence_id=sentence.id, phase=phase, translator_id=people[who].id, text=text,
                            untranslatable=untranslatable, untranslatable_reason="idiom" if untranslatable else None,
                            status=status, submitted_at=when if status == "submitted" else None)
            session.add(t)
            session.flush()
            return t

        made = {
            ("r1", "aware", "asha"): translation(r1, "aware", "asha", "स्टाफ़ बुरा था"),
            ("r1", "aware", "bilal"): translation(r1, "aware", "bilal", "स्टाफ़ बहुत बुरा था।", NEXT_WEEK),
            ("r1", "aware", "chitra"): translation(r1, "aware", "chitra", "खाना अच्छा था"),
            ("r1", "blind", "asha"): translation(r1, "blind", "asha", "खाना अच्छा था"),
            ("r1", "blind", "bilal"): translation(r1, "blind", "bilal", "खाना अच्छा था"),
            ("r1", "blind", "chitra"): translation(r1, "blind", "chitra", "बिलकुल अलग शब्द", status="draft"),
            ("r2", "aware", "asha"): translation(r2, "aware", "asha", "अच्छा खाना"),
            ("r2", "aware", "chitra"): translation(r2, "aware", "chitra", None, untranslatable=True),
        }
        for who, start, end in (("asha", 0, 6), ("bilal", 0, 6)):
            session.add(AspectAlignment(translation_id=made[("r1", "aware", who)].id, aspect_term_id=staff.id,
                                        start=start, end=end, dropped=False))
        session.add(AspectAlignment(translation_id=made[("r1", "aware", "chitra")].id, aspect_term_id=staff.id,
                                    dropped=True, drop_reason="lost"))
        for key, by_annotator in TAGS.items():
            t = made[key]
            item = TaggingItem(translation_id=t.id, tokens=tokenize(t.text), tokenizer=TOKENIZER_SIGNATURE,
                               translation_version=1)
            session.add(item)
            session.flush()
            for name, tags in by_annotator.items():
                session.add(Annotation(item_id=item.id, annotator_id=people[name].id, tags=list(tags),
                                       status="submitted", submitted_at=MONDAY))
        # A draft annotation on chitra's aware translation: must not count anywhere.
        item = TaggingItem(translation_id=made[("r1", "aware", "chitra")].id, tokens=tokenize("खाना अच्छा था"),
                           tokenizer=TOKENIZER_SIGNATURE, translation_version=1)
        session.add(item)
        session.flush()
        session.add(Annotation(item_id=item.id, annotator_id=people["meera"].id, tags=["B", "I", "I"], status="draft"))
        session.commit()
        return project.id
