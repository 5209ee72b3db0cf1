"""The final-translation decision view in AppTest, on a hand-built project: the Home page's links (query
parameters), choosing by key with auto-advance, U for untranslatable, the filters' counts, the cards, the
conflict panel and the automatic picks."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session
from streamlit.testing.v1 import AppTest

from corpus.final_choice import DEFAULT_POLICY
from db.final_choice import choose, compare
from db.models import FinalChoice
from tests.support.app_pages import open_page
from tests.support.final_fixtures import build
from tests.support.tagging_fixtures import add_user


def plain(value: str) -> str:
    """A Markdown message as the reader sees it: md_escape's backslashes removed."""
    return re.sub(r"\\(.)", r"\1", value)


@pytest.fixture
def world(app_engine):
    ids = build(app_engine)
    ids["engine"] = app_engine
    return ids


def final_page(world, **query: object) -> AppTest:
    return open_page(world["engine"], world["lead"], "pages/final.py",
                     query={k: str(v) for k, v in query.items()})


def key_button(at: AppTest, key: str):
    """The button a key press clicks: the one carrying ``key`` as its shortcut."""
    found = [b for b in at.button if b.proto.shortcut.lower() == key.lower()]
    assert len(found) == 1, [(b.label, b.proto.shortcut) for b in at.button]
    return found[0]


def press(at: AppTest, key: str) -> AppTest:
    key_button(at, key).click().run()
    assert not at.exception, at.exception
    return at


def shown(at: AppTest) -> str:
    return plain(at.subheader[-1].value)


def filter_labels(at: AppTest) -> list[str]:
    return list(at.radio(key="final_show_pick").options)


def in_force(engine) -> dict[int, tuple]:
    with Session(engine) as session:
        rows = session.execute(select(FinalChoice.sentence_id, FinalChoice.translation_id, FinalChoice.overridden,
                                      FinalChoice.chosen_by).order_by(FinalChoice.id)).all()
    return {sentence: (translation, overridden, by) for sentence, translation, overridden, by in rows}


def test_the_home_link_opens_the_first_undecided_sentence_with_progress_and_filter_counts(world):
    at = final_page(world, show="undecided")
    assert shown(at) == "restaurant/train/7"
    assert at.get("progress")[0].proto.text == "3 of 4 undecided"
    assert filter_labels(at) == ["Undecided (3)", "Marked untranslatable (2)", "Overridden (0)", "All (4)"]
    assert at.radio(key="final_show_pick").value == "undecided"
    assert (at.query_params["show"], at.query_params["sentence"]) == ("undecided", str(world["s"][0]))


def test_the_cards_show_full_text_agreement_the_automatic_pick_first_and_the_diff(world):
    at = final_page(world, sentence=world["s"][0])
    heads = [plain(m.value) for m in at.markdown if m.value.startswith("**")]
    assert heads[0].startswith("**1** · aware · ravi · ROUGE-L ") and "vs 2 others" in heads[0]
    assert "automatic pick" in heads[0]
    assert heads[1].startswith("**2** · blind · dev · ROUGE-L — (no other translation in its phase)")
    assert [h.split(" · ")[2] for h in heads[:4]] == ["ravi", "dev", "asha", "uma"]
    assert [t.value for t in at.text][:4] == ["सुशी और मिसो सूप शानदार थे।", "सुशी और मिसो सूप बहुत अच्छे थे।",
                                              "सुशी और मिसो सूप बहुत अच्छे थे।", "सुशी और सूप बढ़िया थे।"]
    diffs = [m.value for m in at.markdown if 'class="word-diff"' in m.value]
    assert len(diffs) == 3  # every card but the automatic pick's
    assert '<span class="diff-removed" title="removed" style="' in diffs[0] and ">शानदार</span>" in diffs[0]
    assert any("Why: " in c.value for c in at.caption)
    source = next(m.value for m in at.markdown if 'class="source-text"' in m.value)
    assert "<mark" in source and ">sushi</mark>" in source
    assert [b.proto.shortcut for b in at.button if b.key.startswith("final_choose_")] == ["1", "2", "3", "4"]
    assert any("Policy: " + DEFAULT_POLICY in plain(i.value) for i in at.info)


def test_three_sentences_are_decided_by_one_key_press_each(world):
    engine, s = world["engine"], world["s"]
    autos = [compare(engine, sid).pick.candidate.translation_id for sid in s[:3]]
    at = final_page(world, show="undecided")
    seen = []
    for _ in range(3):
        seen.append(shown(at))
        press(at, "1")
        assert any("automatic pick confirmed" in plain(x.value) for x in at.success)
    assert seen == ["restaurant/train/7", "restaurant/train/8", "restaurant/train/9"]
    assert any("Every translated sentence has a final choice in force." in x.value for x in at.success)
    assert in_force(engine) == {sid: (auto, False, world["lead"]) for sid, auto in zip(s[:3], autos)}
    assert filter_labels(at)[0] == "Undecided (0)"
    assert at.get("progress")[0].proto.text == "0 of 4 undecided"


