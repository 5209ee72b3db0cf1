"""The optional local model through the database, against a stub server the tests start: with valid spans its
suggestions join the others with the source ``llm`` and are recorded per source when saved; it is asked once per
item and model, and only about the aspects the rules did not find; slow, failing or junk answers leave the item
with the other suggestions (logged); with no address set nothing is sent; only an admin sets the address."""

from __future__ import annotations

import logging
from dataclasses import replace

import pytest

import db.llm_suggestions as llm
from db.access import SessionEnded
from db.project_settings import load_settings
from db.settings_change import save_settings
from db.projection import shown_records, suggestion_figures
from db.assignment import assign_annotators
from db.workflows import open_item, save_annotation
from tests.support.llm_stub import llm_stub
from tests.support.tagging_fixtures import (
    add_sentence,
    add_translation,
    add_user,
    change_settings,
    project_id,
    set_project,
)

SENTENCE = "The staff were nice, the miso soup was great but the seats were dirty."
ASPECTS = ["staff", "miso soup", "seats"]
# कर्मचारी अच्छे थे , मिसो सूप बढ़िया था पर सीटों पर दाग थे ।
BLIND = "कर्मचारी अच्छे थे, मिसो सूप बढ़िया था पर सीटों पर दाग थे।"
OTHER_BLIND = "कर्मचारी ठीक थे पर सूप ठंडा था।"
RULES = [((4, 6), "aware", "miso soup"), ((9, 10), "aware", "seats")]  # what the aware maps find in BLIND


@pytest.fixture(autouse=True)
def _fresh_model_memory():
    llm.clear()
    yield
    llm.clear()


@pytest.fixture
def stub():
    with llm_stub() as s:
        yield s




@pytest.fixture
def blind_items(engine):
    """A sentence with two aware translations (complete maps, staff as स्टाफ़) and two blind ones that say
    कर्मचारी for the staff, which no rule finds."""
    set_project(engine, annotators_per_item=1)
    change_settings(engine, model_suggestions=False)
    asha, ravi, neha, om = (add_user(engine, n, "translator") for n in ("asha", "ravi", "neha", "om"))
    meera = add_user(engine, "meera", "annotator")
    s = add_sentence(engine, "s1", SENTENCE, ASPECTS)
    add_translation(engine, s, "aware", asha, "स्टाफ़ अच्छा था, मिसो सूप बढ़िया था पर सीटें गंदी थीं।",
                    aspect_map={"staff": "स्टाफ़", "miso soup": "मिसो सूप", "seats": "सीटें"})
    add_translation(engine, s, "aware", ravi, "स्टाफ अच्छा था और मिसो सूप भी, पर सीटें गंदी थीं।",
                    aspect_map={"staff": "स्टाफ", "miso soup": "मिसो सूप", "seats": "सीटें"}, minutes=1)
    neha_tid = add_translation(engine, s, "blind", neha, BLIND, minutes=2)
    om_tid = add_translation(engine, s, "blind", om, OTHER_BLIND, minutes=3)
    assign_annotators(engine, project_id(engine))
    return engine, meera, neha_tid, om_tid


def _found(view):
    return [(s.span, s.source, s.term) for s in view.suggestions]


def _use(engine, stub, timeout=2.0, model="llama3.1:8b"):
    change_settings(engine, llm_base_url=stub.base_url, llm_model=model, llm_timeout_s=timeout)


def test_valid_spans_join_the_suggestions_as_llm_and_are_recorded_per_source(blind_items, stub):
    engine, meera, tid, _ = blind_items
    _use(engine, stub)
    stub.answer_spans({"aspect": "staff", "first": 0, "last": 0, "text": "कर्मचारी"})
    view = open_item(engine, meera, tid)
    assert _found(view) == [((0, 1), "llm", "staff"), *RULES]
    assert view.suggestions[0].confidence is None  # the model's spans carry no calibrated confidence
    assert view.annotation.tags == ["O"] * len(view.tokens)  # suggestions are no tags
    (request,) = stub.requests
    assert request["path"] == "/v1/chat/completions" and request["body"]["model"] == "llama3.1:8b"
    prompt = stub.user_prompt()
    assert SENTENCE in prompt and "0 कर्मचारी\n1 अच्छे" in prompt
    asked = prompt.split("English aspect terms:\n")[1].split("Hindi translation")[0]
    assert asked == '- "staff"\n'  # the rules found the miso soup and the seats

    tags = ["O"] * len(view.tokens)
    tags[0], tags[4], tags[5], tags[9] = "B", "B", "I", "B"
    save_annotation(engine, meera, view.item_id, tags, False, None, "submit", shown=shown_records(view.suggestions),
                    keys=2)
    row = suggestion_figures(engine, project_id(engine)).row("llm")
    assert (row.shown, row.accepted) == (1, 1)


def test_the_model_is_asked_once_per_item_and_model(blind_items, stub):
    engine, meera, tid, _ = blind_items
    _use(engine, stub)
    stub.answer_spans({"aspect": "staff", "first": 0, "last": 0})
    first = open_item(engine, meera, tid)
    again = open_item(engine, meera, tid)
    assert _found(again) == _found(first) == [((0, 1), "llm", "staff"), *RULES]
    assert len(stub.requests) == 1
    _use(engine, stub, model="qwen2.5:7b")  # another model is asked anew
    open_item(engine, meera, tid)
    assert [r["body"]["model"] for r in stub.requests] == ["llama3.1:8b", "qwen2.5:7b"]


def test_an_item_whose_aspects_the_rules_all_found_asks_nothing(blind_items, stub):
    engine, meera, tid, _ = blind_items
    _use(engine, stub)
    change_settings(engine, suggest_from_transliteration=False)
    from db.engine import transaction
    from db.models import GlossaryTerm

    with transaction(engine) as session:
        session.add(GlossaryTerm(project_id=project_id(engine), english="staff", hindi="कर्मचारी"))
    assert [s.source for s in open_item(engine, meera, tid).suggestions] == ["glossary", "aware", "aware"]
    assert stub.requests == []


