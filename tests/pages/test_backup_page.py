"""The Backup page under AppTest: leads only; download the project archive; restore all or nothing with located
errors; an archive replaces a non-empty project only when the lead ticks the box."""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session
from streamlit.testing.v1 import AppTest

from corpus.workfile import dump_work_file
from db.users import create_user
from db.backup import holdings, make_backup, sqlite_snapshot
from db.engine import make_engine
from db.models import SourceSentence
from db.schema import upgrade
from db.workfile import import_work_file, load_work
from tests.support.app_pages import PAGE_RUN_LIMIT_S, open_file


def plain(value: str) -> str:
    """A Markdown message as the reader sees it: md_escape's backslashes removed."""
    return re.sub(r"\\(.)", r"\1", value)


ROOT = Path(__file__).resolve().parents[2]
PAGE = str(ROOT / "pages" / "backup.py")

SENTENCE = {"type": "sentence", "id": "3121", "domain": "restaurant", "split": "train",
            "text": "But the staff was so horrible to us.",
            "aspects": [{"term": "staff", "from": 8, "to": 13, "polarity": "negative"}]}
AWARE = {"type": "translation", "sentence_id": "3121", "phase": "aware", "translator": "asha",
         "text": "लेकिन स्टाफ़ हमारे साथ बहुत बुरा था।", "untranslatable": False}


def jsonl(*objects) -> bytes:
    return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objects).encode()


def dump(engine) -> str:
    return dump_work_file(load_work(engine))


@pytest.fixture
def team(app_engine):
    engine = app_engine
    return {
        "engine": engine,
        "lead": create_user(engine, "lead", {"admin"}, "lead-password-1"),  # the Backup page is the admin's
        "asha": create_user(engine, "asha", {"translator"}, "asha-password-1"),
    }


def open_page(engine, user_id) -> AppTest:
    at = open_file(engine, user_id, "pages/backup.py")
    assert not at.exception, at.exception
    return at


def click_restore(at: AppTest) -> AppTest:
    at.button(key="restore_go").click()
    at.run()
    assert not at.exception, at.exception
    return at


def test_translators_cannot_open_the_backup_page(team):
    at = open_page(team["engine"], team["asha"])
    assert any("do not have access" in e.value for e in at.error)
    assert not at.get("link_button") and not at.get("file_uploader")


def test_logged_out_visitors_see_only_a_login_prompt(team):
    at = AppTest.from_file(PAGE, default_timeout=PAGE_RUN_LIMIT_S)
    at.run()
    assert any("log in" in w.value for w in at.warning)
    assert not at.get("file_uploader")


def test_lead_downloads_the_project_archive(team):
    import_work_file(team["engine"], jsonl(SENTENCE, AWARE), "w.jsonl")
    at = open_page(team["engine"], team["lead"])
    assert not at.get("link_button")  # nothing is written until asked
    at.button(key="backup_make").click()
    at.run()
    assert not at.exception, at.exception
    button = at.get("link_button")[0]
    assert button.proto.label.startswith("Download corpus-backup-")
    assert button.proto.url.startswith("/download/")  # the checked route, never a /media/ URL
    assert not at.get("download_button")
    data = at.session_state["backup_zip"]
    assert data == make_backup(team["engine"])
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        users = [json.loads(line)["username"] for line in zf.read("users.jsonl").splitlines()]
        assert sorted(users) == ["asha", "lead"]
        assert '"translator":' not in zf.read("translations.jsonl").decode()  # rows, not the work file


def test_lead_restores_a_work_file(team):
    at = open_page(team["engine"], team["lead"])
    at.file_uploader(key="restore_file").upload("work.jsonl", jsonl(SENTENCE, AWARE))
    at.run()
    click_restore(at)
    assert any("imported 1 sentences, 1 translations" in s.value for s in at.success)
    assert '"translator": "asha"' in dump(team["engine"])


def test_a_broken_work_file_shows_the_located_error_table_and_writes_nothing(team):
    import_work_file(team["engine"], jsonl(SENTENCE), "w.jsonl")
    before = dump(team["engine"])
    bad = jsonl(SENTENCE, dict(AWARE, phase="later")) + b"{not json\n"
    at = open_page(team["engine"], team["lead"])
    at.file_uploader(key="restore_file").upload("bad.jsonl", bad)
    at.run()
    click_restore(at)
    assert any("nothing was restored" in e.value for e in at.error)
    table = at.dataframe[0].value
    assert list(table.columns) == ["file", "line", "sentence id", "problem"]
    rows = {int(r["line"]): r for _, r in table.iterrows()}
    assert "unknown phase" in rows[2]["problem"] and rows[2]["sentence id"] == "3121"
    assert "not valid JSON" in rows[3]["problem"]
    assert set(table["file"]) == {"bad.jsonl"}
    assert dump(team["engine"]) == before


