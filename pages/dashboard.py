"""Lead dashboard: where is the problem. The seed paper's Table 2 on top, then the lowest-agreement
sentences, translators, annotators and domains, worst first, each figure with what it is over; every
sentence opens the sentence view. Progress, coverage, agreement over time, and on demand code-mixing
(CMI) and the spelling-tolerant ROUGE-L below; how each figure is computed sits in one expander.

Every number comes from ``corpus`` (``metrics``, ``ranking``, ``progress``, ``codemix``, ``phonetic``)
over ``db.metrics_data``; this page only renders. A new save shows on the next run: the figures are cached
per generation of the counted corpus (``CountedCorpora``), which a save of something counted moves and a
draft saved does not; what counts open work is cached per save stamp (``latest_save``).
"""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from urllib.parse import urlencode

import altair as alt
import pandas as pd
import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from corpus.agreement import MetricsInput, filter_input
from corpus.codemix import CMI_SIGNATURE, LANG_TAGS, cmi, corpus_cmi, keep_roman_entities, sentence_tags
from corpus.export.selection import left_out_summary
from corpus.metrics import (
    EXPLANATIONS,
    agreement_by_week,
    annotator_pair_rows,
    compute_agreement,
    histogram,
    paused_gc,
    sentence_agreement,
    summary_rows,
    undefined_reasons,
)
from corpus.phonetic import spelling_tolerant_report
from corpus.progress import filter_counts, person_progress, phase_progress, submitted_counts
from corpus.ranking import (
    BOOTSTRAP_NOTE,
    NOT_DEFINED,
    annotator_ranking,
    domain_figures,
    domain_ranking,
    figure_text,
    in_scope,
    sentence_ranking,
    share_text,
    table2_basis,
    table2_rows,
    translator_ranking,
    week_points,
    week_table,
)
from corpus.spreadsheet import frame_csv
from corpus.vocabulary import Status
from db.browse import domains_and_splits
from db.export_data import left_out_counts, left_out_stamp
from db.metrics_data import MetricsSnapshot, latest_save, load_metrics_snapshot, load_progress, project_settings
from db.model_store import suggestion_exposure
from db.projection import suggestion_figures
from db.queries import final_translations, keep_roman_glossary
from ui.common import get_engine, project_id, require_role
from ui.heap import loaded_outside_collections

require_role("lead")
engine = get_engine()
pid = project_id()
DB_KEY = engine.url.render_as_string(hide_password=True)
SENTENCE_VIEW = "pages/sentences.py"
LOWEST = 200  # sentence-phase units listed (all of them in the CSV)


class CountedCorpora:
    """Server-wide, per (database, project): the latest metrics snapshot, the save stamp it was loaded for,
    and the corpus the figures count, numbered by generation. A save that changes nothing counted (every
    autosave of a draft) changes the stamp, not the generation, so the figures cached for it stay; a load
    after a save reads only the rows that changed (``db.metrics_data.load_metrics_snapshot``)."""

    KEPT = 3  # generations kept: a run still computing an older one finds its corpus

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._latest: dict[tuple, tuple[tuple, MetricsSnapshot, int]] = {}
        self._corpus: dict[tuple, MetricsInput] = {}

    def generation(self, engine, db: str, project: int, stamp: tuple) -> tuple[int, bool]:
        """The generation of the corpus counted at ``stamp``, and whether it is new. (Everything it uses comes
        in as arguments: this object outlives the script run that made it, and that run's globals.)"""
        with self._lock:
            latest = self._latest.get((db, project))
            if latest is not None and latest[0] == stamp:
                return latest[2], False
            before = latest[1] if latest is not None else None
            with loaded_outside_collections():
                snapshot = load_metrics_snapshot(engine, project, before)
            new = latest is None or snapshot.data is not before.data
            if not new:
                generation = latest[2]
            else:
                generation = latest[2] + 1 if latest is not None else 0
                self._corpus[(db, project, generation)] = snapshot.data
                for key in [k for k in self._corpus if k[:2] == (db, project) and k[2] <= generation - self.KEPT]:
                    del self._corpus[key]
            self._latest[(db, project)] = (stamp, snapshot, generation)
            return generation, new

    def corpus(self, db: str, project: int, generation: int) -> MetricsInput:
        return self._corpus[(db, project, generation)]


