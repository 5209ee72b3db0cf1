"""Imports that went wrong quietly (issue 28): a file whose texts are already in another split of its
domain is refused, naming the first sentences, unless duplicates are allowed; an import nobody has worked
on yet can be removed, all or nothing, and one with work on it cannot. SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from corpus.errors import InputRejected
from corpus.import_checks import IN_OTHER_SPLIT
from corpus.semeval import parse_semeval
from db.access import SessionEnded
from db.importing import (
    ImportRemovalRefused,
    import_semeval_stream,
    import_sentences,
    plan_removal,
    remove_import,
)
from db.models import AspectCategory, AspectTerm, AuditEvent, SourceSentence
from tests.support.translation_fixtures import add_user, assign

FIXTURE = Path(__file__).parents[1] / "fixtures" / "semeval" / "restaurants_small.xml"
IDS = ["3121", "2777", "1634", "32897564#894393#2"]


def _import(engine, split, **kwargs):
    records, errors = parse_semeval(FIXTURE.read_bytes(), FIXTURE.name, "restaurant", split)
    assert errors == []
    return import_sentences(engine, records, FIXTURE.name, **kwargs)


def _counts(engine, split=None):
    with Session(engine) as s:
        where = [] if split is None else [SourceSentence.split == split]
        ids = select(SourceSentence.id).where(*where).scalar_subquery()
        return (s.scalar(select(func.count(SourceSentence.id)).where(*where)),
                s.scalar(select(func.count(AspectTerm.id)).where(AspectTerm.sentence_id.in_(ids))),
                s.scalar(select(func.count(AspectCategory.id)).where(AspectCategory.sentence_id.in_(ids))))


def test_the_file_ids_of_this_fixture_are_as_named():
    records, _ = parse_semeval(FIXTURE.read_bytes(), FIXTURE.name, "restaurant", "train")
    assert [r.key.id for r in records] == IDS


def test_a_train_file_imported_as_test_is_refused_naming_the_first_sentences(any_engine):
    _import(any_engine, "train")
    with pytest.raises(InputRejected) as refused:
        _import(any_engine, "test")
    errors = refused.value.errors
    assert [e.sentence_id for e in errors[:-1]] == IDS
    assert errors[0].message == "its text is already in restaurant/train as sentence 3121"
    assert errors[0].line is not None and errors[0].file == FIXTURE.name
    assert errors[-1].message.startswith("4 sentence(s) of this file repeat texts already stored in another "
                                         "split of restaurant (4 in restaurant/train; first: 3121, 2777, 1634")
    assert "--allow-duplicates" in errors[-1].message
    assert _counts(any_engine, "test") == (0, 0, 0)


def test_the_streaming_import_refuses_the_same_and_writes_nothing(any_engine):
    _import(any_engine, "train")
    with pytest.raises(InputRejected) as refused:
        import_semeval_stream(any_engine, lambda: FIXTURE.open("rb"),
                              FIXTURE.name, "restaurant", "test", batch=2)
    assert [e.sentence_id for e in refused.value.errors[:-1]] == IDS
    assert _counts(any_engine, "test") == (0, 0, 0)


def test_allowed_duplicates_are_imported_and_flagged_for_review(any_engine):
    _import(any_engine, "train")
    summary = import_semeval_stream(any_engine, lambda: FIXTURE.open("rb"), FIXTURE.name, "restaurant", "test",
                                    batch=3, allow_duplicates=True)
    assert summary.new_sentences == 4 and summary.flagged == 4
    with Session(any_engine) as s:
        flags = s.scalars(select(SourceSentence.flags).where(SourceSentence.split == "test")).all()
    assert all(IN_OTHER_SPLIT in f for f in flags) and len(flags) == 4


def test_reimporting_into_the_same_split_is_still_unchanged_not_a_duplicate(any_engine):
    _import(any_engine, "train")
    assert _import(any_engine, "train").unchanged == 4


def test_an_import_without_work_is_removed_with_its_aspects_and_categories(any_engine):
    _import(any_engine, "train")
    _import(any_engine, "test", allow_duplicates=True)
    planned = plan_removal(any_engine, "restaurant", "test")
    assert (planned.sentences, planned.aspect_terms, planned.categories) == (4, 5, 4) and planned.allowed
    assert _counts(any_engine, "test") == (4, 5, 4)  # the plan removed nothing
    removed = remove_import(any_engine, "restaurant", "test")
    assert removed == planned
    assert _counts(any_engine, "test") == (0, 0, 0)
    assert _counts(any_engine, "train") == (4, 5, 4)
    with Session(any_engine) as s:
        event = s.scalars(select(AuditEvent).where(AuditEvent.action == "remove-import")).one()
    assert event.detail == {"domain": "restaurant", "split": "test", "sentences": 4, "aspects": 5, "categories": 4}
    _import(any_engine, "test", allow_duplicates=True)  # the split can be filled again
    assert _counts(any_engine, "test") == (4, 5, 4)


def test_an_import_with_work_on_one_sentence_is_refused_whole(any_engine):
    _import(any_engine, "train")
    asha = add_user(any_engine, "asha", "translator")
    with Session(any_engine) as s:
        row = s.scalars(select(SourceSentence.id).where(SourceSentence.sentence_id == "1634")).one()
    assign(any_engine, asha, row, "blind")
    planned = plan_removal(any_engine, "restaurant", "train")
    assert (planned.sentences_with_work, planned.first_with_work, planned.allowed) == (1, ("1634",), False)
    with pytest.raises(ImportRemovalRefused, match=r"restaurant/train: 1 of its 4 sentences have work on them "
                                                   r"\(a translation, an assignment or a final choice; first: 1634\)"):
        remove_import(any_engine, "restaurant", "train")
    assert _counts(any_engine, "train") == (4, 5, 4)


def test_an_empty_split_is_refused_as_nothing_to_remove(any_engine):
    with pytest.raises(ImportRemovalRefused,
                       match="^restaurant/test: no sentences: nothing to remove; nothing was removed$"):
        remove_import(any_engine, "restaurant", "test")


def test_only_a_lead_removes_an_import(any_engine):
    _import(any_engine, "train")
    asha = add_user(any_engine, "asha", "translator")
    with pytest.raises(SessionEnded, match="only an active lead"):
        remove_import(any_engine, "restaurant", "train", actor_id=asha)
    lead = add_user(any_engine, "lena", "lead")
    assert remove_import(any_engine, "restaurant", "train", actor_id=lead).sentences == 4
