"""AppTest: the lead's Dataset check page runs the CRF on both sides (as a job it shows, never waits on), scores uploaded predictions into the
leaderboard after the baseline, shows a refused file's errors by sentence, and is closed to everyone else."""

import pytest
from streamlit.testing.v1 import AppTest

from tests.support.app_pages import built_once, copied, open_file


# Small enough that the cross-validated suspects train in seconds, large enough for a test split in both domains
# and (with the builder's seed) one suspect, so the suspect rows are checked, not only the empty case.
SENTENCES = 40


def _build(engine) -> dict:
    from bench.synthetic import build_corpus
    from db.models import User, UserRole
    from sqlalchemy.orm import Session

    build_corpus(engine, SENTENCES)
    with Session(engine) as session:
        session.add(User(username="boss", display_name="Boss", roles=[UserRole(role="lead")]))
        session.commit()
    return {}


@pytest.fixture(scope="module")
def built(tmp_path_factory, migrated_sqlite):
    return built_once(tmp_path_factory, migrated_sqlite, _build)


@pytest.fixture
def project_db(built, tmp_path, monkeypatch):
    """A small synthetic project with train and test splits and gold (``bench.synthetic``), a lead; built once
    per module, copied for each test."""
    engine = copied(built[0], tmp_path, monkeypatch)
    yield engine
    engine.dispose()


def open_page(engine, username: str) -> AppTest:
    return open_file(engine, username, "pages/dataset_check.py")


def _predictions(engine) -> bytes:
    from db.export_data import ExportOptions, export_files

    files, _ = export_files(engine, ExportOptions(), ["conll"])
    return files["conll/test.conll"].encode("utf-8")


def test_a_translator_cannot_open_the_dataset_check(project_db):
    at = open_page(project_db, "tr0")
    assert at.error and "do not have access" in at.error[0].value
    assert not at.dataframe and not at.button


def _run_jobs(engine) -> list[int]:
    """What an app server's job thread or ``python -m corpus worker`` does, here and now."""
    from db.workflows import run_jobs_until_idle

    return run_jobs_until_idle(engine)


def test_the_lead_runs_the_baseline_and_sees_both_sides_per_domain(project_db):
    at = open_page(project_db, "boss")
    assert not at.exception
    assert not at.dataframe  # nothing trains until the lead asks
    at.button(key="check_run").click().run()
    assert not at.exception
    assert not at.dataframe  # the page never waits on the job: it shows it queued
    assert any(i.value.startswith("The baseline is queued for") for i in at.info)
    assert len(_run_jobs(project_db)) == 1
    at.run()
    assert any(s.value.startswith("The baseline finished") for s in at.success)
    table = at.dataframe[0].value
    assert list(table["domain"]) == ["laptop", "restaurant", "all"]
    assert {"English F1", "Hindi F1", "English scored", "Hindi scored"} <= set(table.columns)
    assert table.set_index("domain").loc["all", "Hindi scored"] > 0
    captions = " ".join(c.value for c in at.caption)
    assert "scored on the test split" in captions and "c1=0.1" in captions
    assert set(table["English protocol"]) == {"test split"}  # each row says how it was scored
    # 40 sentences: every figure is over fewer than 50, and says so with its n.
    assert any("fewer than 50 sentences" in w.value and "only " in w.value for w in at.warning)
    side_by_side = at.dataframe[-1].value
    assert {"English CRF F1", "Hindi CRF F1", "English scored on", "Hindi scored on"} <= set(side_by_side.columns)
    # The export's card shows the same run, English and Hindi side by side, said to be of its time.
    from db.export_data import ExportOptions, export_files

    card = export_files(project_db, ExportOptions(), ["jsonl"])[0]["README.md"]
    assert "## CRF baseline" in card and "| English F1 | Hindi P | Hindi R | Hindi F1 |" in card
    assert "From the Dataset check's last baseline run" in card


def test_scored_predictions_join_the_leaderboard_after_the_crf_baseline(project_db):
    at = open_page(project_db, "boss")
    at.session_state["check_predictions"] = ("team.conll", _predictions(project_db))
    at.text_input(key="check_name").input("team gold").run()
    assert not at.error  # the file passed the check when it came
    at.button(key="check_score").click().run()
    assert not at.exception
    assert at.success and "overall F1 1.000" in at.success[0].value
    assert list(at.dataframe[-1].value["name"]) == ["team gold"]  # scored at once; the CRF row is a job
    assert any(i.value.startswith("The CRF baseline row is queued") for i in at.info)
    _run_jobs(project_db)
    at.run()
    board = at.dataframe[-1].value
    assert list(board["name"]) == ["CRF baseline", "team gold"]
    assert list(board["kind"]) == ["baseline", "submission"] and board["by"].iloc[1] == "boss"
    assert "tags" not in " ".join(board.columns)


