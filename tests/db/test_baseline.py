"""The CRF baseline: features, the fold split, cross-validation that never judges what it trained on,
strict span scoring, the report's shape, and the command line on the SemEval fixtures."""

import json
import random
import unicodedata
from pathlib import Path

import pytest

from corpus.baseline import (
    CrfSettings,
    LabelledSequence,
    card_lines,
    cross_validated_predictions,
    dataset_baseline,
    fold_assignment,
    format_baseline,
    graphemes,
    kfold_indices,
    sentence_features,
    span_confidence,
    span_scores,
    suggest_spans,
    suspects,
    token_features,
    train,
)
from cli.commands import main

ROOT = Path(__file__).resolve().parents[2]
SEMEVAL = ROOT / "tests" / "fixtures" / "semeval"
AUDIT = ROOT / "tests" / "fixtures" / "audit"

# ज़ (nukta), virama, ZWJ, then या: the half form of ज़ before य, as typists write ज़्‍यादा.
NUKTA_ZWJ = "\u091c\u093c\u094d\u200d\u092f\u093e\u0926\u093e"


def test_devanagari_token_with_nukta_and_zwj_keeps_them_inside_its_affixes():
    f = token_features(NUKTA_ZWJ)
    assert f["lower"] == NUKTA_ZWJ and "token" not in f  # no case in Devanagari: one attribute, not two
    assert f["script"] == "devanagari"  # the ZWJ does not make it "mixed"
    assert f["shape"] == "DmjDmDm"  # letter, marks (nukta+virama), joiner, letter, matra, letter, matra
    assert f["prefix1"] == "\u091c\u093c\u094d\u200d\u092f\u093e"  # the conjunct with its nukta and ZWJ
    assert f["suffix1"] == "\u0926\u093e"
    for key in ("prefix1", "prefix2", "suffix1", "suffix2"):
        assert not unicodedata.combining(f[key][0]), f"{key} starts with a lone mark"
        assert f[key][-1] != "\u200d", f"{key} ends by cutting at the joiner"


def test_precomposed_and_decomposed_nukta_letters_give_the_same_features():
    precomposed = "\u095b\u094d\u200d\u092f\u093e\u0926\u093e"  # ज़ as one code point (NFC decomposes it)
    assert token_features(precomposed) == token_features(NUKTA_ZWJ)


@pytest.mark.parametrize("token,script,shape", [
    ("Sony", "latin", "Xx"), ("४२", "digit", "d"), ("42", "digit", "d"), ("।", "punct", "।"), (",", "punct", ","),
    ("4G", "mixed", "dX"), ("कीबोर्ड", "devanagari", "DmDmDmD"),
])
def test_script_and_shape_of_tokens(token, script, shape):
    f = token_features(token)
    assert (f["script"], f["shape"]) == (script, shape)


def test_cased_token_keeps_its_case_beside_the_shared_lowercase():
    f = token_features("Sony")
    assert (f["lower"], f["token"], f["prefix3"], f["suffix1"]) == ("sony", "Sony", "Son", "y")


def test_affixes_are_one_to_three_graphemes():
    f = token_features("स्टाफ़")
    assert graphemes("स्टाफ़") == ["स्टा", "फ़"]
    assert (f["prefix1"], f["suffix1"], f["prefix2"]) == ("स्टा", "फ़", "स्टाफ़")
    assert "prefix3" not in f


def test_each_token_sees_two_neighbours_either_side_and_its_position():
    rows = sentence_features(["The", "food", "was", "good"])
    assert rows[0]["-1:BOS"] and rows[0]["-2:BOS"] and "-1:lower" not in rows[0]
    assert (rows[0]["+1:lower"], rows[0]["+2:lower"], rows[0]["+2:suffix1"]) == ("food", "was", "s")
    assert rows[3]["+1:EOS"] and rows[3]["-2:lower"] == "food"
    assert (rows[0]["position"], rows[0]["from_end"], rows[3]["from_end"]) == ("0", "3", "0")
    assert rows[1]["-1:token"] == "The" and rows[1]["-1:shape"] == "Xx"


KEYS = [f"restaurant/train/{i}" for i in range(103)]


def test_fold_split_is_deterministic_whatever_the_order_of_the_keys():
    first = dict(zip(KEYS, fold_assignment(KEYS, 5, 13)))
    shuffled = KEYS[:]
    random.Random(1).shuffle(shuffled)
    assert dict(zip(shuffled, fold_assignment(shuffled, 5, 13))) == first
    assert dict(zip(KEYS, fold_assignment(KEYS, 5, 14))) != first  # the seed matters


