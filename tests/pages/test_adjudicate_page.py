"""The adjudication page in AppTest: accepting a version or editing sets gold, kept with who and when."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session
from streamlit.testing.v1 import AppTest

from db.models import Adjudication, Annotation, Revision
from db.adjudication import accept
from db.assignment import assign_annotators
from db.workflows import open_item, save_annotation
from tests.support.app_pages import built_once, copied, open_file, open_page
from tests.support.span_editor_driver import commit, editor_data
from tests.support.tagging_fixtures import (
    add_sentence,
    add_translation,
    add_user,
    project_id,
)


def plain(value: str) -> str:
    """A Markdown message as the reader sees it: md_escape's backslashes removed."""
    return re.sub(r"\\(.)", r"\1", value)


HINDI = "लेकिन स्टाफ़ सर्विस बहुत बुरी थी।"  # लेकिन स्टाफ़ सर्विस बहुत बुरी थी ।
AGREED = "खाना अच्छा था।"


def build_world(engine) -> dict:
    ids = {
        "asha": add_user(engine, "asha", "translator"),
        "meera": add_user(engine, "meera", "annotator"),
        "kiran": add_user(engine, "kiran", "annotator"),
        "lead": add_user(engine, "lena", "lead"),
    }
    s1 = add_sentence(engine, "s1", "But the staff service was very bad.", ["staff service"], ordinal=1)
    s2 = add_sentence(engine, "s2", "The food was good.", ["food"], ordinal=2)
    ids["t1"] = add_translation(engine, s1, "aware", ids["asha"], HINDI)
    ids["t2"] = add_translation(engine, s2, "aware", ids["asha"], AGREED)
    assign_annotators(engine, project_id(engine), per_item=2)
    for user, tags in ((ids["meera"], ["O", "B", "I", "O", "O", "O", "O"]),
                       (ids["kiran"], ["O", "B", "O", "O", "O", "O", "O"])):
        view = open_item(engine, user, ids["t1"])
        save_annotation(engine, user, view.item_id, tags, False, None, "submit")
        ids["item"] = view.item_id
        agreed = open_item(engine, user, ids["t2"])
        save_annotation(engine, user, agreed.item_id, ["B", "O", "O", "O"], False, None, "submit")
        ids["agreed_item"] = agreed.item_id
    return ids


@pytest.fixture(scope="module")
def built_world(tmp_path_factory, migrated_sqlite):
    """The project built once per module (about half a CPU-second); each test gets a copy of its own."""
    return built_once(tmp_path_factory, migrated_sqlite, build_world)


@pytest.fixture
def world(built_world, tmp_path, monkeypatch):
    """A fresh copy of the built project, which the app uses (DATABASE_URL), with its ids and its engine."""
    template, ids = built_world
    engine = copied(template, tmp_path, monkeypatch)
    yield {"engine": engine, **ids}
    engine.dispose()


def adjudication_page(world) -> AppTest:
    return open_page(world["engine"], world["lead"], "pages/adjudicate.py")


def test_queue_shows_the_disagreement_side_by_side_and_accepting_sets_gold(world):
    at = adjudication_page(world)
    assert at.selectbox(key="adj_item").options == [
        "restaurant/train/s1 · aware · by asha · 14% of tokens differ"
    ]
    chips = [m.value for m in at.markdown if "token-chips" in m.value]
    assert len(chips) == 2 and chips[0].count('data-tag="I"') == 1 and chips[1].count('data-tag="I"') == 0
    with Session(world["engine"]) as session:
        meera = session.scalars(select(Annotation.id).where(Annotation.annotator_id == world["meera"],
                                                            Annotation.item_id == world["item"])).one()
    at.text_input(key=f"adj_note_{world['item']}").input("multi-word term is one span")
    at.button(key=f"adj_accept_{world['item']}_{meera}").click().run()
    assert not at.exception
    with Session(world["engine"]) as session:
        gold = session.scalars(select(Adjudication).where(Adjudication.item_id == world["item"])).all()
    assert [(g.source, g.tags, g.accepted_annotation_id, g.decided_by, g.note) for g in gold] == [
        ("accepted", ["O", "B", "I", "O", "O", "O", "O"], meera, world["lead"], "multi-word term is one span")
    ]
    assert gold[0].created_at is not None
    assert any("No disagreements waiting" in s.value for s in at.success)


