"""The romanization model's pure parts: which chunks may join, the build's alignment limits and its n-gram."""

from __future__ import annotations

import math

import pytest

from corpus.romanization import (CLEAR_MARGIN, COMMON_LOG_FREQ, NOT_ENGLISH, RERANK_FEATURES, Candidate,
                                 Pronunciations, RomanizationModel, compile_trees, joins, letter_names, rerank_features,
                                 spelling_variants, tree_score, well_formed)
from corpus.romanization_build import (add_lexicon_only, chunk_allowed, cmu_pronunciations, export_trees, fold_words,
                                      option_logp, phone_symbol, store_trees, train_ngram_kn)


@pytest.mark.parametrize(
    ("left", "chunk", "ok"),
    [
        ("", "ा", False),  # a word never starts with a vowel sign
        ("क", "ा", True),
        ("क्", "ा", False),  # no vowel sign after a virama
        ("का", "ि", False),  # nor after another vowel sign
        ("क्", "अ", False),
        ("", "अ", True),
        ("क्", "क", True),
        ("का", "ं", True),
        ("कं", "ं", False),  # no nasal sign after another
        ("", "ं", False),
        ("क़", "ि", True),  # after a nukta consonant
    ],
)
def test_joins_accepts_only_well_formed_words(left, chunk, ok):
    assert joins(left, chunk) is ok


@pytest.mark.parametrize(
    ("units", "roman_length", "ok"),
    [
        (["क"], 4, True),
        (["क", "ौ"], 3, False),  # कौ ↔ kau would never generalise to another consonant
        (["क्", "स"], 1, True),  # x ↔ क्स: one letter for two
        (["ी", "ं"], 2, True),  # ीं ↔ ee: the nasal sign nobody types
        (["क", "ा"], 2, False),
    ],
)
def test_small_chunks_pair_two_letters_only_where_one_roman_letter_or_a_nasal_sign_needs_it(units, roman_length, ok):
    assert chunk_allowed(units, roman_length) is ok


def _kn_tables():
    # three words: A, A, B (token ids: <s> 0, </s> 1, A 2, B 3), a bigram
    return train_ngram_kn([([("अ", "a")], 1), ([("अ", "a")], 1), ([("ब", "b")], 1)], 2)


def test_kneser_ney_unigram_uses_continuation_counts():
    vocab, tables = _kn_tables()
    assert vocab == ["<s>", "</s>", "अ\ta", "ब\tb"]
    uni = tables[0][""][1]
    # continuation counts A 1, B 1, </s> 2 (after A and after B); discounts D1 = D2 = 0.5; gamma = 1.5 / 4
    assert math.exp(uni["2"]) == pytest.approx(0.25, abs=1e-3)
    assert math.exp(uni["3"]) == pytest.approx(0.25, abs=1e-3)
    assert math.exp(uni["1"]) == pytest.approx(0.5, abs=1e-3)


def test_kneser_ney_bigram_after_the_padding_uses_raw_counts_and_sums_to_one():
    _, tables = _kn_tables()
    bow, probs = tables[1]["0"]
    # raw counts A 2, B 1; D1 = 1/3, D2 = 1.5; gamma = (1.5 + 1/3) / 3
    gamma = (1.5 + 1 / 3) / 3
    assert math.exp(bow) == pytest.approx(gamma, abs=1e-3)
    assert math.exp(probs["2"]) == pytest.approx(0.5 / 3 + gamma * 0.25, abs=1e-3)
    unseen_eos = math.exp(bow) * math.exp(tables[0][""][1]["1"])
    assert math.exp(probs["2"]) + math.exp(probs["3"]) + unseen_eos == pytest.approx(1.0, abs=2e-3)


def test_option_logp_is_each_tokens_share_of_the_aligned_chunks():
    vocab = ["<s>", "</s>", "क\tk", "ा\ta"]
    shares = option_logp(vocab, [([("क", "k"), ("ा", "a")], 1), ([("क", "k")], 2)])
    assert shares == {"2": round(math.log(0.75), 4), "3": round(math.log(0.25), 4)}


def _tiny_model() -> dict:
    return {"order": 2, "vocab": ["<s>", "</s>", "क\tk", "ा\ta"],
            "tables": [{"": [0.0, {"1": -1.0, "2": -1.0, "3": -1.5}]}, {}],
            "option_logp": {"2": -0.5, "3": -1.0}}


