"""Lead: import SemEval-2014 XML or a work file from the browser. For XML the domain and split are chosen
first (filled in from the file name when it says them), the preview repeats what goes where, then all or
nothing. A domain's split nobody has worked on yet can be removed again (the wrong file imported, say)."""

import pandas as pd
import streamlit as st

from corpus.errors import InputRejected
from corpus.semeval import domain_and_split_from_name, parse_semeval
from corpus.vocabulary import Role
from db.access import SessionEnded
from db.browse import domains_and_splits
from db.importing import (
    ImportRemovalRefused,
    import_sentences,
    other_split_duplicates,
    plan_removal,
    remove_import,
)
from db.workfile import import_work_file
from ui.common import get_engine, require_role
from ui.text import md_escape

MAX_UPLOAD_MB = 60

user = require_role(Role.LEAD)
st.title("Import")
st.caption("Imports are all or nothing: a file with any error writes nothing. Re-importing a file never "
           "deletes or overwrites anyone's work.")


def error_table(errors) -> None:
    st.error(f"{len(errors)} problem(s) found — nothing was imported.")
    st.dataframe(
        pd.DataFrame([{"file": e.file, "line": e.line, "sentence id": e.sentence_id, "problem": e.message} for e in errors]),
        hide_index=True, width="stretch",
    )


semeval_tab, work_tab, remove_tab = st.tabs(["SemEval-2014 XML", "Work file (JSONL)", "Remove an import"])

DOMAINS, SPLITS = ("restaurant", "laptop"), ("train", "test")


def prefill_from_file_name() -> tuple[str | None, str | None]:
    """Fill an empty domain or split choice with what the uploaded file's name says (the uploader's value
    is in session state before it is drawn below the choices). Returns what the name says."""
    upload = st.session_state.get("semeval_file")
    if upload is None:
        return None, None
    said = domain_and_split_from_name(upload.name)
    for key, value in zip(("semeval_domain", "semeval_split"), said):
        if value is not None and st.session_state.get(key) is None:
            st.session_state[key] = value
    return said


with semeval_tab:
    said_domain, said_split = prefill_from_file_name()
    st.markdown("**1. Where the sentences go**")
    c1, c2 = st.columns(2)
    domain = c1.selectbox("Domain", DOMAINS, index=None, key="semeval_domain", placeholder="Choose the domain")
    split = c2.selectbox("Split", SPLITS, index=None, key="semeval_split", placeholder="Choose the split")
    st.caption("Filled in from the file's name when it says Laptop or Restaurant and Train or Test; check them.")
    st.markdown("**2. The file**")
    upload = st.file_uploader("SemEval-2014 XML file", type=["xml"], key="semeval_file")
    if upload is not None:
        data = upload.getvalue()
        differs = [f"{what} {said}" for what, said, chosen in (("domain", said_domain, domain),
                                                               ("split", said_split, split))
                   if said is not None and chosen is not None and said != chosen]
        if differs:
            st.warning(f"The file name {md_escape(upload.name)} says {' and '.join(differs)}; you chose "
                       f"{domain}/{split}. Check before importing.")
        if len(data) > MAX_UPLOAD_MB * 1024 * 1024:
            st.error(f"{md_escape(upload.name)}: the file is larger than {MAX_UPLOAD_MB} MB")
        elif domain is None or split is None:
            st.info("Choose the domain and the split of this file above; then it is checked and previewed.")
        else:
            records, errors = parse_semeval(data, upload.name, domain, split)
            if errors:
                error_table(errors)
            else:
                flagged = [r for r in records if r.flags]
                aspects = sum(len(r.aspects) for r in records)
                st.info(f"Will import {len(records):,} sentences and {aspects:,} aspect terms from "
                        f"{md_escape(upload.name)} into **{domain} / {split}**.")
                m1, m2, m3 = st.columns(3)
                m1.metric("Sentences", f"{len(records):,}")
                m2.metric("Aspect terms", f"{aspects:,}")
                m3.metric("Flagged for review", f"{len(flagged):,}")
                if flagged:
                    with st.expander("Flagged sentences (imported as they are)"):
                        st.dataframe(pd.DataFrame([{"sentence id": r.key.id, "flags": ", ".join(r.flags),
                                                    "text": r.text} for r in flagged]), hide_index=True)
                repeated = other_split_duplicates(get_engine(), records, upload.name)
                if repeated:
                    st.warning(md_escape(repeated[-1].message.split(": is this")[0]) + ". Is this the file for "
                               f"**{split}**? They are refused unless you tick the box below.")
                    st.dataframe(pd.DataFrame([{"line": e.line, "sentence id": e.sentence_id, "problem": e.message}
                                               for e in repeated[:-1]]), hide_index=True, width="stretch",
                                 key="semeval_repeated")
                allow = st.checkbox("Import sentences already in another split", key="semeval_allow_duplicates",
                                    help=f"A sentence whose text is already in another split of {domain} usually "
                                         "means the file is meant for that split; the import is refused, naming "
                                         "them, unless this is ticked (they are then flagged for review).")
                if st.button(f"Import {len(records):,} sentences as {domain}/{split}", type="primary",
                             key="semeval_import"):
                    try:
                        summary = import_sentences(get_engine(), records, upload.name, actor_id=user.id,
                                                   allow_duplicates=allow)
                    except InputRejected as exc:
                        error_table(exc.errors)
                    except SessionEnded as exc:  # ended elsewhere meanwhile: nothing imported
                        st.error(md_escape(str(exc)))
                    else:
                        st.success(f"{md_escape(summary)}; {summary.unchanged} already present and unchanged.")