def test_lead_edits_gold_from_a_version(world):
    at = adjudication_page(world)
    item = world["item"]
    with Session(world["engine"]) as session:
        kiran = session.scalars(select(Annotation.id).where(Annotation.annotator_id == world["kiran"],
                                                            Annotation.item_id == item)).one()
    at.button(key=f"adj_from_{item}_{kiran}").click().run()
    assert editor_data(at, "adj_editor")["spans"] == [[1, 2]]  # the editor starts from kiran's version
    commit(at, "adj_editor", "mark", spans=[(1, 2), (3, 4)])
    with Session(world["engine"]) as session:
        assert session.scalars(select(Adjudication).where(Adjudication.item_id == item)).all() == []  # not yet
    at.button(key=f"adj_save_{item}").click().run()
    assert not at.exception
    with Session(world["engine"]) as session:
        gold = session.scalars(select(Adjudication).where(Adjudication.item_id == item)).one()
        revision = session.scalars(select(Revision).where(Revision.entity == "adjudication")).all()
    assert (gold.source, gold.tags, gold.decided_by) == ("edited", ["O", "B", "O", "B", "O", "O", "O"], world["lead"])
    assert [r.author_id for r in revision if r.payload["item_id"] == item] == [world["lead"]]


def test_the_gold_editor_shows_the_source_and_the_tokens_the_annotators_disagree_on(world):
    at = adjudication_page(world)
    data = editor_data(at, "adj_editor")
    assert data["item"] == world["item"] and data["disagree"] == [2]  # meera: B I, kiran: B O
    assert any("source-text" in m.value and "<mark" in m.value and "staff service" in m.value for m in at.markdown)
    commit(at, "adj_editor", "mark", spans=[(1, 3)], item=world["item"] + 1000)  # another item: ignored
    assert world["item"] not in at.session_state["adj"].edits


def test_agreed_items_are_gold_without_a_lead(world):
    adjudication_page(world)
    with Session(world["engine"]) as session:
        gold = session.scalars(select(Adjudication).where(Adjudication.item_id == world["agreed_item"])).all()
    assert [(g.source, g.decided_by) for g in gold] == [("agreed", None)]


def test_an_annotator_opening_the_page_directly_is_refused(world):
    at = open_file(world["engine"], world["meera"], "pages/adjudicate.py")
    assert [e.value for e in at.error] == ["You do not have access to this page."]
    assert not [m for m in at.markdown if "token-chips" in m.value]


def test_lead_assigns_annotators_from_the_assignments_page(world):
    s3 = add_sentence(world["engine"], "s3", "Nice view.", ["view"], ordinal=3)
    t3 = add_translation(world["engine"], s3, "aware", world["asha"], "अच्छा नज़ारा।")
    at = open_file(world["engine"], world["lead"], "pages/assign.py")
    at.button(key="assign_annotators").click().run()
    assert not at.exception
    assert any("2 new tagging assignment(s)" in s.value for s in at.success)
    with Session(world["engine"]) as session:
        from db.models import AnnotationAssignment

        users = set(session.scalars(select(AnnotationAssignment.user_id).where(AnnotationAssignment.translation_id == t3)))
    assert users == {world["meera"], world["kiran"]}


