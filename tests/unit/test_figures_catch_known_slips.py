"""Hand-checked values that catch slips a review planted in domain code and the suite once missed."""

import json

import pytest

from corpus.kappa import pair_tallies, span_f1
from corpus.rouge import WordNumbering, rouge_l_f_text, word_id_arrays
from corpus.workfile import dump_work_file, parse_work_file


def test_span_f1_is_twice_the_matches_over_both_annotators_spans():
    # meera marks two aspects, arjun one of them: P = 1/1, R = 1/2, F1 = 2/3 (not 1/max(2, 1) = 1/2).
    tally = pair_tallies([{"meera": "BOBO", "arjun": "BOOO"}])[("arjun", "meera")]
    value, reason = span_f1(tally)
    assert reason is None
    assert value == pytest.approx(2 / 3, abs=1e-15)


def test_span_f1_counts_a_span_only_when_both_ends_agree():
    # "BI" vs "BO": different spans (0:2 and 0:1), nothing matched, three spans in all -> 0.
    tally = pair_tallies([{"meera": "BIO", "arjun": "BOO"}])[("arjun", "meera")]
    assert span_f1(tally) == (0.0, None)


def test_rouge_l_tells_words_apart_by_their_anusvara():
    # में (in) and मे differ only by the anusvara; they are different words: LCS 1 of 2 each side -> F 0.5.
    assert rouge_l_f_text("में घर", "मे घर") == pytest.approx(0.5)
    numbering = WordNumbering()
    ids, _ = word_id_arrays(["में", "मे", "मैं"], numbering)
    assert len(set(ids.tolist())) == 3
    flat, _ = word_id_arrays(["में घर", "मे घर"], numbering)
    assert len(set(flat.tolist())) == 3


SENTENCE = {"type": "sentence", "id": "3121", "domain": "restaurant", "split": "train",
            "text": "But the staff was so horrible to us.",
            "aspects": [{"term": "staff", "from": 8, "to": 13, "polarity": "negative"}]}


@pytest.mark.parametrize("term,start,end", [("staff", 7, 13), ("staff", 8, 14), (" staff", 8, 13), ("staff ", 8, 13)])
def test_work_file_refuses_an_aspect_whose_offsets_differ_from_its_term_by_whitespace(term, start, end):
    bad = dict(SENTENCE, aspects=[{"term": term, "from": start, "to": end, "polarity": "negative"}])
    _, errors = parse_work_file((json.dumps(bad) + "\n").encode(), "w.jsonl")
    assert len(errors) == 1 and errors[0].line == 1
    assert "offset" in errors[0].message


def test_work_file_dump_keeps_every_translations_aspect_map_as_it_was_read():
    translation = {"type": "translation", "sentence_id": "3121", "phase": "aware", "translator": "asha",
                   "text": "लेकिन स्टाफ़ हमारे साथ बहुत बुरा था।", "untranslatable": False,
                   "aspect_map": [{"aspect": 0, "from": 6, "to": 12}]}
    original = (json.dumps(SENTENCE, ensure_ascii=False) + "\n" + json.dumps(translation, ensure_ascii=False) + "\n")
    work, errors = parse_work_file(original.encode(), "w.jsonl")
    assert errors == []
    dumped = [json.loads(line) for line in dump_work_file(work).splitlines()]
    written = next(o for o in dumped if o["type"] == "translation")
    assert written["aspect_map"] == [{"aspect": 0, "from": 6, "to": 12}]
    assert written["text"][6:12] == "स्टाफ़"
