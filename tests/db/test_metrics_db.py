"""The metrics loader and report from a real database (SQLite and PostgreSQL), and the metrics command."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from cli.commands import main
from corpus.metrics import REPORT_KEYS
from db.metrics_data import (
    latest_save,
    load_metrics_input,
    load_progress,
    metrics_report,
    tags_from_json,
)
from db.models import Annotation, SourceSentence, Translation, User
from db.sentence_view import sentence_detail
from tests.support.metrics_fixtures import build_small_project, expected_rouge


def test_report_from_the_database_has_the_hand_checked_figures(any_engine):
    pid = build_small_project(any_engine)
    report = metrics_report(any_engine, pid)
    assert tuple(report) == REPORT_KEYS
    expected = expected_rouge()
    assert report["rouge_l"]["aware"] == pytest.approx(expected["aware"])
    assert report["rouge_l"]["blind"] == pytest.approx(1.0)
    assert report["rouge_l"]["overall"] == pytest.approx(expected["overall"])
    assert report["rouge_l"]["best"] == pytest.approx(expected["best"])
    assert report["rouge_l"]["excluded_units"] == 1
    assert len(report["rouge_l_pairs"]) == 4
    assert report["fleiss_kappa"]["aware"]["kappa"] == pytest.approx(43 / 59)
    assert report["fleiss_kappa"]["blind"]["kappa"] is None
    assert report["fleiss_kappa"]["overall"]["kappa"] == pytest.approx(13 / 17)
    assert report["cohen_kappa"]["pairs"][0]["kappa"] == pytest.approx(23 / 30)
    assert report["span_f1"]["pairs"][0]["f1"] == pytest.approx(0.5)
    assert report["coverage"]["fewer_in_blind"] == 1
    assert json.loads(json.dumps(report)) == report


def test_drafts_never_count(any_engine):
    pid = build_small_project(any_engine)
    data = load_metrics_input(any_engine, pid)
    translators = {(t.phase, t.translator) for t in data.translations if t.sentence_pk}
    assert ("blind", "chitra") not in translators  # a draft translation
    assert len(data.tag_sets) == 8  # the draft annotation is left out
    assert all(ts.tags in {"BOO", "BOOOO", "BIOOO", "OOO"} for ts in data.tag_sets)


def test_loader_reads_aspect_maps_and_submission_times(any_engine):
    pid = build_small_project(any_engine)
    data = load_metrics_input(any_engine, pid)
    mapped = {(t.phase, t.translator, t.text): t.aspects_mapped for t in data.translations}
    assert mapped[("aware", "asha", "स्टाफ़ बुरा था")] == 1
    assert mapped[("aware", "chitra", "खाना अच्छा था")] == 0  # its map drops the aspect
    assert mapped[("blind", "asha", "खाना अच्छा था")] is None  # blind translations have no map
    assert all(t.submitted_at is not None and t.submitted_at.year == 2026 for t in data.translations)


def test_a_save_changes_the_cache_fingerprint(any_engine):
    pid = build_small_project(any_engine)
    before = latest_save(any_engine, pid)
    assert latest_save(any_engine, pid) == before
    with Session(any_engine) as session:
        translation = session.scalars(select(Translation).where(Translation.phase == "blind")).first()
        translation.text = "नया अनुवाद"
        session.commit()
    assert latest_save(any_engine, pid) != before


def test_progress_counts_work_per_person_and_status(any_engine):
    pid = build_small_project(any_engine)
    counts = load_progress(any_engine, pid)
    by_key: dict[tuple, int] = {}
    for c in counts:
        key = (c.kind, c.phase, c.person, c.status)
        by_key[key] = by_key.get(key, 0) + c.count
    assert by_key[("translation", "blind", "chitra", "draft")] == 1
    assert by_key[("translation", "aware", "asha", "submitted")] == 2
    assert by_key[("annotation", "aware", "meera", "submitted")] == 2
    assert by_key[("annotation", "aware", "meera", "draft")] == 1


def test_sentence_detail_shows_every_translation_and_its_tag_sets(any_engine):
    pid = build_small_project(any_engine)
    with Session(any_engine) as session:
        row_id = session.scalar(select(SourceSentence.id).where(
            (SourceSentence.project_id == pid) & (SourceSentence.sentence_id == "r1")
            & (SourceSentence.domain == "restaurant") & (SourceSentence.split == "train")))
    detail = sentence_detail(any_engine, row_id, pid)
    assert [a.term for a in detail.aspects] == ["staff"]
    assert {t.translator for t in detail.translations if t.phase == "aware"} == {"asha", "bilal", "chitra"}
    submitted = {i.translator: {a.annotator: a.tags for a in i.annotations if a.status == "submitted"}
                 for i in detail.items if i.phase == "aware"}
    assert submitted["bilal"] == {"meera": list("BOOOO"), "nikhil": list("BIOOO")}
    assert submitted.get("chitra", {}) == {}  # only a draft annotation


def test_unknown_project_is_an_error(engine):
    with pytest.raises(ValueError, match="no project"):
        load_metrics_input(engine, 999)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [('["O", "B", "I"]', "OBI"), ("[]", ""), ('["O","B"]', "OB"), ('["\\u0042"]', "B"), ('["X"]', None),
     ('["BB"]', None), ("not json", None), ('["B", "X"]', None), ('["O", "B", "I"] ', "OBI"), ('["B",  "I"]', "BI"),
     ('["B", "I", ]', None), ('["B"]["I"]', None)],
)
def test_stored_tag_lists_are_read_exactly(raw, expected):
    assert tags_from_json(raw) == expected


def test_invalid_stored_tags_are_counted_not_used(engine):
    pid = build_small_project(engine)
    with Session(engine) as session:
        session.execute(update(Annotation).where(Annotation.id == 1).values(tags=["B", "X", "O"]))
        session.commit()
    report = metrics_report(engine, pid)
    assert report["fleiss_kappa"]["invalid_tag_sets"] == 1


def test_metrics_command_prints_json_with_the_interface_keys(engine, sqlite_url, capsys):
    build_small_project(engine)
    assert main(["--db", sqlite_url, "metrics", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert sorted(report) == sorted(REPORT_KEYS)
    assert report["rouge_l"]["aware"] == pytest.approx(31 / 63)


def test_metrics_command_prints_a_table_2_summary_with_the_signature(engine, sqlite_url, capsys):
    build_small_project(engine)
    assert main(["--db", sqlite_url, "metrics"]) == 0
    out = capsys.readouterr().out
    assert "ROUGE-L F (weighted)" in out and "Fleiss' kappa (B/I/O tokens)" in out
    assert f"{31 / 63:.3f}" in out
    assert "Fleiss kappa blind: undefined" in out
    assert "signature: tok:hi-canon/1.0" in out


def test_usernames_not_ids_appear_in_pairs(engine):
    pid = build_small_project(engine)
    report = metrics_report(engine, pid)
    with Session(engine) as session:
        names = set(session.scalars(select(User.username)))
    assert {r["translator_a"] for r in report["rouge_l_pairs"]} <= names


def test_dashboard_progress_from_the_metrics_input_equals_the_full_count(any_engine):
    from corpus.progress import phase_progress, submitted_counts

    pid = build_small_project(any_engine)
    full = load_progress(any_engine, pid)
    open_work = load_progress(any_engine, pid, submitted=False)
    data = load_metrics_input(any_engine, pid)

    def totals(counts):
        out: dict[tuple, int] = {}
        for c in counts:
            key = (c.kind, c.domain, c.split, c.phase, c.person, c.status)
            out[key] = out.get(key, 0) + c.count
        return out

    assert totals(open_work + submitted_counts(data)) == totals(full)
    phases = {r["phase"]: r for r in phase_progress(full, annotators_per_item=2)}
    assert phases["aware"]["translations submitted"] == 5
    # against the work handed out (5 aware records, no open task), not 2 sentences x the setting
    assert phases["aware"]["translations assigned"] == 5
    assert phases["aware"]["translated % (of assigned)"] == 100.0
    assert phases["blind"]["translations assigned"] == 3  # asha and bilal submitted, chitra's draft
    assert phases["blind"]["translated % (of assigned)"] == pytest.approx(200 / 3)
    assert phases["blind"]["translation drafts"] == 1
    assert phases["aware"]["annotations submitted"] == 4


def test_benchmark_runs_on_a_small_corpus_and_checks_values_against_rouge_score(capsys):
    from bench.bench_agreement import main as bench

    assert bench(["--sentences", "30", "--factor", "2", "--no-render"]) == 0
    out = capsys.readouterr().out
    assert "synthetic corpus: 30 sentences" in out
    assert "identical values: yes" in out
    assert "2x corpus (60 sentences" in out
