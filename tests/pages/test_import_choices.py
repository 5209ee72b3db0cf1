"""The Import page asks where the sentences go before the file: domain and split come first (filled in
from the file's name when it says them), and the preview repeats what will be imported where."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session
from streamlit.testing.v1 import AppTest

from db.models import SourceSentence
from tests.support.app_pages import open_file
from tests.support.translation_fixtures import add_user

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "semeval"
LAPTOPS = (FIXTURES / "quirks_laptop.xml").read_bytes()  # 8 sentences, 8 aspect terms


def import_page(engine) -> AppTest:
    at = open_file(engine, add_user(engine, "lena", "lead"), "pages/import_semeval.py")
    assert not at.exception, at.exception
    return at


def upload(at: AppTest, name: str, data: bytes = LAPTOPS) -> AppTest:
    at.file_uploader(key="semeval_file").upload(name, data)
    at.run()
    assert not at.exception, at.exception
    return at


def kinds_in_order(node) -> list[str]:
    found = []
    for child in getattr(node, "children", {}).values():
        found.append(getattr(child, "type", type(child).__name__))
        found += kinds_in_order(child)
    return found


def imported(engine) -> set[tuple[str, str]]:
    with Session(engine) as s:
        return {tuple(row) for row in s.execute(select(SourceSentence.domain, SourceSentence.split)
                                                .where(SourceSentence.sentence_id == "101"))}


def test_domain_and_split_are_asked_before_the_file_and_start_empty(app_engine):
    at = import_page(app_engine)
    order = kinds_in_order(at.tabs[0])
    assert order.index("selectbox") < order.index("file_uploader")
    assert at.selectbox(key="semeval_domain").value is None and at.selectbox(key="semeval_split").value is None


def test_a_file_named_laptops_test_fills_in_laptop_and_test_and_the_preview_says_so(app_engine):
    assert imported(app_engine) == set()
    at = upload(import_page(app_engine), "Laptops_Test_Gold.xml")
    assert (at.selectbox(key="semeval_domain").value, at.selectbox(key="semeval_split").value) == ("laptop", "test")
    assert [i.value for i in at.info] == [
        "Will import 8 sentences and 8 aspect terms from Laptops\\_Test\\_Gold\\.xml into **laptop / test**."]
    button = at.button(key="semeval_import")
    assert button.label == "Import 8 sentences as laptop/test"
    button.click().run()
    assert not at.exception and at.success
    assert imported(app_engine) == {("laptop", "test")}


def test_a_name_that_says_nothing_gets_no_preview_until_both_are_chosen(app_engine):
    at = upload(import_page(app_engine), "reviews.xml")
    assert not at.metric and not at.get("button")
    assert any("Choose the domain and the split" in i.value for i in at.info)
    at.selectbox(key="semeval_domain").select("laptop").run()
    assert not at.get("button")  # the split is still open
    at.selectbox(key="semeval_split").select("train").run()
    assert at.button(key="semeval_import").label == "Import 8 sentences as laptop/train"


def test_a_choice_made_before_the_upload_is_kept_and_a_differing_name_is_pointed_out(app_engine):
    at = import_page(app_engine)
    at.selectbox(key="semeval_domain").select("restaurant")
    at = upload(at, "Laptops_Train_v2.xml")
    assert (at.selectbox(key="semeval_domain").value, at.selectbox(key="semeval_split").value) == (
        "restaurant", "train")  # the empty split is filled in, the chosen domain stays
    assert [w.value for w in at.warning] == [
        ("The file name Laptops\\_Train\\_v2\\.xml says domain laptop; you chose restaurant/train. "
         "Check before importing.")]
    assert at.button(key="semeval_import").label == "Import 8 sentences as restaurant/train"
