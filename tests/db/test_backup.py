"""The project archive on real databases: backup → restore into an empty database → backup gives the same bytes
(SQLite, PostgreSQL and across them), on the demo and on a project with every kind of record; a restore is
all or nothing, only into an empty database unless told to replace; older uploads still restore."""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from cli.commands import main
from corpus.workfile import dump_work_file
from db.adjudication import edit
from db.disagreement_queue import decisions
from db.auth import start_session
from db.users import create_user
from db.backup import (
    NOT_ARCHIVED,
    RestoreRefused,
    archived_tables,
    current_schema,
    holdings,
    make_backup,
    restore_archive,
    restore_upload,
    schema_chain,
    sqlite_snapshot,
)
from db.engine import make_engine, transaction
from db.final_choice import choose, compare, record_auto_choices
from db.models import (
    Adjudication,
    AspectCategory,
    Base,
    FinalChoice,
    Revision,
    TaggingItem,
    Translation,
    TranslationAssignment,
    User,
)
from db.translation import Draft, save_translation, set_glossary_term
from db.workflows import deactivate_user
from db.workfile import import_work_file, load_work
from tests.conftest import _PG_SKIP_REASON
from tests.support.databases import copy_of
from tests.support.tagging_fixtures import add_sentence, add_translation, add_user, project_id, set_project
from tests.db.test_adjudication import edit_submitted, make_world, submit

AGREED = ["B", "O", "B", "O", "O", "O"]
CHANGED = ["B", "O", "O", "O", "O", "O"]


@pytest.fixture(scope="session")
def fresh_sqlite(migrated_sqlite: Path):
    """New migrated SQLite databases on demand: copies of the migrated template (migrating each costs more)."""
    def new(folder: Path, name: str = "target.db"):
        return make_engine(copy_of(migrated_sqlite, folder / name))
    return new


@pytest.fixture
def postgres(request):
    """Fresh migrated PostgreSQL databases on demand (skipped with the reason when none is reachable): copies
    of the migrated template, as ``postgres_engine`` gives one per test."""
    if _PG_SKIP_REASON:
        pytest.skip(_PG_SKIP_REASON)
    databases = request.getfixturevalue("_postgres_databases")
    made = []

    def new():
        url = databases.take()
        engine = make_engine(url)  # already migrated
        made.append((engine, url))
        return engine
    yield new
    for engine, url in made:
        engine.dispose()
        databases.give_back(url)