@st.cache_resource(show_spinner=False)
def _corpora() -> CountedCorpora:
    return CountedCorpora()


def _scoped(db: str, project: int, generation: int, domains: tuple[str, ...], splits: tuple[str, ...]):
    """The filters' input; an empty filter means every domain (split), not none."""
    return filter_input(_corpora().corpus(db, project, generation), domains or None, splits or None)


@st.cache_resource(show_spinner=False, max_entries=6)
def _agreement(db: str, project: int, generation: int, domains: tuple[str, ...], splits: tuple[str, ...],
               domain: str | None, phase: str | None):
    """Every figure of the filters' input, narrowed to a domain and phase (None: all). One cache entry per
    scope: callers pass all seven arguments, so the whole corpus is computed once. Kept as they are, not
    pickled on every hit."""
    data = in_scope(_scoped(db, project, generation, domains, splits), domain, phase)
    return data, compute_agreement(data)


@st.cache_data(show_spinner=False, max_entries=4)
def _exposure(db: str, project: int, stamp: tuple):
    """Whether annotators saw model suggestions, read once per save like the figures it qualifies."""
    return suggestion_exposure(engine, project)


@st.cache_data(show_spinner=False, max_entries=4)
def _suggestion_report(db: str, project: int, stamp: tuple):
    """Suggestion precision, recall and acceptance per source and keys per item, read once per save."""
    return suggestion_figures(engine, project)


SOURCE_LABELS = {"map": "translator's own map", "aware": "aware sisters' maps", "glossary": "glossary",
                 "transliteration": "loanword transliteration", "crf": "model (CRF)", "llm": "local language model",
                 "all": "all sources"}


def suggestion_rows(report) -> list[dict]:
    return [{"source": SOURCE_LABELS.get(r.source, r.source), "shown": r.shown,
             "acceptance": figure_text(r.acceptance_rate), "precision": figure_text(r.precision),
             "recall": figure_text(r.recall), "suggested spans judged": r.judged, "gold spans": r.gold}
            for r in report.by_source]


@st.cache_data(show_spinner=False, max_entries=8)
def _overview(db: str, project: int, generation: int, domains: tuple[str, ...], splits: tuple[str, ...]) -> dict:
    data, agreement = _agreement(db, project, generation, domains, splits, None, None)
    with paused_gc():
        return _overview_tables(data, agreement)


def _overview_tables(data, agreement) -> dict:
    summary = agreement.report_summary()
    coverage = agreement.coverage
    pk_of = {(s.domain, s.split, s.sentence_id): s.pk for s in data.sentences}
    rouge = agreement.rouge
    return {
        "sentences": len(data.sentences),
        "table2": table2_rows(agreement),
        "table2_numbers": summary_rows(summary),
        "basis": table2_basis(data, agreement),
        "reasons": undefined_reasons(summary),
        "rouge_l": agreement.rouge_l,
        "signature": agreement.signature,
        "domains": domain_figures(data, agreement),
        "weeks": agreement_by_week(agreement),
        "annotator_pairs": annotator_pair_rows(agreement),
        "pair_histogram": histogram(rouge.pair_f, [rouge.unit_phase[u] for u in rouge.pair_unit.tolist()]),
        "coverage": {**coverage, "sentences": [
            {"id": pk_of[(r["domain"], r["split"], r["sentence_id"])], **r} for r in coverage["sentences"]]},
    }


@st.cache_data(show_spinner=False, max_entries=8)
def _ranked(db: str, project: int, generation: int, domains: tuple[str, ...], splits: tuple[str, ...],
            domain: str | None, phase: str | None) -> dict:
    data, agreement = _agreement(db, project, generation, domains, splits, domain, phase)
    with paused_gc():  # thousands of rows and no cycles: no full collection over the corpus meanwhile
        units = sentence_agreement(data, agreement)
        return {
            "sentences": sentence_ranking(data, agreement, LOWEST, rows=units),
            "units": len(units),
            "translators": translator_ranking(agreement),
            "annotators": annotator_ranking(agreement),
        }


def _all_sentences(db: str, project: int, generation: int, domains: tuple[str, ...], splits: tuple[str, ...],
                   domain: str | None, phase: str | None) -> list[dict]:
    data, agreement = _agreement(db, project, generation, domains, splits, domain, phase)
    return sentence_ranking(data, agreement)


