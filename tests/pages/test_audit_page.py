"""AppTest: the Audit page shows Table 1 beside our corpus, defects, script inconsistencies, sparsity."""

from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.support.app_pages import open_file

ROOT = Path(__file__).resolve().parents[2]
AKHTAR = ROOT / "tests" / "fixtures" / "audit" / "akhtar_defects.xml"


def audit_page(engine, username: str, source: tuple[str, bytes] | None) -> AppTest:
    state = {} if source is None else {"audit_source": source}
    return open_file(engine, username, "pages/audit.py", state=state)


def test_audit_page_shows_table1_beside_our_corpus_and_defects(demo_db):
    at = audit_page(demo_db, "lead", (AKHTAR.name, AKHTAR.read_bytes()))
    assert not at.exception
    table1 = at.dataframe[0].value
    assert list(table1.columns) == ["statistic", "Audited file", "Our corpus: English (source)",
                                    "Our corpus: Hindi (final, gold)"]
    assert table1.set_index("statistic").loc["Sentences", "Audited file"] == "17"
    counts = at.dataframe[1].value.set_index("kind")["count"]
    assert counts["trailing-whitespace"] == 2 and counts["duplicated-span"] == 1
    defects = at.dataframe[2].value
    assert len(defects) == 15
    assert set(defects[defects["kind"] == "missing-text"]["sentence_id"]) == {"tab_1"}
    scripts = at.dataframe[3].value
    assert set(scripts["term"]) == {"processor", "प्रोसेसर", "megapixel camera", "मेगापिक्सल कैमरा"}
    assert any("Sparsity: 4 of 4 domains" in s.value for s in at.subheader)


def test_conll_upload_shows_an_i_after_o_as_invalid_bio_with_its_sentence(demo_db):
    data = "# id = cam_7\nकैमरा\tB\nबहुत\tO\nलेंस\tI\nअच्छा\tO\n\n# id = cam_8\nठीक\tO\n".encode()
    at = audit_page(demo_db, "lead", ("upload.conll", data))
    assert not at.exception
    counts = at.dataframe[1].value.set_index("kind")["count"]
    assert counts["invalid-bio"] == 1
    at.selectbox(key="audit_kind").select("invalid-bio").run()
    [row] = at.dataframe[2].value.to_dict("records")
    assert (row["kind"], row["sentence_id"], row["line"], row["term"]) == ("invalid-bio", "cam_7", 4, "लेंस")
    assert row["detail"] == "token 3: I follows O"


def test_filtering_defects_by_kind(demo_db):
    at = audit_page(demo_db, "lead", (AKHTAR.name, AKHTAR.read_bytes()))
    at.selectbox(key="audit_kind").select("offset-mismatch").run()
    assert not at.exception
    assert sorted(at.dataframe[2].value["sentence_id"]) == ["lap_4", "mob_4"]


def test_unreadable_upload_is_an_error_shown_as_text(demo_db):
    data = b'<?xml version="1.0"?>\n<!DOCTYPE s [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n<s>&x;</s>'
    at = audit_page(demo_db, "lead", ("<b>evil</b>.xml", data))
    assert not at.exception
    assert at.error and "cannot be audited" in at.error[0].value
    assert at.code[0].value.startswith("<b>evil</b>.xml:2: refused")
    assert not at.dataframe


def test_user_text_is_never_rendered_as_markdown(demo_db):
    xml = ('<sentences><sentence id="x_1"><text>**bold** &lt;img src=x onerror=alert(1)&gt;</text>'
           '<aspectTerms><aspectTerm term="**bold**" polarity="pos" from="0" to="9"/></aspectTerms>'
           '</sentence></sentences>').encode()
    at = audit_page(demo_db, "lead", ("t.xml", xml))
    assert not at.exception
    rendered = "\n".join(str(m.value) for m in at.markdown)
    assert "**bold**" not in rendered and "onerror" not in rendered
    assert "**bold**" in set(at.dataframe[2].value["term"])


def test_translator_cannot_open_the_audit_page(demo_db):
    at = audit_page(demo_db, "asha", (AKHTAR.name, AKHTAR.read_bytes()))
    assert at.error and "do not have access" in at.error[0].value
    assert not at.dataframe


def test_without_a_file_the_page_asks_for_one(demo_db):
    at = audit_page(demo_db, "lead", None)
    assert not at.exception
    assert at.info and "Choose a file" in at.info[0].value
