"""The bulk work-file import: what it writes is what the one-record-at-a-time rules would write (gold,
assignments, revisions), a generated project round-trips byte for byte on both databases and re-imports
as a no-op, and it reports its progress (a bar on a terminal only)."""

from __future__ import annotations

import io
import json

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from corpus.progress_bar import TerminalProgress, bar_line
from corpus.workfile import dump_work_file
from db.adjudication import sync_agreed
from db.models import (
    Adjudication,
    Annotation,
    AnnotationAssignment,
    Revision,
    TaggingItem,
    Translation,
    TranslationAssignment,
    User,
)
from db.schema import default_project_id
from db.workfile import import_progress, import_work_file, load_work
from tests.support.translation_fixtures import add_sentence, add_user, assign

SENTENCE = {"type": "sentence", "id": "3121", "domain": "restaurant", "split": "train",
            "text": "But the staff was so horrible to us.",
            "aspects": [{"term": "staff", "from": 8, "to": 13, "polarity": "negative"}]}
AWARE = {"type": "translation", "sentence_id": "3121", "phase": "aware", "translator": "asha",
         "text": "लेकिन स्टाफ़ हमारे साथ बहुत बुरा था।", "untranslatable": False,
         "aspect_map": [{"aspect": 0, "from": 6, "to": 12}]}
TAGS = ["O", "B", "O", "O", "O", "O", "O", "O"]
NONE = ["O"] * 8


def jsonl(*objects) -> bytes:
    return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objects).encode()


def annotation(sid: str, annotator: str, tags: list[str], **extra) -> dict:
    return {"type": "annotation", "sentence_id": sid, "phase": "aware", "translator": "asha",
            "annotator": annotator, "tags": tags, **extra}


def sentence_and_translation(sid: str) -> tuple[dict, dict]:
    return {**SENTENCE, "id": sid}, {**AWARE, "sentence_id": sid}


def count(engine, model, *where) -> int:
    with Session(engine) as s:
        return s.scalar(select(func.count()).select_from(model).where(*where))


def gold_sources(engine) -> dict[str, str]:
    """sentence id -> source of the latest decision of its aware item."""
    from db.models import SourceSentence

    with Session(engine) as s:
        rows = s.execute(
            select(SourceSentence.sentence_id, Adjudication.source)
            .join(TaggingItem, Adjudication.item_id == TaggingItem.id)
            .join(Translation, TaggingItem.translation_id == Translation.id)
            .join(SourceSentence, Translation.sentence_id == SourceSentence.id)
            .order_by(Adjudication.id)
        ).all()
    return dict(rows)


def test_gold_written_by_an_import_is_what_the_automatic_rule_would_write(any_engine):
    agree = sentence_and_translation("1")
    differ = sentence_and_translation("2")
    draft = sentence_and_translation("3")
    alone = sentence_and_translation("4")
    import_work_file(any_engine, jsonl(
        *agree, annotation("1", "meera", TAGS), annotation("1", "kiran", TAGS),
        *differ, annotation("2", "meera", TAGS), annotation("2", "kiran", NONE),
        *draft, annotation("3", "meera", TAGS), annotation("3", "kiran", TAGS, status="draft"),
        *alone, annotation("4", "meera", TAGS),
    ), "gold.jsonl")
    assert gold_sources(any_engine) == {"1": "agreed"}
    with Session(any_engine) as s:
        project = default_project_id(s)
    assert sync_agreed(any_engine, project) == 0  # nothing left for the rule to decide
    assert count(any_engine, Revision, Revision.entity == "adjudication") == 1


def test_annotations_imported_later_onto_items_already_tagged_make_gold_follow(engine):
    sentence, translation = sentence_and_translation("1")
    import_work_file(engine, jsonl(sentence, translation, annotation("1", "meera", TAGS)), "first.jsonl")
    assert gold_sources(engine) == {}
    summary = import_work_file(engine, jsonl(sentence, translation, annotation("1", "meera", TAGS),
                                             annotation("1", "kiran", TAGS)), "second.jsonl")
    assert (summary.annotations, summary.unchanged) == (1, 3)
    assert gold_sources(engine) == {"1": "agreed"}
    assert count(engine, TaggingItem) == 1 and count(engine, Annotation) == 2


