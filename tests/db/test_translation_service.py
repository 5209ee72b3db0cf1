"""The translation service: ownership, blindness, drafts with revisions, submission rules, optimistic lock."""

from __future__ import annotations

import unicodedata

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from corpus.guidelines import guidelines_version
from corpus.tokens import tokenize_with_offsets
from db.engine import transaction
from db.models import AspectAlignment, Revision, Translation, TranslationAssignment
from db.revisions import history
from db.translation import (
    MAX_TEXT_CHARS,
    Draft,
    InputRefused,
    LinkDraft,
    StaleTranslation,
    SubmissionRefused,
    TaskLocked,
    TaskNotFound,
    canonical_text,
    load_task,
    save_translation,
    skip_task,
)
from tests.support.translation_fixtures import add_sentence, add_user, assign

SOURCE = "The paneer tikka was cold but the hostess smiled."
HINDI = "पनीर टिक्का ठंडा था लेकिन होस्टेस मुस्कुराई।"


@pytest.fixture
def world(engine):
    sid = add_sentence(engine, "7", SOURCE, ["paneer tikka", "hostess"])
    asha = add_user(engine, "asha", "translator")
    ravi = add_user(engine, "ravi", "translator")
    return {
        "engine": engine, "sid": sid, "asha": asha, "ravi": ravi,
        "asha_blind": assign(engine, asha, sid, "blind"),
        "asha_aware": assign(engine, asha, sid, "aware"),
        "ravi_blind": assign(engine, ravi, sid, "blind"),
    }


def _span(text: str, words: str) -> tuple[int, int]:
    start = text.index(words)
    return start, start + len(words)


def _aware_links(view, text):
    by_term = {a.term: a.id for a in view.aspects}
    s1, e1 = _span(text, "पनीर टिक्का")
    s2, e2 = _span(text, "होस्टेस")
    return (LinkDraft(by_term["paneer tikka"], s1, e1), LinkDraft(by_term["hostess"], s2, e2))


def test_blind_task_carries_no_aspect_data(world):
    view = load_task(world["engine"], world["asha"], world["asha_blind"])
    assert view.phase == "blind" and view.source_text == SOURCE
    assert view.aspects == () and view.links == ()


def test_aware_task_is_locked_until_blind_is_submitted(world):
    e, asha = world["engine"], world["asha"]
    with pytest.raises(TaskLocked):
        load_task(e, asha, world["asha_aware"])
    with pytest.raises(TaskLocked):
        save_translation(e, asha, world["asha_aware"], Draft("x"), expected_version=0)
    save_translation(e, asha, world["asha_blind"], Draft("पहला अनुवाद"), expected_version=0, action="autosave")
    with pytest.raises(TaskLocked):
        load_task(e, asha, world["asha_aware"])
    save_translation(e, asha, world["asha_blind"], Draft("पहला अनुवाद"), expected_version=1, action="submit")
    view = load_task(e, asha, world["asha_aware"])
    assert [a.term for a in view.aspects] == ["paneer tikka", "hostess"]


def test_translator_cannot_reach_another_translators_task(world):
    e = world["engine"]
    save_translation(e, world["ravi"], world["ravi_blind"], Draft("रवि का अनुवाद"), expected_version=0)
    with pytest.raises(TaskNotFound):
        load_task(e, world["asha"], world["ravi_blind"])
    with pytest.raises(TaskNotFound):
        save_translation(e, world["asha"], world["ravi_blind"], Draft("hijack"), expected_version=1)
    with pytest.raises(TaskNotFound):
        skip_task(e, world["asha"], world["ravi_blind"])
    # Asha's own blind task of the same sentence shows only her (empty) work, not Ravi's.
    assert load_task(e, world["asha"], world["asha_blind"]).text == ""
    with Session(e) as session:
        assert session.scalars(select(Translation.text)).all() == ["रवि का अनुवाद"]


def test_every_save_writes_a_revision_and_bumps_the_version(world):
    e, asha, task = world["engine"], world["asha"], world["asha_blind"]
    v1 = save_translation(e, asha, task, Draft("पहला"), expected_version=0, action="autosave", elapsed_s=12)
    v2 = save_translation(e, asha, task, Draft("पहला मसौदा"), expected_version=v1.version, action="save", elapsed_s=30)
    v3 = save_translation(e, asha, task, Draft("अंतिम अनुवाद"), expected_version=v2.version, action="submit",
                          elapsed_s=5000)
    assert (v1.version, v2.version, v3.version) == (1, 2, 3)
    assert v3.translation_status == "submitted" and v3.status == "submitted"
    assert v3.time_spent_s == pytest.approx(12 + 30 + 900)  # one long gap counts at most 15 minutes
    assert v3.guidelines_version == guidelines_version()
    with Session(e) as session:
        revs = history(session, "translation", v3.translation_id)
    assert [(r.action, r.version, r.payload["text"]) for r in revs] == [
        ("autosave", 1, "पहला"), ("save", 2, "पहला मसौदा"), ("submit", 3, "अंतिम अनुवाद"),
    ]
    with pytest.raises(SubmissionRefused, match="already submitted"):
        save_translation(e, asha, task, Draft("बदला"), expected_version=3)


