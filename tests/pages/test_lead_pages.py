"""AppTest: login router and the lead's corpus pages (import, sentences, statistics)."""

from pathlib import Path

from tests.support.app_pages import PAGE_RUN_LIMIT_S, open_file
from sqlalchemy import func, select
from sqlalchemy.orm import Session
from streamlit.testing.v1 import AppTest

from db.models import SourceSentence

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "semeval"


def page(path: str, engine, username: str | None) -> AppTest:
    return open_file(engine, username or None, path)


def all_text(at: AppTest) -> str:
    parts = []
    for kind in ("markdown", "caption", "title", "header", "subheader", "text", "info", "warning", "error", "success"):
        parts += [str(e.value) for e in getattr(at, kind)]
    for df in at.dataframe:
        parts.append(df.value.to_string())
    return "\n".join(parts)


def test_logged_out_visitor_sees_only_the_login_form(demo_db):
    at = page("app.py", demo_db, None)
    assert not at.exception
    assert [t.label for t in at.text_input] == ["Username", "Password"]


def test_login_with_demo_password_hands_the_browser_a_login_code_not_a_url_token(demo_db, monkeypatch):
    """The browser trades the code for the session cookie (tests/browser/test_login_journey.py)."""
    import ui.session_nav
    from db.models import LoginCode

    monkeypatch.setattr(ui.session_nav, "login_nonce", lambda: "nonce-of-this-browser")  # AppTest sends no cookie
    at = page("app.py", demo_db, None)
    at.text_input(key="login_username").input("lead")
    at.text_input(key="login_password").input("lead-demo-pass")
    at.button[0].click().run()
    assert not at.exception and not at.error
    assert "session" not in at.query_params
    with Session(demo_db) as s:
        assert s.scalar(select(func.count()).select_from(LoginCode)) == 1


def test_a_login_from_a_page_loaded_without_the_nonce_cookie_issues_no_code(demo_db):
    from db.models import LoginCode

    at = page("app.py", demo_db, None)  # AppTest sends no cookie, as a browser refusing cookies would
    at.text_input(key="login_username").input("lead")
    at.text_input(key="login_password").input("lead-demo-pass")
    at.button[0].click().run()
    assert at.error and "reload the page and log in again" in at.error[0].value
    with Session(demo_db) as s:
        assert s.scalar(select(func.count()).select_from(LoginCode)) == 0


def test_wrong_password_is_refused(demo_db):
    at = page("app.py", demo_db, None)
    at.text_input(key="login_username").input("lead")
    at.text_input(key="login_password").input("wrong-password")
    at.button[0].click().run()
    assert at.error and "wrong password" in at.error[0].value
    assert "session" not in at.query_params


def test_translator_cannot_open_a_lead_page_by_url(demo_db):
    at = page("pages/sentences.py", demo_db, "asha")
    assert at.error and "do not have access" in at.error[0].value
    assert not at.dataframe


def test_a_forged_session_token_is_not_a_login(demo_db):
    at = AppTest.from_file(str(ROOT / "pages/statistics.py"), default_timeout=PAGE_RUN_LIMIT_S)
    at.session_state["session_token"] = "forged-token"
    at.run()
    assert at.warning and "log in" in at.warning[0].value
    assert not at.dataframe


def test_sentences_page_lists_and_highlights_escaped(demo_db):
    at = page("pages/sentences.py", demo_db, "lead")
    assert not at.exception
    assert "13 sentences shown" in all_text(at)
    html = "\n".join(str(m.value) for m in at.markdown)
    assert "<mark" in html and ">battery life</mark>" in html


def test_sentences_page_escapes_html_in_source_text(demo_db, tmp_path):
    from corpus.semeval import parse_semeval
    from db.importing import import_sentences

    xml = ('<sentences><sentence id="x1"><text>&lt;script&gt;alert(1)&lt;/script&gt; great food</text>'
           '<aspectTerms><aspectTerm term="food" polarity="positive" from="32" to="36"/></aspectTerms>'
           '</sentence></sentences>')
    records, errors = parse_semeval(xml, "x.xml", "restaurant", "test")
    assert not errors
    import_sentences(demo_db, records)
    at = page("pages/sentences.py", demo_db, "lead")
    at.selectbox(key="browse_open").select("restaurant/test/x1").run()
    html = "\n".join(str(m.value) for m in at.markdown)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script>" not in html


def test_sentences_csv_download_neutralises_a_formula_in_an_imported_id_and_text(demo_db, monkeypatch):
    import corpus.spreadsheet
    from corpus.semeval import parse_semeval
    from db.importing import import_sentences

    xml = ('<sentences><sentence id="=HYPERLINK(&quot;http://x&quot;)"><text>=1+1 great food</text>'
           '<aspectTerms><aspectTerm term="food" polarity="positive" from="11" to="15"/></aspectTerms>'
           '</sentence></sentences>')
    records, errors = parse_semeval(xml, "x.xml", "restaurant", "test")
    assert not errors
    import_sentences(demo_db, records)
    downloads = []
    real = corpus.spreadsheet.frame_csv
    monkeypatch.setattr(corpus.spreadsheet, "frame_csv", lambda frame: downloads.append(real(frame)) or downloads[-1])
    at = page("pages/sentences.py", demo_db, "lead")
    assert not at.exception, at.exception
    assert [b.proto.label for b in at.get("link_button")] == ["Download CSV"] and len(downloads) == 1
    assert at.get("link_button")[0].proto.url.startswith("/download/") and not at.get("download_button")
    text = downloads[0].decode("utf-8")
    assert "\"'=HYPERLINK(\"\"http://x\"\")\"" in text and ",'=1+1 great food," in text
    assert ",=" not in text and "\n=" not in text


