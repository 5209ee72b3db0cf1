"""The final-translation decision view in a real browser: from the Home page's link, three sentences decided
with one key press each (the view opens the next undecided sentence by itself), then U on the review list."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from db.final_choice import compare
from db.models import FinalChoice
from tests.browser.journey_steps import enter_as, screenshot, settle
from tests.support.final_fixtures import build


def heading(page, key: str):
    return page.get_by_role("heading", name=key, exact=True)


def press(page, shown: str, key: str) -> None:
    """One key press on the sentence ``shown``, once the page has finished drawing it."""
    heading(page, shown).wait_for()
    settle(page)
    page.keyboard.press(key)


def test_three_sentences_with_one_key_each_then_untranslatable(database, start_app, browser_page):
    url, engine = database
    ids = build(engine)
    autos = {sid: compare(engine, sid).pick.candidate.translation_id for sid in ids["s"][:3]}
    app = start_app(url)
    page = browser_page
    enter_as(page, app, "lena", "final?show=undecided")
    heading(page, "restaurant/train/7").wait_for()
    page.get_by_text("3 of 4 undecided").wait_for()
    screenshot(page, "final-decision-view")
    for shown, following in (("restaurant/train/7", "restaurant/train/8"), ("restaurant/train/8", "restaurant/train/9")):
        press(page, shown, "1")
        heading(page, following).wait_for()
    press(page, "restaurant/train/9", "1")
    page.get_by_text("Every translated sentence has a final choice in force.").wait_for()
    page.get_by_text("0 of 4 undecided").wait_for()
    with Session(engine) as session:
        rows = session.execute(select(FinalChoice.sentence_id, FinalChoice.translation_id, FinalChoice.chosen_by)
                               .order_by(FinalChoice.id)).all()
    assert [tuple(r) for r in rows] == [(sid, autos[sid], ids["lead"]) for sid in ids["s"][:3]]

    # The lead's choice on s3 settled its review too; s4 (only marked untranslatable) is left: U decides it.
    page.goto(f"{app.url}/final?show=untranslatable")
    heading(page, "restaurant/train/10").wait_for()
    page.get_by_text("Marked untranslatable (1)").wait_for()
    press(page, "restaurant/train/10", "u")
    page.get_by_text("No sentences are marked untranslatable.").wait_for()
    with Session(engine) as session:
        last = session.scalars(select(FinalChoice).order_by(FinalChoice.id.desc())).first()
    assert (last.sentence_id, last.translation_id, last.chosen_by) == (ids["s"][3], None, ids["lead"])
