"""`python -m corpus`: the leads' command line (reference: docs/cli.md).

Only this module touches argv, stdout/stderr and exit codes; errors print as ``WHERE: message``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from corpus.errors import InputRejected


class CommandError(Exception):
    """An error to print as ``WHERE: message`` with a non-zero exit."""

    def __init__(self, where: str, message: str):
        super().__init__(f"{where}: {message}")
        self.where = where
        self.message = message


def _engine(args: argparse.Namespace):
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError

    from db.engine import make_engine

    try:
        return make_engine(args.db)
    except (ArgumentError, NoSuchModuleError, ValueError, ImportError) as exc:
        raise CommandError("--db", f"not a usable database URL ({_one_line(exc)}); use sqlite:///PATH or "
                                   "postgresql://USER@HOST/DB") from exc


def _write_text(path: str, text: str) -> None:
    """Write through a temporary file beside the target, so a failed write never leaves half a file."""
    target = Path(path)
    temporary = target.with_name(f".{target.name}.partial")
    try:
        temporary.write_text(text, encoding="utf-8")
        temporary.replace(target)
    except OSError as exc:
        try:
            temporary.unlink(missing_ok=True)
        except OSError:  # its folder is not one (or not ours): there is nothing to remove
            pass
        raise CommandError(path, f"cannot write: {exc.strerror or exc}") from exc


def _read_bytes(path: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise CommandError(path, f"cannot read file: {exc.strerror or exc}") from exc


def cmd_init(args: argparse.Namespace, engine) -> int:
    from db.schema import upgrade

    if args.demo and not args.force_demo:
        from sqlalchemy import inspect

        from db.demo import holds_work

        # The demo's accounts have passwords the README publishes: never add them to a real project.
        if "users" in inspect(engine).get_table_names() and holds_work(engine):
            print("refused: this database already holds a project (sentences or accounts); the demo's "
                  "published passwords do not belong there. Use a new database, or add --force-demo "
                  "(existing accounts are never changed).", file=sys.stderr)
            return 2
    upgrade(engine)
    print(f"schema ready at {engine.url.render_as_string(hide_password=True)}")
    if args.demo or args.force_demo:
        from db.demo import load_demo

        summary = load_demo(engine)
        print(summary)
    return 0


def _opener(path: str):
    """A function that opens the file for reading (each call afresh), once it is known to open."""
    try:
        with Path(path).open("rb"):
            pass
    except OSError as exc:
        raise CommandError(path, f"cannot read file: {exc.strerror or exc}") from exc
    return lambda: Path(path).open("rb")


def cmd_import_semeval(args: argparse.Namespace, engine) -> int:
    from db.importing import import_semeval_stream

    # read as a stream, twice (check, then import in batches): memory holds a batch, never the file
    summary = import_semeval_stream(engine, _opener(args.file), args.file, args.domain, args.split,
                                    allow_duplicates=args.allow_duplicates)
    if getattr(args, "json", False):
        print(json.dumps({"file": args.file, "domain": args.domain, "split": args.split,
                          "sentences": summary.new_sentences, "aspect_terms": summary.new_aspects,
                          "unchanged": summary.unchanged, "flagged": summary.flagged}, indent=2, sort_keys=True))
    else:
        print(f"imported {summary.new_sentences} sentences, {summary.new_aspects} aspect terms")
    if summary.unchanged:
        print(f"{summary.unchanged} sentences were already present and unchanged", file=sys.stderr)
    if summary.flagged:
        print(f"{summary.flagged} sentences flagged for review (see the Sentences page)", file=sys.stderr)
    return 0


def cmd_remove_import(args: argparse.Namespace, engine) -> int:
    from db.importing import ImportRemovalRefused, plan_removal, remove_import

    where = f"{args.domain}/{args.split}"
    try:
        plan = (plan_removal(engine, args.domain, args.split) if args.dry_run
                else remove_import(engine, args.domain, args.split))
    except ImportRemovalRefused as exc:
        raise CommandError(where, f"{exc.plan.refusal()}; nothing was removed") from exc
    if args.dry_run and (refusal := plan.refusal()):
        raise CommandError(where, f"{refusal} (dry run)")
    if args.json:
        print(json.dumps({"domain": plan.domain, "split": plan.split, "sentences": plan.sentences,
                          "aspect_terms": plan.aspect_terms, "categories": plan.categories,
                          "dry_run": args.dry_run}, indent=2, sort_keys=True))
    else:
        print(f"{'would remove' if args.dry_run else 'removed'} {plan.what()}")
    return 0


def cmd_import_work(args: argparse.Namespace, engine) -> int:
    from corpus.progress_bar import TerminalProgress
    from db.workfile import import_work_file

    with TerminalProgress(enabled=False if args.no_progress else None) as progress:
        summary = import_work_file(engine, _read_bytes(args.file), args.file, progress=progress)
    if getattr(args, "json", False):
        print(json.dumps({"file": args.file, "sentences": summary.sentences, "translations": summary.translations,
                          "annotations": summary.annotations, "unchanged": summary.unchanged,
                          "notes": list(summary.notes)}, ensure_ascii=False, indent=2, sort_keys=True))
    else:
        print(summary)
    return 0


def cmd_dump_work(args: argparse.Namespace, engine) -> int:
    from corpus.workfile import dump_work_file
    from db.workfile import load_work

    _write_text(args.file, dump_work_file(load_work(engine)))
    return 0


@contextmanager
def _signals_handled(handler, *signums: int) -> Iterator[None]:
    """``handler`` for ``signums`` while the block runs, then the caller's own handlers again: a script (or test) that
    runs a command in its own process keeps its Ctrl-C. Only on the main thread, the one Python lets set them
    (tests may run a command in a thread)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, handler) for signum in signums}
    try:
        yield
    finally:
        for signum, own in previous.items():
            signal.signal(signum, own)


