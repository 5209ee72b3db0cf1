"""The local model's question and the rules that turn its answer into token spans (corpus.llm_suggestions): a valid
answer gives spans, anything else gives none, by hand-checked examples."""

from __future__ import annotations

import json

import pytest

from corpus.llm_suggestions import (
    LlmSpan,
    answer_content,
    chat_messages,
    chat_url,
    endpoint_problems,
    joined,
    parse_answer,
    request_body,
    unfound,
)

# कर्मचारी अच्छे थे , मिसो सूप बढ़िया था पर सीटों पर दाग थे ।
TOKENS = ["कर्मचारी", "अच्छे", "थे", ",", "मिसो", "सूप", "बढ़िया", "था", "पर", "सीटों", "पर", "दाग", "थे", "।"]
ASPECTS = ["staff", "miso soup", "seats"]


def _answer(*entries) -> str:
    return json.dumps({"spans": list(entries)}, ensure_ascii=False)


def test_the_question_numbers_the_tokens_and_names_the_sentence_and_each_aspect_once():
    system, user = chat_messages(TOKENS, "The staff were nice.", ["staff", "food", "Food"])
    assert (system["role"], user["role"]) == ("system", "user")
    text = user["content"]
    assert 'English sentence: "The staff were nice."' in text
    assert '- "staff"\n- "food" (occurs 2 times)\n' in text
    assert "0 कर्मचारी\n1 अच्छे\n2 थे\n3 ,\n4 मिसो" in text
    assert '"first"' in text and '"last"' in text


def test_the_request_is_deterministic_json_and_not_streamed():
    body = request_body(" llama3.1:8b ", [{"role": "user", "content": "x"}])
    assert body["model"] == "llama3.1:8b" and body["temperature"] == 0 and body["stream"] is False
    assert body["response_format"] == {"type": "json_object"}


def test_chat_url_appends_the_openai_path_once():
    assert chat_url("http://127.0.0.1:11434/v1/") == "http://127.0.0.1:11434/v1/chat/completions"


def test_a_valid_answer_gives_its_spans_with_their_terms():
    answer = _answer({"aspect": "staff", "first": 0, "last": 0, "text": "कर्मचारी"},
                     {"aspect": "Miso Soup", "first": 4, "last": 5, "text": "मिसो सूप"},
                     {"aspect": "seats", "first": 9, "last": 9})
    assert parse_answer(answer, TOKENS, ASPECTS) == [
        LlmSpan((0, 1), "staff"), LlmSpan((4, 6), "miso soup"), LlmSpan((9, 10), "seats")]


def test_an_answer_in_a_fence_or_after_prose_is_read():
    fenced = "Here you go:\n```json\n" + _answer({"aspect": "seats", "first": 9, "last": 9}) + "\n```"
    assert parse_answer(fenced, TOKENS, ASPECTS) == [LlmSpan((9, 10), "seats")]
    bare_list = json.dumps([{"aspect": "seats", "first": 9, "last": 9}])
    assert parse_answer(bare_list, TOKENS, ASPECTS) == [LlmSpan((9, 10), "seats")]


def test_a_miscounted_span_is_taken_where_its_words_occur_once():
    answer = _answer({"aspect": "miso soup", "first": 5, "last": 6, "text": "मिसो सूप"})
    assert parse_answer(answer, TOKENS, ASPECTS) == [LlmSpan((4, 6), "miso soup")]
    # थे occurs twice: a stated run that is not where the numbers say and not unique gives nothing
    assert parse_answer(_answer({"aspect": "seats", "first": 1, "last": 1, "text": "थे"}), TOKENS, ASPECTS) == []


@pytest.mark.parametrize("answer", [
    None, "", "no idea", "{not json", "[1, 2, 3]", '{"spans": "मिसो सूप"}', '{"spans": [null, 4, "x"]}',
    json.dumps({"spans": [{"aspect": "staff", "first": -1, "last": 0}]}),            # out of range
    json.dumps({"spans": [{"aspect": "staff", "first": 13, "last": 14}]}),           # past the end
    json.dumps({"spans": [{"aspect": "staff", "first": 3, "last": 1}]}),             # backwards
    json.dumps({"spans": [{"aspect": "staff", "first": True, "last": True}]}),       # booleans are no numbers
    json.dumps({"spans": [{"aspect": "staff", "first": "0", "last": "0"}]}),         # neither are strings
    json.dumps({"spans": [{"aspect": "price", "first": 0, "last": 0}]}),             # not an asked aspect
    json.dumps({"spans": [{"first": 0, "last": 0}]}),                                # no aspect named
    json.dumps({"spans": [{"aspect": "staff", "first": 3, "last": 3}]}),             # punctuation only
    json.dumps({"spans": [{"aspect": "seats", "first": 8, "last": 8}]}),             # a function word (पर)
    json.dumps({"spans": [{"aspect": "staff", "first": 0, "last": 13}]}),            # the whole sentence
    json.dumps({"spans": [{"aspect": "staff", "first": 0, "last": 0, "text": "स्टाफ़"}]}),  # words not there
], ids=["none", "empty", "prose", "broken", "numbers", "string", "junk-entries", "negative", "past-end",
        "backwards", "booleans", "strings", "unknown-aspect", "no-aspect", "punctuation", "function-word",
        "too-long", "wrong-words"])
