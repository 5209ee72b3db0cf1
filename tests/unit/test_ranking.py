"""The dashboard's ranked lists and Table 2 as shown (corpus.ranking), on a corpus checked by hand.

s1 restaurant  asha "खाना अच्छा था" / bilal "खाना अच्छा था"        F 1    (weight 2 + 3)
s2 restaurant  asha "खाना अच्छा था" / bilal "बिलकुल अलग शब्द"      F 0    (weight 2 + 3)
s3 laptop      asha "अच्छा खाना"    / chitra "अच्छा खाना था"       F 4/5  (weight 2 + 5/2)
Tags: s1/asha meera BOO, nikhil BOO; s1/bilal meera BOO, om OOO; s3/asha meera OB, nikhil OO.
"""

from __future__ import annotations

from datetime import datetime
from fractions import Fraction

import numpy as np
import pytest

from corpus.agreement import MetricsInput, SentenceInfo, TagSet, TranslationInfo
from corpus.metrics import compute_agreement
from corpus.progress import ProgressCount, phase_progress
from corpus.ranking import (
    BOOTSTRAP_LEVEL,
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    NOT_DEFINED,
    annotator_ranking,
    bootstrap_mean_interval,
    domain_figures,
    domain_ranking,
    figure_text,
    in_scope,
    interval_text,
    sentence_ranking,
    share_text,
    table2_basis,
    table2_rows,
    translator_ranking,
    week_points,
    week_table,
)
from corpus.vocabulary import Status

T0 = datetime(2026, 3, 2, 10, 0)


def corpus() -> MetricsInput:
    sentences = [
        SentenceInfo(1, "s1", "restaurant", "train", "Good food", 0, 1),
        SentenceInfo(2, "s2", "restaurant", "train", "Good food", 0, 2),
        SentenceInfo(3, "s3", "laptop", "test", "Good food", 0, 3),
    ]
    translations = [
        TranslationInfo(11, 1, "aware", "asha", "खाना अच्छा था", False, T0),
        TranslationInfo(12, 1, "aware", "bilal", "खाना अच्छा था", False, T0),
        TranslationInfo(21, 2, "aware", "asha", "खाना अच्छा था", False, T0),
        TranslationInfo(22, 2, "aware", "bilal", "बिलकुल अलग शब्द", False, T0),
        TranslationInfo(31, 3, "aware", "asha", "अच्छा खाना", False, T0),
        TranslationInfo(32, 3, "aware", "chitra", "अच्छा खाना था", False, T0),
    ]
    tag_sets = [
        TagSet(11, "meera", "BOO", T0), TagSet(11, "nikhil", "BOO", T0),
        TagSet(12, "meera", "BOO", T0), TagSet(12, "om", "OOO", T0),
        TagSet(31, "meera", "OB", T0), TagSet(31, "nikhil", "OO", T0),
    ]
    return MetricsInput(sentences, translations, tag_sets, {}, 2)


@pytest.fixture(scope="module")
def figures():
    data = corpus()
    return data, compute_agreement(data)


def test_table_2_shows_dashes_where_a_figure_is_undefined(figures):
    # ROUGE-L aware: (1·5 + 0·5 + 4/5·9/2) / (5 + 5 + 9/2) = 8.6 / 14.5; no blind translation at all.
    # Fleiss over 8 tokens, 4 B ratings of 16: P̄ 3/4, Pe 10/16 -> kappa 1/3.
    _, agreement = figures
    rows = {r["figure"]: r for r in table2_rows(agreement)}
    rouge = rows["ROUGE-L F"]
    assert (rouge["aware"], rouge["blind"], rouge["overall"]) == (f"{8.6 / 14.5:.3f}", "—", f"{8.6 / 14.5:.3f}")
    kappa = rows["Fleiss' kappa"]
    assert (kappa["aware"], kappa["blind"], kappa["overall"], kappa["best"]) == ("0.333", "—", "0.333", "—")
    assert not any(v in ("None", "nan") for r in rows.values() for v in r.values())


def test_table_2_says_what_it_is_over(figures):
    data, agreement = figures
    assert table2_basis(data, agreement) == (
        "Over 3 translated sentences: ROUGE-L over 3 translation pairs in 3 sentence-phase units by 3 translators; "
        "Fleiss' kappa over 8 tokens of 3 translations tagged by 2 annotators each (3 annotators in all)."
    )


def test_table_2_counts_only_translated_sentences_and_says_how_many_wait(figures):
    from dataclasses import replace

    data, agreement = figures
    waiting = replace(data, sentences=[*data.sentences, SentenceInfo(4, "s4", "laptop", "test", "Nobody yet", 0, 4),
                                       SentenceInfo(5, "s5", "laptop", "test", "Nor this", 0, 5)])
    assert table2_basis(waiting, agreement).startswith(
        "Over 3 translated sentences (2 of 5 not translated yet): ROUGE-L over 3 translation pairs")


