"""Read side of the lead's sentence view: one sentence with every translation, every annotator's tags and the
gold in force, in one read-only transaction, as plain dataclasses.

The figures and decisions come from their one home: each translation's mean ROUGE-L and the automatic pick
from ``db.final_choice`` (``corpus.final_choice``), gold from ``db.gold`` (``corpus.gold.in_force``), which
translation the others are compared with from ``corpus.sentence_view.kept_translation``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from corpus.final_choice import Candidate, choose_final
from corpus.records import PHASES
from corpus.sentence_view import MAX_ROW_ID, Kept, annotators_disagree, kept_translation, neighbours, not_started
from corpus.vocabulary import Status
from db.engine import read
from db.final_candidates import candidates_by_sentence, final_choices_in_force, policy_in
from db.gold import read_gold_in_force
from db.models import Annotation, SourceSentence, TaggingItem, Translation, TranslationAssignment, User


@dataclass(frozen=True)
class Aspect:
    term: str
    start: int
    end: int
    polarity: str | None


@dataclass(frozen=True)
class TranslationRow:
    translation_id: int
    phase: str
    translator: str
    text: str | None
    status: str
    untranslatable: bool
    reason: str | None
    note: str | None
    version: int
    submitted_at: datetime | None
    mean_rouge_l: float | None  # against the other submitted translations of its phase; None: nothing to compare


@dataclass(frozen=True)
class AnnotatorTags:
    annotation_id: int
    annotator: str
    status: str
    tags: list[str]
    no_aspects: bool
    version: int


@dataclass(frozen=True)
class ItemTags:
    """A tagging item of the sentence (one translation's frozen tokens), every annotator's tags on it and
    its gold in force (``gold_tags`` None: no gold)."""

    item_id: int
    translation_id: int
    phase: str
    translator: str
    tokens: list[str]
    annotations: list[AnnotatorTags]
    gold_source: str | None
    gold_tags: list[str] | None
    awaited: int  # active assignees who have not submitted yet

    @property
    def disagree(self) -> bool:
        return annotators_disagree([a.tags for a in self.annotations if a.status == Status.SUBMITTED])


@dataclass(frozen=True)
class SentenceDetail:
    row_id: int
    domain: str
    split: str
    sentence_id: str  # the SemEval id
    text: str
    aspects: list[Aspect]
    categories: list[tuple[str, str | None]]
    translations: list[TranslationRow]  # aware first, then blind; by translator within a phase
    kept: Kept | None
    items: list[ItemTags]
    previous_id: int | None
    next_id: int | None
    not_started: list[tuple[str, str, str]]  # open tasks with nothing saved: (phase, translator, task status)

    @property
    def key(self) -> str:
        return f"{self.domain}/{self.split}/{self.sentence_id}"

    @property
    def has_submitted(self) -> bool:
        """A translation was handed in (translated or marked untranslatable): there is a final choice to make."""
        return any(t.status == Status.SUBMITTED for t in self.translations)

    @property
    def kept_row(self) -> TranslationRow | None:
        if self.kept is None:
            return None
        return next((t for t in self.translations if t.translation_id == self.kept.translation_id), None)


def sentence_detail(engine: Engine, row_id: int, project_id: int) -> SentenceDetail | None:
    """The sentence with row id ``row_id`` in the project, or None when the project has no such sentence."""
    if not 0 < row_id <= MAX_ROW_ID:
        return None
    return read(engine, _detail, row_id, project_id)


def _corpus_order(session: Session, project_id: int) -> list[int]:
    """The project's sentence ids in the browser's order (domain, split, position in the file)."""
    return list(session.scalars(
        select(SourceSentence.id).where(SourceSentence.project_id == project_id)
        .order_by(SourceSentence.domain, SourceSentence.split, SourceSentence.ordinal, SourceSentence.id)
    ))


def _kept(session: Session, sentence: SourceSentence, candidates: list[Candidate]) -> Kept | None:
    choice = final_choices_in_force(session, [sentence.id]).get(sentence.id)
    try:
        pick = choose_final(candidates, policy_in(session, sentence.project_id))
    except ValueError:  # a stored policy the rule does not know: only a recorded choice can name the kept one
        pick = None
    return kept_translation(
        choice.translation_id if choice else None, choice.chosen_by if choice else None,
        pick.candidate.translation_id if pick and pick.candidate else None, pick.reason if pick else "",
    )


def _translations(session: Session, sentence_id: int, candidates: list[Candidate]) -> list[TranslationRow]:
    means = {c.translation_id: c.mean_rouge_l for c in candidates}
    rows = session.execute(
        select(Translation.id, Translation.phase, User.username, Translation.text, Translation.status,
               Translation.untranslatable, Translation.untranslatable_reason, Translation.untranslatable_note,
               Translation.version, Translation.submitted_at)
        .join(User, User.id == Translation.translator_id)
        .where(Translation.sentence_id == sentence_id)
    ).all()
    phase_order = {p: i for i, p in enumerate(PHASES)}
    out = [TranslationRow(*row[:5], bool(row[5]), *row[6:], means.get(row[0])) for row in rows]
    return sorted(out, key=lambda t: (phase_order.get(t.phase, len(PHASES)), t.translator, t.translation_id))


def _not_started(session: Session, sentence_id: int, translations: list[TranslationRow]) -> list[tuple[str, str, str]]:
    tasks = session.execute(
        select(TranslationAssignment.phase, User.username, TranslationAssignment.status)
        .join(User, User.id == TranslationAssignment.user_id)
        .where(TranslationAssignment.sentence_id == sentence_id)
    ).all()
    return not_started([tuple(t) for t in tasks], {(t.phase, t.translator) for t in translations})


def _items(session: Session, project_id: int, translations: list[TranslationRow]) -> list[ItemTags]:
    by_translation = {t.translation_id: t for t in translations}
    items = session.execute(
        select(TaggingItem.id, TaggingItem.translation_id, TaggingItem.tokens)
        .where(TaggingItem.translation_id.in_(list(by_translation)))
    ).all()
    if not items:
        return []
    item_ids = [i for i, _, _ in items]
    annotations: dict[int, list[AnnotatorTags]] = {i: [] for i in item_ids}
    for annotation_id, item_id, name, status, tags, no_aspects, version in session.execute(
        select(Annotation.id, Annotation.item_id, User.username, Annotation.status, Annotation.tags,
               Annotation.no_aspects, Annotation.version)
        .join(User, User.id == Annotation.annotator_id)
        .where(Annotation.item_id.in_(item_ids))
        .order_by(User.username, Annotation.id)
    ):
        annotations[item_id].append(AnnotatorTags(annotation_id, name, status, list(tags or []), bool(no_aspects), version))
    gold = read_gold_in_force(session, project_id, items=item_ids)
    out = []
    for item_id, translation_id, tokens in items:
        translation = by_translation[translation_id]
        in_force = gold.get(item_id)
        g = in_force.gold if in_force else None
        out.append(ItemTags(
            item_id, translation_id, translation.phase, translation.translator, list(tokens or []),
            annotations[item_id], g.source if g else None, list(g.tags) if g else None,
            in_force.awaited if in_force else 0,
        ))
    order = {t.translation_id: i for i, t in enumerate(translations)}
    return sorted(out, key=lambda i: order[i.translation_id])


def _detail(session: Session, row_id: int, project_id: int) -> SentenceDetail | None:
    sentence = session.get(SourceSentence, row_id)
    if sentence is None or sentence.project_id != project_id:
        return None
    candidates = candidates_by_sentence(session, [sentence.id]).get(sentence.id, [])
    translations = _translations(session, sentence.id, candidates)
    previous_id, next_id = neighbours(_corpus_order(session, project_id), sentence.id)
    return SentenceDetail(
        row_id=sentence.id, domain=sentence.domain, split=sentence.split, sentence_id=sentence.sentence_id,
        text=sentence.text,
        aspects=[Aspect(a.term, a.start, a.end, a.polarity) for a in sentence.aspects],
        categories=[(c.category, c.polarity) for c in sentence.categories],
        translations=translations, kept=_kept(session, sentence, candidates),
        items=_items(session, project_id, translations),
        previous_id=previous_id, next_id=next_id, not_started=_not_started(session, sentence.id, translations),
    )