@pytest.mark.parametrize("mode", ["slow", "fail", "junk", "not-chat"])
def test_a_slow_failing_or_junk_answer_leaves_the_other_suggestions(blind_items, stub, mode, caplog):
    engine, meera, tid, _ = blind_items
    _use(engine, stub, timeout=0.5)
    stub.mode, stub.delay_s = mode, 3.0
    with caplog.at_level(logging.INFO, logger="db.llm_suggestions"):
        view = open_item(engine, meera, tid)
    assert _found(view) == RULES
    assert len(stub.requests) == 1
    said = " ".join(r.getMessage() for r in caplog.records if r.name == "db.llm_suggestions")
    expected = {"slow": "timed out", "fail": "HTTP 500", "junk": "no usable span", "not-chat": "not a chat answer"}
    assert expected[mode] in said and "item" in said


def test_after_a_failure_the_endpoint_is_left_alone_for_a_while(blind_items, stub):
    engine, meera, tid, other = blind_items
    _use(engine, stub, timeout=0.5)
    stub.mode = "fail"
    open_item(engine, meera, tid)
    stub.answer_spans({"aspect": "staff", "first": 0, "last": 0})
    assert [s.source for s in open_item(engine, meera, other).suggestions] == []  # not asked: paused
    assert len(stub.requests) == 1
    llm._paused_until.clear()  # the pause is over
    assert _found(open_item(engine, meera, other)) == [((0, 1), "llm", "staff")]
    assert _found(open_item(engine, meera, tid)) == RULES  # asked once already: its (failed) outcome is kept
    assert len(stub.requests) == 2


def test_with_no_address_nothing_is_sent(blind_items, stub, monkeypatch):
    engine, meera, tid, _ = blind_items
    change_settings(engine, llm_model="llama3.1:8b")  # a model, but no address: off

    def refuse(*args, **kwargs):
        raise AssertionError("no request may leave the machine without an address")

    monkeypatch.setattr(llm._OPENER, "open", refuse)
    monkeypatch.setattr("urllib.request.urlopen", refuse)
    assert _found(open_item(engine, meera, tid)) == RULES
    assert stub.requests == []
    assert llm.endpoint_of(load_settings(engine, project_id(engine))) is None


def test_a_redirect_is_not_followed(blind_items, stub):
    engine, meera, tid, _ = blind_items
    with llm_stub() as elsewhere:
        _use(engine, stub)
        stub.mode, stub.location = "redirect", elsewhere.base_url + "/chat/completions"
        assert _found(open_item(engine, meera, tid)) == RULES
        assert len(stub.requests) == 1 and elsewhere.requests == []


def test_no_proxy_from_the_environment_is_used(blind_items, stub, monkeypatch):
    engine, meera, tid, _ = blind_items
    with llm_stub() as proxy:
        for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
            monkeypatch.setenv(name, proxy.base_url.removesuffix("/v1"))
        for name in ("no_proxy", "NO_PROXY"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setattr(llm, "_OPENER", llm.build_opener())  # built while the environment names a proxy
        _use(engine, stub)
        stub.answer_spans({"aspect": "staff", "first": 0, "last": 0})
        assert _found(open_item(engine, meera, tid))[0] == ((0, 1), "llm", "staff")
        assert len(stub.requests) == 1 and proxy.requests == []


def test_only_an_admin_sets_the_local_model_and_the_address_is_checked(engine):
    pid = project_id(engine)
    lead = add_user(engine, "lead", "lead")
    admin = add_user(engine, "ada", "admin")
    current = load_settings(engine, pid)
    with pytest.raises(SessionEnded, match="admin"):
        save_settings(engine, pid, replace(current, llm_base_url="http://127.0.0.1:11434/v1", llm_model="m"), lead)
    assert load_settings(engine, pid).llm_base_url == ""
    save_settings(engine, pid, replace(current, annotators_per_item=2), lead)  # the lead's other settings still save
    with pytest.raises(ValueError, match="http:// or https://"):
        save_settings(engine, pid, replace(current, llm_base_url="file:///etc/passwd", llm_model="m"), admin)
    changed = save_settings(engine, pid, replace(current, annotators_per_item=2,
                                                 llm_base_url=" http://127.0.0.1:11434/v1 ", llm_model="llama3.1:8b",
                                                 llm_timeout_s=3.0), admin)
    assert set(changed) == {"llm_base_url", "llm_model", "llm_timeout_s"}
    stored = load_settings(engine, pid)
    assert (stored.llm_base_url, stored.llm_model, stored.llm_timeout_s) == \
        ("http://127.0.0.1:11434/v1", "llama3.1:8b", 3.0)
    assert llm.endpoint_of(stored) == llm.LlmEndpoint("http://127.0.0.1:11434/v1", "llama3.1:8b", 3.0)


def test_two_sessions_opening_one_item_at_once_ask_the_model_once(stub):
    import threading

    endpoint = llm.LlmEndpoint(stub.base_url, "llama3.1:8b", 5.0)
    stub.answer_spans({"aspect": "staff", "first": 0, "last": 0})
    stub.mode, stub.delay_s = "slow", 0.5  # answers after half a second
    tokens = BLIND.replace("।", " ।").replace(",", " ,").split()
    got: list = []
    threads = [threading.Thread(target=lambda: got.append(llm.llm_spans(endpoint, 7, tokens, SENTENCE, ["staff"])))
               for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [(llm.LlmSpan((0, 1), "staff"),)] * 2
    assert len(stub.requests) == 1