@st.cache_resource(show_spinner=False, max_entries=2)
def _open_work(db: str, project: int, stamp: tuple) -> Future:
    """The open work (``load_progress``), read in a thread of its own as soon as the save stamp is known:
    the read is SQL that SQLite and PostgreSQL run while this run computes the figures (their drivers let
    go of the interpreter meanwhile)."""
    return _reads().submit(load_progress, engine, project, False)


@st.cache_resource(show_spinner=False)
def _reads() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=2, thread_name_prefix="dashboard-read")


@st.cache_data(show_spinner=False, max_entries=4)
def _progress(db: str, project: int, stamp: tuple, generation: int, domains: tuple[str, ...],
              splits: tuple[str, ...]) -> dict:
    data = _scoped(db, project, generation, domains, splits)
    read = _open_work(db, project, stamp)
    if read.exception() is not None:
        _open_work.clear()  # a failed read (a busy database) is tried again on the next run, not kept
    open_work = read.result()
    counts = filter_counts(open_work, domains or None, splits or None) + submitted_counts(data)
    return {
        "phases": phase_progress(counts, project_settings(engine, project)["annotators_per_item"]),
        "people": person_progress(counts),
    }


@st.cache_data(show_spinner=False, max_entries=4)
def _codemix(db: str, project: int, stamp: tuple, generation: int, domains: tuple[str, ...], splits: tuple[str, ...],
             entities: tuple[str, ...]) -> dict:
    """CMI over the final translation of each sentence in scope; every submitted translation when none is chosen."""
    data = _scoped(db, project, generation, domains, splits)
    in_scope_ = {s.pk: s for s in data.sentences}
    every_final = final_translations(engine, project)
    finals = {pk: f for pk, f in every_final.items() if pk in in_scope_}
    if finals:
        chosen = [(in_scope_[f.sentence_pk], f.phase, f.translator, f.text) for f in finals.values()
                  if f.translation_pk is not None and f.text is not None]
    else:
        chosen = [(in_scope_[t.sentence_pk], t.phase, t.translator, t.text) for t in data.translations
                  if t.translated and t.sentence_pk in in_scope_]
    chosen.sort(key=lambda r: (r[0].domain, r[0].split, r[0].ordinal, r[0].sentence_id, r[1], r[2]))
    tags = [sentence_tags(text, s.text, entities) for s, *_, text in chosen]
    rows = [
        {"domain": s.domain, "split": s.split, "sentence_id": s.sentence_id, "phase": phase, "translator": who,
         "cmi": cmi(tg), "tokens": len(tg), **{t: tg.count(t) for t in LANG_TAGS}, "text": text}
        for (s, phase, who, text), tg in zip(chosen, tags)
    ]
    return {
        "basis": "final" if finals else Status.SUBMITTED,
        "finals_in_project": len(every_final),
        "summary": corpus_cmi(tags).to_dict(),
        "rows": rows,
        "sentences_in_scope": len(in_scope_),
        "without_final": len(in_scope_) - len(finals),
        "left_out": sum(1 for f in finals.values() if f.translation_pk is None),
    }


@st.cache_data(show_spinner=False, max_entries=4)
def _spelling(db: str, project: int, generation: int, domains: tuple[str, ...], splits: tuple[str, ...]) -> dict:
    _, agreement = _agreement(db, project, generation, domains, splits, None, None)
    return spelling_tolerant_report(agreement.rouge, limit=50)


def csv_button(label: str, rows, name: str, where=st) -> None:
    """A CSV download; the file is built only when clicked."""

    def build() -> bytes:
        frame = rows() if callable(rows) else rows
        return frame_csv(pd.DataFrame(frame))

    where.download_button(f"CSV: {label}", build, file_name=f"{name}.csv", mime="text/csv", key=f"csv_{name}",
                          on_click="ignore")


NARROW = 64  # px: a figure or count column; five of them fit a phone (390 px) without sideways scrolling


def figure_column(label: str, help: str | None = None):
    return st.column_config.NumberColumn(label, format="%.3f", help=help, width=NARROW)


def count_column(label: str, help: str | None = None):
    return st.column_config.NumberColumn(label, help=help, width=NARROW)