def cmd_backup(args: argparse.Namespace, engine) -> int:
    import signal
    import time

    from db.backup import backup_to_file

    def stop(signum: int, frame: object) -> None:  # a kill (SIGTERM) unwinds, so the partial file goes
        raise SystemExit(128 + signum)

    target = Path(args.file)
    started = time.perf_counter()
    try:
        with _signals_handled(stop, signal.SIGTERM):
            manifest = backup_to_file(engine, target)
    except OSError as exc:
        raise CommandError(args.file, f"cannot write: {exc.strerror or exc}") from exc
    except ValueError as exc:  # RestoreRefused (the schema), a row an archive cannot hold (NaN)
        raise CommandError(args.file, str(exc)) from exc
    counts = manifest.counts()
    if getattr(args, "json", False):
        print(json.dumps({"file": str(target), "bytes": target.stat().st_size, "schema": manifest.schema_version,
                          "rows": counts, "seconds": round(time.perf_counter() - started, 3)}, indent=2,
                         sort_keys=True))
        return 0
    print(f"wrote {target} ({target.stat().st_size:,} bytes, schema {manifest.schema_version}, "
          f"{sum(counts.values()):,} rows in {len(counts)} tables, {time.perf_counter() - started:.1f} s): "
          + ", ".join(f"{name} {n:,}" for name, n in counts.items() if n))
    return 0


def cmd_restore(args: argparse.Namespace, engine) -> int:
    import time

    from corpus.progress_bar import TerminalProgress
    from db.backup import RestoreRefused, restore_archive

    path = Path(args.file)
    if not path.is_file():
        raise CommandError(args.file, "cannot read file: no such file")
    started = time.perf_counter()
    try:
        with TerminalProgress(enabled=False if args.no_progress else None) as progress:
            result = restore_archive(engine, path, args.file, replace=args.replace, progress=progress)
    except RestoreRefused as exc:
        where, _, message = str(exc).partition(": ")
        raise CommandError(where, message or where) from exc
    if getattr(args, "json", False):
        from db.backup import counts

        work = result.work
        print(json.dumps({"file": args.file, "kind": result.kind, "summary": result.summary,
                          "rows": counts(engine) if result.kind == "archive" else None,
                          "work": None if work is None else {"sentences": work.sentences,
                                                             "translations": work.translations,
                                                             "annotations": work.annotations,
                                                             "unchanged": work.unchanged},
                          "seconds": round(time.perf_counter() - started, 3)}, ensure_ascii=False, indent=2,
                         sort_keys=True))
        return 0
    print(f"{result.summary} in {time.perf_counter() - started:.1f} s")
    return 0


def cmd_stats(args: argparse.Namespace, engine) -> int:
    from corpus.stats import corpus_statistics, format_statistics
    from db.queries import load_stat_inputs

    stats = corpus_statistics(load_stat_inputs(engine))
    if args.json:
        print(json.dumps(stats, ensure_ascii=False, indent=2, sort_keys=True))
    else:
        print(format_statistics(stats))
    return 0


def cmd_metrics(args: argparse.Namespace, engine) -> int:
    from corpus.metrics import format_report
    from db.metrics_data import metrics_report
    from db.schema import default_project

    report = metrics_report(engine, default_project(engine))
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2, sort_keys=True))
    else:
        print(format_report(report))
    return 0


