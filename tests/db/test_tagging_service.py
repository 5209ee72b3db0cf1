"""Assignment of annotators, frozen tokens, and annotation saves (version check, revisions, explicit 'no aspects')."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from corpus.tokens import TOKENIZER_SIGNATURE
from db.engine import transaction
from db.models import (
    Adjudication,
    AnnotationAssignment,
    Revision,
    TaggingItem,
    Translation,
    TranslationAssignment,
)
from db.revisions import history
from db.assignment import assign_annotators, tagging_targets
from db.tagging import NotAssigned, OwnTranslation, StaleAnnotation, my_queue, progress
from db.workflows import open_item, save_annotation
from tests.support.tagging_fixtures import (
    add_sentence,
    add_translation,
    add_user,
    project_id,
    set_project,
)

HINDI = "लेकिन स्टाफ़ हमारे साथ बहुत बुरा था।"


@pytest.fixture
def world(engine):
    """Two translators, three annotators (one also a translator), one sentence with three translations."""
    ids = {
        "asha": add_user(engine, "asha", "translator"),
        "ravi": add_user(engine, "ravi", "translator", "annotator"),
        "meera": add_user(engine, "meera", "annotator"),
        "kiran": add_user(engine, "kiran", "annotator"),
    }
    s = add_sentence(engine, "3121", "But the staff was so horrible to us.", ["staff"])
    ids["aware"] = add_translation(engine, s, "aware", ids["asha"], HINDI, aspect_map={"staff": "स्टाफ़"})
    ids["aware2"] = add_translation(engine, s, "aware", ids["ravi"], "पर स्टाफ़ हमारे साथ बहुत बुरा था।", minutes=1)
    ids["blind"] = add_translation(engine, s, "blind", ids["asha"], "पर कर्मचारी हमसे बहुत बुरे थे।", minutes=2)
    ids["sentence"] = s
    return ids


def test_each_item_gets_k_annotators_never_its_translator_and_load_is_balanced(engine, world):
    report = assign_annotators(engine, project_id(engine))
    assert report.targets == 3
    with Session(engine) as session:
        rows = session.scalars(select(AnnotationAssignment)).all()
        by_translation: dict[int, set[int]] = {}
        for r in rows:
            by_translation.setdefault(r.translation_id, set()).add(r.user_id)
        translators = {t.id: t.translator_id for t in session.scalars(select(Translation))}
    assert all(len(users) == 2 for users in by_translation.values())
    assert all(translators[t] not in users for t, users in by_translation.items())
    # ravi translated this sentence, so he tags none of its translations (see the independence test)
    loads = [sum(1 for r in rows if r.user_id == u) for u in (world["meera"], world["kiran"])]
    assert max(loads) - min(loads) <= 1
    assert assign_annotators(engine, project_id(engine)).created == 0


def test_best_scope_tags_only_each_phases_winner(engine, world):
    set_project(engine, tagging_scope="best")
    with Session(engine) as session:
        targets = {t.id for t in tagging_targets(session, project_id(engine))}
    # Two aware translations with the same mean ROUGE-L: the one that kept more aspects wins.
    assert targets == {world["aware"], world["blind"]}


def test_untranslatable_translations_are_not_tagged(engine, world):
    add_translation(engine, world["sentence"], "blind", world["ravi"], None, untranslatable=True)
    with Session(engine) as session:
        assert len(tagging_targets(session, project_id(engine))) == 3


def test_tokens_are_frozen_on_first_open_and_shared_by_every_annotator(engine, world):
    assign_annotators(engine, project_id(engine))
    with Session(engine) as session:
        pair = session.scalars(select(AnnotationAssignment.user_id)
                               .where(AnnotationAssignment.translation_id == world["aware"])).all()
    first = open_item(engine, pair[0], world["aware"])
    assert first.tokens == ["लेकिन", "स्टाफ़", "हमारे", "साथ", "बहुत", "बुरा", "था", "।"]
    with transaction(engine) as session:
        session.get(Translation, world["aware"]).text = "लेकिन स्टाफ़ बुरा था।"
    second = open_item(engine, pair[1], world["aware"])
    assert second.item_id == first.item_id
    assert second.tokens == first.tokens
    assert second.text_changed
    assert second.suggestions == []  # the map no longer matches the frozen tokens
    with Session(engine) as session:
        item = session.get(TaggingItem, first.item_id)
        assert item.tokenizer == TOKENIZER_SIGNATURE


def test_suggestions_come_from_the_aspect_map_and_source_is_shown_by_setting(engine, world):
    assign_annotators(engine, project_id(engine))
    user = my_annotator(engine, world["aware"])
    view = open_item(engine, user, world["aware"])
    assert [(s.span, s.term) for s in view.suggestions] == [((1, 2), "staff")]
    assert view.source_text == "But the staff was so horrible to us."
    assert view.source_aspects == ["staff"]
    assert view.annotation.tags == ["O"] * 8 and view.annotation.version is None
    set_project(engine, annotators_see_source=False, prefill_from_aspect_map=False)
    hidden = open_item(engine, user, world["aware"])
    assert hidden.source_text is None and hidden.source_aspects == [] and hidden.suggestions == []


def my_annotator(engine, translation_id: int) -> int:
    with Session(engine) as session:
        return session.scalars(select(AnnotationAssignment.user_id)
                               .where(AnnotationAssignment.translation_id == translation_id)
                               .order_by(AnnotationAssignment.user_id)).first()


def test_an_annotator_cannot_open_or_save_an_item_not_assigned_to_them(engine, world):
    assign_annotators(engine, project_id(engine))
    with Session(engine) as session:
        assigned = set(session.scalars(select(AnnotationAssignment.user_id)
                                       .where(AnnotationAssignment.translation_id == world["aware"])))
    outsider = ({world["ravi"], world["meera"], world["kiran"]} - assigned).pop()
    with pytest.raises(NotAssigned):
        open_item(engine, outsider, world["aware"])
    item_id = open_item(engine, assigned.pop(), world["aware"]).item_id
    with pytest.raises(NotAssigned):
        save_annotation(engine, outsider, item_id, ["O"] * 8, True, None, "submit")
    assert world["aware"] not in {q.translation_id for q in my_queue(engine, outsider)}


def test_saves_check_the_version_and_each_save_writes_a_revision(engine, world):
    assign_annotators(engine, project_id(engine))
    user = my_annotator(engine, world["aware"])
    view = open_item(engine, user, world["aware"])
    tags = ["O", "B", "O", "O", "O", "O", "O", "O"]
    first = save_annotation(engine, user, view.item_id, tags, False, None, "autosave")
    assert first.status == "draft" and first.version == 1
    second = save_annotation(engine, user, view.item_id, tags, False, first.version, "save")
    assert second.version == 2
    with pytest.raises(StaleAnnotation):
        save_annotation(engine, user, view.item_id, ["O"] * 8, True, first.version, "save")
    # a stale save of exactly what is stored (a retry, a race with the autosave) is done, nothing written
    same = save_annotation(engine, user, view.item_id, tags, False, None, "save")
    assert (same.version, same.tags) == (2, tags)
    with Session(engine) as session:
        revisions = history(session, "annotation", first.annotation_id)
    assert [(r.version, r.action) for r in revisions] == [(1, "autosave"), (2, "save")]
    assert revisions[-1].payload["tags"] == tags
    assert progress(engine, user) == (0, len(my_queue(engine, user)))


@pytest.mark.parametrize(
    ("tags", "no_aspects", "message"),
    [
        (["O"] * 8, False, "No aspects in this sentence"),
        (["O", "B", "O", "O", "O", "O", "O", "O"], True, "cannot go with"),
        (["O", "I", "O", "O", "O", "O", "O", "O"], False, "I follows O"),
        (["O"] * 7, True, "7 tags for 8 tokens"),
    ],
    ids=["empty-submit", "no-aspects-with-spans", "invalid-bio", "wrong-length"],
)
def test_submissions_that_the_method_forbids_are_refused(engine, world, tags, no_aspects, message):
    assign_annotators(engine, project_id(engine))
    user = my_annotator(engine, world["aware"])
    item_id = open_item(engine, user, world["aware"]).item_id
    with pytest.raises(ValueError, match=message):
        save_annotation(engine, user, item_id, tags, no_aspects, None, "submit")
    with Session(engine) as session:
        assert session.scalars(select(Revision)).all() == []


def test_no_aspects_is_an_explicit_submitted_answer(engine, world):
    assign_annotators(engine, project_id(engine))
    user = my_annotator(engine, world["blind"])
    view = open_item(engine, user, world["blind"])
    state = save_annotation(engine, user, view.item_id, ["O"] * len(view.tokens), True, None, "submit")
    assert state.no_aspects and state.status == "submitted"
    assert next(q for q in my_queue(engine, user) if q.translation_id == world["blind"]).status == "submitted"


def test_agreeing_submissions_become_gold_automatically(engine, world):
    assign_annotators(engine, project_id(engine))
    with Session(engine) as session:
        pair = session.scalars(select(AnnotationAssignment.user_id)
                               .where(AnnotationAssignment.translation_id == world["aware"])).all()
    tags = ["O", "B", "O", "O", "O", "O", "O", "O"]
    for user in pair:
        item_id = open_item(engine, user, world["aware"]).item_id
        save_annotation(engine, user, item_id, tags, False, None, "submit")
    with Session(engine) as session:
        gold = session.scalars(select(Adjudication).where(Adjudication.item_id == item_id)).all()
    assert [(g.source, g.tags, g.decided_by) for g in gold] == [("agreed", tags, None)]


def test_deactivating_an_annotator_moves_their_open_items_and_keeps_their_submitted_ones(engine, world):
    from db.workflows import deactivate_user

    lead = add_user(engine, "lead", "lead")
    add_user(engine, "dev", "annotator")
    assign_annotators(engine, project_id(engine))
    meera = world["meera"]
    queue = my_queue(engine, meera)
    assert len(queue) >= 2
    done, *open_items = [q.translation_id for q in queue]
    item_id = open_item(engine, meera, done).item_id
    n = len(open_item(engine, meera, done).tokens)
    save_annotation(engine, meera, item_id, ["O"] * n, True, None, "submit")

    moved = deactivate_user(engine, meera, lead)

    with Session(engine) as session:
        rows = session.scalars(select(AnnotationAssignment)).all()
        translators = {t.id: t.translator_id for t in session.scalars(select(Translation))}
    status = {(r.user_id, r.translation_id): r.status for r in rows}
    assert status[(meera, done)] == "submitted"
    assert all(status[(meera, t)] == "reassigned" for t in open_items)
    assert moved.tagging.targets == len(open_items) and moved.tagging.created == len(open_items)
    for t in [done, *open_items]:
        active = {r.user_id for r in rows if r.translation_id == t and r.status not in ("reassigned", "skipped")}
        assert len(active) == 2 and translators[t] not in active


def _assigned_users(engine, translation_id: int) -> set[int]:
    with Session(engine) as session:
        return set(session.scalars(select(AnnotationAssignment.user_id)
                                   .where(AnnotationAssignment.translation_id == translation_id)))


def test_no_path_can_assign_a_translation_to_its_own_translator(engine, world):
    with pytest.raises(OwnTranslation), transaction(engine) as session:
        session.add(AnnotationAssignment(user_id=world["asha"], translation_id=world["aware"]))
    assign_annotators(engine, project_id(engine))
    with pytest.raises(OwnTranslation), transaction(engine) as session:
        row = session.scalars(select(AnnotationAssignment)
                              .where(AnnotationAssignment.translation_id == world["aware2"])).first()
        row.user_id = world["ravi"]  # moving an assignment onto the translator is refused too
    assert world["asha"] not in _assigned_users(engine, world["aware"])
    assert world["ravi"] not in _assigned_users(engine, world["aware2"])


@pytest.mark.parametrize("status", ["assigned", "draft", "skipped", "submitted"])
def test_a_translator_of_a_sentence_never_tags_a_colleagues_translation_of_it(engine, status):
    asha = add_user(engine, "asha", "translator")
    dev = add_user(engine, "dev", "translator", "annotator")  # still has to translate this sentence blind
    meera = add_user(engine, "meera", "annotator")
    kiran = add_user(engine, "kiran", "annotator")
    s = add_sentence(engine, "1", "The staff was rude.", ["staff"])
    other = add_sentence(engine, "2", "The food was good.", ["food"])
    aware = add_translation(engine, s, "aware", asha, "स्टाफ़ बदतमीज़ था।")
    food = add_translation(engine, other, "aware", asha, "खाना अच्छा था।")
    with transaction(engine) as session:
        session.add(TranslationAssignment(user_id=dev, sentence_id=s, phase="blind", status=status))
    report = assign_annotators(engine, project_id(engine), per_item=3)
    assert _assigned_users(engine, aware) == {meera, kiran}
    assert report.short == [aware]
    assert dev in _assigned_users(engine, food)  # other sentences stay open to him


def test_a_task_taken_away_no_longer_bars_tagging_the_sentence(engine):
    asha = add_user(engine, "asha", "translator")
    dev = add_user(engine, "dev", "translator", "annotator")
    s = add_sentence(engine, "1", "The staff was rude.", ["staff"])
    aware = add_translation(engine, s, "aware", asha, "स्टाफ़ बदतमीज़ था।")
    with transaction(engine) as session:
        session.add(TranslationAssignment(user_id=dev, sentence_id=s, phase="blind", status="reassigned"))
    assign_annotators(engine, project_id(engine), per_item=1)
    assert _assigned_users(engine, aware) == {dev}


def test_rejected_suggestions_are_stored_with_the_save_and_come_back_on_open(engine, world):
    assign_annotators(engine, project_id(engine))
    user = my_annotator(engine, world["aware"])
    view = open_item(engine, user, world["aware"])
    assert view.annotation.rejected == ()
    state = save_annotation(engine, user, view.item_id, ["O"] * 8, False, None, "autosave", rejected=[(1, 2)])
    assert state.rejected == ((1, 2),)
    assert open_item(engine, user, world["aware"]).annotation.rejected == ((1, 2),)
    with pytest.raises(ValueError, match="outside the 8 tokens"):
        save_annotation(engine, user, view.item_id, ["O"] * 8, False, state.version, "save", rejected=[(7, 9)])
    with pytest.raises(StaleAnnotation) as caught:
        save_annotation(engine, user, view.item_id, ["O"] * 8, True, None, "save")
    assert caught.value.theirs.rejected == ((1, 2),)