with work_tab:
    work_upload = st.file_uploader("Work file (JSONL)", type=["jsonl", "json", "txt"], key="work_file")
    if work_upload is not None and st.button("Import work file", type="primary", key="work_import"):
        try:
            summary = import_work_file(get_engine(), work_upload.getvalue(), work_upload.name, actor_id=user.id)
        except InputRejected as exc:
            error_table(exc.errors)
        except SessionEnded as exc:  # ended elsewhere meanwhile: nothing imported
            st.error(md_escape(str(exc)))
        else:
            st.success(md_escape(summary))

with remove_tab:
    st.caption("Removes every imported sentence of one domain's split, with its aspect terms and categories, "
               "in one step; only while nobody has worked on any of them (no translation, assignment or final "
               "choice).")
    have_domains, have_splits = domains_and_splits(get_engine())
    if not have_domains:
        st.caption("Nothing is imported yet.")
    else:
        r1, r2 = st.columns(2)
        remove_domain = r1.selectbox("Domain", have_domains, index=None, key="remove_domain",
                                     placeholder="Choose the domain")
        remove_split = r2.selectbox("Split", have_splits, index=None, key="remove_split",
                                    placeholder="Choose the split")
        if remove_domain is not None and remove_split is not None:
            plan = plan_removal(get_engine(), remove_domain, remove_split)
            refusal = plan.refusal()
            if refusal:
                st.warning(md_escape(f"{remove_domain}/{remove_split}: {refusal}."))
            else:
                st.info(md_escape(f"Removing {remove_domain}/{remove_split} takes away {plan.what()}."))
                sure = st.checkbox(f"Yes, remove these {plan.sentences:,} sentences", key="remove_sure")
                if st.button(f"Remove {remove_domain}/{remove_split}", type="primary", disabled=not sure,
                             key="remove_import"):
                    try:
                        removed = remove_import(get_engine(), remove_domain, remove_split, actor_id=user.id)
                    except (ImportRemovalRefused, SessionEnded) as exc:  # work began meanwhile; nothing removed
                        st.error(md_escape(str(exc)))
                    else:
                        st.success(md_escape(f"Removed {removed.what()}."))
