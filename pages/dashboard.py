"""Lead dashboard: agreement (seed paper Table 2), progress, people, distributions, weak sentences, coverage,
and on demand code-mixing (CMI) and the spelling-tolerant ROUGE-L.

Every number comes from ``corpus.metrics`` over ``db.metrics_data`` (``corpus.codemix`` and
``corpus.phonetic`` for the on-demand section); this page only renders. Derived tables are cached on
a fingerprint of the latest save, so a new save shows on the next run.
"""

from __future__ import annotations

import re

import altair as alt
import pandas as pd
import streamlit as st

from corpus.agreement import filter_input
from corpus.codemix import CMI_SIGNATURE, LANG_TAGS, cmi, corpus_cmi, keep_roman_entities, sentence_tags
from corpus.metrics import EXPLANATIONS, compute_agreement, dashboard_tables, sentence_agreement
from corpus.phonetic import spelling_tolerant_report
from corpus.progress import filter_counts, person_progress, phase_progress, submitted_counts
from corpus.spreadsheet import frame_csv
from db.metrics_data import latest_save, load_metrics_input, load_progress, load_sentence_detail, project_settings
from db.queries import final_translations, keep_roman_glossary
from ui.common import get_engine, project_id, require_role
from ui.text import md_escape
from corpus.vocabulary import Status

require_role("lead")
engine = get_engine()
pid = project_id()
DB_KEY = engine.url.render_as_string(hide_password=True)


@st.cache_resource(show_spinner=False, max_entries=2)
def _input(db: str, project: int, stamp: tuple):
    """The raw records (about 150,000 at paper scale) are kept as they are, not pickled on every hit."""
    return load_metrics_input(engine, project)


@st.cache_resource(show_spinner=False, max_entries=4)
def _agreement(db: str, project: int, stamp: tuple, domains: tuple[str, ...], splits: tuple[str, ...]):
    data = filter_input(_input(db, project, stamp), domains, splits)
    return data, compute_agreement(data)


@st.cache_data(show_spinner=False, max_entries=8)
def _tables(db: str, project: int, stamp: tuple, domains: tuple[str, ...], splits: tuple[str, ...]) -> dict:
    data, agreement = _agreement(db, project, stamp, domains, splits)
    return dashboard_tables(data, agreement, lowest=200)


def _all_sentences(db: str, project: int, stamp: tuple, domains: tuple[str, ...], splits: tuple[str, ...]) -> list[dict]:
    return sentence_agreement(*_agreement(db, project, stamp, domains, splits))


@st.cache_data(show_spinner=False, max_entries=4)
def _progress(db: str, project: int, stamp: tuple, domains: tuple[str, ...], splits: tuple[str, ...]) -> dict:
    data = filter_input(_input(db, project, stamp), domains, splits)
    open_work = load_progress(engine, project, submitted=False)
    settings = project_settings(engine, project)
    counts = filter_counts(open_work, domains, splits) + submitted_counts(data)
    return {
        "phases": phase_progress(counts, settings["annotators_per_item"]),
        "people": person_progress(counts),
    }


@st.cache_data(show_spinner=False, max_entries=4)
def _codemix(db: str, project: int, stamp: tuple, domains: tuple[str, ...], splits: tuple[str, ...],
             entities: tuple[str, ...]) -> dict:
    """CMI over the final translation of each sentence in scope; every submitted translation when none is chosen."""
    data = filter_input(_input(db, project, stamp), domains, splits)
    in_scope = {s.pk: s for s in data.sentences}
    finals = {pk: f for pk, f in final_translations(engine, project).items() if pk in in_scope}
    if finals:
        chosen = [(in_scope[f.sentence_pk], f.phase, f.translator, f.text) for f in finals.values()
                  if f.translation_pk is not None and f.text is not None]
    else:
        chosen = [(in_scope[t.sentence_pk], t.phase, t.translator, t.text) for t in data.translations
                  if t.translated and t.sentence_pk in in_scope]
    chosen.sort(key=lambda r: (r[0].domain, r[0].split, r[0].ordinal, r[0].sentence_id, r[1], r[2]))
    tags = [sentence_tags(text, s.text, entities) for s, *_, text in chosen]
    rows = [
        {"domain": s.domain, "split": s.split, "sentence_id": s.sentence_id, "phase": phase, "translator": who,
         "cmi": cmi(tg), "tokens": len(tg), **{t: tg.count(t) for t in LANG_TAGS}, "text": text}
        for (s, phase, who, text), tg in zip(chosen, tags)
    ]
    return {
        "basis": "final" if finals else Status.SUBMITTED,
        "summary": corpus_cmi(tags).to_dict(),
        "rows": rows,
        "sentences_in_scope": len(in_scope),
        "without_final": len(in_scope) - len(finals),
        "left_out": sum(1 for f in finals.values() if f.translation_pk is None),
    }