def test_lexicon_only_tokens_are_added_once_with_their_share_and_the_penalty():
    model = _tiny_model()
    seqs = [([("क", "k"), ("ौ", "au")], 3), ([("ौ", "au")], 1), ([("फ", "ff")], 1)]
    assert add_lexicon_only(model, seqs, penalty=-6.0, min_count=2) == 1  # फ ↔ ff is seen once only
    assert model["vocab"][4] == "ौ\tau"
    assert model["lexicon_only"] == [4]
    expected = round(math.log(4 / 8) - 6.0, 4)  # ौ: 4 of the 8 aligned chunks
    assert model["tables"][0][""][1]["4"] == expected
    assert model["option_logp"]["4"] == expected


def test_lexicon_only_spellings_are_tried_only_inside_lexicon_words():
    model = _tiny_model()
    add_lexicon_only(model, [([("ौ", "au")], 2)], penalty=-6.0)
    loaded = RomanizationModel(model, {"कौ": 1e-6})
    assert [(chunk, common) for _, chunk, common, _, _ in loaded.options["au"]] == [("ौ", False)]
    assert "कौ" in loaded.search("kau", 4, 4)
    assert "कौ" not in loaded.search("kau", 0, 4)  # without the lexicon beam nobody spells it so


def test_the_folds_hold_out_every_train_word_exactly_once_whatever_order_the_words_come_in():
    words = [f"w{i}" for i in range(103)]
    folds = [fold_words(words, k, folds=10) for k in range(10)]
    assert sorted(w for fold in folds for w in fold) == sorted(words)  # a partition: each word in one fold
    assert {len(f) for f in folds} == {10, 11}
    assert fold_words(list(reversed(words)), 3, folds=10) == folds[3]  # seeded and order-free: rebuilds agree
    assert folds[0] != set(words[::10])  # shuffled, not every tenth word of the sorted list


def test_tree_score_sums_the_leaf_each_tree_reaches():
    # tree 1: feature 0 <= 1.0 ? 2.0 : (feature 1 <= -3.0 ? -1.0 : 0.5); tree 2: a leaf alone
    trees = [[0, 1.0, 2.0, [1, -3.0, -1.0, 0.5]], 0.25]
    assert tree_score(trees, [1.0, 0.0]) == pytest.approx(2.25)  # the threshold itself goes left
    assert tree_score(trees, [1.5, -3.5]) == pytest.approx(-0.75)
    assert tree_score(trees, [1.5, 0.0]) == pytest.approx(0.75)
    assert tree_score([], [0.0]) == 0.0


def test_compiled_trees_score_every_row_exactly_as_tree_score():
    import random

    rng = random.Random(7)

    def tree(depth):
        if depth == 0 or rng.random() < 0.2:
            return rng.uniform(-1, 1) / 3
        return [rng.randrange(4), rng.choice([0.0, 1.0, rng.uniform(-5, 5)]), tree(depth - 1), tree(depth - 1)]

    trees = [tree(4) for _ in range(30)] + [0.125]
    score = compile_trees(trees)
    rows = [[rng.choice([0.0, 1.0, rng.uniform(-6, 6)]) for _ in range(4)] for _ in range(500)]
    assert [score(r) for r in rows] == [tree_score(trees, r) for r in rows]  # bit for bit, not approx
    assert len({score(r) for r in rows}) > 50  # the rows reach many different leaves
    assert compile_trees([])([0.0]) == 0.0