def test_sentences_come_worst_first_with_their_row_id_english_and_hindi_kept(figures):
    data, agreement = figures
    rows = sentence_ranking(data, agreement)
    assert [r["id"] for r in rows] == [2, 3, 1]
    worst = rows[0]
    assert worst == {
        "id": 2, "sentence": "restaurant/train/s2", "phase": "aware", "ROUGE-L": 0.0, "pairs": 1,
        "tag agreement": None, "English": "Good food", "Hindi kept": "खाना अच्छा था",  # tie: asha by name
    }
    assert rows[1]["ROUGE-L"] == pytest.approx(4 / 5) and rows[1]["tag agreement"] == pytest.approx(1 / 2)
    assert rows[2]["tag agreement"] == pytest.approx(5 / 6)  # 3 of 3 tokens on asha's, 2 of 3 on bilal's
    assert [r["id"] for r in sentence_ranking(data, agreement, limit=1)] == [2]
    for limit in range(len(rows) + 1):  # only the listed sentences' translations are looked at: the same rows
        assert sentence_ranking(data, agreement, limit=limit) == rows[:limit]


def test_translators_are_ordered_by_agreement_with_the_others_with_their_pairs(figures):
    # asha: 1, 0, 4/5 -> 3/5 over 3 pairs; bilal: 1, 0 -> 1/2 over 2; chitra: 4/5 over 1 (no interval).
    _, agreement = figures
    rows = translator_ranking(agreement)
    assert [(r["translator"], r["pairs"]) for r in rows] == [("bilal", 2), ("asha", 3), ("chitra", 1)]
    assert [r["ROUGE-L vs others"] for r in rows] == pytest.approx([1 / 2, 3 / 5, 4 / 5])
    assert rows[2]["95% interval"] == NOT_DEFINED
    # bilal's two pairs, 0 and 1: a resample's mean is 0, 1/2 or 1 -> the 95% interval spans 0 to 1.
    assert rows[0]["95% interval"] == "0.00–1.00"


def test_annotators_are_ordered_by_kappa_against_the_others_with_their_tokens(figures):
    # om vs meera on s1/bilal: om all O, meera B O O -> kappa 0 (3 tokens).
    # nikhil vs meera: BB 1, (meera B, nikhil O) 1, OO 3 -> Po 4/5, Pe 14/25 -> 6/11 (5 tokens).
    # meera vs both: BB 1, BO 2, OO 5 -> Po 3/4, Pe 38/64 -> 5/13 (8 tokens).
    _, agreement = figures
    rows = annotator_ranking(agreement)
    assert [(r["annotator"], r["tokens"], r["translations"]) for r in rows] == [
        ("om", 3, 1), ("meera", 8, 3), ("nikhil", 5, 2)]
    assert [r["kappa vs others"] for r in rows] == pytest.approx([0.0, 5 / 13, 6 / 11])


def test_domains_carry_rouge_weighted_as_table_2_and_fleiss_with_their_sample(figures):
    # restaurant: 6 tokens, 5 agreed, 3 B of 12 -> P̄ 5/6, Pe 10/16 -> kappa 5/9; laptop: 2 tokens -> -1/3.
    data, agreement = figures
    rows = domain_figures(data, agreement)
    by = {(r["domain"], r["phase"]): r for r in rows}
    assert by[("restaurant", "aware")]["ROUGE-L"] == pytest.approx(0.5)
    assert (by[("restaurant", "aware")]["units"], by[("restaurant", "aware")]["pairs"]) == (2, 2)
    assert by[("restaurant", "blind")]["ROUGE-L"] is None and by[("restaurant", "blind")]["units"] == 0
    assert by[("restaurant", "all")]["Fleiss' kappa"] == pytest.approx(5 / 9)
    assert by[("restaurant", "all")]["tokens"] == 6
    assert by[("laptop", "aware")]["Fleiss' kappa"] == pytest.approx(-1 / 3)
    assert by[("laptop", "blind")]["Fleiss' kappa"] is None and by[("laptop", "blind")]["tokens"] == 0
    ranked = domain_ranking(rows)
    assert [r["domain"] for r in ranked] == ["restaurant", "laptop"]
    assert ranked[1] == {"domain": "laptop", "ROUGE-L": pytest.approx(0.8), "units": 1,
                         "Fleiss' kappa": pytest.approx(-1 / 3), "tokens": 2}


def test_a_scope_keeps_one_domain_or_one_phase(figures):
    data, _ = figures
    laptop = in_scope(data, "laptop", None)
    assert [s.pk for s in laptop.sentences] == [3]
    assert [t.pk for t in laptop.translations] == [31, 32]
    assert [ts.translation_pk for ts in laptop.tag_sets] == [31, 31]
    blind = in_scope(data, None, "blind")
    assert blind.translations == [] and blind.tag_sets == [] and len(blind.sentences) == 3
    assert in_scope(data) is data
    rows = translator_ranking(compute_agreement(laptop))
    assert [(r["translator"], r["pairs"]) for r in rows] == [("asha", 1), ("chitra", 1)]


