"""Lead: download a full backup; restore a backup, work file or SQLite file into this project."""

import pandas as pd
import streamlit as st

from corpus.errors import InputRejected
from db.backup import (
    MAX_RESTORE_BYTES,
    SQLITE_HEADER,
    RestoreRefused,
    backup_filename,
    counts,
    is_empty,
    make_backup,
    restore_upload,
)
from db.engine import is_sqlite
from pages._common import get_engine, require_role

user = require_role("lead")
engine = get_engine()

st.title("Backup and restore")

st.subheader("Download a backup")
st.caption(
    "One zip with the work file (every sentence and the latest translation and annotation, as `dump-work` "
    "writes it)"
    + (" and a consistent copy of the SQLite database, which also keeps the full revision history and the accounts."
       if is_sqlite(engine) else ". On PostgreSQL, also back the database up with `pg_dump` for the history.")
)
if st.button("Prepare a backup", key="backup_make"):
    with st.spinner("Writing the backup…"):
        st.session_state["backup_zip"] = make_backup(engine)
        st.session_state["backup_name"] = backup_filename()
if "backup_zip" in st.session_state:
    data = st.session_state["backup_zip"]
    st.download_button(
        f"Download {st.session_state['backup_name']} ({len(data) / 1024:,.0f} KB)", data=data,
        file_name=st.session_state["backup_name"], mime="application/zip", key="backup_download", type="primary",
    )

st.divider()
st.subheader("Restore")
stored = counts(engine)
st.caption(
    "Upload a backup zip, a work file (JSONL) or a backed-up SQLite file. A work file is imported all or nothing "
    "and never overwrites: records already here are skipped, different ones are errors. A database file is used "
    "only when this project is empty. "
    f"This project now holds {stored['sentences']:,} sentences, {stored['translations']:,} translations, "
    f"{stored['annotations']:,} annotations."
)
upload = st.file_uploader("Backup, work file or SQLite file", type=["zip", "jsonl", "json", "txt", "sqlite", "db"],
                          key="restore_file")
if upload is not None:
    payload = upload.getvalue()
    if len(payload) > MAX_RESTORE_BYTES:
        st.error(f"{upload.name}: the file is larger than {MAX_RESTORE_BYTES // (1024 * 1024)} MB")
        st.stop()
    if payload.startswith(SQLITE_HEADER) and not is_empty(engine):
        st.error(f"{upload.name} is a database file; it can only be restored into an empty project, and this one "
                 "already holds work. Restore it into a new, empty database, or upload the work file instead.")
        st.stop()
    if st.button(f"Restore {upload.name}", type="primary", key="restore_go"):
        try:
            result = restore_upload(engine, payload, upload.name, actor_id=user.id)
        except InputRejected as exc:
            st.error(f"{len(exc.errors)} problem(s) found — nothing was restored.")
            st.dataframe(
                pd.DataFrame([{"file": e.file, "line": e.line, "sentence id": e.sentence_id, "problem": e.message}
                              for e in exc.errors]),
                hide_index=True, width="stretch",
            )
        except RestoreRefused as exc:
            st.error(f"Nothing was restored: {exc}")
        else:
            st.success(result.summary)
            if result.kind == "sqlite":
                st.info("The database was replaced by the backup's; log in again with the accounts it holds.")
