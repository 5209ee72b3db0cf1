"""The tagging page in AppTest: own items only, never others' tags, one commit per change from the span
editor (acting only on the item it names), items identified in the URL, "No aspects in this sentence" as
an explicit answer, and a submitted annotation changed only after an explicit reopen."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session
from streamlit.testing.v1 import AppTest

from db.models import Annotation, AnnotationAssignment, Revision
from db.assignment import assign_annotators
from db.workflows import open_item, save_annotation
from tests.support.app_pages import PAGE_RUN_LIMIT_S, APP, open_page
from tests.support.span_editor_driver import commit, editor_data
from tests.support.tagging_fixtures import (
    add_sentence,
    add_translation,
    add_user,
    project_id,
)

HINDI = "लेकिन स्टाफ़ सर्विस बहुत बुरी थी।"  # लेकिन स्टाफ़ सर्विस बहुत बुरी थी ।
OTHER = "खाना अच्छा था।"


@pytest.fixture
def world(app_engine):
    engine = app_engine
    ids = {
        "engine": engine,
        "asha": add_user(engine, "asha", "translator"),
        "meera": add_user(engine, "meera", "annotator"),
        "kiran": add_user(engine, "kiran", "annotator"),
    }
    s1 = add_sentence(engine, "s1", "But the staff service was very bad.", ["staff service"], ordinal=1)
    s2 = add_sentence(engine, "s2", "The food was good.", ["food"], ordinal=2)
    ids["t1"] = add_translation(engine, s1, "aware", ids["asha"], HINDI, aspect_map={"staff service": "स्टाफ़ सर्विस"})
    ids["t2"] = add_translation(engine, s2, "aware", ids["asha"], OTHER)
    assign_annotators(engine, project_id(engine), per_item=2)
    return ids


def tagging_page(engine, user_id) -> AppTest:
    return open_page(engine, user_id, "pages/tag.py")


def plain(value: str) -> str:
    """A Markdown message as the reader sees it: md_escape's backslashes removed."""
    return re.sub(r"\\(.)", r"\1", value)


def chips(at) -> str:
    return "".join(m.value for m in at.markdown if "token-chips" in m.value)


def current(at) -> int:
    return int(at.query_params["item"])


def shown(at) -> dict:
    """What the editor of the open item was given."""
    return editor_data(at, "tag_editor")


def saved_annotation(engine, user_id):
    with Session(engine) as session:
        return session.scalars(select(Annotation).where(Annotation.annotator_id == user_id)).one()


def actions(engine) -> list[str]:
    with Session(engine) as session:
        return session.scalars(select(Revision.action).where(Revision.entity == "annotation")
                               .order_by(Revision.id)).all()


def test_annotator_sees_only_assigned_items_and_never_others_tags(world):
    engine = world["engine"]
    with Session(engine) as session:
        session.query(AnnotationAssignment).filter_by(user_id=world["meera"], translation_id=world["t2"]).delete()
        session.commit()
    view = open_item(engine, world["kiran"], world["t1"])
    save_annotation(engine, world["kiran"], view.item_id, ["O", "B", "I", "O", "O", "O", "O"], False, None, "submit")

    at = tagging_page(engine, world["meera"])
    assert at.selectbox(key="tag_item").options == [
        f"लेकिन स्टाफ़ सर्विस बहुत बुरी थी। — restaurant/train/s1 · aware · assigned · #{world['t1']}"]
    data = shown(at)
    assert data["spans"] == [] and data["item"] == world["t1"]  # kiran's span is not shown
    assert "kiran" not in "".join(str(e.value) for e in at.main.children.values() if hasattr(e, "value"))
    # the translator's map is offered as a suggestion, not as a tag
    assert data["suggestions"] == [{"span": [1, 3], "term": "staff service"}]
    assert data["tokens"] == ["लेकिन", "स्टाफ़", "सर्विस", "बहुत", "बुरी", "थी", "।"]


def test_one_commit_carries_the_whole_span_list_and_autosaves_a_revision(world):
    engine = world["engine"]
    at = tagging_page(engine, world["meera"])
    tid = current(at)
    commit(at, "tag_editor", "mark", spans=[(1, 3)])
    annotation = saved_annotation(engine, world["meera"])
    assert (annotation.tags, annotation.status) == (["O", "B", "I", "O", "O", "O", "O"], "draft")
    assert actions(engine) == ["autosave"]
    assert shown(at)["spans"] == [[1, 3]] and shown(at)["ack"] > 0
    assert shown(at)["status"]["text"].startswith("Draft saved · version 1")
    commit(at, "tag_editor", "unmark", spans=[])
    assert saved_annotation(engine, world["meera"]).tags == ["O"] * 7


