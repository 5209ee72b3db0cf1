"""Lead: export the dataset: options, a preview of what goes in and what is left out, downloads."""

from urllib.parse import urlencode

import pandas as pd
import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from corpus.export import FORMATS, files_by_format
from corpus.export.options import LAYOUTS, TAG_STYLES, FormatOptions
from corpus.export.selection import AWAITING_DECISION, NOT_TRANSLATED_YET
from corpus.export.writer import zip_bytes
from corpus.vocabulary import Phase, Role
from db.export_data import ExportOptions, export_files
from ui.common import get_engine, require_role
from ui.downloads import download_link

EXPORT_ROLES = (Role.LEAD,)
user = require_role(*EXPORT_ROLES)
st.title("Export dataset")
st.caption("Final translations with gold BIO labels (adjudicated, or agreed by the annotators), in training "
           "formats, with a dataset card. Sentences that cannot go in are counted by reason, never dropped silently.")

with st.form("export_options"):
    formats = st.multiselect("Formats", list(FORMATS), default=list(FORMATS), key="export_formats")
    c1, c2 = st.columns(2)
    layout = c1.selectbox("Files per split", LAYOUTS, key="export_layout",
                          format_func={"both": "combined and per domain", "combined": "combined",
                                       "per-domain": "per domain"}.get)
    dev = c1.number_input("Dev split (share of train, 0 = none)", min_value=0.0, max_value=0.5, value=0.0,
                          step=0.05, key="export_dev")
    all_translations = c2.checkbox("Every translation (all translators, both phases), for augmentation",
                                   key="export_all")
    agreed_only = c2.checkbox("Only items the annotators agreed on", key="export_agreed")
    pseudonymize = c2.checkbox("Pseudonymize translators", value=True, key="export_pseudo")
    id_comments = c2.checkbox("Sentence ids (side files `X.ids.tsv`; `# sent_enum = N` in LinCE)", key="export_ids")
    tag_style = c1.selectbox("CoNLL tags", TAG_STYLES, key="export_tag_style",
                             format_func={"plain": "plain B / I / O", "typed": "typed B-ASP / I-ASP / O (spaCy)"}.get)
    prepared = st.form_submit_button("Prepare export", type="primary", key="export_prepare")

if prepared:
    if not formats:
        st.error("Choose at least one format.")
        st.stop()
    options = ExportOptions(all_translations=all_translations, agreed_only=agreed_only, pseudonymize=pseudonymize,
                            dev_fraction=dev or None)
    with st.spinner("Exporting…"):
        files, dataset = export_files(get_engine(), options, formats, FormatOptions(id_comments, layout, tag_style))
    st.session_state["export_result"] = {
        "files": files,
        "counts": [{"domain": r.domain, "split": r.split, "aspects": len(r.hi_aspects)} for r in dataset.sentences],
        "left_out": dataset.left_out_counts(),
        "left_out_items": [{"domain": i.domain, "split": i.split, "sentence": i.sentence_id, "reason": i.reason,
                            "detail": i.detail} for i in dataset.left_out],
        "zips": {},
    }

result = st.session_state.get("export_result")
if result is None:
    st.info("Choose the options and press **Prepare export**.")
    st.stop()

files = result["files"]
counts = pd.DataFrame(result["counts"], columns=["domain", "split", "aspects"])
left_out = result["left_out"]
not_translated = left_out.get(NOT_TRANSLATED_YET, 0)
awaiting = left_out.get(AWAITING_DECISION, 0)
for_a_reason = sum(left_out.values()) - not_translated - awaiting
m1, m2, m3, m4, m5 = st.columns(5)
m1.metric("Sentences exported", len(counts))
m2.metric("Hindi aspect terms", int(counts["aspects"].sum()) if len(counts) else 0)
m3.metric("Not translated yet", not_translated, help="No translator has submitted a translation of these sentences.")
m4.metric("Awaiting a final decision", awaiting,
          help="Translations are submitted, but no final translation is chosen (the lead decides on Final "
               "translations).")
m5.metric("Left out for a reason", for_a_reason,
          help="Untranslatable by majority, left out by the lead, not tagged, annotators disagree, …: listed below.")


def _link(column, page: str, label: str, params: dict[str, str]) -> None:
    try:
        column.page_link(page, label=label, query_params=params)
    except StreamlitPageNotFoundError:  # this file run on its own, without the app's navigation: a plain link
        column.markdown(f"[{label}](/{page.removeprefix('pages/').removesuffix('.py')}?{urlencode(params)})")


links = st.columns(3)
if not_translated:
    _link(links[0], "pages/assign.py", f"Assign the {not_translated} untranslated sentence(s)",
          {"phase": Phase.AWARE.value, "show": "unassigned"})
if awaiting:
    _link(links[1], "pages/final.py", f"Decide the {awaiting} final translation(s)", {"show": "undecided"})

st.subheader("What goes in")
if len(counts):
    table = counts.pivot_table(index="split", columns="domain", values="aspects", aggfunc="count", fill_value=0)
    st.dataframe(table, width="stretch")
else:
    st.warning("No sentence is ready for export yet (each needs a final translation with gold labels).")

st.subheader("What is left out, and why")
if result["left_out"]:
    st.dataframe(pd.DataFrame([{"reason": k, "count": v} for k, v in result["left_out"].items()]),
                 hide_index=True, width="stretch", key="export_left_out")
    items = pd.DataFrame(result.get("left_out_items", []),
                         columns=["domain", "split", "sentence", "reason", "detail"])
    with st.expander(f"Every sentence left out ({len(items)})"):
        reason = st.selectbox("Reason", ["all", *result["left_out"]], key="export_left_out_reason")
        shown = items if reason == "all" else items[items["reason"] == reason]
        st.dataframe(shown, hide_index=True, width="stretch", key="export_left_out_items")  # text, never HTML
    st.caption("The same list is in `left_out.tsv` inside the export.")
else:
    st.write("Nothing is left out.")

st.subheader("Downloads")
zips = result["zips"]
if "all" not in zips:
    zips["all"] = zip_bytes(files)
# The files hold the test split's gold labels: served by /download/..., which checks this lead's live
# session when the file is fetched (never a /media/ URL that works without a cookie).
download_link("Download everything (zip)", zips["all"], "hindi-aspect-corpus.zip", "application/zip",
              user=user, roles=EXPORT_ROLES, key="export_zip_all", type="primary")
cols = st.columns(3)
for i, (name, group) in enumerate(files_by_format(files).items()):
    if name not in zips:
        zips[name] = zip_bytes(group, root=f"hindi-aspect-corpus-{name}")
    download_link(f"{name} ({len(group) - 2} files)", zips[name], f"hindi-aspect-corpus-{name}.zip",
                  "application/zip", user=user, roles=EXPORT_ROLES, key=f"export_zip_{name}", where=cols[i % 3])
download_link("Dataset card (README.md)", files["README.md"].encode("utf-8"), "README.md", "text/markdown",
              user=user, roles=EXPORT_ROLES, key="export_card")

with st.expander("Dataset card preview"):
    st.code(files["README.md"], language="markdown", wrap_lines=True)  # imported data inside: shown as text
