"""Work files: byte-identical round trip, all-or-nothing import, located errors, no overwrites."""

import json

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from corpus.errors import InputRejected
from corpus.workfile import dump_work_file, parse_work_file
from db.demo import load_demo
from db.models import Annotation, AnnotationAssignment, Revision, Translation, User
from db.workfile import import_work_file, load_work

SENTENCE = {"type": "sentence", "id": "3121", "domain": "restaurant", "split": "train",
            "text": "But the staff was so horrible to us.",
            "aspects": [{"term": "staff", "from": 8, "to": 13, "polarity": "negative"}]}
AWARE = {"type": "translation", "sentence_id": "3121", "phase": "aware", "translator": "asha",
         "text": "लेकिन स्टाफ़ हमारे साथ बहुत बुरा था।", "untranslatable": False}
BLIND = {"type": "translation", "sentence_id": "3121", "phase": "blind", "translator": "ravi", "text": None,
         "untranslatable": True, "reason": "idiom"}
TAGS = ["O", "B", "O", "O", "O", "O", "O", "O"]
ANNOTATION = {"type": "annotation", "sentence_id": "3121", "phase": "aware", "translator": "asha",
              "annotator": "meera", "tags": TAGS}


def jsonl(*objects) -> bytes:
    return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objects).encode()


def count(engine, model):
    with Session(engine) as s:
        return s.scalar(select(func.count()).select_from(model))


def test_dump_import_dump_is_byte_identical(any_engine, tmp_path, migrated_sqlite):
    from db.engine import make_engine
    from tests.support.databases import copy_of

    load_demo(any_engine)
    first = dump_work_file(load_work(any_engine))
    empty = make_engine(copy_of(migrated_sqlite, tmp_path / "empty.db"))
    import_work_file(empty, first.encode(), "dump.jsonl")
    assert dump_work_file(load_work(empty)) == first
    assert first.count('"type": "translation"') == 24


def test_contract_example_imports_and_creates_users_without_passwords(engine):
    summary = import_work_file(engine, jsonl(SENTENCE, AWARE, BLIND, ANNOTATION), "w.jsonl")
    assert (summary.sentences, summary.translations, summary.annotations) == (1, 2, 1)
    with Session(engine) as s:
        users = {u.username: u for u in s.scalars(select(User))}
        assert users["asha"].role_names == {"translator"}
        assert users["meera"].role_names == {"annotator"}
        assert users["meera"].password_hash is None
        assert s.scalar(select(func.count()).select_from(Revision)) == 3


def test_hindi_text_is_nfc_normalized_on_import(engine):
    decomposed = dict(AWARE, text="लेकिन \u095bरूर")  # precomposed ज़
    import_work_file(engine, jsonl(SENTENCE, decomposed), "w.jsonl")
    with Session(engine) as s:
        assert s.scalars(select(Translation.text)).one() == "लेकिन \u091c\u093cरूर"


def test_reimport_skips_identical_records(engine):
    data = jsonl(SENTENCE, AWARE, BLIND, ANNOTATION)
    import_work_file(engine, data, "w.jsonl")
    again = import_work_file(engine, data, "w.jsonl")
    assert (again.sentences, again.translations, again.annotations, again.unchanged) == (0, 0, 0, 4)


def test_a_different_translation_is_refused_not_overwritten(engine):
    import_work_file(engine, jsonl(SENTENCE, AWARE), "a.jsonl")
    with pytest.raises(InputRejected) as exc:
        import_work_file(engine, jsonl(dict(AWARE, text="कुछ और")), "b.jsonl")
    assert "not overwritten" in str(exc.value.errors[0])
    assert exc.value.errors[0].line == 1
    with Session(engine) as s:
        assert s.scalars(select(Translation.text)).one() == AWARE["text"]


