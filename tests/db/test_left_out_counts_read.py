"""The dashboard's left-out counts (``db.export_data.left_out_counts``: the selection without records,
``corpus.export.selection.select_left_out``) say what the export leaves out, reason for reason, also for the
reasons only building a record finds (a translation edited after tagging, gold tags that are not BIO)."""

from __future__ import annotations

from sqlalchemy import update
from sqlalchemy.orm import Session

from db.export_data import left_out_counts, load_export
from db.models import Translation
from tests.support.export_factory import Corpus, build_sample


def _same(engine) -> dict[str, int]:
    counts = left_out_counts(engine)
    assert counts == load_export(engine).left_out_counts()
    return counts


def test_left_out_counts_equal_the_exports_for_every_reason(any_engine):
    build_sample(any_engine)
    with Session(any_engine) as session:
        c = Corpus(session)
        edited = c.sentence("9", "Good food.", [("food", 5, 9, "positive")])
        t_edited, _ = c.gold(edited, "अच्छा खाना।", ["खाना"])
        not_bio = c.sentence("10", "Bad food.", [("food", 4, 8, "negative")])
        _, item_not_bio = c.gold(not_bio, "बुरा खाना।", ["खाना"])
        too_short = c.sentence("11", "Cold food.", [("food", 5, 9, "negative")])
        _, item_too_short = c.gold(too_short, "ठंडा खाना।", ["खाना"])
        session.commit()
        edited_id = t_edited.id
    before = _same(any_engine)
    assert not {"tokens changed after tagging", "invalid gold tags"} & set(before)

    with Session(any_engine) as session:
        c = Corpus(session)
        c.adjudicate(session.merge(item_not_bio), ["I", "I", "O"])
        c.adjudicate(session.merge(item_too_short), ["O"])
        session.commit()
    with Session(any_engine) as session, session.begin():
        session.execute(update(Translation).where(Translation.id == edited_id).values(text="बहुत अच्छा खाना।"))
    after = _same(any_engine)
    assert after["tokens changed after tagging"] == 1
    assert after["invalid gold tags"] == 2
    assert sum(after.values()) == sum(before.values()) + 3