def test_no_sentence_is_in_train_and_test_of_a_fold_and_each_is_tested_once():
    folds = kfold_indices(KEYS, 5, 13)
    assert len(folds) == 5
    tested = [i for _, test in folds for i in test]
    assert sorted(tested) == list(range(len(KEYS)))
    for train_idx, test_idx in folds:
        assert not set(train_idx) & set(test_idx)
        assert sorted(train_idx + test_idx) == list(range(len(KEYS)))
        assert 20 <= len(test_idx) <= 21


def test_duplicate_keys_cannot_be_split():
    with pytest.raises(ValueError, match="unique"):
        fold_assignment(["a", "b", "a"], 2)


def _toy(n=60, seed=3, domain="restaurant", split="train"):
    rng = random.Random(seed)
    words = ["the", "was", "very", "good", "bad", "and", "but", "quite"]
    aspects = ["food", "staff", "pizza", "service"]
    out = []
    for i in range(n):
        tokens, tags = [], []
        for _ in range(rng.randint(4, 9)):
            if rng.random() < 0.25:
                tokens.append(rng.choice(aspects))
                tags.append("B")
            else:
                tokens.append(rng.choice(words))
                tags.append("O")
        out.append(LabelledSequence(f"{domain}/{split}/{i}", domain, split, tuple(tokens), tuple(tags)))
    return out


def test_a_trained_model_finds_learnable_aspects_with_confidence():
    model = train(_toy())
    [tags] = model.predict([["the", "pizza", "was", "good"]])
    assert tags == ["O", "B", "O", "O"]
    [suggestions] = suggest_spans(model, [["the", "pizza", "was", "good"]])
    assert [(s.start, s.end) for s in suggestions] == [(1, 2)]
    assert 0.5 < suggestions[0].confidence <= 1.0
    [marginals] = model.marginals([["the", "pizza"]])
    assert all(abs(sum(m.values()) - 1.0) < 1e-6 for m in marginals)


def test_cross_validation_never_judges_a_sentence_with_a_model_that_saw_it():
    data = _toy(40)
    # "zorbo" appears once, tagged as an aspect: only a model that trained on that sentence can know it.
    planted = LabelledSequence("restaurant/train/planted", "restaurant", "train", ("the", "zorbo", "was", "good"),
                               ("O", "B", "O", "O"))
    data.append(planted)
    full = train(data)
    assert full.predict([planted.tokens]) == [["O", "B", "O", "O"]]
    predictions = cross_validated_predictions(data)
    assert [p.key for p in predictions] == [s.key for s in data]
    assert predictions[-1].tags == ("O", "O", "O", "O")
    assignment = fold_assignment([s.key for s in data], 5, 13)
    assert [p.fold for p in predictions] == assignment


def test_cross_validation_gives_the_models_that_training_each_fold_apart_gives():
    data = _toy(40)
    settings = CrfSettings()
    shared = cross_validated_predictions(data, settings)
    for fold, (train_idx, test_idx) in enumerate(kfold_indices([s.key for s in data], settings.folds, settings.seed)):
        model = train([data[i] for i in train_idx], settings)
        for i, (tags, marginals) in zip(test_idx, [(t, m) for t, m in zip(model.predict([data[i].tokens for i in test_idx]), model.marginals([data[i].tokens for i in test_idx]))]):
            assert shared[i].fold == fold and list(shared[i].tags) == tags
            assert all(abs(a[k] - b[k]) < 1e-9 for a, b in zip(shared[i].marginals, marginals) for k in "BIO")


def test_a_model_read_back_from_its_bytes_predicts_as_the_trained_one():
    from corpus.baseline import load_model, model_bytes

    model = train(_toy())
    again = load_model(model_bytes(model))
    tokens = [["the", "pizza", "was", "good"], ["staff", "and", "food"]]
    assert again.predict(tokens) == model.predict(tokens)
    assert again.marginals(tokens) == model.marginals(tokens)


def test_span_confidence_is_the_probability_of_exactly_that_span():
    marginals = [{"B": 0.9, "I": 0.0, "O": 0.1}, {"B": 0.0, "I": 0.5, "O": 0.5}, {"B": 0.0, "I": 0.2, "O": 0.8}]
    assert span_confidence(marginals, (0, 2)) == pytest.approx(0.9 * 0.5 * 0.8)
    assert span_confidence(marginals, (0, 1)) == pytest.approx(0.9 * 0.5)


