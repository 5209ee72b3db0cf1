"""The candidates for a sentence's final translation and the choice in force, read in the caller's
transaction (or a read-only one of their own): every submitted translation with its mean ROUGE-L within its
phase and its aspects kept, each phase's winner, the project's final policy.

A reader: the final choice's service (``db.final_choice``), the tagging scope "best" (``db.tagging``), the
sentence view and the export read the candidates here, so none of them imports another service.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, case, func, select
from sqlalchemy.orm import Session

from corpus.agreement import (
    MetricsInput,
    RougeResult,
    TagSet,
    TranslationInfo,
    rouge_agreement,
)
from corpus.agreement import aspects_kept as agreement_aspects_kept
from corpus.final_choice import POLICIES, Candidate, mean_scores, phase_winner
from corpus.kappa import tag_string
from corpus.records import PHASES
from corpus.rouge import rouge_l_f_text
from corpus.vocabulary import Status
from db.engine import read
from db.gold import read_gold_in_force
from db.metrics_data import read_metrics_input
from db.models import (
    Annotation,
    AspectAlignment,
    FinalChoice,
    SourceSentence,
    TaggingItem,
    Translation,
    User,
)
from db.project_settings import settings_in


@dataclass(frozen=True)
class ChoiceInForce:
    id: int
    translation_id: int | None
    auto_translation_id: int | None
    overridden: bool
    policy: str
    chosen_by: str | None  # None: the automatic rule
    note: str | None
    created_at: datetime


def _gold_tags(session: Session, item_ids: list[int]) -> dict[int, list[str]]:
    """The gold tags in force per tagging item, read through the one reader (``db.gold``)."""
    if not item_ids:
        return {}
    return {i: g.gold.tags for i, g in read_gold_in_force(session, items=item_ids).items() if g.gold is not None}


def _aspects_kept(session: Session, translations: list[Translation]) -> dict[int, int | None]:
    """Aspects kept per translation, by the agreement module's definition (``corpus.agreement.ASPECTS_KEPT``),
    so the final choice ranks ties exactly as the agreement figures do."""
    ids = [t.id for t in translations]
    if not ids:
        return {}
    mapped = {
        pk: int(kept or 0)
        for pk, kept in session.execute(
            select(AspectAlignment.translation_id, func.sum(case((AspectAlignment.dropped.is_(False), 1), else_=0)))
            .where(AspectAlignment.translation_id.in_(ids))
            .group_by(AspectAlignment.translation_id)
        )
    }
    infos = [
        TranslationInfo(t.id, t.sentence_id, t.phase, t.translator.username, t.text, bool(t.untranslatable),
                        t.submitted_at, mapped.get(t.id))
        for t in translations
    ]
    tag_sets = []
    for translation_pk, name, tags, submitted_at in session.execute(
        select(TaggingItem.translation_id, User.username, Annotation.tags, Annotation.submitted_at)
        .join(TaggingItem, TaggingItem.id == Annotation.item_id)
        .join(User, User.id == Annotation.annotator_id)
        .where(TaggingItem.translation_id.in_(ids), Annotation.status == Status.SUBMITTED)
    ):
        text = tag_string(tags or [])
        if text is not None:
            tag_sets.append(TagSet(translation_pk, name, text, submitted_at))
    items = dict(session.execute(select(TaggingItem.id, TaggingItem.translation_id)
                                 .where(TaggingItem.translation_id.in_(ids))).all())
    adjudicated = {}
    for item_id, tags in _gold_tags(session, list(items)).items():
        text = tag_string(tags)
        if text is not None:
            adjudicated[items[item_id]] = text
    return agreement_aspects_kept(MetricsInput([], infos, tag_sets, adjudicated))


def _reason(t: Translation) -> str | None:
    parts = [p for p in (t.untranslatable_reason, t.untranslatable_note) if p]
    return " — ".join(parts) or None


def candidates_by_sentence(session: Session, sentence_ids: list[int]) -> dict[int, list[Candidate]]:
    """Every submitted translation of the sentences as candidates, with mean ROUGE-L within its phase."""
    if not sentence_ids:
        return {}
    translations = list(
        session.scalars(
            select(Translation)
            .where(Translation.sentence_id.in_(sentence_ids), Translation.status == Status.SUBMITTED)
            .order_by(Translation.sentence_id, Translation.phase, Translation.id)
        )
    )
    kept = _aspects_kept(session, translations)
    groups: dict[tuple[int, str], list[Translation]] = defaultdict(list)
    for t in translations:
        groups[(t.sentence_id, t.phase)].append(t)
    out: dict[int, list[Candidate]] = defaultdict(list)
    for (sentence_id, _phase), group in groups.items():
        texts = {t.id: t.text for t in group if not t.untranslatable and t.text and t.text.strip()}
        means = mean_scores(texts, rouge_l_f_text)
        for t in group:
            out[sentence_id].append(
                Candidate(
                    translation_id=t.id, phase=t.phase, translator=t.translator.username, text=t.text,
                    untranslatable=t.untranslatable, aspects_kept=kept.get(t.id),
                    mean_rouge_l=means.get(t.id), submitted_at=t.submitted_at,
                    reason=_reason(t) if t.untranslatable else None,
                )
            )
    return dict(out)


def phase_winners(session: Session, sentence_id: int) -> dict[str, Candidate | None]:
    cands = candidates_by_sentence(session, [sentence_id]).get(sentence_id, [])
    return {phase: phase_winner([c for c in cands if c.phase == phase]) for phase in PHASES}


def final_choices_in_force(session: Session, sentence_ids: list[int]) -> dict[int, ChoiceInForce]:
    if not sentence_ids:
        return {}
    users = dict(session.execute(select(User.id, User.username)).all())
    out: dict[int, ChoiceInForce] = {}
    for (pk, sentence_id, translation_id, auto_translation_id, overridden, policy, chosen_by, note,
         created_at) in session.execute(  # columns, not ORM objects: a project holds thousands
        select(FinalChoice.id, FinalChoice.sentence_id, FinalChoice.translation_id, FinalChoice.auto_translation_id,
               FinalChoice.overridden, FinalChoice.policy, FinalChoice.chosen_by, FinalChoice.note,
               FinalChoice.created_at)
        .where(FinalChoice.sentence_id.in_(sentence_ids)).order_by(FinalChoice.id)
    ):
        out[sentence_id] = ChoiceInForce(
            pk, translation_id, auto_translation_id, overridden, policy,
            users.get(chosen_by) if chosen_by else None, note, created_at,
        )
    return out


def policy_in(session: Session, project_id: int) -> str:
    """The project's final policy, read in the caller's transaction (``db.project_settings``: a missing
    project is ``ProjectNotFound``); a ValueError if the stored policy is not one the rule knows."""
    policy = settings_in(session, project_id).final_policy
    if policy not in POLICIES:
        raise ValueError(f"project final policy {policy!r} is unknown; choose one of {', '.join(POLICIES)}")
    return policy


def project_policy(engine: Engine, project_id: int) -> str:
    """``policy_in`` in a read-only transaction of its own (for pages and tools)."""
    return read(engine, policy_in, project_id)


def submitted_sentence_ids(session: Session, project_id: int) -> list[int]:
    """``_sentences``' ids, as plain rows (a reader that needs no more of them)."""
    return list(session.scalars(
        select(SourceSentence.id)
        .where(
            SourceSentence.project_id == project_id,
            SourceSentence.id.in_(select(Translation.sentence_id).where(Translation.status == Status.SUBMITTED)),
        )
        .order_by(SourceSentence.domain, SourceSentence.split, SourceSentence.ordinal, SourceSentence.id)
    ))


