"""The agreement report of ``metrics --json`` and the dashboard, assembled from plain inputs.

Keys and meaning are a contract (docs/contracts.md): ``rouge_l_pairs``,
``rouge_l_sentences``, ``rouge_l``, ``fleiss_kappa``, ``cohen_kappa``, ``span_f1``, ``coverage``,
``signature``. Every figure travels with the signature that says how it was computed.
"""

from __future__ import annotations

from dataclasses import dataclass
import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import date, datetime
from itertools import repeat

import numpy as np
import statsmodels

from corpus.agreement import (
    COVERAGE_DEFINITION,
    WEIGHTING,
    MetricsInput,
    RougeResult,
    aspects_kept,
    columns,
    coverage,
    rouge_agreement,
    rouge_summary,
    tag_table,
)
from corpus.kappa import (
    COHEN_SETTINGS,
    FLEISS_SETTINGS,
    PairTally,
    TagTable,
    SPAN_F1_SETTINGS,
    cohen_from_confusion,
    fleiss_over_translations,
    per_annotator_tallies,
    span_f1,
)
from corpus.records import PHASES
from corpus.rouge import ROUGE_SETTINGS, ROUGE_SIGNATURE
from corpus.tokens import TOKENIZER_SIGNATURE

REPORT_KEYS = (
    "rouge_l_pairs",
    "rouge_l_sentences",
    "rouge_l",
    "fleiss_kappa",
    "cohen_kappa",
    "span_f1",
    "coverage",
    "signature",
)


def signature(annotators_per_item: int) -> dict:
    """How every figure was computed, so a number can be reproduced."""
    fleiss_items = f"items: tokens of translations tagged by exactly {annotators_per_item} annotators"
    return {
        "tokenizer": TOKENIZER_SIGNATURE,
        "rouge_l": f"{ROUGE_SETTINGS}; equals rouge-score fmeasure (target = translator_a)",
        "rouge_l_weighting": WEIGHTING,
        "fleiss_kappa": f"{FLEISS_SETTINGS}; {fleiss_items}",
        "cohen_kappa": COHEN_SETTINGS,
        "span_f1": SPAN_F1_SETTINGS,
        "coverage": COVERAGE_DEFINITION,
        "counted": "submitted translations and submitted annotations only",
        "statsmodels": statsmodels.__version__,
        "text": f"tok:{TOKENIZER_SIGNATURE}|{ROUGE_SIGNATURE}|fleiss:BIO,k={annotators_per_item}|cohen:BIO|spanF1:exact",
    }


def fleiss_section(data: MetricsInput, table: TagTable) -> dict:
    phase_of = {t.pk: t.phase for t in data.translations}
    phases = list(map(phase_of.__getitem__, table.group_translation.tolist()))
    k = data.annotators_per_item
    by_phase = table.fleiss(phases, k)
    section: dict = {}
    for phase in PHASES:
        section[phase] = (by_phase.get(phase) or fleiss_over_translations([], k)).as_dict()
    overall = table.fleiss(["overall"] * len(phases), k).get("overall") or fleiss_over_translations([], k)
    section["overall"] = overall.as_dict()
    section["annotators_per_item"] = k
    section["invalid_tag_sets"] = data.invalid_tag_sets
    return section


def tagging_sections(table: TagTable) -> tuple[dict, dict]:
    """Cohen's kappa and exact span F1 per annotator pair, and each annotator against the others."""
    tallies = table.pair_tallies()
    pooled = per_annotator_tallies(tallies)
    cohen_pairs, f1_pairs = [], []
    for (a, b), tally in sorted(tallies.items()):
        kappa = cohen_from_confusion(tally.confusion)
        cohen_pairs.append({
            "annotator_a": a, "annotator_b": b, "kappa": kappa.kappa, "reason": kappa.reason,
            "tokens": kappa.items, "translations": tally.translations,
        })
        f1, why = span_f1(tally)
        f1_pairs.append({
            "annotator_a": a, "annotator_b": b, "f1": f1, "reason": why, "spans_a": tally.spans_a,
            "spans_b": tally.spans_b, "matched": tally.matched, "translations": tally.translations,
        })
    cohen_people, f1_people = [], []
    for name, tally in sorted(pooled.items()):
        kappa = cohen_from_confusion(tally.confusion)
        cohen_people.append({
            "annotator": name, "kappa": kappa.kappa, "reason": kappa.reason, "tokens": kappa.items,
            "translations": tally.translations,
        })
        f1, why = span_f1(tally)
        f1_people.append({
            "annotator": name, "f1": f1, "reason": why, "spans": tally.spans_a, "others_spans": tally.spans_b,
            "matched": tally.matched,
        })
    total = PairTally(np.zeros((3, 3), dtype=np.int64))
    for tally in tallies.values():
        total += tally
    overall_f1, overall_why = span_f1(total) if tallies else (None, "no translation tagged by two annotators")
    repaired = int(np.count_nonzero(table.stray_i_counts()))
    cohen = {"pairs": cohen_pairs, "per_annotator": cohen_people}
    f1 = {
        "pairs": f1_pairs,
        "per_annotator": f1_people,
        "overall": overall_f1,
        "overall_reason": overall_why,
        "repaired_tag_sets": repaired,
    }
    return cohen, f1


