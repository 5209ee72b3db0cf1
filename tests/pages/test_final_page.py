"""The final-translation page in AppTest: policy shown, comparison of candidates, override recorded and counted."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session
from streamlit.testing.v1 import AppTest

from corpus.final_choice import DEFAULT_POLICY
from db.models import FinalChoice
from tests.support.app_pages import open_page
from tests.support.tagging_fixtures import add_sentence, add_translation, add_user


def plain(value: str) -> str:
    """A Markdown message as the reader sees it: md_escape's backslashes removed."""
    return re.sub(r"\\(.)", r"\1", value)


@pytest.fixture
def world(app_engine):
    engine = app_engine
    ids = {name: add_user(engine, name, "translator") for name in ("asha", "ravi", "uma", "dev")}
    ids["engine"] = engine
    ids["lead"] = add_user(engine, "lena", "lead")
    s = add_sentence(engine, "7", "The sushi and the miso soup were great.", ["sushi", "miso soup"])
    ids["sentence"] = s
    ids["a1"] = add_translation(engine, s, "aware", ids["asha"], "सुशी और मिसो सूप बहुत अच्छे थे।",
                                aspect_map={"sushi": "सुशी", "miso soup": "मिसो सूप"})
    ids["a2"] = add_translation(engine, s, "aware", ids["ravi"], "सुशी और मिसो सूप शानदार थे।",
                                aspect_map={"sushi": "सुशी", "miso soup": "मिसो सूप"}, minutes=1)
    ids["a3"] = add_translation(engine, s, "aware", ids["uma"], "सुशी और सूप बढ़िया थे।",
                                aspect_map={"sushi": "सुशी", "miso soup": None}, minutes=2)
    ids["b1"] = add_translation(engine, s, "blind", ids["dev"], "सुशी और मिसो सूप बहुत अच्छे थे।", minutes=3)
    ids["b2"] = add_translation(engine, s, "blind", ids["uma"], None, untranslatable=True, minutes=4)
    return ids


def final_page(world) -> AppTest:
    return open_page(world["engine"], world["lead"], "pages/final.py", timeout=30)


def test_comparison_shows_candidates_policy_and_votes(world):
    at = final_page(world)
    assert any(DEFAULT_POLICY in plain(i.value) for i in at.info)
    table = at.dataframe[-1].value
    assert len(table) == 5
    assert set(table.columns) >= {"mean ROUGE-L", "aspects kept", "automatic pick", "phase"}
    assert table.loc[table["automatic pick"], "translator"].tolist() == ["ravi"]
    assert any("Untranslatable votes: aware 0, blind 1" in c.value for c in at.caption)
    assert at.radio(key=f"final_pick_{world['sentence']}").value == world["a2"]


def test_override_is_recorded_and_the_rate_shown(world):
    at = final_page(world)
    sid = world["sentence"]
    at.radio(key=f"final_pick_{sid}").set_value(world["a1"]).run()
    at.text_input(key=f"final_note_{sid}").input("reads more naturally")
    at.button(key=f"final_choose_{sid}").click().run()
    assert not at.exception
    assert any("Override recorded" in s.value for s in at.success)
    with Session(world["engine"]) as session:
        row = session.scalars(select(FinalChoice)).one()
    assert (row.translation_id, row.auto_translation_id, row.overridden, row.chosen_by, row.note) == (
        world["a1"], world["a2"], True, world["lead"], "reads more naturally"
    )
    assert at.metric[0].value == "100%"
    assert any("1 of 1 lead decisions; in force: 1 of 1 lead-decided sentences keep an override" in c.value
               for c in at.caption)


def test_a_choice_another_lead_made_meanwhile_is_shown_beside_mine_and_i_choose_again(world):
    from db.final_choice import choose

    omar = add_user(world["engine"], "omar", "lead")
    sid = world["sentence"]
    at = final_page(world)
    omars = choose(world["engine"], sid, world["b1"], omar, expected=None)  # while lena looks at the page
    at.radio(key=f"final_pick_{sid}").set_value(world["a1"]).run()
    at.button(key=f"final_choose_{sid}").click().run()
    assert not at.exception
    assert any("changed by omar" in plain(w.value) for w in at.warning)
    assert "**In force now**" in [plain(m.value) for m in at.markdown]
    assert any("saved by omar at " in plain(c.value) for c in at.caption)
    texts = [t.value for t in at.text]
    assert "aware · asha: सुशी और मिसो सूप बहुत अच्छे थे।" in texts  # mine
    assert "blind · dev: सुशी और मिसो सूप बहुत अच्छे थे।" in texts  # theirs
    with Session(world["engine"]) as session:
        assert session.scalars(select(FinalChoice.id)).all() == [omars.id]
    at.button(key="final_conflict_replace").click().run()
    assert not at.exception and not at.warning
    with Session(world["engine"]) as session:
        rows = session.execute(select(FinalChoice.chosen_by, FinalChoice.translation_id).order_by(FinalChoice.id)).all()
    assert [tuple(r) for r in rows] == [(omar, world["b1"]), (world["lead"], world["a1"])]
