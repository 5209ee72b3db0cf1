"""Phonetic Roman → Devanagari suggestions: hand-checked words as Hindi speakers type them."""

from __future__ import annotations

import unicodedata

import pytest

from corpus.romanization import well_formed
from corpus.transliterate import suggest, to_devanagari


@pytest.mark.parametrize(
    ("roman", "hindi"),
    [
        ("khana", "खाना"),
        ("achha", "अच्छा"),
        ("bahut", "बहुत"),
        ("hai", "है"),
        ("mera", "मेरा"),
        ("tha", "था"),
        ("keyboard", "कीबोर्ड"),  # an English loanword, as Hindi writes it
        ("nahi", "नहीं"),  # the anusvara nobody types
        ("accha", "अच्छा"),
        ("Mera", "मेरा"),  # capitals are read as lower case
        ("do", "दो"),  # a Hindi word that spells an English one: the common Hindi word first
        ("us", "उस"),
        ("mein", "में"),
        ("pcr", "पीसीआर"),  # an acronym, its letters spelled out by name
        ("tv", "टीवी"),
        ("bbc", "बीबीसी"),
        ("mobile", "मोबाइल"),  # a review's loanwords as Hindi writes them, not as the English model spells them
        ("battery", "बैटरी"),
        ("hotel", "होटल"),
    ],
)
def test_common_words_come_first(roman, hindi):
    assert suggest(roman)[0] == hindi


def test_main_gives_a_common_hindi_word_before_the_english_main():
    assert suggest("main")[0] in {"मैं", "में"}
    assert {"मैं", "में"} <= set(suggest("main", 5))


@pytest.mark.parametrize(
    ("roman", "accepted"),
    [
        ("designer", {"डिजाइनर", "डिज़ाइनर"}),  # spelled as the English word sounds, not as its letters read
        ("gravity", {"ग्रैविटी", "ग्रेविटी"}),
        ("impact", {"इंपैक्ट", "इम्पैक्ट"}),
        ("plague", {"प्लेग"}),
        ("niger", {"नाइजर"}),
    ],
)
def test_english_words_are_spelled_as_they_sound(roman, accepted):
    assert accepted & set(suggest(roman, 3)), suggest(roman, 5)


def test_the_browser_sentence_needs_no_pick():
    """The editor's browser test types this and expects it without choosing a candidate."""
    assert " ".join(suggest(w)[0] for w in "mera keyboard bahut achha hai".split()) == "मेरा कीबोर्ड बहुत अच्छा है"


@pytest.mark.parametrize(
    ("roman", "accepted"),
    [
        ("hindi", {"हिंदी", "हिन्दी"}),  # n before a consonant: anusvara or half n
        ("zyada", {"ज़्यादा", "ज्यादा"}),  # nukta letter (or the plain spelling many write)
        ("jyada", {"ज़्यादा", "ज्यादा"}),  # z / j typed either way
        ("phone", {"फ़ोन", "फोन"}),
        ("fon", {"फ़ोन", "फोन"}),  # f / ph
        ("pani", {"पानी"}),  # dropped long vowel marks: a for aa, i for ii
        ("paani", {"पानी"}),
        ("vakt", {"वक़्त", "वक्त"}),
        ("waqt", {"वक़्त", "वक्त"}),  # w / v, q for क़
        ("sadak", {"सड़क"}),  # ड़ typed as d
        ("accha", {"अच्छा"}),  # doubled consonant
        ("khand", {"खंड", "खण्ड"}),  # anusvara or the consonant's own nasal
    ],
)
def test_loose_spellings_find_the_word_among_the_top_five(roman, accepted):
    assert accepted & set(suggest(roman, 5)), suggest(roman, 5)


def test_a_name_gets_a_sensible_spelling():
    assert "सोनी" in suggest("sony", 5)


def test_candidates_are_distinct_nfc_devanagari_and_at_most_k():
    for roman in ("khana", "sony", "kitab", "pyaar", "dilli", "mein", "aur", "ko"):
        out = suggest(roman, 5)
        assert 1 <= len(out) <= 5
        assert len(set(out)) == len(out)
        for word in out:
            assert word == unicodedata.normalize("NFC", word)
            assert all("\u0900" <= ch <= "\u097f" for ch in word), word
            assert well_formed(word), word  # no typing slip from a word list (मेंं, अौर, काे)


def test_k_limits_the_list():
    assert len(suggest("khana", 1)) == 1
    assert suggest("khana", 0) == []


def test_the_same_input_gives_the_same_list():
    assert suggest("samachar", 5) == suggest("samachar", 5)


def test_empty_input_has_no_candidates():
    assert suggest("") == []
    assert suggest("   ") == []


def test_digits_stay_as_typed():
    assert suggest("2024") == ["2024"]


def test_devanagari_passes_through_unchanged_and_nfc():
    decomposed = "क\u093c"  # क + nukta, the NFC form is क़ (one code point)
    assert suggest(decomposed) == [unicodedata.normalize("NFC", decomposed)]
    assert suggest("नमस्ते") == ["नमस्ते"]


def test_very_long_input_returns_quickly_and_bounded(monkeypatch):
    """Bounded work, not a stopwatch: past ``LONG_INPUT`` letters the beam search never runs (the rule-based
    converter answers), and up to it every position keeps at most the two beams' hypotheses."""
    from corpus import romanization

    searched: list[int] = []
    kept: list[int] = []
    search, prune = romanization.RomanizationModel.search, romanization.RomanizationModel._prune

    def counting_search(self, roman, *args, **kwargs):
        searched.append(len(roman))
        return search(self, roman, *args, **kwargs)

    def counting_prune(hyps, beam_lex, beam_free):
        out = prune(hyps, beam_lex, beam_free)
        kept.append(len(out))
        return out

    monkeypatch.setattr(romanization.RomanizationModel, "search", counting_search)
    monkeypatch.setattr(romanization.RomanizationModel, "_prune", staticmethod(counting_prune))
    out = suggest("bahut" * 100, 5)
    assert 1 <= len(out) <= 5
    assert searched == []
    longest = ("bahut" * 100)[:romanization.LONG_INPUT]
    assert 1 <= len(suggest(longest, 5)) <= 5
    assert searched == [len(longest)]
    assert 0 < len(kept) <= len(longest)  # one pruning per position reached
    assert max(kept) <= romanization.BEAM_LEX + romanization.BEAM_FREE


def test_prefer_ranks_the_given_forms_first_in_order():
    out = suggest("hindi", 5, prefer=["हिन्दी", "हिंदी"])
    assert out[:2] == ["हिन्दी", "हिंदी"]
    assert len(out) == len(set(out)) <= 5


def test_lexicon_extra_lifts_a_project_word():
    plain = suggest("sarvis", 5)
    boosted = suggest("sarvis", 5, lexicon_extra={"सरविस": 0.01})
    assert boosted[0] == "सरविस", (plain, boosted)


def test_itrans_stays_available():
    assert to_devanagari("khAnA", "itrans") == "खाना"