@st.cache_data(show_spinner=False, max_entries=4)
def _spelling(db: str, project: int, stamp: tuple, domains: tuple[str, ...], splits: tuple[str, ...]) -> dict:
    _, agreement = _agreement(db, project, stamp, domains, splits)
    return spelling_tolerant_report(agreement.rouge, limit=50)


def csv_button(label: str, rows, name: str) -> None:
    """A CSV download; the file is built only when clicked."""

    def build() -> bytes:
        frame = rows() if callable(rows) else rows
        return frame_csv(pd.DataFrame(frame))

    st.download_button(f"CSV: {label}", build, file_name=f"{name}.csv", mime="text/csv", key=f"csv_{name}", on_click="ignore")


def file_name(*parts: str) -> str:
    """A download's file name (and widget key) from ids that may hold any character."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", "_".join(parts))


NOT_DEFINED = "—"


stamp = latest_save(engine, pid)
everything = _input(DB_KEY, pid, stamp)
all_domains = sorted({s.domain for s in everything.sentences})
all_splits = sorted({s.split for s in everything.sentences})

st.title("Agreement dashboard")
left, right = st.columns(2)
chosen_domains = left.multiselect("Domain", all_domains, default=all_domains, key="dash_domains")
chosen_splits = right.multiselect("Split", all_splits, default=all_splits, key="dash_splits")
domains = tuple(sorted(chosen_domains))
splits = tuple(sorted(chosen_splits))
if not everything.sentences:
    st.info("No sentences yet: import SemEval-2014 sentences first.")
    st.stop()

tables = _tables(DB_KEY, pid, stamp, domains, splits)

# --- Table 2 -----------------------------------------------------------------------------------------
st.subheader("Agreement (seed paper Table 2)")
table2 = pd.DataFrame(tables["table2"])
figures = ["aware", "blind", "overall", "best"]
st.dataframe(table2.style.format(dict.fromkeys(figures, "{:.3f}"), na_rep=NOT_DEFINED), hide_index=True, key="dash_table2")
csv_button("Table 2", tables["table2"], "table2")
for key in ("rouge", "best", "fleiss"):
    st.caption(EXPLANATIONS[key])
st.caption(f"{NOT_DEFINED}: not defined. Fleiss' kappa has no “best” figure: “best” scores the chosen translation "
           "of each sentence against the other translations, and kappa is not defined for the chosen translation alone.")
rouge = tables["rouge_l"]
st.caption(
    f"ROUGE-L over {rouge['units']['aware']} aware and {rouge['units']['blind']} blind sentences "
    f"({rouge['pairs']} pairs); {rouge['excluded_units']} sentence-phase units left out for having fewer than "
    "2 translations. Weighting: " + rouge["weighting"] + "."
)
for reason in tables["reasons"]:
    st.info(reason)
st.caption("Signature: " + tables["signature"]["text"])

# --- Progress ---------------------------------------------------------------------------------------
st.subheader("Progress")
progress = _progress(DB_KEY, pid, stamp, domains, splits)
st.dataframe(pd.DataFrame(progress["phases"]), hide_index=True, key="dash_progress_phases", column_config={
    c: st.column_config.NumberColumn(c, format="%.1f") for c in (progress["phases"][0] if progress["phases"] else {})
    if c.endswith("%") or "% (" in c
})
csv_button("progress per phase", progress["phases"], "progress_phases")
st.dataframe(pd.DataFrame(progress["people"]), hide_index=True, key="dash_progress_people")
csv_button("progress per person", progress["people"], "progress_people")

# --- People -----------------------------------------------------------------------------------------
st.subheader("Translators: mean ROUGE-L against peers")
translators = pd.DataFrame(tables["translators"])
if translators.empty:
    st.info("No sentence has two translations in a phase yet.")
else:
    st.dataframe(translators, hide_index=True, key="dash_translators")
    st.altair_chart(
        alt.Chart(translators[translators["phase"] != "all"]).mark_bar().encode(
            x=alt.X("mean_f:Q", title="mean ROUGE-L F", scale=alt.Scale(domain=[0, 1])),
            y=alt.Y("translator:N", title=None),
            color="phase:N",
            yOffset="phase:N",
            tooltip=["translator", "phase", "pairs", alt.Tooltip("mean_f:Q", format=".3f")],
        ),
        width="stretch",
    )
csv_button("translators", tables["translators"], "translators")

st.subheader("Annotators: agreement with the others")
st.caption("Cohen's kappa over the tokens an annotator shares with each other annotator, and exact-match span F1.")
annotators = pd.DataFrame(tables["annotators"])
if annotators.empty:
    st.info("No translation has been tagged by two annotators yet.")
else:
    st.dataframe(annotators, hide_index=True, key="dash_annotators")
    st.dataframe(pd.DataFrame(tables["annotator_pairs"]), hide_index=True, key="dash_annotator_pairs")
csv_button("annotators", tables["annotators"], "annotators")
csv_button("annotator pairs", tables["annotator_pairs"], "annotator_pairs")

# --- Distributions and time -------------------------------------------------------------------------
st.subheader("Distributions")
c1, c2 = st.columns(2)
bars = pd.DataFrame(tables["pair_histogram"])
if not bars.empty and bars["count"].sum():
    c1.altair_chart(
        alt.Chart(bars).mark_bar().encode(
            x=alt.X("from:Q", bin="binned", title="ROUGE-L F of a translation pair"),
            x2="to:Q",
            y=alt.Y("count:Q", title="pairs"),
            color=alt.Color("group:N", title="phase"),
            tooltip=["group", "from", "to", "count"],
        ),
        width="stretch",
    )
tag_bars = pd.DataFrame(tables["tag_histogram"])
if not tag_bars.empty and tag_bars["count"].sum():
    c2.altair_chart(
        alt.Chart(tag_bars).mark_bar().encode(
            x=alt.X("from:Q", bin="binned", title="share of tokens all annotators tag alike"),
            x2="to:Q",
            y=alt.Y("count:Q", title="sentence-phase units"),
            tooltip=["from", "to", "count"],
        ),
        width="stretch",
    )

st.subheader("Agreement by week of submission")
weeks = pd.DataFrame(tables["weeks"])
if weeks.empty:
    st.info("Nothing submitted yet.")
else:
    long = weeks.melt(id_vars="week", value_vars=["rouge_l_mean_f", "fleiss_kappa"], var_name="figure").dropna()
    if not long.empty:
        st.altair_chart(
            alt.Chart(long).mark_line(point=True).encode(
                x=alt.X("week:N", title="week (Monday)"), y=alt.Y("value:Q", title=None), color="figure:N",
                tooltip=["week", "figure", alt.Tooltip("value:Q", format=".3f")],
            ),
            width="stretch",
        )
    st.dataframe(weeks, hide_index=True, key="dash_weeks")
csv_button("agreement by week", tables["weeks"], "agreement_by_week")

# --- Lowest agreement -------------------------------------------------------------------------------
st.subheader("Lowest-agreement sentences")
st.caption("Translation agreement (mean ROUGE-L between translators) first, then tag agreement (share of tokens all annotators tag alike).")
sentences = tables["sentences"]
shown = pd.DataFrame(sentences[:50])
st.dataframe(shown, hide_index=True, key="dash_lowest")
csv_button(
    f"agreement of all {tables['sentence_count']} sentence-phase units",
    lambda: _all_sentences(DB_KEY, pid, stamp, domains, splits),
    "sentence_agreement",
)
if sentences:
    labels = [f"{r['domain']}/{r['split']}/{r['sentence_id']} ({r['phase']})" for r in sentences[:200]]
    pick = st.selectbox("Open a sentence", ["-"] + labels, key="dash_open")
    if pick != "-":
        row = sentences[labels.index(pick)]
        detail = load_sentence_detail(engine, pid, row["domain"], row["split"], row["sentence_id"])
        if detail is None:
            st.warning("That sentence is no longer in the project.")
        else:
            st.text(detail.text)
            st.caption("Source aspects: " + (", ".join(md_escape(a) for a in detail.aspects) or "none"))
            for phase in ("aware", "blind"):
                versions = [t for t in detail.translations if t.phase == phase]
                if not versions:
                    continue
                st.markdown(f"**Aspect-{phase} translations**")
                columns = st.columns(len(versions))
                for column, t in zip(columns, versions):
                    column.caption(f"{md_escape(t.translator)} · {t.status}")
                    column.text("(untranslatable: " + (t.reason or "no reason") + ")" if t.untranslatable else (t.text or ""))
                for t in versions:
                    if t.tokens and (t.tag_sets or t.adjudicated):
                        frame = pd.DataFrame({"token": t.tokens})
                        for name, tags in t.tag_sets.items():
                            frame[name] = list(tags) + [""] * (len(t.tokens) - len(tags))
                        if t.adjudicated:
                            frame["gold"] = list(t.adjudicated) + [""] * (len(t.tokens) - len(t.adjudicated))
                        st.caption(f"Tags on {md_escape(t.translator)}'s {phase} translation")
                        st.dataframe(frame.T, key=f"dash_tags_{phase}_{t.translator}")
                        csv_button(f"tags on {md_escape(t.translator)}'s {phase} translation", frame,
                                   file_name("tags", detail.domain, detail.split, detail.sentence_id, phase, t.translator))

# --- Coverage ---------------------------------------------------------------------------------------
st.subheader("Aspect coverage: aware vs blind")
coverage = tables["coverage"]
percent = "n/a" if coverage["percent"] is None else f"{coverage['percent']:.1f}%"
st.metric("Sentences that lost aspects in the blind phase", f"{coverage['fewer_in_blind']} of {coverage['compared']}", percent, delta_color="off")
st.caption(EXPLANATIONS["coverage"])
if coverage["sentences"]:
    st.dataframe(pd.DataFrame(coverage["sentences"]), hide_index=True, key="dash_coverage")
csv_button("coverage", coverage["sentences"], "coverage")

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
    mixing = _codemix(DB_KEY, pid, stamp, domains, splits, entities)
    st.caption(
        "Code-Mixing Index (Gambäck & Das 2014): per sentence 100 × (1 − tokens of the dominant language / tokens "
        "that carry a language), named entities and punctuation carrying none; 0 means one language only. "
        "Averaged over all sentences and over code-mixed (CMI > 0) sentences only, as LinCE reports it."
    )
    if mixing["basis"] == Status.SUBMITTED:
        st.info("No final translations chosen yet: CMI over every submitted translation (all translators, both "
                "phases). Choose final translations on the Final translation page to measure the dataset itself.")
    else:
        st.caption(
            f"Over the final translation of each sentence: {mixing['summary']['sentences']} of "
            f"{mixing['sentences_in_scope']} sentences; {mixing['without_final']} have no final translation yet and "
            f"{mixing['left_out']} were left out by a lead (not counted)."
        )
    summary = mixing["summary"]
    cmi_summary = [{k: summary[k] for k in ("sentences", "code_mixed", "code_mixed_pct", "cmi_all", "cmi_mixed")}]
    st.dataframe(
        pd.DataFrame(cmi_summary),
        hide_index=True, key="dash_cmi",
        column_config={
            "code_mixed_pct": st.column_config.NumberColumn("code-mixed %", format="%.1f"),
            "cmi_all": st.column_config.NumberColumn("CMI, all sentences", format="%.2f"),
            "cmi_mixed": st.column_config.NumberColumn("CMI, code-mixed only", format="%.2f"),
        },
    )
    csv_button("CMI summary", cmi_summary, "cmi_summary")
    cmi_tags = [{"tag": t, "meaning": TAG_MEANINGS[t], "tokens": summary["tag_counts"][t]} for t in LANG_TAGS]
    st.dataframe(pd.DataFrame(cmi_tags), hide_index=True, key="dash_cmi_tags")
    csv_button("language tags", cmi_tags, "cmi_tags")
    st.caption(
        f"Named entities (guideline 1), matched case-insensitively: {len(entities)} forms of keep-Roman glossary "
        "terms, and Roman words the sentence's English source capitalises as names (not common words that "
        "only open a sentence); the same rule labels the lince export and the dataset card."
    )
    mixed_rows = sorted((r for r in mixing["rows"] if r["cmi"] > 0), key=lambda r: -r["cmi"])[:20]
    if mixed_rows:
        st.caption("Most code-mixed sentences")
        st.dataframe(pd.DataFrame(mixed_rows), hide_index=True, key="dash_cmi_sentences")
    csv_button("CMI per sentence", mixing["rows"], "cmi_per_sentence")
    st.caption("Signature: " + CMI_SIGNATURE)

if st.toggle("Spelling-tolerant ROUGE-L", key="dash_spelling"):
    with st.spinner("Scoring every translation pair with spelling variants folded…"):
        spelling = _spelling(DB_KEY, pid, stamp, domains, splits)
    columns = ("aware", "blind", "overall")
    spelling_figures = [
        {"figure": "ROUGE-L F, raw (official)", **{c: spelling["raw"][c] for c in columns}},
        {"figure": "ROUGE-L F, spelling-tolerant", **{c: spelling["normalized"][c] for c in columns}},
    ]
    st.dataframe(
        pd.DataFrame(spelling_figures), hide_index=True, key="dash_spelling_table",
        column_config={c: st.column_config.NumberColumn(c, format="%.3f") for c in columns},
    )
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
        st.dataframe(pd.DataFrame(spelling["changes"]), hide_index=True, key="dash_spelling_changes",
                     column_config={c: st.column_config.NumberColumn(c, format="%.3f")
                                    for c in ("raw_f", "normalized_f", "change")})
    csv_button("pairs whose score changes most", spelling["changes"], "spelling_changes")
    st.caption("Signature: " + spelling["signature"])