def test_rerank_features_give_each_candidate_its_distance_from_the_best_of_the_list():
    cands = [Candidate(total=-5.0, joint=-12.0, log_freq=3.0, in_lexicon=True, measured=True, letters=4, char=-11.0),
             Candidate(total=-6.5, joint=-10.0, log_freq=0.0, in_lexicon=False, measured=False, letters=3, char=-14.0)]
    rows = rerank_features(cands, "khana", n_candidates=17)
    assert len(rows) == 2 and all(len(r) == len(RERANK_FEATURES) for r in rows)
    named = [dict(zip(RERANK_FEATURES, r)) for r in rows]
    assert named[0] == {"total_rel": 0.0, "joint_rel": -2.0, "log_freq": 3.0, "log_freq_rel": 0.0, "in_lexicon": 1.0,
                        "measured": 1.0, "letters": 4.0, "roman_letters": 5.0, "char": -11.0, "char_rel": 0.0,
                        "rank": 0.0, "in_lexicon_count": 1.0, "candidates": 17.0, "channel": -1.0,
                        "channel_rel": -5.0, "reached": 1.0, "english_rel": NOT_ENGLISH, "english_rank": 3.0,
                        "english_word": 0.0, "acronym": 0.0, "roman_vowels": 2.0, "variant": 0.0}
    assert named[1]["total_rel"] == -1.5 and named[1]["joint_rel"] == 0.0 and named[1]["log_freq_rel"] == -3.0
    assert named[1]["char_rel"] == -3.0 and named[1]["rank"] == 1.0 and named[1]["in_lexicon"] == 0.0
    assert named[1]["channel"] == 4.0 and named[1]["channel_rel"] == 0.0  # joint - char: fits the typing best
    assert rerank_features([], "abc", 0) == []


def test_exported_trees_score_like_scikit_learn():
    np = pytest.importorskip("numpy")
    pytest.importorskip("sklearn")
    from sklearn.ensemble import HistGradientBoostingClassifier

    rng = np.random.default_rng(0)
    x = rng.normal(size=(300, 3))
    y = (x[:, 0] + 0.5 * x[:, 1] * x[:, 2] > 0.2)
    clf = HistGradientBoostingClassifier(max_iter=5, max_depth=3, random_state=0).fit(x, y)
    trees = export_trees(clf)
    ours = np.array([tree_score(trees, row) for row in x.tolist()])
    # scikit-learn adds one constant (the prior's log odds); the order of the candidates is what counts
    diff = clf.decision_function(x) - ours
    assert np.allclose(diff, diff[0], atol=1e-4)


# A tree that scores the candidate at rank 1 (the second) 1.0 and every other 0.0.
SECOND_FIRST = [10, 0.5, 0.0, [10, 1.5, 1.0, 0.0]]


def test_a_shipped_reranker_reorders_only_the_best_candidates_and_keeps_project_words_first():
    model = _tiny_model()
    model["vocab"].append("अ\ta")  # a second spelling of "a": "ka" is का or कअ
    model["tables"][0][""][1]["4"] = -2.0
    model["option_logp"]["4"] = -1.5
    lexicon = {"का": 1e-4}
    plain = RomanizationModel(model, lexicon)
    before = plain.rank("ka", 5)
    # one tree that prefers the candidate the hand-weighted order put second (the third is the spelled-out letters)
    reranked = RomanizationModel(model | {"rerank_trees": [SECOND_FIRST]}, lexicon)
    after = reranked.rank("ka", 5)
    assert before == ["का", "कअ"] and after == ["कअ", "का", "केए"]
    assert reranked.rank("ka", 5, lexicon_extra={before[0]: 1e-3})[0] == before[0]


def test_the_trees_cannot_push_a_common_word_that_the_hand_weighted_score_puts_clearly_first_below_a_rare_spelling(
        monkeypatch):
    model = _tiny_model()
    model["vocab"].append("अ\ta")
    model["tables"][0][""][1]["4"] = -2.0
    model["option_logp"]["4"] = -1.5
    prefers_second = {"rerank_trees": [SECOND_FIRST]}
    common = RomanizationModel(model | prefers_second, {"का": 1e-2, "कम": 1e-7})  # का far above the floor
    assert common.rank("ka", 5) == ["का", "कअ", "केए"]
    monkeypatch.setattr("corpus.romanization.COMMON_LOG_FREQ", 100.0)  # no word counts as common
    monkeypatch.setattr("corpus.romanization.CLEAR_MARGIN", math.inf)  # and no lead is clear: the trees decide
    assert common.rank("ka", 5) == ["कअ", "का", "केए"]


