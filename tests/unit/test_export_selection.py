"""Which records the export ships and why the rest are left out: corpus/export/selection over hand-built rows."""

from __future__ import annotations

import pytest

from corpus.export.records import ExportSentence, LeftOut
from corpus.export.selection import (
    ExportOptions,
    ExportRows,
    NoGold,
    SourceRow,
    TranslationRow,
    gold_for_export,
    select_records,
)
from corpus.gold import Gold, ItemGold
from corpus.tokens import tokenize

HINDI = "खाना अच्छा था।"  # खाना अच्छा था ।
TAGS = "BOOO"


def no_figures(translation_id: int, versions: list) -> dict:
    return {"annotators": len(versions)}


def item(translation_id: int, gold: Gold | None, versions=(TAGS, TAGS), awaited: int = 0) -> ItemGold:
    return ItemGold(translation_id * 10, translation_id, gold, list(versions), awaited)


def translation(pk: int, sentence: int, translator: str = "asha", phase: str = "aware", text: str | None = HINDI,
                untranslatable: bool = False, status: str = "submitted") -> TranslationRow:
    return TranslationRow(pk, sentence, phase, 1, translator, text, untranslatable, status, "1.0")


def rows_with(*sentences: tuple[int, list[TranslationRow], int | None], gold: dict[int, ItemGold] | None = None,
              lead_decided: set[int] = frozenset(), per_item: int = 2) -> ExportRows:
    rows = ExportRows([SourceRow(pk, "restaurant", "train", str(pk), "The food was good.") for pk, _, _ in sentences],
                      per_item)
    for pk, ts, final in sentences:
        rows.translations[pk] = ts
        if final is not None or pk in lead_decided:
            rows.finals[pk] = (final, None)
        for t in ts:
            rows.frozen_tokens[t.id] = tokenize(t.text or "")
    rows.gold = gold or {}
    rows.lead_decided = set(lead_decided)
    return rows


@pytest.mark.parametrize(
    ("item_gold", "per_item", "agreed_only", "expected"),
    [
        (None, 2, False, NoGold("not tagged")),
        (item(1, None, versions=[TAGS, TAGS], awaited=1), 2, False,
         NoGold("tagging incomplete", "2 of 3 annotations submitted")),  # 3 assigned, 2 submitted the same tags
        (item(1, None, versions=[TAGS]), 2, False, NoGold("tagging incomplete", "1 of 2 annotations submitted")),
        (item(1, None, versions=[TAGS, "OOOO"]), 2, False,
         NoGold("annotators disagree", "2 annotations differ; no adjudication")),
        (item(1, Gold("agreed", list(TAGS))), 2, False, Gold("agreed", list(TAGS))),
        (item(1, Gold("accepted", list(TAGS), 5)), 2, True,
         NoGold("not agreed", "gold labels come from adjudication (accepted)")),
        (item(1, Gold("single", list(TAGS)), versions=[TAGS]), 1, True,
         NoGold("not agreed", "gold labels come from one annotator only (single)")),
    ],
    ids=["untagged", "three-assigned-two-submitted", "lone-version", "disagree", "agreed", "agreed-only-accepted",
         "agreed-only-single"],
)
def test_gold_for_export_is_the_gold_in_force_or_a_reason(item_gold, per_item, agreed_only, expected):
    assert gold_for_export(item_gold, per_item, agreed_only) == expected


def test_the_final_translation_with_gold_is_a_record_with_its_source_and_figures():
    rows = rows_with((1, [translation(11, 1)], 11), gold={11: item(11, Gold("agreed", list(TAGS)))})
    records, left_out = select_records(rows, ExportOptions(), no_figures)
    assert left_out == []
    [record] = records
    assert isinstance(record, ExportSentence)
    assert (record.uid, record.hi_tags, record.gold_source, record.agreement) == (
        "restaurant/train/1", tuple(TAGS), "agreed", {"annotators": 2})


def test_an_item_without_gold_in_force_is_left_out_with_the_rules_reason():
    rows = rows_with((1, [translation(11, 1)], 11), gold={11: item(11, None, awaited=1)})
    records, left_out = select_records(rows, ExportOptions(), no_figures)
    assert records == []
    assert left_out == [LeftOut("restaurant", "train", "1", "tagging incomplete", "2 of 3 annotations submitted", 11)]


def test_a_majority_untranslatable_sentence_is_left_out_unless_a_lead_chose_its_translation():
    ts = [translation(11, 1), translation(12, 1, "ravi", text=None, untranslatable=True),
          translation(13, 1, "neha", text=None, untranslatable=True)]
    gold = {11: item(11, Gold("agreed", list(TAGS)))}
    records, left_out = select_records(rows_with((1, ts, 11), gold=gold), ExportOptions(), no_figures)
    assert records == [] and [(o.reason, o.detail) for o in left_out] == [("untranslatable by majority", "2 of 3 translators")]
    records, left_out = select_records(rows_with((1, ts, 11), gold=gold, lead_decided={1}), ExportOptions(), no_figures)
    assert [r.translation_id for r in records] == [11] and left_out == []


def test_sentences_without_a_final_translation_say_why():
    rows = rows_with((1, [translation(11, 1)], None), (2, [translation(21, 2)], None), lead_decided={2})
    rows.finals[2] = (None, "idiom, no good Hindi")
    records, left_out = select_records(rows, ExportOptions(), no_figures)
    assert records == []
    assert [(o.sentence_id, o.reason, o.detail) for o in left_out] == [
        ("1", "no final translation", "1 submitted translations"), ("2", "left out by lead", "idiom, no good Hindi")]


def test_every_translation_mode_lists_each_translation_in_order_with_pseudonyms_in_the_uid():
    ts = [translation(11, 1), translation(12, 1, "ravi", status="draft"),
          translation(13, 1, "neha", text=None, untranslatable=True), translation(14, 1, "omar", phase="blind")]
    gold = {11: item(11, Gold("agreed", list(TAGS))), 14: item(14, Gold("edited", list(TAGS), 3))}
    records, left_out = select_records(rows_with((1, ts, 11), gold=gold), ExportOptions(all_translations=True),
                                       no_figures, {"asha": "translator-01", "omar": "translator-02"})
    assert [(r.uid, r.is_final, r.translator) for r in records] == [
        ("restaurant/train/1/aware/translator-01", True, "translator-01"),
        ("restaurant/train/1/blind/translator-02", False, "translator-02"),
    ]
    assert [(o.translation_id, o.reason) for o in left_out] == [
        (12, "translation not submitted"), (13, "translation untranslatable")]


def test_gold_that_no_longer_fits_the_tokens_is_left_out_not_repaired():
    rows = rows_with((1, [translation(11, 1)], 11), gold={11: item(11, Gold("agreed", ["B", "O"]))})
    records, left_out = select_records(rows, ExportOptions(), no_figures)
    assert records == [] and [(o.reason, o.detail) for o in left_out] == [("invalid gold tags", "2 tags for 4 tokens")]