def test_the_editor_refuses_overlapping_spans_and_a_value_for_another_item(world):
    engine = world["engine"]
    at = tagging_page(engine, world["meera"])
    tid = current(at)
    other = world["t2"] if tid == world["t1"] else world["t1"]
    commit(at, "tag_editor", "mark", spans=[(1, 3)], item=other)  # names another item: ignored
    assert actions(engine) == [] and current(at) == tid
    commit(at, "tag_editor", "mark", spans=[(1, 3), (2, 4)])  # overlapping: refused, said in the status
    assert "overlaps" in shown(at)["status"]["text"]
    with Session(engine) as session:
        assert session.scalars(select(Annotation)).all() == []


def test_the_item_lives_in_the_url_so_a_new_session_opens_the_same_item(world):
    engine = world["engine"]
    at = tagging_page(engine, world["meera"])
    first = current(at)
    commit(at, "tag_editor", "next")
    second = current(at)
    assert second != first and shown(at)["item"] == second
    again = AppTest.from_file(str(APP), default_timeout=PAGE_RUN_LIMIT_S)
    again.session_state["session_token"] = at.session_state["session_token"]
    again.query_params["item"] = str(second)
    again.run()
    again.switch_page("pages/tag.py")
    again.query_params["item"] = str(second)
    again.run()
    assert current(again) == second and shown(again)["item"] == second
    commit(at, "tag_editor", "prev")
    assert current(at) == first


def test_no_aspects_is_an_explicit_answer_not_an_empty_save(world):
    engine = world["engine"]
    at = tagging_page(engine, world["meera"])
    tid = current(at)
    at.button(key=f"tag_submit_{tid}").click().run()
    assert "No aspects in this sentence" in shown(at)["status"]["text"]
    assert shown(at)["status"]["kind"] == "error"
    with Session(engine) as session:
        assert session.scalars(select(Annotation)).all() == []
    at.checkbox(key=f"tag_none_{tid}").check().run()
    at.button(key=f"tag_submit_{tid}").click().run()
    assert not at.exception
    annotation = saved_annotation(engine, world["meera"])
    assert (annotation.no_aspects, annotation.status, annotation.tags) == (True, "submitted", ["O"] * 7)


def test_submit_from_the_editor_opens_the_next_unfinished_item(world):
    engine = world["engine"]
    at = tagging_page(engine, world["meera"])
    first = current(at)
    commit(at, "tag_editor", "submit", spans=[(1, 3)])
    assert saved_annotation(engine, world["meera"]).status == "submitted"
    assert current(at) != first
    assert at.progress[0].proto.text == "1 of 2 submitted"


def test_a_submitted_annotation_is_read_only_until_reopened_and_reopening_is_in_its_history(world):
    engine = world["engine"]
    at = tagging_page(engine, world["meera"])
    tid = current(at)
    commit(at, "tag_editor", "submit", spans=[(1, 3)])
    at.selectbox(key="tag_filter").set_value("All").run()
    at.selectbox(key="tag_item").set_value(tid).run()
    assert current(at) == tid and shown(at)["readonly"] is True
    commit(at, "tag_editor", "unmark", spans=[])  # refused: nothing changes before a reopen
    assert saved_annotation(engine, world["meera"]).tags == ["O", "B", "I", "O", "O", "O", "O"]
    assert "Reopen" in shown(at)["status"]["text"]
    at.button(key=f"tag_reopen_{tid}").click().run()
    assert not at.exception, at.exception
    assert shown(at)["readonly"] is False and saved_annotation(engine, world["meera"]).status == "draft"
    commit(at, "tag_editor", "unmark", spans=[])
    annotation = saved_annotation(engine, world["meera"])
    assert (annotation.tags, annotation.status) == (["O"] * 7, "draft")
    assert actions(engine) == ["submit", "reopen", "autosave"]