def table(rows: list[dict], key: str, **options):
    """A table as wide as the page, "—" in every undefined cell."""
    return st.dataframe(pd.DataFrame(rows), hide_index=True, key=key, width="stretch", placeholder=NOT_DEFINED,
                        **options)


def open_link(row: dict, label: str, where=st) -> None:
    where.page_link(SENTENCE_VIEW, label=label, query_params={"id": str(row["id"])}, icon=":material/open_in_new:")


def selected(event, rows: list[dict]) -> dict | None:
    picked = (event or {}).get("selection", {}).get("rows") or []
    return rows[picked[0]] if picked and picked[0] < len(rows) else None


st.title("Agreement dashboard")
all_domains, all_splits = domains_and_splits(engine)
left, right = st.columns(2)
domains = tuple(sorted(left.multiselect("Domain", all_domains, key="dash_domains", placeholder="All domains")))
splits = tuple(sorted(right.multiselect("Split", all_splits, key="dash_splits", placeholder="All splits")))
if not all_domains:
    st.info("No sentences yet: import SemEval-2014 sentences first.")
    st.stop()

with st.spinner("Computing agreement over the whole corpus…"):
    stamp = latest_save(engine, pid)
    _open_work(DB_KEY, pid, stamp)  # read meanwhile
    generation, new_corpus = _corpora().generation(engine, DB_KEY, pid, stamp)
    if new_corpus:
        _agreement.clear()  # the figures of older corpora serve nobody: one corpus's figures in the process
    overview = _overview(DB_KEY, pid, generation, domains, splits)

# --- What keeps sentences out of the dataset (the Export page's counts) --------------------------------
@st.cache_data(show_spinner=False, max_entries=4)
def _left_out(db: str, project: int, generation: int, decisions: tuple) -> tuple[int, int, int]:
    """Keyed by the counted corpus and the decisions beside it, not by every save (a draft moves neither)."""
    return tuple(left_out_summary(left_out_counts(engine, project)))


def _resolve_link(where, page: str, label: str, params: dict[str, str]) -> None:
    try:
        where.page_link(page, label=label, query_params=params)
    except StreamlitPageNotFoundError:  # this file run on its own, without the app's navigation: a plain link
        where.markdown(f"[{label}](/{page.removeprefix('pages/').removesuffix('.py')}?{urlencode(params)})")


not_translated, awaiting, for_a_reason = _left_out(DB_KEY, pid, generation, left_out_stamp(engine, pid))
o1, o2, o3 = st.columns(3)
o1.metric("Not translated yet", f"{not_translated:,}",
          help="No translator has submitted a translation yet (these three: the whole project, as Export counts).")
o2.metric("Awaiting a final decision", f"{awaiting:,}",
          help="Translations are submitted; no final translation is chosen yet.")
o3.metric("Left out for a reason", f"{for_a_reason:,}",
          help="Untranslatable by majority, left out by the lead, not tagged, annotators disagree, …")
if not_translated:
    _resolve_link(o1, "pages/assign.py", f"Assign the {not_translated:,} untranslated sentence(s)",
                  {"phase": "aware", "show": "unassigned"})
if awaiting:
    _resolve_link(o2, "pages/final.py", f"Decide the {awaiting:,} final translation(s)", {"show": "undecided"})
if for_a_reason:
    _resolve_link(o3, "pages/export.py", "See them by reason on Export", {})

# --- Table 2 -----------------------------------------------------------------------------------------
st.subheader("Agreement (seed paper Table 2)")
st.caption(overview["basis"])
table(overview["table2"], "dash_table2", column_config={
    "figure": st.column_config.TextColumn("", width=100),
    **{c: st.column_config.TextColumn(c, width=NARROW) for c in ("aware", "blind", "overall", "best")}})
st.caption("Model suggestions and kappa: " + _exposure(DB_KEY, pid, stamp).statement()
           + " (suggestions seen while tagging can inflate agreement).")