def every_kind_of_record(engine) -> dict:
    """Users of every role (one deactivated, one without a password), settings, glossary, categories, translation
    assignments in every state, a translation with several revisions, agreed then withdrawn gold, a lead's edited
    gold, an automatic final choice overridden by the lead, audit events and a live login session."""
    ids = make_world(engine)  # asha (translator), meera and kiran (annotators), lena (lead); t1, t2 to tag
    lead = ids["lead"]
    pid = project_id(engine)
    set_project(engine, settings={"review": {"b": [1.5, "दो"], "a": None}}, final_policy="aware-unless-blind-better")
    set_glossary_term(engine, pid, "sushi", "सुशी", "transliterate", lead)
    set_glossary_term(engine, pid, "Brooklyn", "Brooklyn", "keep-roman", lead)
    # gold: t2 agreed, then an annotator edits away (withdrawn); t1 disagreed, then the lead's own tags
    t2_item = submit(engine, ids["meera"], ids["t2"], AGREED)
    submit(engine, ids["kiran"], ids["t2"], AGREED)
    edit_submitted(engine, ids["kiran"], ids["t2"], CHANGED)
    assert [d.source for d in decisions(engine, t2_item)] == ["agreed", "withdrawn"]
    t1_item = submit(engine, ids["meera"], ids["t1"], ["O", "B", "I", "O", "O", "O", "O"])
    submit(engine, ids["kiran"], ids["t1"], ["O", "B", "O", "O", "O", "O", "O"])
    edit(engine, t1_item, ["O", "B", "I", "O", "O", "O", "O"], lead, expected=None, note="staff service is one aspect")
    # final choice: the rule picks, the lead overrides
    for name in ("ravi", "uma"):
        ids[name] = add_user(engine, name, "translator")
    s7 = add_sentence(engine, "7", "The sushi and the miso soup were great.", ["sushi", "miso soup"], ordinal=7)
    ids["a1"] = add_translation(engine, s7, "aware", ids["asha"], "सुशी और मिसो सूप बहुत अच्छे थे।",
                                aspect_map={"sushi": "सुशी", "miso soup": "मिसो सूप"})
    add_translation(engine, s7, "aware", ids["ravi"], "सुशी और मिसो सूप शानदार थे।",
                    aspect_map={"sushi": "सुशी", "miso soup": "मिसो सूप"}, minutes=1)
    add_translation(engine, s7, "aware", ids["uma"], "सुशी और सूप बढ़िया थे।",
                    aspect_map={"sushi": "सुशी", "miso soup": None}, minutes=2)
    add_translation(engine, s7, "blind", ids["uma"], None, untranslatable=True, minutes=4)
    assert record_auto_choices(engine, pid) >= 1
    auto = compare(engine, s7).in_force
    choose(engine, s7, ids["a1"], lead, expected=auto.id, note="more natural")
    # a translation saved several times (every save a revision), categories, assignments in every state
    s9 = add_sentence(engine, "9", "Service was slow but friendly.", ["Service"], ordinal=9)
    with transaction(engine) as session:
        ravi_task = TranslationAssignment(user_id=ids["ravi"], sentence_id=s9, phase="blind", status="assigned",
                                          assigned_by=lead)
        session.add(ravi_task)
        session.flush()
        ravi_task = ravi_task.id
    version = 0
    for n in range(3):  # as the Translate page saves: the task becomes a draft
        version = save_translation(engine, ids["ravi"], ravi_task, Draft(f"सेवा धीमी थी {n}"),
                                   expected_version=version).version
    ids["dev"] = add_user(engine, "dev", "translator")
    with transaction(engine) as session:
        session.add(AspectCategory(sentence_id=s9, position=0, category="service", polarity="conflict"))
        for status, (user, sentence, phase) in zip(
            ("assigned", "submitted", "skipped"),
            ((ids["dev"], s9, "aware"), (ids["asha"], s7, "aware"), (ids["uma"], s9, "aware")),
        ):
            session.add(TranslationAssignment(user_id=user, sentence_id=sentence, phase=phase, status=status,
                                              assigned_by=lead))
    deactivate_user(engine, ids["dev"], lead)  # dev's open task is reassigned
    add_user(engine, "guest", "annotator", password=None)
    start_session(engine, lead)  # a login session: not archived
    return ids


@pytest.fixture(scope="module")
def rich_sqlite(fresh_sqlite, tmp_path_factory):
    engine = fresh_sqlite(tmp_path_factory.mktemp("rich"), "rich.db")
    every_kind_of_record(engine)
    yield engine
    engine.dispose()


@pytest.fixture(scope="module")
def demo_sqlite(demo_sqlite: Path, tmp_path_factory):
    """The demo project on SQLite: a copy of the session's demo template (tests/conftest.py's fixture of this name)."""
    engine = make_engine(copy_of(demo_sqlite, tmp_path_factory.mktemp("demo") / "demo.db"))
    yield engine
    engine.dispose()


def archive_members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {name: zf.read(name) for name in zf.namelist()}


def rows_of(data: bytes, table: str) -> list[dict]:
    return [json.loads(line) for line in archive_members(data)[f"{table}.jsonl"].splitlines()]


# ------------------------------------------------------------------ what an archive holds


def test_every_table_of_the_model_is_archived_but_login_sessions_and_codes():
    names = {t.name for t in archived_tables()}
    assert names | NOT_ARCHIVED == set(Base.metadata.tables)
    # and the suggestion model: derived from gold, retrained after a restore
    assert NOT_ARCHIVED == {"login_sessions", "login_codes", "suggestion_models"}


