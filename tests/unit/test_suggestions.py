"""Model suggestions: when the model retrains, what a save records, acceptance and precision by hand, and the
sentence that goes with agreement figures."""

import pytest

from corpus.suggestions import (
    SHOWN_KEY,
    Exposure,
    ShownSave,
    confidence_label,
    exposure,
    retrain_due,
    shown_payload,
    shown_spans,
    suggestion_quality,
    training_sample,
)


@pytest.mark.parametrize("gold,trained_on,due", [
    (199, None, False),   # not enough gold yet
    (200, None, True),    # the first model
    (249, 200, False),    # 49 new gold items
    (250, 200, True),     # 50 new: retrain
    (260, 250, False),
    (180, 250, False),    # gold withdrawn: the stored model stays
])
def test_the_model_trains_at_the_threshold_then_after_every_n_new_gold_items(gold, trained_on, due):
    assert retrain_due(gold, trained_on, min_gold=200, every=50) is due


def test_a_save_records_the_shown_spans_and_reads_them_back():
    payload = {SHOWN_KEY: shown_payload([(3, 5, 0.81234567), (0, 1, 0.5)])}
    assert payload[SHOWN_KEY] == [[0, 1, 0.5], [3, 5, 0.8123]]
    assert shown_spans(payload) == ((0, 1), (3, 5))
    assert shown_spans({"rejected_suggestions": []}) == ()  # a save from before suggestions
    assert shown_spans(None) == ()


def test_confidence_label():
    assert confidence_label(0.874) == "model · 87%"


def test_acceptance_and_precision_by_hand():
    saves = [
        # item 1, annotator a: shown (0,1) and (2,4); kept (0,1) exactly, marked (2,3) instead of (2,4)
        ShownSave(1, ((0, 1), (2, 4)), ("B", "O", "B", "O", "O")),
        # item 1, annotator b: same suggestions, accepted both
        ShownSave(1, ((0, 1), (2, 4)), ("B", "O", "B", "I", "O")),
        # item 2: shown (1,2), rejected it
        ShownSave(2, ((1, 2),), ("O", "O", "O")),
        # item 3: nothing shown (an aspect-aware translation): counts nowhere
        ShownSave(3, (), ("B", "O")),
        # item 4: shown (0,2), accepted, but item 4 has no gold yet: acceptance only
        ShownSave(4, ((0, 2),), ("B", "I")),
    ]
    gold = {1: ["B", "O", "B", "O", "O"], 2: ["O", "B", "O"], 3: ["B", "O"]}
    q = suggestion_quality(saves, gold)
    # shown per annotation: 2 + 2 + 1 + 1 = 6; accepted: 1 + 2 + 0 + 1 = 4
    assert (q.shown, q.accepted, q.annotations) == (6, 4, 4)
    assert q.acceptance_rate == pytest.approx(4 / 6)
    # judged: distinct spans on items with gold: item 1 {(0,1), (2,4)}, item 2 {(1,2)} = 3;
    # correct: (0,1) on item 1 and (1,2) on item 2 (the gold the annotator rejected) = 2
    assert (q.judged, q.correct) == (3, 2)
    assert q.precision == pytest.approx(2 / 3)


def test_no_suggestions_shown_gives_no_rates():
    q = suggestion_quality([ShownSave(1, (), ("O",))], {1: ["O"]})
    assert (q.shown, q.acceptance_rate, q.precision) == (0, None, None)


def test_exposure_counts_items_not_annotations():
    saves = [ShownSave(1, ((0, 1),), ("B",)), ShownSave(1, (), ("O",)), ShownSave(2, (), ("O",)),
             ShownSave(3, ((0, 1),), ("O",))]
    e = exposure(saves)
    assert e == Exposure(seen=2, items=3)
    assert e.statement() == "annotators saw model suggestions on 2 of 3 items"
    assert Exposure(0, 5).statement() == "annotators saw no model suggestions (5 items tagged)"


def test_the_editor_gets_the_model_confidence_and_the_aspect_map_term_alone():
    from ui.span_editor import _suggestion

    assert _suggestion((1, 2), "model · 87%", 0.874) == {"span": [1, 2], "term": "model · 87%", "confidence": 0.874}
    assert _suggestion((0, 1), "staff") == {"span": [0, 1], "term": "staff"}


def test_a_project_under_the_cap_trains_on_every_gold_item():
    assert training_sample(["a", "a", "b"], cap=3) == [0, 1, 2]
    assert training_sample([], cap=0) == []


def test_past_the_cap_every_sentence_and_phase_gets_its_first_item_before_any_gets_a_second():
    # units: s1 three times, s2 twice, s3 once (item order): first round 0, 3, 5; second round 1, 4; third 2
    units = [("s1", "aware"), ("s1", "aware"), ("s1", "aware"), ("s2", "blind"), ("s2", "blind"), ("s3", "aware")]
    assert training_sample(units, cap=3) == [0, 3, 5]
    assert training_sample(units, cap=4) == [0, 1, 3, 5]
    assert training_sample(units, cap=5) == [0, 1, 3, 4, 5]
    assert training_sample(units, cap=0) == []


def test_the_sample_is_the_same_every_time():
    units = [i % 7 for i in range(100)]
    assert training_sample(units, cap=30) == training_sample(list(units), cap=30)
    assert len(training_sample(units, cap=30)) == 30