suggestions = _suggestion_report(DB_KEY, pid, stamp)
st.caption("Suggestions and kappa: " + suggestions.exposure_statement() + ".")
if suggestions.by_source:
    st.markdown("**Suggestions in the span editor**, per source, against the gold in force")
    table(suggestion_rows(suggestions), "dash_suggestions", column_config={
        "acceptance": figure_column("acceptance", "Shown spans the submitted annotation kept exactly"),
        "precision": figure_column("precision", "Distinct suggested spans that are exact gold spans"),
        "recall": figure_column("recall", "Gold spans (on items whose saves recorded what they showed) suggested"),
        "shown": count_column("shown"), "suggested spans judged": count_column("judged"),
        "gold spans": count_column("gold spans")})
    st.caption(f"Keys and clicks per submitted item: {figure_text(suggestions.keys_with, 1)} with suggestions "
               f"({suggestions.annotations_with} annotations), {figure_text(suggestions.keys_without, 1)} without "
               f"({suggestions.annotations_without}).")
coverage = overview["coverage"]
st.metric("Sentences that lost aspects in the aspect-blind phase", share_text(coverage["fewer_in_blind"], coverage["compared"]),
          help="Of the sentences with both an aspect-aware and an aspect-blind translation.")

# --- Where is the problem -----------------------------------------------------------------------------
st.subheader("Where agreement is lowest")
bars = [r for r in overview["domains"] if r["phase"] != "all" and r["ROUGE-L"] is not None]
scope_domain = scope_phase = None
if bars:
    pick = alt.selection_point(name="pick", fields=["domain", "phase"])
    # Plain field names: Vega expressions choke on an apostrophe ("Fleiss' kappa") and draw nothing.
    chart = alt.Chart(pd.DataFrame(bars).rename(columns={"ROUGE-L": "rouge_l", "Fleiss' kappa": "kappa"})).mark_bar().encode(
        x=alt.X("rouge_l:Q", title="ROUGE-L F between translators", scale=alt.Scale(domain=[0, 1])),
        y=alt.Y("domain:N", title=None),
        yOffset=alt.YOffset("phase:N"),
        color=alt.Color("phase:N", legend=alt.Legend(orient="bottom")),
        opacity=alt.condition(pick, alt.value(1.0), alt.value(0.35)),
        # Channel objects, not bare names: each bare name costs Altair a schema lookup (about 7 ms).
        tooltip=[alt.Tooltip("domain:N"), alt.Tooltip("phase:N"),
                 alt.Tooltip("rouge_l:Q", title="ROUGE-L", format=".3f"), alt.Tooltip("units:Q"),
                 alt.Tooltip("pairs:Q"), alt.Tooltip("kappa:Q", title="Fleiss' kappa", format=".3f"),
                 alt.Tooltip("tokens:Q")],
    ).add_params(pick)
    event = st.altair_chart(chart, on_select="rerun", selection_mode="pick", key="dash_scope", width="stretch")
    chosen = (event or {}).get("selection", {}).get("pick") or []
    if chosen:
        scope_domain, scope_phase = chosen[0].get("domain"), chosen[0].get("phase")
st.caption(
    "Lists below: " + (f"**{scope_domain} · {scope_phase}** only (click the bar again to see everything)."
                       if scope_domain else "every domain and phase. Click a bar to narrow them to it.")
)
with st.spinner("Ranking…"):
    ranked = _ranked(DB_KEY, pid, generation, domains, splits, scope_domain, scope_phase)

st.markdown("**Lowest-agreement sentences**")
sentences = ranked["sentences"]
if not sentences:
    st.info("No sentence has two translations or two annotators in a phase yet.")
else:
    st.caption(f"The {min(len(sentences), LOWEST)} least-agreeing of {ranked['units']:,} sentence-phase units: "
               "ROUGE-L between its translators over its pairs, then the share of tokens all annotators tag alike. "
               "Select a row to open it.")
    event = table(sentences, "dash_lowest", on_select="rerun", selection_mode="single-row",
                  column_order=["ROUGE-L", "pairs", "English", "Hindi kept", "phase", "tag agreement", "sentence"],
                  column_config={
                      "ROUGE-L": figure_column("ROUGE-L"),
                      "pairs": count_column("pairs"),
                      "tag agreement": figure_column("tag agreement", "share of tokens every annotator tags alike"),
                      "English": st.column_config.TextColumn("English", width="medium"),
                      "Hindi kept": st.column_config.TextColumn("Hindi kept", width="medium",
                                                                help="the phase's best translation (highest mean ROUGE-L)"),
                  })
    row = selected(event, sentences)
    if row is None:
        open_link(sentences[0], f"Open the lowest: {sentences[0]['sentence']} ({sentences[0]['phase']})")
    else:
        open_link(row, f"Open {row['sentence']} ({row['phase']})")

