"""The final translation per sentence: automatic pick, lead override, and how often leads override
(the candidates and the choice in force are read through ``db.final_candidates``).

``FinalChoice`` is append-only; the latest row per sentence is in force. Automatic rows have no
``chosen_by``; a lead's row records what the automatic rule picked at that moment, so the override
rate measures how often the rule was wrong in the eyes of a lead.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from corpus.final_choice import (
    POLICIES,
    Candidate,
    FinalPick,
    OverrideRate,
    choose_final,
    decision_lists,
    override_rate,
)
from corpus.records import PHASES
from corpus.vocabulary import RevisionAction, Role, Status
from db.access import check_writer
from db.conflicts import SavedFirst
from db.engine import read, reader, transaction
from db.final_candidates import (
    ChoiceInForce,
    candidates_by_sentence,
    final_choices_in_force,
    policy_in,
    project_candidates,
)
from db.models import (
    AspectTerm,
    FinalChoice,
    SourceSentence,
    Translation,
    User,
)
from db.revisions import record_revision
from db.work_queue import final_rows, submitted_rows

LEAD_ROLES = (Role.LEAD,)  # an admin decides only when also given the lead role


class StaleChoice(SavedFirst):
    """A lead chose against a choice in force that has since been replaced (by another lead or the rule).
    Carries both: ``mine`` (the translation id the lead chose), ``theirs`` (alias ``current``: the choice
    now in force, None for none) and the id of the choice the lead saw (None: no choice)."""

    def __init__(self, sentence_id: int, expected_id: int | None, current: ChoiceInForce | None,
                 mine: int | None = None) -> None:
        self.sentence_id = sentence_id
        self.expected_id = expected_id
        self.current = current
        who = (current.chosen_by or "the automatic rule") if current is not None else None
        when = f" at {current.created_at:%Y-%m-%d %H:%M:%S} UTC" if current is not None else ""
        super().__init__(f"the final translation of this sentence was changed by {who or 'someone'}{when} since you "
                         "loaded it; look at it and choose again", mine=mine, theirs=current, who=who,
                         when=current.created_at if current is not None else None)


@dataclass(frozen=True)
class Comparison:
    sentence_id: int
    sentence_key: str
    source_text: str
    policy: str
    policy_text: str
    candidates: list[Candidate]  # every submitted translation, untranslatable ones included
    untranslatable_votes: dict[str, int]
    pick: FinalPick
    in_force: ChoiceInForce | None
    source_aspects: list[tuple[int, int]] = field(default_factory=list)  # character spans of the aspect terms


def _key(s: SourceSentence) -> str:
    return f"{s.domain}/{s.split}/{s.sentence_id}"


def _sentences(session: Session, project_id: int, lock: bool = False) -> list[SourceSentence]:
    """Sentences with at least one submitted translation, in corpus order. ``lock``: hold their rows
    until commit (PostgreSQL), so no lead's choice lands between reading and writing automatic picks."""
    query = (
        select(SourceSentence)
        .where(
            SourceSentence.project_id == project_id,
            SourceSentence.id.in_(select(Translation.sentence_id).where(Translation.status == Status.SUBMITTED)),
        )
        .order_by(SourceSentence.domain, SourceSentence.split, SourceSentence.ordinal, SourceSentence.id)
    )
    return list(session.scalars(query.with_for_update(of=SourceSentence) if lock else query))


def compare(engine: Engine, sentence_id: int) -> Comparison:
    """The comparison screen's data: all candidates, their scores, votes, the automatic pick and the choice."""
    with Session(reader(engine)) as session:
        sentence = session.get(SourceSentence, sentence_id)
        if sentence is None:
            raise ValueError(f"no sentence {sentence_id}")
        policy = policy_in(session, sentence.project_id)
        cands = candidates_by_sentence(session, [sentence_id]).get(sentence_id, [])
        votes = {phase: sum(1 for c in cands if c.phase == phase and c.untranslatable) for phase in PHASES}
        return Comparison(
            sentence_id=sentence.id, sentence_key=_key(sentence), source_text=sentence.text, policy=policy,
            policy_text=POLICIES[policy], candidates=cands, untranslatable_votes=votes,
            pick=choose_final(cands, policy), in_force=final_choices_in_force(session, [sentence_id]).get(sentence_id),
            source_aspects=[(a.start, a.end) for a in session.scalars(
                select(AspectTerm).where(AspectTerm.sentence_id == sentence_id).order_by(AspectTerm.position))],
        )


