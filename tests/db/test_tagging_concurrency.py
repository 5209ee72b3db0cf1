"""Parallel saves of one annotation (two tabs, a double click): one wins, the others are told so with both
versions, and no save is lost or written twice. On SQLite and on PostgreSQL (``any_engine``)."""

from __future__ import annotations

import threading

from sqlalchemy import select
from sqlalchemy.orm import Session

from db.models import Annotation, AnnotationAssignment, Revision
from db.assignment import assign_annotators
from db.tagging import StaleAnnotation
from db.workflows import open_item, save_annotation
from tests.support.tagging_fixtures import add_sentence, add_translation, add_user, project_id

HINDI = "लेकिन स्टाफ़ हमारे साथ बहुत बुरा था।"  # 8 tokens
THREADS = 4


def _world(engine) -> tuple[int, int]:
    asha = add_user(engine, "asha", "translator")
    add_user(engine, "meera", "annotator")
    s = add_sentence(engine, "3121", "But the staff was so horrible to us.", ["staff"])
    translation = add_translation(engine, s, "aware", asha, HINDI)
    assign_annotators(engine, project_id(engine), per_item=1)
    with Session(engine) as session:
        user = session.scalars(select(AnnotationAssignment.user_id)).one()
    return user, open_item(engine, user, translation).item_id


def _race(engine, user: int, item_id: int, expected: int | None) -> list[object]:
    """THREADS saves of different tags, all expecting ``expected``, released at once."""
    start = threading.Barrier(THREADS)
    results: list[object] = [None] * THREADS

    def save(n: int) -> None:
        tags = ["O"] * 8
        tags[n] = "B"
        start.wait()
        try:
            results[n] = save_annotation(engine, user, item_id, tags, False, expected, "save")
        except Exception as exc:  # noqa: BLE001  (the test asserts on the kind)
            results[n] = exc

    threads = [threading.Thread(target=save, args=(n,)) for n in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def _stored(engine) -> tuple[Annotation, list[Revision]]:
    with Session(engine) as session:
        annotation = session.scalars(select(Annotation)).one()
        revisions = list(session.scalars(select(Revision).where(Revision.entity == "annotation")
                                          .order_by(Revision.version)))
        return annotation, revisions


def _check_round(engine, results: list[object], expected: int | None) -> None:
    winners = [r for r in results if not isinstance(r, Exception)]
    losers = [r for r in results if isinstance(r, Exception)]
    assert all(isinstance(e, StaleAnnotation) for e in losers), [repr(e) for e in losers]
    assert len(winners) == 1, results
    annotation, revisions = _stored(engine)
    assert annotation.version == winners[0].version == (expected or 0) + 1
    assert annotation.tags == winners[0].tags
    assert [r.version for r in revisions] == list(range(1, annotation.version + 1))  # none lost, none twice
    assert revisions[-1].payload["tags"] == winners[0].tags
    for conflict in losers:
        assert conflict.theirs is not None and conflict.theirs.version == annotation.version
        assert conflict.theirs.tags == annotation.tags
        assert conflict.mine.version == expected and conflict.mine.tags != annotation.tags


def test_parallel_saves_of_one_annotation_lose_nothing_and_losers_get_a_conflict(any_engine):
    user, item_id = _world(any_engine)
    results = _race(any_engine, user, item_id, None)  # first saves: everybody inserts
    _check_round(any_engine, results, None)
    for _ in range(3):  # later saves: everybody updates the same version
        version = _stored(any_engine)[0].version
        _check_round(any_engine, _race(any_engine, user, item_id, version), version)