def cmd_export(args: argparse.Namespace, engine) -> int:
    from corpus.export import FORMATS, SOURCE_FORMATS, build_files
    from corpus.export.options import FormatOptions
    from corpus.export.writer import write_directory, zip_bytes
    from db.export_data import ExportOptions, export_files, load_source_export

    unknown = [f for f in args.formats or [] if f not in FORMATS]
    if unknown:
        raise CommandError("export", f"unknown format(s) {', '.join(unknown)}; known: {', '.join(FORMATS)}")
    if args.dev_fraction is not None and not 0.0 < args.dev_fraction < 1.0:
        raise CommandError("export", f"--dev-fraction must be between 0 and 1, got {args.dev_fraction}")
    format_options = FormatOptions(id_comments=args.id_comments, layout=args.layout, tag_style=args.tag_style)
    if args.source_only:
        hindi = [f for f in args.formats or [] if f not in SOURCE_FORMATS]
        if hindi:
            raise CommandError("--source-only", f"writes only {', '.join(SOURCE_FORMATS)} (the English side), "
                                                f"not {', '.join(hindi)}")
        ignored = [flag for flag, on in (("--dev-fraction", args.dev_fraction is not None),
                                         ("--all-translations", args.all_translations),
                                         ("--agreed-only", args.agreed_only)) if on]
        if ignored:
            raise CommandError("--source-only", f"cannot be combined with {', '.join(ignored)} "
                                                "(it writes the SemEval source and its splits as imported)")
        dataset = load_source_export(engine)
        formats = args.formats or list(SOURCE_FORMATS)
        files = build_files(dataset, formats, format_options)
    else:
        options = ExportOptions(
            all_translations=args.all_translations, agreed_only=args.agreed_only, pseudonymize=args.pseudonymize,
            dev_fraction=args.dev_fraction, seed=args.seed,
        )
        formats = args.formats or list(FORMATS)
        # The automatic picks are computed, not stored: they are recorded only once every file is written.
        files, dataset = export_files(engine, options, args.formats, format_options, auto_final=not args.no_auto_final)
    picks = dataset.meta.get("auto_picks") or {}
    policy = dataset.meta.get("auto_policy")
    out = Path(args.out)
    summary = {
        "out": str(out), "formats": list(formats), "files": len(files) + (1 if args.zip else 0),
        "sentences": len(dataset.sentences),
        "splits": {s: sum(1 for r in dataset.sentences if r.split == s) for s in dataset.splits()},
        "left_out": dataset.left_out_counts(), "dry_run": bool(args.dry_run),
        "auto_final": None if args.source_only or args.no_auto_final else {
            "policy": policy, "planned": len(picks), "recorded": None},
    }
    if args.dry_run:
        return _export_report(args, summary, dataset)
    if args.zip:
        files = {**files, "export.zip": zip_bytes(files)}
    try:
        write_directory(files, out)
    except OSError as exc:
        raise CommandError(args.out, f"cannot write: {exc.strerror or exc}; nothing was written"
                           + (" and no final pick was recorded" if picks else "")) from exc
    except ValueError as exc:  # a path outside the export directory: nothing was written
        raise CommandError(args.out, str(exc)) from exc
    if summary["auto_final"] is not None:
        summary["auto_final"]["recorded"] = _record_picks(engine, dataset, picks, policy)
    return _export_report(args, summary, dataset)


def _record_picks(engine, dataset, picks: dict, policy: str | None) -> int | None:
    """Record the automatic picks the written export used; None when the database cannot be written."""
    from sqlalchemy.exc import DBAPIError

    from db.export_data import is_read_only_error, record_planned_picks

    if not picks:
        print(f"picked 0 final translation(s) by the automatic rule (project policy {policy}): every sentence "
              "already has a lead's decision or an up-to-date pick", file=sys.stderr)
        return 0
    try:
        recorded = record_planned_picks(engine, dataset.meta["project_id"])
    except DBAPIError as exc:
        if not is_read_only_error(exc):
            raise CommandError("database", f"the files are written, but the {len(picks)} automatic final pick(s) "
                                           f"they use could not be recorded: {exc.orig or exc}") from exc
        print(f"database: read-only, so the {len(picks)} automatic final pick(s) this export used (project "
              f"policy {policy}) were not recorded; run the export again where the database can be written, or "
              "decide them on the Final translations page", file=sys.stderr)
        return None
    print(f"picked {recorded} final translation(s) by the automatic rule (highest mean ROUGE-L; project policy "
          f"{policy}) and recorded them as the Final translations page does; the lead's decisions are kept",
          file=sys.stderr)
    if recorded != len(picks):
        print(f"note: the export used {len(picks)} automatic pick(s) but {recorded} were recorded: the project "
              "changed while it was exported; export again for files that match the recorded choices",
              file=sys.stderr)
    return recorded