@dataclass
class Agreement:
    """Every figure: the columnar ROUGE-L result (for tables and charts) and the summary sections."""

    rouge: RougeResult
    rouge_l: dict
    fleiss_kappa: dict
    cohen_kappa: dict
    span_f1: dict
    coverage: dict
    signature: dict
    tags: TagTable
    tag_sources: list

    def report_summary(self) -> dict:
        """The report without its two long row lists (what summaries and tables need)."""
        return {
            "rouge_l": self.rouge_l,
            "fleiss_kappa": self.fleiss_kappa,
            "cohen_kappa": self.cohen_kappa,
            "span_f1": self.span_f1,
            "coverage": self.coverage,
            "signature": self.signature,
        }

    def report(self) -> dict:
        """JSON-ready, with exactly the keys of the interfaces doc (``REPORT_KEYS``)."""
        with paused_gc():
            pairs, units = self.rouge.pair_rows(), self.rouge.unit_rows()
        return {
            "rouge_l_pairs": pairs,
            "rouge_l_sentences": units,
            "rouge_l": self.rouge_l,
            "fleiss_kappa": self.fleiss_kappa,
            "cohen_kappa": self.cohen_kappa,
            "span_f1": self.span_f1,
            "coverage": self.coverage,
            "signature": self.signature,
        }