st.markdown("**Translators: agreement with the others**")
if ranked["translators"]:
    table(ranked["translators"], "dash_translators", column_config={
        "ROUGE-L vs others": figure_column("ROUGE-L", "mean ROUGE-L F over the pairs with another translator"),
        "95% interval": st.column_config.TextColumn("95% CI", width=80, help=BOOTSTRAP_NOTE),
        "pairs": count_column("pairs"),
    })
else:
    st.info("No sentence has two translations in a phase yet.")

st.markdown("**Annotators: agreement with the others**")
if ranked["annotators"]:
    table(ranked["annotators"], "dash_annotators", column_config={
        "kappa vs others": figure_column("kappa", "Cohen's kappa over the tokens shared with the other annotators"),
        "tokens": count_column("tokens"), "translations": count_column("translations"),
    })
else:
    st.info("No translation has been tagged by two annotators yet.")

st.markdown("**Domains**")
table(domain_ranking(overview["domains"]), "dash_domain_list", column_config={
    "ROUGE-L": figure_column("ROUGE-L"), "units": count_column("units", "sentence-phase units"),
    "Fleiss' kappa": figure_column("kappa", "Fleiss' kappa"), "tokens": count_column("tokens"),
})

# --- Over time, progress, coverage -------------------------------------------------------------------
st.subheader("Agreement by week of submission")
points = week_points(overview["weeks"])
if not points:
    st.info("Nothing submitted yet.")
else:
    st.altair_chart(
        alt.Chart(pd.DataFrame(points)).mark_line(point=True).encode(
            x=alt.X("week:T", title="week (Monday)", axis=alt.Axis(format="%d %b")),
            y=alt.Y("value:Q", title=None),
            color=alt.Color("figure:N", title=None, legend=alt.Legend(orient="bottom")),
            detail=alt.Detail("run:N"),
            tooltip=[alt.Tooltip("week:T"), alt.Tooltip("figure:N"), alt.Tooltip("value:Q", format=".3f"),
                     alt.Tooltip("n:Q")],
        ),
        width="stretch",
    )
    st.caption("A point per week with data; weeks without any are gaps. n: pairs (ROUGE-L), tagged translations (kappa).")

st.subheader("Progress")
progress = _progress(DB_KEY, pid, stamp, generation, domains, splits)
table([{k: r[k] for k in ("phase", "translations submitted", "translations assigned", "translated % (of assigned)",
                          "tagged % (of submitted translations x K)")} for r in progress["phases"]],
      "dash_progress_phases", column_config={
          "translated % (of assigned)": st.column_config.NumberColumn("translated %", format="%.1f",
                                                                     help="submitted of the translation tasks handed out"),
          "tagged % (of submitted translations x K)": st.column_config.NumberColumn(
              "tagged %", format="%.1f", help="submitted annotations of submitted translations x annotators per item"),
      })

if coverage["sentences"]:
    st.markdown("**Sentences that lost aspects in the aspect-blind phase**")
    lost = [{k: r[k] for k in ("id", "aware_kept", "blind_kept", "text", "domain", "sentence_id")} for r in coverage["sentences"]]
    event = table(lost, "dash_coverage", on_select="rerun", selection_mode="single-row",
                  column_order=["aware_kept", "blind_kept", "text", "domain", "sentence_id"],
                  column_config={"aware_kept": st.column_config.NumberColumn("aware kept", width="small"),
                                 "blind_kept": st.column_config.NumberColumn("blind kept", width="small"),
                                 "text": "English", "sentence_id": "id"})
    row = selected(event, lost)
    if row is not None:
        open_link(row, f"Open {row['domain']}/{row['sentence_id']}")