def _export_report(args: argparse.Namespace, summary: dict, dataset) -> int:
    out = Path(args.out)
    if args.json:
        print(json.dumps(summary, ensure_ascii=False, indent=2, sort_keys=True))
    splits = ", ".join(f"{s} {n}" for s, n in summary["splits"].items())
    what = "source sentences" if args.source_only else "sentences"
    if summary["dry_run"]:
        auto = summary["auto_final"]
        lines = [f"dry run: nothing written or recorded; would export {summary['sentences']} {what} "
                 f"({splits or 'none'}) as {', '.join(summary['formats'])} into {out} ({summary['files']} files)"]
        if auto is not None:
            lines.append(f"would pick {auto['planned']} final translation(s) by the automatic rule (project policy "
                         f"{auto['policy']})")
    else:
        lines = [f"exported {summary['sentences']} {what} ({splits or 'none'}) as {', '.join(summary['formats'])} "
                 f"into {out} ({summary['files']} files)"]
    if not args.json:
        print("\n".join(lines))
    elif summary["dry_run"]:
        print("\n".join(lines), file=sys.stderr)
    counts = summary["left_out"]
    if counts:
        where = "" if summary["dry_run"] else f" (listed in {out / 'left_out.tsv'})"
        print(f"{'would leave' if summary['dry_run'] else 'left'} out {len(dataset.left_out)}: "
              + "; ".join(f"{k} {v}" for k, v in counts.items()) + where, file=sys.stderr)
    return 0


def cmd_audit(args: argparse.Namespace, engine) -> int:
    from corpus.audit import AuditInputError, audit_bytes, format_report

    try:
        data = Path(args.file).read_bytes()
    except OSError as exc:
        print(f"{args.file}: cannot read file: {exc.strerror or exc}", file=sys.stderr)
        return 1
    try:
        report = audit_bytes(data, args.file)
    except AuditInputError as exc:
        print(str(exc.error), file=sys.stderr)
        return 1
    ours, note = _our_statistics(engine)
    baseline = _audit_baseline(data, args.file) if getattr(args, "baseline", False) else None
    if args.json:
        if note:
            print(note, file=sys.stderr)
        extra = {"baseline": baseline} if baseline is not None else {}
        print(json.dumps({**report.to_dict(), "our_corpus": ours, **extra}, ensure_ascii=False, indent=2,
                         sort_keys=True))
    else:
        print(format_report(report, ours=ours, ours_note=note))
        if baseline is not None:
            from corpus.baseline import format_baseline

            print("\nCRF baseline on the audited file")
            print(format_baseline(baseline))
    return 0


def _audit_baseline(data: bytes, filename: str) -> dict:
    """The CRF baseline on an audited file (one side, ``audited``): cross-validated, as the file has no
    split of ours; the Akhtar-style comparison with ``python -m corpus baseline`` in one command."""
    from corpus.audit import read_sentences, tokens_and_tags
    from corpus.baseline import LabelledSequence, dataset_baseline

    sequences = []
    for i, s in enumerate(read_sentences(data, filename)):
        tokens, tags = tokens_and_tags(s)
        if tokens and len(tokens) == len(tags):
            sequences.append(LabelledSequence(f"{i}:{s.id}", s.domain, "train", tuple(tokens), tuple(tags)))
    return dataset_baseline({"audited": sequences})



def cmd_baseline(args: argparse.Namespace, engine) -> int:
    import time

    from corpus.baseline import CrfSettings, format_baseline
    from db.baseline_data import run_baseline

    for option, value, least in (("--folds", args.folds, 2), ("--iterations", args.iterations, 1),
                                 ("--c1", args.c1, 0), ("--c2", args.c2, 0)):
        if not value >= least:  # NaN too
            raise CommandError(option, f"must be at least {least}, got {value}")
    settings = CrfSettings(c1=args.c1, c2=args.c2, max_iterations=args.iterations, folds=args.folds, seed=args.seed)
    started = time.perf_counter()
    report = run_baseline(engine, settings, worker=False)
    took = f"trained and scored in {time.perf_counter() - started:.1f} s"
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2, sort_keys=True))
        print(took, file=sys.stderr)
    else:
        print(format_baseline(report))
        print(took)
    return 0