def test_tasks_assigned_in_the_app_before_an_import_take_the_imported_status(engine):
    asha = add_user(engine, "asha", "translator")
    lata = add_user(engine, "lata", "annotator")
    sentence_pk = add_sentence(engine, "1", SENTENCE["text"], ("staff",))
    assign(engine, asha, sentence_pk, "aware")
    summary = import_work_file(engine, jsonl({**AWARE, "sentence_id": "1"}), "w.jsonl")
    assert summary.translations == 1
    with Session(engine) as s:
        assert s.scalars(select(TranslationAssignment.status)).all() == ["submitted"]
        translation_id = s.scalars(select(Translation.id)).one()
        s.add(AnnotationAssignment(user_id=lata, translation_id=translation_id, status="assigned"))
        s.commit()
    import_work_file(engine, jsonl(annotation("1", "meera", TAGS), annotation("1", "kiran", TAGS)), "tags.jsonl")
    # lata is assigned too and has not tagged: the item is not complete, so no automatic gold yet.
    assert gold_sources(engine) == {}
    with Session(engine) as s:
        statuses = dict(s.execute(select(User.username, AnnotationAssignment.status)
                                  .join(User, AnnotationAssignment.user_id == User.id)).all())
    assert statuses == {"lata": "assigned", "meera": "submitted", "kiran": "submitted"}


def _generated_work(tmp_path, sentences: int = 40) -> bytes:
    from bench.bench_import_work import stamp_submissions
    from bench.synthetic import build_corpus
    from db.engine import make_engine
    from db.schema import upgrade

    source = make_engine(f"sqlite:///{tmp_path / 'generated.db'}")
    upgrade(source)
    build_corpus(source, sentences)
    stamp_submissions(source)
    data = dump_work_file(load_work(source)).encode()
    source.dispose()
    return data


def test_a_generated_project_round_trips_byte_for_byte_and_a_second_import_changes_nothing(any_engine, tmp_path):
    data = _generated_work(tmp_path)
    first = import_work_file(any_engine, data, "project.jsonl")
    assert first.translations > 300 and first.annotations > 600 and first.unchanged == 0
    assert dump_work_file(load_work(any_engine)).encode() == data
    rows = {model: count(any_engine, model) for model in
            (Translation, Annotation, TaggingItem, Revision, Adjudication, TranslationAssignment, AnnotationAssignment)}
    assert rows[Revision] == rows[Translation] + rows[Annotation] + rows[Adjudication]
    assert rows[TranslationAssignment] == rows[Translation] and rows[AnnotationAssignment] == rows[Annotation]
    again = import_work_file(any_engine, data, "project.jsonl")
    assert (again.sentences, again.translations, again.annotations) == (0, 0, 0)
    assert again.unchanged == first.sentences + first.translations + first.annotations
    assert {model: count(any_engine, model) for model in rows} == rows


def test_progress_is_reported_stage_by_stage_and_each_stage_ends_complete(engine):
    reports: list[tuple[str, int, int]] = []
    sentence, translation = sentence_and_translation("1")
    import_work_file(engine, jsonl(sentence, translation, annotation("1", "meera", TAGS)), "w.jsonl",
                     progress=lambda *r: reports.append(r))
    stages = list(dict.fromkeys(stage for stage, _, _ in reports))
    assert stages == ["reading", "checking", "writing", "gold"]
    for stage in stages:
        done = [(d, t) for s, d, t in reports if s == stage]
        assert done[0][0] == 0 and done[-1][0] == done[-1][1]
        assert [d for d, _ in done] == sorted(d for d, _ in done)


def test_an_import_started_by_another_service_reports_to_the_callers_progress(engine):
    """The backup page restores through db.backup, which does not pass a callback along."""
    seen: list[str] = []
    with import_progress(lambda stage, done, total: seen.append(stage)):
        import_work_file(engine, jsonl(*sentence_and_translation("1")), "w.jsonl")
    assert seen[0] == "reading" and seen[-1] == "gold"
    import_work_file(engine, jsonl(*sentence_and_translation("2")), "w.jsonl")
    assert seen[-1] == "gold" and seen.count("reading") == 2  # the hook ended with its block


def test_the_progress_bar_draws_on_a_terminal_and_stays_silent_otherwise():
    assert bar_line("writing", 5, 10, width=10) == "writing    [#####-----]  50%"
    assert bar_line("gold", 0, 0, width=4) == "gold       [####] 100%"
    terminal = io.StringIO()
    with TerminalProgress(terminal, enabled=True) as bar:
        bar("reading", 0, 1)
        bar("reading", 1, 1)
        bar("writing", 3, 3)
    lines = terminal.getvalue().split("\n")
    assert lines[0].endswith("100%") and lines[0].startswith("\rreading") and lines[1].startswith("\rwriting")
    piped = io.StringIO()  # StringIO.isatty() is False, like a pipe or a log file
    with TerminalProgress(piped) as bar:
        bar("reading", 1, 1)
    assert piped.getvalue() == ""


