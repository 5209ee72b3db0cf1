"""The JSONL line written from a record's fields is, character for character, what ``json`` writes of
``to_json(record)`` (the format's definition), for every kind of value a record can hold."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from corpus.export.jsonl import _ENCODE, _line, to_json
from corpus.export.records import EnglishAspect, ExportSentence, HindiAspect
from corpus.vocabulary import GoldSource


def _record(**changes) -> ExportSentence:
    record = ExportSentence(
        uid="restaurants/train/1", sentence_id="1", domain="restaurants", split="train",
        en_text='The "food" was good.', en_aspects=(EnglishAspect("food", 5, 9, "positive", 0),),
        en_tokens=("The", '"', "food", '"', "was", "good", "."), en_tags=("O", "O", "B", "O", "O", "O", "O"),
        hi_text="खाना अच्छा था।", hi_tokens=("खाना", "अच्छा", "था", "।"), hi_tags=("B", "O", "O", "O"),
        hi_aspects=(HindiAspect("खाना", 0, 4, 0, 1, "positive", 0),), phase="aware", translator="t1",
        translation_id=7, categories=(("food", "positive"), ("service", None)),
        agreement={"rouge_l_vs_others": 0.5, "rouge_l_phase_mean": np.float64(0.25), "translations_in_phase": 4,
                   "best_in_phase": np.True_, "annotators": 2, "token_agreement": 1.0, "cohen_kappa": None},
        guidelines_version="2.1", lid=("lang2", "lang2", "lang2", "other"),
    )
    return replace(record, **changes)


def _encoded(record: ExportSentence) -> str:
    return _ENCODE(to_json(record)) + "\n"


CASES = {
    "plain": {},
    "quotes, backslashes and control characters": {
        "hi_text": 'a "b" \\ c\x01 \u2028', "hi_tokens": ('"', "\\", "c\x01", "\u2028"), "uid": 'x"\\y'},
    "characters outside the BMP and surrogates": {"hi_text": "😀 \ud800", "hi_tokens": ("😀", "\ud800")},
    "empty sequences and no agreement": {"hi_tokens": (), "hi_tags": (), "lid": (), "hi_aspects": (), "en_aspects": (),
                                         "categories": (), "agreement": {}, "en_tokens": (), "en_tags": ()},
    "undefined and infinite figures": {"agreement": {"rouge_l_vs_others": float("nan"), "token_agreement": float("inf"),
                                                     "cohen_kappa": -float("inf"), "best_in_phase": False}},
    "no polarity, no link, no guidelines": {
        "hi_aspects": (HindiAspect("खाना", 0, 4, 0, 1, None, None),), "guidelines_version": None,
        "en_aspects": (EnglishAspect("food", 5, 9, None, np.int64(3)),)},
    "an enum's string value": {"gold_source": GoldSource.AGREED},
    "lists where tuples are": {"hi_tokens": ["खाना", "अच्छा", "था", "।"], "categories": [("food", None)]},
    "a tag string, not a sequence": {"hi_tags": "BOOO"},
    "an integer where a flag is, no translator": {"is_final": 1, "translator": None},
    "a value json cannot write": {"hi_aspects": (HindiAspect("खाना", np.int64(0), 4, 0, 1, None, None),)},
}


@pytest.mark.parametrize("case", CASES)
def test_jsonl_line_is_what_json_writes_of_the_record(case):
    record = _record(**CASES[case])
    try:
        expected = _encoded(record)
    except (TypeError, ValueError) as error:  # not serializable: the line is not either
        with pytest.raises(type(error)):
            _line(record)
        return
    assert _line(record) == expected
    assert json.loads(_line(record)) == json.loads(expected)