def test_another_key_overrides_and_the_overridden_filter_counts_it(world):
    engine, s = world["engine"], world["s"]
    at = final_page(world)
    press(at, "3")  # asha's aware translation on s1, not the automatic pick
    assert shown(at) == "restaurant/train/8"
    assert in_force(engine)[s[0]] == (world["a1"], True, world["lead"])
    assert filter_labels(at) == ["Undecided (2)", "Marked untranslatable (2)", "Overridden (1)", "All (4)"]


def test_u_marks_the_sentence_untranslatable_and_the_review_list_moves_on(world):
    engine, s = world["engine"], world["s"]
    at = final_page(world, show="untranslatable")
    assert shown(at) == "restaurant/train/9"
    assert any("dev: marked untranslatable (idiom)" in plain(c.value) for c in at.caption)
    at.text_input(key=f"final_note_{s[2]}").input("an idiom")
    press(at, "U")
    assert in_force(engine)[s[2]] == (None, True, world["lead"])  # the rule would have kept asha's
    assert shown(at) == "restaurant/train/10"
    assert filter_labels(at)[:2] == ["Undecided (2)", "Marked untranslatable (1)"]
    with Session(engine) as session:
        assert session.scalars(select(FinalChoice.note)).all() == ["an idiom"]
    press(at, "U")  # s4 has no translated candidate: only U is offered
    assert any("No sentences are marked untranslatable." in x.value for x in at.info)


def test_the_sentence_in_the_address_opens_even_outside_the_filter(world):
    s = world["s"]
    at = final_page(world, show="untranslatable", sentence=s[1])
    assert shown(at) == "restaurant/train/8"
    assert "not in this list" in at.selectbox(key="final_jump").label
    at = final_page(world, sentence=s[4])  # no translation: said, and the list's first shown
    assert any("has no submitted translation" in w.value for w in at.warning)
    assert shown(at) == "restaurant/train/7"
    at = final_page(world, show="nonsense")
    assert at.radio(key="final_show_pick").value == "undecided"


def test_next_and_previous_move_within_the_filter_and_the_filter_can_change(world):
    s = world["s"]
    at = final_page(world, show="all")
    press(at, "right")
    assert shown(at) == "restaurant/train/8"
    press(at, "left")
    press(at, "left")  # wraps round
    assert shown(at) == "restaurant/train/10"
    at.radio(key="final_show_pick").set_value("untranslatable").run()
    assert not at.exception
    assert shown(at) == "restaurant/train/9" and at.query_params["show"] == "untranslatable"
    at.selectbox(key="final_jump").set_value(s[3]).run()
    assert shown(at) == "restaurant/train/10"


def test_record_automatic_picks_writes_them_and_the_undecided_list_empties(world):
    at = final_page(world)
    at.button(key="final_record_auto").click().run()
    assert any("Recorded 3 automatic pick(s)." in x.value for x in at.success)
    assert filter_labels(at)[:2] == ["Undecided (0)", "Marked untranslatable (2)"]


def test_a_choice_another_lead_made_meanwhile_is_shown_beside_mine_and_i_choose_again(world):
    engine, sid = world["engine"], world["s"][0]
    omar = add_user(engine, "omar", "lead")
    at = final_page(world)
    omars = choose(engine, sid, world["b1"], omar, expected=None)  # while lena looks at the page
    press(at, "3")
    assert any("changed by omar" in plain(w.value) for w in at.warning)
    assert "**In force now**" in [plain(m.value) for m in at.markdown]
    assert any("saved by omar at " in plain(c.value) for c in at.caption)
    texts = [t.value for t in at.text]
    assert "aware · asha: सुशी और मिसो सूप बहुत अच्छे थे।" in texts  # mine
    assert "blind · dev: सुशी और मिसो सूप बहुत अच्छे थे।" in texts  # theirs
    assert shown(at) == "restaurant/train/7"  # no advance on a conflict
    with Session(engine) as session:
        assert session.scalars(select(FinalChoice.id)).all() == [omars.id]
    at.button(key="final_conflict_replace").click().run()
    assert not at.exception and not at.warning
    with Session(engine) as session:
        rows = session.execute(select(FinalChoice.chosen_by, FinalChoice.translation_id).order_by(FinalChoice.id)).all()
    assert [tuple(r) for r in rows] == [(omar, world["b1"]), (world["lead"], world["a1"])]