@contextmanager
def paused_gc() -> Iterator[None]:
    """The figures allocate millions of short-lived objects and no cycles; the cyclic collector's
    full passes over a large heap would cost more than the computation."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def compute_agreement(data: MetricsInput) -> Agreement:
    with paused_gc():
        return _compute_agreement(data)


def _compute_agreement(data: MetricsInput) -> Agreement:
    table, sources = tag_table(data)
    kept = aspects_kept(data, table)
    rouge = rouge_agreement(data, kept)
    cohen, f1 = tagging_sections(table)
    return Agreement(
        rouge,
        rouge_summary(rouge),
        fleiss_section(data, table),
        cohen,
        f1,
        coverage(data, kept),
        signature(data.annotators_per_item),
        table,
        sources,
    )


def compute_report(data: MetricsInput) -> dict:
    """Every agreement figure, JSON-ready, with exactly the keys of the interfaces doc."""
    return compute_agreement(data).report()


# --- Dashboard tables (plain rows) ------------------------------------------------------------------


def _day(moment: datetime | None) -> int:
    return moment.toordinal() if moment is not None else -1


def week_labels(days: np.ndarray) -> list[str]:
    """The Monday (ISO date) of each day ordinal (-1 = unknown): the unit of agreement over time."""
    mondays = np.where(days > 0, days - (days - 1) % 7, -1)  # day 1 (0001-01-01) was a Monday
    distinct, inverse = np.unique(mondays, return_inverse=True)
    labels = [date.fromordinal(d).isoformat() if d > 0 else "unknown" for d in distinct.tolist()]
    return [labels[i] for i in inverse.ravel().tolist()]


def _days(moments: Sequence[datetime | None]) -> np.ndarray:
    if None in moments:
        return np.fromiter(map(_day, moments), dtype=np.int64, count=len(moments))
    return np.fromiter(map(datetime.toordinal, moments), dtype=np.int64, count=len(moments))


def agreement_by_week(agreement: Agreement) -> list[dict]:
    """ROUGE-L of the pairs completed in a week (the later submission of the two) and Fleiss' kappa
    of the translations whose last annotation was submitted that week."""
    rouge, table = agreement.rouge, agreement.tags
    days = _days([t.submitted_at for t in rouge.translations])
    pair_week = week_labels(np.maximum(days[rouge.pair_a], days[rouge.pair_b]))
    sources = agreement.tag_sources
    tag_days = _days([sources[i].submitted_at for i in table.source.tolist()])
    group_week = week_labels(np.maximum.reduceat(tag_days, table.group_start)) if len(table.group_start) else []
    k = agreement.fleiss_kappa["annotators_per_item"]
    fleiss = table.fleiss(group_week, k)
    weeks = list(dict.fromkeys(pair_week))
    code = {w: i for i, w in enumerate(weeks)}
    pair_code = np.fromiter(map(code.__getitem__, pair_week), dtype=np.int64, count=len(pair_week))
    totals = np.bincount(pair_code, weights=rouge.pair_f, minlength=len(weeks)).tolist()  # summed in pair order
    counts = np.bincount(pair_code, minlength=len(weeks)).tolist()
    sums = {w: (totals[i], counts[i]) for i, w in enumerate(weeks)}
    rows = []
    for label in sorted(set(sums) | set(fleiss), key=lambda w: (w == "unknown", w)):
        total, n = sums.get(label, (0.0, 0))
        result = fleiss.get(label)
        rows.append({
            "week": label,
            "rouge_pairs": n,
            "rouge_l_mean_f": total / n if n else None,
            "tagged_translations": result.translations if result else 0,
            "fleiss_kappa": result.result.kappa if result else None,
            "fleiss_reason": result.result.reason if result else "no tagged translations",
        })
    return rows


def tagging_by_unit(data: MetricsInput, table: TagTable) -> dict[tuple[str, str, str, str], dict]:
    """Per (domain, split, sentence id, phase): tokens tagged by 2+ annotators and the share all agree on."""
    agreed, usable = table.agreed_tokens()
    out: dict[tuple[str, str, str, str], dict] = {}
    if not data.translations or not len(agreed):
        return out
    pk, sentence_pk, phase = columns(data.translations, 0, 1, 2)
    sentence_at = {s.pk: i for i, s in enumerate(data.sentences)}
    where = dict(zip(pk, map(sentence_at.get, sentence_pk, repeat(-1))))
    position = dict(zip(pk, range(len(pk))))
    group_pk = table.group_translation[usable].tolist()
    sentence_of = np.fromiter(map(where.get, group_pk, repeat(-1)), dtype=np.int64, count=len(group_pk))
    translation_of = np.fromiter(map(position.get, group_pk, repeat(-1)), dtype=np.int64, count=len(group_pk))
    phases = list(dict.fromkeys(phase))
    phase_index = {p: i for i, p in enumerate(phases)}
    phase_code = np.fromiter(map(phase_index.__getitem__, phase), dtype=np.int64, count=len(phase))
    found = sentence_of >= 0
    unit = np.where(found, sentence_of * len(phases) + phase_code[translation_of], -1)[found]
    n_tokens = table.length[table.group_start[usable]][found]
    same = agreed[found]
    keys, first, inverse = np.unique(unit, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # units in the order their first translation comes
    tokens = np.bincount(inverse, weights=n_tokens, minlength=len(keys)).astype(np.int64)
    agreeing = np.bincount(inverse, weights=same, minlength=len(keys)).astype(np.int64)
    identical = np.bincount(inverse, weights=(same == n_tokens), minlength=len(keys)).astype(np.int64)
    tagged = np.bincount(inverse, minlength=len(keys))
    sentences = data.sentences
    for u, n, a, i, c in zip(keys[order].tolist(), tokens[order].tolist(), agreeing[order].tolist(),
                             identical[order].tolist(), tagged[order].tolist()):
        s = sentences[u // len(phases)]
        key = (s.domain, s.split, s.sentence_id, phases[u % len(phases)])
        row = out.get(key)
        if row is None:
            row = out[key] = {"tokens": 0, "agreed": 0, "identical_tag_sets": 0, "tagged_translations": 0}
        row["tokens"] += n
        row["agreed"] += a
        row["identical_tag_sets"] += i
        row["tagged_translations"] += c
    for row in out.values():
        row["token_agreement"] = row["agreed"] / row["tokens"] if row["tokens"] else None
    return out


def sentence_agreement(data: MetricsInput, agreement: Agreement) -> list[dict]:
    """Every (sentence, phase) with its translation agreement (mean ROUGE-L) and tag agreement
    (share of tokens all annotators tag alike), least agreement first."""
    tagging = tagging_by_unit(data, agreement.tags)
    units = agreement.rouge.unit_columns()
    rows = []
    seen = set()
    for sid, domain, split, phase, n, mean_f, best in zip(
        units["sentence_id"], units["domain"], units["split"], units["phase"], units["translations"],
        units["mean_f"], units["best_translator"],
    ):
        key = (domain, split, sid, phase)
        seen.add(key)
        tag = tagging.get(key)
        rows.append({
            "domain": domain, "split": split, "sentence_id": sid, "phase": phase, "translations": n,
            "mean_f": mean_f, "best_translator": best, "token_agreement": tag["token_agreement"] if tag else None,
        })
    for key, tag in tagging.items():
        if key not in seen:
            rows.append({
                "domain": key[0], "split": key[1], "sentence_id": key[2], "phase": key[3], "translations": None,
                "mean_f": None, "best_translator": None, "token_agreement": tag["token_agreement"],
            })

    def order(row: dict) -> tuple:
        f, agree = row["mean_f"], row["token_agreement"]
        return (2.0 if f is None else f, 2.0 if agree is None else agree, row["domain"], row["split"], row["sentence_id"])

    return sorted(rows, key=order)


def format_report(report: dict) -> str:
    """A readable Table-2-like summary for the terminal."""
    rouge = report["rouge_l"]
    fleiss = report["fleiss_kappa"]

    def num(value: float | None, digits: int = 3) -> str:
        return "n/a" if value is None else f"{value:.{digits}f}"

    lines = ["Agreement (seed paper Table 2)", ""]
    lines.append(f"{'':22}{'aware':>10}{'blind':>10}{'overall':>10}{'best':>10}")
    lines.append(
        f"{'ROUGE-L F (weighted)':22}{num(rouge['aware']):>10}{num(rouge['blind']):>10}"
        f"{num(rouge['overall']):>10}{num(rouge['best']):>10}"
    )
    unweighted = rouge["unweighted"]
    lines.append(
        f"{'ROUGE-L F (unweighted)':22}{num(unweighted['aware']):>10}{num(unweighted['blind']):>10}"
        f"{num(unweighted['overall']):>10}{num(unweighted['best']):>10}"
    )
    lines.append(
        f"{'Fleiss kappa (B/I/O)':22}{num(fleiss['aware']['kappa']):>10}{num(fleiss['blind']['kappa']):>10}"
        f"{num(fleiss['overall']['kappa']):>10}{'':>10}"
    )
    lines.append("")
    lines.append(
        f"ROUGE-L over {rouge['units']['aware']} aware and {rouge['units']['blind']} blind sentence units, "
        f"{rouge['pairs']} pairs; {rouge['excluded_units']} units excluded (fewer than 2 translations)"
    )
    for phase in (*PHASES, "overall"):
        entry = fleiss[phase]
        if entry["kappa"] is None:
            lines.append(f"Fleiss kappa {phase}: undefined - {entry['reason']}")
        else:
            lines.append(
                f"Fleiss kappa {phase}: {entry['items']} tokens of {entry['translations']} translations, "
                f"{entry['raters']} annotators each"
            )
    lines.append("")
    lines.append("Cohen's kappa and exact span F1 per annotator pair")
    for c, f in zip(report["cohen_kappa"]["pairs"], report["span_f1"]["pairs"]):
        kappa = num(c["kappa"]) if c["kappa"] is not None else f"n/a ({c['reason']})"
        f1 = num(f["f1"]) if f["f1"] is not None else f"n/a ({f['reason']})"
        lines.append(f"  {c['annotator_a']} / {c['annotator_b']}: kappa {kappa}, span F1 {f1}, {c['tokens']} tokens")
    if not report["cohen_kappa"]["pairs"]:
        lines.append("  (no translation tagged by two annotators yet)")
    cov = report["coverage"]
    percent = "n/a" if cov["percent"] is None else f"{cov['percent']:.1f}%"
    lines.append("")
    lines.append(
        f"Coverage: {cov['fewer_in_blind']} of {cov['compared']} sentences ({percent}) kept fewer aspects "
        "in the aspect-blind phase"
    )
    lines.append("")
    lines.append(f"signature: {report['signature']['text']}")
    return "\n".join(lines)


def summary_rows(report: dict) -> list[dict]:
    """Table 2 as rows (figure, aware, blind, overall, best) for the dashboard and CSV."""
    rouge, fleiss = report["rouge_l"], report["fleiss_kappa"]
    return [
        {"figure": "ROUGE-L F (weighted)", "aware": rouge["aware"], "blind": rouge["blind"],
         "overall": rouge["overall"], "best": rouge["best"]},
        {"figure": "ROUGE-L F (unweighted)", **{k: rouge["unweighted"][k] for k in ("aware", "blind", "overall", "best")}},
        {"figure": "Fleiss' kappa (B/I/O tokens)", "aware": fleiss["aware"]["kappa"], "blind": fleiss["blind"]["kappa"],
         "overall": fleiss["overall"]["kappa"], "best": None},
    ]


def undefined_reasons(report: dict) -> list[str]:
    fleiss = report["fleiss_kappa"]
    return [f"Fleiss' kappa {p}: {fleiss[p]['reason']}" for p in (*PHASES, "overall") if fleiss[p]["kappa"] is None]


# --- What the lead's dashboard shows (plain rows; the page only renders) ---------------------------

EXPLANATIONS = {
    "rouge": (
        "ROUGE-L F: how much two translations of the same sentence and phase share their wording in order "
        "(longest common subsequence of canonical words, 1 = identical), averaged per sentence and weighted "
        "by sentence length."
    ),
    "best": "Best: the chosen translation of each sentence (highest mean ROUGE-L against the others) scored against the rest.",
    "fleiss": (
        "Fleiss' kappa: how far annotators agree on each token's B/I/O tag beyond chance (1 = perfect, 0 = chance), "
        "over the translations tagged by all K annotators."
    ),
    "coverage": "Coverage: " + COVERAGE_DEFINITION + ".",
}


def histogram(values: np.ndarray, groups: np.ndarray | None = None, bins: int = 20) -> list[dict]:
    """Counts per bin of values in [0, 1] (per group), so charts carry 20 bars, not 70,000 points."""
    values = np.asarray(values, dtype=np.float64)
    edges = np.linspace(0.0, 1.0, bins + 1)
    labels = [None] if groups is None else list(dict.fromkeys(np.asarray(groups).tolist()))
    rows = []
    for label in labels:
        chosen = values if label is None else values[np.asarray(groups) == label]
        counts, _ = np.histogram(np.clip(chosen, 0.0, 1.0), bins=edges)
        for i, n in enumerate(counts.tolist()):
            rows.append({"group": label or "all", "from": float(edges[i]), "to": float(edges[i + 1]), "count": n})
    return rows


def annotator_rows(agreement: Agreement) -> list[dict]:
    """Each annotator against the others: Cohen's kappa over shared tokens and exact span F1."""
    f1 = {r["annotator"]: r for r in agreement.span_f1["per_annotator"]}
    return [
        {
            "annotator": r["annotator"],
            "kappa vs others": r["kappa"],
            "span F1 vs others": f1.get(r["annotator"], {}).get("f1"),
            "tokens compared": r["tokens"],
            "translations compared": r["translations"],
            "why undefined": r["reason"] or f1.get(r["annotator"], {}).get("reason"),
        }
        for r in agreement.cohen_kappa["per_annotator"]
    ]


