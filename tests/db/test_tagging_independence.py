"""One independence rule for every path that gives an annotator a translation: a person who translates a
sentence never tags a colleague's translation of it (it would leak into their own; ROUGE-L agreement
between translators assumes independent translations)."""

import json

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from corpus.assignment import tagging_refusal
from corpus.errors import InputRejected
from db.models import Annotation, Translation
from db.workfile import import_work_file
from tests.support.independence_records import AWARE, BLIND_BY_RAVI, SENTENCE

TAGS = ["O", "B", "O", "O", "O", "O", "O", "O"]
RAVI_TAGS_ASHAS = {"type": "annotation", "sentence_id": "3121", "phase": "aware", "translator": "asha",
                   "annotator": "ravi", "tags": TAGS}


def jsonl(*objects) -> bytes:
    return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objects).encode()


@pytest.mark.parametrize("annotator,translator,of_sentence,refused", [
    ("meera", "asha", {"asha", "ravi"}, False),
    ("asha", "asha", {"asha"}, True),
    ("ravi", "asha", {"asha", "ravi"}, True),   # ravi translated the sentence (the other phase, say)
    ("ravi", "asha", {"asha"}, False),
])
def test_tagging_refusal_names_the_independence_rule(annotator, translator, of_sentence, refused):
    reason = tagging_refusal(annotator, translator, of_sentence)
    assert (reason is not None) == refused
    if refused and annotator != translator:
        assert "colleague's translation of a sentence they translate" in reason


def test_import_refuses_a_translator_tagging_a_colleagues_translation_of_the_same_sentence(engine):
    with pytest.raises(InputRejected) as exc:
        import_work_file(engine, jsonl(SENTENCE, AWARE, BLIND_BY_RAVI, RAVI_TAGS_ASHAS), "w.jsonl")
    errors = exc.value.errors
    assert len(errors) == 1 and errors[0].line == 4
    assert "annotator ravi is a translator of this sentence" in errors[0].message
    assert "colleague's translation" in errors[0].message
    with Session(engine) as s:  # all or nothing
        assert s.scalar(select(func.count()).select_from(Translation)) == 0
        assert s.scalar(select(func.count()).select_from(Annotation)) == 0


def test_import_refuses_it_when_the_translation_of_the_annotator_is_already_stored(engine):
    import_work_file(engine, jsonl(SENTENCE, AWARE, BLIND_BY_RAVI), "first.jsonl")
    with pytest.raises(InputRejected) as exc:
        import_work_file(engine, jsonl(RAVI_TAGS_ASHAS), "second.jsonl")
    assert "annotator ravi is a translator of this sentence" in exc.value.errors[0].message


def test_import_accepts_an_annotator_who_never_translated_the_sentence(engine):
    summary = import_work_file(engine, jsonl(SENTENCE, AWARE, dict(RAVI_TAGS_ASHAS, annotator="meera")), "w.jsonl")
    assert summary.annotations == 1


def test_assignment_never_gives_a_translator_a_colleagues_translation_of_the_sentence(engine):
    """The app's path asks the same rule: ravi, who translated the blind one, is never given asha's."""
    from db.users import get_or_create_user
    from db.models import AnnotationAssignment
    from db.schema import default_project_id
    from db.assignment import assign_annotators

    import_work_file(engine, jsonl(SENTENCE, AWARE, BLIND_BY_RAVI), "w.jsonl")
    with Session(engine) as s, s.begin():
        ravi = get_or_create_user(s, "ravi", "annotator").id
        meera = get_or_create_user(s, "meera", "annotator").id
    with Session(engine) as s:
        project = default_project_id(s)
    assign_annotators(engine, project, per_item=2)
    with Session(engine) as s:
        given = {(a.user_id, s.get(Translation, a.translation_id).phase) for a in s.scalars(select(AnnotationAssignment))}
    assert (meera, "aware") in given and (meera, "blind") in given
    assert not any(user == ravi for user, _ in given)
