"""Phonetic typing per project: accepted forms are learned, counted, ranked first next time, shown to the lead."""

from __future__ import annotations

import pytest

from corpus import transliterate
from db.translation import Draft, save_translation, set_glossary_term
from db.typing import (
    accepted_pairs,
    context_words,
    learned_forms,
    preferred,
    project_bigrams,
    project_lexicon,
    record_accepted,
    suggest_for,
)
from tests.support.translation_fixtures import (
    add_sentence,
    add_user,
    assign,
    project_id,
)


@pytest.fixture
def model(monkeypatch):
    """A stand-in for the shipped model that records what it was asked (its own ranking: fixed)."""
    calls: list[dict] = []

    def suggest(roman, k=5, *, lexicon_extra=None, prefer=(), context=(), context_extra=None):
        calls.append({"roman": roman, "k": k, "lexicon_extra": lexicon_extra, "prefer": tuple(prefer),
                      "context": tuple(context), "context_extra": context_extra})
        table = {"mera": ["मेरा", "मीरा", "मेर"], "achha": ["अच्छा", "आछा"]}
        return table.get(roman, [])[:k]

    monkeypatch.setattr(transliterate, "suggest", suggest, raising=False)
    return calls


def test_an_accepted_form_ranks_first_next_time_in_the_same_project(engine, model):
    pid = project_id(engine)
    asha = add_user(engine, "asha", "translator")
    assert suggest_for(engine, pid, "mera") == ["मेरा", "मीरा", "मेर"]
    record_accepted(engine, pid, asha, [("mera", "मीरा")])
    assert suggest_for(engine, pid, "mera") == ["मीरा", "मेरा", "मेर"]
    assert model[-1]["prefer"] == ("मीरा",)


def test_learned_forms_are_counted_and_the_most_used_wins(engine, model):
    pid = project_id(engine)
    asha = add_user(engine, "asha", "translator")
    record_accepted(engine, pid, asha, [("mera", "मीरा")])
    record_accepted(engine, pid, asha, [("Mera", "मेरा"), ("mera", "मेरा")])
    assert preferred(engine, pid, "MERA") == ["मेरा", "मीरा"]
    forms = {(f.roman, f.devanagari): f for f in learned_forms(engine, pid)}
    assert forms[("mera", "मेरा")].uses == 2 and forms[("mera", "मीरा")].uses == 1
    assert forms[("mera", "मेरा")].first_user == "asha"


def test_learning_stays_in_its_project(engine, model):
    from sqlalchemy.orm import Session

    from db.models import Project

    pid = project_id(engine)
    with Session(engine) as s:
        other = Project(name="another corpus")
        s.add(other)
        s.commit()
        other_id = other.id
    record_accepted(engine, other_id, None, [("mera", "मीरा")])
    assert suggest_for(engine, pid, "mera")[0] == "मेरा"
    assert suggest_for(engine, other_id, "mera")[0] == "मीरा"
    assert learned_forms(engine, pid) == []


@pytest.mark.parametrize("raw", [
    [["mera", "<b>x</b>"]], [["mera", "mera"]], [["me ra", "मेरा"]], [["", "मेरा"]], [["mera", ""]],
    [["mera", "मेरा है"]], [["mera", 5]], [["mera"]], "mera", None, [["x" * 61, "मेरा"]], [["mera", "१२"]],
])
def test_malformed_pairs_from_the_browser_are_dropped(raw):
    assert accepted_pairs(raw) == []


def test_well_formed_pairs_are_normalized():
    precomposed = "\u0958"  # क़ as one code point, as some keyboards send it; NFC writes क + nukta
    assert accepted_pairs([[" Zara ", precomposed + "रा"]]) == [("zara", "क\u093cरा")]


def test_the_project_lexicon_holds_glossary_and_translation_words(engine, model):
    pid = project_id(engine)
    asha = add_user(engine, "asha", "translator")
    sid = add_sentence(engine, "1", "Nice keyboard.", ["keyboard"])
    aid = assign(engine, asha, sid, "blind")
    set_glossary_term(engine, pid, "keyboard", "कीबोर्ड", "transliterate", None)
    save_translation(engine, asha, aid, Draft("बढ़िया कीबोर्ड Lenovo"), expected_version=0, action="autosave")
    lexicon = project_lexicon(engine, pid, max_age_s=0)
    assert lexicon == pytest.approx({"कीबोर्ड": 2 / 3, "बढ़िया": 1 / 3})  # shares of the project's words
    suggest_for(engine, pid, "mera")
    assert model[-1]["lexicon_extra"]["कीबोर्ड"] == pytest.approx(2 / 3)


@pytest.mark.parametrize("roman", ["", "  ", "123", "मेरा", "a b", "x" * 61])
def test_only_a_roman_word_is_looked_up(engine, model, roman):
    assert suggest_for(engine, project_id(engine), roman) == []
    assert model == []


def test_the_shipped_model_answers_through_the_service(engine):
    """The real model (no stand-in): common words, a loanword, a learned override."""
    pid = project_id(engine)
    assert suggest_for(engine, pid, "keyboard")[0] == "कीबोर्ड"
    assert suggest_for(engine, pid, "achha")[0] == "अच्छा"
    record_accepted(engine, pid, None, [("hai", "हैं")])
    assert suggest_for(engine, pid, "hai")[0] == "हैं"


@pytest.mark.parametrize(("raw", "words"), [
    ("घर", ("घर",)),
    ("मैं घर", ("मैं", "घर")),
    ("आज मैं घर में", ("मैं", "घर", "में")),  # the last three
    ("Sony का", ("का",)),  # a Roman word breaks the run
    ("घर  में", ("घर", "में")),
    ("घर 2", ()),
    ("घर।", ()),
    ("<b>घर</b>", ()),
    ("", ()),
    ("घर " * 100, ()),  # too long: none
    (None, ()),
    (["घर"], ()),
])
def test_the_context_a_browser_sends_is_checked(raw, words):
    assert context_words(raw) == words


def test_context_words_are_nfc():
    import unicodedata

    assert context_words(unicodedata.normalize("NFD", "क़िला")) == ("क\u093cिला",)


def test_context_and_the_projects_word_pairs_reach_the_model(engine, model):
    pid = project_id(engine)
    asha = add_user(engine, "asha", "translator")
    sid = add_sentence(engine, "1", "The battery is weak.", ["battery"])
    aid = assign(engine, asha, sid, "blind")
    save_translation(engine, asha, aid, Draft("बैटरी कम चलती है"), expected_version=0, action="autosave")
    assert project_bigrams(engine, pid, max_age_s=0)["बैटरी"] == {"कम": 1}
    suggest_for(engine, pid, "mera", context=("मैं", "Sony", "बैटरी"))
    assert model[-1]["context"] == ("बैटरी",)
    assert model[-1]["context_extra"]["कम"] == {"चलती": 1}
    suggest_for(engine, pid, "mera")
    assert model[-1]["context"] == () and model[-1]["context_extra"] is None


def test_the_shipped_model_ranks_by_the_words_before(engine):
    pid = project_id(engine)
    assert suggest_for(engine, pid, "main")[0] == "मैं"
    assert suggest_for(engine, pid, "main", context=("घर",))[0] == "में"
    assert suggest_for(engine, pid, "hai", context=("रहे",))[0] == "हैं"
