"""Reopening under AppTest: a translator or annotator asks from their submitted task (a reason is required),
the lead answers on "Reopen requests" (Reopen or Decline, with a reason), and the worker then reads the
lead's reason on the task, which they can edit again; a stale reopening shows the conflict panel."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from db.models import Annotation, ReopenRequest, Revision, Translation
from db.workflows import open_item, reopen, save_annotation
from db.assignment import assign_annotators
from db.translation import Draft, save_translation
from tests.pages.test_translate_page import commit
from tests.support.app_pages import open_page
from tests.support.translation_fixtures import add_sentence, add_user, assign, project_id

SOURCE = "The staff was friendly."
HINDI = "स्टाफ़ मिलनसार था।"


@pytest.fixture
def world(app_engine):
    engine = app_engine
    ids = {"engine": engine, "lena": add_user(engine, "lena", "lead"), "boss": add_user(engine, "boss", "lead"),
           "asha": add_user(engine, "asha", "translator"), "meera": add_user(engine, "meera", "annotator")}
    ids["s"] = add_sentence(engine, "1", SOURCE, ["staff"], ordinal=1)
    ids["task"] = assign(engine, ids["asha"], ids["s"], "blind")
    view = save_translation(engine, ids["asha"], ids["task"], Draft(HINDI), expected_version=0, action="submit")
    ids["t"] = view.translation_id
    return ids


def translate(engine, user, task):
    return open_page(engine, user, "pages/translate.py", query={"task": str(task)})


def texts(at) -> list[str]:
    return [e.value for kind in ("info", "warning", "success", "error", "markdown", "caption", "text")
            for e in getattr(at, kind)]


def plain(value: str) -> str:
    return value.replace("\\", "")


def revisions(engine, entity: str) -> list[tuple[str, int]]:
    with Session(engine) as session:
        return [(r.action, r.author_id) for r in session.scalars(
            select(Revision).where(Revision.entity == entity).order_by(Revision.id))]


def only_request(engine) -> int:
    with Session(engine) as session:
        return session.scalars(select(ReopenRequest.id)).one()


def ask(at, key: str, reason: str):
    at.text_area(key=key + "_why").input(reason)
    at.button(key=key + "_ask").click().run()
    assert not at.exception, at.exception
    return at


def test_a_translator_asks_the_lead_reopens_and_the_translator_reads_why_and_edits_again(world):
    engine, task = world["engine"], world["task"]
    at = translate(engine, world["asha"], task)
    key = f"tx{task}_reopen"
    assert "Submitted: read-only unless your lead reopens it." in texts(at)
    ask(at, key, "   ")
    assert any("required" in plain(e.value) for e in at.error)
    ask(at, key, "I left out a word")
    assert "Sent: your lead sees your request in their list of reopen requests." in texts(at)
    assert any("You asked your lead to reopen this: I left out a word" in plain(t) for t in texts(at))
    assert not [e for e in at.text_area if e.key == key + "_why"]  # one request at a time

    lead = open_page(engine, world["lena"], "pages/reopen.py")
    shown = [plain(t) for t in texts(lead)]
    assert "**asha** asks to reopen their translation · blind phase · restaurant/train/1" in shown
    assert SOURCE in shown and HINDI in shown and "**Reason:** I left out a word" in shown
    request = only_request(engine)
    lead.text_input(key=f"rq{request}_reason").input("Add the missing word")
    lead.button(key=f"rq{request}_reopen").click().run()
    assert not lead.exception, lead.exception
    assert any(s.value.startswith("Reopened the translation") for s in lead.success)
    assert "No reopen requests wait for you." in [s.value for s in lead.success]
    with Session(engine) as session:
        assert session.get(Translation, world["t"]).status == "draft"
    assert revisions(engine, "translation") == [("submit", world["asha"]), ("reopen", world["lena"])]

    again = translate(engine, world["asha"], task)
    assert "Reopened by lena: Add the missing word" in [plain(w.value) for w in again.warning]
    assert "Submitted: read-only unless your lead reopens it." not in texts(again)
    commit(again, task, "save")  # the editor is open again: a save goes through
    assert revisions(engine, "translation")[-1] == ("save", world["asha"])


def test_the_lead_declines_and_the_translator_reads_why_and_may_ask_again(world):
    engine, task = world["engine"], world["task"]
    ask(translate(engine, world["asha"], task), f"tx{task}_reopen", "typo")
    lead = open_page(engine, world["lena"], "pages/reopen.py")
    request = only_request(engine)
    lead.button(key=f"rq{request}_decline").click().run()  # no reason yet
    assert any("required" in plain(e.value) for e in lead.error)
    lead.text_input(key=f"rq{request}_reason").input("It reads fine")
    lead.button(key=f"rq{request}_decline").click().run()
    assert any(s.value.startswith("Declined asha") for s in lead.success)
    at = translate(engine, world["asha"], task)
    assert "Your request to reopen this was declined by lena: It reads fine" in [plain(i.value) for i in at.info]
    assert [e.key for e in at.text_area] == [f"tx{task}_reopen_why"]  # may ask again
    with Session(engine) as session:
        assert session.get(Translation, world["t"]).status == "submitted"


def test_a_reopening_made_meanwhile_by_another_lead_shows_the_conflict_panel_and_writes_nothing(world):
    engine, task = world["engine"], world["task"]
    ask(translate(engine, world["asha"], task), f"tx{task}_reopen", "typo")
    lead = open_page(engine, world["lena"], "pages/reopen.py")
    request = only_request(engine)
    with Session(engine) as session:
        version = session.get(Translation, world["t"]).version
    # another lead reopens it and the worker submits again: the version the lead saw has moved on twice
    reopen(engine, world["boss"], "translation", world["t"], "boss was first", expected_version=version)
    save_translation(engine, world["asha"], task, Draft(HINDI), expected_version=version + 1, action="submit")
    lead.text_input(key=f"rq{request}_reason").input("mine")
    lead.button(key=f"rq{request}_reopen").click().run()
    assert not lead.exception, lead.exception
    assert any("saved after you loaded it" in plain(w.value) for w in lead.warning)
    assert revisions(engine, "translation") == [("submit", world["asha"]), ("reopen", world["boss"]),
                                                ("submit", world["asha"])]
    lead.button(key=f"rq{request}_again").click().run()  # reopen the version saved now, knowingly
    assert not lead.exception, lead.exception
    assert revisions(engine, "translation")[-1] == ("reopen", world["lena"])
    assert not lead.warning


def test_an_annotator_asks_the_lead_reopens_and_the_annotator_tags_again(world):
    engine = world["engine"]
    assign_annotators(engine, project_id(engine), per_item=1)
    item = open_item(engine, world["meera"], world["t"])
    state = save_annotation(engine, world["meera"], item.item_id, ["B", "O", "O", "O"], False, None, "submit")
    at = open_page(engine, world["meera"], "pages/tag.py")
    ask(at, f"tag_ask_{world['t']}", "I missed the verb")
    assert "Sent: your lead sees your request in their list of reopen requests." in texts(at)

    lead = open_page(engine, world["lena"], "pages/reopen.py")
    assert any(plain(t).startswith("**meera** asks to reopen their annotation · blind phase") for t in texts(lead))
    request = only_request(engine)
    lead.text_input(key=f"rq{request}_reason").input("Tag it again")
    lead.button(key=f"rq{request}_reopen").click().run()
    with Session(engine) as session:
        assert session.get(Annotation, state.annotation_id).status == "draft"

    again = open_page(engine, world["meera"], "pages/tag.py")
    assert "Reopened by lena: Tag it again" in [plain(w.value) for w in again.warning]
    assert [b.key for b in again.button if b.key == f"tag_submit_{world['t']}"]  # editable: Submit is back


def test_the_lead_reopens_a_submitted_translation_and_annotation_from_the_sentence_view(world):
    engine = world["engine"]
    assign_annotators(engine, project_id(engine), per_item=1)
    item = open_item(engine, world["meera"], world["t"])
    state = save_annotation(engine, world["meera"], item.item_id, ["B", "O", "O", "O"], False, None, "submit")
    at = open_page(engine, world["lena"], "pages/sentences.py", query={"id": str(world["s"])})
    t_key, a_key = f"sv_reopen_t{world['t']}", f"sv_reopen_a{state.annotation_id}"
    at.text_input(key=a_key + "_reason").input("Mark the whole term")
    at.button(key=a_key + "_reopen").click().run()
    assert not at.exception, at.exception
    at.text_input(key=t_key + "_reason").input("Add the missing word")
    at.button(key=t_key + "_reopen").click().run()
    assert not at.exception, at.exception
    with Session(engine) as session:
        assert session.get(Translation, world["t"]).status == "draft"
        assert session.get(Annotation, state.annotation_id).status == "draft"
    assert revisions(engine, "translation")[-1] == ("reopen", world["lena"])
    assert revisions(engine, "annotation")[-1] == ("reopen", world["lena"])
    assert not [w for w in at.text_input if w.key in (t_key + "_reason", a_key + "_reason")]  # drafts now
    page = translate(engine, world["asha"], world["task"])
    assert "Reopened by lena: Add the missing word" in [plain(w.value) for w in page.warning]
