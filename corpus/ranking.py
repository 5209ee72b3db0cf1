"""Where is the problem: the lead dashboard's Table 2 as shown, and its ranked lists, worst first.

Pure functions over ``corpus.agreement.MetricsInput`` and ``corpus.metrics.Agreement``: the figures are
the ones ``corpus.metrics`` computes (Table 2, per-translator ROUGE-L, per-annotator Cohen's kappa,
Fleiss' kappa); this module scopes them (a domain, a phase), ranks them, puts the sample size beside
each one and a bootstrap interval where it is cheap, and formats undefined cells as "—".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import date
from functools import lru_cache
from itertools import compress, repeat
from operator import attrgetter

import numpy as np

from corpus.agreement import MetricsInput, restricted
from corpus.metrics import Agreement, sentence_agreement, table2
from corpus.records import PHASES
from corpus.vocabulary import Phase

NOT_DEFINED = "—"
#: The bootstrap's fixed seed and size: the same data always gives the same interval.
BOOTSTRAP_SEED = 20140
BOOTSTRAP_RESAMPLES = 200
BOOTSTRAP_LEVEL = 0.95
BOOTSTRAP_NOTE = (
    f"95% interval: percentile bootstrap of the mean over the translator's pairs ({BOOTSTRAP_RESAMPLES} resamples, "
    f"seed {BOOTSTRAP_SEED}); pairs of one sentence are not independent, so read it as a lower bound of the "
    "uncertainty. Undefined (—) with fewer than 2 pairs."
)


# --- Formatting ---------------------------------------------------------------------------------------


def figure_text(value: float | None, digits: int = 3) -> str:
    """A figure as shown: fixed digits, "—" when undefined (None or NaN)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return NOT_DEFINED
    return f"{value:.{digits}f}"


def interval_text(interval: tuple[float, float] | None, digits: int = 2) -> str:
    """A confidence interval as "low–high", "—" when undefined."""
    if interval is None:
        return NOT_DEFINED
    return f"{interval[0]:.{digits}f}–{interval[1]:.{digits}f}"


def share_text(count: int, total: int) -> str:
    """A count out of a total with its percentage: "1 of 4 (25.0%)"; no arrow, no trend."""
    if not total:
        return f"{count} of {total}"
    return f"{count:,} of {total:,} ({100.0 * count / total:.1f}%)"


# --- Bootstrap ----------------------------------------------------------------------------------------


