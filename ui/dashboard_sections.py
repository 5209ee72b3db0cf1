"""The dashboard's on-demand sections (code-mixing, spelling-tolerant ROUGE-L): computed when switched on,
then kept until the next save."""

from __future__ import annotations

import streamlit as st

from corpus.codemix import CMI_SIGNATURE, LANG_TAGS, keep_roman_entities
from corpus.records import PHASES
from corpus.vocabulary import Status
from db.queries import keep_roman_glossary
from ui.dashboard_view import Dashboard
from ui.dashboard_widgets import csv_button, table

TAG_MEANINGS = {
    "lang1": "English (Roman script)",
    "lang2": "Hindi (Devanagari, transliterated borrowings included)",
    "ne": "named entity (a keep-Roman glossary term or a name the English source capitalises)",
    "other": "punctuation, numbers, symbols",
}


def code_mixing_section(view: Dashboard) -> None:
    entities = tuple(keep_roman_entities(keep_roman_glossary(view.engine, view.project)))
    mixing = view.code_mixing(entities)
    st.caption(
        "Code-Mixing Index (Gambäck & Das 2014): per sentence 100 × (1 − tokens of the dominant language / tokens "
        "that carry a language), named entities and punctuation carrying none; 0 means one language only. "
        "Averaged over all sentences and over code-mixed (CMI > 0) sentences only, as LinCE reports it."
    )
    if mixing.basis == Status.SUBMITTED and not mixing.finals_in_project:
        st.info("No final translations chosen yet: CMI over every submitted translation (all translators, both "
                "phases). Choose final translations on the Final translation page to measure the dataset itself.")
    elif mixing.basis == Status.SUBMITTED:
        st.info(f"None of the {mixing.sentences_in_scope} sentences in this filter has a final translation yet "
                f"({mixing.finals_in_project} in the project): CMI over every submitted translation here.")
    else:
        st.caption(
            f"Over the final translation of each sentence: {mixing.summary['sentences']} of "
            f"{mixing.sentences_in_scope} sentences; {mixing.without_final} have no final translation yet and "
            f"{mixing.left_out} were left out by a lead (not counted)."
        )
    summary = mixing.summary
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
    mixed_rows = sorted((r for r in mixing.rows if r["cmi"] > 0), key=lambda r: -r["cmi"])[:20]
    if mixed_rows:
        st.caption("Most code-mixed sentences")
        table(mixed_rows, "dash_cmi_sentences")
    csv_button("CMI per sentence", mixing.rows, "cmi_per_sentence")
    st.caption("Signature: " + CMI_SIGNATURE)


def spelling_section(view: Dashboard) -> None:
    with st.spinner("Scoring every translation pair with spelling variants folded…"):
        spelling = view.spelling()
    columns = (*PHASES, "overall")
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