@pytest.mark.parametrize("text", ["", "   ", "\n\t "])
def test_empty_submission_is_refused(world, text):
    with pytest.raises(SubmissionRefused, match="empty"):
        save_translation(world["engine"], world["asha"], world["asha_blind"], Draft(text), expected_version=0,
                         action="submit")
    with Session(world["engine"]) as session:
        assert session.scalars(select(Translation)).all() == []


def test_text_is_stored_nfc_and_trimmed(world):
    # ऩ and é compose under NFC (क़ does not: it is a composition exclusion).
    decomposed = "  न\u093cया Cafe\u0301 अच्छा था  "
    assert decomposed != unicodedata.normalize("NFC", decomposed)
    view = save_translation(world["engine"], world["asha"], world["asha_blind"], Draft(decomposed),
                            expected_version=0, action="submit")
    assert view.text == "\u0929या Caf\u00e9 अच्छा था"


def test_untranslatable_needs_reason_and_note_for_other(world):
    e, asha, task = world["engine"], world["asha"], world["asha_blind"]
    with pytest.raises(SubmissionRefused, match="choose why"):
        save_translation(e, asha, task, Draft("", untranslatable=True), expected_version=0, action="submit")
    with pytest.raises(SubmissionRefused, match="note"):
        save_translation(e, asha, task, Draft("", untranslatable=True, reason="other"), expected_version=0,
                         action="submit")
    with pytest.raises(ValueError, match="reason must be one of"):
        save_translation(e, asha, task, Draft("", untranslatable=True, reason="lazy"), expected_version=0)
    view = save_translation(e, asha, task, Draft("कुछ", untranslatable=True, reason="idiom", note="“boy oh boy”"),
                            expected_version=0, action="submit")
    assert view.untranslatable and view.reason == "idiom" and view.note == "“boy oh boy”"
    assert view.text == ""  # stored as NULL, as the work file expects


@pytest.fixture
def any_world(any_engine):
    sid = add_sentence(any_engine, "7", SOURCE, ["paneer tikka", "hostess"])
    asha = add_user(any_engine, "asha", "translator")
    return {"engine": any_engine, "sid": sid, "asha": asha,
            "asha_blind": assign(any_engine, asha, sid, "blind"),
            "asha_aware": assign(any_engine, asha, sid, "aware")}


@pytest.mark.parametrize("action", ["autosave", "submit"])
@pytest.mark.parametrize(
    ("draft", "message"),
    [
        (Draft("", untranslatable=True, reason="other", note="bad\x07note"), r"'note' contains a control"),
        (Draft("क" * (MAX_TEXT_CHARS + 1)), "10,001 characters long \\(at most 10,000\\)"),
        (Draft("", untranslatable=True, reason="other", note="n" * (MAX_TEXT_CHARS + 1)), "note is 10,001"),
    ],
    ids=["bell-in-note", "long-text", "long-note"],
)
def test_unstorable_input_is_refused_with_a_message_and_nothing_saved(any_world, draft, message, action):
    e, asha = any_world["engine"], any_world["asha"]
    with pytest.raises(InputRefused, match=message):
        save_translation(e, asha, any_world["asha_blind"], draft, expected_version=0, action=action)
    with Session(e) as session:
        assert session.scalars(select(Translation)).all() == []
        assert session.scalars(select(Revision)).all() == []
        assert session.scalars(select(TranslationAssignment.status).where(
            TranslationAssignment.id == any_world["asha_blind"])).one() == "assigned"


def test_aware_drop_reason_with_a_control_character_is_refused(any_world):
    e, asha = any_world["engine"], any_world["asha"]
    save_translation(e, asha, any_world["asha_blind"], Draft("अंधा"), expected_version=0, action="submit")
    view = load_task(e, asha, any_world["asha_aware"])
    links = tuple(LinkDraft(a.id, dropped=True, reason="gone\x00") for a in view.aspects)
    with pytest.raises(InputRefused, match="'reason for dropping a term' contains a control character"):
        save_translation(e, asha, any_world["asha_aware"], Draft(HINDI, links=links), expected_version=0)
    assert load_task(e, asha, any_world["asha_aware"]).version == 0


