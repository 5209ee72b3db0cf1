"""AppTest: the Import page refuses a file whose texts are already in another split of its domain (naming
them) unless 'Import sentences already in another split' is ticked, and removes a split nobody has worked
on, saying first what goes; a split with work shows why it cannot go and offers no button (issue 28)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from corpus.semeval import parse_semeval
from db.importing import import_sentences
from db.models import AspectTerm, SourceSentence
from tests.support.app_pages import open_file

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "semeval" / "restaurants_small.xml"


def _in(engine, domain: str, split: str) -> int:
    with Session(engine) as s:
        return s.scalar(select(func.count(SourceSentence.id)).where(SourceSentence.domain == domain,
                                                                     SourceSentence.split == split))


def _import_test_split(engine) -> None:
    records, errors = parse_semeval(FIXTURE.read_bytes(), FIXTURE.name, "laptop", "test")
    assert errors == []
    import_sentences(engine, records, FIXTURE.name)


def _upload(engine, split: str):
    at = open_file(engine, "lead", "pages/import_semeval.py")
    at.selectbox(key="semeval_domain").select("laptop")
    at.selectbox(key="semeval_split").select(split)
    at.file_uploader(key="semeval_file").upload(FIXTURE.name, FIXTURE.read_bytes())
    at.run()
    assert not at.exception, at.exception
    return at


def test_a_file_already_in_another_split_is_refused_naming_it_unless_allowed(demo_db):
    _import_test_split(demo_db)
    train_before = _in(demo_db, "laptop", "train")
    at = _upload(demo_db, "train")
    preview = [w.value.replace("\\", "") for w in at.warning]
    assert any(w.startswith("4 sentence(s) of this file repeat texts already stored in another split of laptop "
                            "(4 in laptop/test; first: 3121, 2777, 1634, 32897564#894393#2). Is this the file "
                            "for **train**?") for w in preview), preview
    assert at.dataframe[-1].value["sentence id"].tolist() == ["3121", "2777", "1634", "32897564#894393#2"]
    at.button(key="semeval_import").click().run()
    assert not at.exception, at.exception
    assert any("nothing was imported" in e.value for e in at.error)
    table = at.dataframe[-1].value
    assert table["problem"].iloc[0] == "its text is already in laptop/test as sentence 3121"
    assert table["sentence id"].iloc[0] == "3121"
    assert "--allow-duplicates" in table["problem"].iloc[-1]
    assert _in(demo_db, "laptop", "train") == train_before

    at.checkbox(key="semeval_allow_duplicates").check().run()
    at.button(key="semeval_import").click().run()
    assert not at.exception, at.exception
    assert at.success and "imported 4 sentences, 5 aspect terms" in at.success[0].value
    assert _in(demo_db, "laptop", "train") == train_before + 4


def _remove_tab(engine, domain: str, split: str):
    at = open_file(engine, "lead", "pages/import_semeval.py")
    at.selectbox(key="remove_domain").select(domain)
    at.selectbox(key="remove_split").select(split)
    at.run()
    assert not at.exception, at.exception
    return at


def test_a_split_nobody_worked_on_is_removed_after_saying_what_goes(demo_db):
    _import_test_split(demo_db)
    at = _remove_tab(demo_db, "laptop", "test")
    assert any("takes away 4 sentences, 5 aspect terms and 4 aspect categories of laptop/test" in i.value
               for i in at.info)
    assert at.button(key="remove_import").disabled  # not before the lead says yes
    at.checkbox(key="remove_sure").check().run()
    at.button(key="remove_import").click().run()
    assert not at.exception, at.exception
    assert at.success[0].value.startswith("Removed 4 sentences, 5 aspect terms and 4 aspect categories")
    assert _in(demo_db, "laptop", "test") == 0
    with Session(demo_db) as s:
        assert s.scalar(select(func.count(AspectTerm.id))) > 0  # the demo's own terms stay


def test_a_split_with_work_says_why_and_offers_no_removal(demo_db):
    before = _in(demo_db, "laptop", "train")
    at = _remove_tab(demo_db, "laptop", "train")
    assert any(f"laptop/train: {before} of its {before} sentences have work on them"
               in w.value.replace("\\", "") for w in at.warning)  # the page escapes Markdown
    assert not [b for b in at.button if b.key == "remove_import"]
    assert _in(demo_db, "laptop", "train") == before
