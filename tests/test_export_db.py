"""Loading the corpus for export: final translations with gold labels; everything left out is counted."""

from __future__ import annotations

from sqlalchemy.orm import Session

from corpus.tokens import tokenize
from db.export_data import ExportOptions, export_files, load_export
from db.models import Translation
from export_factory import Corpus, build_sample, tags_for


def _by_id(dataset):
    return {r.sentence_id: r for r in dataset.sentences}


def test_final_translations_with_gold_labels_are_exported(any_engine):
    build_sample(any_engine)
    ds = load_export(any_engine)
    recs = _by_id(ds)
    assert set(recs) == {"3121", "77", "78", "892:1", "1001"}
    assert [a.term for a in recs["3121"].hi_aspects] == ["स्टाफ़"]
    assert [a.polarity for a in recs["3121"].hi_aspects] == ["negative"]
    assert recs["78"].hi_aspects == () and set(recs["78"].hi_tags) == {"O"}
    assert recs["1001"].gold_source == "accepted"
    assert [a.term for a in recs["1001"].hi_aspects] == ["लॉक्स स्प्रेड", "एवरीथिंग बेगल"]
    for r in ds.sentences:
        for a in r.hi_aspects:
            assert r.hi_text[a.start:a.end] == a.term


def test_left_out_sentences_are_counted_by_reason_never_dropped_silently(engine):
    build_sample(engine)
    ds = load_export(engine)
    assert ds.left_out_counts() == {
        "annotators disagree": 1, "left out by lead": 1, "no final translation": 1, "untranslatable by majority": 1,
    }
    with Session(engine) as s:
        from sqlalchemy import func, select

        from db.models import SourceSentence
        total = s.scalar(select(func.count(SourceSentence.id)))
    assert len(ds.sentences) + len(ds.left_out) == total
    files, _ = export_files(engine)
    assert "untranslatable by majority" in files["README.md"]
    assert files["left_out.tsv"].count("\n") == 1 + 4


def test_latest_adjudication_and_latest_final_choice_are_in_force(engine):
    with Session(engine) as session:
        c = Corpus(session)
        s = c.sentence("1", "Great pizza and pasta.", [("pizza", 6, 11, "positive"), ("pasta", 16, 21, "positive")])
        hi = "बढ़िया पिज़्ज़ा और पास्ता।"
        first = c.translation(s, "asha", "aware", hi)
        second = c.translation(s, "ravi", "blind", "पिज़्ज़ा और पास्ता बढ़िया थे।")
        item = c.item(first)
        c.annotate(item, "meera", tags_for(hi, ["पिज़्ज़ा"]))
        c.annotate(item, "kabir", tags_for(hi, ["पास्ता"]))
        c.adjudicate(item, tags_for(hi, ["पिज़्ज़ा"]), source="accepted")
        c.adjudicate(item, tags_for(hi, ["पिज़्ज़ा", "पास्ता"]), source="edited")
        item2 = c.item(second)
        tags2 = tags_for(second.text, ["पिज़्ज़ा", "पास्ता"])
        c.annotate(item2, "meera", tags2)
        c.annotate(item2, "kabir", tags2)
        c.final(s, second)
        c.final(s, first)
        session.commit()
    [rec] = load_export(engine).sentences
    assert rec.phase == "aware" and rec.gold_source == "edited"
    assert [a.term for a in rec.hi_aspects] == ["पिज़्ज़ा", "पास्ता"]
    assert rec.agreement["annotators"] == 2 and rec.agreement["token_agreement"] < 1.0


def test_agreed_only_keeps_items_the_annotators_agreed_on(engine):
    build_sample(engine)
    ds = load_export(engine, ExportOptions(agreed_only=True))
    assert "1001" not in _by_id(ds)
    assert ds.left_out_counts()["not agreed"] == 1
    assert all(r.gold_source == "agreed" for r in ds.sentences)


def test_all_translations_exports_every_tagged_translation_and_counts_the_rest(engine):
    build_sample(engine)
    with Session(engine) as session:
        c = Corpus(session)
        from sqlalchemy import select

        from db.models import SourceSentence
        s = session.scalars(select(SourceSentence).where(SourceSentence.sentence_id == "3121")).one()
        c.gold(s, "स्टाफ़ हमारे साथ बुरा था।", ["स्टाफ़"], translator="ravi", phase="blind", final=False)
        session.commit()
    ds = load_export(engine, ExportOptions(all_translations=True))
    uids = {r.uid for r in ds.sentences}
    assert "restaurant/train/3121/aware/asha" in uids and "restaurant/train/3121/blind/ravi" in uids
    finals = {r.uid: r.is_final for r in ds.sentences}
    assert finals["restaurant/train/3121/aware/asha"] and not finals["restaurant/train/3121/blind/ravi"]
    counts = ds.left_out_counts()
    assert counts["translation untranslatable"] == 2 and counts["not tagged"] >= 1


