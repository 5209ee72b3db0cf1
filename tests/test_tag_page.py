"""The tagging page in AppTest: own items only, never others' tags, spans from consecutive tokens,
and "No aspects in this sentence" as an explicit answer."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session
from streamlit.testing.v1 import AppTest

from db.auth import start_session
from db.engine import make_engine
from db.models import Annotation, AnnotationAssignment, Revision
from db.schema import upgrade
from db.tagging import assign_annotators, open_item, save_annotation
from tests.tagging_fixtures import add_sentence, add_translation, add_user, project_id

APP = Path(__file__).resolve().parent.parent / "app.py"
HINDI = "लेकिन स्टाफ़ सर्विस बहुत बुरी थी।"  # लेकिन स्टाफ़ सर्विस बहुत बुरी थी ।
OTHER = "खाना अच्छा था।"


@pytest.fixture
def world(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'app.db'}"
    monkeypatch.setenv("DATABASE_URL", url)
    engine = make_engine(url)
    upgrade(engine)
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
    yield ids
    engine.dispose()


def tagging_page(engine, user_id) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=30)
    at.query_params["session"] = start_session(engine, user_id)
    at.run()
    at.switch_page("pages/tag.py")
    at.run()
    assert not at.exception, at.exception
    return at


def chips(at) -> str:
    return "".join(m.value for m in at.markdown if "token-chips" in m.value)


def test_annotator_sees_only_assigned_items_and_never_others_tags(world):
    engine = world["engine"]
    with Session(engine) as session:
        session.query(AnnotationAssignment).filter_by(user_id=world["meera"], translation_id=world["t2"]).delete()
        session.commit()
    view = open_item(engine, world["kiran"], world["t1"])
    save_annotation(engine, world["kiran"], view.item_id, ["O", "B", "I", "O", "O", "O", "O"], False, None, "submit")

    at = tagging_page(engine, world["meera"])
    assert at.selectbox(key="tag_item").options == ["restaurant/train/s1 · aware · assigned"]
    html = chips(at)
    assert 'data-tag="B"' not in html and 'data-tag="I"' not in html  # kiran's span is not shown
    assert "kiran" not in "".join(str(e.value) for e in at.main.children.values() if hasattr(e, "value"))
    # the translator's map is shown as a suggestion, not as a tag
    assert any("Suggested: स्टाफ़ सर्विस" in t.value for t in at.text)


def test_consecutive_tokens_become_a_span_and_autosave_writes_a_revision(world):
    engine = world["engine"]
    at = tagging_page(engine, world["meera"])
    tid = at.selectbox(key="tag_item").value
    at.pills(key=f"tag_sel_{tid}").set_value([1, 3]).run()
    at.button(key=f"tag_add_{tid}").click().run()
    assert any("gap" in e.value for e in at.error)
    at.pills(key=f"tag_sel_{tid}").set_value([1, 2]).run()
    at.button(key=f"tag_add_{tid}").click().run()
    assert not at.exception
    with Session(engine) as session:
        annotation = session.scalars(select(Annotation).where(Annotation.annotator_id == world["meera"])).one()
        assert annotation.tags == ["O", "B", "I", "O", "O", "O", "O"] and annotation.status == "draft"
        assert session.scalars(select(Revision.action).where(Revision.entity == "annotation")).all() == ["autosave"]
    assert 'data-tag="B"' in chips(at)
    at.button(key=f"tag_rm_{tid}_1_3").click().run()
    with Session(engine) as session:
        assert session.scalars(select(Annotation.tags)).one() == ["O"] * 7


def test_no_aspects_is_an_explicit_answer_not_an_empty_save(world):
    engine = world["engine"]
    at = tagging_page(engine, world["meera"])
    tid = at.selectbox(key="tag_item").value
    at.button(key=f"tag_submit_{tid}").click().run()
    assert any("No aspects in this sentence" in e.value for e in at.error)
    with Session(engine) as session:
        assert session.scalars(select(Annotation)).all() == []
    at.checkbox(key=f"tag_none_{tid}").check().run()
    at.button(key=f"tag_submit_{tid}").click().run()
    assert not at.exception
    with Session(engine) as session:
        annotation = session.scalars(select(Annotation)).one()
        assert (annotation.no_aspects, annotation.status, annotation.tags) == (True, "submitted", ["O"] * 7)
    assert any("Submitted" in s.value for s in at.success)


def _saved(engine, user_id):
    with Session(engine) as session:
        a = session.scalars(select(Annotation).where(Annotation.annotator_id == user_id)).one()
        return a.version, list(a.tags)


def _conflicted_page(world):
    """meera tags in this page, then saves other tags from another tab, then edits here again."""
    engine = world["engine"]
    at = tagging_page(engine, world["meera"])
    tid = at.selectbox(key="tag_item").value
    at.pills(key=f"tag_sel_{tid}").set_value([1, 2]).run()
    at.button(key=f"tag_add_{tid}").click().run()
    item_id = open_item(engine, world["meera"], tid).item_id
    other_tab = ["O", "O", "O", "B", "O", "O", "O"]
    save_annotation(engine, world["meera"], item_id, other_tab, False, 1, "save")
    at.pills(key=f"tag_sel_{tid}").set_value([4]).run()
    at.button(key=f"tag_add_{tid}").click().run()
    assert not at.exception, at.exception
    return at, tid, other_tab


def test_a_conflict_shows_both_versions_and_keeps_the_annotators_edits(world):
    engine = world["engine"]
    at, tid, other_tab = _conflicted_page(world)
    mine = ["O", "B", "I", "O", "B", "O", "O"]
    assert any("Nothing was overwritten" in e.value for e in at.error)
    assert _saved(engine, world["meera"]) == (2, other_tab)  # the page wrote nothing
    labels = [m.value for m in at.markdown]
    your = labels.index("**Your version (not saved)**")
    saved = next(i for i, v in enumerate(labels) if v.startswith("**Saved version 2**"))
    assert [f'data-tag="{t}"' in labels[your + 1] for t in "BI"] == [True, True]
    assert labels[your + 1].count('data-tag="B"') == 2  # my two spans, as chips
    assert labels[saved + 1].count('data-tag="B"') == 1 and 'data-tag="I"' not in labels[saved + 1]

    at.button(key=f"tag_keep_mine_{tid}").click().run()
    assert not at.exception, at.exception
    assert _saved(engine, world["meera"]) == (3, mine)  # overwritten knowingly, expecting version 2
    assert "**Your version (not saved)**" not in [m.value for m in at.markdown]
    with Session(engine) as session:
        assert session.scalars(select(Revision.version).where(Revision.entity == "annotation")
                               .order_by(Revision.version)).all() == [1, 2, 3]


def test_a_conflict_can_take_the_saved_version_and_go_on_from_it(world):
    engine = world["engine"]
    at, tid, other_tab = _conflicted_page(world)
    at.button(key=f"tag_take_theirs_{tid}").click().run()
    assert not at.exception, at.exception
    assert _saved(engine, world["meera"]) == (2, other_tab)
    assert chips(at).count('data-tag="B"') == 1 and "Your version (not saved)" not in str(at.markdown)
    at.pills(key=f"tag_sel_{tid}").set_value([5]).run()
    at.button(key=f"tag_add_{tid}").click().run()
    assert _saved(engine, world["meera"]) == (3, ["O", "O", "O", "B", "O", "B", "O"])


def test_a_rejected_suggestion_stays_rejected_after_a_reload(world):
    engine = world["engine"]
    at = tagging_page(engine, world["meera"])
    tid = at.selectbox(key="tag_item").value
    assert any("Suggested: स्टाफ़ सर्विस" in t.value for t in at.text)
    at.button(key=f"tag_rej_{tid}_1").click().run()
    assert not at.exception, at.exception
    assert not any("Suggested:" in t.value for t in at.text)
    again = tagging_page(engine, world["meera"])  # a new browser session: nothing left in session state
    assert again.selectbox(key="tag_item").value == tid
    assert not any("Suggested:" in t.value for t in again.text)
    assert 'data-tag="O"' in chips(again) and "suggestion" not in chips(again)
    with Session(engine) as session:
        annotation = session.scalars(select(Annotation).where(Annotation.annotator_id == world["meera"])).one()
        assert (annotation.status, annotation.tags) == ("draft", ["O"] * 7)
