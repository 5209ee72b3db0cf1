"""Admin: download the project archive; restore an archive (or a work file, or an older backup) into this project."""

import pandas as pd
import streamlit as st

from corpus.errors import InputRejected
from db.backup import (
    DATABASE_FILE_REFUSED,
    MAX_RESTORE_BYTES,
    SQLITE_HEADER,
    RestoreRefused,
    backup_filename,
    counts,
    holdings,
    holds_nothing,
    is_archive,
    make_backup,
    restore_upload,
)
from db.access import SessionEnded
from db.engine import ProjectBusy
from db.workfile import import_progress
from ui.common import ADMIN, get_engine, require_role
from ui.downloads import download_link
from ui.text import md_escape

user = require_role(*ADMIN)
engine = get_engine()

st.title("Backup and restore")

st.subheader("Download a backup")
st.caption(
    "One zip holding the whole project: accounts with their roles and password hashes, settings, glossary, "
    "sentences, assignments, every revision of every translation and annotation, gold decisions and final "
    "choices with their history, and the audit log. It restores into SQLite or PostgreSQL alike."
)
if st.button("Prepare a backup", key="backup_make"):
    with st.spinner("Writing the backup…"):
        st.session_state["backup_zip"] = make_backup(engine)
        st.session_state["backup_name"] = backup_filename()
if "backup_zip" in st.session_state:
    data = st.session_state["backup_zip"]
    # Served by /download/..., which checks this admin's live session when the file is fetched (never a
    # /media/ URL that works without a cookie).
    download_link(f"Download {st.session_state['backup_name']} ({len(data) / 1024:,.0f} KB)", data,
                  st.session_state["backup_name"], "application/zip", user=user, roles=ADMIN,
                  key="backup_download", type="primary")

st.divider()
st.subheader("Restore")
stored = counts(engine)
st.caption(
    "Upload a backup zip, or a work file (JSONL). A backup restores the whole project and replaces what is "
    "here, so everyone (you too) logs in again with the accounts it holds. A work file is imported all or "
    "nothing and never overwrites: records already here are skipped, different ones are errors. "
    f"This project now holds {stored['sentences']:,} sentences, {stored['translations']:,} translations, "
    f"{stored['annotations']:,} annotations."
)
upload = st.file_uploader("Backup or work file", type=["zip", "jsonl", "json", "txt", "sqlite", "db"],
                          key="restore_file")
if upload is not None:
    payload = upload.getvalue()
    if len(payload) > MAX_RESTORE_BYTES:
        st.error(f"{md_escape(upload.name)}: the file is larger than {MAX_RESTORE_BYTES // (1024 * 1024)} MB")
        st.stop()
    if payload.startswith(SQLITE_HEADER):
        st.error(f"{md_escape(upload.name)}: {md_escape(DATABASE_FILE_REFUSED)}")
        st.stop()
    replace = False
    archive_over_work = payload.startswith(b"PK\x03\x04") and is_archive(payload) \
        and not holds_nothing(holdings(engine))
    if archive_over_work:
        replace = st.checkbox(
            "Replace everything in this project with the backup (accounts, work and history; all or nothing)",
            key="restore_replace",
        )
        if not replace:
            st.warning("This project is not empty: tick the box to replace it with the backup.")
    if st.button(f"Restore {md_escape(upload.name)}", type="primary", key="restore_go",
                 disabled=archive_over_work and not replace):
        bar = st.empty()

        def _show_progress(stage: str, done: int, total: int) -> None:
            """A work file's import reports reading, checking, writing and gold; an archive's restore, the
            rows it has written ("restoring"). The bar follows either."""
            share = min(done / total, 1.0) if total else 1.0
            label = f"Restoring the backup: {done:,} of {total:,} rows" if stage == "restoring" \
                else f"Work file: {stage}…"
            bar.progress(share, text=label)

        try:
            with st.spinner("Checking and restoring…"), import_progress(_show_progress):
                result = restore_upload(engine, payload, upload.name, actor_id=user.id, replace=replace)
        except InputRejected as exc:
            st.error(f"{len(exc.errors)} problem(s) found — nothing was restored.")
            st.dataframe(
                pd.DataFrame([{"file": e.file, "line": e.line, "sentence id": e.sentence_id, "problem": e.message}
                              for e in exc.errors]),
                hide_index=True, width="stretch",
            )
        except (RestoreRefused, SessionEnded) as exc:
            st.error(f"Nothing was restored: {md_escape(exc)}")
        except ProjectBusy:
            st.error("Nothing was restored: another import or restore holds the project. Try again when it ends.")
        else:
            bar.empty()
            st.success(md_escape(result.summary))
            if result.kind == "archive":
                st.info("The project was replaced by the backup's; log in again with the accounts it holds.")
