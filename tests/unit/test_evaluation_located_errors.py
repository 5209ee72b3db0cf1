"""Every error a refused predictions file gets names its line and a sentence (never `line None`/`sentence None`),
and the file is checked before it can be submitted (``check_predictions``: the Dataset check's upload)."""

from __future__ import annotations

import pytest

from corpus.baseline import LabelledSequence
from corpus.evaluation import NO_TEST_GOLD, check_predictions

GOLD = [
    LabelledSequence("restaurant/test/1", "restaurant", "test", ("खाना", "अच्छा", "था"), ("B", "O", "O")),
    LabelledSequence("restaurant/test/2", "restaurant", "test", ("स्टाफ़", "बुरा"), ("B", "O")),
    LabelledSequence("laptop/test/3", "laptop", "test", ("बैटरी", "कम"), ("B", "O")),
]
GOOD_CONLL = "खाना\tB\nअच्छा\tO\nथा\tO\n\nस्टाफ़\tB\nबुरा\tO\n\nबैटरी\tB\nकम\tO\n"

BAD = [
    ("missing-sentence", "p.conll", "खाना\tB\nअच्छा\tO\nथा\tO\n\nस्टाफ़\tB\nबुरा\tO\n", 6, "laptop/test/3"),
    ("extra-sentence", "p.conll", GOOD_CONLL + "\nऔर\tO\n", 11, "4 (no test sentence)"),
    ("missing-by-id", "p.conll", "# id = restaurant/test/1\nखाना\tB\nअच्छा\tO\nथा\tO\n", 4, "restaurant/test/2"),
    ("unknown-id", "p.conll", "# id = nope\nखाना\tB\n", 1, "nope"),
    ("other-tokens", "p.conll", GOOD_CONLL.replace("बुरा", "अच्छा"), 5, "restaurant/test/2"),
    ("bad-tag", "p.conll", GOOD_CONLL.replace("कम\tO", "कम\tX"), 9, "#3"),
    ("one-column", "p.conll", "खाना\n", 1, "#1"),
    ("not-json", "p.jsonl", '{"tokens": ["खाना"]\n', 1, "#1"),
    ("not-an-object", "p.jsonl", "[1, 2]\n", 1, "#1"),
    ("tag-count", "p.jsonl", '{"tokens": ["खाना"], "tags": []}\n', 1, "#1"),
    ("not-utf8", "p.conll", b"\xff\xfe\tB\n".decode("latin-1"), 1, "#1"),
]


@pytest.mark.parametrize("name,filename,text,line,sentence", BAD, ids=[b[0] for b in BAD])
def test_every_refusal_names_its_line_and_sentence(name, filename, text, line, sentence):
    data = text.encode("latin-1") if name == "not-utf8" else text.encode("utf-8")
    tags, _, errors = check_predictions(data, filename, GOLD)
    assert errors, name
    for error in errors:
        assert error.line is not None and error.sentence_id is not None, error
    assert (errors[0].line, errors[0].sentence_id) == (line, sentence)
    assert "None" not in str(errors[0])


def test_a_file_that_fits_is_accepted_with_every_sentence_tagged():
    tags, fmt, errors = check_predictions(GOOD_CONLL.encode(), "p.conll", GOLD)
    assert errors == [] and fmt == "conll"
    assert tags == {g.key: g.tags for g in GOLD}


def test_without_test_gold_the_check_says_why_before_reading_the_file():
    _, _, errors = check_predictions(b"anything", "p.conll", [])
    assert [e.message for e in errors] == [NO_TEST_GOLD]
    assert errors[0].line == 1 and errors[0].sentence_id
