"""Projection suggestions for a tagging item (``corpus.projection``): what it needs, read in set-based queries.

For an item with no complete aspect map of its own, the English aspects of its sentence, the Hindi every aspect-
aware translator of the same sentence mapped to each (their submitted translations, one query), the project's
glossary and which sources the project has switched on. The projection itself runs after the read, outside any
transaction (the loanword rule asks the transliteration model, which loads once per process, in the background:
no item waits for it).
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from corpus.glossary import GlossaryEntry
from corpus.llm_suggestions import LLM, joined, unfound
from corpus.projection import (
    ALL_SOURCES,
    AWARE,
    CRF,
    GLOSSARY,
    MAP,
    TRANSLITERATION,
    SourceAspect,
    Transliterator,
    aware_renderings,
    project,
)
from corpus.suggestions import KEYS_KEY, confidence_label, SuggestionReport, SuggestionSave, shown_by_source, suggestion_report
from corpus.vocabulary import Phase, Status
from db.engine import reader
from db.llm_suggestions import LlmEndpoint, endpoint_of, llm_spans
from db.models import AspectAlignment, AspectTerm, GlossaryTerm, SourceSentence, TaggingItem, Translation
from db.project_settings import ProjectSettings, settings_in


def projection_sources(settings: ProjectSettings) -> tuple[str, ...]:
    """The projection's sources the project has on (each has its own setting; the CRF's is the model's)."""
    on = {AWARE: settings.suggest_from_aware, GLOSSARY: settings.suggest_from_glossary,
          TRANSLITERATION: settings.suggest_from_transliteration, CRF: settings.model_suggestions}
    return tuple(source for source, enabled in on.items() if enabled)


def map_complete(session: Session, translation_id: int, sentence_id: int) -> bool:
    """True when the translation's own aspect map covers every aspect of its sentence (mapped or dropped)."""
    aspects = session.scalar(select(func.count(AspectTerm.id)).where(AspectTerm.sentence_id == sentence_id)) or 0
    linked = session.scalar(
        select(func.count(AspectAlignment.id))
        .join(AspectTerm, AspectTerm.id == AspectAlignment.aspect_term_id)
        .where(AspectAlignment.translation_id == translation_id, AspectTerm.sentence_id == sentence_id)) or 0
    return linked >= aspects


@dataclass(frozen=True)
class ProjectionInputs:
    """What ``corpus.projection.project`` needs for one item."""

    tokens: tuple[str, ...]
    aspects: tuple[SourceAspect, ...]  # the sentence's aspects the item's own map leaves out
    glossary: tuple[GlossaryEntry, ...]
    sources: tuple[str, ...]
    english: str = ""  # the source sentence, for the local model's question
    llm: LlmEndpoint | None = None  # the project's local model, when it has one


def projection_inputs(session: Session, item_id: int) -> ProjectionInputs | None:
    """The item's tokens and the aspects to project with their aware renderings; None when the item has a
    complete map of its own or nothing to project. Four small queries whatever the sentence's size."""
    row = session.execute(
        select(TaggingItem.tokens, Translation.id, Translation.sentence_id, SourceSentence.project_id,
               SourceSentence.text)
        .join(Translation, Translation.id == TaggingItem.translation_id)
        .join(SourceSentence, SourceSentence.id == Translation.sentence_id)
        .where(TaggingItem.id == item_id)).first()
    if row is None:
        return None
    tokens, translation_id, sentence_id, project_id, english = row
    settings = settings_in(session, project_id)
    sources = projection_sources(settings)
    llm = endpoint_of(settings)
    if not sources and llm is None:
        return None
    terms = session.execute(select(AspectTerm.id, AspectTerm.term).where(AspectTerm.sentence_id == sentence_id)
                            .order_by(AspectTerm.position)).all()
    own = set(session.scalars(select(AspectAlignment.aspect_term_id)
                              .where(AspectAlignment.translation_id == translation_id)))
    wanted = [(term_id, term) for term_id, term in terms if term_id not in own]
    if not wanted:
        return None
    renderings: dict[int, list[str]] = defaultdict(list)
    if AWARE in sources:
        for term_id, text, start, end in session.execute(
            select(AspectAlignment.aspect_term_id, Translation.text, AspectAlignment.start, AspectAlignment.end)
            .join(Translation, Translation.id == AspectAlignment.translation_id)
            .where(Translation.sentence_id == sentence_id, Translation.phase == Phase.AWARE,
                   Translation.status == Status.SUBMITTED, Translation.id != translation_id,
                   Translation.text.is_not(None), AspectAlignment.dropped.is_(False))
            .order_by(Translation.id)
        ).all():
            for hindi in aware_renderings(text, [(start, end)]):
                if hindi not in renderings[term_id]:
                    renderings[term_id].append(hindi)
    glossary: tuple[GlossaryEntry, ...] = ()
    if GLOSSARY in sources:
        glossary = tuple(GlossaryEntry(e, h, r) for e, h, r in session.execute(
            select(GlossaryTerm.english, GlossaryTerm.hindi, GlossaryTerm.rule)
            .where(GlossaryTerm.project_id == project_id).order_by(GlossaryTerm.english)).all())
    return ProjectionInputs(tuple(tokens), tuple(SourceAspect(term, tuple(renderings[i])) for i, term in wanted),
                            glossary, sources, english or "", llm)