def test_the_trees_cannot_put_a_much_rarer_word_before_a_common_one_even_when_the_two_score_alike(monkeypatch):
    model = _tiny_model()
    model["vocab"].append("अ\ta")
    model["tables"][0][""][1]["4"] = -1.0  # कअ about as likely as का: no clear margin
    model["option_logp"]["4"] = -0.5
    prefers_second = {"rerank_trees": [SECOND_FIRST]}
    monkeypatch.setattr("corpus.romanization.COMMON_MARGIN", 100.0)  # the margin alone never keeps a word first
    rare = RomanizationModel(model | prefers_second, {"का": 1e-2, "कअ": 1e-7})  # 11.5 apart in log frequency
    assert rare.rank("ka", 5)[:2] == ["का", "कअ"]
    close = RomanizationModel(model | prefers_second, {"का": 1e-2, "कअ": 5e-3, "कम": 1e-7})  # 0.7 apart: trees decide
    hand_weighted = [d for _, d in close.ranked("ka")[0]]
    assert close.rank("ka", 5)[:2] == [hand_weighted[1], hand_weighted[0]]


def test_a_measured_word_far_ahead_on_the_hand_weighted_score_is_not_displaced_by_a_rarer_one():
    model = _tiny_model()
    model["vocab"].append("अ\ta")
    model["tables"][0][""][1]["4"] = -1.0
    model["option_logp"]["4"] = -0.5
    prefers_second = {"rerank_trees": [SECOND_FIRST]}
    far = RomanizationModel(model | prefers_second, {"का": 1e-5, "कम": 1e-7})  # measured, not common; कअ unknown
    hand = far.ranked("ka")[0]
    assert far.log_freq("का") < COMMON_LOG_FREQ and hand[0][1] == "का" and hand[1][0] - hand[0][0] > CLEAR_MARGIN
    assert far.rank("ka", 5)[0] == "का"
    near = RomanizationModel(model | prefers_second, {"का": 1e-5, "कअ": 1e-7})  # कअ a word list's word: close behind
    hand = near.ranked("ka")[0]
    assert hand[0][1] == "का" and hand[1][0] - hand[0][0] < CLEAR_MARGIN
    assert near.rank("ka", 5)[0] == "कअ"  # the trees decide


def test_stored_trees_replace_only_the_reranker_in_a_model_file(tmp_path):
    import gzip
    import json

    path = tmp_path / "model.json.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        json.dump({"order": 4, "vocab": ["<s>", "</s>", "क\tk"], "rerank_trees": [0.5]}, fh, ensure_ascii=False)
    store_trees([[13, -2.0, 0.1, -0.1], 0.25], path)
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        stored = json.load(fh)
    assert stored == {"order": 4, "vocab": ["<s>", "</s>", "क\tk"], "rerank_trees": [[13, -2.0, 0.1, -0.1], 0.25]}


@pytest.mark.parametrize(
    ("word", "variant"),
    [
        ("खंड", "खण्ड"),  # an anusvara before a consonant, as that consonant's nasal
        ("खण्ड", "खंड"),
        ("चाँद", "चांद"),  # chandrabindu and anusvara
        ("उपलब्धियां", "उपलब्धियाँ"),
        ("अख़्तर", "अख्तर"),  # a nukta dropped
        ("कागजों", "कागज़ों"),  # or added
    ],
)
def test_spelling_variants_make_one_free_spelling_choice_the_other_way(word, variant):
    assert variant in spelling_variants(word)
    assert word not in spelling_variants(word)


def test_a_word_without_a_free_spelling_choice_has_no_variants():
    assert spelling_variants("मेरा") == []
    assert spelling_variants("") == []


def test_letter_names_spell_an_acronym_as_hindi_writes_it():
    assert letter_names("pcr") == "पीसीआर"
    assert letter_names("tv") == "टीवी"
    assert letter_names("www") == "डब्ल्यूडब्ल्यूडब्ल्यू"


def test_pronunciations_find_a_word_and_nothing_for_a_word_the_dictionary_lacks():
    prons = Pronunciations([("read", ("rεd", "rιd")), ("a", ("α",)), ("ab", ("αb",))])
    assert len(prons) == 3
    assert prons.get("read") == ("rεd", "rιd") and prons.get("a") == ("α",) and prons.get("ab") == ("αb",)
    assert prons.get("re") == () and prons.get("") == () and prons.get("zzz") == ()


