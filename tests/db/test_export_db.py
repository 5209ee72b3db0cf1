"""Loading the corpus for export: final translations with gold labels; everything left out is counted."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from cli.commands import main
from corpus.export.writer import zip_bytes
from corpus.metrics import REPORT_KEYS
from corpus.tokens import tokenize
from db.export_data import ExportOptions, export_files, load_export
from db.models import SourceSentence, Translation
from tests.support.export_factory import Corpus, build_sample, tags_for
from tests.support.metrics_fixtures import build_small_project, expected_rouge


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


def _card_row(card: str, figure: str) -> list[str]:
    [line] = [line for line in card.splitlines() if line.startswith(f"| {figure} |")]
    return [cell.strip() for cell in line.strip("|").split("|")][1:]


def _three(value) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def test_export_figures_equal_metrics_json_for_the_same_database(engine, sqlite_url, capsys):
    build_sample(engine)
    with Session(engine) as session:
        c = Corpus(session)
        s = session.scalars(select(SourceSentence).where(SourceSentence.sentence_id == "3121")).one()
        c.gold(s, "स्टाफ़ हमारे साथ बुरा था।", ["स्टाफ़"], translator="ravi", phase="blind", final=False)
        # Submitted later and ties on mean ROUGE-L (a two-translation unit), but keeps two aspects: the
        # project's rule makes it the blind unit's best, where "earlier submission first" would not.
        c.gold(s, "स्टाफ़ और खाना हमारे साथ बुरा था।", ["स्टाफ़", "खाना"], translator="neha", phase="blind",
               final=False)
        session.commit()
    assert main(["--db", sqlite_url, "metrics", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)

    files, dataset = export_files(engine)
    written = json.loads(files["metrics.json"])
    assert set(written) == set(REPORT_KEYS) - {"rouge_l_pairs", "rouge_l_sentences"}
    assert written == {key: cli[key] for key in written}
    with zipfile.ZipFile(io.BytesIO(zip_bytes(files))) as zf:
        assert zf.read("hindi-aspect-corpus/metrics.json").decode("utf-8") == files["metrics.json"]

    card, rouge, fleiss = files["README.md"], cli["rouge_l"], cli["fleiss_kappa"]
    assert _card_row(card, "ROUGE-L F (weighted)") == [_three(rouge[k]) for k in ("aware", "blind", "overall", "best")]
    assert _card_row(card, "ROUGE-L F (unweighted)") == [
        _three(rouge["unweighted"][k]) for k in ("aware", "blind", "overall", "best")
    ]
    assert _card_row(card, "Fleiss' kappa (B/I/O tokens)") == [
        _three(fleiss[k]["kappa"]) for k in ("aware", "blind", "overall")
    ] + ["n/a"]
    assert cli["signature"]["text"] in card

    units = {(u["sentence_id"], u["phase"]): u for u in cli["rouge_l_sentences"]}
    assert units[("3121", "blind")]["best_translator"] == "neha"
    every = {(r.sentence_id, r.phase, r.translator): r for r in load_export(engine, ExportOptions(all_translations=True)).sentences}
    for (sid, phase, who), rec in every.items():
        unit = units.get((sid, phase))
        fs = [p["f"] for p in cli["rouge_l_pairs"]
              if (p["sentence_id"], p["phase"]) == (sid, phase) and who in (p["translator_a"], p["translator_b"])]
        assert rec.agreement["rouge_l_vs_others"] == (pytest.approx(sum(fs) / len(fs), rel=1e-12) if fs else None)
        assert rec.agreement["rouge_l_phase_mean"] == (unit["mean_f"] if unit else None)
        assert rec.agreement["best_in_phase"] == ((unit["best_translator"] == who) if unit else None)
    assert every[("3121", "blind", "neha")].agreement["best_in_phase"] is True
    [final] = [r for r in dataset.sentences if r.sentence_id == "3121"]
    assert final.agreement == every[("3121", "aware", "asha")].agreement


def test_card_shows_the_hand_checked_agreement_figures(engine):
    build_small_project(engine)
    files, dataset = export_files(engine)
    assert dataset.sentences == []  # no final choice yet: nothing exported, the figures still describe the project
    expected = expected_rouge()
    written = json.loads(files["metrics.json"])
    for key in ("aware", "blind", "overall", "best"):
        assert written["rouge_l"][key] == pytest.approx(expected[key], abs=1e-12)
    assert _card_row(files["README.md"], "ROUGE-L F (weighted)") == [
        _three(expected[k]) for k in ("aware", "blind", "overall", "best")
    ]


def test_pseudonymized_metrics_file_names_no_one(engine):
    build_sample(engine)
    files, _ = export_files(engine, ExportOptions(pseudonymize=True))
    text = files["metrics.json"]
    for name in ("asha", "ravi", "neha", "meera", "kabir"):
        assert name not in text, name
    assert '"translator-01"' in text and '"annotator-01"' in text


def test_the_bulk_automatic_pick_names_the_same_translation_as_the_final_translations_page(engine):
    """``export`` records picks through ``record_auto_choices``, which scores a whole project in bulk; the
    page compares one sentence at a time. Same candidates, aspect counts, means and winner."""
    from bench.synthetic import build_corpus
    from corpus.final_choice import choose_final
    from db.final_candidates import candidates_by_sentence, project_candidates
    from db.models import Project

    build_corpus(engine, 120, seed=3)
    with Session(engine) as session:
        pid = session.scalars(select(Project.id)).first()
        ids = list(session.scalars(select(SourceSentence.id)))
        one_by_one = candidates_by_sentence(session, ids)
        bulk = project_candidates(session, pid)
    assert set(bulk) == set(one_by_one)
    for sentence in ids:
        a = sorted(one_by_one[sentence], key=lambda c: c.translation_id)
        b = sorted(bulk[sentence], key=lambda c: c.translation_id)
        assert [(c.translation_id, c.aspects_kept, c.untranslatable) for c in a] == \
               [(c.translation_id, c.aspects_kept, c.untranslatable) for c in b]
        assert [c.mean_rouge_l for c in b] == pytest.approx([c.mean_rouge_l for c in a], abs=1e-12)
        for policy in ("aware-unless-blind-better", "aware", "blind", "higher-rouge"):
            pick_a, pick_b = choose_final(a, policy).candidate, choose_final(b, policy).candidate
            assert (pick_a and pick_a.translation_id) == (pick_b and pick_b.translation_id)


def test_the_planned_picks_are_the_picks_recording_then_writes_and_the_export_uses_them(any_engine):
    """``export`` plans the automatic picks in its read (``planned_auto_picks``), exports with them and records them
    only after writing: what it planned is exactly what ``record_auto_choices`` then writes, and the exported
    records are the ones a load after recording gives."""
    from bench.synthetic import build_corpus
    from db.export_data import planned_auto_picks
    from db.final_choice import record_auto_choices
    from db.models import FinalChoice, Project

    build_corpus(any_engine, 60, seed=5)
    with Session(any_engine) as session:  # forget some recorded picks, so there is something to plan
        pid = session.scalars(select(Project.id)).first()
        dropped = list(session.scalars(select(FinalChoice).where(FinalChoice.chosen_by.is_(None)).limit(20)))
        for row in dropped:
            session.delete(row)
        session.commit()
    with Session(any_engine) as session:
        planned, _policy = planned_auto_picks(session, pid)
    assert planned
    before = load_export(any_engine, auto_final=True)
    assert before.meta["auto_picks"] == planned
    assert record_auto_choices(any_engine, pid) == len(planned)
    with Session(any_engine) as session:
        latest = {}
        for row in session.scalars(select(FinalChoice).order_by(FinalChoice.id)):
            latest[row.sentence_id] = row.translation_id
        assert {s: latest[s] for s in planned} == planned
        assert planned_auto_picks(session, pid)[0] == {}
    after = load_export(any_engine)
    assert [(r.uid, r.hi_text, r.hi_tags) for r in after.sentences] == \
           [(r.uid, r.hi_text, r.hi_tags) for r in before.sentences]
