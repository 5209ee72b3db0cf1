"""The Translate page under AppTest: queue, blind view, aware view, locks, ownership, flow."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from google.protobuf import text_format
from sqlalchemy import select
from sqlalchemy.orm import Session
from streamlit.testing.v1 import AppTest

from db.models import AspectAlignment, Revision, Translation
from db.translation import Draft, glossary, save_translation, set_glossary_term
from tests.support import app_pages
from tests.support.app_pages import PAGE_RUN_LIMIT_S
from tests.support.translation_fixtures import add_sentence, add_user, assign, project_id, token_for

ROOT = Path(__file__).resolve().parents[2]
SOURCE = "The paneer tikka was cold but the hostess smiled."
TERMS = ("paneer tikka", "hostess")
HINDI = "पनीर टिक्का ठंडा था लेकिन होस्टेस मुस्कुराई।"


@pytest.fixture
def world(app_engine):
    engine = app_engine
    sid = add_sentence(engine, "7", SOURCE, list(TERMS), ordinal=1)
    sid2 = add_sentence(engine, "8", "Prices are fair.", ["Prices"], ordinal=2)
    asha = add_user(engine, "asha", "translator")
    ravi = add_user(engine, "ravi", "translator")
    # The team has transliterated the aspect term before: even so, the blind page must not show it.
    set_glossary_term(engine, project_id(engine), "paneer tikka", "पनीर टिक्का", "transliterate", None)
    set_glossary_term(engine, project_id(engine), "hostess", "होस्टेस", "transliterate", None)
    return {
        "engine": engine, "sid": sid, "sid2": sid2, "asha": asha, "ravi": ravi,
        "blind": assign(engine, asha, sid, "blind"),
        "aware": assign(engine, asha, sid, "aware"),
        "blind2": assign(engine, asha, sid2, "blind"),
        "ravi_blind": assign(engine, ravi, sid, "blind"),
    }


def open_page(engine, user_id, page="pages/translate.py", task=None, token=None) -> AppTest:
    token = token or token_for(engine, user_id)
    query = {"session": token}  # the URL token of earlier versions
    if task is not None:
        query["task"] = str(task)
    return app_pages.open_page(engine, user_id, page, token=token, query=query)


def rendered(at: AppTest) -> list[str]:
    """Every element and block the page sent, as protobuf text: labels, values, options, help, bodies."""
    out: list[str] = []

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None:
            out.append(text_format.MessageToString(proto, as_utf8=True))
        if type(node).__name__ in ("Table", "Dataframe"):  # Arrow bytes: read the cells too
            out.append(node.value.to_string())
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return out


def _all_text(at: AppTest) -> str:
    return "\n".join(rendered(at))


def _all_but_the_queue(at: AppTest) -> str:
    """Everything the page sent except the queue box, whose options name each task with a plain snippet of
    its sentence (checked here to be exactly that: the task's label, a dash, the sentence's text)."""
    box = at.selectbox(key="tx_queue_pick")
    for option in box.options:
        assert re.fullmatch(r"restaurant/train/\d+ · (blind|aware) · [a-z]+ — .+", option), option
        assert option.split(" — ", 1)[1] in (SOURCE, "Prices are fair."), option
    return "\n".join(t for t in rendered(at) if "Your queue" not in t)


def editor(at: AppTest, aid: int):
    """The translation editor (a components v2 element) of one task, or None."""
    found = [e for e in at.get("bidi_component") if e.key == f"tx{aid}_editor"]
    return found[0] if found else None


def editor_data(at: AppTest, aid: int) -> dict:
    return json.loads(editor(at, aid).proto.json)


_SEQ = iter(range(1, 10**9))


def commit(at: AppTest, aid: int, action: str = "autosave", text: str | None = None, accepted=(), *,
           mapping=None, untr=None, reason=None, note=None, sel=None, task: str | None = None,
           seq: int | None = None, scheme: str | None = None) -> AppTest:
    """What the browser's editor sends: one ``commit`` state (the whole editor state) per committed change.
    Fields not given keep what the editor was last drawn with."""
    el = editor(at, aid)
    assert el is not None, "no editor on the page"
    data = json.loads(el.proto.json)
    value = {
        "task": task or data["task"], "seq": seq if seq is not None else next(_SEQ), "action": action,
        "text": data["text"] if text is None else text, "accepted": [list(p) for p in accepted],
        "map": mapping if mapping is not None else [
            {"term": int(k), **v} for k, v in data["map"].items()],
        "untr": data["untr"] if untr is None else untr, "reason": data["reason"] if reason is None else reason,
        "note": data["note"] if note is None else note,
    }
    if sel is not None:
        value["sel"] = list(sel)
    if scheme is not None:
        value["scheme"] = scheme
    states = at._tree.get_widget_states()
    w = states.widgets.add()
    w.id, w.json_value = el.proto.id, json.dumps({"commit": value})
    at._tree._runner._run(states)
    assert not at.exception, at.exception
    return at


def type_text(at: AppTest, aid: int, text: str, accepted=(), sel=None) -> AppTest:
    return commit(at, aid, "autosave", text, accepted, sel=sel)


def submit(at: AppTest, aid: int, text: str | None = None, **kw) -> AppTest:
    return commit(at, aid, "submit", text, **kw)


def text_of(at: AppTest, aid: int) -> str:
    return at.session_state[f"tx{aid}_text"]


def test_queue_lists_own_tasks_blind_first_with_progress(world):
    at = open_page(world["engine"], world["asha"])
    pick = at.selectbox(key="tx_queue_pick")
    assert pick.options[:2] == ["restaurant/train/7 · blind · assigned — " + SOURCE,
                                "restaurant/train/8 · blind · assigned — Prices are fair."]  # with a snippet
    assert pick.options[2] == "restaurant/train/7 · aware · locked — " + SOURCE
    assert len(pick.options) == 3  # not Ravi's task
    assert at.get("progress")[0].proto.text == "0 of 3 submitted"
    assert pick.value == world["blind"]


def _assert_no_aspect_reaches_the_page(at: AppTest) -> None:
    texts = rendered(at)
    # The sentence itself is shown, and its snippet names the tasks in the queue box: plain text, no mark.
    sentence = [t for t in texts if "paneer tikka was cold" in t]
    assert len(sentence) == 2 and sum("Your queue" in t for t in sentence) == 1
    assert not any("background" in t or "<mark" in t for t in sentence)
    for text in texts:
        assert not re.search(r"aspect", text, re.IGNORECASE), text[:300]
        if any(text is t for t in sentence):
            continue
        for term in TERMS:
            assert term.casefold() not in text.casefold(), (term, text[:300])
            assert "पनीर" not in text and "होस्टेस" not in text  # nor their glossary renderings
    assert len(at.get("button_group")) == 0  # no token pills for an aspect map


def test_blind_view_never_shows_aspects(world):
    at = open_page(world["engine"], world["asha"], task=world["blind"])
    assert editor(at, world["blind"]) is not None
    _assert_no_aspect_reaches_the_page(at)


def test_blind_view_gives_no_glossary_warning_about_an_aspect_of_the_sentence(world):
    e, blind = world["engine"], world["blind"]
    # A name the team keeps in Roman script that is also an aspect of this sentence: on the aware
    # page, a translation without it earns a warning naming it; on the blind page it must not.
    set_glossary_term(e, project_id(e), "hostess", "", "keep-roman", None)
    at = open_page(e, world["asha"], task=blind)
    type_text(at, blind, "ठंडा खाना था")
    assert not at.warning, [w.value for w in at.warning]
    _assert_no_aspect_reaches_the_page(at)
    # The same text on the aware task does earn the warning, so the blind page is quiet by design.
    submit(at, blind)
    at = open_page(e, world["asha"], task=world["aware"])
    type_text(at, world['aware'], "ठंडा खाना था")
    assert any("“hostess” is a name the team keeps in Roman script" in w.value for w in at.warning)


def test_blind_view_stays_clean_after_typing_and_lookup_of_other_words(world):
    at = open_page(world["engine"], world["asha"], task=world["blind"])
    type_text(at, world['blind'], "ठंडा था")
    at.text_input(key="tx_glossary_lookup").input("bread").run()
    for text in rendered(at):
        if "paneer tikka was cold" in text:
            continue
        assert "aspect" not in text.casefold() and "paneer" not in text.casefold() and "hostess" not in text


def test_aware_task_is_locked_until_blind_is_submitted(world):
    e, asha = world["engine"], world["asha"]
    at = open_page(e, asha, task=world["aware"])
    assert any("Locked" in w.value for w in at.warning)
    assert editor(at, world["aware"]) is None
    assert "background" not in _all_text(at) and "hostess" not in _all_but_the_queue(at)
    save_translation(e, asha, world["blind"], Draft("अंधा अनुवाद"), expected_version=0, action="submit")
    at = open_page(e, asha, task=world["aware"])
    assert not at.warning or not any("Locked" in w.value for w in at.warning)
    assert any(">hostess</mark>" in m.value for m in at.markdown)


def test_skipped_blind_task_keeps_the_aware_task_locked_on_the_page(world):
    e, asha = world["engine"], world["asha"]
    at = open_page(e, asha, task=world["blind"])
    type_text(at, world['blind'], "आधा अनुवाद")
    commit(at, world["blind"], "skip")
    assert "restaurant/train/7 · aware · locked — " + SOURCE in at.selectbox(key="tx_queue_pick").options
    at = open_page(e, asha, task=world["aware"])  # straight to the aware task by its URL
    assert any("Locked" in w.value and "submit your blind translation" in w.value for w in at.warning)
    assert editor(at, world["aware"]) is None and len(at.get("button_group")) == 0
    assert "background" not in _all_text(at) and "<mark" not in _all_text(at)
    page = _all_but_the_queue(at)
    for term in (*TERMS, "पनीर", "होस्टेस"):
        assert term.casefold() not in page.casefold(), term


def test_aware_view_maps_each_aspect_to_hindi_words_and_submits(world):
    e, asha, aware = world["engine"], world["asha"], world["aware"]
    save_translation(e, asha, world["blind"], Draft("अंधा अनुवाद"), expected_version=0, action="submit")
    at = open_page(e, asha, task=aware)
    assert any(">paneer tikka</mark>" in m.value for m in at.markdown)
    assert "Aspect-aware translation" in [s.value for s in at.subheader]
    # The glossary suggests the team's spellings for terms in this sentence.
    assert "पनीर टिक्का" in _all_text(at)
    type_text(at, aware, HINDI)
    data = editor_data(at, aware)
    assert [(a["n"], a["term"]) for a in data["terms"]] == [(1, "paneer tikka"), (2, "hostess")]
    assert data["map"] == {}  # nothing mapped yet
    paneer, hostess = (a["id"] for a in data["terms"])
    # Token spans of the text: पनीर टिक्का are tokens 0-1, होस्टेस is token 5.
    submit(at, aware, mapping=[{"term": paneer, "tokens": [0, 2]}, {"term": hostess, "tokens": [5, 6]}])
    assert not at.exception and not at.error, [x.value for x in at.error]
    with Session(e) as session:
        tr = session.scalars(select(Translation).where(Translation.phase == "aware")).one()
        spans = [tr.text[a.start:a.end] for a in sorted(tr.aspect_links, key=lambda a: a.aspect_term_id)]
        assert tr.status == "submitted" and tr.text == HINDI
        assert spans == ["पनीर टिक्का", "होस्टेस"]


def test_aware_dropped_aspect_needs_a_reason_and_gaps_are_refused(world):
    e, asha, aware = world["engine"], world["asha"], world["aware"]
    save_translation(e, asha, world["blind"], Draft("अंधा अनुवाद"), expected_version=0, action="submit")
    at = open_page(e, asha, task=aware)
    type_text(at, aware, HINDI)
    paneer, hostess = (a["id"] for a in editor_data(at, aware)["terms"])
    submit(at, aware, mapping=[{"term": paneer, "tokens": [6, 9]}])  # words past the end of the text
    assert any("“paneer tikka” are no longer in your translation" in x.value for x in at.error)
    assert editor_data(at, aware)["status"]["kind"] == "error"
    submit(at, aware, mapping=[{"term": paneer, "tokens": [0, 2]}, {"term": hostess, "dropped": True}])
    assert any("why “hostess” was dropped" in x.value for x in at.error)
    submit(at, aware, mapping=[{"term": paneer, "tokens": [0, 2]},
                               {"term": hostess, "dropped": True, "reason": "folded into the verb"}])
    assert not at.error
    with Session(e) as session:
        links = session.scalars(select(AspectAlignment).order_by(AspectAlignment.aspect_term_id)).all()
    assert [(link.dropped, link.drop_reason) for link in links] == [(False, None), (True, "folded into the verb")]


def test_translator_cannot_load_another_translators_work(world):
    e = world["engine"]
    save_translation(e, world["ravi"], world["ravi_blind"], Draft("रवि का गुप्त अनुवाद"), expected_version=0)
    for task in (world["ravi_blind"], "abc", 99999):
        at = open_page(e, world["asha"], task=task)
        assert any("not in your queue" in x.value for x in at.error)
        assert "गुप्त" not in _all_text(at)
    # Nor through her own task of the same sentence, nor through the lead's pages.
    at = open_page(e, world["asha"], task=world["blind"])
    assert text_of(at, world['blind']) == ""
    assert "गुप्त" not in _all_text(at)
    for page in ("pages/assign.py", "pages/users.py", "pages/settings.py"):
        at = AppTest.from_file(str(ROOT / page), default_timeout=PAGE_RUN_LIMIT_S)
        at.session_state["session_token"] = at.query_params["session"] = token_for(e, world["asha"])
        at.query_params["task"] = str(world["ravi_blind"])
        at.run()
        assert any("do not have access" in x.value for x in at.error), page
        assert "गुप्त" not in _all_text(at)


def test_empty_submission_is_refused_with_a_message(world):
    at = open_page(world["engine"], world["asha"], task=world["blind"])
    type_text(at, world['blind'], "   ")
    submit(at, world["blind"])
    assert any("empty" in x.value for x in at.error)
    with Session(world["engine"]) as session:
        assert session.scalars(select(Translation.status)).all() == ["draft"]


def test_a_control_character_typed_never_reaches_the_database(world):
    """A save removes control characters (canonical_text, corpus.text_controls): what is stored is one clean line."""
    blind = world["blind"]
    at = open_page(world["engine"], world["asha"], task=blind)
    type_text(at, blind, "ठंडा\x00 था")
    submit(at, blind)
    assert not at.exception, at.exception
    with Session(world["engine"]) as session:
        (stored,) = session.scalars(select(Translation.text)).all()
    assert "\x00" not in stored and stored.split() == ["ठंडा", "था"]


def test_autosave_survives_a_refresh_and_submit_moves_to_next(world):
    e, asha, blind = world["engine"], world["asha"], world["blind"]
    token = token_for(e, asha)
    at = open_page(e, asha, task=blind, token=token)
    type_text(at, blind, "ठंडा पनीर")
    with Session(e) as session:
        assert [r.action for r in session.scalars(select(Revision))] == ["autosave"]
    again = open_page(e, asha, task=blind, token=token)  # a new browser session: a refresh
    assert text_of(again, blind) == "ठंडा पनीर"
    submit(again, blind)
    assert again.query_params["task"] == [str(world["blind2"])] or again.query_params["task"] == str(world["blind2"])
    assert any("Submitted" in s.value for s in again.success)
    assert again.get("progress")[0].proto.text == "1 of 3 submitted"


def test_transliteration_preview_and_insert(world):
    blind = world["blind"]
    at = open_page(world["engine"], world["asha"], task=blind)
    assert at.selectbox(key="tx_scheme").value == "phonetic"  # typing in the editor is the default
    at.selectbox(key="tx_scheme").select("itrans").run()  # the old converter is still one choice away
    at.text_input(key=f"tx{blind}_roman").input("kIborD achChA hai").run()
    assert any("कीबोर्ड अच्छा है" in m.value for m in at.markdown)
    at.button(key=f"tx{blind}_insert").click().run()
    assert text_of(at, blind) == "कीबोर्ड अच्छा है"
    assert at.text_input(key=f"tx{blind}_roman").value == ""
    with Session(world["engine"]) as session:
        assert session.scalars(select(Translation.text)).one() == "कीबोर्ड अच्छा है"


def test_switching_the_typing_scheme_changes_preview_insert_and_cheat_sheet(world):
    blind = world["blind"]
    at = open_page(world["engine"], world["asha"], task=blind)
    at.selectbox(key="tx_scheme").select("itrans").run()
    at.text_input(key=f"tx{blind}_roman").input("kiiborD").run()
    assert [m.value for m in at.markdown if m.value.startswith("Preview")] == ["Preview: कीबोर्ड"]
    assert any(c.value.startswith("ITRANS:") for c in at.caption)
    at.selectbox(key="tx_scheme").select("hk").run()
    # Harvard-Kyoto writes long i as "I": "ii" is two short vowels.
    assert [m.value for m in at.markdown if m.value.startswith("Preview")] == ["Preview: किइबोर्ड"]
    assert any(c.value.startswith("Harvard-Kyoto:") for c in at.caption)
    at.button(key=f"tx{blind}_insert").click().run()
    assert text_of(at, blind) == "किइबोर्ड"
    assert at.selectbox(key="tx_scheme").value == "hk"  # the choice stays for the session


def test_glossary_warning_for_roman_or_differently_spelled_term(world):
    e, blind = world["engine"], world["blind"]
    set_glossary_term(e, project_id(e), "keyboard", "कीबोर्ड", "transliterate", None)
    assert len(glossary(e, project_id(e))) == 3
    at = open_page(e, world["asha"], task=blind)
    type_text(at, blind, "keyboard और किबोर्ड")
    messages = [w.value for w in at.warning]
    assert any("left in Roman script" in m for m in messages)
    assert any("spelled differently" in m for m in messages)


def test_untranslatable_with_reason_and_note(world):
    blind = world["blind"]
    at = open_page(world["engine"], world["asha"], task=blind)
    assert editor_data(at, blind)["reasons"] == ["idiom", "pun", "missing context", "other"]
    commit(at, blind, untr=True)
    submit(at, blind)
    assert any("choose why" in x.value for x in at.error)
    assert editor_data(at, blind)["untr"] is True  # the editor keeps the box ticked
    submit(at, blind, reason="pun", note="double meaning of 'cold'")
    assert not at.error
    with Session(world["engine"]) as session:
        tr = session.scalars(select(Translation)).one()
    assert (tr.status, tr.untranslatable, tr.untranslatable_reason, tr.untranslatable_note, tr.text) == (
        "submitted", True, "pun", "double meaning of 'cold'", None)


def test_stale_save_shows_both_versions_and_overwrites_nothing(world):
    e, asha, blind = world["engine"], world["asha"], world["blind"]
    at = open_page(e, asha, task=blind)
    save_translation(e, asha, blind, Draft("दूसरी खिड़की"), expected_version=0)  # another tab saves first
    type_text(at, blind, "यह खिड़की")
    assert any("another tab" in x.value and "Nothing was overwritten" in x.value for x in at.warning)
    shown = [t.value for t in at.text]
    assert "यह खिड़की" in shown and "दूसरी खिड़की" in shown
    with Session(e) as session:
        assert session.scalars(select(Translation.text)).one() == "दूसरी खिड़की"
    at.button(key=f"tx{blind}_keep_mine").click().run()
    with Session(e) as session:
        assert session.scalars(select(Translation.text)).one() == "यह खिड़की"


def test_skip_moves_to_the_next_task_and_says_so(world):
    at = open_page(world["engine"], world["asha"], task=world["blind"])
    commit(at, world["blind"], "skip")
    assert at.selectbox(key="tx_queue_pick").value == world["blind2"]
    assert "restaurant/train/7 · blind · skipped — " + SOURCE in at.selectbox(key="tx_queue_pick").options
    (markdown,) = [x.value for x in at.success]
    message = re.sub(r"\\(.)", r"\1", markdown)  # as shown: the task names are escaped Markdown
    assert message.startswith("Skipped restaurant/train/7 (blind)")
    assert "Next: restaurant/train/8 (blind)." in message


def test_phonetic_typing_is_the_default_and_its_keys_are_listed(world):
    at = open_page(world["engine"], world["asha"], task=world["blind"])
    assert at.selectbox(key="tx_scheme").value == "phonetic"
    assert at.selectbox(key="tx_scheme").options[0] == "Phonetic (suggestions)"
    assert len(at.text_input) == 1  # only the glossary look-up: no separate Roman box
    keys = at.table[0].value.to_string()
    assert "Ctrl+." in keys and "Esc" in keys and "Ctrl+Enter" in keys
    data = json.loads(editor(at, world["blind"]).proto.json)
    assert data["api"] == "/api/suggest" and data["scheme"] == "phonetic" and data["token"]


def test_ctrl_enter_in_the_editor_submits_its_text_and_opens_the_next_task(world):
    from db.typing import learned_forms

    e, blind = world["engine"], world["blind"]
    at = open_page(e, world["asha"], task=blind)
    submit(at, blind, "मेरा कीबोर्ड", accepted=[("mera", "मेरा"), ("keyboard", "कीबोर्ड")])
    with Session(e) as session:
        tr = session.scalars(select(Translation)).one()
    assert (tr.text, tr.status) == ("मेरा कीबोर्ड", "submitted")
    assert any("Submitted" in x.value for x in at.success)
    assert at.selectbox(key="tx_queue_pick").value == world["blind2"]
    assert editor(at, world["blind2"]) is not None
    assert {(f.roman, f.devanagari, f.uses) for f in learned_forms(e, project_id(e))} == {
        ("mera", "मेरा", 1), ("keyboard", "कीबोर्ड", 1)}


def test_an_editor_send_is_taken_once_and_an_older_one_is_ignored(world):
    e, blind = world["engine"], world["blind"]
    at = open_page(e, world["asha"], task=blind)
    type_text(at, blind, "पहला", accepted=[("pahla", "पहला")])
    commit(at, blind, "save")  # the next commit carries only what was picked since: not learned twice
    from db.typing import learned_forms
    assert [f.uses for f in learned_forms(e, project_id(e))] == [1]
    commit(at, blind, "save", "पुराना", seq=1)  # older than what the page has taken: ignored
    commit(at, blind, "save", "दूसरा", task=f"{world['asha']}:{world['blind2']}")  # made on another task
    assert text_of(at, blind) == "पहला"
    with Session(e) as session:
        assert [r.action for r in session.scalars(select(Revision).order_by(Revision.id))] == ["autosave", "save"]
        assert session.scalars(select(Translation.text)).one() == "पहला"


def test_restored_browser_text_is_saved_as_a_draft(world):
    e, blind = world["engine"], world["blind"]
    at = open_page(e, world["asha"], task=blind)
    commit(at, blind, "restore", "बचा हुआ पाठ")
    with Session(e) as session:
        tr = session.scalars(select(Translation)).one()
    assert (tr.text, tr.status) == ("बचा हुआ पाठ", "draft")
    assert text_of(at, blind) == "बचा हुआ पाठ"


def test_using_the_saved_version_after_a_conflict_puts_it_in_the_editor(world):
    e, asha, blind = world["engine"], world["asha"], world["blind"]
    at = open_page(e, asha, task=blind)
    rev = json.loads(editor(at, blind).proto.json)["rev"]
    save_translation(e, asha, blind, Draft("दूसरी खिड़की"), expected_version=0)
    type_text(at, blind, "यह खिड़की")
    at.button(key=f"tx{blind}_take_theirs").click().run()
    data = json.loads(editor(at, blind).proto.json)
    assert (data["text"], data["saved"]) == ("दूसरी खिड़की", "दूसरी खिड़की") and data["rev"] > rev


def test_the_admin_sees_the_forms_translators_taught_the_typing_help(world):
    e, blind = world["engine"], world["blind"]
    at = open_page(e, world["asha"], task=blind)
    type_text(at, blind, "मीरा", accepted=[("mera", "मीरा")])
    admin = add_user(e, "ada", "admin")  # Project settings is an admin's page
    settings = open_page(e, admin, page="pages/settings.py")
    assert not settings.exception, settings.exception
    (table,) = [d.value for d in settings.dataframe if "typed" in d.value.columns]
    assert list(table["typed"]) == ["mera"] and list(table["written as"]) == ["मीरा"]
    assert list(table["times picked"]) == [1] and list(table["first picked by"]) == ["asha"]


def test_the_projects_default_scheme_opens_unless_this_browser_chose_another(world):
    from tests.support.translation_fixtures import set_project

    e, blind = world["engine"], world["blind"]
    set_project(e, transliteration_scheme="itrans")
    at = open_page(e, world["asha"], task=blind)
    assert at.selectbox(key="tx_scheme").value == "itrans"
    data = editor_data(at, blind)
    assert (data["scheme"], data["schemeChosen"]) == ("itrans", False) and "phonetic" in data["schemes"]
    commit(at, blind, "scheme", scheme="phonetic")  # the editor found this browser's own choice
    assert at.selectbox(key="tx_scheme").value == "phonetic"
    with Session(e) as session:
        assert session.scalars(select(Translation)).all() == []  # choosing a scheme saves nothing
    at.selectbox(key="tx_scheme").select("hk").run()  # chosen here: the editor keeps it for this browser
    assert editor_data(at, blind)["schemeChosen"] is True


def test_the_itrans_insert_replaces_the_selected_words(world):
    blind = world["blind"]
    at = open_page(world["engine"], world["asha"], task=blind)
    at.selectbox(key="tx_scheme").select("itrans").run()
    commit(at, blind, "autosave", "यह खाना ठंडा था", sel=(3, 7))  # खाना selected in the editor
    at.text_input(key=f"tx{blind}_roman").input("pAnI").run()
    at.button(key=f"tx{blind}_insert").click().run()
    assert text_of(at, blind) == "यह पानी ठंडा था"
    data = editor_data(at, blind)
    assert data["text"] == "यह पानी ठंडा था" and data["caret"] == [7, 7]


def test_the_end_of_the_queue_is_one_clear_screen(world):
    e, asha = world["engine"], world["asha"]
    for aid in (world["blind"], world["blind2"]):
        save_translation(e, asha, aid, Draft("पूरा अनुवाद"), expected_version=0, action="submit")
    at = open_page(e, asha, task=world["aware"])
    paneer, hostess = (a["id"] for a in editor_data(at, world["aware"])["terms"])
    submit(at, world["aware"], "पूरा अनुवाद", mapping=[{"term": paneer, "tokens": [0, 1]},
                                                     {"term": hostess, "dropped": True, "reason": "implied"}])
    assert not at.error, [x.value for x in at.error]
    assert [s.value for s in at.success] == [
        "You have submitted everything in your queue. Thank you! Open a task below to read it; your lead can "
        "reopen one if it needs a change."]
    assert not at.info and not at.warning and editor(at, world["aware"]) is None
    assert at.selectbox(key="tx_queue_pick").value is None


def test_the_danda_setting_reaches_the_editor(world):
    from db.project_settings import load_settings
    from db.settings_change import save_settings
    from dataclasses import replace

    e, blind = world["engine"], world["blind"]
    assert editor_data(open_page(e, world["asha"], task=blind), blind)["danda"] is True  # on by default
    admin = add_user(e, "ada", "admin")
    save_settings(e, project_id(e), replace(load_settings(e, project_id(e)), danda=False), admin)
    assert editor_data(open_page(e, world["asha"], task=blind), blind)["danda"] is False


def test_project_settings_offer_phonetic_as_the_default_scheme_and_the_danda_switch(world):
    e = world["engine"]
    admin = add_user(e, "ada", "admin")
    settings = open_page(e, admin, page="pages/settings.py")
    assert not settings.exception, settings.exception
    (scheme,) = [s for s in settings.selectbox if s.label == "Default typing scheme for translators"]
    assert scheme.options[0] == "Phonetic (suggestions)" and scheme.value == "phonetic"
    (danda,) = [c for c in settings.checkbox if "danda" in c.label]
    assert danda.value is True


def test_a_select_commit_moves_where_insert_goes_and_saves_nothing(world):
    engine, aid = world["engine"], world["blind"]
    at = open_page(engine, world["asha"], task=aid)
    at.selectbox(key="tx_scheme").select("itrans").run()
    type_text(at, aid, "एक दो तीन", sel=(9, 9))  # the autosave's caret: at the end
    with Session(engine) as session:
        before = session.scalars(select(Revision.id)).all()
    commit(at, aid, "select", sel=(0, 2))  # then only the caret moved: "एक" selected
    with Session(engine) as session:
        assert session.scalars(select(Revision.id)).all() == before  # nothing saved for a caret move
    at.text_input(key=f"tx{aid}_roman").input("chAra")
    at.button(key=f"tx{aid}_insert").click().run()
    assert not at.exception, at.exception
    assert text_of(at, aid) == "चार दो तीन"
    with Session(engine) as session:
        assert session.scalars(select(Translation.text)).one() == "चार दो तीन"  # the only translation


def test_a_select_commit_made_on_older_text_is_not_where_insert_goes(world):
    engine, aid = world["engine"], world["blind"]
    at = open_page(engine, world["asha"], task=aid)
    at.selectbox(key="tx_scheme").select("itrans").run()
    type_text(at, aid, "एक दो तीन", sel=(9, 9))
    commit(at, aid, "select", text="एक दो", sel=(0, 2))  # a caret in text the page no longer holds
    at.text_input(key=f"tx{aid}_roman").input("chAra")
    at.button(key=f"tx{aid}_insert").click().run()
    assert text_of(at, aid) == "एक दो तीन चार"


# ----------------------------------------------------------------------------- N10: kept text after a session ended

def kept_question(at: AppTest):
    found = [e for e in at.get("bidi_component") if e.key == "kept_text_question"]
    return json.loads(found[0].proto.json) if found else None


def answer_kept_question(at: AppTest, choice: str) -> AppTest:
    el = [e for e in at.get("bidi_component") if e.key == "kept_text_question"][0]
    states = at._tree.get_widget_states()
    w = states.widgets.add()
    w.id, w.json_value = el.proto.id, json.dumps({"choice": choice})
    at._tree._runner._run(states)
    assert not at.exception, at.exception
    return at


def test_unsaved_text_is_what_the_session_took_but_the_database_does_not_hold():
    from ui.translation_editor import should_ask_about_kept_text, unsaved_in_session

    state = {"tx3_text": "खाना ", "tx3_stored_text": "खाना", "tx4_text": "नया", "tx4_stored_text": "पुराना",
             "tx5_text": "", "tx_text": "x", "tx_scheme": "itrans"}
    assert unsaved_in_session(state) == [4]
    assert not should_ask_about_kept_text(state)  # no session ended
    assert should_ask_about_kept_text({**state, "ended_user_id": 7})
    assert not should_ask_about_kept_text({**state, "ended_user_id": 7, "kept_text_choice": "keep"})  # answered
    assert not should_ask_about_kept_text({"tx3_text": "a", "tx3_stored_text": "a", "ended_user_id": 7})


def test_a_session_ended_elsewhere_with_text_unsaved_asks_to_discard_this_users_kept_copies(world):
    from db.access import SESSION_ENDED
    from db.auth import end_session
    from ui.translation_editor import kept_prefix

    engine, aid = world["engine"], world["blind"]
    token = token_for(engine, world["asha"])
    at = open_page(engine, world["asha"], task=aid, token=token)
    type_text(at, aid, HINDI)
    end_session(engine, token)  # logged out in another tab
    type_text(at, aid, HINDI + " और")  # its save is refused: the session ended
    assert SESSION_ENDED in [w.value for w in at.warning]
    asked = kept_question(at)
    # The keys of this user's copies only: another user's kept text in this browser is not touched.
    assert asked["prefix"] == kept_prefix(world["asha"]) == f"corpus-tool:unsaved-text:{world['asha']}:"
    assert asked["choice"] is None and asked["name"] == "asha"
    answer_kept_question(at, "discard")
    assert at.session_state["kept_text_choice"] == "discard"
    assert kept_question(at)["choice"] == "discard"  # the browser says it discarded them
    with Session(engine) as session:
        assert session.scalars(select(Translation.text)).one() == HINDI  # nothing written after the end


def test_a_session_ended_with_everything_saved_asks_nothing_and_the_copies_are_keyed_by_user(world):
    from db.access import SESSION_ENDED
    from db.auth import end_session

    engine, aid = world["engine"], world["blind"]
    token = token_for(engine, world["asha"])
    at = open_page(engine, world["asha"], task=aid, token=token)
    type_text(at, aid, HINDI)
    assert editor_data(at, aid)["task"] == f"{world['asha']}:{aid}"  # the kept copy's key starts with the user
    end_session(engine, token)
    at.run()
    assert SESSION_ENDED in [w.value for w in at.warning]
    assert kept_question(at) is None
