"""corpus.kappa reads tags with regex and numpy fast paths (about 3.4x faster than corpus.bio per tag set,
and the table paths avoid Python loops altogether); corpus.bio is where the tag rules live. These tests pin
every fast path equal to corpus.bio on many random tag sequences, invalid ones included."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from corpus.bio import TAGS, repair_tags, tags_to_spans, validate_tags
from corpus.kappa import (
    LABELS,
    TagTable,
    has_stray_i,
    pair_tallies,
    span_count,
    spans_of,
    tag_codes,
    tag_string,
)

INVALID = ["X", "b", "i", "o", "B-ASP", "", "BI", " ", "ब"]


def _random_tags(rng: random.Random, n: int, invalid: float = 0.0) -> list[str]:
    return [rng.choice(INVALID) if rng.random() < invalid else rng.choice("BIOOO") for _ in range(n)]


def _bio_spans(tags: list[str]) -> list[tuple[int, int]]:
    """corpus.bio's reading of a tag sequence, stray I read as B (the repair the metrics apply)."""
    return tags_to_spans(repair_tags(tags)[0])


@pytest.mark.parametrize("seed", range(4))
def test_tag_string_accepts_exactly_what_the_bio_module_knows_and_reads_spans_like_it(seed):
    rng = random.Random(seed)
    for _ in range(2000):
        tags = _random_tags(rng, rng.randint(0, 20), invalid=0.05)
        problems = validate_tags(tags)
        unknown = any("unknown tag" in p.message for p in problems)
        text = tag_string(tags)
        assert (text is None) == unknown, tags
        if text is None:
            continue
        assert text == "".join(tags) and tag_string(text) == text
        assert [LABELS[c] for c in tag_codes(text).tolist()] == tags
        assert spans_of(text) == _bio_spans(tags), tags
        assert span_count(text) == len(_bio_spans(tags))
        assert has_stray_i(text) == bool(problems), tags
        if not problems:
            assert spans_of(text) == tags_to_spans(tags)


def test_tag_string_refuses_non_strings_and_tags_outside_bio():
    assert set(TAGS) == set(LABELS)
    for bad in (["B", None], ["B", 1], ["B", "I", "-"], "OBX", "obi"):
        assert tag_string(bad) is None


def test_table_span_and_stray_i_counts_equal_the_bio_module():
    rng = random.Random(7)
    groups = []
    for _ in range(400):
        n = rng.randint(0, 15)
        groups.append({name: "".join(_random_tags(rng, n)) for name in rng.sample("abcd", rng.randint(1, 4))})
    table = TagTable.from_groups(groups)
    sets = [list(t) for t in table.tags.tolist()]
    assert table.span_counts().tolist() == [len(_bio_spans(t)) for t in sets]
    assert table.stray_i_counts().tolist() == [len(validate_tags(t)) for t in sets]


def test_pair_tallies_equal_a_count_made_with_the_bio_module():
    rng = random.Random(8)
    groups = []
    for _ in range(300):
        n = rng.randint(0, 12)
        groups.append({name: "".join(_random_tags(rng, n)) for name in rng.sample("abc", rng.randint(2, 3))})
    expected: dict[tuple[str, str], list] = {}
    for group in groups:
        names = sorted(group)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                left, right = list(group[a]), list(group[b])
                spans_a, spans_b = set(_bio_spans(left)), set(_bio_spans(right))
                tally = expected.setdefault((a, b), [Counter(), 0, 0, 0, 0])
                tally[0].update(zip(left, right))
                tally[1] += 1
                tally[2] += len(spans_a)
                tally[3] += len(spans_b)
                tally[4] += len(spans_a & spans_b)
    tallies = pair_tallies(groups)
    assert set(tallies) == set(expected)
    for pair, (tokens, translations, spans_a, spans_b, matched) in expected.items():
        got = tallies[pair]
        confusion = {(LABELS[i], LABELS[j]): int(got.confusion[i, j]) for i in range(3) for j in range(3)}
        assert confusion == {key: tokens.get(key, 0) for key in confusion}, pair
        assert (got.translations, got.spans_a, got.spans_b, got.matched) == (translations, spans_a, spans_b, matched)
