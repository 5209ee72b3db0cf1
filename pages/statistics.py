"""Lead: corpus statistics, the seed paper's Table 1, for the English source and the Hindi final side."""

import pandas as pd
import streamlit as st

from corpus.spreadsheet import frame_csv
from corpus.stats import corpus_statistics, table1_rows
from corpus.vocabulary import Role
from db.browse import domains_and_splits
from db.queries import load_stat_inputs
from ui.common import get_engine, require_role

require_role(Role.LEAD)
st.title("Corpus statistics")
st.caption("Table 1 of the seed paper. English: the imported SemEval sentences with BIO from their offsets. "
           "Hindi: final translations that have gold tags (adjudicated or agreed). Tokens are canonical tokens.")

domains, splits = domains_and_splits(get_engine())
c1, c2 = st.columns(2)
domain = c1.selectbox("Domain", ["all", *domains], key="stats_domain")
split = c2.selectbox("Split", ["all", *splits], key="stats_split")

stats = corpus_statistics(load_stat_inputs(get_engine(), domain=None if domain == "all" else domain,
                                           split=None if split == "all" else split))
table = pd.DataFrame(table1_rows({"English (source)": stats["english"], "Hindi (final, gold)": stats["hindi"]}))
st.dataframe(table, hide_index=True, width="stretch")
st.download_button("Download CSV", frame_csv(table), "table1.csv", "text/csv",
                   key="stats_csv")
st.caption(f"Tokenizer: {stats['english']['tokenizer']}")
