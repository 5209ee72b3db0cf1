"""Read-side queries that turn database rows into the plain inputs of `corpus/` functions."""

from __future__ import annotations

from typing import NamedTuple

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from corpus.bio import tags_to_spans
from corpus.glossary import GlossaryEntry
from corpus.stats import LabelledSentence, StatInputs, english_labelled
from db.engine import reader
from db.gold import read_gold_in_force
from db.models import (
    AspectTerm,
    FinalChoice,
    GlossaryTerm,
    SourceSentence,
    Translation,
    User,
)
from db.schema import default_project_id


def _latest_final_translations(session: Session, project_id: int) -> dict[int, int | None]:
    """sentence row id → translation id of the final choice in force (None: left out by the lead)."""
    latest = (
        select(func.max(FinalChoice.id))
        .join(SourceSentence, FinalChoice.sentence_id == SourceSentence.id)
        .where(SourceSentence.project_id == project_id)
        .group_by(FinalChoice.sentence_id)
    )
    rows = session.execute(select(FinalChoice.sentence_id, FinalChoice.translation_id).where(FinalChoice.id.in_(latest)))
    return dict(rows.all())


def load_stat_inputs(engine: Engine, project_id: int | None = None,
                     domain: str | None = None, split: str | None = None) -> StatInputs:
    """Table 1's inputs: the English source with its SemEval aspects, and the final translations that have
    gold in force (``db.gold``)."""
    with Session(reader(engine)) as session:
        project_id = project_id or default_project_id(session)
        query = select(SourceSentence.id, SourceSentence.domain, SourceSentence.text).where(
            SourceSentence.project_id == project_id)
        if domain:
            query = query.where(SourceSentence.domain == domain)
        if split:
            query = query.where(SourceSentence.split == split)
        sentences = session.execute(query.order_by(SourceSentence.ordinal)).all()
        spans: dict[int, list[tuple[int, int]]] = {}
        for sid, start, end in session.execute(
            select(AspectTerm.sentence_id, AspectTerm.start, AspectTerm.end)
            .join(SourceSentence, AspectTerm.sentence_id == SourceSentence.id)
            .where(SourceSentence.project_id == project_id)
        ):
            spans.setdefault(sid, []).append((start, end))
        english = [english_labelled(d, text, spans.get(sid, [])) for sid, d, text in sentences]

        domains = {sid: d for sid, d, _ in sentences}
        finals = {s: t for s, t in _latest_final_translations(session, project_id).items()
                  if t is not None and s in domains}
        gold = {g.translation_id: g.gold.tags  # the final translations' items only (db.gold reads them by id)
                for g in read_gold_in_force(session, project_id, translations=set(finals.values())).values()
                if g.gold is not None} if finals else {}  # (no final translation: no gold to read)
        hindi = []
        for sid, tid in finals.items():
            tags = gold.get(tid)
            if tags is not None:
                hindi.append(LabelledSentence(domains[sid], tuple(tags), len(tags_to_spans(tags))))
        return StatInputs(english, hindi)


class FinalTranslation(NamedTuple):
    """The final translation in force for a sentence; ``translation_pk`` None: the lead left it out."""

    sentence_pk: int
    translation_pk: int | None
    phase: str | None = None
    translator: str | None = None
    text: str | None = None


def final_translations(engine: Engine, project_id: int) -> dict[int, FinalTranslation]:
    """sentence row id → its final translation in force, for sentences that have a final choice."""
    with Session(reader(engine)) as session:
        chosen = _latest_final_translations(session, project_id)
        ids = [t for t in chosen.values() if t is not None]
        found: dict[int, tuple] = {}
        for start in range(0, len(ids), 900):
            rows = session.execute(
                select(Translation.id, Translation.phase, User.username, Translation.text)
                .join(User, User.id == Translation.translator_id)
                .where(Translation.id.in_(ids[start:start + 900]))
            )
            found.update((pk, (phase, name, text)) for pk, phase, name, text in rows)
    return {
        s: FinalTranslation(s, t, *found[t]) if t in found else FinalTranslation(s, None)
        for s, t in chosen.items()
    }


def keep_roman_glossary(engine: Engine, project_id: int) -> list[GlossaryEntry]:
    """Glossary terms the team keeps in Roman script (guideline 1): the known named entities."""
    with Session(reader(engine)) as session:
        rows = session.execute(
            select(GlossaryTerm.english, GlossaryTerm.hindi, GlossaryTerm.rule)
            .where(GlossaryTerm.project_id == project_id, GlossaryTerm.rule == "keep-roman")
            .order_by(GlossaryTerm.english)
        )
        return [GlossaryEntry(english, hindi, rule) for english, hindi, rule in rows]
