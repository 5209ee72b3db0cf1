"""The export's files and the metrics JSON, byte for byte, against references stored from the code before the
read path was made faster (issue #32): the demo project and a small synthetic project (``bench.synthetic``), on
SQLite and on PostgreSQL. A change of any figure, record, reason or file fails here.

The references live in ``tests/fixtures/export_reference/<project>/<case>/``: every file of the demo project's
exports, and for the synthetic project (larger: a few hundred sentences, so that some are left out) a
``MANIFEST.json`` of each file's SHA-256 and size. Only the export time (``meta["exported_at"]``) is fixed, since it is the clock's.
To store them again after a change that is meant to change the output::

    python tests/db/test_export_byte_identical.py --write
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if __name__ == "__main__":  # run as a script to write the references
    sys.path.insert(0, str(ROOT))

from sqlalchemy import Engine  # noqa: E402

from corpus.export import build_files, metrics_json  # noqa: E402
from corpus.export.options import FormatOptions  # noqa: E402
from db.export_data import ExportOptions, left_out_counts, load_export, load_source_export  # noqa: E402
from db.metrics_data import load_metrics_snapshot, metrics_report  # noqa: E402
from db.schema import default_project_id  # noqa: E402

REFERENCE = ROOT / "tests" / "fixtures" / "export_reference"
EXPORTED_AT = "2026-01-01 00:00 UTC"
SYNTHETIC_SENTENCES = 300

#: case name -> (export options, format options, automatic final picks)
CASES = {
    "default": (ExportOptions(dev_fraction=0.1), FormatOptions(), False),
    "auto_final": (ExportOptions(), FormatOptions(layout="combined"), True),
    "all_pseudonymized": (ExportOptions(all_translations=True, pseudonymize=True, dev_fraction=0.2, seed=5),
                          FormatOptions(id_comments=True, layout="per-domain", tag_style="typed"), False),
    "agreed_only": (ExportOptions(agreed_only=True), FormatOptions(layout="per-domain"), False),
}


def _build(project: str, engine: Engine) -> None:
    if project == "demo":
        from db.demo import load_demo

        load_demo(engine)
    else:
        from bench.synthetic import build_corpus

        build_corpus(engine, SYNTHETIC_SENTENCES)


def _exports(engine: Engine) -> dict[str, dict[str, str]]:
    """Every case's files (``{path: text}``), the source-only export, and the figures as JSON."""
    out = {}
    for case, (options, format_options, auto_final) in CASES.items():
        dataset = load_export(engine, options, auto_final=auto_final)
        dataset.meta["exported_at"] = EXPORTED_AT
        out[case] = build_files(dataset, None, format_options)
    source = load_source_export(engine)
    source.meta["exported_at"] = EXPORTED_AT
    out["source_only"] = build_files(source)
    from sqlalchemy.orm import Session

    with Session(engine) as session:
        project_id = default_project_id(session)
    snapshot = load_metrics_snapshot(engine, project_id)
    from corpus.metrics import compute_report

    out["figures"] = {
        "metrics.json": metrics_json(metrics_report(engine, project_id)),
        "dashboard_metrics.json": metrics_json(compute_report(snapshot.data)),
        "left_out_counts.json": json.dumps(left_out_counts(engine, project_id), indent=2, sort_keys=True) + "\n",
    }
    return out


def _mode(project: str) -> str:
    return "files" if project == "demo" else "manifest"


def _manifest(files: dict[str, str]) -> str:
    return json.dumps({path: {"sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
                              "bytes": len(text.encode("utf-8"))} for path, text in sorted(files.items())},
                      indent=1, sort_keys=True) + "\n"


def _stored(project: str, case: str) -> dict[str, str]:
    folder = REFERENCE / project / case
    if _mode(project) == "manifest":
        return {"MANIFEST.json": (folder / "MANIFEST.json").read_text(encoding="utf-8")}
    return {str(p.relative_to(folder)): p.read_bytes().decode("utf-8") for p in sorted(folder.rglob("*")) if p.is_file()}


def _as_stored(project: str, files: dict[str, str]) -> dict[str, str]:
    return {"MANIFEST.json": _manifest(files)} if _mode(project) == "manifest" else files


@pytest.mark.parametrize("project", ["demo", "synthetic"])
def test_export_and_figures_are_byte_identical_to_the_reference(any_engine, project):
    _build(project, any_engine)
    produced = _exports(any_engine)
    assert set(produced) == {p.name for p in (REFERENCE / project).iterdir()}
    for case, files in produced.items():
        expected = _stored(project, case)
        got = _as_stored(project, files)
        assert sorted(got) == sorted(expected), f"{project}/{case}: other files"
        differing = [path for path in sorted(got) if got[path] != expected[path]]
        assert not differing, f"{project}/{case}: {differing} differ from tests/fixtures/export_reference"


def _write() -> None:  # pragma: no cover (a maintainer's command)
    import shutil
    import tempfile

    from db.engine import make_engine
    from db.schema import upgrade

    for project in ("demo", "synthetic"):
        with tempfile.TemporaryDirectory() as tmp:
            engine = make_engine(f"sqlite:///{Path(tmp) / 'reference.db'}")
            upgrade(engine)
            _build(project, engine)
            produced = _exports(engine)
            engine.dispose()
        shutil.rmtree(REFERENCE / project, ignore_errors=True)
        for case, files in produced.items():
            for path, text in _as_stored(project, files).items():
                target = REFERENCE / project / case / path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(text.encode("utf-8"))
            print(f"{project}/{case}: {len(files)} files")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/db/test_export_byte_identical.py --write")
    _write()