def test_strict_span_scores_by_hand():
    gold = [["B", "I", "O", "B"], ["O", "B", "O"]]
    # span (0,2) cut short to (0,1): wrong; (3,4) right; (1,2) right; plus a stray I (not a span in strict IOB2)
    predicted = [["B", "O", "O", "B"], ["O", "B", "I"]]
    s = span_scores(gold, predicted)
    # gold spans 3; predicted spans: (0,1), (3,4), (1,3) -> 3; correct 1 ((3,4)); (1,3) != (1,2)
    assert (s["precision"], s["recall"]) == (pytest.approx(1 / 3), pytest.approx(1 / 3))
    stray = span_scores([["O", "B"]], [["I", "B"]])
    assert (stray["precision"], stray["recall"], stray["f1"]) == (1.0, 1.0, 1.0)


def test_report_has_the_contract_shape_and_says_it_cross_validated():
    en = _toy(30, domain="restaurant") + _toy(30, seed=4, domain="laptop")
    report = dataset_baseline({"en": en, "hi": []}, CrfSettings(max_iterations=30))
    assert set(report) == {"en", "hi", "signature"}
    assert set(report["en"]) == {"restaurant", "laptop", "all"}
    for figures in report["en"].values():  # the contract's keys, and how each row was scored
        assert set(figures) == {"precision", "recall", "f1", "train_sentences", "test_sentences", "protocol",
                                "warning"}
        assert figures["protocol"] == "5-fold CV over train"
    assert report["en"]["all"]["test_sentences"] == 60 and report["en"]["laptop"]["train_sentences"] == 30
    assert report["en"]["all"]["warning"] is None and "only 30 sentence(s)" in report["en"]["laptop"]["warning"]
    assert set(report["hi"]) == {"restaurant", "laptop", "all"}  # the same domains on both sides
    assert report["hi"]["laptop"] == {"precision": None, "recall": None, "f1": None, "train_sentences": 0,
                                      "test_sentences": 0, "protocol": None, "warning": None}
    sig = report["signature"]
    for part in ("c1=0.1", "c2=0.1", "iterations=30", "tokenizer=hi-canon/1.0", "seed=13", "features=crf-word/1.0",
                 "en:5-fold CV over train", "hi:no data"):
        assert part in sig
    assert "cross-validated over train" in format_baseline(report)
    card = "\n".join(card_lines(report))
    assert "| laptop |" in card and "5-fold CV over train" in card


def test_a_test_split_in_every_domain_is_used_instead_of_cross_validation():
    seqs = _toy(30) + _toy(10, seed=9, split="test")
    report = dataset_baseline({"en": seqs}, CrfSettings(max_iterations=30))
    assert report["en"]["restaurant"]["train_sentences"] == 30
    assert report["en"]["restaurant"]["test_sentences"] == 10
    assert "en:test split" in report["signature"]


def test_each_domain_is_scored_on_its_own_test_split_or_cross_validated_and_says_which():
    seqs = _toy(30) + _toy(12, seed=9, split="test") + _toy(25, seed=5, domain="laptop")
    report = dataset_baseline({"en": seqs}, CrfSettings(max_iterations=30))
    restaurant, laptop = report["en"]["restaurant"], report["en"]["laptop"]
    assert restaurant["protocol"] == "test split" and restaurant["test_sentences"] == 12
    assert restaurant["train_sentences"] == 30
    assert laptop["protocol"] == "5-fold CV over train" and laptop["test_sentences"] == 25
    assert report["en"]["all"]["protocol"] == "per domain" and report["en"]["all"]["test_sentences"] == 37
    assert "en:per domain (laptop 5-fold CV over train; restaurant test split)" in report["signature"]
    assert "only 12 sentence(s) scored" in restaurant["warning"] and report["en"]["all"]["warning"]
    text = format_baseline(report)
    assert "restaurant" in text and "test split" in text and "5-fold CV over train" in text
    assert "no test split: figures are cross-validated" not in text
    card = "\n".join(card_lines(report))
    assert "test split, n=12 (fewer than 50: unstable)" in card


def _import_fixtures(db):
    assert main(["--db", db, "init"]) == 0
    assert main(["--db", db, "import-semeval", str(SEMEVAL / "restaurants_small.xml"),
                 "--domain", "restaurant", "--split", "train"]) == 0
    assert main(["--db", db, "import-semeval", str(SEMEVAL / "quirks_laptop.xml"),
                 "--domain", "laptop", "--split", "train"]) == 0