def test_sentences_page_shows_an_imported_category_as_inert_text(demo_db):
    from corpus.semeval import parse_semeval
    from db.importing import import_sentences

    xml = ('<sentences><sentence id="c1"><text>great food</text>'
           '<aspectCategories><aspectCategory category="![x](http://127.0.0.1:9/p)" polarity="positive"/>'
           '</aspectCategories></sentence></sentences>')
    records, errors = parse_semeval(xml, "x.xml", "restaurant", "test")
    assert not errors
    import_sentences(demo_db, records)
    at = page("pages/sentences.py", demo_db, "lead")
    at.selectbox(key="browse_open").select("restaurant/test/c1").run()
    caption = next(c.value for c in at.caption if c.value.startswith("Categories: "))
    assert "![x](" not in caption and "\\!\\[x\\]\\(http" in caption


def test_statistics_page_shows_table_one(demo_db):
    at = page("pages/statistics.py", demo_db, "lead")
    assert not at.exception
    table = at.dataframe[0].value
    row = table[table["statistic"] == "Aspect terms"].iloc[0]
    assert row["English (source)"] == "17"
    at.selectbox(key="stats_domain").select("laptop").run()
    row = at.dataframe[0].value.set_index("statistic").loc["Aspect terms"]
    assert row["English (source)"] == "8"


def import_page(engine, filename: str, data: bytes, domain: str = "restaurant", split: str = "test") -> AppTest:
    at = page("pages/import_semeval.py", engine, "lead")
    at.selectbox(key="semeval_domain").select(domain)
    at.selectbox(key="semeval_split").select(split)
    at.file_uploader(key="semeval_file").upload(filename, data)
    at.run()
    assert not at.exception, at.exception
    return at


def _work(engine) -> str:
    from corpus.workfile import dump_work_file
    from db.workfile import load_work

    return dump_work_file(load_work(engine))


def test_import_page_previews_then_imports_an_uploaded_file(demo_db):
    before = _count(demo_db)
    at = import_page(demo_db, "restaurants_small.xml", (FIXTURES / "restaurants_small.xml").read_bytes())
    assert {m.label: m.value for m in at.metric} == {"Sentences": "4", "Aspect terms": "5", "Flagged for review": "0"}
    assert _count(demo_db) == before  # the preview writes nothing
    at.checkbox(key="semeval_allow_duplicates").check()  # the demo's restaurant/train holds 3121 and 1634
    at.button(key="semeval_import").click().run()
    assert not at.exception, at.exception
    assert at.success
    with Session(demo_db) as s:
        ids = set(s.scalars(select(SourceSentence.sentence_id).where(SourceSentence.split == "test",
                                                                     SourceSentence.domain == "restaurant")))
    assert ids == {"3121", "2777", "1634", "32897564#894393#2"}
    assert _count(demo_db) == before + 4


def test_import_page_shows_located_errors_for_a_broken_upload_and_writes_nothing(demo_db):
    before = _work(demo_db)
    at = import_page(demo_db, "offset_mismatch.xml", (FIXTURES / "offset_mismatch.xml").read_bytes())
    assert any("nothing was imported" in e.value for e in at.error)
    table = at.dataframe[0].value
    assert list(table.columns) == ["file", "line", "sentence id", "problem"]
    row = table[table["sentence id"] == "202"].iloc[0]
    assert row["file"] == "offset_mismatch.xml" and int(row["line"]) > 0
    assert not at.metric and not at.get("button")  # no import button for a refused file
    assert _work(demo_db) == before


def test_import_page_refuses_an_external_entity_without_reading_it(demo_db):
    before = _work(demo_db)
    at = import_page(demo_db, "xxe.xml", (FIXTURES / "xxe.xml").read_bytes())
    table = at.dataframe[0].value
    assert table["problem"].str.contains("entities are not allowed").any()
    assert "root:" not in all_text(at)  # /etc/passwd never reaches the page
    assert not at.get("button")
    assert _work(demo_db) == before


def test_import_page_imports_a_work_file_and_shows_errors_for_a_broken_one(demo_db):
    before = _work(demo_db)
    at = page("pages/import_semeval.py", demo_db, "lead")
    at.file_uploader(key="work_file").upload("bad.jsonl", b'{"type": "sentence"}\n{not json\n')
    at.run()
    at.button(key="work_import").click().run()
    assert not at.exception, at.exception
    table = at.dataframe[0].value
    assert set(table["file"]) == {"bad.jsonl"} and 2 in set(table["line"].astype(int))
    assert _work(demo_db) == before


def _count(engine):
    with Session(engine) as s:
        return s.scalar(select(func.count()).select_from(SourceSentence))