BAD_LINES = [
    ("unknown phase", dict(AWARE, phase="middle"), "unknown phase 'middle'"),
    ("unknown sentence", dict(AWARE, sentence_id="999"), "unknown sentence"),
    ("empty text", dict(AWARE, text="   "), "non-empty text"),
    ("I after O", dict(ANNOTATION, tags=["O", "I", "O", "O", "O", "O", "O", "O"]), "I follows O"),
    ("unknown tag", dict(ANNOTATION, tags=["O", "X", "O", "O", "O", "O", "O", "O"]), "unknown tag 'X'"),
    ("wrong tag count", dict(ANNOTATION, tags=["O", "B"]), "2 tags for 8 tokens"),
    ("tokens not canonical", dict(ANNOTATION, tokens=["लेकिन", "स्टाफ़", "हमारे", "साथ", "बहुत", "बुरा", "था।", "x"]),
     "differ from the canonical tokens"),
    ("annotation of missing translation", dict(ANNOTATION, translator="nobody"), "does not exist"),
    ("reason not text", dict(BLIND, reason=5), "field 'reason' has the wrong type"),  # free text is kept, not refused
    ("annotator tags own translation", dict(ANNOTATION, annotator="asha"),
     "annotator asha is the translator of this aware translation"),
]


@pytest.mark.parametrize("name,bad,message", BAD_LINES, ids=[b[0] for b in BAD_LINES])
def test_bad_record_is_located_and_nothing_is_written(engine, name, bad, message):
    with pytest.raises(InputRejected) as exc:
        import_work_file(engine, jsonl(SENTENCE, AWARE, bad), "w.jsonl")
    errors = exc.value.errors
    assert any(message in e.message for e in errors), [str(e) for e in errors]
    assert all(e.line == 3 for e in errors)
    assert str(errors[0]).startswith("w.jsonl:3 sentence ")
    assert count(engine, Translation) == 0


def test_ambiguous_sentence_id_needs_domain_and_split():
    laptop = dict(SENTENCE, domain="laptop")
    work, errors = parse_work_file(jsonl(SENTENCE, laptop, AWARE), "w.jsonl")
    assert len(errors) == 1 and "ambiguous" in errors[0].message and errors[0].line == 3
    work, errors = parse_work_file(jsonl(SENTENCE, laptop, dict(AWARE, domain="laptop")), "w.jsonl")
    assert errors == [] and work.translations[0].key.domain == "laptop"


def test_invalid_json_and_bad_encoding_are_located():
    _, errors = parse_work_file(b'{"type": "sentence"\n', "w.jsonl")
    assert errors[0].line == 1 and "not valid JSON" in errors[0].message
    _, errors = parse_work_file(jsonl(SENTENCE) + "\xff".encode("latin-1"), "w.jsonl")
    assert errors[0].line == 2 and "UTF-8" in errors[0].message


def test_dump_is_sorted_and_contract_shaped(engine, tmp_path):
    import_work_file(engine, jsonl(SENTENCE, BLIND, AWARE, ANNOTATION), "w.jsonl")
    lines = [json.loads(line) for line in dump_work_file(load_work(engine)).splitlines()]
    assert [o["type"] for o in lines] == ["sentence", "translation", "translation", "annotation"]
    assert [o.get("phase") for o in lines[1:3]] == ["aware", "blind"]
    assert lines[3]["tokens"][1] == "स्टाफ़" and lines[3]["tags"] == TAGS
    assert count(engine, Annotation) == 1


def test_command_line_refuses_an_annotation_of_the_annotators_own_translation(engine, sqlite_url, tmp_path, capsys):
    from cli.commands import main

    import_work_file(engine, jsonl(SENTENCE, AWARE), "a.jsonl")
    path = tmp_path / "self.jsonl"
    path.write_bytes(jsonl(ANNOTATION, dict(ANNOTATION, annotator="asha")))
    assert main(["--db", sqlite_url, "import-work", str(path)]) != 0
    err = capsys.readouterr().err
    assert f"{path}:2 sentence 3121: annotator asha is the translator" in err
    assert count(engine, Annotation) == 0 and count(engine, AnnotationAssignment) == 0
    with Session(engine) as s:
        assert s.scalars(select(User).where(User.username == "asha")).one().role_names == {"translator"}


