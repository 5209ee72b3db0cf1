"""Read-side queries that turn database rows into the plain inputs of `corpus/` functions.

Core statements on the tables (``db.tables``) in a read-only connection: ``python -m corpus stats`` of a corpus
without final translations imports neither SQLAlchemy's ORM nor the models; the gold of the final
translations is read by ``db.gold``, imported only when there are some.
"""

from __future__ import annotations

from typing import NamedTuple

from sqlalchemy import Connection, Engine, func, select

from corpus.bio import tags_to_spans
from corpus.glossary import GlossaryEntry
from corpus.stats import LabelledSentence, StatInputs, english_labelled
from db.engine import reader
from db.schema import default_project_id
from db.tables import aspect_terms, final_choices, glossary_terms, source_sentences, translations, users


def _latest_final_translations(connection: Connection, project_id: int) -> dict[int, int | None]:
    """sentence row id → translation id of the final choice in force (None: left out by the lead)."""
    choice, sentence = final_choices.c, source_sentences.c
    latest = (
        select(func.max(choice.id))
        .join(source_sentences, choice.sentence_id == sentence.id)
        .where(sentence.project_id == project_id)
        .group_by(choice.sentence_id)
    )
    rows = connection.execute(select(choice.sentence_id, choice.translation_id).where(choice.id.in_(latest)))
    return dict(rows.all())


def load_stat_inputs(engine: Engine, project_id: int | None = None,
                     domain: str | None = None, split: str | None = None) -> StatInputs:
    """Table 1's inputs: the English source with its SemEval aspects, and the final translations that have
    gold in force (``db.gold``)."""
    sentence, term = source_sentences.c, aspect_terms.c
    with reader(engine).connect() as connection:
        project_id = project_id or default_project_id(connection)
        query = select(sentence.id, sentence.domain, sentence.text).where(sentence.project_id == project_id)
        if domain:
            query = query.where(sentence.domain == domain)
        if split:
            query = query.where(sentence.split == split)
        sentences = connection.execute(query.order_by(sentence.ordinal)).all()
        spans: dict[int, list[tuple[int, int]]] = {}
        for sid, start, end in connection.execute(
            select(term.sentence_id, term.start, term.end)
            .join(source_sentences, term.sentence_id == sentence.id)
            .where(sentence.project_id == project_id)
        ):
            spans.setdefault(sid, []).append((start, end))
        english = [english_labelled(d, text, spans.get(sid, [])) for sid, d, text in sentences]

        domains = {sid: d for sid, d, _ in sentences}
        finals = {s: t for s, t in _latest_final_translations(connection, project_id).items()
                  if t is not None and s in domains}
        gold = _final_gold(connection, project_id, set(finals.values())) if finals else {}
        hindi = []
        for sid, tid in finals.items():
            tags = gold.get(tid)
            if tags is not None:
                hindi.append(LabelledSentence(domains[sid], tuple(tags), len(tags_to_spans(tags))))
        return StatInputs(english, hindi)


def _final_gold(connection: Connection, project_id: int, final: set[int]) -> dict[int, list[str]]:
    """translation id → its gold tags, for the final translations whose item has gold in force (``db.gold``,
    reading the final translations' items only, in the caller's transaction)."""
    from sqlalchemy.orm import Session

    from db.gold import read_gold_in_force

    with Session(bind=connection) as session:
        return {g.translation_id: g.gold.tags
                for g in read_gold_in_force(session, project_id, translations=final).values() if g.gold is not None}


class FinalTranslation(NamedTuple):
    """The final translation in force for a sentence; ``translation_pk`` None: the lead left it out."""

    sentence_pk: int
    translation_pk: int | None
    phase: str | None = None
    translator: str | None = None
    text: str | None = None


def final_translations(engine: Engine, project_id: int) -> dict[int, FinalTranslation]:
    """sentence row id → its final translation in force, for sentences that have a final choice."""
    tr, u = translations.c, users.c
    with reader(engine).connect() as connection:
        chosen = _latest_final_translations(connection, project_id)
        ids = [t for t in chosen.values() if t is not None]
        found: dict[int, tuple] = {}
        for start in range(0, len(ids), 900):
            rows = connection.execute(
                select(tr.id, tr.phase, u.username, tr.text)
                .join(users, u.id == tr.translator_id)
                .where(tr.id.in_(ids[start:start + 900]))
            )
            found.update((pk, (phase, name, text)) for pk, phase, name, text in rows)
    return {
        s: FinalTranslation(s, t, *found[t]) if t in found else FinalTranslation(s, None)
        for s, t in chosen.items()
    }


def keep_roman_glossary(engine: Engine, project_id: int) -> list[GlossaryEntry]:
    """Glossary terms the team keeps in Roman script (guideline 1): the known named entities."""
    g = glossary_terms.c
    with reader(engine).connect() as connection:
        rows = connection.execute(
            select(g.english, g.hindi, g.rule)
            .where(g.project_id == project_id, g.rule == "keep-roman")
            .order_by(g.english)
        )
        return [GlossaryEntry(english, hindi, rule) for english, hindi, rule in rows]
