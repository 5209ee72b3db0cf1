"""The dashboard's widgets: tables with "—" in undefined cells, narrow figure columns, CSV downloads built on
click, links to the sentence view, and its charts (``pages/dashboard.py`` arranges them)."""

from __future__ import annotations

from urllib.parse import urlencode

import altair as alt
import pandas as pd
import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError

from corpus.ranking import NOT_DEFINED
from corpus.spreadsheet import frame_csv

SENTENCE_VIEW = "pages/sentences.py"
NARROW = 64  # px: a figure or count column; five of them fit a phone (390 px) without sideways scrolling


def csv_button(label: str, rows, name: str, where=st) -> None:
    """A CSV download; the file is built only when clicked (``rows``: a list, or a function that returns one)."""

    def build() -> bytes:
        frame = rows() if callable(rows) else rows
        return frame_csv(pd.DataFrame(frame))

    where.download_button(f"CSV: {label}", build, file_name=f"{name}.csv", mime="text/csv", key=f"csv_{name}",
                          on_click="ignore")


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


def resolve_link(where, page: str, label: str, params: dict[str, str]) -> None:
    try:
        where.page_link(page, label=label, query_params=params)
    except StreamlitPageNotFoundError:  # the page run on its own, without the app's navigation: a plain link
        where.markdown(f"[{label}](/{page.removeprefix('pages/').removesuffix('.py')}?{urlencode(params)})")


def selected(event, rows: list[dict]) -> dict | None:
    picked = (event or {}).get("selection", {}).get("rows") or []
    return rows[picked[0]] if picked and picked[0] < len(rows) else None


def domain_chart(bars: list[dict]) -> alt.Chart:
    """ROUGE-L per domain and phase, a bar per pair; clicking one selects ("pick") its domain and phase."""
    pick = alt.selection_point(name="pick", fields=["domain", "phase"])
    # Plain field names: Vega expressions choke on an apostrophe ("Fleiss' kappa") and draw nothing.
    frame = pd.DataFrame(bars).rename(columns={"ROUGE-L": "rouge_l", "Fleiss' kappa": "kappa"})
    return alt.Chart(frame).mark_bar().encode(
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


def pair_histogram_chart(hist: pd.DataFrame) -> alt.Chart:
    return alt.Chart(hist).mark_bar().encode(
        x=alt.X("from:Q", bin="binned", title="ROUGE-L F of a translation pair"), x2=alt.X2("to:Q"),
        y=alt.Y("count:Q", title="pairs"), color=alt.Color("group:N", title="phase"),
        tooltip=[alt.Tooltip("group:N"), alt.Tooltip("from:Q"), alt.Tooltip("to:Q"), alt.Tooltip("count:Q")],
    )
