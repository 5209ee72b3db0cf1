"""Agreement over plain data: Fleiss (Wikipedia example, statsmodels traps), Cohen, span F1, ROUGE-L
aggregation with hand-checked values, best-translation ties, exclusions and coverage."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from fractions import Fraction

import numpy as np
import pytest
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa, fleiss_kappa

from corpus.agreement import (
    MetricsInput,
    SentenceInfo,
    TagSet,
    TranslationInfo,
    aspects_kept,
    coverage,
    filter_input,
    rouge_agreement,
    rouge_summary,
)
from corpus.bio import repair_tags, tags_to_spans
from corpus.kappa import (
    TagTable,
    cohen_from_confusion,
    fleiss_from_label_lists,
    fleiss_from_ratings,
    fleiss_from_table,
    fleiss_over_translations,
    has_stray_i,
    pair_tallies,
    span_count,
    span_f1,
    spans_of,
)
from corpus.metrics import REPORT_KEYS, agreement_by_week, compute_agreement, compute_report, format_report

WIKIPEDIA_TABLE = [
    [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
]


def test_fleiss_kappa_of_the_wikipedia_example_is_0_210():
    result = fleiss_from_table(WIKIPEDIA_TABLE)
    assert round(result.kappa, 3) == 0.210
    assert result.kappa == pytest.approx(0.20993070442195522, abs=1e-12)
    assert (result.items, result.raters, result.reason) == (10, 14, None)


@pytest.mark.parametrize("raters", [2, 3, 5])
def test_fleiss_over_rating_patterns_equals_plain_statsmodels(raters):
    data = np.random.default_rng(raters).integers(0, 3, size=(2000, raters))
    plain = fleiss_kappa(aggregate_raters(data, n_cat=3)[0], method="fleiss")
    assert fleiss_from_ratings(data).kappa == pytest.approx(plain, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_two_rater_fleiss_is_bit_identical_to_statsmodels_on_the_full_table(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60_000))
    mostly_o = rng.choice(3, size=(n, 2), p=rng.dirichlet([1, 1, 8]))
    agree = rng.random(n) < rng.random()
    mostly_o[agree, 1] = mostly_o[agree, 0]
    plain = fleiss_kappa(aggregate_raters(mostly_o, n_cat=3)[0], method="fleiss")
    result = fleiss_from_ratings(mostly_o)
    assert result.kappa == plain if np.isfinite(plain) else result.kappa is None


@pytest.mark.parametrize(
    ("items", "reason_part"),
    [
        ([["O", "O"], ["O", "O"], ["O", "O"]], "same label (O)"),
        ([["B", "O"], ["O", "O", "O"]], "unequal numbers of annotators"),
        ([], "no items"),
        ([["B"], ["O"]], "fewer than 2 annotators"),
    ],
    ids=["all-O", "unequal-annotator-counts", "no-items", "one-annotator"],
)
def test_undefined_fleiss_kappa_is_none_with_a_reason(items, reason_part):
    result = fleiss_from_label_lists(items)
    assert result.kappa is None
    assert reason_part in result.reason


def test_statsmodels_really_fails_where_we_report_a_reason():
    """The traps exist: NaN for a single category, an assertion for unequal rater counts."""
    with np.errstate(invalid="ignore", divide="ignore"):
        assert np.isnan(fleiss_kappa(np.array([[2, 0, 0], [2, 0, 0]])))
    with pytest.raises(AssertionError):
        fleiss_kappa(np.array([[1, 1, 0], [3, 0, 0]]))


def test_fleiss_over_translations_uses_only_translations_tagged_by_the_full_number():
    result = fleiss_over_translations([["BOO", "BOO"], ["OBI", "OBO"], ["BO"], ["OO", "OO", "OB"], ["BO", "B"]], 2)
    assert (result.translations, result.excluded_fewer, result.excluded_more, result.excluded_length) == (2, 1, 1, 1)
    assert result.result.items == 6
    # Hand-checked: items BB OO OO OO BB IO -> P = 5/6, p(B) = 4/12, p(I) = 1/12, p(O) = 7/12.
    p_e = Fraction(16 + 1 + 49, 144)
    assert result.result.kappa == pytest.approx(float((Fraction(5, 6) - p_e) / (1 - p_e)))


def test_cohen_kappa_matches_statsmodels_and_is_none_when_both_say_o_everywhere():
    confusion = np.array([[5, 1, 0], [0, 3, 0], [1, 0, 7]])
    assert cohen_from_confusion(confusion).kappa == pytest.approx(cohens_kappa(confusion, return_results=False))
    all_o = cohen_from_confusion(np.array([[0, 0, 0], [0, 0, 0], [0, 0, 9]]))
    assert all_o.kappa is None and "same label (O)" in all_o.reason
    assert cohen_from_confusion(np.zeros((3, 3))).reason == "no tokens tagged by both annotators"


def test_pair_tallies_count_tokens_and_exact_spans_per_annotator_pair():
    tallies = pair_tallies([
        {"x": "OBIO", "y": "OBOO"},  # spans (1,3) vs (1,2): no match
        {"x": "BOO", "y": "BOO", "z": "OOB"},
        {"x": "IIB", "y": "BIB"},  # stray I starts a span: (0,2),(2,3) on both
    ])
    xy = tallies[("x", "y")]
    assert xy.confusion.tolist() == [[3, 0, 0], [1, 1, 1], [0, 0, 4]]
    assert (xy.translations, xy.spans_a, xy.spans_b, xy.matched) == (3, 4, 4, 3)
    assert span_f1(xy) == (0.75, None)
    assert span_f1(tallies[("x", "z")]) == (0.0, None)
    assert set(tallies) == {("x", "y"), ("x", "z"), ("y", "z")}


def test_span_reading_equals_the_bio_module_repair():
    rng = random.Random(11)
    for _ in range(500):
        tags = "".join(rng.choice("BIOOO") for _ in range(rng.randint(0, 12)))
        repaired, _ = repair_tags(list(tags))
        assert spans_of(tags) == tags_to_spans(repaired)
        assert span_count(tags) == len(tags_to_spans(repaired))
        assert TagTable.from_groups([{"a": tags}]).span_counts().tolist() == [len(tags_to_spans(repaired))]


def test_stray_i_counts_of_a_whole_table_agree_with_has_stray_i():
    rng = random.Random(12)
    groups = [{name: "".join(rng.choice("BIOOO") for _ in range(n)) for name in ("a", "b")}
              for n in (rng.randint(0, 9) for _ in range(300))]
    table = TagTable.from_groups(groups)
    assert (table.stray_i_counts() > 0).tolist() == [has_stray_i(tags) for tags in table.tags.tolist()]
    assert table.span_counts().tolist() == [span_count(tags) for tags in table.tags.tolist()]


# --- ROUGE-L aggregation over a hand-built input -----------------------------------------------------

T0 = datetime(2026, 3, 2, 10, 0)


def _input(extra_translations=(), tag_sets=(), k=2) -> MetricsInput:
    sentences = [
        SentenceInfo(1, "r1", "restaurant", "train", "But the staff was so horrible", 1, 1),
        SentenceInfo(2, "r2", "restaurant", "test", "Good food", 0, 2),
    ]
    translations = [
        TranslationInfo(10, 1, "aware", "asha", "स्टाफ़ बुरा था", False, T0, 1),
        TranslationInfo(11, 1, "aware", "bilal", "स्टाफ़ बहुत बुरा था।", False, T0 + timedelta(days=7), 1),
        TranslationInfo(12, 1, "aware", "chitra", "खाना अच्छा था", False, T0, 0),
        TranslationInfo(20, 1, "blind", "asha", "खाना अच्छा था", False, T0),
        TranslationInfo(21, 1, "blind", "bilal", "खाना अच्छा था", False, T0),
        TranslationInfo(30, 2, "aware", "asha", "अच्छा खाना", False, T0),
        TranslationInfo(31, 2, "aware", "chitra", None, True, T0),
        *extra_translations,
    ]
    return MetricsInput(sentences, translations, list(tag_sets), {}, k)


def test_pairs_units_and_best_translation_have_hand_checked_values():
    result = rouge_agreement(_input())
    rows = result.pair_rows()
    aware = {(r["translator_a"], r["translator_b"]): r["f"] for r in rows if r["phase"] == "aware"}
    assert aware == {
        ("asha", "bilal"): pytest.approx(6 / 7),
        ("asha", "chitra"): pytest.approx(1 / 3),
        ("bilal", "chitra"): pytest.approx(2 / 7),
    }
    units = {u["phase"]: u for u in result.unit_rows()}
    assert units["aware"]["mean_f"] == pytest.approx(31 / 63)
    assert units["aware"]["best_translator"] == "asha"
    assert units["aware"]["best_mean_f"] == pytest.approx(25 / 42)
    assert units["aware"]["weight"] == pytest.approx(6 + 10 / 3)
    assert units["blind"]["mean_f"] == 1.0


def test_each_translation_mean_against_the_others_of_its_unit_has_hand_checked_values():
    result = rouge_agreement(_input())
    in_unit, _, means = result.translation_mean_f()
    by_pk = {result.translations[i].pk: m for i, m in zip(in_unit.tolist(), means.tolist())}
    # aware unit: asha (6/7 + 1/3) / 2, bilal (6/7 + 2/7) / 2, chitra (1/3 + 2/7) / 2; blind pair identical;
    # sentence 2 has one translated text, so none of its translations has a mean
    assert by_pk == {10: pytest.approx(25 / 42), 11: pytest.approx(4 / 7), 12: pytest.approx(13 / 42),
                     20: 1.0, 21: 1.0}


def test_corpus_averages_are_weighted_by_sentence_length_and_count_excluded_units():
    summary = rouge_summary(rouge_agreement(_input()))
    w_aware, w_blind = 6 + 10 / 3, 6 + 3
    assert summary["aware"] == pytest.approx(31 / 63)
    assert summary["blind"] == pytest.approx(1.0)
    assert summary["overall"] == pytest.approx((31 / 63 * w_aware + w_blind) / (w_aware + w_blind))
    assert summary["best"] == pytest.approx((25 / 42 * 9 + 1 * 9) / 18)
    assert summary["unweighted"]["overall"] == pytest.approx((31 / 63 + 1) / 2)
    assert summary["unweighted"]["aware"] == pytest.approx(31 / 63)
    assert summary["unweighted"]["blind"] == pytest.approx(1.0)
    assert summary["unweighted"]["best"] == pytest.approx((25 / 42 + 1) / 2)
    assert summary["excluded_units"] == 1  # r2 aware: one translation and one untranslatable
    assert summary["excluded_by_phase"] == {"aware": 1, "blind": 0}
    assert summary["pairs"] == 4


def test_unweighted_means_give_every_sentence_the_same_say():
    # bilal's r2 aware "अच्छा खाना था" against asha's "अच्छा खाना": LCS 2, P 2/3, R 1 -> F 4/5 (both best, tied);
    # r2 weight 2 + 5/2 differs from r1's 6 + 10/3, so weighted and unweighted means part.
    extra = [TranslationInfo(32, 2, "aware", "bilal", "अच्छा खाना था", False, T0)]
    summary = rouge_summary(rouge_agreement(_input(extra)))
    w1, w2 = 6 + 10 / 3, 2 + 5 / 2
    assert summary["unweighted"]["aware"] == pytest.approx((31 / 63 + 4 / 5) / 2)
    assert summary["aware"] == pytest.approx((31 / 63 * w1 + 4 / 5 * w2) / (w1 + w2))
    assert summary["unweighted"]["blind"] == pytest.approx(1.0)
    assert summary["unweighted"]["best"] == pytest.approx((25 / 42 + 4 / 5 + 1) / 3)
    assert summary["unweighted"]["overall"] == pytest.approx((31 / 63 + 4 / 5 + 1) / 3)


def test_one_translation_or_all_untranslatable_gives_no_pairs_and_null_averages():
    data = MetricsInput(
        [SentenceInfo(1, "s", "laptop", "train", "A keyboard", 1)],
        [TranslationInfo(1, 1, "aware", "asha", "कीबोर्ड", False, T0),
         TranslationInfo(2, 1, "blind", "asha", None, True, T0),
         TranslationInfo(3, 1, "blind", "bilal", None, True, T0)],
    )
    report = compute_report(data)
    assert report["rouge_l_pairs"] == [] and report["rouge_l_sentences"] == []
    assert report["rouge_l"]["aware"] is None and report["rouge_l"]["overall"] is None
    assert report["rouge_l"]["excluded_by_phase"] == {"aware": 1, "blind": 1}
    assert report["fleiss_kappa"]["overall"]["kappa"] is None
    assert "no items" in report["fleiss_kappa"]["overall"]["reason"]
    assert "n/a" in format_report(report)


def test_best_translation_tie_goes_to_more_aspects_kept_then_earlier_submission():
    tags = [TagSet(21, "meera", "BOO"), TagSet(21, "nikhil", "BOO"), TagSet(20, "meera", "OOO"), TagSet(20, "nikhil", "OOO")]
    blind = {u["phase"]: u for u in rouge_agreement(_input(tag_sets=tags)).unit_rows()}["blind"]
    assert blind["best_translator"] == "bilal"  # same F, bilal's translation kept the aspect

    later = _input()
    later.translations = [
        TranslationInfo(t.pk, t.sentence_pk, t.phase, t.translator, t.text, t.untranslatable,
                        T0 + timedelta(hours=1) if t.pk == 20 else t.submitted_at, t.aspects_mapped)
        for t in later.translations
    ]
    blind = {u["phase"]: u for u in rouge_agreement(later).unit_rows()}["blind"]
    assert blind["best_translator"] == "bilal"  # same F and aspects, bilal submitted first


def test_tagging_figures_over_hand_checked_tag_sets():
    tags = [
        TagSet(10, "meera", "BOO"), TagSet(10, "nikhil", "BOO"),
        TagSet(11, "meera", "BOOOO"), TagSet(11, "nikhil", "BIOOO"),
        TagSet(20, "meera", "OOO"), TagSet(20, "nikhil", "OOO"),
        TagSet(21, "meera", "OOO"), TagSet(21, "nikhil", "OOO"),
    ]
    agreement = compute_agreement(_input(tag_sets=tags))
    fleiss = agreement.fleiss_kappa
    assert fleiss["aware"]["kappa"] == pytest.approx(43 / 59)
    assert fleiss["blind"]["kappa"] is None and "same label (O)" in fleiss["blind"]["reason"]
    assert fleiss["overall"]["kappa"] == pytest.approx(13 / 17)
    assert fleiss["overall"]["items"] == 14
    pair = agreement.cohen_kappa["pairs"][0]
    assert (pair["annotator_a"], pair["annotator_b"], pair["tokens"]) == ("meera", "nikhil", 14)
    assert pair["kappa"] == pytest.approx(23 / 30)
    assert agreement.span_f1["pairs"][0]["f1"] == pytest.approx(0.5)
    assert agreement.span_f1["overall"] == pytest.approx(0.5)


def test_unequal_annotator_counts_leave_translations_out_of_fleiss_and_say_so():
    tags = [TagSet(10, "meera", "BOO"), TagSet(10, "nikhil", "BOO"), TagSet(10, "priya", "BOO"), TagSet(11, "meera", "BOOOO")]
    fleiss = compute_agreement(_input(tag_sets=tags)).fleiss_kappa
    assert fleiss["aware"]["kappa"] is None
    assert fleiss["aware"]["excluded"] == {"fewer_annotators": 1, "more_annotators": 1, "token_count_mismatch": 0}


def test_coverage_lists_sentences_whose_blind_translations_kept_fewer_aspects():
    tags = [TagSet(20, "meera", "OOO"), TagSet(21, "meera", "OOO")]
    data = _input(tag_sets=tags)
    kept = aspects_kept(data)
    assert (kept[10], kept[12], kept[20], kept[31]) == (1, 0, 0, 0)
    result = coverage(data)
    assert (result["compared"], result["fewer_in_blind"], result["percent"]) == (1, 1, 100.0)
    assert result["sentences"][0]["sentence_id"] == "r1"
    assert (result["sentences"][0]["aware_kept"], result["sentences"][0]["blind_kept"]) == (1, 0)


def test_report_has_exactly_the_interface_keys_and_a_signature():
    report = compute_report(_input())
    assert tuple(report) == REPORT_KEYS
    assert report["signature"]["tokenizer"] == "hi-canon/1.0"
    assert "rougeL" in report["signature"]["text"]
    assert set(report["rouge_l_pairs"][0]) == {"sentence_id", "domain", "split", "phase", "translator_a", "translator_b", "f"}


def test_agreement_by_week_puts_a_pair_in_the_week_of_its_later_submission():
    weeks = {w["week"]: w for w in agreement_by_week(compute_agreement(_input()))}
    assert weeks["2026-03-02"]["rouge_pairs"] == 2  # asha-chitra and the blind pair
    assert weeks["2026-03-09"]["rouge_pairs"] == 2  # both pairs with bilal's later aware translation
    assert weeks["2026-03-09"]["rouge_l_mean_f"] == pytest.approx((6 / 7 + 2 / 7) / 2)


def test_tokens_all_annotators_agree_on_are_counted_per_translation():
    table = TagTable.from_groups([
        {"a": "OBI", "b": "OBO", "c": "OBI"},  # all three agree on the first two tokens
        {"a": "", "b": ""},
        {"a": "BO", "b": "BO"},
        {"a": "B"},  # one annotator: no agreement to measure
        {"a": "BB", "b": "B"},  # token counts differ: left out
        {"a": "", "b": ""},
    ])
    agreed, usable = table.agreed_tokens()
    assert usable.tolist() == [True, True, True, False, False, True]
    assert agreed.tolist() == [2, 0, 2, 0]


def test_a_filter_that_keeps_everything_returns_the_input_and_a_narrower_one_restricts_it():
    data = _input(tag_sets=[TagSet(10, "meera", "BOO", T0), TagSet(30, "meera", "OB", T0)])
    assert filter_input(data, ["restaurant"], ["train", "test"]) is data
    narrow = filter_input(data, ["restaurant"], ["test"])
    assert [s.sentence_id for s in narrow.sentences] == ["r2"]
    assert {t.pk for t in narrow.translations} == {30, 31}
    assert [ts.translation_pk for ts in narrow.tag_sets] == [30]
    orphan = MetricsInput(data.sentences, [*data.translations, TranslationInfo(99, 7, "aware", "dev", "x")], [], {}, 2)
    assert [t.pk for t in filter_input(orphan, ["restaurant"], None).translations] == [t.pk for t in data.translations]


def test_unit_memo_scores_only_changed_units_and_gives_the_same_figures_as_a_fresh_computation():
    import corpus.agreement as agreement_module
    from rouge_score import rouge_scorer

    from corpus.rouge import CanonicalWords

    sentences = [SentenceInfo(1, "s1", "laptop", "train", "a b"), SentenceInfo(2, "s2", "laptop", "train", "c d")]
    texts = {10: "मेरा लैपटॉप अच्छा है", 11: "मेरा लैपटॉप बहुत अच्छा है", 12: "लैपटॉप अच्छा",
             20: "बैटरी ठीक है", 21: "बैटरी अच्छी नहीं है", 22: "केवल एक"}
    who = {10: "t1", 11: "t2", 12: "t3", 20: "t1", 21: "t2", 22: "t3"}

    def data(changed: str | None = None) -> MetricsInput:
        return MetricsInput(sentences, [
            TranslationInfo(pk, 1 if pk < 20 else 2, "aware" if pk != 22 else "blind", who[pk],
                            changed if (changed and pk == 10) else text)
            for pk, text in texts.items()])

    agreement_module._UNIT_MEMO.clear()
    first = rouge_agreement(data())
    assert len(agreement_module._UNIT_MEMO) == 3  # two units of pairs, one single translation
    changed = rouge_agreement(data("मेरा फ़ोन"))
    assert len(agreement_module._UNIT_MEMO) == 4  # only the changed unit was scored again
    agreement_module._UNIT_MEMO.clear()
    fresh = rouge_agreement(data("मेरा फ़ोन"))
    for name in ("pair_a", "pair_b", "pair_f", "unit_mean", "unit_best", "unit_weight", "unit_best_weight"):
        assert np.array_equal(getattr(changed, name), getattr(fresh, name)), name
    scorer = rouge_scorer.RougeScorer(["rougeL"], tokenizer=CanonicalWords())
    assert changed.pair_f[0] == scorer.score("मेरा फ़ोन", texts[11])["rougeL"].fmeasure
    assert first.pair_f[0] == scorer.score(texts[10], texts[11])["rougeL"].fmeasure
    assert first.pair_f[0] != changed.pair_f[0]
    assert np.array_equal(first.pair_f[3:], changed.pair_f[3:])  # the second sentence's pairs


def test_source_word_counts_are_the_tokenizers_for_each_set_of_texts_and_stay_so_when_a_caller_changes_them():
    from corpus.agreement import source_word_counts
    from corpus.rouge import word_counts

    first = ("The food was good.", "स्\u200dक्रीन चमकदार है।", "", "iPhone 13's battery: 4,000mAh ... ok?")
    second = first[:2] + ("Another sentence here.",)
    for texts in (first, first, second, first):
        counts = source_word_counts(texts)
        assert counts.dtype == np.float64 and counts.tolist() == word_counts(list(texts)).tolist()
        counts[:] = -1  # the caller's copy: the remembered counts are not touched
