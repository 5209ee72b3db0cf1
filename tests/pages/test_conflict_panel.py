"""The one conflict panel (ui/conflict.py) every editor page shows when someone saved first: what happened
with who and when, both versions as text (never HTML or Markdown from the versions), and the two ways out."""

from __future__ import annotations

import re
from datetime import datetime

from streamlit.testing.v1 import AppTest

from db.adjudication import StaleDecision
from db.conflicts import SavedFirst
from db.final_choice import StaleChoice
from db.tagging import StaleAnnotation
from db.translation import StaleTranslation
from tests.support.app_pages import PAGE_RUN_LIMIT_S
from ui.conflict import headline, saved_by

HOSTILE = '<img src=x onerror="alert(1)"> **bold** :red[x] [link](http://example.org)'


def plain(value: str) -> str:
    """A Markdown message as the reader sees it: md_escape's backslashes (and its word joiner in URLs) removed."""
    return re.sub(r"\\(.)", r"\1", value).replace("\u2060", "")


def _panel_script() -> None:
    from datetime import datetime

    import streamlit as st

    from db.conflicts import SavedFirst
    from ui.conflict import Choice, Side, conflict_panel

    hostile = '<img src=x onerror="alert(1)"> **bold** :red[x] [link](http://example.org)'

    def chose(what: str) -> None:
        st.session_state["chosen"] = what

    conflict = SavedFirst(f"{hostile} saved this first", mine="mine", theirs="theirs", who=hostile,
                          when=datetime(2026, 1, 2, 3, 4, 5))
    conflict_panel(
        conflict,
        Side("Your version (not saved)", [hostile, ""], note=hostile),
        Side("Saved version 2", ["स्टाफ़ सर्विस"]),
        replace_with_mine=Choice("Keep mine", "keep_mine", chose, ("mine",)),
        keep_theirs=Choice("Use the saved version", "take_theirs", chose, ("theirs",)),
    )


def _panel() -> AppTest:
    at = AppTest.from_function(_panel_script, default_timeout=PAGE_RUN_LIMIT_S)
    at.run()
    assert not at.exception, at.exception
    return at


def test_the_panel_shows_both_versions_as_text_and_who_saved_first_when():
    at = _panel()
    (warning,) = at.warning
    assert plain(warning.value) == (f"{HOSTILE} saved this first. Nothing was overwritten: compare the two versions "
                                    "and choose which one to keep.")
    assert [t.value for t in at.text] == [HOSTILE, "(empty)", "स्टाफ़ सर्विस"]  # versions: text elements
    assert [plain(m.value) for m in at.markdown] == ["**Your version (not saved)**", "**Saved version 2**"]
    assert [plain(c.value) for c in at.caption] == [HOSTILE, f"saved by {HOSTILE} at 2026-01-02 03:04:05 UTC"]


def test_every_user_string_in_markdown_is_escaped():
    at = _panel()
    for element in [*at.warning, *at.markdown, *at.caption]:
        assert not re.search(r"(?<!\\)<img", element.value) and "**bold**" not in element.value
        assert ":red[" not in element.value and "](http" not in element.value


def test_the_buttons_run_the_pages_callbacks():
    at = _panel()
    assert [b.label for b in at.button] == ["Keep mine", "Use the saved version"]
    at.button(key="keep_mine").click().run()
    assert at.session_state["chosen"] == "mine"
    at.button(key="take_theirs").click().run()
    assert at.session_state["chosen"] == "theirs"


def test_every_saved_first_exception_is_one_family():
    """A page or the load generator can catch any of them as SavedFirst; the old names still work."""
    for kind in (StaleTranslation, StaleAnnotation, StaleDecision, StaleChoice):
        assert issubclass(kind, SavedFirst) and issubclass(kind, RuntimeError), kind


def test_who_and_when_read_as_one_phrase():
    when = datetime(2026, 1, 2, 3, 4, 5)
    assert saved_by(SavedFirst("x", mine=1, theirs=2, who="omar", when=when)) == \
        "saved by omar at 2026-01-02 03:04:05 UTC"
    assert saved_by(SavedFirst("x", mine=1, theirs=2, when=when)) == "saved at 2026-01-02 03:04:05 UTC"
    assert saved_by(SavedFirst("x", mine=1, theirs=2, who="the automatic rule")) == "saved by the automatic rule"
    assert saved_by(SavedFirst("x", mine=1, theirs=None)) is None
    assert headline(SavedFirst("the gold changed.", mine=1, theirs=2)).startswith("The gold changed. Nothing was")