def test_bootstrap_interval_is_fixed_by_its_seed_and_right_on_checkable_samples():
    assert bootstrap_mean_interval([0.7]) is None
    assert bootstrap_mean_interval([0.5] * 10) == (0.5, 0.5)
    assert bootstrap_mean_interval([0.0, 1.0]) == (0.0, 1.0)
    # 50 zeros and 50 ones: the mean's standard error is 0.05 -> about 0.5 ± 1.96 · 0.05.
    low, high = bootstrap_mean_interval([0.0] * 50 + [1.0] * 50)
    assert low == pytest.approx(0.402, abs=0.02) and high == pytest.approx(0.598, abs=0.02)
    values = np.random.default_rng(1).random(500)
    assert bootstrap_mean_interval(values) == bootstrap_mean_interval(values)
    assert bootstrap_mean_interval(values, seed=2) != bootstrap_mean_interval(values)


def test_a_remembered_bootstrap_interval_is_the_one_computed_again_and_new_values_get_their_own():
    from corpus.ranking import _bootstrap

    values = np.random.default_rng(3).random(400)
    first = bootstrap_mean_interval(values)
    assert bootstrap_mean_interval(values.copy()) == first == _bootstrap.__wrapped__(
        values.tobytes(), BOOTSTRAP_RESAMPLES, BOOTSTRAP_LEVEL, BOOTSTRAP_SEED)
    changed = values.copy()
    changed[0] = 1 - changed[0]
    assert bootstrap_mean_interval(changed) != first
    assert bootstrap_mean_interval(list(values)) == first  # a list and an array of the same values
    assert bootstrap_mean_interval(values, resamples=100) != first


def test_figures_are_formatted_without_none_nan_or_arrows():
    assert figure_text(None) == figure_text(float("nan")) == NOT_DEFINED
    assert figure_text(Fraction(1, 3).__float__()) == "0.333"
    assert interval_text(None) == NOT_DEFINED
    assert interval_text((0.123, 0.456)) == "0.12–0.46"
    assert share_text(1, 4) == "1 of 4 (25.0%)"
    assert share_text(0, 0) == "0 of 0"
    assert share_text(724, 5989) == "724 of 5,989 (12.1%)"


def week(label, f, pairs, kappa=None, tagged=0):
    return {"week": label, "rouge_pairs": pairs, "rouge_l_mean_f": f, "tagged_translations": tagged,
            "fleiss_kappa": kappa, "fleiss_reason": None}


def test_a_week_without_data_breaks_the_line():
    weeks = [week("2026-03-02", 0.5, 4, 0.9, 2), week("2026-03-09", 0.6, 2), week("2026-03-23", 0.7, 1, 0.8, 1),
             week("unknown", 0.1, 1)]
    points = week_points(weeks)
    rouge = [(p["week"], p["run"], p["n"]) for p in points if p["figure"] == "ROUGE-L F"]
    assert rouge == [("2026-03-02", "ROUGE-L F 0", 4), ("2026-03-09", "ROUGE-L F 0", 2),
                     ("2026-03-23", "ROUGE-L F 1", 1)]
    kappa = [(p["week"], p["run"]) for p in points if p["figure"] == "Fleiss' kappa"]
    assert kappa == [("2026-03-02", "Fleiss' kappa 0"), ("2026-03-23", "Fleiss' kappa 1")]
    table = week_table(weeks)
    assert table[1] == {"week (Monday)": "2026-03-09", "ROUGE-L F": "0.600", "pairs": 2, "Fleiss' kappa": "—",
                        "tagged translations": 0}


def test_translated_share_counts_the_translators_actually_assigned():
    # 2 translators assigned per sentence on 2 sentences (a setting of 4 would say 8 expected):
    # asha submitted 2, bilal submitted 1 and skipped 1 -> 3 of 4 assigned = 75%.
    counts = [
        ProgressCount("translation", "restaurant", "train", "aware", "asha", Status.SUBMITTED, 2),
        ProgressCount("translation", "restaurant", "train", "aware", "bilal", Status.SUBMITTED, 1),
        ProgressCount("translation", "restaurant", "train", "aware", "bilal", Status.SKIPPED, 1),
        ProgressCount("annotation", "restaurant", "train", "aware", "meera", Status.SUBMITTED, 3),
    ]
    aware, blind = phase_progress(counts, annotators_per_item=2)
    assert (aware["translations assigned"], aware["translated % (of assigned)"]) == (4, 75.0)
    assert aware["tagged % (of submitted translations x K)"] == pytest.approx(50.0)
    assert (blind["translations assigned"], blind["translated % (of assigned)"]) == (0, None)
