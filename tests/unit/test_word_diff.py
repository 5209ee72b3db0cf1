from corpus.word_diff import DiffToken, word_diff


def test_identical_translations_have_no_changes():
    diff = word_diff("खाना अच्छा था", "खाना अच्छा था")
    assert [t.change for t in diff] == ["same", "same", "same"]


def test_a_replaced_word_shows_the_reference_word_removed_then_the_candidate_word_added():
    assert word_diff("खाना अच्छा था", "खाना बढ़िया था") == [
        DiffToken("खाना", "same"), DiffToken("अच्छा", "removed"), DiffToken("बढ़िया", "added"), DiffToken("था", "same"),
    ]


def test_devanagari_words_stay_whole_across_vowel_signs():
    # \w would split खाना into ख / न; the canonical tokenizer keeps it one word.
    assert [t.text for t in word_diff("", "खाना")] == ["खाना"]


def test_added_and_dropped_words_and_punctuation():
    diff = word_diff("सेवा धीमी थी।", "सेवा बहुत धीमी थी")
    assert diff == [DiffToken("सेवा", "same"), DiffToken("बहुत", "added"), DiffToken("धीमी", "same"),
                    DiffToken("थी", "same"), DiffToken("।", "removed")]


def test_nothing_in_common_is_all_changed_and_empty_is_empty():
    assert word_diff("a b", "c") == [DiffToken("a", "removed"), DiffToken("b", "removed"), DiffToken("c", "added")]
    assert word_diff("", "") == []


def test_frequent_tokens_are_not_treated_as_junk():
    ref = " ".join(["है"] * 120 + ["x"])
    cand = " ".join(["है"] * 120 + ["y"])
    diff = word_diff(ref, cand)
    assert sum(t.change == "same" for t in diff) == 120
