"""Lead: the dataset checks itself. A CRF baseline on both sides, and outside models scored on the test split.

The CRF (``corpus.baseline``) trains in seconds to a minute, so it runs only when the lead asks, and as a job
(``db.jobs``): the page enqueues it and shows its state, never waits on it, and reruns when it ends. Uploaded
predictions are untrusted input: shown through dataframes and plain text only. Nothing here shows or
offers the test split's gold tags: a submission gets its scores, and a refused file gets located errors
that name tokens and sentences, never labels.
"""

import hashlib

import pandas as pd
import streamlit as st

from corpus.baseline import MIN_SENTENCES, PER_DOMAIN, SIDE_NAMES, CrfSettings, report_protocols, small_sample_warning
from corpus.evaluation import PredictionsRejected, check_predictions, evaluate_predictions, signature
from corpus.jobs import JobKind, JobState, needs_run
from corpus.vocabulary import Role
from db.baseline_data import add_entry, gold_test_split, leaderboard
from db.jobs import enqueue, latest
from db.model_store import SuspectRow, gold_stamp
from db.suggestion_model import model_info, suggestion_figures
from db.project_settings import load_settings
from ui.common import get_engine, project_id, require_role
from ui.jobs import show_job
from ui.text import md_escape

PREDICTIONS_KEY = "check_predictions"  # (file name, bytes) of the predictions to score
CHECKED_KEY = "check_checked"          # (file name, sha256, located errors) of the last upload, checked at once
RESULT_KEY = "check_result"          # ("scored", name, Evaluation) or ("refused", name, errors)

user = require_role(Role.LEAD)
st.title("Dataset check")
st.caption("Does the corpus teach a model? A CRF with word features (the seed paper's Table 3 baseline row) is "
           "trained and scored per domain on the English source (every imported sentence, tags from the SemEval "
           "offsets) and on the Hindi final translations (gold tags), side by side.")

st.subheader("CRF baseline")
settings = CrfSettings()
engine, pid = get_engine(), project_id()
if st.button("Run the baseline", key="check_run", type="primary"):
    enqueue(engine, pid, JobKind.DATASET_BASELINE)  # a job: trains off this page (up to a minute at paper scale)
baseline_job = latest(engine, pid, JobKind.DATASET_BASELINE)
show_job(engine, baseline_job, "The baseline", key="check_baseline_job")
last_done = latest(engine, pid, JobKind.DATASET_BASELINE, JobState.DONE)
report = last_done.result if last_done else None
if report is None:
    st.info("Run the baseline to see span precision, recall and F1 per domain for both sides.")
else:
    domains = sorted({d for side in ("en", "hi") for d in report[side] if d != "all"}) + ["all"]
    rows, warnings = [], []
    for domain in domains:
        row = {"domain": domain}
        for side, label in (("en", "English"), ("hi", "Hindi")):
            f = report[side].get(domain)
            for key, name in (("precision", "P"), ("recall", "R"), ("f1", "F1")):
                row[f"{label} {name}"] = None if f is None or f[key] is None else round(f[key], 3)
            scored = 0 if f is None else f["test_sentences"]
            row[f"{label} scored"] = scored
            row[f"{label} protocol"] = (f or {}).get("protocol") or ""
            warning = small_sample_warning(scored)  # also for a report stored before rows carried warnings
            if warning:
                warnings.append(f"{label}, {domain}: {warning}")
        rows.append(row)
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", key="check_table")
    if warnings:
        st.warning(f"Figures over fewer than {MIN_SENTENCES} sentences are unstable:\n\n"
                   + "\n".join(f"- {md_escape(w)}" for w in warnings))
    protocols = report_protocols(report)
    for side in ("en", "hi"):
        how = protocols.get(side, "")
        if not report[side]["all"]["test_sentences"]:
            how = "no labelled sentences yet"
        elif how.startswith(PER_DOMAIN):
            how = (f"per domain: trained on train and scored on the test split where the domain has one, "
                   f"else {settings.folds}-fold cross-validation over train (the protocol column says which)")
        elif "CV" in how:
            how = f"no test split: {settings.folds}-fold cross-validation over train (seed {settings.seed})"
        else:
            how = "trained on the train split, scored on the test split"
        st.caption(f"{SIDE_NAMES[side]}: {how}.")
    st.caption(f"Signature: {report['signature']}")



@st.cache_data(show_spinner=False, max_entries=8)
def _suggestion_figures(url: str, pid: int, stamp: str, _engine=None) -> tuple:  # noqa: ANN001
    return suggestion_figures(_engine, pid)


SUSPECT_CONFIDENCE = 0.9
url = engine.url.render_as_string(hide_password=True)
stamp = gold_stamp(engine, pid)

st.subheader("Model suggestions")
project = load_settings(engine, pid)
info = model_info(engine, pid)
if not project.model_suggestions:
    st.caption("Model suggestions are switched off for this project (Settings).")
elif info is None:
    st.caption(f"No suggestion model yet: the first one is trained in the background once the project has "
               f"{project.suggest_min_gold} gold items, then after every {project.suggest_retrain_every} more.")