def translation_means(rouge: RougeResult) -> dict[int, float]:
    """Each translation's mean ROUGE-L F against the others of its (sentence, phase), by translation pk."""
    in_unit, _, means = rouge.translation_mean_f()
    return {rouge.translations[i].pk: m for i, m in zip(in_unit.tolist(), means.tolist())}


def project_candidates(session: Session, project_id: int, data: MetricsInput | None = None) -> dict[int, list[Candidate]]:
    """``candidates_by_sentence`` for every sentence of a project at once, read in bulk the way the
    agreement figures are (``db.metrics_data.load_metrics_input``) and scored by their vectorised ROUGE-L:
    the same candidates, aspect counts and means (the rule compares means rounded to 12 places, as the
    figures do, so both name the same winner), fast enough for a paper-scale project. ``data``: the project's
    metrics input when the caller has read it in the same transaction already (the export)."""
    if data is None:
        data = read_metrics_input(session, project_id)
    kept = agreement_aspects_kept(data)
    means = translation_means(rouge_agreement(data, kept))
    out: dict[int, list[Candidate]] = defaultdict(list)
    for t in sorted(data.translations, key=lambda t: (t.sentence_pk, t.phase, t.pk)):
        out[t.sentence_pk].append(
            Candidate(translation_id=t.pk, phase=t.phase, translator=t.translator, text=t.text,
                      untranslatable=bool(t.untranslatable), aspects_kept=kept.get(t.pk),
                      mean_rouge_l=means.get(t.pk), submitted_at=t.submitted_at)
        )
    return dict(out)
