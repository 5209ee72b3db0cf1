"""The sentence view in AppTest: ``pages/sentences.py?id=<row id>`` on a hand-built project (tests/support/
sentence_world.py): the source, every translation with its word-level difference from the kept one, every
annotator's tags, the gold in force, the links onward, the neighbours, a bad address and hostile text."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from db.engine import transaction
from db.final_choice import choose
from db.models import Translation
from tests.support import sentence_world as w
from tests.support.app_pages import PAGE_RUN_LIMIT_S, ROOT, built_once, copied, open_page
from tests.support.login_tokens import login_token


@pytest.fixture(scope="module")
def template(tmp_path_factory, migrated_sqlite):
    return built_once(tmp_path_factory, migrated_sqlite, w.build)


@pytest.fixture
def project(template, tmp_path, monkeypatch):
    path, ids = template
    engine = copied(path, tmp_path, monkeypatch)
    yield engine, ids
    engine.dispose()


def sentence_page(engine, ids, row_id: object, user: str = "lead") -> AppTest:
    return open_page(engine, ids[user], "pages/sentences.py", query={"id": str(row_id)})


def links(at: AppTest) -> list[tuple[str, str, str]]:
    """Every page link: (label, page file name, query string)."""
    return [(p.proto.label, p.proto.page.rsplit("/", 1)[-1], p.proto.query_string) for p in at.get("page_link")]


def diff_words(html: str) -> list[tuple[str, str]]:
    """A rendered word diff as (change, word) pairs, in order."""
    return re.findall(r'<span class="diff-(same|added|removed)"[^>]*>([^<]*)</span>', html)


def chip_tags(html: str) -> str:
    return "".join(re.findall(r'data-tag="([BIO])"', html))


def headings(at: AppTest) -> list[str]:
    """The page's title (the list) or header (a sentence)."""
    return [t.value for t in at.title] + [h.value for h in at.header]


def card(at: AppTest, key: str):
    return at.get_by_key(key)


def test_the_source_with_its_aspects_and_where_it_comes_from(project):
    engine, ids = project
    at = sentence_page(engine, ids, ids["s1"])
    assert headings(at) == ["Sentence restaurant/train/11"]
    source = next(m.value for m in at.markdown if "source-text" in m.value)
    assert 'The <mark style="background:#fff0a8">sushi</mark> was great.' in source
    assert f"Domain restaurant · split train · SemEval id 11 · row {ids['s1']}" in [c.value for c in at.caption]
    assert at.dataframe[0].value.to_dict("records") == [{"aspect term": "sushi", "polarity": "positive"}]


def test_every_translation_side_by_side_with_its_state_rouge_l_and_difference_from_the_kept_one(project):
    engine, ids = project
    at = sentence_page(engine, ids, ids["s1"])
    assert any(m.value.startswith("Kept: **aware · asha**, automatic pick, not recorded yet") for m in at.markdown)
    kept = card(at, f"sv_translation_{ids['asha_aware']}")
    assert kept.markdown[0].value == "**asha** · submitted · mean ROUGE-L 0.571 · **kept**"  # 4/7
    assert diff_words(kept.markdown[1].value) == [("same", w) for w in ("सुशी", "बहुत", "अच्छी", "थी", "।")]
    ravi = card(at, f"sv_translation_{ids['ravi_aware']}")
    assert ravi.markdown[0].value == "**ravi** · submitted · mean ROUGE-L 0.571"
    assert diff_words(ravi.markdown[1].value) == [
        ("same", "सुशी"), ("removed", "बहुत"), ("removed", "अच्छी"), ("added", "शानदार"), ("same", "थी"),
        ("same", "।")]
    uma = card(at, f"sv_translation_{ids['uma_blind']}")
    assert uma.markdown[0].value == "**uma** · submitted · mean ROUGE-L —"  # the only translated blind one
    assert diff_words(uma.markdown[1].value) == [
        ("same", "सुशी"), ("removed", "बहुत"), ("same", "अच्छी"), ("same", "थी"), ("same", "।")]
    untranslatable = card(at, f"sv_translation_{ids['asha_blind']}")
    assert untranslatable.markdown[0].value == r"**asha** · untranslatable \(idiom\) · mean ROUGE-L —"
    assert [c.value for c in untranslatable.caption] == ["No text."]
    aware, blind = card(at, "sv_phase_aware"), card(at, "sv_phase_blind")
    assert [m.value.split(" · ")[0] for m in aware.markdown if m.value.startswith("**") and "·" in m.value] == [
        "**asha**", "**ravi**"]
    assert [m.value.split(" · ")[0] for m in blind.markdown if m.value.startswith("**") and "·" in m.value] == [
        "**asha**", "**uma**"]
    assert [c.value for c in blind.caption][-1] == r"Not started: ravi \(assigned\)"
    assert not [c.value for c in aware.caption if c.value.startswith("Not started")]


def test_a_leads_final_choice_becomes_the_kept_translation_the_others_are_compared_with(project):
    engine, ids = project
    choose(engine, ids["s1"], ids["ravi_aware"], ids["lead"], expected=None)
    at = sentence_page(engine, ids, ids["s1"])
    assert any(m.value.startswith("Kept: **aware · ravi**, final choice in force \\(chosen by lena\\)")
               for m in at.markdown)
    asha = card(at, f"sv_translation_{ids['asha_aware']}")
    assert diff_words(asha.markdown[1].value) == [
        ("same", "सुशी"), ("removed", "शानदार"), ("added", "बहुत"), ("added", "अच्छी"), ("same", "थी"),
        ("same", "।")]
    assert card(at, f"sv_translation_{ids['ravi_aware']}").markdown[0].value.endswith("· **kept**")