else:
    st.caption(f"Suggestion model trained on {info.gold_count} gold items at {info.trained_at:%Y-%m-%d %H:%M} "
               f"({info.train_seconds:.1f} s CPU, in the background); retrained after every "
               f"{project.suggest_retrain_every} new gold items.")
retrain_job = latest(engine, pid, JobKind.RETRAIN)
if retrain_job is not None and (retrain_job.active or retrain_job.state == JobState.FAILED):
    show_job(engine, retrain_job, "Retraining the suggestion model", key="check_retrain_job")
with st.spinner("Reading what annotators were shown…"):
    quality, seen = _suggestion_figures(url, pid, stamp, _engine=engine)
c1, c2, c3 = st.columns(3)
c1.metric("Accepted suggestions", "n/a" if quality.acceptance_rate is None else f"{quality.acceptance_rate:.1%}",
          help=f"{quality.accepted} of {quality.shown} model spans shown were submitted exactly as suggested.")
c2.metric("Suggestion precision", "n/a" if quality.precision is None else f"{quality.precision:.1%}",
          help=f"{quality.correct} of {quality.judged} suggested spans on items with gold are exact gold spans.")
c3.metric("Items where suggestions were seen", f"{seen.seen} / {seen.items}")
st.caption(f"Agreement: {seen.statement()} (suggestions seen by annotators can inflate agreement).")

st.subheader("Review suspects")
st.caption(f"Gold items a cross-validated CRF contradicts with confidence ≥ {SUSPECT_CONFIDENCE:.0%} (each item is "
           "judged by a model trained without it), most confident first.")
if st.toggle("Check the gold for likely errors", key="check_suspects"):
    # A job (cross-validated CRFs: up to minutes): run for this gold (``stamp``) once, shown to every lead.
    suspects_job = latest(engine, pid, JobKind.REVIEW_SUSPECTS)
    if needs_run(suspects_job and suspects_job.state, suspects_job and suspects_job.arguments.get("stamp"), stamp):
        enqueue(engine, pid, JobKind.REVIEW_SUSPECTS, {"stamp": stamp, "min_confidence": SUSPECT_CONFIDENCE})
        suspects_job = latest(engine, pid, JobKind.REVIEW_SUSPECTS)
    elif suspects_job.state == JobState.FAILED and st.button("Check again", key="check_suspects_again"):
        enqueue(engine, pid, JobKind.REVIEW_SUSPECTS, {"stamp": stamp, "min_confidence": SUSPECT_CONFIDENCE})
        suspects_job = latest(engine, pid, JobKind.REVIEW_SUSPECTS)
    show_job(engine, suspects_job, "The gold check", key="check_suspects_job")
    checked = latest(engine, pid, JobKind.REVIEW_SUSPECTS, JobState.DONE)
    found = None if checked is None else [SuspectRow(**row) for row in checked.result]
    if checked is not None and checked.arguments.get("stamp") != stamp:
        st.caption("The gold changed since this check: the list below is of the earlier gold.")
    if found == []:
        st.info("No gold item is contradicted with that confidence.")
    elif found:
        st.caption(f"{len(found)} suspect item(s).")
        for i, row in enumerate(found[:100]):
            left, right = st.columns([3, 2])
            left.page_link("pages/sentences.py", label=f"{row.sentence_key} · {row.phase}",
                           query_params={"id": str(row.sentence_db_id)})
            right.text(f"token {row.token_index + 1} “{row.token}”: gold {row.gold}, model {row.predicted} "
                       f"({row.confidence:.0%})")

st.subheader("Evaluate a model's predictions")
st.caption("Predictions for the Hindi test split, with the export's tokens: CoNLL (token, tab, tag; a blank line "
           "between sentences; optional '# id = …' lines) or JSONL (\"tokens\", \"tags\", optional \"id\"). Scored "
           "with seqeval, strict IOB2 spans, per domain and overall; the submission joins the leaderboard.")


@st.cache_data(show_spinner=False, max_entries=4)
def _test_gold(url: str, pid: int, stamp: str, _engine=None) -> list:  # noqa: ANN001
    return gold_test_split(_engine, pid)


def _error_rows(errors) -> pd.DataFrame:  # noqa: ANN001
    return pd.DataFrame([{"file": e.file, "line": "" if e.line is None else str(e.line),
                          "sentence": e.sentence_id or "", "message": e.message} for e in errors],
                        columns=["file", "line", "sentence", "message"])


with st.spinner("Reading the test split…"):
    test_gold = _test_gold(url, pid, stamp, _engine=engine)
if not test_gold:
    st.info("Evaluation is not possible yet: the project has no Hindi test sentences with gold labels. Import a "
            "SemEval test file, then translate, tag and adjudicate its sentences (they are scored against that gold).")
uploaded = st.file_uploader("Predictions file", type=["conll", "txt", "tsv", "bio", "jsonl", "json"],
                            key="check_upload", disabled=not test_gold)
if uploaded is not None:
    st.session_state[PREDICTIONS_KEY] = (uploaded.name, uploaded.getvalue())