def test_the_archive_holds_every_kind_of_record(rich_sqlite):
    data = make_backup(rich_sqlite)
    manifest = json.loads(archive_members(data)["manifest.json"])
    assert manifest["schema_version"] == current_schema() == schema_chain()[-1]
    assert [t["name"] for t in manifest["tables"]] == [t.name for t in archived_tables()]
    users = {u["username"]: u for u in rows_of(data, "users")}
    assert users["dev"]["active"] is False and users["guest"]["password_hash"] is None
    assert users["lena"]["password_hash"].startswith("$2")
    assert {r["role"] for r in rows_of(data, "user_roles")} >= {"translator", "annotator", "lead"}
    assert {a["source"] for a in rows_of(data, "adjudications")} == {"agreed", "withdrawn", "edited"}
    assert [c["overridden"] for c in rows_of(data, "final_choices")][-1] is True
    assert {a["status"] for a in rows_of(data, "translation_assignments")} >= \
        {"assigned", "draft", "submitted", "skipped", "reassigned"}
    assert {g["english"] for g in rows_of(data, "glossary_terms")} == {"sushi", "Brooklyn"}
    assert rows_of(data, "projects")[0]["settings"] == {"review": {"a": None, "b": [1.5, "दो"]}}
    assert {e["action"] for e in rows_of(data, "audit_events")} >= {"set-glossary-term", "deactivate-user"}
    revisions = rows_of(data, "revisions")
    assert {r["entity"] for r in revisions} == {"translation", "annotation", "adjudication", "final_choice"}
    with Session(rich_sqlite) as session:
        assert len(revisions) == session.scalar(select(func.count()).select_from(Revision))
    assert "login_sessions.jsonl" not in archive_members(data)


def test_backing_up_twice_gives_the_same_bytes(rich_sqlite):
    assert make_backup(rich_sqlite) == make_backup(rich_sqlite)


# ------------------------------------------------------------------ round trips


@pytest.mark.parametrize("project", ["demo_sqlite", "rich_sqlite"])
def test_backup_restore_backup_is_byte_identical_on_either_database(project, any_engine, request):
    source = request.getfixturevalue(project)
    first = make_backup(source)
    result = restore_archive(any_engine, first, "a.zip")
    assert result.kind == "archive"
    assert make_backup(any_engine) == first
    assert dump_work_file(load_work(any_engine)) == dump_work_file(load_work(source))


@pytest.mark.parametrize("project", ["demo_sqlite", "rich_sqlite"])
def test_sqlite_to_postgresql_to_sqlite_keeps_every_byte(project, postgres, tmp_path, request, fresh_sqlite):
    first = make_backup(request.getfixturevalue(project))
    pg = postgres()
    restore_archive(pg, first, "from-sqlite.zip")
    second = make_backup(pg)
    back = fresh_sqlite(tmp_path, "back.db")
    restore_archive(back, second, "from-postgres.zip")
    assert second == first and make_backup(back) == first


def test_a_project_built_on_postgresql_round_trips_through_sqlite(postgres, tmp_path, fresh_sqlite):
    pg = postgres()
    every_kind_of_record(pg)
    first = make_backup(pg)
    sqlite = fresh_sqlite(tmp_path)
    restore_archive(sqlite, first, "pg.zip")
    again = postgres()
    restore_archive(again, make_backup(sqlite), "sqlite.zip")
    assert make_backup(sqlite) == first and make_backup(again) == first


def test_the_restored_project_keeps_working_and_new_rows_get_new_keys(rich_sqlite, any_engine):
    restore_archive(any_engine, make_backup(rich_sqlite), "a.zip")
    with Session(any_engine) as session:
        top_user = session.scalar(select(func.max(User.id)))
        row = session.scalars(select(Translation).where(Translation.text.like("सेवा धीमी%"))).one()
        task = session.scalars(select(TranslationAssignment.id).where(
            TranslationAssignment.user_id == row.translator_id, TranslationAssignment.sentence_id == row.sentence_id,
            TranslationAssignment.phase == row.phase)).one()
        user, version = row.translator_id, row.version
        top_revision = session.scalar(select(func.max(Revision.id)))
    assert create_user(any_engine, "newcomer", {"annotator"}, "newcomer-password-1") == top_user + 1
    save_translation(any_engine, user, task, Draft("सेवा धीमी पर अच्छी थी"), expected_version=version)
    with Session(any_engine) as session:
        assert session.scalar(select(func.max(Revision.id))) == top_revision + 1
        withdrawn = session.scalars(select(Adjudication).where(Adjudication.source == "withdrawn")).one()
        assert withdrawn.tags is None
        assert session.scalars(select(FinalChoice).order_by(FinalChoice.id.desc())).first().overridden


# ------------------------------------------------------------------ empty, replace, all or nothing