# --- Method, more tables, downloads -------------------------------------------------------------------
with st.expander("How these figures are computed"):
    for key in ("rouge", "best", "fleiss", "coverage"):
        st.caption(EXPLANATIONS[key])
    rouge = overview["rouge_l"]
    st.caption(
        f"ROUGE-L over {rouge['units']['aware']} aware and {rouge['units']['blind']} blind sentence-phase units "
        f"({rouge['pairs']} pairs); {rouge['excluded_units']} sentence-phase units left out for having fewer than "
        f"2 translations. Weighting: {rouge['weighting']}. Unweighted: aware "
        f"{figure_text(rouge['unweighted']['aware'])}, blind {figure_text(rouge['unweighted']['blind'])}, overall "
        f"{figure_text(rouge['unweighted']['overall'])}, best {figure_text(rouge['unweighted']['best'])}."
    )
    st.caption(f"{NOT_DEFINED}: not defined. Fleiss' kappa has no “best” figure: “best” scores the chosen translation "
               "of each sentence against the other translations, and kappa is not defined for the chosen translation alone.")
    for reason in overview["reasons"]:
        st.caption(reason)
    st.caption("Translators: mean ROUGE-L F over every pair with another translator, both phases. " + BOOTSTRAP_NOTE)
    st.caption("Annotators: Cohen's kappa over the tokens an annotator shares with each other annotator, pooled. "
               "Domains: ROUGE-L weighted as Table 2; Fleiss' kappa over the domain's tokens.")
    st.caption("Signature: " + overview["signature"]["text"])

with st.expander("More tables and the CSV downloads"):
    hist = pd.DataFrame(overview["pair_histogram"])
    if not hist.empty and hist["count"].sum():
        st.altair_chart(
            alt.Chart(hist).mark_bar().encode(
                x=alt.X("from:Q", bin="binned", title="ROUGE-L F of a translation pair"), x2=alt.X2("to:Q"),
                y=alt.Y("count:Q", title="pairs"), color=alt.Color("group:N", title="phase"),
                tooltip=[alt.Tooltip("group:N"), alt.Tooltip("from:Q"), alt.Tooltip("to:Q"),
                         alt.Tooltip("count:Q")],
            ),
            width="stretch",
        )
    st.markdown("**Annotator pairs**")
    table(overview["annotator_pairs"], "dash_annotator_pairs")
    st.markdown("**Agreement by week**")
    table(week_table(overview["weeks"]), "dash_weeks")
    st.markdown("**Progress per person**")
    table(progress["people"], "dash_progress_people")
    scope = {"domain": scope_domain, "phase": scope_phase}
    for label, rows, name in (
        ("Table 2", overview["table2_numbers"], "table2"),
        (f"agreement of all {ranked['units']} sentence-phase units",
         lambda: _all_sentences(DB_KEY, pid, generation, domains, splits, **scope), "sentence_agreement"),
        ("translators", ranked["translators"], "translators"),
        ("annotators", ranked["annotators"], "annotators"),
        ("annotator pairs", overview["annotator_pairs"], "annotator_pairs"),
        ("domains", overview["domains"], "domains"),
        ("agreement by week", overview["weeks"], "agreement_by_week"),
        ("progress per phase", progress["phases"], "progress_phases"),
        ("progress per person", progress["people"], "progress_people"),
        ("coverage", coverage["sentences"], "coverage"),
        ("suggestions per source", suggestion_rows(suggestions), "suggestions_per_source"),
    ):
        csv_button(label, rows, name)

# --- Code-mixing and spelling (on demand) -----------------------------------------------------------
st.subheader("Code-mixing and spelling-tolerant ROUGE-L")
st.caption("Computed when switched on, then kept until the next save.")

TAG_MEANINGS = {
    "lang1": "English (Roman script)",
    "lang2": "Hindi (Devanagari, transliterated borrowings included)",
    "ne": "named entity (a keep-Roman glossary term or a name the English source capitalises)",
    "other": "punctuation, numbers, symbols",
}

