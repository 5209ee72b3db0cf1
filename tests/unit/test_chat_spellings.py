"""Chat spellings as people type them in running text (issue 26), hand-checked.

Each row says where the expected word must be: ``first`` (what the space bar converts to) or ``top5`` (one pick
away in the list). ``context`` is the Devanagari words typed before it in the sentence (most recent last); ``()`` is
the first word of a sentence. The Roman word itself is offered by the editor, not by ``suggest``.
"""

from __future__ import annotations

import pytest

from corpus.transliterate import suggest

FIRST, TOP5 = "first", "top5"

CHAT = [
    # roman, context, expected, where
    ("maine", (), "मैंने", FIRST),
    ("maine", ("आज",), "मैंने", FIRST),
    ("bohot", (), "बहुत", FIRST),
    ("bahut", (), "बहुत", FIRST),
    ("bht", (), "बहुत", FIRST),
    ("nhi", (), "नहीं", FIRST),
    ("nahi", (), "नहीं", FIRST),
    ("nahin", (), "नहीं", FIRST),
    ("kya", (), "क्या", FIRST),
    ("kya", ("यह",), "क्या", FIRST),
    ("h", ("क्या",), "है", FIRST),
    ("h", (), "है", FIRST),
    ("hai", (), "है", FIRST),
    ("hai", ("खाना",), "है", FIRST),
    ("hai", ("रहे",), "हैं", FIRST),  # a plural verb before it: the nasal chat leaves out
    ("hai", ("सकते",), "हैं", FIRST),
    ("hain", (), "हैं", FIRST),
    ("hain", ("वे",), "हैं", FIRST),
    ("saturday", (), "सैटरडे", FIRST),
    ("saturday", (), "शनिवार", TOP5),
    ("chalu", (), "चालू", FIRST),
    ("dumplings", (), "डंपलिंग्स", FIRST),
    ("mein", (), "में", FIRST),
    ("mein", ("घर",), "में", FIRST),
    ("me", (), "में", FIRST),
    ("me", ("घर",), "में", FIRST),
    ("main", (), "मैं", FIRST),  # a sentence's first word: the pronoun
    ("main", ("घर",), "में", FIRST),  # after a noun: the postposition
    ("main", (), "में", TOP5),
    ("mai", (), "मैं", FIRST),
    ("hun", ("मैं",), "हूँ", FIRST),
    ("hu", (), "हूं", TOP5),
    ("ki", (), "की", FIRST),
    ("ki", ("राम",), "की", FIRST),
    ("ki", ("कहा",), "कि", TOP5),
    ("ke", (), "के", FIRST),
    ("ke", ("राम",), "के", FIRST),
    ("kee", (), "की", FIRST),
    ("kee", ("राम",), "की", FIRST),
    ("tha", (), "था", FIRST),
    ("thi", (), "थी", FIRST),
    ("the", (), "थे", FIRST),
    ("the", ("वे",), "थे", FIRST),
    ("bhi", (), "भी", FIRST),
    ("aur", (), "और", FIRST),
    ("or", (), "और", FIRST),
    ("or", ("की",), "ओर", TOP5),  # की ओर, "towards"
    ("accha", (), "अच्छा", FIRST),
    ("acha", (), "अच्छा", FIRST),
    ("accha", ("बहुत",), "अच्छा", FIRST),
    ("kr", (), "कर", FIRST),
    ("kr", ("काम",), "कर", FIRST),
    ("kuch", (), "कुछ", FIRST),
    ("sab", (), "सब", FIRST),
    ("yeh", (), "यह", FIRST),
    ("ye", (), "ये", FIRST),
    ("yeh", (), "ये", TOP5),
    ("rha", (), "रहा", FIRST),
    ("rhe", (), "रहे", FIRST),
    ("gya", (), "गया", FIRST),
    ("kia", (), "किया", FIRST),
    ("mujhe", (), "मुझे", FIRST),
    ("aap", (), "आप", FIRST),
]


@pytest.mark.parametrize(("roman", "context", "expected", "where"), CHAT,
                         ids=[f"{r}-{'-'.join(c) or 'start'}-{w}" for r, c, _, w in CHAT])
def test_chat_spelling_reaches_the_word_people_mean(roman, context, expected, where):
    candidates = suggest(roman, 5, context=context)
    if where == FIRST:
        assert candidates[0] == expected, candidates
    else:
        assert expected in candidates, candidates