def test_a_restore_into_a_database_holding_work_is_refused_and_changes_nothing(rich_sqlite, demo_sqlite, tmp_path,
                                                                              fresh_sqlite):
    target = fresh_sqlite(tmp_path)
    restore_archive(target, make_backup(demo_sqlite), "demo.zip")
    before = make_backup(target)
    with pytest.raises(RestoreRefused, match=r"rich.zip: an archive restores only into an empty database, and "
                                             r"this one holds 7 users"):
        restore_archive(target, make_backup(rich_sqlite), "rich.zip")
    assert make_backup(target) == before


def test_an_account_alone_makes_a_database_not_empty(rich_sqlite, any_engine):
    create_user(any_engine, "someone", {"lead"}, "someone-password-1")
    with pytest.raises(RestoreRefused, match="holds 1 users"):
        restore_archive(any_engine, make_backup(rich_sqlite), "a.zip")


def test_replace_swaps_everything_and_logs_everyone_out(rich_sqlite, demo_sqlite, any_engine):
    restore_archive(any_engine, make_backup(demo_sqlite), "demo.zip")
    with Session(any_engine) as session:
        lead = session.scalars(select(User.id).where(User.username == "lead")).one()
    start_session(any_engine, lead)
    wanted = make_backup(rich_sqlite)
    result = restore_archive(any_engine, wanted, "rich.zip", replace=True)
    assert "replacing everything" in result.summary
    assert make_backup(any_engine) == wanted
    assert holdings(any_engine)["login_sessions"] == 0


def test_a_replace_that_fails_half_way_changes_nothing(rich_sqlite, demo_sqlite, any_engine):
    """The archive is well formed but a row breaks a foreign key: the delete and inserts roll back together."""
    restore_archive(any_engine, make_backup(demo_sqlite), "demo.zip")
    before = make_backup(any_engine)
    broken = _with_table(make_backup(rich_sqlite), "final_choices",
                         lambda rows: [dict(rows[0], translation_id=999_999)] + rows[1:])
    # (SQLite names the batch's lines; PostgreSQL checks foreign keys at the end of the table's COPY: the file)
    with pytest.raises(RestoreRefused, match=r"broken.zip/final_choices.jsonl(:1-\d+)?: cannot be stored"):
        restore_archive(any_engine, broken, "broken.zip", replace=True)
    assert make_backup(any_engine) == before


def _with_table(data: bytes, table: str, change) -> bytes:
    """The archive with one table's rows changed, manifest checksums made right again (a well-formed archive)."""
    import hashlib

    members = archive_members(data)
    rows = change(rows_of(data, table))
    body = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"
                   for r in rows).encode()
    members[f"{table}.jsonl"] = body
    manifest = json.loads(members["manifest.json"])
    for entry in manifest["tables"]:
        if entry["name"] == table:
            entry.update(rows=len(rows), bytes=len(body), sha256=hashlib.sha256(body).hexdigest())
    members["manifest.json"] = json.dumps(manifest).encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, content in members.items():
            zf.writestr(name, content)
    return out.getvalue()


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda d: d[: len(d) // 2], "a.zip: not a zip file"),
        (lambda d: _with_table(d, "users", lambda rows: rows[:-1]), "a.zip/user_roles.jsonl:1-"),  # a dangling role
        (lambda d: _manifest(d, schema_version="9999_future"), "schema version '9999_future' is unknown"),
        (lambda d: _with_table(d, "users", lambda rows: [dict(rows[0], username=7)] + rows[1:]),
         "a.zip/users.jsonl:1: username must be a string"),
        (lambda d: _with_table(d, "users", lambda rows: [dict(r, secret=1) for r in rows]),
         "a.zip/users.jsonl:1: users: unknown column(s) secret"),
    ],
    ids=["truncated", "fewer-users", "newer-schema", "wrong-type", "unknown-column"],
)
def test_damaged_archives_are_refused_with_where_and_change_nothing(rich_sqlite, tmp_path, damage, message,
                                                                    fresh_sqlite):
    target = fresh_sqlite(tmp_path)
    before = holdings(target)
    data = damage(make_backup(rich_sqlite))
    with pytest.raises(RestoreRefused, match=re.escape(message)):
        restore_archive(target, data, "a.zip")
    assert holdings(target) == before


def _manifest(data: bytes, **changes) -> bytes:
    members = archive_members(data)
    manifest = json.loads(members["manifest.json"])
    manifest.update(changes)
    members["manifest.json"] = json.dumps(manifest).encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name, content in members.items():
            zf.writestr(name, content)
    return out.getvalue()


