"""AppTest: the optional local model on Tag aspects and Project settings, against a stub server the tests start. Its
spans arrive dashed with the source ``llm`` and a save records them; slow, failing or junk answers leave the page
working with the other suggestions; with no address, nothing is sent; Project settings says where text goes, and
refuses an address that is not http(s)."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

import db.llm_suggestions as llm
from corpus.suggestions import ACCEPTED_KEY, SUGGESTIONS_KEY
from db.models import Revision
from db.project_settings import load_settings
from db.assignment import assign_annotators
from tests.support.app_pages import open_page
from tests.support.llm_stub import llm_stub
from tests.support.span_editor_driver import commit, editor_data
from tests.support.tagging_fixtures import (
    add_sentence,
    add_translation,
    add_user,
    change_settings,
    project_id,
    set_project,
)

ENGLISH = "The staff were nice and the miso soup was great."
BLIND = "कर्मचारी अच्छे थे और मिसो सूप बढ़िया था।"  # कर्मचारी अच्छे थे और मिसो सूप बढ़िया था ।
AWARE_ONLY = [([4, 6], "aware", "miso soup")]


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
def blind_item(app_engine):
    engine = app_engine
    set_project(engine, annotators_per_item=1)
    change_settings(engine, model_suggestions=False, suggest_from_transliteration=False)
    asha, ravi, neha = (add_user(engine, n, "translator") for n in ("asha", "ravi", "neha"))
    meera = add_user(engine, "meera", "annotator")
    s = add_sentence(engine, "s1", ENGLISH, ["staff", "miso soup"])
    add_translation(engine, s, "aware", asha, "स्टाफ़ अच्छा था और मिसो सूप बढ़िया था।",
                    aspect_map={"staff": "स्टाफ़", "miso soup": "मिसो सूप"})
    add_translation(engine, s, "aware", ravi, "स्टाफ अच्छा था, मिसो सूप लाजवाब।",
                    aspect_map={"staff": "स्टाफ", "miso soup": "मिसो सूप"}, minutes=1)
    tid = add_translation(engine, s, "blind", neha, BLIND, minutes=2)
    assign_annotators(engine, project_id(engine))
    return engine, meera, tid


def _shown(at):
    return [(s["span"], s.get("source"), s["term"]) for s in editor_data(at, "tag_editor")["suggestions"]]


def test_the_models_spans_arrive_dashed_as_llm_and_a_save_records_them(blind_item, stub):
    engine, meera, tid = blind_item
    change_settings(engine, llm_base_url=stub.base_url, llm_model="llama3.1:8b", llm_timeout_s=2.0)
    stub.answer_spans({"aspect": "staff", "first": 0, "last": 0, "text": "कर्मचारी"})
    at = open_page(engine, meera, "pages/tag.py", query={"item": str(tid)})
    assert _shown(at) == [([0, 1], "llm", "staff"), *AWARE_ONLY]
    data = editor_data(at, "tag_editor")
    assert data["suggestions"][0]["title"] == "suggested for “staff” from the local language model"
    assert data["spans"] == []  # a suggestion is no tag
    commit(at, "tag_editor", "submit", spans=[(0, 1), (4, 6)], keys=2)
    with Session(engine) as session:
        payload = session.scalars(select(Revision.payload).where(Revision.entity == "annotation")
                                  .order_by(Revision.id.desc())).first()
    assert payload[SUGGESTIONS_KEY] == [[0, 1, "llm", None], [4, 6, "aware", 0.95]]
    assert payload[ACCEPTED_KEY] == {"aware": 1, "llm": 1}
    assert len(stub.requests) == 1


@pytest.mark.parametrize("mode", ["slow", "fail", "junk"])
def test_a_slow_failing_or_junk_model_leaves_the_page_working_without_its_spans(blind_item, stub, mode):
    engine, meera, tid = blind_item
    change_settings(engine, llm_base_url=stub.base_url, llm_model="llama3.1:8b", llm_timeout_s=0.5)
    stub.mode, stub.delay_s = mode, 3.0
    at = open_page(engine, meera, "pages/tag.py", query={"item": str(tid)})  # asserts no exception
    assert _shown(at) == AWARE_ONLY
    assert not at.error
    assert len(stub.requests) == 1
    commit(at, "tag_editor", "submit", spans=[(4, 6)], keys=2)
    assert not at.exception


def test_with_no_address_the_tag_page_sends_nothing(blind_item, stub, monkeypatch):
    engine, meera, tid = blind_item
    change_settings(engine, llm_model="llama3.1:8b")

    def refuse(*args, **kwargs):
        raise AssertionError("no request may leave the machine without an address")

    monkeypatch.setattr(llm._OPENER, "open", refuse)
    at = open_page(engine, meera, "pages/tag.py", query={"item": str(tid)})
    assert _shown(at) == AWARE_ONLY
    assert stub.requests == []


def test_project_settings_say_where_text_goes_and_store_the_model(blind_item):
    engine, _, _ = blind_item
    admin = add_user(engine, "ada", "admin")
    at = open_page(engine, admin, "pages/settings.py")
    assert any("Text leaves this machine only to this address" in c.value for c in at.caption)
    at.text_input(key="settings_llm_base_url").input("ftp://127.0.0.1/v1")
    at.text_input(key="settings_llm_model").input("llama3.1:8b")
    next(b for b in at.button if b.label == "Save settings").click().run()
    assert not at.exception
    assert any("must be an http" in e.value and "URL with a host" in e.value for e in at.error), [e.value for e in at.error]
    assert load_settings(engine, project_id(engine)).llm_base_url == ""
    at.text_input(key="settings_llm_base_url").input("http://127.0.0.1:11434/v1")
    at.number_input(key="settings_llm_timeout_s").set_value(3.0)
    next(b for b in at.button if b.label == "Save settings").click().run()
    assert not at.exception and not at.error
    stored = load_settings(engine, project_id(engine))
    assert (stored.llm_base_url, stored.llm_model, stored.llm_timeout_s) == \
        ("http://127.0.0.1:11434/v1", "llama3.1:8b", 3.0)
