"""AppTest: login router and the lead's corpus pages (import, sentences, statistics)."""

from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.orm import Session
from streamlit.testing.v1 import AppTest

from login_tokens import session_token
from db.models import SourceSentence

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "semeval"


def page(path: str, engine, username: str | None) -> AppTest:
    at = AppTest.from_file(str(ROOT / path), default_timeout=60)
    if username:
        at.query_params["session"] = session_token(engine, username)
    return at.run()


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


def test_login_with_demo_password_opens_the_app(demo_db):
    at = page("app.py", demo_db, None)
    at.text_input(key="login_username").input("lead")
    at.text_input(key="login_password").input("lead-demo")
    at.button[0].click().run()
    assert not at.exception
    assert "session" in at.query_params
    assert any("lead" in str(m.value) for m in at.sidebar.markdown)


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
    at = AppTest.from_file(str(ROOT / "pages/statistics.py"), default_timeout=60)
    at.query_params["session"] = "forged-token"
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


def test_statistics_page_shows_table_one(demo_db):
    at = page("pages/statistics.py", demo_db, "lead")
    assert not at.exception
    table = at.dataframe[0].value
    row = table[table["statistic"] == "Aspect terms"].iloc[0]
    assert row["English (source)"] == "17"
    at.selectbox(key="stats_domain").select("laptop").run()
    row = at.dataframe[0].value.set_index("statistic").loc["Aspect terms"]
    assert row["English (source)"] == "8"


def test_import_page_shows_located_errors_and_writes_nothing(demo_db):
    at = page("pages/import_semeval.py", demo_db, "lead")
    assert not at.exception
    before = _count(demo_db)
    # AppTest cannot drive st.file_uploader; the page's parse + error path is covered by calling it
    # through the same functions in test_semeval_import; here we check the page renders for a lead.
    assert "all or nothing" in all_text(at)
    assert _count(demo_db) == before


def _count(engine):
    with Session(engine) as s:
        return s.scalar(select(func.count()).select_from(SourceSentence))
