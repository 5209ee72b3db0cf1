"""The dashboard's tables and chart series of the figures (plain rows): agreement by week, per sentence-phase
unit, per annotator and annotator pair, histograms."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from itertools import repeat

import numpy as np

from corpus.agreement import MetricsInput, columns
from corpus.kappa import TagTable
from corpus.metrics.reporters import summary_rows, undefined_reasons
from corpus.metrics.report import Agreement, paused_gc


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


def _positions(keys: list[int], wanted: list[int]) -> np.ndarray:
    """Where each of ``wanted`` sits in ``keys`` (distinct ids), -1 where it is not there: by a sorted search,
    not a dict of 48,000 entries per call."""
    if not keys or not wanted:
        return np.full(len(wanted), -1, dtype=np.int64)
    key_array = np.fromiter(keys, dtype=np.int64, count=len(keys))
    order = np.argsort(key_array, kind="stable")
    ordered = key_array[order]
    wanted_array = np.fromiter(wanted, dtype=np.int64, count=len(wanted))
    at = np.minimum(np.searchsorted(ordered, wanted_array), len(ordered) - 1)
    return np.where(ordered[at] == wanted_array, order[at], -1)


def tagging_by_unit(data: MetricsInput, table: TagTable) -> dict[tuple[str, str, str, str], dict]:
    """Per (domain, split, sentence id, phase): tokens tagged by 2+ annotators and the share all agree on."""
    agreed, usable = table.agreed_tokens()
    out: dict[tuple[str, str, str, str], dict] = {}
    if not data.translations or not len(agreed):
        return out
    pk, sentence_pk, phase = columns(data.translations, 0, 1, 2)
    sentence_of_translation = _positions([s.pk for s in data.sentences], sentence_pk)
    group_pk = table.group_translation[usable].tolist()
    translation_of = _positions(pk, group_pk)
    sentence_of = np.where(translation_of >= 0, sentence_of_translation[translation_of], -1)
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
        if row is None:  # one unit per key, unless two sentences share domain, split and id
            out[key] = {"tokens": n, "agreed": a, "identical_tag_sets": i, "tagged_translations": c}
        else:
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


# --- What the lead's dashboard shows (plain rows; the page only renders) ---------------------------

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
