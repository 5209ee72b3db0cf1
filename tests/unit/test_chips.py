"""Token chips and marked source text escape every user string: no raw HTML reaches the page.

The tokenizer splits ``<img ...>`` into ``<``, ``img``, ... so a real translation cannot put a whole tag
into one chip; these tests hand the HTML builders unsplit strings directly."""

from __future__ import annotations

from ui.chips import marked_text, token_chips

PAYLOAD = '<img src=x onerror="alert(1)">'
ESCAPED = "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;"


def test_token_chips_escape_tokens_in_every_kind_of_chip():
    tokens = [PAYLOAD, "स्टाफ़", PAYLOAD, "<script>alert(2)</script>", "&amp;"]
    html = token_chips(tokens, spans=[(1, 3)], suggested=[(0, 1)])
    assert "<img" not in html and "<script" not in html
    assert html.count(ESCAPED) == 2  # a suggestion chip and an aspect (I) chip
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in html
    assert "&amp;amp;" in html  # an entity in the text stays text
    assert 'data-tag="I"' in html and "suggestion" in html


def test_token_chips_mark_the_tokens_the_annotators_differ_on_and_still_escape_them():
    tokens = ["लेकिन", PAYLOAD, "सर्विस", "&"]
    html = token_chips(tokens, spans=[(1, 3)], differ=[2, 3])
    assert "<img" not in html and html.count(ESCAPED) == 1 and "&amp;<sub" in html
    chips = html.split('<span class="tok"')[1:]
    assert ['data-differ="1"' in c for c in chips] == [False, False, True, True]
    assert ['annotators differ' in c for c in chips] == [False, False, True, True]
    assert 'title="token 3: I · annotators differ"' in chips[2] and 'title="token 4: O · annotators differ"' in chips[3]
    assert token_chips(tokens, spans=[(1, 3)]) == token_chips(tokens, spans=[(1, 3)], differ=())  # optional


def test_marked_text_escapes_the_source_inside_and_outside_highlights():
    text = f"The {PAYLOAD} staff & <b>food</b>"
    start = text.index(PAYLOAD)
    html = marked_text(text, [(start, start + len(PAYLOAD)), (text.index("<b>"), len(text))])
    assert "<img" not in html and "<b>" not in html
    assert f'<mark style="background:#fff0a8">{ESCAPED}</mark>' in html
    assert "staff &amp; " in html and "&lt;b&gt;food&lt;/b&gt;</mark>" in html


def test_marked_text_merges_overlapping_aspects_into_one_mark():
    """The Tag, Adjudication, Translate and Sentences pages all mark the source this way (corpus.highlight)."""
    text = "the staff service & food"
    staff = (text.index("staff"), text.index("staff") + 5)
    staff_service = (staff[0], text.index("service") + 7)
    html = marked_text(text, [staff, staff_service, (text.index("food"), len(text))])
    assert html.count("<mark") == 2
    assert '<mark style="background:#fff0a8">staff service</mark> &amp; <mark' in html
    assert ">staff</mark>" not in html