def _gold_sources(engine) -> list[str]:
    from db.models import Adjudication

    with Session(engine) as s:
        return list(s.scalars(select(Adjudication.source).order_by(Adjudication.id)))


def test_imported_annotations_that_agree_are_gold_at_once_and_disagreeing_ones_are_not(engine):
    other = {**ANNOTATION, "annotator": "kiran"}
    import_work_file(engine, jsonl(SENTENCE, AWARE, ANNOTATION, other), "agree.jsonl")
    assert _gold_sources(engine) == ["agreed"]

    second = {**SENTENCE, "id": "3122"}
    aware = {**AWARE, "sentence_id": "3122"}
    tags = ["O", "O", "O", "O", "O", "O", "O", "O"]
    import_work_file(engine, jsonl(second, aware, {**ANNOTATION, "sentence_id": "3122"},
                                   {**other, "sentence_id": "3122", "tags": tags}), "disagree.jsonl")
    assert _gold_sources(engine) == ["agreed"]


# --- issue 15, part 6: free-text reasons kept, path-like names refused ---------------------------------


def test_a_reason_outside_the_projects_list_is_kept_as_other_with_its_text_and_noted(engine, tmp_path,
                                                                                    migrated_sqlite):
    from corpus.workfile import free_reason_notes

    data = jsonl(SENTENCE, AWARE, dict(BLIND, reason="idiom or pun"),
                 dict(BLIND, translator="neha", reason="slang", reason_text="regional"))
    summary = import_work_file(engine, data, "w.jsonl")
    assert summary.translations == 3
    with Session(engine) as s:
        kept = {u: (r, n) for u, r, n in s.execute(
            select(User.username, Translation.untranslatable_reason, Translation.untranslatable_note)
            .join(User, User.id == Translation.translator_id).where(Translation.untranslatable.is_(True)))}
    assert kept == {"ravi": ("other", "idiom or pun"), "neha": ("other", "slang: regional")}
    notes = free_reason_notes(data, "w.jsonl")
    assert [(n.line, n.sentence_id) for n in notes] == [(3, "3121"), (4, "3121")]
    assert str(notes[0]) == ("w.jsonl:3 sentence 3121: untranslatable reason 'idiom or pun' is not one of idiom, pun, "
                             "missing context, other: kept as 'other' with its text verbatim")
    assert free_reason_notes(jsonl(SENTENCE, AWARE, BLIND), "w.jsonl") == []
    assert summary.notes == (str(notes[0]), str(notes[1]))
    assert str(notes[0]) in str(summary).splitlines()  # what import-work and the restore page print
    dumped = dump_work_file(load_work(engine))
    assert '"reason": "other", "reason_text": "idiom or pun"' in dumped
    from db.engine import make_engine
    from tests.support.databases import copy_of

    again = make_engine(copy_of(migrated_sqlite, tmp_path / "again.db"))
    import_work_file(again, dumped.encode(), "dump.jsonl")
    assert dump_work_file(load_work(again)) == dumped


@pytest.mark.parametrize("field,value", [
    ("domain", "rest/aurant"), ("domain", ".."), ("domain", "..\\x"), ("domain", "a\\b"), ("domain", "rest aurant"),
    ("domain", "../../etc"), ("split", "../train"), ("split", "tr/ain"),
])
def test_a_domain_or_split_that_is_no_plain_name_is_refused_with_its_line(engine, field, value):
    with pytest.raises(InputRejected) as exc:
        import_work_file(engine, jsonl(dict(SENTENCE, **{field: value}), AWARE), "w.jsonl")
    first = exc.value.errors[0]
    assert (first.line, first.sentence_id) == (1, "3121")
    assert repr(value) in first.message
    with Session(engine) as s:
        assert s.scalar(select(func.count()).select_from(Translation)) == 0
