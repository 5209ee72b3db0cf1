"""Model suggestions in the span editor: when to retrain, what a save records, and how good the suggestions were.

The CRF (``corpus.baseline``) suggests aspect spans in items that get none from the translator's aspect map
(all aspect-blind translations). A suggestion is never a tag until the annotator accepts it; each save
records which model spans were shown (``SHOWN_KEY`` in the revision payload), so the figures here can say how
often annotators took them (acceptance), how often they were right (precision against the final gold), and
on how many items annotators saw them at all (agreement measured on those items may be inflated).
Pure functions over plain values; ``db.model_store`` reads and stores.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from corpus.bio import tags_to_spans

DEFAULT_MIN_GOLD = 200
DEFAULT_RETRAIN_EVERY = 50
# Gold items one training uses at most. CRFsuite's time grows with the tokens: all 47,296 gold items of a
# paper-scale project took ~129 s of CPU, 12,000 (about one per sentence and phase) stay under a minute, and
# the translations of one sentence repeat most of each other's words.
TRAINING_CAP = 12_000
SHOWN_KEY = "model_suggestions"  # revision payload: [[start, end, confidence], ...] the model suggested
MODEL_TERM = "model"

Span = tuple[int, int]


def retrain_due(gold_count: int, trained_on: int | None, min_gold: int, every: int) -> bool:
    """Train when the project first has ``min_gold`` gold items, then again after every ``every`` more."""
    if gold_count < max(min_gold, 1):
        return False
    return trained_on is None or gold_count >= trained_on + max(every, 1)


def training_sample(units: Sequence[Hashable], cap: int = TRAINING_CAP) -> list[int]:
    """Which gold items a training uses, as indexes in item order: every item up to ``cap``; past it, a round
    over the units (an item's sentence and phase): each unit's first item, then each unit's second, and so on
    until ``cap``, so every sentence and phase is learned from before any gets a second translation."""
    if len(units) <= cap:
        return list(range(len(units)))
    rank: list[int] = []
    seen: dict[Hashable, int] = {}
    for unit in units:
        rank.append(seen.get(unit, 0))
        seen[unit] = rank[-1] + 1
    by_round = sorted(range(len(units)), key=lambda i: (rank[i], i))
    return sorted(by_round[:max(cap, 0)])


def confidence_label(confidence: float) -> str:
    """How the editor names a model suggestion: ``model · 87%``."""
    return f"{MODEL_TERM} · {confidence:.0%}"


def shown_payload(spans: Iterable[tuple[int, int, float]]) -> list[list]:
    """What a save records of the model suggestions shown: ``[[start, end, confidence], ...]``, sorted."""
    return [[int(s), int(e), round(float(c), 4)] for s, e, c in sorted(spans)]


def shown_spans(payload: Mapping | None) -> tuple[Span, ...]:
    """The model spans a save's revision payload says were shown (none for saves made before suggestions)."""
    return tuple(sorted({(int(r[0]), int(r[1])) for r in (payload or {}).get(SHOWN_KEY) or ()}))


@dataclass(frozen=True)
class ShownSave:
    """One submitted annotation's latest save: its item, the model spans it showed, the tags it stored."""

    item_id: int
    shown: tuple[Span, ...]
    tags: tuple[str, ...]


@dataclass(frozen=True)
class SuggestionQuality:
    shown: int          # model spans shown, counted per annotation
    accepted: int       # of those, spans the annotation submitted exactly
    judged: int         # distinct (item, span) suggestions on items that have gold
    correct: int        # of those, exact spans of the gold
    annotations: int    # submitted annotations that were shown at least one model span

    @property
    def acceptance_rate(self) -> float | None:
        return self.accepted / self.shown if self.shown else None

    @property
    def precision(self) -> float | None:
        return self.correct / self.judged if self.judged else None


def suggestion_quality(saves: Iterable[ShownSave], gold: Mapping[int, Sequence[str]]) -> SuggestionQuality:
    """Acceptance (accepted shown spans / shown spans) and precision of the suggested spans against the gold
    in force (``gold``: item id -> tags; items without gold are not judged). Spans are exact matches."""
    shown = accepted = annotations = 0
    suggested: dict[int, set[Span]] = {}
    for save in saves:
        if not save.shown:
            continue
        annotations += 1
        kept = set(tags_to_spans(list(save.tags)))
        shown += len(save.shown)
        accepted += sum(1 for span in save.shown if span in kept)
        suggested.setdefault(save.item_id, set()).update(save.shown)
    judged = correct = 0
    for item_id, spans in suggested.items():
        tags = gold.get(item_id)
        if tags is None:
            continue
        gold_spans = set(tags_to_spans(list(tags)))
        judged += len(spans)
        correct += len(spans & gold_spans)
    return SuggestionQuality(shown, accepted, judged, correct, annotations)


@dataclass(frozen=True)
class Exposure:
    seen: int   # items on which some annotator's submitted save showed model suggestions
    items: int  # items with at least one submitted annotation

    def statement(self) -> str:
        """The sentence that goes with agreement figures."""
        if not self.seen:
            return f"annotators saw no model suggestions ({self.items} items tagged)"
        return f"annotators saw model suggestions on {self.seen} of {self.items} items"


def exposure(saves: Iterable[ShownSave]) -> Exposure:
    items: set[int] = set()
    seen: set[int] = set()
    for save in saves:
        items.add(save.item_id)
        if save.shown:
            seen.add(save.item_id)
    return Exposure(len(seen), len(items))


# ---------------------------------------------------------------- every source of suggestions (corpus.projection)

SUGGESTIONS_KEY = "suggestions_shown"  # revision payload: [[start, end, source, confidence], ...] shown, any source
ACCEPTED_KEY = "suggestions_accepted"  # revision payload: {source: shown spans the saved tags kept}
KEYS_KEY = "editor_keys"  # revision payload: key presses and clicks in the editor on this item so far
ALL = "all"  # the figures' row for every source together

Shown = tuple[int, int, str]  # start, end, source


def shown_record(shown: Iterable[tuple[int, int, str, float | None]], tags: Sequence[str],
                 keys: int | None = None) -> dict:
    """What a save records of the suggestions its editor showed: each with its source and confidence, how many
    of each source the saved tags kept (exact spans), and the editor's key count when known."""
    rows = sorted((int(s), int(e), str(src), None if c is None else round(float(c), 4)) for s, e, src, c in shown)
    kept = set(tags_to_spans(list(tags)))
    accepted: dict[str, int] = {}
    for s, e, src, _ in rows:
        accepted[src] = accepted.get(src, 0) + ((s, e) in kept)
    out: dict = {SUGGESTIONS_KEY: [list(r) for r in rows], ACCEPTED_KEY: dict(sorted(accepted.items()))}
    if keys is not None:
        out[KEYS_KEY] = int(keys)
    return out


def shown_by_source(payload: Mapping | None) -> tuple[Shown, ...] | None:
    """The suggestions a save's payload says were shown, with their source; None for a save that recorded
    none of it (made before projection suggestions, or by a tool other than the editor)."""
    rows = (payload or {}).get(SUGGESTIONS_KEY)
    if rows is None:
        return None
    return tuple(sorted({(int(r[0]), int(r[1]), str(r[2])) for r in rows}))


@dataclass(frozen=True)
class SuggestionSave:
    """One submitted annotation's latest save: the suggestions it showed (None: not recorded), its tags and the
    editor's key count (None: not recorded)."""

    item_id: int
    shown: tuple[Shown, ...] | None
    tags: tuple[str, ...]
    keys: int | None = None


@dataclass(frozen=True)
class SourceFigures:
    source: str
    shown: int      # spans shown, counted per annotation
    accepted: int   # of those, spans the annotation submitted exactly
    judged: int     # distinct (item, span) suggestions on items with gold
    correct: int    # of those, exact spans of the gold
    gold: int       # gold spans on the items with gold whose saves recorded what they showed (recall's whole)

    @property
    def acceptance_rate(self) -> float | None:
        return self.accepted / self.shown if self.shown else None

    @property
    def precision(self) -> float | None:
        return self.correct / self.judged if self.judged else None

    @property
    def recall(self) -> float | None:
        return self.correct / self.gold if self.gold else None


@dataclass(frozen=True)
class SuggestionReport:
    by_source: tuple[SourceFigures, ...]  # each source seen, in ``sources`` order, then ``ALL``
    keys_with: float | None      # mean editor keys per submitted annotation shown suggestions
    keys_without: float | None   # ... shown none
    annotations_with: int        # submitted annotations with a key count, shown suggestions
    annotations_without: int     # ... shown none
    items_with: int              # items on which a submitted annotation was shown suggestions
    items_recorded: int          # items with a submitted annotation that recorded what it was shown

    def row(self, source: str) -> SourceFigures | None:
        return next((f for f in self.by_source if f.source == source), None)

    def exposure_statement(self) -> str:
        """The sentence that goes with agreement figures (suggestions can inflate agreement)."""
        if not self.items_with:
            return f"annotators saw no suggestions ({self.items_recorded} items with a record of what was shown)"
        return (f"annotators saw suggestions on {self.items_with} of {self.items_recorded} items "
                "(recorded; agreement there may be inflated)")


def suggestion_report(saves: Iterable[SuggestionSave], gold: Mapping[int, Sequence[str]],
                      sources: Sequence[str] = ()) -> SuggestionReport:
    """Per source: acceptance (spans kept / spans shown, per annotation), precision of the distinct suggested
    spans against the gold in force (``gold``: item id -> tags) and recall of the gold spans, over the items
    with gold whose saves recorded what they showed; and editor keys per annotation with and without
    suggestions. Spans are exact matches. ``sources`` orders the rows (others follow, sorted)."""
    saves = list(saves)
    shown: dict[str, int] = {}
    accepted: dict[str, int] = {}
    suggested: dict[str, dict[int, set[Span]]] = {}
    recorded: set[int] = set()
    with_items: set[int] = set()
    keys_with: list[int] = []
    keys_without: list[int] = []
    for save in saves:
        if save.shown is None:
            continue
        recorded.add(save.item_id)
        if save.keys is not None:
            (keys_with if save.shown else keys_without).append(save.keys)
        if not save.shown:
            continue
        with_items.add(save.item_id)
        kept = set(tags_to_spans(list(save.tags)))
        for s, e, src in save.shown:
            for key in (src, ALL):
                shown[key] = shown.get(key, 0) + 1
                accepted[key] = accepted.get(key, 0) + ((s, e) in kept)
                suggested.setdefault(key, {}).setdefault(save.item_id, set()).add((s, e))
    judged_items = [i for i in sorted(recorded) if i in gold]
    gold_spans = {i: set(tags_to_spans(list(gold[i]))) for i in judged_items}
    n_gold = sum(len(v) for v in gold_spans.values())
    order = [s for s in sources if s in shown] + sorted(s for s in shown if s not in sources and s != ALL)
    rows = []
    for key in [*order, ALL] if shown else []:
        judged = correct = 0
        for item_id, spans in suggested.get(key, {}).items():
            if item_id in gold_spans:
                judged += len(spans)
                correct += len(spans & gold_spans[item_id])
        rows.append(SourceFigures(key, shown.get(key, 0), accepted.get(key, 0), judged, correct, n_gold))
    return SuggestionReport(
        tuple(rows), sum(keys_with) / len(keys_with) if keys_with else None,
        sum(keys_without) / len(keys_without) if keys_without else None, len(keys_with), len(keys_without),
        len(with_items), len(recorded))
