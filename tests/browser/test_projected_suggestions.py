"""Projected suggestions in a real browser: an aspect-blind item arrives pre-tagged (dashed) from the aspect maps of
its aware sisters; Shift+A accepts them all and Ctrl+Enter submits, and the stored annotation equals the suggestions;
on the next item, one suggestion rejected with X, Shift+A and Ctrl+Enter store the rest."""

from __future__ import annotations

import pytest
from journey_steps import enter_as, screenshot
from playwright.sync_api import expect
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from corpus.suggestions import ACCEPTED_KEY, KEYS_KEY
from db.engine import transaction
from db.models import Annotation, AnnotationAssignment, Revision, TaggingItem, Translation
from db.assignment import assign_annotators
from tests.support.tagging_fixtures import add_sentence, add_translation, add_user, project_id

pytestmark = pytest.mark.browser

ENGLISH = "The staff were nice, the miso soup was great but the seats were dirty."
# कर्मचारी अच्छे थे , मिसो सूप बढ़िया था पर सीटों पर दाग थे ।
BLIND_1 = "कर्मचारी अच्छे थे, मिसो सूप बढ़िया था पर सीटों पर दाग थे।"
# स्टाफ़ बढ़िया था और मिसो सूप भी ।
BLIND_2 = "स्टाफ़ बढ़िया था और मिसो सूप भी।"


def blind_items(engine) -> tuple[int, int, int]:
    """meera tags two blind translations of a sentence whose two aware translations have complete maps."""
    asha, ravi, neha, om = (add_user(engine, n, "translator") for n in ("asha", "ravi", "neha", "om"))
    meera = add_user(engine, "meera", "annotator")
    s = add_sentence(engine, "s1", ENGLISH, ["staff", "miso soup", "seats"])
    aware = [
        add_translation(engine, s, "aware", asha, "स्टाफ़ अच्छा था, मिसो सूप बढ़िया था पर सीटें गंदी थीं।",
                        aspect_map={"staff": "स्टाफ़", "miso soup": "मिसो सूप", "seats": "सीटें"}),
        add_translation(engine, s, "aware", ravi, "स्टाफ अच्छा था और मिसो सूप भी, पर सीटें गंदी थीं।",
                        aspect_map={"staff": "स्टाफ", "miso soup": "मिसो सूप", "seats": "सीटें"}, minutes=1),
    ]
    first = add_translation(engine, s, "blind", neha, BLIND_1, minutes=2)
    second = add_translation(engine, s, "blind", om, BLIND_2, minutes=3)
    assign_annotators(engine, project_id(engine), per_item=1)
    with transaction(engine) as session:  # meera tags the blind ones only
        session.execute(delete(AnnotationAssignment).where(AnnotationAssignment.translation_id.in_(aware)))
    return meera, first, second


def token(page, i: int):
    return page.locator(f'[data-testid="span-editor"] [data-token-index="{i}"]')


def stored(engine, translation_id: int) -> tuple[list[str], str, dict]:
    with Session(engine) as session:
        tags, status, annotation_id = session.execute(
            select(Annotation.tags, Annotation.status, Annotation.id)
            .join(TaggingItem, TaggingItem.id == Annotation.item_id)
            .where(TaggingItem.translation_id == translation_id)).one()
        payload = session.scalars(select(Revision.payload).where(Revision.entity == "annotation",
                                                                 Revision.entity_id == annotation_id)
                                  .order_by(Revision.id.desc())).first()
    return list(tags), status, payload


def test_a_blind_item_arrives_pre_tagged_and_shift_a_then_ctrl_enter_stores_the_suggestions(
        database, start_app, browser_page):
    url, engine = database
    meera, first, second = blind_items(engine)
    server = start_app(url)
    page = browser_page
    enter_as(page, server, "meera", f"tag?item={first}")
    expect(page.get_by_test_id("item-key")).to_contain_text(f"#{first}")
    for i in (4, 5, 9):  # मिसो सूप, and सीटों (सीटें inflected); कर्मचारी is a synonym no map knows
        expect(token(page, i)).to_have_attribute("data-suggested", "1")
        expect(token(page, i)).to_have_attribute("data-source", "aware")
    expect(token(page, 0)).to_have_attribute("data-suggested", "0")
    expect(token(page, 4)).to_have_attribute("data-tag", "O")  # shown, not a tag
    screenshot(page, "projected-suggestions")

    page.get_by_test_id("span-editor").focus()
    page.keyboard.press("Shift+A")  # one key: every suggestion becomes a span
    expect(token(page, 4)).to_have_attribute("data-tag", "B")
    expect(token(page, 5)).to_have_attribute("data-tag", "I")
    expect(token(page, 9)).to_have_attribute("data-tag", "B")
    page.keyboard.press("Control+Enter")
    expect(page.get_by_test_id("item-key")).to_contain_text(f"#{second}")  # the next unfinished item opens
    tags, status, payload = stored(engine, first)
    expected = ["O"] * 14
    expected[4], expected[5], expected[9] = "B", "I", "B"
    assert (tags, status) == (expected, "submitted")
    assert payload[ACCEPTED_KEY] == {"aware": 2}
    assert payload[KEYS_KEY] >= 2

    # the next item: स्टाफ़ and मिसो सूप suggested; X rejects स्टाफ़, Shift+A and Ctrl+Enter store the rest
    expect(token(page, 0)).to_have_attribute("data-suggested", "1")
    expect(token(page, 4)).to_have_attribute("data-suggested", "1")
    page.get_by_test_id("span-editor").focus()
    page.keyboard.press("Tab")
    expect(token(page, 0)).to_have_attribute("data-active", "1")
    page.keyboard.press("x")
    expect(token(page, 0)).to_have_attribute("data-suggested", "0")
    page.keyboard.press("Shift+A")
    expect(token(page, 4)).to_have_attribute("data-tag", "B")
    page.keyboard.press("Control+Enter")
    expect(page.get_by_test_id("save-state")).to_contain_text("Submitted")
    tags, status, payload = stored(engine, second)
    assert (tags, status) == (["O", "O", "O", "O", "B", "I", "O", "O"], "submitted")
    assert payload["rejected_suggestions"] == [[0, 1]]
    assert payload[ACCEPTED_KEY] == {"aware": 1}
    with Session(engine) as session:
        assert session.scalar(select(Translation.phase).where(Translation.id == second)) == "blind"