def record_auto_choices(engine: Engine, project_id: int, by: int | None = None) -> int:
    """Write the automatic pick where no choice is in force or the automatic one is out of date.
    A lead's decision is never replaced by the rule. Returns the number of rows written.
    The whole project is read and written in bulk (one transaction), so ``python -m corpus export``
    can run it on a paper-scale project. ``by``: the user a page records them for, re-checked
    (active, session live) in the same transaction; None for the command line, which has no session."""
    with transaction(engine) as session:
        check_writer(session, by, roles=LEAD_ROLES)
        policy = policy_in(session, project_id)
        sentences = _sentences(session, project_id, lock=True)
        ids = [s.id for s in sentences]
        cands = project_candidates(session, project_id)
        in_force = final_choices_in_force(session, ids)
        rows = []
        for s in sentences:
            pick = choose_final(cands.get(s.id, []), policy).candidate
            if pick is None:
                continue
            current = in_force.get(s.id)
            if current is not None and (
                current.chosen_by is not None
                or (current.translation_id == pick.translation_id and current.policy == policy)
            ):
                continue
            rows.append(FinalChoice(sentence_id=s.id, translation_id=pick.translation_id,
                                    auto_translation_id=pick.translation_id, overridden=False, policy=policy))
        session.add_all(rows)
        session.flush()  # one batched insert; the ids are needed by the revisions
        for row in rows:
            record_revision(session, "final_choice", row.id, 1, None, RevisionAction.AUTO,
                            {"sentence_id": row.sentence_id, "translation_id": row.translation_id, "policy": policy})
        return len(rows)


def _decide(session: Session, sentence_id: int, translation_id: int | None, lead_id: int, expected: int | None,
            note: str | None) -> ChoiceInForce:
    """A lead's decision in the caller's transaction: ``translation_id`` None means untranslatable (the sentence
    keeps no final translation; the export leaves it out, "left out by lead")."""
    check_writer(session, lead_id, roles=LEAD_ROLES)  # active, a lead, inside a page run its session live
    lead = session.get(User, lead_id)
    if lead is None or not lead.active or not set(lead.role_names) & set(LEAD_ROLES):
        raise PermissionError("only an active lead can choose the final translation")
    sentence = session.get(SourceSentence, sentence_id, with_for_update=True)
    translation = session.get(Translation, translation_id) if translation_id is not None else None
    if sentence is None or (translation_id is not None and (translation is None or translation.sentence_id != sentence_id)):
        raise ValueError("that translation does not belong to this sentence")
    current = final_choices_in_force(session, [sentence_id]).get(sentence_id)
    if (current.id if current is not None else None) != expected:
        raise StaleChoice(sentence_id, expected, current, mine=translation_id)
    if translation is not None and (
        translation.status != Status.SUBMITTED or translation.untranslatable or not (translation.text or "").strip()
    ):
        raise ValueError("only a submitted, translated candidate can be the final translation")
    policy = policy_in(session, sentence.project_id)
    cands = candidates_by_sentence(session, [sentence_id]).get(sentence_id, [])
    if translation is None and not cands:
        raise ValueError("the sentence has no submitted translation to decide on")
    auto = choose_final(cands, policy).candidate
    auto_id = auto.translation_id if auto else None
    row = FinalChoice(
        sentence_id=sentence_id, translation_id=translation_id, auto_translation_id=auto_id,
        overridden=translation_id != auto_id, policy=policy, chosen_by=lead_id, note=(note or None),
    )
    session.add(row)
    session.flush()
    action = (RevisionAction.UNTRANSLATABLE if translation_id is None
              else RevisionAction.OVERRIDE if row.overridden else RevisionAction.CONFIRM)
    record_revision(
        session, "final_choice", row.id, 1, lead_id, action,
        {"sentence_id": sentence_id, "translation_id": translation_id, "auto_translation_id": auto_id,
         "overridden": row.overridden, "policy": policy, "note": row.note},
    )
    return ChoiceInForce(row.id, translation_id, auto_id, row.overridden, policy, lead.username, row.note,
                         row.created_at)