def cmd_evaluate(args: argparse.Namespace, engine) -> int:
    from corpus.evaluation import PredictionsRejected, evaluate_predictions, format_scores, signature
    from db.baseline_data import add_entry, ensure_baseline_entry, hindi_sequences, leaderboard

    name = " ".join(args.name.split())
    if not name or len(name) > 200:
        raise CommandError("--name", "give the submission a name of 1 to 200 characters")
    open_predictions = _opener(args.pred)
    sequences = hindi_sequences(engine)
    gold = [s for s in sequences if s.split == "test"]
    try:
        # a stream: refused by its size before it is read, then read a line at a time
        with open_predictions() as stream:
            evaluation = evaluate_predictions(stream, args.pred, gold, args.format)
    except PredictionsRejected as exc:
        raise InputRejected(exc.errors) from exc
    ensure_baseline_entry(engine, sequences, worker=False)  # the command line is a process of its own
    add_entry(engine, name, evaluation, signature())
    rows = leaderboard(engine, evaluation.export_version)
    board = [{"name": r.name, "kind": r.kind, "date": r.created_at.strftime("%Y-%m-%d %H:%M"), "f1": r.f1,
              "export_version": r.export_version} for r in rows]
    if args.json:
        print(json.dumps({"name": name, "export_version": evaluation.export_version, "format": evaluation.format,
                          "scores": evaluation.scores, "signature": signature(), "leaderboard": board},
                         ensure_ascii=False, indent=2, sort_keys=True))
    else:
        print(f"{name}: {evaluation.sentences} test sentences ({evaluation.format}), export version "
              f"{evaluation.export_version}")
        print(format_scores(evaluation.scores))
        print(f"signature: {signature()}")
        print("\nleaderboard")
        for i, r in enumerate(board, 1):
            f1 = "n/a" if r["f1"] is None else f"{r['f1']:.3f}"
            print(f"  {i:>3}. {r['name']:<30} F1 {f1}  {r['date']}  {r['export_version']}"
                  f"{'  (baseline)' if r['kind'] == 'baseline' else ''}")
    return 0


def cmd_train_suggestions(args: argparse.Namespace, engine) -> int:
    import time

    from db.model_store import TooLittleGold, train_now
    from db.project_settings import ProjectNotFound
    from db.schema import default_project

    project_id = args.project if args.project is not None else default_project(engine)
    started = time.perf_counter()
    try:
        report = train_now(engine, project_id)
    except ProjectNotFound as exc:
        raise CommandError("--project", str(exc)) from exc
    except TooLittleGold as exc:
        raise CommandError(f"project {project_id}", str(exc)) from exc
    wall = time.perf_counter() - started
    if args.json:
        print(json.dumps({"project": report.project_id, "gold_items": report.gold_items,
                          "trained_items": report.trained_items, "training_cap": report.training_cap,
                          "tokens": report.tokens,
                          "by_domain": report.by_domain, "by_phase": report.by_phase,
                          "train_cpu_seconds": round(report.cpu_seconds, 3), "wall_seconds": round(wall, 3),
                          "signature": report.signature,
                          "trained_at": report.trained_at.isoformat() if report.trained_at else None,
                          "suggest_min_gold": report.min_gold, "model_suggestions": report.suggestions_on},
                         ensure_ascii=False, indent=2, sort_keys=True))
    else:
        trained_on = (f"{report.gold_items} gold items" if report.trained_items == report.gold_items else
                      f"{report.trained_items} of its {report.gold_items} gold items (at most {report.training_cap:,}: "
                      "each sentence and phase once before any twice)")
        print(f"trained the suggestion model of project {report.project_id} on {trained_on} "
              f"({report.tokens} tokens; " + ", ".join(f"{k} {v}" for k, v in report.by_domain.items()) + "; "
              + ", ".join(f"{k} {v}" for k, v in report.by_phase.items())
              + f") in {report.cpu_seconds:.1f} s CPU ({wall:.1f} s wall in all), stored as the project's model")
        print(f"signature: {report.signature}")
    if not report.suggestions_on:
        print(f"project {report.project_id}: model suggestions are switched off; annotators see this model's "
              "suggestions once a lead switches them on (Project settings)", file=sys.stderr)
    return 0


def cmd_worker(args: argparse.Namespace, engine) -> int:
    import logging
    import signal
    import threading

    from db.workflows import job_runner

    if args.lease <= 0 or args.poll <= 0:
        raise CommandError("--lease" if args.lease <= 0 else "--poll", "must be more than 0 seconds")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    runner = job_runner(engine, lease_s=args.lease, poll_s=args.poll)
    where = engine.url.render_as_string(hide_password=True)
    if args.once:
        done = runner.run_until_idle()
        if getattr(args, "json", False):
            print(json.dumps({"worker": runner.owner, "database": where, "jobs": len(done)}))
        else:
            print(f"worker {runner.owner}: ran {len(done)} job(s) on {where}")
        return 0
    stop = threading.Event()
    with _signals_handled(lambda *_: stop.set(), signal.SIGTERM, signal.SIGINT):  # finish the job in hand, then stop
        print(f"worker {runner.owner}: running jobs on {where} (SIGTERM or Ctrl-C stops it after the job in hand)",
              file=sys.stderr, flush=True)
        runner.run_forever(stop)
    print(f"worker {runner.owner}: stopped", file=sys.stderr)
    return 0


