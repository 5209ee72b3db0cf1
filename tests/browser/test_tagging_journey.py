"""Real-browser journeys for tagging: an annotator marks two spans and submits; HTML in a translation
stays inert text in the tagging and adjudication views."""

from __future__ import annotations

import pytest
from journey_steps import enter_as, login, screenshot
from playwright.sync_api import expect
from sqlalchemy import select
from sqlalchemy.orm import Session

from db.models import Annotation, Revision
from db.assignment import assign_annotators
from db.workflows import open_item, save_annotation
from tests.support.tagging_fixtures import PASSWORD, add_sentence, add_translation, add_user, project_id, set_project

pytestmark = pytest.mark.browser

HINDI = "लेकिन स्टाफ़ सर्विस और खाना बहुत बुरा था।"  # लेकिन स्टाफ़ सर्विस और खाना बहुत बुरा था ।
XSS_TEXT = '<script>window.__xss=1</script> स्टाफ़ <img src=x onerror="window.__xss=2"> बुरा था।'
XSS_TERM = '<img src=y onerror="window.__xss=3">'
XSS_SOURCE = f"The <b>staff</b> {XSS_TERM} was bad."
# Usernames allow no spaces, but these pass that rule and would run if a page put them into HTML unescaped.
XSS_ANNOTATOR = "<img/src/onerror=window.__xss=4>"
XSS_TRANSLATOR = "<svg/onload=window.__xss=5>"


def open_tagging(page, server, username: str) -> None:
    enter_as(page, server, username, "tag")
    page.get_by_role("heading", name="Tag aspects").wait_for()


def token(page, i: int):
    return page.locator(f'[data-testid="span-editor"] [data-token-index="{i}"]')


def test_annotator_tags_two_spans_in_a_hindi_sentence_and_submits(database, start_app, browser_page):
    url, engine = database
    set_project(engine, prefill_from_aspect_map=False)
    asha = add_user(engine, "asha", "translator")
    meera = add_user(engine, "meera", "annotator")
    s = add_sentence(engine, "1", "But the staff service and the food were very bad.", ["staff service", "food"])
    add_translation(engine, s, "aware", asha, HINDI)
    assign_annotators(engine, project_id(engine), per_item=1)

    server = start_app(url)
    page = browser_page
    open_tagging(page, server, "meera")
    token(page, 0).wait_for()  # the editor mounts after the page's first run
    expect(page.locator('[data-testid="span-editor"] [data-token-index]')).to_have_text([
        "लेकिन", "स्टाफ़", "सर्विस", "और", "खाना", "बहुत", "बुरा", "था", "।"])  # exactly the frozen tokens
    token(page, 1).click()
    token(page, 2).click(modifiers=["Shift"])
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("save-state")).to_contain_text("Draft saved · version 1")
    expect(token(page, 2)).to_have_attribute("data-tag", "I")
    token(page, 4).click()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("save-state")).to_contain_text("Draft saved · version 2")
    expect(token(page, 4)).to_have_attribute("data-tag", "B")
    screenshot(page, "tagging-two-spans")
    page.get_by_role("button", name="Submit").click()
    page.get_by_text("1 of 1 submitted").wait_for()
    expect(page.get_by_test_id("save-state")).to_contain_text("Submitted")
    screenshot(page, "tagging-submitted")

    with Session(engine) as session:
        annotation = session.scalars(select(Annotation).where(Annotation.annotator_id == meera)).one()
        actions = session.scalars(select(Revision.action).where(Revision.entity == "annotation")).all()
    assert annotation.tags == ["O", "B", "I", "O", "B", "O", "O", "O", "O"]
    assert (annotation.status, annotation.no_aspects) == ("submitted", False)
    assert actions == ["autosave", "autosave", "submit"]


def assert_inert(page, tokens=".token-chips") -> None:
    page.wait_for_timeout(500)  # give an injected handler time to run
    assert page.evaluate("window.__xss") is None
    assert page.locator("img[onerror], svg[onload]").count() == 0
    assert page.locator("b", has_text="staff").count() == 0
    chips = page.locator(tokens).first.inner_text()
    assert "<" in chips and "script" in chips and "onerror" in chips


def test_html_in_a_translation_renders_as_text_in_tagging_and_adjudication(database, start_app, browser_page):
    url, engine = database
    asha = add_user(engine, XSS_TRANSLATOR, "translator")
    meera = add_user(engine, "meera", "annotator")
    kiran = add_user(engine, XSS_ANNOTATOR, "annotator")
    add_user(engine, "lena", "lead")
    s = add_sentence(engine, "x1", XSS_SOURCE, ["staff", XSS_TERM])
    t = add_translation(engine, s, "aware", asha, XSS_TEXT, aspect_map={"staff": "स्टाफ़", XSS_TERM: "बुरा"})
    assign_annotators(engine, project_id(engine), per_item=2)
    view = open_item(engine, kiran, t)
    staff = view.tokens.index("स्टाफ़")
    tags = ["O"] * len(view.tokens)
    tags[staff] = "B"
    save_annotation(engine, kiran, view.item_id, tags, False, None, "submit")
    save_annotation(engine, meera, view.item_id, ["O"] * len(view.tokens), True, None, "submit")
    # the two answers differ, so the item is in the lead's adjudication queue
    dialogs: list[str] = []

    server = start_app(url)
    page = browser_page
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    open_tagging(page, server, "meera")
    page.locator(".source-text").wait_for()
    assert "<b>staff</b>" in page.locator(".source-text").inner_text()
    assert page.locator(".source-text mark").nth(1).inner_text() == XSS_TERM  # whole, unsplit, as text
    suggested = page.locator('[data-testid="span-editor"] [data-suggested="1"]').last  # बुरा, for the HTML term
    expect(suggested).to_have_attribute("title", f"suggested for “{XSS_TERM}”")  # the term, as text
    assert_inert(page, '[data-testid="span-editor"] .se-tokens')
    screenshot(page, "xss-tagging-view")

    page.get_by_role("button", name="Log out").click()
    # The login form, not the address: loading / before the logout has cleared the cookie opens meera's pages.
    page.get_by_role("button", name="Log in", exact=True).wait_for()
    login(page, server.url, "lena", PASSWORD)
    page.get_by_role("link", name="Adjudication").click()
    page.get_by_role("heading", name="Annotators side by side").wait_for()
    expect(page.locator(".token-chips")).to_have_count(2)  # waits: the chips render after the heading
    expect(page.get_by_text(XSS_ANNOTATOR, exact=True)).to_be_visible()  # the annotator's name, as text
    expect(page.get_by_role("button", name=f"Accept {XSS_ANNOTATOR}'s version")).to_be_visible()
    assert f"by {XSS_TRANSLATOR}" in page.get_by_role("combobox", name="Item").input_value()  # the translator
    gold_editor = page.get_by_test_id("span-editor")  # the lead edits gold in the same editor
    expect(gold_editor.locator(f'[data-token-index="{staff}"]')).to_have_attribute("data-disagree", "1")
    expect(gold_editor.locator('[data-disagree="1"]')).to_have_count(1)  # only where the two differ
    assert_inert(page)
    assert "script" in gold_editor.locator(".se-tokens").inner_text()
    screenshot(page, "xss-adjudication-view")
    assert dialogs == []