def test_longest_allowed_text_with_tabs_and_newlines_is_stored_on_one_line(any_world):
    text = ("अच्छा\tखाना\n" * MAX_TEXT_CHARS)[:MAX_TEXT_CHARS - 1] + "।"
    view = save_translation(any_world["engine"], any_world["asha"], any_world["asha_blind"], Draft(text),
                            expected_version=0, action="submit")
    assert view.text == text.replace("\t", " ").replace("\n", " ") and len(view.text) == MAX_TEXT_CHARS


@pytest.mark.parametrize("action", ["autosave", "submit"])
def test_line_breaks_become_spaces_and_other_controls_go_when_a_translation_is_saved(any_world, action):
    """Issue 28: a carriage return inside a translation shifted every SemEval offset after it."""
    e, asha = any_world["engine"], any_world["asha"]
    draft = Draft("पनीर\r\nठंडा\x00 था\u2028और\x1b[31m बासी\x85भी\r")
    view = save_translation(e, asha, any_world["asha_blind"], draft, expected_version=0, action=action)
    assert view.text == "पनीर ठंडा था और[31m बासी भी"
    with Session(e) as session:
        assert session.scalars(select(Translation.text)).one() == "पनीर ठंडा था और[31m बासी भी"


def _submit_blind(world):
    save_translation(world["engine"], world["asha"], world["asha_blind"], Draft("अंधा अनुवाद"),
                     expected_version=0, action="submit")


def test_aware_submission_stores_aspect_map_as_char_spans(world):
    _submit_blind(world)
    e, asha, task = world["engine"], world["asha"], world["asha_aware"]
    view = load_task(e, asha, task)
    links = _aware_links(view, HINDI)
    saved = save_translation(e, asha, task, Draft(HINDI, links=links), expected_version=0, action="submit")
    with Session(e) as session:
        rows = session.scalars(select(AspectAlignment).order_by(AspectAlignment.aspect_term_id)).all()
    assert [HINDI[r.start:r.end] for r in rows] == ["पनीर टिक्का", "होस्टेस"]
    assert saved.links == tuple(sorted(links, key=lambda x: x.aspect_term_id))


def test_aware_submission_requires_every_aspect_mapped_or_dropped_with_reason(world):
    _submit_blind(world)
    e, asha, task = world["engine"], world["asha"], world["asha_aware"]
    view = load_task(e, asha, task)
    first, second = _aware_links(view, HINDI)
    with pytest.raises(SubmissionRefused, match="hostess"):
        save_translation(e, asha, task, Draft(HINDI, links=(first,)), expected_version=0, action="submit")
    dropped = LinkDraft(second.aspect_term_id, dropped=True)
    with pytest.raises(SubmissionRefused, match="why “hostess” was dropped"):
        save_translation(e, asha, task, Draft(HINDI, links=(first, dropped)), expected_version=0, action="submit")
    dropped = LinkDraft(second.aspect_term_id, dropped=True, reason="merged into the verb")
    view = save_translation(e, asha, task, Draft(HINDI, links=(first, dropped)), expected_version=0,
                            action="submit")
    assert [link.dropped for link in view.links] == [False, True]


def test_map_that_no_longer_fits_the_text_is_refused_on_submit_and_kept_out_of_drafts(world):
    _submit_blind(world)
    e, asha, task = world["engine"], world["asha"], world["asha_aware"]
    view = load_task(e, asha, task)
    links = _aware_links(view, HINDI)
    v = save_translation(e, asha, task, Draft(HINDI, links=links), expected_version=0, action="autosave")
    changed = "ठंडा " + HINDI  # offsets shift: the old spans fall mid-word
    with pytest.raises(SubmissionRefused, match="no longer match"):
        save_translation(e, asha, task, Draft(changed, links=links), expected_version=v.version, action="submit")
    v2 = save_translation(e, asha, task, Draft(changed, links=links), expected_version=v.version)
    assert all(changed[link.start:link.end] in {"पनीर टिक्का", "होस्टेस"} for link in v2.links)


def test_map_spans_must_sit_on_token_boundaries(world):
    _submit_blind(world)
    e, asha, task = world["engine"], world["asha"], world["asha_aware"]
    view = load_task(e, asha, task)
    tokens = tokenize_with_offsets(HINDI)
    inside = LinkDraft(view.aspects[0].id, tokens[0].start + 1, tokens[0].end)
    v = save_translation(e, asha, task, Draft(HINDI, links=(inside,)), expected_version=0)
    assert v.links == ()


def test_blind_save_refuses_an_aspect_map(world):
    with pytest.raises(ValueError, match="no aspect map"):
        save_translation(world["engine"], world["asha"], world["asha_blind"],
                         Draft("x", links=(LinkDraft(1, 0, 1),)), expected_version=0)