def _our_statistics(engine) -> tuple[dict | None, str | None]:
    """Table 1 of our corpus (the Audit page's ``corpus_statistics``), or one line saying why there is none.
    An absent SQLite file is not created: the audit never needs a database."""
    from sqlalchemy.exc import SQLAlchemyError

    from corpus.stats import corpus_statistics
    from db.queries import load_stat_inputs

    url = engine.url
    where = url.render_as_string(hide_password=True)
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:") \
            and not Path(url.database).is_file():
        return None, f"our corpus: no database at {url.database}; Table 1 shows the audited file only"
    try:
        return corpus_statistics(load_stat_inputs(engine)), None
    except (SQLAlchemyError, RuntimeError) as exc:
        reason = str(getattr(exc, "orig", None) or exc).splitlines()[0]
        return None, f"our corpus: cannot read {where} ({reason}); Table 1 shows the audited file only"


class _Subcommand(argparse.ArgumentParser):
    """A command's parser whose options may be added only when it is used (``fill``): the options of
    ``baseline`` and ``worker`` show defaults read from modules every other command need not import."""

    def __init__(self, *args, fill=None, **kwargs):  # noqa: ANN001, ANN002, ANN003
        super().__init__(*args, **kwargs)
        self._fill = fill

    def _filled(self) -> None:
        fill, self._fill = self._fill, None
        if fill is not None:
            fill(self)

    def parse_known_args(self, args=None, namespace=None):  # noqa: ANN001, ANN201
        self._filled()
        return super().parse_known_args(args, namespace)

    def format_usage(self) -> str:
        self._filled()
        return super().format_usage()

    def format_help(self) -> str:
        self._filled()
        return super().format_help()


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command. It imports nothing heavy: ``--help``, a usage error and a command's
    start-up stay cheap (tests/cli/test_cli_lazy_imports.py)."""
    parser = argparse.ArgumentParser(
        prog="python -m corpus", description=__doc__.splitlines()[0],
        epilog="Every command, option, exit code and output: docs/cli.md. The work file: docs/workfile.md. "
               "Tokens and the metrics JSON: docs/contracts.md.")
    parser.add_argument("--db", help="database URL (default: $DATABASE_URL, else the app's SQLite file)")
    parser.add_argument("--version", action=_Version, help="print the version of the command line and its formats")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Subcommand)
    _accept_global_options_after_the_command(sub)

    p = sub.add_parser("init", help="create or upgrade the schema")
    p.add_argument("--demo", action="store_true", help="also load the demo project (a new database only)")
    p.add_argument("--force-demo", action="store_true",
                   help="load the demo even into a database that holds a project (existing accounts unchanged)")
    p.set_defaults(func=cmd_init)

    p = sub.add_parser("import-semeval", help="import SemEval-2014 XML (all or nothing)")
    p.add_argument("file")
    p.add_argument("--domain", required=True, choices=["restaurant", "laptop"])
    p.add_argument("--split", required=True, choices=["train", "test"])
    p.add_argument("--allow-duplicates", action="store_true",
                   help="import sentences whose text is already in another split of the domain (flagged for review)")
    p.add_argument("--json", action="store_true", help="print the counts as JSON")
    p.set_defaults(func=cmd_import_semeval)

    p = sub.add_parser("remove-import", help="remove a domain's split of imported sentences nobody has worked on "
                                             "(all or nothing)")
    p.add_argument("--domain", required=True, choices=["restaurant", "laptop"])
    p.add_argument("--split", required=True, choices=["train", "test"])
    p.add_argument("--dry-run", action="store_true", help="say what would be removed; remove nothing")
    p.add_argument("--json", action="store_true", help="print the counts as JSON")
    p.set_defaults(func=cmd_remove_import)

    p = sub.add_parser("import-work", help="import a work file (all or nothing; format: docs/workfile.md)")
    p.add_argument("file")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (it is drawn only on a terminal)")
    p.add_argument("--json", action="store_true", help="print the counts as JSON")
    p.set_defaults(func=cmd_import_work)

    p = sub.add_parser("dump-work", help="write everything as a work file (format: docs/workfile.md)")
    p.add_argument("file")
    p.set_defaults(func=cmd_dump_work)

    p = sub.add_parser("backup", help="write the full project archive (everything, every revision) to a zip")
    p.add_argument("file", metavar="OUT.zip")
    p.add_argument("--json", action="store_true", help="print the archive's size and row counts as JSON")
    p.set_defaults(func=cmd_backup)

    p = sub.add_parser("restore", help="restore a project archive into an empty database (all or nothing)")
    p.add_argument("file", metavar="FILE.zip")
    p.add_argument("--replace", action="store_true",
                   help="replace everything in a database that is not empty (one transaction)")
    p.add_argument("--json", action="store_true", help="print what was restored as JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (it is drawn only on a terminal)")
    p.set_defaults(func=cmd_restore)

    p = sub.add_parser("stats", help="corpus statistics (seed paper Table 1)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser("metrics", help="agreement figures (ROUGE-L, kappa, coverage; JSON keys: docs/contracts.md)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func=cmd_metrics)

    p = sub.add_parser("export", help="write dataset files")
    p.add_argument("--out", required=True, metavar="DIR", help="the folder to write the files into")
    p.add_argument("--format", action="append", dest="formats", metavar="NAME",
                   help="conll, conll-en, jsonl, semeval-xml, tsv, lince (repeatable; default: all)")
    p.add_argument("--dev-fraction", type=float, help="carve a dev split of this share of train (stratified)")
    p.add_argument("--seed", type=int, default=13, help="seed of the dev split (default 13)")
    p.add_argument("--id-comments", action="store_true",
                   help="write sentence ids: a side file X.ids.tsv per CoNLL file, '# sent_enum = N' lines in lince")
    p.add_argument("--layout", choices=["both", "combined", "per-domain"], default="both",
                   help="files per split combined, per domain, or both (default)")
    p.add_argument("--all-translations", action="store_true", help="every translation, not only the final one")
    p.add_argument("--agreed-only", action="store_true", help="only items the annotators agreed on")
    p.add_argument("--pseudonymize", action="store_true", help="replace translator names by pseudonyms")
    p.add_argument("--zip", action="store_true", help="also write export.zip with every file")
    p.add_argument("--no-auto-final", action="store_true",
                   help="do not pick final translations by the automatic rule; export only recorded picks")
    p.add_argument("--source-only", action="store_true",
                   help="only the English side (conll-en) of every imported sentence, translated or not")
    p.add_argument("--tag-style", choices=["plain", "typed"], default="plain",
                   help="CoNLL tags: plain B/I/O (default) or typed B-ASP/I-ASP/O (spaCy's convert -c ner)")
    p.add_argument("--dry-run", action="store_true",
                   help="say what would be exported, picked and left out; write and record nothing")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("audit", help="quality audit of an existing aspect dataset")
    p.add_argument("file")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--baseline", action="store_true", help="also the CRF baseline on the file (5-fold CV)")
    p.set_defaults(func=cmd_audit)

    p = sub.add_parser("baseline", help="CRF sanity check: span P/R/F1 per domain, English and Hindi",
                       fill=_baseline_options)
    p.set_defaults(func=cmd_baseline)

    p = sub.add_parser("evaluate", help="score predictions for the test split and add them to the leaderboard")
    p.add_argument("pred", metavar="PRED")
    p.add_argument("--name", required=True, help="the submission's name on the leaderboard")
    p.add_argument("--format", choices=["conll", "jsonl"], help="default: by extension, else by content")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func=cmd_evaluate)

    p = sub.add_parser("train-suggestions",
                       help="train the project's suggestion model now and store it (as the background retrain does)")
    p.add_argument("--project", type=int, metavar="ID", help="the project's id (default: the first project)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func=cmd_train_suggestions)

    p = sub.add_parser("worker", help="run background jobs (retrain, review suspects, baselines) until stopped",
                       fill=_worker_options)
    p.set_defaults(func=cmd_worker)
    return parser


def _baseline_options(p: argparse.ArgumentParser) -> None:
    from corpus.baseline import CrfSettings

    crf = CrfSettings()
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--c1", type=float, default=crf.c1, help=f"L1 regularization (default {crf.c1:g})")
    p.add_argument("--c2", type=float, default=crf.c2, help=f"L2 regularization (default {crf.c2:g})")
    p.add_argument("--iterations", type=int, default=crf.max_iterations,
                   help=f"L-BFGS iterations at most (default {crf.max_iterations})")
    p.add_argument("--folds", type=int, default=crf.folds,
                   help=f"cross-validation folds without a test split (default {crf.folds})")
    p.add_argument("--seed", type=int, default=crf.seed, help=f"seed of the fold split (default {crf.seed})")


def _worker_options(p: argparse.ArgumentParser) -> None:
    from corpus.jobs import LEASE_S

    p.add_argument("--once", action="store_true", help="run the jobs waiting now, then exit")
    p.add_argument("--lease", type=float, default=LEASE_S, metavar="S",
                   help=f"seconds a job stays this worker's without a renewal (default {LEASE_S:g}; renewed every S/4)")
    p.add_argument("--poll", type=float, default=1.0, metavar="S", help="seconds between looks for work (default 1)")
    p.add_argument("--json", action="store_true", help="with --once: how many jobs ran, as JSON on stdout")


class _Version(argparse.Action):
    """``--version``: computed only when asked (the tokenizer and export signatures, the schema head)."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_text())
        parser.exit()