def test_a_decision_another_lead_made_meanwhile_is_shown_beside_mine_and_i_decide_again(world):
    from db.adjudication import accept

    omar = add_user(world["engine"], "omar", "lead")
    item = world["item"]
    at = adjudication_page(world)
    with Session(world["engine"]) as session:
        versions = dict(session.execute(select(Annotation.annotator_id, Annotation.id)
                                        .where(Annotation.item_id == item)).all())
    # omar accepts meera's version while lena still looks at the page as it was
    omars = accept(world["engine"], item, versions[world["meera"]], omar, expected=None)
    at.button(key=f"adj_accept_{item}_{versions[world['kiran']]}").click().run()
    assert not at.exception
    assert any("omar set gold (accepted)" in plain(w.value) for w in at.warning)
    labels = [plain(m.value) for m in at.markdown]
    assert "**Your decision (not recorded)**" in labels and "**In force now**" in labels
    notes = [plain(c.value) for c in at.caption]
    assert "accept kiran's version" in notes
    assert any(n.startswith("accepted · saved by omar at ") for n in notes)
    # both decisions as text, kiran's (mine) then omar's, above the item (its address keeps it on screen)
    assert [t.value for t in at.text][:4] == ["लेकिन [स्टाफ़] सर्विस बहुत बुरी थी ।", "• स्टाफ़  (token 2)",
                                              "लेकिन [स्टाफ़ सर्विस] बहुत बुरी थी ।", "• स्टाफ़ सर्विस  (tokens 2–3)"]
    assert at.selectbox(key="adj_item").value == item and "· decided" in at.selectbox(key="adj_item").options[0]
    with Session(world["engine"]) as session:
        assert session.scalars(select(Adjudication.id).where(Adjudication.item_id == item)).all() == [omars.id]
    at.button(key="adj_conflict_replace").click().run()
    assert not at.exception and not at.warning
    with Session(world["engine"]) as session:
        rows = session.execute(select(Adjudication.decided_by, Adjudication.accepted_annotation_id)
                               .where(Adjudication.item_id == item).order_by(Adjudication.id)).all()
    assert [tuple(r) for r in rows] == [(omar, versions[world["meera"]]), (world["lead"], versions[world["kiran"]])]
    assert any("No disagreements waiting" in s.value for s in at.success)  # on to the next: none waits


def test_keeping_the_other_leads_decision_records_nothing_of_mine(world):
    from db.adjudication import edit

    omar = add_user(world["engine"], "omar", "lead")
    item = world["item"]
    at = adjudication_page(world)
    with Session(world["engine"]) as session:
        kiran = session.scalars(select(Annotation.id).where(Annotation.annotator_id == world["kiran"],
                                                            Annotation.item_id == item)).one()
    at.button(key=f"adj_from_{item}_{kiran}").click().run()  # lena starts editing with no gold in force
    edit(world["engine"], item, ["B", "B", "O", "O", "O", "O", "O"], omar, expected=None)
    commit(at, "adj_editor", "submit", spans=[(1, 2), (3, 4)])  # Ctrl+Enter in the gold editor saves
    assert any("omar set gold (edited)" in plain(w.value) for w in at.warning)
    at.button(key="adj_conflict_keep").click().run()
    assert not at.exception and not at.warning
    assert any("Kept the decision in force" in i.value for i in at.info)
    with Session(world["engine"]) as session:
        assert session.scalars(select(Adjudication.decided_by).where(Adjudication.item_id == item)).all() == [omar]


def test_agreed_gold_an_annotator_edits_away_is_withdrawn_and_the_item_waits_for_a_lead(world):
    view = open_item(world["engine"], world["kiran"], world["t2"])
    save_annotation(world["engine"], world["kiran"], view.item_id, ["O", "O", "B", "O"], False,
                    view.annotation.version, "submit")
    at = adjudication_page(world)
    assert "restaurant/train/s2 · aware · by asha · 50% of tokens differ" in at.selectbox(key="adj_item").options
    assert at.metric[0].value == "0 of 2"
    at.selectbox(key="adj_item").set_value(world["agreed_item"]).run()
    assert not at.exception
    assert not any(s.value == "Gold in force" for s in at.subheader)
    history = at.dataframe[-1].value
    assert history["how"].tolist() == ["agreed", "withdrawn"]
    assert history["spans"].tolist()[1] == "— (no gold)"


def test_the_queue_follows_a_change_made_while_the_page_is_open(world):
    at = adjudication_page(world)
    assert len(at.selectbox(key="adj_item").options) == 1
    kiran = world["kiran"]
    view = open_item(world["engine"], kiran, world["t2"])  # kiran changes his agreed tags: no longer agreed
    save_annotation(world["engine"], kiran, view.item_id, ["O", "O", "O", "O"], True, view.annotation.version, "submit")
    at.run()
    assert not at.exception
    assert [o.split(" · ")[0] for o in at.selectbox(key="adj_item").options] == [
        "restaurant/train/s2", "restaurant/train/s1"]
    assert at.metric[0].value == "0 of 2"  # the agreed gold of s2 was withdrawn


