"""An optional dev split carved from train by iterative stratification (Sechidis et al. 2011), as LinCE does.

Each source sentence is stratified over the set of {BIO tags present, LID labels present, length
bucket <=10 / 11-20 / >20 tokens, domain}; every translation of one source sentence stays in one
split, so augmented exports do not leak a sentence into both train and dev. The KL divergence of
each split's token label distribution against the whole export is reported in the card.
"""

from __future__ import annotations

import math
import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import replace
from itertools import chain

from corpus.export.records import ExportSentence

TAGS = ("B", "I", "O")


def distribution(labels: Iterable[str], support: Sequence[str]) -> list[float]:
    counts = Counter(labels)
    total = sum(counts[s] for s in support)
    return [counts[s] / total if total else 0.0 for s in support]


def kl_divergence(p: Sequence[float], q: Sequence[float], eps: float = 1e-12) -> float:
    """KL(p || q) in nats; ``eps`` keeps an empty category from making it infinite."""
    return sum(pi * math.log((pi + eps) / (qi + eps)) for pi, qi in zip(p, q) if pi > 0)


def length_bucket(n_tokens: int) -> str:
    if n_tokens <= 10:
        return "len:<=10"
    if n_tokens <= 20:
        return "len:11-20"
    return "len:>20"


def strata(record: ExportSentence) -> set[str]:
    labels = {f"tag:{t}" for t in record.hi_tags}
    labels |= {f"lid:{lab}" for lab in record.lid}
    labels.add(length_bucket(len(record.hi_tokens)))
    labels.add(f"domain:{record.domain}")
    return labels


def iterative_stratification(label_sets: Sequence[set[str]], ratios: Sequence[float], seed: int = 13) -> list[int]:
    """The subset index for each item, so every label's items are spread in ``ratios``."""
    rng = random.Random(seed)
    n = len(label_sets)
    wanted = [n * r for r in ratios]
    per_label: dict[str, list[float]] = defaultdict(lambda: [0.0] * len(ratios))
    holders: dict[str, set[int]] = defaultdict(set)
    for i, labels in enumerate(label_sets):
        for lab in labels:
            holders[lab].add(i)
    for lab, items in holders.items():
        per_label[lab] = [len(items) * r for r in ratios]
    assignment = [-1] * n
    remaining = set(range(n))

    def choose(candidates: list[int]) -> int:
        return candidates[0] if len(candidates) == 1 else rng.choice(candidates)

    def assign(i: int, subset: int) -> None:
        assignment[i] = subset
        remaining.discard(i)
        wanted[subset] -= 1
        for lab in label_sets[i]:
            per_label[lab][subset] -= 1
            holders[lab].discard(i)

    while remaining:
        open_labels = [lab for lab, items in holders.items() if items]
        if not open_labels:
            for i in sorted(remaining):
                best = max(wanted)
                assign(i, choose([j for j, w in enumerate(wanted) if w == best]))
            break
        label = min(open_labels, key=lambda lab: (len(holders[lab]), lab))
        for i in sorted(holders[label]):
            desire = per_label[label]
            top = max(desire)
            tied = [j for j, d in enumerate(desire) if d == top]
            if len(tied) > 1:
                top_w = max(wanted[j] for j in tied)
                tied = [j for j in tied if wanted[j] == top_w]
            assign(i, choose(tied))
    return assignment


def carve_dev(records: Sequence[ExportSentence], fraction: float, seed: int = 13) -> list[ExportSentence]:
    """Records with about ``fraction`` of train source sentences moved to ``dev``."""
    if not 0.0 < fraction < 1.0:
        raise ValueError(f"dev fraction must be between 0 and 1, got {fraction}")
    groups: dict[tuple[str, str], list[int]] = {}
    for i, rec in enumerate(records):
        if rec.split == "train":
            groups.setdefault((rec.domain, rec.sentence_id), []).append(i)
    keys = list(groups)
    label_sets = [set().union(*(strata(records[i]) for i in groups[k])) for k in keys]
    assignment = iterative_stratification(label_sets, [1.0 - fraction, fraction], seed=seed)
    moved = {i for k, subset in zip(keys, assignment) if subset == 1 for i in groups[k]}
    return [replace(rec, split="dev") if i in moved else rec for i, rec in enumerate(records)]


def split_divergence(records: Sequence[ExportSentence]) -> dict[str, dict]:
    """Per split: sentences, tokens, BIO token distribution and its KL divergence against the whole."""
    whole = distribution(chain.from_iterable(r.hi_tags for r in records), TAGS)
    by_split: dict[str, list[ExportSentence]] = defaultdict(list)
    for r in records:
        by_split[r.split].append(r)
    report = {}
    for split, recs in by_split.items():
        dist = distribution(chain.from_iterable(r.hi_tags for r in recs), TAGS)
        report[split] = {
            "sentences": len(recs),
            "tokens": sum(len(r.hi_tags) for r in recs),
            "distribution": dict(zip(TAGS, dist)),
            "kl_vs_whole": kl_divergence(dist, whole),
        }
    return report


def apply_dev_split(dataset, fraction: float | None, seed: int = 13):
    """The dataset with a dev split carved from train (or unchanged when ``fraction`` is None/0)."""
    if not fraction:
        dataset.meta.setdefault("split_note", "SemEval-2014's train/test split is kept; no dev split was carved.")
        return dataset
    dataset.sentences = carve_dev(dataset.sentences, fraction, seed)
    dataset.meta["split_note"] = (
        f"SemEval-2014's train/test split is kept; a dev split of about {100 * fraction:g}% of train source sentences "
        f"was carved by iterative stratification (Sechidis et al. 2011; seed {seed}) over the set of BIO tags present, "
        "LID labels present, length bucket (<=10, 11-20, >20 tokens) and domain, as LinCE does. All translations of "
        "one source sentence stay in one split. `source_split` in the JSONL keeps the SemEval split."
    )
    return dataset