CLI_VERSION = "1.1"


def version_text() -> str:
    from corpus.baseline import FEATURES_SIGNATURE
    from corpus.evaluation import signature
    from corpus.tokens import TOKENIZER_SIGNATURE

    try:
        from db.schema import script_head

        schema = script_head() or "unknown"
    except Exception:  # noqa: BLE001 - the version line never fails for want of the migrations
        schema = "unknown"
    return (f"python -m corpus {CLI_VERSION} (tokenizer {TOKENIZER_SIGNATURE}; schema {schema}; "
            f"baseline {FEATURES_SIGNATURE}; {signature()})")


def _accept_global_options_after_the_command(sub) -> None:
    """``--db`` is accepted after the command too (``python -m corpus stats --db URL``); given in both
    places, the one after the command wins."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", default=argparse.SUPPRESS,
                        help="database URL (also accepted before the command)")
    add_parser = sub.add_parser
    sub.add_parser = lambda name, **kwargs: add_parser(name, parents=[common, *kwargs.pop("parents", [])], **kwargs)


#: Exit codes besides 0/1/2 (docs/cli.md): interrupted by Ctrl-C, and stdout closed by its reader.
EXIT_INTERRUPTED = 130
EXIT_CLOSED_PIPE = 141


def main(argv: list[str] | None = None) -> int:
    """Runs one command. Whatever goes wrong prints one line on stderr and a non-zero exit, never a traceback
    (``CORPUS_TRACEBACK=1`` adds it for an unexpected failure)."""
    try:
        code = _main(argv)
        sys.stdout.flush()  # here, not at exit: a closed pipe is then one more case below
        return code
    except KeyboardInterrupt:
        print("interrupted (Ctrl-C); a command that writes the database wrote nothing of this run",
              file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_CLOSED_PIPE


def _quiet_stdout() -> None:
    """After a reader closed stdout (``| head -1``): point it at /dev/null so the exit's flush cannot fail."""
    import os

    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)  # before any import of SQLAlchemy: `--help` and usage errors stay cheap
    from sqlalchemy.exc import OperationalError, SQLAlchemyError

    try:
        if args.command in READING_COMMANDS or args.command in REMOVING_COMMANDS:
            _refuse_a_missing_database_file(args)
        engine = _engine(args)
        if args.command != "init" and args.command != "audit":
            from db.schema import upgrade

            upgrade(engine)
        return args.func(args, engine)
    except InputRejected as exc:
        for error in exc.errors:
            print(str(error), file=sys.stderr)
        print(f"nothing was written ({len(exc.errors)} error(s))", file=sys.stderr)
        return 1
    except CommandError as exc:
        print(f"{exc.where}: {exc.message}", file=sys.stderr)
        return 1
    except OperationalError as exc:
        where = args.db or "database"
        print(f"{where}: cannot use the database: {_one_line(exc.orig or exc)}", file=sys.stderr)
        return 1
    except SQLAlchemyError as exc:
        where = args.db or "database"
        print(f"{where}: database error: {_one_line(getattr(exc, 'orig', None) or exc)}", file=sys.stderr)
        return 1
    except (KeyboardInterrupt, BrokenPipeError):
        raise
    except Exception as exc:  # noqa: BLE001 - a bug: one line, the traceback only on request
        import os

        if os.environ.get("CORPUS_TRACEBACK"):
            raise
        print(f"{args.command}: unexpected failure: {type(exc).__name__}: {_one_line(exc)} "
              "(a bug; CORPUS_TRACEBACK=1 shows the traceback)", file=sys.stderr)
        return 1


#: Commands with nothing to read in a database that does not exist: a missing SQLite file is a typing slip.
READING_COMMANDS = frozenset({"stats", "metrics", "export", "dump-work", "baseline", "evaluate", "backup"})
#: Commands that only take away from what a database holds: a missing SQLite file is a typing slip too.
REMOVING_COMMANDS = frozenset({"remove-import"})


def _refuse_a_missing_database_file(args: argparse.Namespace) -> None:
    """A SQLite path that names no file is refused before the engine would create it (and its folder)."""
    import os

    url = args.db or os.environ.get("DATABASE_URL")
    if url is None:
        from db.engine import default_url

        url = default_url()
    if not url.startswith("sqlite"):
        return
    path = url.split("///", 1)[-1] if "///" in url else ""
    if path.startswith("file:"):
        path = path.removeprefix("file:").split("?", 1)[0]
    if path and path != ":memory:" and not Path(path).is_file():
        raise CommandError("--db" if args.db else "database",
                           f"no database at {path}; `{args.command}` only "
                           f"{'removes' if args.command in REMOVING_COMMANDS else 'reads'}, so it never creates one "
                           "(`python -m corpus init` creates a database)")


def _one_line(exc: object) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 300 else text[:297] + "..."