def test_a_sqlite_file_is_refused_with_a_clear_message_and_nothing_restored(team, tmp_path):
    import_work_file(team["engine"], jsonl(SENTENCE), "w.jsonl")
    other = make_engine(f"sqlite:///{tmp_path / 'other.db'}")
    upgrade(other)
    import_work_file(other, jsonl(dict(SENTENCE, id="9")), "o.jsonl")
    sqlite_file = sqlite_snapshot(other)
    before = dump(team["engine"])
    at = open_page(team["engine"], team["lead"])
    at.file_uploader(key="restore_file").upload("corpus.sqlite", sqlite_file)
    at.run()
    assert not at.exception, at.exception
    assert any("a database file is not restored" in e.value for e in at.error)
    assert not _has_button(at, "restore_go")
    assert dump(team["engine"]) == before


def _has_button(at: AppTest, key: str) -> bool:
    try:
        at.button(key=key)
    except KeyError:
        return False
    return True


def _source_archive(tmp_path) -> tuple[bytes, object]:
    source = make_engine(f"sqlite:///{tmp_path / 'source.db'}")
    upgrade(source)
    create_user(source, "lena", {"lead"}, "lena-password-1")
    import_work_file(source, jsonl(SENTENCE, AWARE), "w.jsonl")
    return make_backup(source), source


def test_an_archive_replaces_a_project_only_when_the_lead_ticks_the_box(team, tmp_path):
    archive, source = _source_archive(tmp_path)
    at = open_page(team["engine"], team["lead"])
    at.file_uploader(key="restore_file").upload("corpus-backup.zip", archive, "application/zip")
    at.run()
    assert not at.exception, at.exception
    assert at.button(key="restore_go").disabled
    assert any("tick the box" in w.value for w in at.warning)
    at.checkbox(key="restore_replace").check()
    at.run()
    assert not at.button(key="restore_go").disabled
    click_restore(at)
    assert any("archive corpus-backup.zip restored (replacing everything)" in plain(s.value) for s in at.success)
    assert any("log in again" in i.value for i in at.info)
    assert make_backup(team["engine"]) == archive
    assert dump(team["engine"]) == dump(source)
    with Session(team["engine"]) as session:
        assert session.scalar(select(func.count()).select_from(SourceSentence)) == 1
    assert holdings(team["engine"])["login_sessions"] == 0  # the lead's own session went with the old accounts


def test_a_damaged_archive_is_refused_with_where_and_changes_nothing(team, tmp_path):
    archive, _ = _source_archive(tmp_path)
    src = zipfile.ZipFile(io.BytesIO(archive))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name in src.namelist():
            body = src.read(name)
            zf.writestr(name, body.replace("लेकिन".encode(), "किंतु".encode()) if name == "translations.jsonl"
                        else body)
    before = make_backup(team["engine"])
    at = open_page(team["engine"], team["lead"])
    at.file_uploader(key="restore_file").upload("tampered.zip", out.getvalue(), "application/zip")
    at.run()
    at.checkbox(key="restore_replace").check()
    at.run()
    click_restore(at)
    assert any("Nothing was restored: tampered.zip/translations.jsonl" in plain(e.value) for e in at.error)
    assert make_backup(team["engine"]) == before


def test_a_restore_that_meets_another_import_says_so_and_restores_nothing(team, monkeypatch):
    import db.backup
    from db.engine import ProjectBusy

    def busy(*args, **kwargs):
        raise ProjectBusy("The project is busy importing; your work is kept.")

    monkeypatch.setattr(db.backup, "restore_upload", busy)
    at = open_page(team["engine"], team["lead"])
    at.file_uploader(key="restore_file").upload("work.jsonl", jsonl(SENTENCE, AWARE))
    at.run()
    click_restore(at)
    assert any("another import or restore holds the project" in e.value for e in at.error)
    with Session(team["engine"]) as session:
        assert session.scalar(select(func.count()).select_from(SourceSentence)) == 0


def test_an_archive_restore_shows_how_many_rows_it_has_written(team, tmp_path):
    """The bar follows the restore's rows; one that fails half-way leaves it where the restore stopped."""
    archive, _ = _source_archive(tmp_path)
    src = zipfile.ZipFile(io.BytesIO(archive))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name in src.namelist():
            body = src.read(name)
            zf.writestr(name, body.replace("लेकिन".encode(), "किंतु".encode()) if name == "translations.jsonl"
                        else body)
    at = open_page(team["engine"], team["lead"])
    at.file_uploader(key="restore_file").upload("tampered.zip", out.getvalue(), "application/zip")
    at.run()
    at.checkbox(key="restore_replace").check()
    at.run()
    click_restore(at)
    bars = [b.proto for b in at.get("progress")]
    declared = sum(table["rows"] for table in json.loads(src.read("manifest.json"))["tables"])
    match = [re.fullmatch(r"Restoring the backup: (\d+) of ([\d,]+) rows", b.text) for b in bars]
    assert any(match), [b.text for b in bars]
    done, total = next((int(m.group(1)), int(m.group(2).replace(",", ""))) for m in match if m)
    assert total == declared and 0 < done < total  # the tables before translations.jsonl were written