def test_an_archive_of_an_older_schema_restores_into_the_newer_one(rich_sqlite, tmp_path, fresh_sqlite):
    """An archive written before the newest migrations (their tables absent) restores; the new tables are empty."""
    older = schema_chain()[2]  # 0003: before typed forms and the later tables
    newer_tables = {"typed_forms", "leaderboard_entries"}

    def drop(name, body):
        return None if name.removesuffix(".jsonl") in newer_tables else body
    data = make_backup(rich_sqlite)
    members = {n: b for n, b in archive_members(data).items() if drop(n, b) is not None}
    manifest = json.loads(members["manifest.json"])
    manifest["schema_version"] = older
    manifest["tables"] = [t for t in manifest["tables"] if t["name"] not in newer_tables]
    members["manifest.json"] = json.dumps(manifest).encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name, content in members.items():
            zf.writestr(name, content)
    target = fresh_sqlite(tmp_path)
    restore_archive(target, out.getvalue(), "old.zip")
    assert make_backup(target) == data


# ------------------------------------------------------------------ the command line and older uploads


def test_cli_backup_then_restore_into_an_empty_database_and_refuse_a_second_time(rich_sqlite, tmp_path, capsys):
    out = tmp_path / "project.zip"
    source_url = rich_sqlite.url.render_as_string(hide_password=False)
    assert main(["--db", source_url, "backup", str(out)]) == 0
    assert out.read_bytes() == make_backup(rich_sqlite)
    target_url = f"sqlite:///{tmp_path / 'cli.db'}"
    assert main(["--db", target_url, "restore", str(out)]) == 0
    assert "restored (into an empty database)" in capsys.readouterr().out
    assert main(["--db", target_url, "restore", str(out)]) == 1
    assert f"{out}: an archive restores only into an empty database" in capsys.readouterr().err
    assert main(["--db", target_url, "restore", "--replace", str(out)]) == 0
    assert main(["--db", target_url, "backup", str(tmp_path / "again.zip")]) == 0
    assert (tmp_path / "again.zip").read_bytes() == out.read_bytes()


def test_cli_restore_of_a_hostile_archive_prints_where_and_fails(tmp_path, capsys):
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(bad, "w") as zf:
        zf.writestr("../../etc/cron.d/x", b"boom")
    assert main(["--db", f"sqlite:///{tmp_path / 't.db'}", "restore", str(bad)]) == 1
    assert "a path, or an unexpected name" in capsys.readouterr().err


def test_a_work_file_still_restores_through_the_upload(demo_sqlite, tmp_path, fresh_sqlite):
    target = fresh_sqlite(tmp_path)
    work = dump_work_file(load_work(demo_sqlite)).encode()
    result = restore_upload(target, work, "work.jsonl")
    assert result.kind == "work"
    assert dump_work_file(load_work(target)) == work.decode()


def test_a_backup_zip_of_the_earlier_format_still_restores(demo_sqlite, tmp_path, fresh_sqlite):
    import hashlib

    work = dump_work_file(load_work(demo_sqlite)).encode()
    sqlite_file = sqlite_snapshot(demo_sqlite)
    manifest = {"format": "corpus-backup", "format_version": 1,
                "files": {n: {"sha256": hashlib.sha256(b).hexdigest()} for n, b in
                          (("work.jsonl", work), ("corpus.sqlite", sqlite_file))}}
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr("manifest.json", json.dumps(manifest))
        zf.writestr("work.jsonl", work)
        zf.writestr("corpus.sqlite", sqlite_file)
    target = fresh_sqlite(tmp_path)
    result = restore_upload(target, out.getvalue(), "old-backup.zip")
    assert result.kind == "work"  # through its work file: the database file inside is never opened
    assert dump_work_file(load_work(target)) == work.decode()


def test_counts_match_the_tables_after_a_restore(rich_sqlite, tmp_path, fresh_sqlite):
    target = fresh_sqlite(tmp_path)
    restore_archive(target, make_backup(rich_sqlite), "a.zip")
    mine, theirs = holdings(target), holdings(rich_sqlite)
    assert {k: v for k, v in mine.items() if k not in NOT_ARCHIVED} == \
        {k: v for k, v in theirs.items() if k not in NOT_ARCHIVED}
    with Session(target) as session:
        assert session.scalar(select(func.count()).select_from(TaggingItem)) == theirs["tagging_items"]