def test_cmu_pronunciations_read_festivals_dictionary_one_symbol_per_phoneme(tmp_path):
    path = tmp_path / "cmudict.out"
    path.write_text('MNCL\n("character" nil (((k eh) 1) ((r ih k) 0) ((t er) 0)))\n'
                    '("read" nil (((r eh d) 1)))\n("read" v (((r iy d) 1)))\n("read" n (((r eh d) 1)))\n'
                    '("o\'neil" nil (((ow) 0) ((n iy l) 1)))\n', encoding="latin-1")
    prons = cmu_pronunciations(path)
    eh1, ih0, er0, iy1 = (phone_symbol("eh", True), phone_symbol("ih", False), phone_symbol("er", False),
                          phone_symbol("iy", True))
    assert prons == {"character": ["k" + eh1 + "r" + ih0 + "kt" + er0], "read": ["r" + eh1 + "d", "r" + iy1 + "d"]}
    assert len({phone_symbol(v, s) for v in ("aa", "ae", "uw") for s in (False, True)}) == 6  # stress kept apart


def _english_model() -> dict:
    # "kα" (k, then a stressed vowel) is spelled कै
    return {"order": 2, "vocab": ["<s>", "</s>", "क\tk", "ै\tα"],
            "tables": [{"": [0.0, {"1": -1.0, "2": -1.0, "3": -1.0}]}, {}], "option_logp": {"2": -0.5, "3": -0.5}}


def test_an_english_word_and_a_short_input_bring_their_own_candidates_to_the_reranker():
    model = RomanizationModel(_tiny_model() | {"english": _english_model()}, {"का": 1e-4, "क़ा": 1e-6},
                              Pronunciations([("ka", ("kα",))]))
    scored, finals = model.ranked("ka")
    words, rows = model.rerank_rows("ka", scored, finals)
    assert words == ["का", "कै", "केए", "क़ा"]  # the Roman search's, the English model's, the letters', a variant
    named = [dict(zip(RERANK_FEATURES, r)) for r in rows]
    assert [n["reached"] for n in named] == [1.0, 0.0, 0.0, 0.0]
    assert [n["english_rel"] for n in named] == [NOT_ENGLISH, 0.0, NOT_ENGLISH, NOT_ENGLISH]
    assert [n["english_rank"] for n in named] == [3.0, 0.0, 3.0, 3.0]
    assert [n["acronym"] for n in named] == [0.0, 0.0, 1.0, 0.0]
    assert [n["variant"] for n in named] == [0.0, 0.0, 0.0, 1.0]
    assert {n["english_word"] for n in named} == {1.0}
    # a candidate neither search reached scores NOT_REACHED below the worst that was reached
    assert named[1]["total_rel"] == pytest.approx(-10.0) and named[1]["joint_rel"] == pytest.approx(-10.0)
    # a tree that prefers the spelled-out letters puts them first; without trees only the Roman search's remain
    prefers_acronym = [[RERANK_FEATURES.index("acronym"), 0.5, 0.0, 1.0]]
    reranked = RomanizationModel(_tiny_model() | {"english": _english_model(), "rerank_trees": prefers_acronym},
                                 {"का": 1e-4}, Pronunciations([("ka", ("kα",))]))
    assert reranked.rank("ka", 5) == ["केए", "का", "कै"]
    assert model.rank("ka", 5) == ["का"]


def test_without_pronunciations_there_is_no_english_model():
    model = RomanizationModel(_tiny_model() | {"english": _english_model()}, {"का": 1e-4})
    assert model.english is None and model.english_scored("ka") == []


@pytest.mark.parametrize("word", ["मेंं", "अौर", "काे", "हैै", "ि", "ंब"])
def test_a_typing_slip_from_a_word_list_is_not_well_formed(word):
    assert not well_formed(word)


@pytest.mark.parametrize("word", ["में", "और", "को", "है", "क्षेत्र", "ज़िंदगी", "कीबोर्ड", "ऑफ़"])
def test_hindi_words_are_well_formed(word):
    assert well_formed(word)


def test_a_word_list_slip_is_never_offered_even_when_the_search_finds_it():
    model = _tiny_model()
    model["vocab"].append("ाा\taa")  # a chunk that doubles the vowel sign
    model["tables"][0][""][1]["4"] = -0.5
    model["option_logp"]["4"] = -0.1
    loaded = RomanizationModel(model, {"काा": 1e-2, "का": 1e-6})
    assert "काा" in loaded.search("kaa", 4, 4)
    assert "काा" not in loaded.rank("kaa", 5)