def test_stale_save_does_not_overwrite_and_reports_both_versions(world):
    e, asha, task = world["engine"], world["asha"], world["asha_blind"]
    v1 = save_translation(e, asha, task, Draft("पहला"), expected_version=0)
    save_translation(e, asha, task, Draft("दूसरी खिड़की से"), expected_version=v1.version)  # another tab
    with pytest.raises(StaleTranslation) as info:
        save_translation(e, asha, task, Draft("पुरानी खिड़की से"), expected_version=v1.version)
    assert info.value.mine.text == "पुरानी खिड़की से"
    assert info.value.theirs.text == "दूसरी खिड़की से" and info.value.theirs.version == 2
    assert load_task(e, asha, task).text == "दूसरी खिड़की से"
    with pytest.raises(StaleTranslation):  # a first save racing an existing row
        save_translation(e, asha, task, Draft("नया"), expected_version=0)


def test_skipping_the_blind_task_does_not_open_the_aware_one(world):
    e, asha = world["engine"], world["asha"]
    save_translation(e, asha, world["asha_blind"], Draft("आधा"), expected_version=0)
    skip_task(e, asha, world["asha_blind"])
    with pytest.raises(TaskLocked, match="submit your blind translation"):
        load_task(e, asha, world["asha_aware"])
    with pytest.raises(TaskLocked):
        save_translation(e, asha, world["asha_aware"], Draft("देखा"), expected_version=0)
    # The skipped blind task can still be finished, and only then does the aware one open.
    view = load_task(e, asha, world["asha_blind"])
    assert view.status == "skipped" and view.text == "आधा"
    save_translation(e, asha, world["asha_blind"], Draft("पूरा अनुवाद"), expected_version=view.version,
                     action="submit")
    assert [a.term for a in load_task(e, asha, world["asha_aware"]).aspects] == ["paneer tikka", "hostess"]
    with Session(e) as session:
        statuses = dict(session.execute(select(TranslationAssignment.phase, TranslationAssignment.status).where(
            TranslationAssignment.user_id == asha)).all())
    assert statuses == {"blind": "submitted", "aware": "assigned"}


def test_blind_task_stays_locked_once_an_aware_translation_exists(world):
    e, asha = world["engine"], world["asha"]
    with transaction(e) as session:  # e.g. imported from a work file: the aspects were seen
        session.add(Translation(sentence_id=world["sid"], phase="aware", translator_id=asha, status="draft",
                                text="देखा"))
    with pytest.raises(TaskLocked, match="already worked on the aware"):
        load_task(e, asha, world["asha_blind"])
    with pytest.raises(TaskLocked):
        save_translation(e, asha, world["asha_blind"], Draft("अंधा"), expected_version=0)


def test_canonical_text():
    assert canonical_text(None) == ""
    assert canonical_text("  ab \n") == "ab"


def test_revision_rows_hold_full_snapshot(world):
    _submit_blind(world)
    e, asha, task = world["engine"], world["asha"], world["asha_aware"]
    view = load_task(e, asha, task)
    save_translation(e, asha, task, Draft(HINDI, links=_aware_links(view, HINDI)), expected_version=0,
                     action="submit")
    with Session(e) as session:
        rev = session.scalars(select(Revision).order_by(Revision.id.desc())).first()
    assert rev.action == "submit" and rev.payload["phase"] == "aware"
    assert [m["term"] for m in rev.payload["aspect_map"]] == ["paneer tikka", "hostess"]
    assert rev.payload["sentence"] == {"domain": "restaurant", "split": "train", "id": "7"}


# ----------------------------------------------------------------------------- the map as the page builds it

from corpus.aspect_map import NotContiguous, relocate, selection_to_span, span_to_selection  # noqa: E402


def test_selection_to_span_and_back():
    tokens = tokenize_with_offsets(HINDI)
    span = selection_to_span(tokens, [1, 0])
    assert HINDI[span[0]:span[1]] == "पनीर टिक्का"
    assert span_to_selection(tokens, *span) == [0, 1]
    assert selection_to_span(tokens, []) is None
    with pytest.raises(NotContiguous):
        selection_to_span(tokens, [0, 2])
    assert span_to_selection(tokens, span[0] + 1, span[1]) == []  # mid-word: does not fit
    assert span_to_selection(tokens, None, None) == []


@pytest.mark.parametrize(
    ("old", "chosen", "new", "expected"),
    [
        (["a", "b", "c"], [1, 2], ["x", "a", "b", "c"], [2, 3]),  # words inserted before
        (["a", "b", "c"], [1], ["a", "c"], []),  # the word is gone
        (["b", "x", "b"], [2], ["b", "x", "b", "y"], [2]),  # nearest of two occurrences
        (["a"], [], ["a"], []),
    ],
)
def test_relocate_selection_after_an_edit(old, chosen, new, expected):
    assert relocate(old, chosen, new) == expected