def test_the_command_line_import_prints_its_summary_and_no_bar_into_a_pipe(engine, sqlite_url, tmp_path, capsys):
    from cli.commands import main

    path = tmp_path / "w.jsonl"
    path.write_bytes(jsonl(*sentence_and_translation("1"), annotation("1", "meera", TAGS)))
    assert main(["--db", sqlite_url, "import-work", str(path)]) == 0
    out, err = capsys.readouterr()
    assert "imported 1 sentences, 1 translations, 1 annotations" in out
    assert "\r" not in err


def test_a_file_whose_sentence_ids_another_import_added_meanwhile_is_refused_not_guessed():
    """Between parsing (no lock) and writing, another import may add a sentence with an id the file
    refers to without domain and split; that id may now name two sentences."""
    from corpus.records import SentenceKey
    from corpus.workfile import parse_work_file
    from db.workfile import _resolved_differently

    known = [SentenceKey("restaurant", "train", "1")]
    work, errors = parse_work_file(jsonl({**AWARE, "sentence_id": "1"}), "w.jsonl", known)
    assert errors == []
    assert _resolved_differently(work, "w.jsonl", {SentenceKey("laptop", "train", "2")}) == []
    refused = _resolved_differently(work, "w.jsonl", {SentenceKey("laptop", "train", "1")})
    assert [(e.line, e.sentence_id) for e in refused] == [(1, "1")]
    assert "import the file again" in refused[0].message


def _stored_rows(engine) -> dict[str, list]:
    """What an import writes beyond the work file's own fields, in id order: revisions with their
    payloads, decisions, frozen tokens, flags and times, as Python values."""
    with Session(engine) as s:
        return {
            "revisions": s.execute(select(Revision.entity, Revision.entity_id, Revision.version, Revision.action,
                                          Revision.payload).order_by(Revision.id)).all(),
            "adjudications": s.execute(select(Adjudication.item_id, Adjudication.tags, Adjudication.source)
                                       .order_by(Adjudication.id)).all(),
            "items": s.execute(select(TaggingItem.translation_id, TaggingItem.tokens, TaggingItem.tokenizer)
                               .order_by(TaggingItem.id)).all(),
            "annotations": s.execute(select(Annotation.item_id, Annotation.tags, Annotation.status,
                                            Annotation.no_aspects, Annotation.submitted_at)
                                     .order_by(Annotation.id)).all(),
            "translations": s.execute(select(Translation.untranslatable, Translation.submitted_at,
                                             Translation.time_spent_s).order_by(Translation.id)).all(),
        }


def test_postgresql_imports_by_copy_and_stores_what_sqlite_stores(engine, postgres_engine, tmp_path, monkeypatch):
    import db.bulk

    data = _generated_work(tmp_path, sentences=30)
    copied: list[str] = []
    real_copy = db.bulk._copy_rows

    def spy(connection, table, *rest):
        copied.append(table.name)
        return real_copy(connection, table, *rest)

    monkeypatch.setattr(db.bulk, "_copy_rows", spy)
    import_work_file(engine, data, "project.jsonl")
    assert copied == []  # SQLite: the driver's executemany
    import_work_file(postgres_engine, data, "project.jsonl")
    assert {"translations", "aspect_alignments", "tagging_items", "annotations", "annotation_assignments",
            "revisions", "adjudications"} <= set(copied)
    assert dump_work_file(load_work(postgres_engine)).encode() == dump_work_file(load_work(engine)).encode() == data
    assert _stored_rows(postgres_engine) == _stored_rows(engine)


def test_postgresql_without_copy_stores_the_same_as_with_it(postgres_engine, pg_url, tmp_path, monkeypatch):
    """The executemany path stays right on PostgreSQL (JSON given as text is stored as JSON, not as a
    JSON string): the fallback for a driver without COPY."""
    import db.bulk
    from db.engine import make_engine
    from db.schema import upgrade

    data = _generated_work(tmp_path, sentences=12)
    import_work_file(postgres_engine, data, "project.jsonl")
    monkeypatch.setattr(db.bulk, "USE_COPY", False)
    plain = make_engine(pg_url)
    try:
        upgrade(plain)
        import_work_file(plain, data, "project.jsonl")
        assert dump_work_file(load_work(plain)).encode() == data
        assert _stored_rows(plain) == _stored_rows(postgres_engine)
    finally:
        plain.dispose()