def test_pseudonymize_hides_translator_names_everywhere(engine):
    build_sample(engine)
    files, ds = export_files(engine, ExportOptions(all_translations=True, pseudonymize=True))
    assert {r.translator for r in ds.sentences} <= {f"translator-{i:02d}" for i in range(1, 10)}
    for path, text in files.items():
        assert "asha" not in text and "ravi" not in text, path


def test_translation_edited_after_tagging_is_left_out_with_reason(engine):
    with Session(engine) as session:
        c = Corpus(session)
        s = c.sentence("9", "Good food.", [("food", 5, 9, "positive")])
        t, _ = c.gold(s, "अच्छा खाना।", ["खाना"])
        session.commit()
        tid = t.id
    with Session(engine) as session:
        t = session.get(Translation, tid)
        t.text = "बहुत अच्छा खाना।"
        session.commit()
    ds = load_export(engine)
    assert ds.sentences == []
    assert ds.left_out_counts() == {"tokens changed after tagging": 1}


def test_tagging_incomplete_without_adjudication_is_left_out(engine):
    with Session(engine) as session:
        c = Corpus(session)
        s = c.sentence("9", "Good food.", [("food", 5, 9, "positive")])
        t = c.translation(s, "asha", "aware", "अच्छा खाना।")
        item = c.item(t)
        c.annotate(item, "meera", tags_for(t.text, ["खाना"]))
        c.annotate(item, "kabir", tags_for(t.text, ["खाना"]), status="draft")
        c.final(s, t)
        session.commit()
    ds = load_export(engine)
    assert ds.left_out_counts() == {"tagging incomplete": 1}
    assert [r.reason for r in ds.left_out] == ["tagging incomplete"]


def test_dev_split_from_options_moves_train_sentences_only(engine):
    with Session(engine) as session:
        c = Corpus(session)
        for i in range(40):
            s = c.sentence(str(i), f"The food {i} was good.", [("food", 4, 8, "positive")],
                           split="test" if i >= 30 else "train")
            c.gold(s, f"खाना {i} अच्छा था।", ["खाना"] if i % 2 else [])
        session.commit()
    ds = load_export(engine, ExportOptions(dev_fraction=0.2))
    splits = {r.sentence_id: r.split for r in ds.sentences}
    assert all(splits[str(i)] == "test" for i in range(30, 40))
    assert 4 <= sum(1 for s in splits.values() if s == "dev") <= 8
    assert all(r.source_split in ("train", "test") for r in ds.sentences)


def test_glossary_keep_roman_terms_are_named_entities_in_lid(engine):
    with Session(engine) as session:
        c = Corpus(session)
        c.glossary("iphone", "iphone")
        s = c.sentence("1", "My iphone battery died.", [("battery", 10, 17, "negative")], domain="laptop")
        c.gold(s, "मेरी iphone की बैटरी ख़त्म हो गई।", ["बैटरी"])
        session.commit()
    [rec] = load_export(engine).sentences
    assert dict(zip(rec.hi_tokens, rec.lid))["iphone"] == "ne"
    assert tokenize(rec.hi_text) == list(rec.hi_tokens)


def test_card_table2_equals_the_project_metrics_report(engine):
    import pytest

    metrics_data = pytest.importorskip("db.metrics_data")
    build_sample(engine)
    with Session(engine) as session:
        c = Corpus(session)
        from sqlalchemy import select

        from db.models import SourceSentence
        s = session.scalars(select(SourceSentence).where(SourceSentence.sentence_id == "3121")).one()
        c.gold(s, "स्टाफ़ हमारे साथ बुरा था।", ["स्टाफ़"], translator="ravi", phase="blind", final=False)
        c.gold(s, "स्टाफ़ बहुत बुरा था।", ["स्टाफ़"], translator="neha", phase="blind", final=False,
               annotators=("meera", "kabir"))
        session.commit()
        report = metrics_data.metrics_report(session, c.project.id)
    t2 = load_export(engine).meta["table2"]
    for phase in ("aware", "blind", "overall", "best"):
        assert t2[f"rouge_{phase}"] == pytest.approx(report["rouge_l"][phase])
    for phase in ("aware", "blind", "overall"):
        assert t2[f"kappa_{phase}"] == pytest.approx(report["fleiss_kappa"][phase]["kappa"])