def test_junk_gives_no_suggestion(answer):
    assert parse_answer(answer, TOKENS, ASPECTS) == []


def test_overlapping_spans_give_no_suggestion_and_the_others_stay():
    answer = _answer({"aspect": "miso soup", "first": 4, "last": 5}, {"aspect": "staff", "first": 5, "last": 6},
                     {"aspect": "seats", "first": 9, "last": 9})
    assert parse_answer(answer, TOKENS, ASPECTS) == [LlmSpan((9, 10), "seats")]


def test_a_run_named_as_two_aspects_gives_nothing_and_a_repeat_counts_once():
    assert parse_answer(_answer({"aspect": "staff", "first": 0, "last": 0}, {"aspect": "seats", "first": 0, "last": 0}),
                        TOKENS, ASPECTS) == []
    assert parse_answer(_answer({"aspect": "staff", "first": 0, "last": 0}, {"aspect": "staff", "first": 0, "last": 0}),
                        TOKENS, ASPECTS) == [LlmSpan((0, 1), "staff")]


def test_an_aspect_gets_no_more_spans_than_the_english_has_occurrences():
    tokens = ["खाना", "देर", "से", "आया", ",", "पर", "खाना", "अच्छा", "था"]
    both = _answer({"aspect": "food", "first": 0, "last": 0}, {"aspect": "food", "first": 6, "last": 6},
                   {"aspect": "food", "first": 7, "last": 7})
    assert [s.span for s in parse_answer(both, tokens, ["food", "food"])] == [(0, 1), (6, 7)]
    assert [s.span for s in parse_answer(both, tokens, ["food"])] == [(0, 1)]


def test_joined_drops_what_overlaps_the_other_suggestions():
    spans = [LlmSpan((0, 1), "staff"), LlmSpan((4, 6), "miso soup")]
    assert joined(spans, [(5, 6)]) == [LlmSpan((0, 1), "staff")]
    assert joined(spans, []) == spans


@pytest.mark.parametrize("raw", [None, b"", b"<html>", b'{"choices": []}', b'{"choices": [{"message": {}}]}',
                                 b'{"choices": [{"message": {"content": 7}}]}', b'[]', b"\xff\xfe"])
def test_a_response_that_is_not_a_chat_answer_has_no_content(raw):
    assert answer_content(raw) is None


def test_a_chat_answer_has_its_content():
    raw = json.dumps({"choices": [{"message": {"role": "assistant", "content": '{"spans": []}'}}]}).encode()
    assert answer_content(raw) == '{"spans": []}'


@pytest.mark.parametrize(("url", "model", "timeout", "problem"), [
    ("", "", 5.0, None),                                             # off: nothing to check
    ("http://127.0.0.1:11434/v1", "llama3.1:8b", 5.0, None),
    ("https://gpu.lab.example/v1", "qwen2.5", 0.5, None),
    ("ftp://127.0.0.1/v1", "m", 5.0, "http:// or https://"),
    ("file:///etc/passwd", "m", 5.0, "http:// or https://"),
    ("javascript:alert(1)", "m", 5.0, "http:// or https://"),
    ("127.0.0.1:11434", "m", 5.0, "http:// or https://"),
    ("http://", "m", 5.0, "http:// or https://"),
    ("http://host:99999/v1", "m", 5.0, "http:// or https://"),
    ("http://a b/v1", "m", 5.0, "http:// or https://"),
    ("http://user:pw@127.0.0.1/v1", "m", 5.0, "user name or password"),
    ("http://127.0.0.1/v1?key=1", "m", 5.0, "query or a fragment"),
    ("http://127.0.0.1/v1", "", 5.0, "name the local model"),
    ("http://127.0.0.1/v1", "m\nx", 5.0, "printable"),
    ("http://127.0.0.1/v1", "m", 0.1, "timeout"),
    ("http://127.0.0.1/v1", "m", float("nan"), "timeout"),
    ("http://127.0.0.1/v1", "m", 600.0, "timeout"),
])
def test_the_endpoint_settings_are_checked(url, model, timeout, problem):
    problems = endpoint_problems(url, model, timeout)
    if problem is None:
        assert problems == []
    else:
        assert len(problems) == 1 and problem in problems[0], problems


def test_the_model_is_asked_only_about_the_occurrences_no_rule_found():
    assert unfound(["staff", "miso soup", "seats"], ["Miso Soup"]) == ["staff", "seats"]
    assert unfound(["food", "food"], ["food"]) == ["food"]  # twice in English, found once
    assert unfound(["food", "food"], ["food", "food"]) == []
    assert unfound(["staff"], []) == ["staff"]