source = st.session_state.get(PREDICTIONS_KEY) if test_gold else None
checked_errors = None
if source is not None:
    file_name, data = source
    digest = hashlib.sha256(data).hexdigest()
    checked = st.session_state.get(CHECKED_KEY)
    if checked is None or checked[:2] != (file_name, digest):  # checked once per file, as soon as it comes
        _, _, errors = check_predictions(data, file_name, test_gold)
        st.session_state[CHECKED_KEY] = checked = (file_name, digest, errors)
    checked_errors = checked[2]
    if checked_errors:
        st.error(f"{md_escape(file_name)} was refused ({len(checked_errors)} error(s)) and cannot be scored; "
                 "nothing was added to the leaderboard. Fix the file and upload it again.")
        st.dataframe(_error_rows(checked_errors), hide_index=True, width="stretch", key="check_upload_errors")
    else:
        st.caption(f"{md_escape(file_name)}: every one of the {len(test_gold)} test sentences has a prediction "
                   "with the export's tokens.")
name = st.text_input("Submission name", key="check_name", max_chars=200, disabled=not test_gold)
ready = source is not None and not checked_errors and bool(" ".join(name.split()))
if st.button("Score and add to the leaderboard", key="check_score", disabled=not ready,
             help=None if ready else "Needs the test split's gold, a file that passed the check, and a name."):
    source = st.session_state.get(PREDICTIONS_KEY)
    clean = " ".join(name.split())
    if not source:
        st.error("Choose a predictions file first.")
    elif not clean:
        st.error("Give the submission a name.")
    else:
        file_name, data = source
        with st.spinner("Scoring…"):
            gold = test_gold
            try:
                evaluation = evaluate_predictions(data, file_name, gold)
            except PredictionsRejected as exc:
                st.session_state[RESULT_KEY] = ("refused", clean, exc.errors)
            else:
                add_entry(get_engine(), clean, evaluation, signature(), submitted_by=user.id)
                # The CRF row for this export version, if missing: a job (it trains), shown below.
                enqueue(engine, pid, JobKind.LEADERBOARD_BASELINE)
                st.session_state[RESULT_KEY] = ("scored", clean, evaluation)

result = st.session_state.get(RESULT_KEY)
if result is not None and result[0] == "refused":
    _, who, errors = result
    st.error(f"{md_escape(who)}: the file was refused ({len(errors)} error(s)); nothing was added to the leaderboard.")
    st.dataframe(_error_rows(errors), hide_index=True, width="stretch", key="check_errors")
elif result is not None:
    _, who, evaluation = result
    st.success(f"{md_escape(who)}: overall F1 {evaluation.f1:.3f} on {evaluation.sentences} test sentences "
               f"(export version {evaluation.export_version}).")
    st.dataframe(pd.DataFrame([{"domain": d, "P": f["precision"], "R": f["recall"], "F1": f["f1"],
                                "sentences": f["test_sentences"]} for d, f in evaluation.scores.items()]),
                 hide_index=True, key="check_scores")

st.subheader("Leaderboard")
board_job = latest(engine, pid, JobKind.LEADERBOARD_BASELINE)
if board_job is not None and (board_job.active or board_job.state == JobState.FAILED):
    show_job(engine, board_job, "The CRF baseline row", key="check_board_job")
rows = leaderboard(get_engine(), result[2].export_version if result and result[0] == "scored" else None)
if not rows:
    st.info("No submissions yet. The CRF baseline joins as the first row with the first submission.")
else:
    domains = sorted({d for r in rows for d in r.scores if d != "all"})
    table = pd.DataFrame([
        {"name": r.name, "kind": r.kind, "date": r.created_at.strftime("%Y-%m-%d %H:%M"),
         "P": r.scores["all"]["precision"], "R": r.scores["all"]["recall"], "F1": r.f1,
         **{f"F1 {d}": (r.scores.get(d) or {}).get("f1") for d in domains},
         "export version": r.export_version, "by": r.submitted_by or ""}
        for r in rows])
    st.dataframe(table, hide_index=True, width="stretch", key="check_leaderboard")
    st.caption(f"Scoring: {signature()}. Rows scored against an older export version were scored on "
               "different gold and are listed after the current ones.")
if report is not None:  # the paper's argument: a model learns from the Hindi corpus about as well as from English
    side_by_side = [
        {"domain": d,
         **{f"{label} CRF F1": None if (report[side].get(d) or {}).get("f1") is None
            else round(report[side][d]["f1"], 3) for side, label in (("en", "English"), ("hi", "Hindi"))},
         **{f"{label} scored on": f"{(report[side].get(d) or {}).get('protocol') or 'n/a'}, "
                                  f"n={(report[side].get(d) or {}).get('test_sentences', 0)}"
            for side, label in (("en", "English"), ("hi", "Hindi"))}}
        for d in sorted({d for side in ("en", "hi") for d in report[side] if d != "all"}) + ["all"]]
    st.caption("The CRF baseline on both sides (last baseline run), beside the leaderboard's Hindi figures:")
    st.dataframe(pd.DataFrame(side_by_side), hide_index=True, width="stretch", key="check_side_by_side")
