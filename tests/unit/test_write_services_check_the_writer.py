"""Every public write service in ``db/`` checks its writer with the one guard, ``db.access.check_writer``,
inside its own transaction (issue 31, N2: an ended session, a deactivated or demoted user writes nothing).

A write service is a public function of a ``db/`` module whose first parameter is the engine and which
opens a write (``transaction(``, ``core_transaction(``, ``.begin()``), itself or through a private function of its module; it must
call ``check_writer``, itself or through such a private function. The few that write without a writer say
why below."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: module.function -> why it writes without checking a writer.
NO_WRITER = {
    "auth.authenticate": "the login itself: records the attempt before there is a session",
    "auth.start_session": "the login itself: makes the session",
    "auth.resume_session": "reads the session and moves its idle clock",
    "auth.end_session": "logout: ends the session it is handed, live or not",
    "auth.issue_login_code": "the login itself: after the password was checked",
    "auth.redeem_login_code": "the login itself: trades the one-use code for a session",
    "adjudication.sync_agreed": "derives automatic gold from submitted annotations: no one's decision",
    "adjudication.sync_and_count": "derives automatic gold from submitted annotations: no one's decision",
    "backup.write_backup": "a read: one repeatable-read snapshot, nothing written",
    "demo.load_demo": "init --demo on the command line: refuses a database holding work",
    "model_store.retrain_if_due": "stores the model trained from gold: derived data",
    "model_store.train_now": "stores the model trained from gold: derived data (train-suggestions)",
    "jobs.enqueue": "the job queue (db.jobs): derived work (retrain, baseline), no project data",
    "jobs.claim": "the job queue's worker takes a job",
    "jobs.renew": "the job queue's worker keeps its lease",
    "jobs.finish": "the job queue's worker stores a derived result",
    "jobs.fail": "the job queue's worker stores an error",
}
SKIPPED_MODULES = {"engine", "write_gate", "worker"}


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}


def _calls(fn: ast.FunctionDef) -> set[str]:
    names = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            f = node.func
            names.add(f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else "")
    return names


def _reaches(name: str, functions: dict[str, ast.FunctionDef], wanted: set[str], seen: set[str] | None = None) -> bool:
    """``name`` calls one of ``wanted``, itself or through the module's private functions."""
    seen = seen if seen is not None else set()
    if name in seen or name not in functions:
        return False
    seen.add(name)
    calls = _calls(functions[name])
    if calls & wanted:
        return True
    return any(_reaches(c, functions, wanted, seen) for c in calls if c.startswith("_"))


@cache
def write_services() -> dict[str, bool]:
    """module.function of every public write service in db/ -> whether it checks its writer. Scanned once per
    worker (the files do not change during a run; parsing all of db/ for each of the ~55 tests cost 0.2 s each)."""
    found = {}
    for path in sorted((ROOT / "db").glob("*.py")):
        module = path.stem
        if module.startswith("_") or module in SKIPPED_MODULES:
            continue
        functions = _functions(ast.parse(path.read_text(encoding="utf-8")))
        for name, fn in functions.items():
            params = fn.args.args
            if name.startswith("_") or not params or params[0].arg != "engine":
                continue
            if _reaches(name, functions, {"transaction", "core_transaction", "begin"}):
                found[f"{module}.{name}"] = _reaches(name, functions, {"check_writer"})
    return found


def test_the_scan_finds_the_write_services_named_in_issue_31():
    services = write_services()
    for name in ("tagging.reopen_annotation", "users.create_account", "users.set_roles", "workflows.deactivate_user",
                 "assignment.assign_translations", "assignment.reassign_tasks", "adjudication.accept",
                 "final_choice.choose", "settings_change.save_settings", "importing.import_sentences",
                 "workfile.import_work_file", "backup.restore_archive", "translation.set_glossary_term",
                 "translation.save_translation", "tagging.save_annotation", "reopen.reopen"):
        if name == "users.create_account":
            name = "users.create_user"  # create_account writes through it
        assert name in services, name


@pytest.mark.parametrize("service", sorted(write_services()))
def test_every_public_write_service_checks_its_writer(service):
    checks = write_services()[service]
    if service in NO_WRITER:
        assert not checks, f"{service} checks its writer now: drop it from NO_WRITER"
        return
    assert checks, (f"db.{service} writes without db.access.check_writer in its transaction; call it with the "
                    "writer (and the roles that may write), or say in NO_WRITER why no writer is checked")


def test_every_exemption_names_a_write_service_that_still_exists():
    assert set(NO_WRITER) <= set(write_services())