# ----- the queue as a work list: the address, the source, the differing tokens, moving on -----

WORSE = "खाना ठंडा था।"  # खाना ठंडा था ।
DECIDED = "सेवा धीमी थी।"  # सेवा धीमी थी ।


def annotation_of(engine, item: int, annotator: int) -> int:
    with Session(engine) as session:
        return session.scalars(select(Annotation.id).where(Annotation.item_id == item,
                                                           Annotation.annotator_id == annotator)).one()


@pytest.fixture
def queue_world(world):
    """``world`` plus two disagreements: s3, the worst (2 of 4 tokens differ), and s4 (1 of 4), which the
    lead decided. Worst first: s3 (open), s4 (decided), s1 (open, 1 of 7)."""
    engine = world["engine"]
    for key, sid, english, term, hindi, meeras, kirans, ordinal in (
        ("worse", "s3", "The food was cold.", "food", WORSE, ["B", "O", "O", "O"], ["O", "B", "O", "O"], 3),
        ("decided", "s4", "Service was slow.", "Service", DECIDED, ["B", "O", "O", "O"], ["B", "I", "O", "O"], 4),
    ):
        translation = add_translation(engine, add_sentence(engine, sid, english, [term], ordinal=ordinal), "aware",
                                      world["asha"], hindi)
        assign_annotators(engine, project_id(engine), per_item=2)
        for user, tags in ((world["meera"], meeras), (world["kiran"], kirans)):
            view = open_item(engine, user, translation)
            save_annotation(engine, user, view.item_id, tags, False, None, "submit")
            world[key] = view.item_id
    accept(engine, world["decided"], annotation_of(engine, world["decided"], world["meera"]), world["lead"],
           expected=None)
    return world


def shown(at: AppTest) -> int:
    return at.selectbox(key="adj_item").value


def in_order(at: AppTest) -> list:
    """Every element of the page, top to bottom."""
    def walk(node):
        yield node
        children = getattr(node, "children", None) or {}
        for i in sorted(children):
            yield from walk(children[i])
    return list(walk(at.main))


def test_home_link_opens_the_worst_undecided_disagreement_at_once(queue_world):
    at = open_page(queue_world["engine"], queue_world["lead"], "pages/adjudicate.py", query={"show": "open"})
    assert shown(at) == queue_world["worse"]
    assert (at.query_params["show"], at.query_params["item"]) == ("open", str(queue_world["worse"]))
    assert at.selectbox(key="adj_item").options == [
        "restaurant/train/s3 · aware · by asha · 50% of tokens differ",
        "restaurant/train/s1 · aware · by asha · 14% of tokens differ",
    ]
    assert at.toggle(key="adj_show_resolved").value is False and at.metric[1].value == "2"
    at.toggle(key="adj_show_resolved").set_value(True).run()
    assert at.query_params["show"] == "all"
    assert "restaurant/train/s4 · aware · by asha · 25% of tokens differ · decided" in at.selectbox(
        key="adj_item").options


def test_the_address_opens_an_item_directly_even_a_decided_one(queue_world):
    at = open_page(queue_world["engine"], queue_world["lead"], "pages/adjudicate.py",
                   query={"item": str(queue_world["decided"])})
    assert shown(at) == queue_world["decided"]
    assert at.selectbox(key="adj_item").options[1] == (
        "restaurant/train/s4 · aware · by asha · 25% of tokens differ · decided")
    assert "Gold in force" in [s.value for s in at.subheader]
    assert any("source-text" in m.value and ">Service</mark>" in m.value for m in at.markdown)


def test_an_agreed_item_opened_by_its_address_says_it_is_no_disagreement(world):
    at = open_page(world["engine"], world["lead"], "pages/adjudicate.py",
                   query={"item": str(world["agreed_item"])})
    assert shown(at) == world["agreed_item"]
    assert at.selectbox(key="adj_item").options[0] == "restaurant/train/s2 · aware · by asha · not a disagreement"
    assert any(c.value == "The annotators tag every token alike." for c in at.caption)


