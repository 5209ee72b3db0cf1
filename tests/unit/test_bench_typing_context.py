"""The running-text benchmark's scoring helpers (bench/bench_typing_context.py): words, free spellings, miss kinds."""

from bench.bench_typing_context import error_kind, sentence_words, spelling_key


def test_sentence_words_drop_punctuation_and_digits():
    assert sentence_words("भारत, 1947 में आज़ाद हुआ।") == ["भारत", "में", "आज़ाद", "हुआ"]


def test_spelling_key_counts_free_spellings_alike_and_nothing_else():
    for a, b in [("हिन्दी", "हिंदी"), ("लिये", "लिए"), ("फ़िल्म", "फिल्म"), ("यहाँ", "यहां"), ("गयी", "गई")]:
        assert spelling_key(a) == spelling_key(b)
    for a, b in [("कि", "की"), ("है", "हैं"), ("कम", "काम")]:
        assert spelling_key(a) != spelling_key(b)


def test_error_kind_names_why_the_first_pick_missed():
    deeper = ["की", "कि", "क़ि", "केआई", "कई", "काई", "कै"]
    assert error_kind(["की", "कि"], "की", deeper) is None
    assert error_kind(["हिंदी", "हिन्दी"], "हिन्दी", deeper) == "spelling"
    assert error_kind(["की", "कि", "कई"], "कई", deeper) == "top5"
    assert error_kind(["की", "कि"], "काई", deeper) == "deeper"
    assert error_kind(["की", "कि"], "किसी", deeper) == "absent"
    assert error_kind([], "की", deeper) == "deeper"
