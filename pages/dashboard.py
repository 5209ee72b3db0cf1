"""Lead dashboard: where is the problem. The seed paper's Table 2 on top, then the lowest-agreement
sentences, translators, annotators and domains, worst first, each figure with what it is over; every
sentence opens the sentence view. Progress, coverage, agreement over time, and on demand code-mixing
(CMI) and the spelling-tolerant ROUGE-L below; how each figure is computed sits in one expander.

Every number comes from ``ui.dashboard_view`` (typed views over ``corpus`` and ``db.metrics_data``, cached
per corpus generation and save); this page only renders.
"""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from corpus.metrics import TABLE2_COLUMNS
from corpus.ranking import BOOTSTRAP_NOTE, NOT_DEFINED, domain_ranking, figure_text, share_text, week_points, week_table
from corpus.vocabulary import Phase, Role
from db.browse import domains_and_splits
from db.metrics_data import latest_save
from ui.common import get_engine, project_id, require_role
from ui.dashboard_sections import code_mixing_section, spelling_section
from ui.dashboard_view import LOWEST, Dashboard, suggestion_rows
from ui.dashboard_widgets import (
    NARROW,
    count_column,
    csv_button,
    domain_chart,
    figure_column,
    open_link,
    pair_histogram_chart,
    resolve_link,
    selected,
    table,
)

require_role(Role.LEAD)
engine = get_engine()
pid = project_id()

st.title("Agreement dashboard")
all_domains, all_splits = domains_and_splits(engine)
left, right = st.columns(2)
domains = tuple(sorted(left.multiselect("Domain", all_domains, key="dash_domains", placeholder="All domains")))
splits = tuple(sorted(right.multiselect("Split", all_splits, key="dash_splits", placeholder="All splits")))
if not all_domains:
    st.info("No sentences yet: import SemEval-2014 sentences first.")
    st.stop()

with st.spinner("Computing agreement over the whole corpus…"):
    view = Dashboard.open(engine, pid, latest_save(engine, pid), domains, splits)
    overview = view.overview()

# --- What keeps sentences out of the dataset (the Export page's counts) --------------------------------
not_translated, awaiting, for_a_reason = view.left_out()
o1, o2, o3 = st.columns(3)
o1.metric("Not translated yet", f"{not_translated:,}",
          help="No translator has submitted a translation yet (these three: the whole project, as Export counts).")
o2.metric("Awaiting a final decision", f"{awaiting:,}",
          help="Translations are submitted; no final translation is chosen yet.")
o3.metric("Left out for a reason", f"{for_a_reason:,}",
          help="Untranslatable by majority, left out by the lead, not tagged, annotators disagree, …")
if not_translated:
    resolve_link(o1, "pages/assign.py", f"Assign the {not_translated:,} untranslated sentence(s)",
                 {"phase": Phase.AWARE.value, "show": "unassigned"})
if awaiting:
    resolve_link(o2, "pages/final.py", f"Decide the {awaiting:,} final translation(s)", {"show": "undecided"})
if for_a_reason:
    resolve_link(o3, "pages/export.py", "See them by reason on Export", {})

# --- Table 2 -----------------------------------------------------------------------------------------
st.subheader("Agreement (seed paper Table 2)")
st.caption(overview.basis)
table(overview.table2, "dash_table2", column_config={
    "figure": st.column_config.TextColumn("", width=100),
    **{c: st.column_config.TextColumn(c, width=NARROW) for c in TABLE2_COLUMNS}})
suggestions = view.suggestions()
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
coverage = overview.coverage
st.metric("Sentences that lost aspects in the aspect-blind phase", share_text(coverage["fewer_in_blind"], coverage["compared"]),
          help="Of the sentences with both an aspect-aware and an aspect-blind translation.")

# --- Where is the problem -----------------------------------------------------------------------------
st.subheader("Where agreement is lowest")
bars = [r for r in overview.domains if r["phase"] != "all" and r["ROUGE-L"] is not None]
scope_domain = scope_phase = None
if bars:
    event = st.altair_chart(domain_chart(bars), on_select="rerun", selection_mode="pick", key="dash_scope",
                            width="stretch")
    chosen = (event or {}).get("selection", {}).get("pick") or []
    if chosen:
        scope_domain, scope_phase = chosen[0].get("domain"), chosen[0].get("phase")
st.caption(
    "Lists below: " + (f"**{scope_domain} · {scope_phase}** only (click the bar again to see everything)."
                       if scope_domain else "every domain and phase. Click a bar to narrow them to it.")
)
with st.spinner("Ranking…"):
    ranked = view.ranked(scope_domain, scope_phase)

st.markdown("**Lowest-agreement sentences**")
sentences = ranked.sentences
if not sentences:
    st.info("No sentence has two translations or two annotators in a phase yet.")
