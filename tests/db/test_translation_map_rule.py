"""The aspect map's rule inside the save: a Draft built from the editor's map (db.translation.editor_draft)
carries the words it could not place, and save_translation refuses to submit it (the page no longer
raises the service's exception itself); a draft save of the same map stores what fits."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from corpus.vocabulary import Status
from db.models import Translation
from db.translation import Draft, SubmissionRefused, editor_draft, load_task, refuse_unplaced, save_translation
from tests.support.translation_fixtures import add_sentence, add_user, assign

SOURCE = "The paneer tikka was cold but the hostess smiled."
HINDI = "पनीर टिक्का ठंडा था लेकिन होस्टेस मुस्कुराई।"


@dataclass(frozen=True)
class Marked:
    tokens: tuple[int, int] | None = None
    dropped: bool = False
    reason: str | None = None


@pytest.fixture
def aware(engine):
    sid = add_sentence(engine, "7", SOURCE, ["paneer tikka", "hostess"])
    asha = add_user(engine, "asha", "translator")
    blind, task = assign(engine, asha, sid, "blind"), assign(engine, asha, sid, "aware")
    save_translation(engine, asha, blind, Draft("अंधा अनुवाद"), expected_version=0, action="submit")
    view = load_task(engine, asha, task)
    return engine, asha, task, [(a.id, a.term) for a in view.aspects]


def test_the_editor_map_becomes_a_draft_with_character_spans(aware):
    engine, asha, task, aspects = aware
    draft = editor_draft(HINDI + " ", False, "idiom", "a note", aspects, {aspects[0][0]: Marked((0, 2)),
                                                                           aspects[1][0]: Marked((5, 6))})
    assert draft.text == HINDI  # canonical text
    assert (draft.reason, draft.note, draft.unplaced) == (None, None, ())  # not untranslatable: no reason kept
    assert [HINDI[k.start:k.end] for k in draft.links] == ["पनीर टिक्का", "होस्टेस"]
    view = save_translation(engine, asha, task, draft, expected_version=0, action="submit")
    assert view.status == Status.SUBMITTED


def test_a_submit_whose_marked_words_are_gone_is_refused_by_the_service_and_a_draft_save_stores_the_rest(aware):
    engine, asha, task, aspects = aware
    short = "पनीर टिक्का ठंडा"
    draft = editor_draft(short, False, None, None, aspects, {aspects[0][0]: Marked((0, 2)),
                                                             aspects[1][0]: Marked((5, 6))})
    assert draft.unplaced == ("the words marked for “hostess” are no longer in your translation; mark them again",)
    with pytest.raises(SubmissionRefused) as refused:
        save_translation(engine, asha, task, draft, expected_version=0, action="submit")
    assert refused.value.problems == list(draft.unplaced)
    with Session(engine) as session:
        assert session.scalars(select(Translation).where(Translation.phase == "aware")).all() == []  # nothing
    with pytest.raises(SubmissionRefused):
        refuse_unplaced(draft, "submit")  # what the page asks before it sends anything
    refuse_unplaced(draft, "autosave")  # a draft is never refused for its map
    view = save_translation(engine, asha, task, draft, expected_version=0, action="save")
    assert [short[k.start:k.end] for k in view.links] == ["पनीर टिक्का"] and view.status == Status.DRAFT


def test_an_untranslatable_sentence_is_not_refused_for_its_map(aware):
    engine, asha, task, aspects = aware
    draft = editor_draft("पनीर", True, "idiom", None, aspects, {aspects[1][0]: Marked((5, 6))})
    assert draft.unplaced and draft.reason == "idiom"
    view = save_translation(engine, asha, task, draft, expected_version=0, action="submit")
    assert view.untranslatable and view.status == Status.SUBMITTED