if st.toggle("Code-mixing (CMI)", key="dash_codemix"):
    entities = tuple(keep_roman_entities(keep_roman_glossary(engine, pid)))
    mixing = _codemix(DB_KEY, pid, stamp, generation, domains, splits, entities)
    st.caption(
        "Code-Mixing Index (Gambäck & Das 2014): per sentence 100 × (1 − tokens of the dominant language / tokens "
        "that carry a language), named entities and punctuation carrying none; 0 means one language only. "
        "Averaged over all sentences and over code-mixed (CMI > 0) sentences only, as LinCE reports it."
    )
    if mixing["basis"] == Status.SUBMITTED and not mixing["finals_in_project"]:
        st.info("No final translations chosen yet: CMI over every submitted translation (all translators, both "
                "phases). Choose final translations on the Final translation page to measure the dataset itself.")
    elif mixing["basis"] == Status.SUBMITTED:
        st.info(f"None of the {mixing['sentences_in_scope']} sentences in this filter has a final translation yet "
                f"({mixing['finals_in_project']} in the project): CMI over every submitted translation here.")
    else:
        st.caption(
            f"Over the final translation of each sentence: {mixing['summary']['sentences']} of "
            f"{mixing['sentences_in_scope']} sentences; {mixing['without_final']} have no final translation yet and "
            f"{mixing['left_out']} were left out by a lead (not counted)."
        )
    summary = mixing["summary"]
    cmi_summary = [{k: summary[k] for k in ("sentences", "code_mixed", "code_mixed_pct", "cmi_all", "cmi_mixed")}]
    table(cmi_summary, "dash_cmi", column_config={
        "code_mixed_pct": st.column_config.NumberColumn("code-mixed %", format="%.1f"),
        "cmi_all": st.column_config.NumberColumn("CMI, all sentences", format="%.2f"),
        "cmi_mixed": st.column_config.NumberColumn("CMI, code-mixed only", format="%.2f"),
    })
    csv_button("CMI summary", cmi_summary, "cmi_summary")
    cmi_tags = [{"tag": t, "meaning": TAG_MEANINGS[t], "tokens": summary["tag_counts"][t]} for t in LANG_TAGS]
    table(cmi_tags, "dash_cmi_tags")
    csv_button("language tags", cmi_tags, "cmi_tags")
    st.caption(
        f"Named entities (guideline 1), matched case-insensitively: {len(entities)} forms of keep-Roman glossary "
        "terms, and Roman words the sentence's English source capitalises as names (not common words that "
        "only open a sentence); the same rule labels the lince export and the dataset card."
    )
    mixed_rows = sorted((r for r in mixing["rows"] if r["cmi"] > 0), key=lambda r: -r["cmi"])[:20]
    if mixed_rows:
        st.caption("Most code-mixed sentences")
        table(mixed_rows, "dash_cmi_sentences")
    csv_button("CMI per sentence", mixing["rows"], "cmi_per_sentence")
    st.caption("Signature: " + CMI_SIGNATURE)

if st.toggle("Spelling-tolerant ROUGE-L", key="dash_spelling"):
    with st.spinner("Scoring every translation pair with spelling variants folded…"):
        spelling = _spelling(DB_KEY, pid, generation, domains, splits)
    columns = ("aware", "blind", "overall")
    spelling_figures = [
        {"figure": "ROUGE-L F, raw (official)", **{c: spelling["raw"][c] for c in columns}},
        {"figure": "ROUGE-L F, spelling-tolerant", **{c: spelling["normalized"][c] for c in columns}},
    ]
    table(spelling_figures, "dash_spelling_table",
          column_config={c: st.column_config.NumberColumn(c, format="%.3f") for c in columns})
    csv_button("ROUGE-L raw and spelling-tolerant", spelling_figures, "spelling_tolerant_rouge")
    st.caption(
        "Spelling-tolerant ROUGE-L counts two words as equal when they are the same word spelt differently "
        "(की-बोर्ड / कीबोर्ड, लाइफ़ / लाइफ, keyboard / कीबोर्ड), by a phonetic key and a phonetic edit distance. "
        "It tells how much of the disagreement between translators is only spelling. The raw figure above "
        "(Table 2) stays the official one; this is a diagnostic. Same pairs and same weighting as Table 2."
    )
    st.caption(f"{spelling['changed_pairs']} of {spelling['pairs']} translation pairs change score.")
    if spelling["changes"]:
        st.caption("Pairs whose score changes most, with the spelling variants that were matched")
        table(spelling["changes"], "dash_spelling_changes",
              column_config={c: st.column_config.NumberColumn(c, format="%.3f") for c in ("raw_f", "normalized_f", "change")})
    csv_button("pairs whose score changes most", spelling["changes"], "spelling_changes")
    st.caption("Signature: " + spelling["signature"])