def test_a_refused_file_lists_its_errors_by_sentence_at_once_and_cannot_be_submitted(project_db):
    data = _predictions(project_db).decode("utf-8")
    first_token = data.split("\t", 1)[0]
    data = "गलत" + data[len(first_token):]
    at = open_page(project_db, "boss")
    at.session_state["check_predictions"] = ("team.conll", data.encode("utf-8"))
    at.text_input(key="check_name").input("team wrong").run()
    assert not at.exception
    assert at.error and "refused" in at.error[0].value  # checked when it came, before any submission
    assert at.button(key="check_score").disabled
    errors = at.dataframe[0].value
    assert list(errors.columns) == ["file", "line", "sentence", "message"]
    assert "None" not in " ".join(errors["line"].astype(str)) + " ".join(errors["sentence"].astype(str))
    assert errors["sentence"].iloc[0].endswith("/test/" + errors["sentence"].iloc[0].rsplit("/", 1)[1])
    assert "token 1 is 'गलत'" in errors["message"].iloc[0]
    assert any("No submissions yet" in i.value for i in at.info)


def test_without_test_gold_evaluation_is_disabled_with_the_reason_before_any_upload(project_db):
    from sqlalchemy import update
    from sqlalchemy.orm import Session

    from db.models import SourceSentence

    with Session(project_db) as session:  # every sentence becomes train: no test split to score against
        session.execute(update(SourceSentence).values(split="train"))
        session.commit()
    at = open_page(project_db, "boss")
    assert not at.exception
    assert any("Evaluation is not possible yet" in i.value for i in at.info)
    assert at.button(key="check_score").disabled and at.text_input(key="check_name").disabled


def test_the_lead_sees_suggestion_figures_and_reviews_suspects_linked_to_the_sentence_view(project_db):
    from tests.support.app_pages import open_page as through_navigation

    at = through_navigation(project_db, "boss", "pages/dataset_check.py")  # suspects link to pages
    assert not at.exception
    assert any("annotators saw no model suggestions" in c.value for c in at.caption)
    assert [m.label for m in at.metric] == ["Accepted suggestions", "Suggestion precision",
                                            "Items where suggestions were seen"]
    at.toggle(key="check_suspects").set_value(True).run()
    assert not at.exception
    assert any(i.value.startswith("The gold check is queued") for i in at.info)
    _run_jobs(project_db)
    at.run()
    texts = [t.value for t in at.text]
    assert any("suspect item(s)" in c.value for c in at.caption) or any(
        "No gold item is contradicted" in i.value for i in at.info)
    assert all(" gold " in t and " model " in t for t in texts)


def test_each_suspect_opens_its_sentence_in_the_sentence_view(project_db, monkeypatch):
    import db.model_store
    from db.model_store import SuspectRow

    row = SuspectRow(7, "restaurant/train/42", "blind", 3, 1, "पिज़्ज़ा", "O", "B", 0.97)
    monkeypatch.setattr(db.model_store, "review_suspects", lambda engine, pid, confidence: [row])
    from tests.support.app_pages import open_page as through_navigation

    at = through_navigation(project_db, "boss", "pages/dataset_check.py")  # page links need it
    at.toggle(key="check_suspects").set_value(True).run()
    assert not at.exception
    _run_jobs(project_db)
    at.run()
    [link] = at.get("page_link")
    assert link.proto.label == "restaurant/train/42 · blind"
    assert "sentences" in link.proto.page and "id=7" in link.proto.query_string
    assert at.text[0].value == "token 2 “पिज़्ज़ा”: gold O, model B (97%)"


def test_a_failed_baseline_job_shows_why(project_db):
    from corpus.jobs import JobKind
    from db import jobs
    from db.schema import default_project

    job_id = jobs.enqueue(project_db, default_project(project_db), JobKind.DATASET_BASELINE)
    jobs.claim(project_db, "w")
    jobs.fail(project_db, job_id, "w", "ValueError: no gold Hindi sentence in <b>**test**</b>")
    at = open_page(project_db, "boss")
    assert not at.exception
    [shown] = [e.value for e in at.error]  # the error as text: its markup escaped, never rendered
    assert shown.replace("\\", "") == "The baseline failed: ValueError: no gold Hindi sentence in <b>**test**</b>"
    assert "\\*\\*test\\*\\*" in shown
    assert not at.dataframe
