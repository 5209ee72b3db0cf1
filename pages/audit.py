"""Lead: audit an existing aspect dataset (SemEval-style XML or CoNLL BIO) beside our own corpus.

Everything taken from the uploaded file is shown through dataframes and plain text, never as
markdown or HTML: the file is untrusted input.
"""

import pandas as pd
import streamlit as st

from corpus.audit import DEFECT_KINDS, AuditInputError, AuditReport, audit_bytes, table1_columns
from corpus.spreadsheet import frame_csv
from corpus.stats import corpus_statistics, table1_rows
from corpus.vocabulary import Role
from db.queries import load_stat_inputs
from ui.common import get_engine, require_role
from ui.text import md_escape

SOURCE_KEY = "audit_source"  # (file name, bytes) of the file being audited

require_role(Role.LEAD)
st.title("Audit a dataset")
st.caption("Upload an aspect dataset (SemEval-2014-style XML such as Akhtar et al. 2016, or CoNLL BIO: "
           "token, tab, tag; a blank line between sentences; optional '# id = …' lines). The audit only "
           "reads the file. Domains come from id prefixes such as lap_17.")


@st.cache_data(show_spinner="Auditing…", max_entries=8)
def _audit(name: str, data: bytes) -> AuditReport:
    return audit_bytes(data, name)


uploaded = st.file_uploader("Dataset file", type=["xml", "conll", "txt", "tsv", "bio"], key="audit_upload")
if uploaded is not None:
    st.session_state[SOURCE_KEY] = (uploaded.name, uploaded.getvalue())
source = st.session_state.get(SOURCE_KEY)
if not source:
    st.info("Choose a file to audit.")
    st.stop()

name, data = source
try:
    report = _audit(name, data)
except AuditInputError as exc:
    st.error("The file cannot be audited:")
    st.code(str(exc.error), language=None)
    st.stop()

st.subheader("Table 1")
ours = None
try:
    ours = corpus_statistics(load_stat_inputs(get_engine()))
except Exception as exc:  # noqa: BLE001 - the audit stands on its own if our corpus is empty or absent
    st.caption(f"Our corpus' statistics are unavailable ({type(exc).__name__}).")
table1 = pd.DataFrame(table1_rows(table1_columns(report, ours)))
st.dataframe(table1, hide_index=True, width="stretch", key="audit_table1")
st.caption(f"{md_escape(report.format)}; {md_escape(report.signature)}")

counts = report.defect_counts
st.subheader(f"Defects: {sum(counts.values())}")
st.dataframe(pd.DataFrame({"kind": list(counts), "count": list(counts.values())}),
             hide_index=True, key="audit_defect_counts")
defects = pd.DataFrame([d.to_dict() for d in report.defects],
                       columns=["kind", "sentence_id", "line", "term", "detail"])
present = [k for k in DEFECT_KINDS if counts[k]]
kind = st.selectbox("Show defects of kind", ["all", *present], key="audit_kind")
shown = defects if kind == "all" else defects[defects["kind"] == kind]
st.dataframe(shown, hide_index=True, width="stretch", key="audit_defects")
st.download_button("Download defects (CSV)", frame_csv(defects),
                   "audit_defects.csv", "text/csv", key="audit_defects_csv")

st.subheader(f"Script inconsistencies: {len(report.script_inconsistencies)}")
st.caption("The same term written in Roman script in some sentences and in Devanagari in others "
           "(matched by transliteration and a phonetic key).")


def _group_rows(groups: list[dict]) -> pd.DataFrame:
    rows = [{"group": i, "term": f["term"], "script": f["script"], "occurrences": f["occurrences"],
             "sentence_ids": ", ".join(f["sentence_ids"])}
            for i, g in enumerate(groups, 1) for f in g["forms"]]
    return pd.DataFrame(rows, columns=["group", "term", "script", "occurrences", "sentence_ids"])


inconsistencies = _group_rows(report.script_inconsistencies)
st.dataframe(inconsistencies, hide_index=True, width="stretch", key="audit_scripts")
st.download_button("Download script inconsistencies (CSV)", frame_csv(inconsistencies),
                   "audit_script_inconsistencies.csv", "text/csv", key="audit_scripts_csv")
if report.spelling_variants:
    with st.expander(f"Same-script spelling variants: {len(report.spelling_variants)}"):
        st.dataframe(_group_rows(report.spelling_variants), hide_index=True, width="stretch",
                     key="audit_variants")

st.subheader(f"Sparsity: {len(report.sparse_domains)} of {len(report.domains)} domains under "
             f"{report.sparse_threshold} sentences")
sparsity = pd.DataFrame(report.domains, columns=["domain", "sentences", "aspect_terms",
                                                 "sentences_with_aspects", "sparse"])
st.dataframe(sparsity, hide_index=True, width="stretch", key="audit_sparsity")
st.download_button("Download sparsity (CSV)", frame_csv(sparsity),
                   "audit_sparsity.csv", "text/csv", key="audit_sparsity_csv")
if report.polarities:
    st.dataframe(pd.DataFrame({"polarity": list(report.polarities), "aspect_terms": list(report.polarities.values())}),
                 hide_index=True, key="audit_polarities")
for note in report.notes:
    st.text(note)