def choose(
    engine: Engine, sentence_id: int, translation_id: int, lead_id: int, *, expected: int | None,
    note: str | None = None,
) -> ChoiceInForce:
    """A lead's final choice (confirming the automatic pick or overriding it), kept with who and when.
    ``expected``: the id of the choice in force the lead saw (None: none); a StaleChoice if it has changed."""
    with transaction(engine) as session:
        return _decide(session, sentence_id, translation_id, lead_id, expected, note)


def mark_untranslatable(
    engine: Engine, sentence_id: int, lead_id: int, *, expected: int | None, note: str | None = None,
) -> ChoiceInForce:
    """The lead decides the sentence is untranslatable: a final choice without a translation, in force like
    any other (the rule never replaces it; the export leaves the sentence out with the lead's note). It
    overrides the automatic pick when the rule had one. ``expected`` as for ``choose``."""
    with transaction(engine) as session:
        return _decide(session, sentence_id, None, lead_id, expected, note)


@dataclass(frozen=True)
class DecisionOverview:
    """The decision view's sentences: ``order`` (corpus order of those with a submitted translation), their
    keys, and each filter's list (``corpus.final_choice.decision_lists``)."""

    order: list[int]
    keys: dict[int, str]
    lists: dict[str, list[int]]


def _decision_overview(session: Session, project_id: int) -> DecisionOverview:
    db = session.connection()  # plain rows
    rows = db.execute(
        select(SourceSentence.id, SourceSentence.domain, SourceSentence.split, SourceSentence.sentence_id)
        .where(SourceSentence.project_id == project_id,
               SourceSentence.id.in_(select(Translation.sentence_id).where(Translation.status == Status.SUBMITTED)))
        .order_by(SourceSentence.domain, SourceSentence.split, SourceSentence.ordinal, SourceSentence.id)
    ).all()
    order = [pk for pk, *_ in rows]
    latest = (select(func.max(FinalChoice.id)).join(SourceSentence, SourceSentence.id == FinalChoice.sentence_id)
              .where(SourceSentence.project_id == project_id).group_by(FinalChoice.sentence_id))
    overridden = db.execute(select(FinalChoice.sentence_id).where(FinalChoice.id.in_(latest),
                                                                  FinalChoice.overridden.is_(True))).scalars()
    lists = decision_lists(order, submitted_rows(session, project_id), final_rows(session, project_id), overridden)
    return DecisionOverview(order, {pk: f"{d}/{sp}/{sid}" for pk, d, sp, sid in rows}, lists)


def decision_overview(engine: Engine, project_id: int) -> DecisionOverview:
    """Which sentences each filter of the decision view lists, read in one read-only transaction; the
    "undecided" and "untranslatable" lists are the Home page's rules over the same rows (``db.work_queue``)."""
    return read(engine, _decision_overview, project_id)


def override_stats(engine: Engine, project_id: int) -> OverrideRate:
    """Every lead decision in the project, and the lead-decided sentences in force: how many replaced
    the automatic pick as it stood when the lead decided."""
    with Session(reader(engine)) as session:
        rows = session.execute(
            select(FinalChoice.sentence_id, FinalChoice.overridden)
            .join(SourceSentence, SourceSentence.id == FinalChoice.sentence_id)
            .where(SourceSentence.project_id == project_id, FinalChoice.chosen_by.is_not(None))
            .order_by(FinalChoice.id)
        ).all()
        return override_rate([(sentence_id, bool(overridden)) for sentence_id, overridden in rows])