def test_english_side_is_every_imported_sentence_with_tags_from_its_offsets(sqlite_url):
    from db.baseline_data import english_sequences
    from db.engine import make_engine

    _import_fixtures(sqlite_url)
    engine = make_engine(sqlite_url)
    seqs = english_sequences(engine)
    engine.dispose()
    assert len(seqs) == 12 and {s.domain for s in seqs} == {"restaurant", "laptop"}
    by_key = {s.key: s for s in seqs}
    assert len(by_key) == 12
    tagged = [s for s in seqs if "B" in s.tags]
    assert tagged and all(len(s.tokens) == len(s.tags) for s in seqs)


def test_a_test_file_imported_for_one_domain_is_used_for_it_and_the_other_is_cross_validated(sqlite_url, tmp_path,
                                                                                             capsys):
    _import_fixtures(sqlite_url)
    test_file = tmp_path / "restaurants_test.xml"
    test_file.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<sentences>\n'
        '<sentence id="t1"><text>The pasta was cold.</text><aspectTerms>'
        '<aspectTerm term="pasta" polarity="negative" from="4" to="9"/></aspectTerms></sentence>\n'
        '<sentence id="t2"><text>Lovely waiters and a fine wine list.</text><aspectTerms>'
        '<aspectTerm term="waiters" polarity="positive" from="7" to="14"/>'
        '<aspectTerm term="wine list" polarity="positive" from="26" to="35"/></aspectTerms></sentence>\n'
        '</sentences>\n', encoding="utf-8")
    assert main(["--db", sqlite_url, "import-semeval", str(test_file), "--domain", "restaurant",
                 "--split", "test"]) == 0
    capsys.readouterr()
    assert main(["--db", sqlite_url, "baseline", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    restaurant, laptop = report["en"]["restaurant"], report["en"]["laptop"]
    assert restaurant["protocol"] == "test split" and restaurant["test_sentences"] == 2
    assert laptop["protocol"] == "5-fold CV over train" and laptop["test_sentences"] == 8
    assert "only 2 sentence(s) scored" in restaurant["warning"]
    assert main(["--db", sqlite_url, "baseline"]) == 0
    text = capsys.readouterr().out
    assert "per domain (laptop 5-fold CV over train; restaurant test split)" in text


def test_baseline_command_reports_english_f1_per_domain_on_untranslated_semeval(sqlite_url, capsys):
    _import_fixtures(sqlite_url)
    capsys.readouterr()
    assert main(["--db", sqlite_url, "baseline", "--json"]) == 0
    out = capsys.readouterr()
    report = json.loads(out.out)
    assert set(report["en"]) == {"restaurant", "laptop", "all"}
    assert report["en"]["all"]["test_sentences"] == 12
    assert all(report["en"][d]["f1"] is not None for d in ("restaurant", "laptop", "all"))
    assert report["hi"]["all"]["test_sentences"] == 0
    assert "trained and scored in" in out.err
    assert main(["--db", sqlite_url, "baseline"]) == 0
    assert "no test split: figures are cross-validated over train" in capsys.readouterr().out


def test_audit_baseline_adds_the_crf_on_the_audited_file(capsys):
    assert main(["audit", str(AUDIT / "hindi_bio.conll"), "--json", "--baseline"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert "all" in report["baseline"]["audited"]
    assert "audited:5-fold CV over train" in report["baseline"]["signature"]
    assert main(["audit", str(AUDIT / "akhtar_defects.xml"), "--baseline"]) == 0
    assert "CRF baseline on the audited file" in capsys.readouterr().out


def test_audit_without_baseline_trains_nothing(capsys):
    assert main(["audit", str(AUDIT / "hindi_bio.conll"), "--json"]) == 0
    assert "baseline" not in json.loads(capsys.readouterr().out)


def test_a_planted_wrong_gold_item_is_the_top_suspect_of_the_cross_validated_model():
    data = _toy(60)
    planted = LabelledSequence("restaurant/train/wrong", "restaurant", "train", ("the", "pizza", "was", "good"),
                               ("O", "O", "O", "O"))  # "pizza" is an aspect everywhere else
    data.append(planted)
    found = suspects(data, cross_validated_predictions(data), min_confidence=0.8)
    assert found and found[0].key == "restaurant/train/wrong"
    assert (found[0].token, found[0].gold, found[0].predicted) == (1, "O", "B")
    assert all(a.confidence >= b.confidence for a, b in zip(found, found[1:]))
