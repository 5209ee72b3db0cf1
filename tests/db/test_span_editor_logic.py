"""The pure parts behind the span editor: spans sent by a browser are checked, never repaired; a commit
for another item is ignored; only unacknowledged actions are replayed; the adjudicator sees where
annotators differ; queue snippets; reopening a submitted annotation keeps the revision trail."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from corpus.bio import disagreeing_tokens, parse_spans
from db.models import Annotation, AnnotationAssignment, Revision
from db.assignment import assign_annotators
from db.tagging import StaleAnnotation, my_queue, snippet
from db.workflows import open_item, reopen_annotation, save_annotation
from ui.span_editor import KEYS, keys_markdown, read_commit
from tests.support.tagging_fixtures import add_sentence, add_translation, add_user, project_id


def test_client_spans_are_sorted_and_deduplicated_but_never_repaired():
    assert parse_spans([[3, 4], [0, 2], [3, 4]], 5) == [(0, 2), (3, 4)]
    for bad in ([[0, 6]], [[2, 2]], [[-1, 1]], [[0, 1, 2]], [["0", "1"]], [[True, 2]], "0-1", [[0.0, 1]]):
        with pytest.raises(ValueError):
            parse_spans(bad, 5)
    with pytest.raises(ValueError, match="overlaps"):
        parse_spans([[0, 2], [1, 3]], 5)
    assert parse_spans([[0, 2], [1, 3]], 5, overlapping=True) == [(0, 2), (1, 3)]  # rejected suggestions may


def test_a_commit_is_read_only_for_the_item_the_editor_was_mounted_for():
    raw = {"item": 7, "seq": 3, "spans": [[1, 3]], "rejected": [],
           "actions": [{"seq": 2, "action": "mark"}, {"seq": 3, "action": "submit"}, {"seq": 4, "action": "rm -rf"}]}
    commit = read_commit(raw, 7, 5)
    assert commit.spans == [(1, 3)] and commit.actions == ((2, "mark"), (3, "submit"))
    assert read_commit(raw, 8, 5) is None  # made on item 7: never applied to item 8
    assert read_commit(None, 7, 5) is None and read_commit("mark", 7, 5) is None


def test_only_actions_after_the_last_acknowledged_one_are_replayed():
    commit = read_commit({"item": 1, "seq": 3, "spans": [], "actions": [
        {"seq": 1, "action": "mark"}, {"seq": 2, "action": "unmark"}, {"seq": 3, "action": "next"}]}, 1, 4)
    assert commit.since(0) == ["mark", "unmark", "next"]
    assert commit.since(2) == ["next"]
    assert commit.since(3) == []


def test_disagreeing_tokens_are_the_positions_where_tags_differ():
    assert disagreeing_tokens([["O", "B", "I", "O"], ["O", "B", "O", "B"]]) == [2, 3]
    assert disagreeing_tokens([["B", "O"], ["B", "O"]]) == []
    assert disagreeing_tokens([]) == []
    with pytest.raises(ValueError):
        disagreeing_tokens([["O"], ["O", "O"]])


def test_snippets_cut_at_a_space_and_never_inside_a_word():
    assert snippet("  खाना   अच्छा था। ") == "खाना अच्छा था।"
    long = "स्टाफ़ " * 20
    cut = snippet(long, limit=30)
    assert cut.endswith("…") and len(cut) <= 31 and all(w == "स्टाफ़" for w in cut[:-1].split())
    assert snippet(None) == ""


def test_the_key_table_names_every_key_the_issue_asks_for():
    table = keys_markdown()
    for key in ("Enter", "Backspace", "Ctrl+Z", "Ctrl+Shift+Z", "Tab", "X", "N", "P", "J", "K", "Ctrl+Enter",
                "Shift+←"):
        assert key in table
    assert table.count("\n") == len(KEYS) + 1


@pytest.fixture
def tagged(engine):
    asha = add_user(engine, "asha", "translator")
    meera = add_user(engine, "meera", "annotator")
    s = add_sentence(engine, "1", "The food was good.", ["food"])
    t = add_translation(engine, s, "aware", asha, "खाना अच्छा था।")
    assign_annotators(engine, project_id(engine), per_item=1)
    view = open_item(engine, meera, t)
    state = save_annotation(engine, meera, view.item_id, ["B", "O", "O", "O"], False, None, "submit")
    yield engine, meera, t, view.item_id, state
    engine.dispose()


def test_reopening_a_submitted_annotation_makes_it_a_draft_and_records_a_reopen_revision(tagged):
    engine, meera, t, item_id, submitted = tagged
    reopened = reopen_annotation(engine, meera, item_id, submitted.version)
    assert (reopened.status, reopened.tags, reopened.version) == ("draft", ["B", "O", "O", "O"], submitted.version + 1)
    assert [q.status for q in my_queue(engine, meera) if q.translation_id == t] == ["draft"]
    with Session(engine) as session:
        assert session.scalars(select(Revision.action).where(Revision.entity == "annotation")
                               .order_by(Revision.id)).all() == ["submit", "reopen"]
        assert session.scalars(select(Annotation.status)).one() == "draft"
        assert session.scalars(select(AnnotationAssignment.status)).one() == "draft"


def test_reopening_against_a_version_that_changed_meanwhile_is_refused(tagged):
    engine, meera, _, item_id, submitted = tagged
    with pytest.raises(StaleAnnotation) as refused:
        reopen_annotation(engine, meera, item_id, submitted.version - 1)
    assert refused.value.theirs.status == "submitted"
    with Session(engine) as session:
        assert session.scalars(select(Annotation.status)).one() == "submitted"
