"""The export page in AppTest: a lead prepares an export, sees what goes in and what is left out, downloads."""

from __future__ import annotations

import io
import zipfile

import pytest
from sqlalchemy.orm import Session
from streamlit.testing.v1 import AppTest

from db.auth import start_session
from tests.support import app_pages
from tests.support.app_pages import PAGE_RUN_LIMIT_S, APP, open_file
from tests.support.export_factory import Corpus, build_sample

@pytest.fixture
def world(app_engine):
    engine = app_engine
    build_sample(engine)
    with Session(engine) as session:
        c = Corpus(session)
        ids = {"lead": c.user("lena", "lead").id, "translator": c.user("asha").id}
        session.commit()
    return {"engine": engine, **ids}


def open_page(world, user: str) -> AppTest:
    return app_pages.open_page(world["engine"], world[user], "pages/export.py")


def test_lead_prepares_export_and_sees_counts_and_left_out_reasons(world):
    at = open_page(world, "lead")
    assert "Prepare export" in " ".join(i.value for i in at.info)
    at.checkbox(key="export_ids").check()
    at.button(key="export_prepare").click()
    at.run()
    assert not at.exception, at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Sentences exported"] == "5"
    # Counted apart: what nobody has translated, what waits for the lead's decision, what is left out for a reason.
    assert (metrics["Not translated yet"], metrics["Awaiting a final decision"], metrics["Left out for a reason"]) \
        == ("0", "1", "3")
    assert [link.proto.label for link in at.get("page_link")] == ["Decide the 1 final translation(s)"]
    reasons = at.dataframe[1].value
    assert set(reasons["reason"]) == {"untranslatable by majority", "annotators disagree", "no final translation",
                                      "left out by lead"}
    items = at.dataframe[2].value  # the left-out sentences themselves, on the page (not only in left_out.tsv)
    assert len(items) == 4 and set(items["reason"]) == set(reasons["reason"])
    downloads = at.get("link_button")  # served by the checked /download/ route (tests/pages/test_downloads.py)
    assert downloads and all(d.proto.url.startswith("/download/") for d in downloads)
    assert not at.get("download_button")
    labels = [d.proto.label for d in downloads]
    assert "Download everything (zip)" in labels
    assert any(label.startswith("conll (") for label in labels) and any(label.startswith("semeval-xml (") for label in labels)
    assert "Dataset card (README.md)" in labels


def test_export_zip_holds_every_format_and_the_card(world):
    from corpus.export.writer import zip_bytes

    at = open_page(world, "lead")
    at.button(key="export_prepare").click()
    at.run()
    files = at.session_state["export_result"]["files"]
    with zipfile.ZipFile(io.BytesIO(zip_bytes(files))) as zf:
        tops = {n.split("/")[1] for n in zf.namelist()}
    assert {"conll", "conll-en", "jsonl", "semeval-xml", "tsv", "lince", "README.md", "left_out.tsv"} <= tops
    assert "asha" not in files["jsonl/train.jsonl"]  # pseudonymized by default


def test_options_change_what_goes_in(world):
    at = open_page(world, "lead")
    at.checkbox(key="export_agreed").check()
    at.multiselect(key="export_formats").set_value(["jsonl"])
    at.button(key="export_prepare").click()
    at.run()
    assert not at.exception, at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Sentences exported"] == "4"
    files = at.session_state["export_result"]["files"]
    assert not any(p.startswith("conll") for p in files)


def test_page_is_for_leads_only(world):
    at = AppTest.from_file(str(APP), default_timeout=PAGE_RUN_LIMIT_S)
    at.session_state["session_token"] = start_session(world["engine"], world["translator"])
    at.run()
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        at.switch_page("pages/export.py")
    direct = open_file(world["engine"], world["translator"], "pages/export.py")
    assert not direct.exception
    assert any("do not have access" in e.value for e in direct.error)
    assert not direct.get("download_button") and not direct.get("link_button")