else:
    st.caption(f"The {min(len(sentences), LOWEST)} least-agreeing of {ranked.units:,} sentence-phase units: "
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
if ranked.translators:
    table(ranked.translators, "dash_translators", column_config={
        "ROUGE-L vs others": figure_column("ROUGE-L", "mean ROUGE-L F over the pairs with another translator"),
        "95% interval": st.column_config.TextColumn("95% CI", width=80, help=BOOTSTRAP_NOTE),
        "pairs": count_column("pairs"),
    })
else:
    st.info("No sentence has two translations in a phase yet.")

st.markdown("**Annotators: agreement with the others**")
if ranked.annotators:
    table(ranked.annotators, "dash_annotators", column_config={
        "kappa vs others": figure_column("kappa", "Cohen's kappa over the tokens shared with the other annotators"),
        "tokens": count_column("tokens"), "translations": count_column("translations"),
    })
else:
    st.info("No translation has been tagged by two annotators yet.")

st.markdown("**Domains**")
table(domain_ranking(overview.domains), "dash_domain_list", column_config={
    "ROUGE-L": figure_column("ROUGE-L"), "units": count_column("units", "sentence-phase units"),
    "Fleiss' kappa": figure_column("kappa", "Fleiss' kappa"), "tokens": count_column("tokens"),
})

# --- Over time, progress, coverage -------------------------------------------------------------------
st.subheader("Agreement by week of submission")
points = week_points(overview.weeks)
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
progress = view.progress()
table([{k: r[k] for k in ("phase", "translations submitted", "translations assigned", "translated % (of assigned)",
                          "tagged % (of submitted translations x K)")} for r in progress.phases],
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
    for line in overview.explanations:
        st.caption(line)
    rouge = overview.rouge_l
    units, unweighted = rouge["units"], rouge["unweighted"]
    st.caption(
        f"ROUGE-L over {units[Phase.AWARE]} aware and {units[Phase.BLIND]} blind sentence-phase units "
        f"({rouge['pairs']} pairs); {rouge['excluded_units']} sentence-phase units left out for having fewer than "
        f"2 translations. Weighting: {rouge['weighting']}. Unweighted: aware "
        f"{figure_text(unweighted[Phase.AWARE])}, blind {figure_text(unweighted[Phase.BLIND])}, overall "
        f"{figure_text(rouge['unweighted']['overall'])}, best {figure_text(rouge['unweighted']['best'])}."
    )
    st.caption(f"{NOT_DEFINED}: not defined. Fleiss' kappa has no “best” figure: “best” scores the chosen translation "
               "of each sentence against the other translations, and kappa is not defined for the chosen translation alone.")
    for reason in overview.reasons:
        st.caption(reason)
    st.caption("Translators: mean ROUGE-L F over every pair with another translator, both phases. " + BOOTSTRAP_NOTE)
    st.caption("Annotators: Cohen's kappa over the tokens an annotator shares with each other annotator, pooled. "
               "Domains: ROUGE-L weighted as Table 2; Fleiss' kappa over the domain's tokens.")
    st.caption("Signature: " + overview.signature["text"])

with st.expander("More tables and the CSV downloads"):
    hist = pd.DataFrame(overview.pair_histogram)
    if not hist.empty and hist["count"].sum():
        st.altair_chart(pair_histogram_chart(hist), width="stretch")
    st.markdown("**Annotator pairs**")
    table(overview.annotator_pairs, "dash_annotator_pairs")
    st.markdown("**Agreement by week**")
    table(week_table(overview.weeks), "dash_weeks")
    st.markdown("**Progress per person**")
    table(progress.people, "dash_progress_people")
    for label, rows, name in (
        ("Table 2", overview.table2_numbers, "table2"),
        (f"agreement of all {ranked.units} sentence-phase units",
         lambda: view.all_sentences(scope_domain, scope_phase), "sentence_agreement"),
        ("translators", ranked.translators, "translators"),
        ("annotators", ranked.annotators, "annotators"),
        ("annotator pairs", overview.annotator_pairs, "annotator_pairs"),
        ("domains", overview.domains, "domains"),
        ("agreement by week", overview.weeks, "agreement_by_week"),
        ("progress per phase", progress.phases, "progress_phases"),
        ("progress per person", progress.people, "progress_people"),
        ("coverage", coverage["sentences"], "coverage"),
        ("suggestions per source", suggestion_rows(suggestions), "suggestions_per_source"),
    ):
        csv_button(label, rows, name)

# --- Code-mixing and spelling (on demand) -----------------------------------------------------------
st.subheader("Code-mixing and spelling-tolerant ROUGE-L")
st.caption("Computed when switched on, then kept until the next save.")
if st.toggle("Code-mixing (CMI)", key="dash_codemix"):
    code_mixing_section(view)
if st.toggle("Spelling-tolerant ROUGE-L", key="dash_spelling"):
    spelling_section(view)