def annotator_pair_rows(agreement: Agreement) -> list[dict]:
    f1 = {(r["annotator_a"], r["annotator_b"]): r for r in agreement.span_f1["pairs"]}
    rows = []
    for r in agreement.cohen_kappa["pairs"]:
        pair = f1.get((r["annotator_a"], r["annotator_b"]), {})
        rows.append({
            "annotator a": r["annotator_a"], "annotator b": r["annotator_b"], "Cohen's kappa": r["kappa"],
            "span F1": pair.get("f1"), "tokens": r["tokens"], "translations": r["translations"],
            "why undefined": r["reason"] or pair.get("reason"),
        })
    return rows


def token_agreement_values(rows: list[dict]) -> np.ndarray:
    return np.array([r["token_agreement"] for r in rows if r["token_agreement"] is not None], dtype=np.float64)


def dashboard_tables(data: MetricsInput, agreement: Agreement, lowest: int | None = None) -> dict:
    """Every table and chart series of the dashboard, as plain rows and dicts (``lowest``: how many
    of the least-agreeing sentences to keep; all of them when None)."""
    with paused_gc():
        return _dashboard_tables(data, agreement, lowest)


def _dashboard_tables(data: MetricsInput, agreement: Agreement, lowest: int | None) -> dict:
    sentences = sentence_agreement(data, agreement)
    rouge = agreement.rouge
    pair_phase = np.array(rouge.unit_phase, dtype=object)[rouge.pair_unit] if len(rouge.pair_unit) else np.zeros(0, object)
    return {
        "table2": summary_rows(agreement.report_summary()),
        "reasons": undefined_reasons(agreement.report_summary()),
        "rouge_l": agreement.rouge_l,
        "fleiss_kappa": agreement.fleiss_kappa,
        "coverage": agreement.coverage,
        "signature": agreement.signature,
        "translators": agreement.rouge_l["per_translator"],
        "annotators": annotator_rows(agreement),
        "annotator_pairs": annotator_pair_rows(agreement),
        "pair_histogram": histogram(rouge.pair_f, pair_phase),
        "tag_histogram": histogram(token_agreement_values(sentences)),
        "weeks": agreement_by_week(agreement),
        "sentences": sentences[:lowest] if lowest is not None else sentences,
        "sentence_count": len(sentences),
    }
