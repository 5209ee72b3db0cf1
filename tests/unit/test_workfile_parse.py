"""The parser's fast paths read as the plain ones do: the quick BIO check agrees with
``corpus.bio.validate_tags``, and lines are read as ``json.loads`` reads them."""

from __future__ import annotations

import itertools
import json
import random

from corpus.bio import validate_tags
from corpus.workfile import parse_work_file, plainly_valid_bio


def _tag_lists():
    for n in range(5):
        yield from (list(t) for t in itertools.product(("B", "I", "O"), repeat=n))
    rng = random.Random(15)
    odd = ["B", "I", "O", "", "BO", "b", "I ", None, 1, ["O"], "OB", "Ｏ"]
    for _ in range(3000):
        yield [rng.choice(odd) for _ in range(rng.randint(0, 6))]


def test_the_quick_bio_check_says_yes_exactly_when_validate_tags_finds_nothing():
    for tags in _tag_lists():
        plain = all(isinstance(t, str) for t in tags) and not validate_tags(tags)
        assert plainly_valid_bio(tags) == plain, tags


def test_lines_are_read_as_json_loads_reads_them():
    """The scanner is used without json.loads's wrapper; whitespace around a value, a byte-order mark on
    the first line and trailing garbage still read (or fail) as json.loads has them."""
    sentence = {"type": "sentence", "id": "1", "domain": "restaurant", "split": "train", "text": "Good food."}
    text = json.dumps(sentence)
    work, errors = parse_work_file(("\ufeff" + text + "\n  " + text.replace('"1"', '"2"') + "  \n").encode(), "w")
    assert errors == [] and [s.key.id for s in work.sentences] == ["1", "2"]
    _, errors = parse_work_file((text + " x\n" + text[:-1] + "\n").encode(), "w")
    assert [(e.line, e.message) for e in errors] == [
        (1, f"not valid JSON: Extra data (column {len(text) + 2})"),
        (2, f"not valid JSON: Expecting ',' delimiter (column {len(text)})"),
    ]


def test_aspects_or_categories_that_are_not_a_list_are_the_lines_error_not_a_crash():
    sentence = {"type": "sentence", "id": "1", "domain": "restaurant", "split": "train", "text": "Good food."}
    lines = [dict(sentence, aspects=5), dict(sentence, id="2", categories=1.5), dict(sentence, id="3", aspects="food"),
             dict(sentence, id="4", aspects=[], categories=None)]
    work, errors = parse_work_file("".join(json.dumps(o) + "\n" for o in lines).encode(), "w")
    assert [(e.line, e.sentence_id, e.message) for e in errors] == [
        (1, "1", "field 'aspects' must be a list, not int"),
        (2, "2", "field 'categories' must be a list, not float"),
        (3, "3", "field 'aspects' must be a list, not str"),
    ]
    assert [s.key.id for s in work.sentences] == ["4"]
