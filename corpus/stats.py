"""Corpus statistics as in the seed paper's Table 1, over plain labelled sentences.

Used for our corpus (English source side and Hindi final side), for audited datasets, and in the
dataset card, so the same definitions hold everywhere.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from itertools import chain
from dataclasses import dataclass
from typing import Any

from corpus.bio import char_spans_to_tags
from corpus.tokens import TOKENIZER_SIGNATURE, tokenize_with_offsets


@dataclass(frozen=True)
class LabelledSentence:
    domain: str
    tags: tuple[str, ...]
    aspect_terms: int


def english_labelled(domain: str, text: str, spans: Iterable[tuple[int, int]]) -> LabelledSentence:
    """The English side: canonical tokens, BIO from SemEval character offsets."""
    spans = list(spans)
    tags = char_spans_to_tags(tokenize_with_offsets(text), spans)
    return LabelledSentence(domain, tuple(tags), len(spans))


def _ratio(a: float, b: float) -> float | None:
    return a / b if b else None


def table1(sentences: Iterable[LabelledSentence]) -> dict[str, Any]:
    sentences = list(sentences)
    n = len(sentences)
    aspects = sum(s.aspect_terms for s in sentences)
    marked = sum(1 for s in sentences if s.aspect_terms > 0)
    tag_counts = Counter(chain.from_iterable(s.tags for s in sentences))  # counted in C, not a generator per tag
    n_tokens = sum(tag_counts.values())
    per_domain: dict[str, dict[str, int]] = {}
    for s in sentences:
        d = per_domain.setdefault(s.domain, {"sentences": 0, "aspect_terms": 0})
        d["sentences"] += 1
        d["aspect_terms"] += s.aspect_terms
    return {
        "sentences": n,
        "aspect_terms": aspects,
        "marked_sentences": marked,
        "marked_share": _ratio(marked, n),
        "aspects_per_sentence": _ratio(aspects, n),
        "aspects_per_marked_sentence": _ratio(aspects, marked),
        "tokens": n_tokens,
        "tag_share": {t: _ratio(tag_counts.get(t, 0), n_tokens) for t in ("B", "I", "O")},
        "domains": len(per_domain),
        "per_domain": dict(sorted(per_domain.items())),
        "tokenizer": TOKENIZER_SIGNATURE,
    }


@dataclass
class StatInputs:
    english: list[LabelledSentence]
    hindi: list[LabelledSentence]


def corpus_statistics(inputs: StatInputs) -> dict[str, Any]:
    """Table 1 for the English source and for the Hindi side (final translations with gold tags)."""
    return {"english": table1(inputs.english), "hindi": table1(inputs.hindi)}


def _fmt(value: Any, percent: bool = False) -> str:
    if value is None:
        return "–"
    if percent:
        return f"{100 * value:.1f}%"
    if isinstance(value, float):
        return f"{value:.2f}"
    return f"{value:,}"


TABLE1_ROWS = [
    ("Sentences", "sentences", False),
    ("Aspect terms", "aspect_terms", False),
    ("Sentences with ≥ 1 aspect", "marked_sentences", False),
    ("  share", "marked_share", True),
    ("Aspects per sentence", "aspects_per_sentence", False),
    ("Aspects per marked sentence", "aspects_per_marked_sentence", False),
    ("Tokens", "tokens", False),
    ("Domains", "domains", False),
]


def table1_rows(columns: dict[str, dict[str, Any]]) -> list[dict[str, str]]:
    """Table 1 as display rows, one column per corpus (e.g. English, Hindi, an audited file)."""
    rows = []
    for label, key, percent in TABLE1_ROWS:
        rows.append({"statistic": label, **{name: _fmt(stats[key], percent) for name, stats in columns.items()}})
    for tag in ("B", "I", "O"):
        rows.append({"statistic": f"{tag} tokens", **{name: _fmt(stats["tag_share"][tag], True) for name, stats in columns.items()}})
    domains = sorted({d for stats in columns.values() for d in stats["per_domain"]})
    for d in domains:
        rows.append({"statistic": f"Sentences: {d}", **{name: _fmt(stats["per_domain"].get(d, {}).get("sentences", 0)) for name, stats in columns.items()}})
    return rows


def format_statistics(stats: dict[str, Any]) -> str:
    rows = table1_rows({"English (source)": stats["english"], "Hindi (final, gold)": stats["hindi"]})
    width = max(len(r["statistic"]) for r in rows) + 2
    lines = [f"{'':{width}}{'English (source)':>20}{'Hindi (final, gold)':>22}"]
    for r in rows:
        lines.append(f"{r['statistic']:{width}}{r['English (source)']:>20}{r['Hindi (final, gold)']:>22}")
    lines.append(f"tokenizer: {stats['english']['tokenizer']}")
    return "\n".join(lines)