def bootstrap_mean_interval(
    values: Sequence[float] | np.ndarray,
    resamples: int = BOOTSTRAP_RESAMPLES,
    level: float = BOOTSTRAP_LEVEL,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the mean; None with fewer than 2 values.

    Resampling n values with replacement is drawing their distinct values' multiplicities from a
    multinomial over the empirical frequencies, so it is drawn that way: the cost grows with the
    distinct values, not with n (ROUGE-L F of short sentences repeats a lot).
    """
    values = np.asarray(values, dtype=np.float64)
    if len(values) < 2:
        return None
    return _bootstrap(values.tobytes(), resamples, level, seed)


@lru_cache(maxsize=32)
def _bootstrap(values: bytes, resamples: int, level: float, seed: int) -> tuple[float, float]:
    """``bootstrap_mean_interval`` of the values (as bytes: hashable), remembered: a save changes the pairs of
    the translators of one sentence, so the dashboard's next run finds the others' intervals done (32 arrays
    of up to ~150 kB each at paper scale: a few scopes of 8 translators)."""
    values = np.frombuffer(values, dtype=np.float64)
    n = len(values)
    distinct, counts = np.unique(values, return_counts=True)
    if len(distinct) == 1:
        return float(distinct[0]), float(distinct[0])
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(n, counts / n, size=resamples)
    means = draws @ distinct / n
    low, high = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    return float(low), float(high)


# --- Scope --------------------------------------------------------------------------------------------


def in_scope(data: MetricsInput, domain: str | None = None, phase: str | None = None) -> MetricsInput:
    """The input restricted to one domain and/or one phase (None: all), as the dashboard's chart selects."""
    if domain is None and phase is None:
        return data
    return restricted(data, [s for s in data.sentences if domain is None or s.domain == domain], phase)


# --- Table 2 ------------------------------------------------------------------------------------------

def table2_rows(agreement: Agreement) -> list[dict]:
    """The seed paper's Table 2 as shown: the one builder's rows (``corpus.metrics.table2``: ROUGE-L between
    translators, Fleiss' kappa between annotators and every other registered figure, per phase and overall),
    three decimals, "—" where undefined (kappa has no "best")."""
    return [row.cells(figure_text) for row in table2(agreement.report_summary())]


def table2_basis(data: MetricsInput, agreement: Agreement) -> str:
    """One line: what Table 2 is computed over."""
    rouge, fleiss = agreement.rouge_l, agreement.fleiss_kappa["overall"]
    translators = len({t.translator for t in agreement.rouge.translations})
    annotators = len({ts.annotator for ts in agreement.tag_sources})
    units = rouge["units"][Phase.AWARE] + rouge["units"][Phase.BLIND]
    translated = len({t.sentence_pk for t in data.translations})
    waiting = len(data.sentences) - translated  # not translated yet: no figure can say anything of them
    return (
        f"Over {translated:,} translated sentences"
        + (f" ({waiting:,} of {len(data.sentences):,} not translated yet)" if waiting else "")
        + f": ROUGE-L over {rouge['pairs']:,} translation pairs in {units:,} "
        f"sentence-phase units by {translators} translators; Fleiss' kappa over {fleiss['items']:,} tokens of "
        f"{fleiss['translations']:,} translations tagged by {agreement.fleiss_kappa['annotators_per_item']} "
        f"annotators each ({annotators} annotators in all)."
    )


# --- Ranked lists, worst first ------------------------------------------------------------------------


def _worst_first(value: float | None) -> float:
    return math.inf if value is None else value


def sentence_ranking(
    data: MetricsInput, agreement: Agreement, limit: int | None = None, rows: list[dict] | None = None
) -> list[dict]:
    """The least-agreeing sentence-phase units (``corpus.metrics.sentence_agreement``'s order) with the
    sentence's row id, its English text and the Hindi kept (the unit's best translation by the paper's
    rule; the only one when a unit has a single tagged translation), and how many pairs and tokens
    each figure is over. ``rows``: ``sentence_agreement(data, agreement)`` when the caller has it."""
    rows = sentence_agreement(data, agreement) if rows is None else rows
    if limit is not None:
        rows = rows[:limit]
    sentence_of = {(s.domain, s.split, s.sentence_id): s for s in data.sentences}
    listed = {sentence_of[(r["domain"], r["split"], r["sentence_id"])].pk for r in rows}
    text_of: dict[tuple[int, str], dict[str, str | None]] = {}
    # Only the listed sentences' translations (200 sentences of ~6,000 on the dashboard).
    for t in compress(data.translations, map(listed.__contains__, map(attrgetter("sentence_pk"), data.translations))):
        text_of.setdefault((t.sentence_pk, t.phase), {})[t.translator] = t.text if t.translated else None
    out = []
    for r in rows:
        s = sentence_of[(r["domain"], r["split"], r["sentence_id"])]
        texts = text_of.get((s.pk, r["phase"]), {})
        kept = texts.get(r["best_translator"]) if r["best_translator"] else next(
            (t for t in texts.values() if t is not None), None)
        n = r["translations"]
        out.append({
            "id": s.pk,
            "sentence": f"{s.domain}/{s.split}/{s.sentence_id}",
            "phase": r["phase"],
            "ROUGE-L": r["mean_f"],
            "pairs": n * (n - 1) // 2 if n else 0,
            "tag agreement": r["token_agreement"],
            "English": s.text,
            "Hindi kept": kept,
        })
    return out


def translator_ranking(agreement: Agreement, resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED) -> list[dict]:
    """Each translator's mean ROUGE-L F against the others (``per_translator``, both phases), with its
    pairs and a bootstrap interval, lowest first."""
    rouge = agreement.rouge
    names = [t.translator for t in rouge.translations]
    code = {n: i for i, n in enumerate(sorted(set(names)))}
    who = np.fromiter(map(code.__getitem__, names), dtype=np.int64, count=len(names))
    left, right = who[rouge.pair_a], who[rouge.pair_b]
    rows = []
    for r in agreement.rouge_l["per_translator"]:
        if r["phase"] != "all":
            continue
        i = code[r["translator"]]
        values = np.concatenate([rouge.pair_f[left == i], rouge.pair_f[right == i]])
        rows.append({
            "translator": r["translator"],
            "ROUGE-L vs others": r["mean_f"],
            "95% interval": interval_text(bootstrap_mean_interval(values, resamples, seed=seed)),
            "pairs": r["pairs"],
        })
    return sorted(rows, key=lambda r: (r["ROUGE-L vs others"], r["translator"]))


def annotator_ranking(agreement: Agreement) -> list[dict]:
    """Each annotator's Cohen's kappa against the others over the tokens they share (undefined last),
    with the tokens and translations it is over, lowest first."""
    rows = [
        {
            "annotator": r["annotator"],
            "kappa vs others": r["kappa"],
            "tokens": r["tokens"],
            "translations": r["translations"],
        }
        for r in agreement.cohen_kappa["per_annotator"]
    ]
    return sorted(rows, key=lambda r: (_worst_first(r["kappa vs others"]), r["annotator"]))


def _weighted_mean(values: np.ndarray, weights: np.ndarray) -> float | None:
    """Table 2's weighting (``corpus.agreement.rouge_summary``): the plain mean when no weight."""
    if not len(values):
        return None
    total = float(weights.sum())
    return float((values * weights).sum() / total) if total > 0 else float(values.mean())


def domain_figures(data: MetricsInput, agreement: Agreement) -> list[dict]:
    """Per domain and phase (and "all" phases): ROUGE-L weighted as Table 2 with its units and pairs,
    and Fleiss' kappa with the tokens it is over. The chart's bars and the domain list."""
    rouge = agreement.rouge
    unit_domain = np.array([rouge.sentences[i].domain for i in rouge.unit_sentence.tolist()], dtype=object)
    unit_phase = np.array(rouge.unit_phase, dtype=object)
    pairs_per_unit = rouge.unit_size * (rouge.unit_size - 1) // 2
    domains = sorted({s.domain for s in data.sentences})
    phases = (*PHASES, "all")
    # Each tagged translation's (domain, phase) as one small integer: 48,000 labels at paper scale.
    index = {d: i for i, d in enumerate(domains)}
    domain_code = {s.pk: index[s.domain] for s in data.sentences}
    phase_code = {p: i for i, p in enumerate(phases)}
    label_of = {t.pk: domain_code.get(t.sentence_pk, -1) * len(phases) + phase_code.get(t.phase, 0)
                for t in data.translations}
    labels = np.fromiter(map(label_of.get, agreement.tags.group_translation.tolist(), repeat(-len(phases))),
                         dtype=np.int64, count=len(agreement.tags.group_start))
    k = data.annotators_per_item
    fleiss = {}
    if len(labels):
        fleiss |= agreement.tags.fleiss(labels.tolist(), k)
        pooled = np.where(labels >= 0, labels - labels % len(phases) + phase_code["all"], labels)
        fleiss |= agreement.tags.fleiss(pooled.tolist(), k)
    rows = []
    for d, domain in enumerate(domains):
        for phase in phases:
            chosen = (unit_domain == domain) & ((unit_phase == phase) if phase != "all" else True)
            kappa = fleiss.get(d * len(phases) + phase_code[phase])
            rows.append({
                "domain": domain,
                "phase": phase,
                "ROUGE-L": _weighted_mean(rouge.unit_mean[chosen], rouge.unit_weight[chosen]),
                "units": int(np.count_nonzero(chosen)),
                "pairs": int(pairs_per_unit[chosen].sum()),
                "Fleiss' kappa": kappa.result.kappa if kappa else None,
                "tokens": kappa.result.items if kappa else 0,
            })
    return rows


def domain_ranking(rows: list[dict]) -> list[dict]:
    """The domains over both phases, lowest ROUGE-L first (undefined last), then lowest kappa."""
    chosen = [{k: r[k] for k in ("domain", "ROUGE-L", "units", "Fleiss' kappa", "tokens")} for r in rows if r["phase"] == "all"]
    return sorted(chosen, key=lambda r: (_worst_first(r["ROUGE-L"]), _worst_first(r["Fleiss' kappa"]), r["domain"]))


# --- Agreement over time -------------------------------------------------------------------------------

WEEK_FIGURES = {"rouge_l_mean_f": "ROUGE-L F", "fleiss_kappa": "Fleiss' kappa"}


def week_points(weeks: list[dict]) -> list[dict]:
    """The weekly figures (``corpus.metrics.agreement_by_week``) as chart points: one per week and
    figure that has a value, dated, with ``run`` numbering each stretch of consecutive weeks, so a
    line joins neighbouring weeks only and a week without data shows as a gap."""
    points = []
    for key, label in WEEK_FIGURES.items():
        run, previous = -1, None
        for row in weeks:
            if row["week"] == "unknown" or row[key] is None:
                continue
            monday = date.fromisoformat(row["week"])
            if previous is None or (monday - previous).days != 7:
                run += 1
            previous = monday
            n = row["rouge_pairs"] if key == "rouge_l_mean_f" else row["tagged_translations"]
            points.append({"week": row["week"], "figure": label, "value": row[key], "n": n, "run": f"{label} {run}"})
    return points


WEEK_COLUMNS = {
    "week": "week (Monday)",
    "rouge_l_mean_f": "ROUGE-L F",
    "rouge_pairs": "pairs",
    "fleiss_kappa": "Fleiss' kappa",
    "tagged_translations": "tagged translations",
}


def week_table(weeks: list[dict]) -> list[dict]:
    """The weekly figures with human column names, "—" where a figure is undefined."""
    return [
        {
            WEEK_COLUMNS["week"]: r["week"],
            WEEK_COLUMNS["rouge_l_mean_f"]: figure_text(r["rouge_l_mean_f"]),
            WEEK_COLUMNS["rouge_pairs"]: r["rouge_pairs"],
            WEEK_COLUMNS["fleiss_kappa"]: figure_text(r["fleiss_kappa"]),
            WEEK_COLUMNS["tagged_translations"]: r["tagged_translations"],
        }
        for r in weeks
    ]
