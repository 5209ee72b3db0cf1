"""The dashboard's lowest-agreement list (corpus.metrics.sentence_agreement): least agreement first."""

from __future__ import annotations

from datetime import datetime

import pytest

from corpus.agreement import MetricsInput, SentenceInfo, TagSet, TranslationInfo
from corpus.metrics import compute_agreement, dashboard_tables, sentence_agreement

T0 = datetime(2026, 3, 2, 10, 0)


def _input() -> MetricsInput:
    """s1: identical pair (F 1); s2: disjoint pair (F 0); s3: "अच्छा खाना" / "अच्छा खाना था" (F 4/5);
    s4: one translation, tagged by two annotators who disagree on one of two tokens (tag agreement 1/2)."""
    sentences = [SentenceInfo(i, f"s{i}", "restaurant", "train", "Good food", 0, i) for i in (1, 2, 3, 4)]
    translations = [
        TranslationInfo(11, 1, "aware", "asha", "खाना अच्छा था", False, T0),
        TranslationInfo(12, 1, "aware", "bilal", "खाना अच्छा था", False, T0),
        TranslationInfo(21, 2, "aware", "asha", "खाना अच्छा था", False, T0),
        TranslationInfo(22, 2, "aware", "bilal", "बिलकुल अलग शब्द", False, T0),
        TranslationInfo(31, 3, "aware", "asha", "अच्छा खाना", False, T0),
        TranslationInfo(32, 3, "aware", "bilal", "अच्छा खाना था", False, T0),
        TranslationInfo(41, 4, "aware", "asha", "अच्छा खाना", False, T0),
    ]
    tag_sets = [TagSet(41, "meera", "OB", T0), TagSet(41, "nikhil", "OO", T0)]
    return MetricsInput(sentences, translations, tag_sets, {}, 2)


def test_sentences_are_ordered_from_least_to_most_translation_agreement_then_tag_only_units():
    data = _input()
    rows = sentence_agreement(data, compute_agreement(data))
    assert [r["sentence_id"] for r in rows] == ["s2", "s3", "s1", "s4"]
    assert [r["mean_f"] for r in rows[:3]] == pytest.approx([0.0, 4 / 5, 1.0])
    assert rows[3]["mean_f"] is None and rows[3]["token_agreement"] == pytest.approx(1 / 2)


def test_dashboard_keeps_only_the_lowest_but_counts_them_all():
    data = _input()
    tables = dashboard_tables(data, compute_agreement(data), lowest=2)
    assert [r["sentence_id"] for r in tables["sentences"]] == ["s2", "s3"]
    assert tables["sentence_count"] == 4