def test_the_queue_names_sentences_by_a_snippet_and_filters_by_status(world):
    engine = world["engine"]
    at = tagging_page(engine, world["meera"])
    tid = current(at)
    assert [o.split(" — ")[0] for o in at.selectbox(key="tag_item").options] == ["लेकिन स्टाफ़ सर्विस बहुत बुरी थी।",
                                                                                  "खाना अच्छा था।"]
    commit(at, "tag_editor", "submit", spans=[(1, 3)])
    assert len(at.selectbox(key="tag_item").options) == 1  # unfinished only (the default filter)
    at.selectbox(key="tag_filter").set_value("Submitted").run()
    options = at.selectbox(key="tag_item").options
    assert any("· submitted ·" in o for o in options)


def _saved(engine, user_id):
    with Session(engine) as session:
        a = session.scalars(select(Annotation).where(Annotation.annotator_id == user_id)).one()
        return a.version, list(a.tags)


def _conflicted_page(world):
    """meera tags in this page, then saves other tags from another tab, then edits here again."""
    engine = world["engine"]
    at = tagging_page(engine, world["meera"])
    tid = current(at)
    commit(at, "tag_editor", "mark", spans=[(1, 3)])
    item_id = open_item(engine, world["meera"], tid).item_id
    other_tab = ["O", "O", "O", "B", "O", "O", "O"]
    save_annotation(engine, world["meera"], item_id, other_tab, False, 1, "save")
    commit(at, "tag_editor", "mark", spans=[(1, 3), (4, 5)])
    return at, tid, other_tab


def test_a_conflict_shows_both_versions_and_keeps_the_annotators_edits(world):
    engine = world["engine"]
    at, tid, other_tab = _conflicted_page(world)
    mine = ["O", "B", "I", "O", "B", "O", "O"]
    assert any("Nothing was overwritten" in w.value for w in at.warning)
    assert _saved(engine, world["meera"]) == (2, other_tab)  # the page wrote nothing
    assert shown(at)["spans"] == [[1, 3], [4, 5]]  # the editor keeps the annotator's edits
    labels = [plain(m.value) for m in at.markdown]
    assert "**Your version (not saved)**" in labels and "**Saved version 2**" in labels
    tokens = open_item(engine, world["meera"], tid).tokens
    texts = [t.value for t in at.text]  # both versions as text, spans in brackets
    assert f"{tokens[0]} [{tokens[1]} {tokens[2]}] {tokens[3]} [{tokens[4]}] {tokens[5]} {tokens[6]}" in texts  # mine
    assert f"{tokens[0]} {tokens[1]} {tokens[2]} [{tokens[3]}] {tokens[4]} {tokens[5]} {tokens[6]}" in texts  # saved

    at.button(key=f"tag_keep_mine_{tid}").click().run()
    assert not at.exception, at.exception
    assert _saved(engine, world["meera"]) == (3, mine)  # overwritten knowingly, expecting version 2
    assert "**Your version (not saved)**" not in [plain(m.value) for m in at.markdown]
    with Session(engine) as session:
        assert session.scalars(select(Revision.version).where(Revision.entity == "annotation")
                               .order_by(Revision.version)).all() == [1, 2, 3]


def test_a_conflict_can_take_the_saved_version_and_go_on_from_it(world):
    engine = world["engine"]
    at, tid, other_tab = _conflicted_page(world)
    at.button(key=f"tag_take_theirs_{tid}").click().run()
    assert not at.exception, at.exception
    assert _saved(engine, world["meera"]) == (2, other_tab)
    assert shown(at)["spans"] == [[3, 4]] and "**Your version (not saved)**" not in [plain(m.value) for m in at.markdown]
    commit(at, "tag_editor", "mark", spans=[(3, 4), (5, 6)])
    assert _saved(engine, world["meera"]) == (3, ["O", "O", "O", "B", "O", "B", "O"])


def test_a_rejected_suggestion_stays_rejected_after_a_reload(world):
    engine = world["engine"]
    at = tagging_page(engine, world["meera"])
    tid = current(at)
    assert shown(at)["suggestions"] == [{"span": [1, 3], "term": "staff service"}]
    commit(at, "tag_editor", "reject", spans=[], rejected=[(1, 3)])
    assert shown(at)["rejected"] == [[1, 3]]
    again = tagging_page(engine, world["meera"])  # a new browser session: nothing left in session state
    assert current(again) == tid
    assert shown(again)["rejected"] == [[1, 3]]
    annotation = saved_annotation(engine, world["meera"])
    assert (annotation.status, annotation.tags) == ("draft", ["O"] * 7)