def test_an_unknown_item_in_the_address_falls_back_to_the_queue(world):
    at = open_page(world["engine"], world["lead"], "pages/adjudicate.py", query={"item": "99999"})
    assert [plain(w.value) for w in at.warning] == ["There is no tagging item 99999; here is the queue instead."]
    assert shown(at) == world["item"] and at.query_params["item"] == str(world["item"])


def test_the_english_source_comes_first_and_each_version_marks_the_tokens_the_annotators_differ_on(world):
    at = adjudication_page(world)
    page = in_order(at)
    markdown = [(i, e.value) for i, e in enumerate(page) if e.type == "markdown"]
    source = [i for i, value in markdown if "source-text" in value]
    chips = [(i, value) for i, value in markdown if "token-chips" in value]
    assert len(source) == 1 and len(chips) == 2 and source[0] < chips[0][0]
    assert ">staff service</mark>" in next(v for _, v in markdown if "source-text" in v)
    for _, value in chips:  # meera: B I, kiran: B O -> token 3 (सर्विस) differs, in both versions
        marked = [c for c in value.split('<span class="tok"')[1:] if 'data-differ="1"' in c]
        assert len(marked) == 1 and 'data-i="2"' in marked[0] and "सर्विस" in marked[0]
    assert any(plain(c.value) == "Tokens the annotators tag differently are underlined in red: 1 of 7."
               for c in at.caption)
    keys = [getattr(e, "key", None) for e in page]
    note = keys.index(f"adj_note_{world['item']}")
    assert all(note < i for i, k in enumerate(keys) if k and k.startswith(("adj_accept_", "adj_from_")))


def test_a_decision_moves_on_to_the_next_open_disagreement(queue_world):
    engine, worse, s1 = queue_world["engine"], queue_world["worse"], queue_world["item"]
    at = open_page(engine, queue_world["lead"], "pages/adjudicate.py", query={"show": "open"})
    at.text_input(key=f"adj_note_{worse}").input("food is the aspect")
    at.button(key=f"adj_accept_{worse}_{annotation_of(engine, worse, queue_world['meera'])}").click().run()
    assert not at.exception
    assert shown(at) == s1 and at.query_params["item"] == str(s1)  # s4, decided, is passed over
    assert [plain(m.value) for m in at.success] == ["restaurant/train/s3: gold set to meera's version."]
    with Session(engine) as session:
        assert session.execute(select(Adjudication.source, Adjudication.note).where(
            Adjudication.item_id == worse)).all() == [("accepted", "food is the aspect")]
    at.button(key=f"adj_accept_{s1}_{annotation_of(engine, s1, queue_world['kiran'])}").click().run()
    assert any("No disagreements waiting" in s.value for s in at.success)


def test_next_disagreement_goes_to_the_next_open_one_and_round_again(queue_world):
    engine, worse, s1 = queue_world["engine"], queue_world["worse"], queue_world["item"]
    at = open_page(engine, queue_world["lead"], "pages/adjudicate.py", query={"show": "open"})
    at.button(key="adj_next").click().run()
    assert shown(at) == s1 and at.query_params["item"] == str(s1)
    at.button(key="adj_next").click().run()
    assert shown(at) == worse
    with Session(engine) as session:
        assert session.scalars(select(Adjudication.item_id).where(Adjudication.decided_by.is_not(None))).all() == [
            queue_world["decided"]]


def test_automatic_gold_is_brought_up_to_date_once_per_change_not_on_every_run(world, monkeypatch):
    """The write the page makes (the automatic rule) is an explicit call when the tagging changed since this
    session last looked, never part of a cached render: a rerun with nothing changed writes nothing."""
    import db.adjudication

    calls = []
    real = db.adjudication.sync_and_count
    monkeypatch.setattr(db.adjudication, "sync_and_count", lambda *a: calls.append(a) or real(*a))
    at = adjudication_page(world)
    assert len(calls) == 1
    at.run()
    at.run()
    assert not at.exception and len(calls) == 1  # nothing changed: no second sync
    kiran = world["kiran"]
    view = open_item(world["engine"], kiran, world["t2"])
    save_annotation(world["engine"], kiran, view.item_id, ["O", "O", "O", "O"], True, view.annotation.version, "submit")
    at.run()
    assert not at.exception and len(calls) == 2  # the tagging changed: one sync
    assert at.metric[0].value == "0 of 2"