def test_each_annotators_tags_and_the_gold_in_force_per_item(project):
    engine, ids = project
    at = sentence_page(engine, ids, ids["s1"])
    disputed = card(at, f"sv_item_{ids['disputed_item']}")
    assert disputed.markdown[0].value == f"**aware · asha** · item {ids['disputed_item']}"
    assert [c.value for c in disputed.caption] == [
        "kiran · submitted · no aspects", "meera · submitted", "No gold yet: the annotators disagree"]
    assert [chip_tags(m.value) for m in disputed.markdown if "token-chips" in m.value] == ["OOOOO", "BOOOO"]
    assert "सुशी<sub" in disputed.markdown[1].value  # the item's own tokens
    agreed = card(at, f"sv_item_{ids['agreed_item']}")
    assert [c.value for c in agreed.caption] == ["kiran · submitted", "meera · submitted", "**Gold in force** (agreed)"]
    assert [chip_tags(m.value) for m in agreed.markdown if "token-chips" in m.value] == ["BOOO"] * 3


def test_links_go_on_to_adjudicate_the_disputed_item_and_to_choose_the_final_translation(project):
    engine, ids = project
    at = sentence_page(engine, ids, ids["s1"])
    assert links(at) == [
        ("Choose the final translation", "final", f"sentence={ids['s1']}"),
        ("Adjudicate this item", "adjudicate", f"item={ids['disputed_item']}"),
    ]


def test_previous_and_next_follow_corpus_order_and_change_the_address(project):
    engine, ids = project
    at = sentence_page(engine, ids, ids["s1"])
    at.button(key="sv_next").click().run()
    assert not at.exception
    assert at.query_params["id"] in (str(ids["s2"]), [str(ids["s2"])])
    assert headings(at) == ["Sentence restaurant/train/12"] and at.button(key="sv_next").disabled
    at.button(key="sv_previous").click().run()
    at.button(key="sv_previous").click().run()
    assert headings(at) == ["Sentence restaurant/train/10"] and at.button(key="sv_previous").disabled
    assert [c.value for c in at.caption if c.value.startswith("No ")] == [
        r"No translation yet. Not started: aware · uma \(skipped\)",
        "No translation of this sentence has been opened for tagging yet."]
    at.button(key="sv_back").click().run()
    assert "id" not in at.query_params and headings(at) == ["Sentences"]


def test_the_browser_opens_the_same_view_and_puts_it_in_the_address(project):
    engine, ids = project
    at = open_page(engine, ids["lead"], "pages/sentences.py")
    assert headings(at) == ["Sentences"]
    at.selectbox(key="browse_open").select("restaurant/train/11").run()
    at.button(key="browse_open_view").click().run()
    assert not at.exception
    assert at.query_params["id"] in (str(ids["s1"]), [str(ids["s1"])])
    assert headings(at) == ["Sentence restaurant/train/11"]
    assert card(at, f"sv_item_{ids['disputed_item']}") is not None


@pytest.mark.parametrize("raw", ["abc", "", "-1", "0", "999999", str(2**40), "12abc", "<script>alert(1)</script>"])
def test_a_missing_or_invalid_id_says_so_without_a_traceback(project, raw):
    engine, ids = project
    at = sentence_page(engine, ids, raw)
    assert not at.exception
    assert len(at.error) == 1 and at.error[0].value.startswith("No sentence with id “")
    assert "in this project" in at.error[0].value and "<script>" not in at.error[0].value
    assert not headings(at) and not at.get("page_link")
    at.button(key="sv_back").click().run()
    assert headings(at) == ["Sentences"]


def test_hostile_source_translation_and_name_show_as_text(project):
    engine, ids = project
    at = sentence_page(engine, ids, ids["s2"])
    assert not at.exception
    rendered = "\n".join(m.value for m in at.markdown)
    assert "<script>" not in rendered and "<img" not in rendered and "<b>" not in rendered
    source = next(m.value for m in at.markdown if "source-text" in m.value)
    assert "&lt;script&gt;alert(1)&lt;/script&gt; nice <mark" in source
    hostile = card(at, f"sv_translation_{ids['hostile']}")
    assert hostile.markdown[0].value.startswith(r"**\<b\>mallory\</b\>** · submitted")
    assert ("same", "&lt;") in diff_words(hostile.markdown[1].value)


def test_a_translator_cannot_open_a_sentence_by_address(project):
    engine, ids = project
    at = AppTest.from_file(str(ROOT / "pages/sentences.py"), default_timeout=PAGE_RUN_LIMIT_S)
    at.session_state["session_token"] = login_token(engine, ids["asha"])
    at.query_params["id"] = str(ids["s1"])
    at.run()
    assert at.error and "do not have access" in at.error[0].value
    assert not at.markdown and not headings(at)


def test_a_draft_is_shown_as_a_draft_with_nothing_to_choose_or_compare(project):
    engine, ids = project
    with transaction(engine) as session:
        draft = Translation(sentence_id=ids["s0"], phase="aware", translator_id=ids["uma"], text="सेवा धीमी थी।",
                            status="draft")
        session.add(draft)
        session.flush()
        draft_id = draft.id
    at = sentence_page(engine, ids, ids["s0"])
    shown = card(at, f"sv_translation_{draft_id}")
    assert shown.markdown[0].value == "**uma** · draft · mean ROUGE-L —"
    assert diff_words(shown.markdown[1].value) == [("same", "सेवा"), ("same", "धीमी"), ("same", "थी"), ("same", "।")]
    assert "No translation is kept yet, so none is compared." in [c.value for c in at.caption]
    assert links(at) == []