_model_loading = threading.Lock()


def _load_model_in_background() -> None:
    if not _model_loading.acquire(blocking=False):
        return  # a thread is loading it already

    def load() -> None:
        try:
            from db.typing_model import warm_model

            warm_model()
        finally:
            _model_loading.release()

    threading.Thread(target=load, name="projection-model-load", daemon=True).start()


def _transliterator() -> Transliterator | None:
    """The phonetic model's ``suggest`` once this process has it; until then None, and a thread loads it. The
    model takes seconds to read (many more on a busy machine): an annotator's first item never waits for it,
    it only lacks the loanword rule's suggestions (the items after it have them)."""
    from corpus.romanization import load_model

    if load_model.cache_info().currsize:
        from corpus.transliterate import suggest

        return suggest
    _load_model_in_background()
    return None


def with_projection(engine: Engine, view, transliterate: Transliterator | None = None):
    """``view`` (a ``db.tagging.ItemView``) with the projection's suggestions added to its own map's and in
    place of the CRF's where a rule found the aspect; unchanged when the item's map is complete."""
    from db.suggestion_model import Suggestion

    with Session(reader(engine)) as session:
        inputs = projection_inputs(session, view.item_id)
    if inputs is None or list(inputs.tokens) != list(view.tokens):
        return view
    mapped = [s for s in view.suggestions if s.source == MAP]
    crf = [(*s.span, s.confidence or 0.0) for s in view.suggestions if s.source == CRF]
    if TRANSLITERATION in inputs.sources and transliterate is None:
        transliterate = _transliterator()
    found = project(inputs.tokens, inputs.aspects, glossary=inputs.glossary, transliterate=transliterate,
                    crf=crf, sources=inputs.sources, taken=[s.span for s in mapped])
    projected = [Suggestion(p.span, p.term or confidence_label(p.confidence), p.confidence, p.source) for p in found]
    projected += _from_llm(inputs, view.item_id, [*mapped, *projected])
    return replace(view, suggestions=sorted(mapped + projected, key=lambda s: s.span))


def _from_llm(inputs: ProjectionInputs, item_id: int, shown: Sequence) -> list:
    """The local model's spans for the aspects the rules left unfound (an aspect twice in English and found once
    is asked once more), where no other suggestion is; none while the project has no model."""
    from db.suggestion_model import Suggestion

    if inputs.llm is None:
        return []
    asked = unfound([a.term for a in inputs.aspects], [s.term for s in shown if s.source not in (MAP, CRF)])
    spans = llm_spans(inputs.llm, item_id, inputs.tokens, inputs.english, asked)
    return [Suggestion(s.span, s.term, None, LLM) for s in joined(spans, [x.span for x in shown])]


def shown_records(suggestions: Sequence) -> list[tuple[int, int, str, float | None]]:
    """The suggestions an editor showed, as a save records them: (start, end, source, confidence)."""
    return [(s.span[0], s.span[1], s.source, s.confidence) for s in suggestions]


def suggestion_saves(engine: Engine, project_id: int) -> list[SuggestionSave]:
    """Each submitted annotation's latest submit: what its editor showed, by source, its tags and key count."""
    from db.suggestion_model import latest_submits

    return [SuggestionSave(item_id, shown_by_source(payload), tuple(tags), (payload or {}).get(KEYS_KEY))
            for item_id, payload, tags in latest_submits(engine, project_id)]


def suggestion_figures(engine: Engine, project_id: int) -> SuggestionReport:
    """Precision, recall and acceptance of the suggestions per source against the gold in force, and editor
    keys per item with and without them (``corpus.suggestions.suggestion_report``)."""
    from db.gold import gold_in_force

    saves = suggestion_saves(engine, project_id)
    items = {s.item_id for s in saves if s.shown is not None}
    gold = {i: g.gold.tags for i, g in gold_in_force(engine, project_id, items).items() if g.gold is not None} \
        if items else {}
    return suggestion_report(saves, gold, (*ALL_SOURCES, LLM))
