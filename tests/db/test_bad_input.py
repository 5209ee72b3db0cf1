"""Hostile and broken input, everywhere it enters: SemEval XML, work files, the command line.

Every bad input gets a located error (file, line, sentence id where there is one) and leaves the
database exactly as it was (same dump, same row counts), on SQLite and on PostgreSQL. Odd but legal
input (HTML and script, 10,000-character translations, bidirectional marks) is stored as plain text,
byte for byte, and survives dump → import → dump.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from cli.commands import main as cli_main
from corpus.errors import InputRejected, LocatedError
from corpus.semeval import parse_semeval
from corpus.tokens import tokenize
from corpus.workfile import MAX_LENGTHS, dump_work_file
from db.engine import make_engine
from db.importing import import_sentences
from db.models import AuditEvent, Revision, SourceSentence, TaggingItem, Translation, User
from db.workfile import import_work_file, load_work
from tests.conftest import _PG_SKIP_REASON
from tests.support.databases import copy_of

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "semeval"
FIFTY_MB = 50 * 1024 * 1024

SENTENCE = {"type": "sentence", "id": "3121", "domain": "restaurant", "split": "train",
            "text": "But the staff was so horrible to us.",
            "aspects": [{"term": "staff", "from": 8, "to": 13, "polarity": "negative"}]}
AWARE = {"type": "translation", "sentence_id": "3121", "domain": "restaurant", "split": "train", "phase": "aware",
         "translator": "asha", "text": "लेकिन स्टाफ़ हमारे साथ बहुत बुरा था।", "untranslatable": False}
ANNOTATION = {"type": "annotation", "sentence_id": "3121", "domain": "restaurant", "split": "train", "phase": "aware",
              "translator": "asha", "annotator": "meera", "tags": ["O", "B", "O", "O", "O", "O", "O", "O"]}
NEW = dict(SENTENCE, id="new-1")  # a valid sentence that a refused file must not leave behind


def jsonl(*objects) -> bytes:
    return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in objects).encode("utf-8")


def xml(*sentences: str, head: str = '<?xml version="1.0" encoding="UTF-8"?>\n') -> bytes:
    return (head + "<sentences>\n" + "".join(s + "\n" for s in sentences) + "</sentences>\n").encode("utf-8")


def sentence_xml(sid: str, text: str, *terms: tuple[str, str, str]) -> str:
    aspect = "".join(f'<aspectTerm term="{t}" polarity="positive" from="{a}" to="{b}"/>' for t, a, b in terms)
    return f'<sentence id="{sid}"><text>{text}</text><aspectTerms>{aspect}</aspectTerms></sentence>'


GOOD_XML = sentence_xml("new-1", "Fine food.", ("food", "5", "9"))


# ------------------------------------------------------------------ databases


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def db(request, tmp_path_factory):
    """One database per kind for the whole table, holding a baseline project that no case may change."""
    if request.param == "sqlite":
        url = copy_of(request.getfixturevalue("migrated_sqlite"), tmp_path_factory.mktemp("bad") / "corpus.db")
    else:
        if _PG_SKIP_REASON:
            pytest.skip(_PG_SKIP_REASON)
        databases = request.getfixturevalue("_postgres_databases")
        url = databases.take()  # a copy of the migrated template
    engine = make_engine(url)
    records, errors = parse_semeval((FIXTURES / "restaurants_small.xml").read_bytes(), "small.xml", "restaurant",
                                    "train")
    assert not errors
    import_sentences(engine, records, "small.xml")
    import_work_file(engine, jsonl(AWARE, ANNOTATION), "baseline.jsonl")
    yield engine
    engine.dispose()
    if request.param == "postgresql":
        databases.give_back(url)


def state(engine) -> tuple:
    """Everything a refused import could have touched."""
    with Session(engine) as session:
        counts = tuple(session.scalar(select(func.count()).select_from(m))
                       for m in (SourceSentence, Translation, TaggingItem, User, Revision, AuditEvent))
    return dump_work_file(load_work(engine)), counts


# ------------------------------------------------------------------ expectations


@dataclass(frozen=True)
class Expect:
    message: str  # regex the error message must match
    line: int | None = None
    sentence_id: str | None = None


def assert_located(errors: list[LocatedError], filename: str, expect: Expect) -> None:
    assert errors, "no error reported"
    matching = [e for e in errors if re.search(expect.message, e.message)]
    assert matching, f"no error matches {expect.message!r}: {[str(e) for e in errors]}"
    error = matching[0]
    assert error.file == filename
    if expect.line is not None:
        assert error.line == expect.line, str(error)
    if expect.sentence_id is not None:
        assert error.sentence_id == expect.sentence_id, str(error)
    assert str(error).startswith(f"{filename}:{error.line}" if error.line else filename)


# ------------------------------------------------------------------ SemEval XML


def _big_xml() -> bytes:
    body = ("The staff was friendly. " * 420)[:10000]
    n = FIFTY_MB // 10100 + 1
    sentences = [sentence_xml(str(i), body, ("staff", "4", "9")) for i in range(n)]
    return xml(*sentences, sentence_xml("7", "Again.")), n + 3


def _external_dtd(tmp: Path) -> bytes:
    dtd = tmp / "evil.dtd"
    dtd.write_text('<!ENTITY secret "PWNED">', encoding="utf-8")
    return xml(sentence_xml("x1", "a &secret; b"), head=f'<?xml version="1.0"?>\n<!DOCTYPE sentences SYSTEM "file://{dtd}">\n')


def _parameter_entity(tmp: Path) -> bytes:
    dtd = tmp / "evil.dtd"
    dtd.write_text('<!ENTITY secret "PWNED">', encoding="utf-8")
    head = f'<?xml version="1.0"?>\n<!DOCTYPE sentences [<!ENTITY % p SYSTEM "file://{dtd}"> %p;]>\n'
    return xml(sentence_xml("x1", "a &secret; b"), head=head)


LATIN1_AS_UTF8 = ('<?xml version="1.0" encoding="UTF-8"?>\n<sentences>\n'
                  '<sentence id="c1"><text>Caf\u00e9 food</text></sentence>\n</sentences>\n').encode("latin-1")
UTF16_NO_BOM = ('<?xml version="1.0" encoding="UTF-8"?>\n<sentences>\n'
                '<sentence id="u1"><text>Fine food.</text></sentence>\n</sentences>\n').encode("utf-16-le")

XML_CASES = {
    "malformed": (lambda tmp: (FIXTURES / "malformed.xml").read_bytes(), Expect("malformed XML: mismatched tag", line=6)),
    "external-entity-file": (lambda tmp: (FIXTURES / "xxe.xml").read_bytes(), Expect("entities are not allowed")),
    "external-entity-dtd": (_external_dtd, Expect(r"undefined entity|entities are not allowed", line=4)),
    "parameter-entity": (_parameter_entity, Expect("entities are not allowed")),
    "billion-laughs": (lambda tmp: xml(sentence_xml("b1", "&lol3;"), head=(
        '<?xml version="1.0"?>\n<!DOCTYPE sentences [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">'
        '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;">]>\n')), Expect("entities are not allowed")),
    "utf16-without-bom": (lambda tmp: UTF16_NO_BOM, Expect("malformed XML", line=1)),
    "latin1-declared-utf8": (lambda tmp: LATIN1_AS_UTF8, Expect("malformed XML: not well-formed", line=3)),
    "control-character": (lambda tmp: xml(GOOD_XML, sentence_xml("k1", "Bad\x07bell")),
                          Expect("malformed XML: not well-formed", line=4)),
    "control-character-reference": (lambda tmp: xml(GOOD_XML, sentence_xml("k1", "NUL &#0; here")),
                                    Expect("invalid character number", line=4)),
    "empty-file": (lambda tmp: b"", Expect("malformed XML", line=1)),
    "wrong-root": (lambda tmp: b"<reviews><sentence id='1'><text>x</text></sentence></reviews>", Expect("root element")),
    "offsets-out-of-range": (lambda tmp: xml(GOOD_XML, sentence_xml("o1", "Fine food.", ("food", "5", "90"))),
                             Expect("outside the text", line=4, sentence_id="o1")),
    "negative-offset": (lambda tmp: xml(GOOD_XML, sentence_xml("o2", "Fine food.", ("Fine", "-1", "4"))),
                        Expect("outside the text", line=4, sentence_id="o2")),
    "offsets-not-integers": (lambda tmp: xml(GOOD_XML, sentence_xml("o3", "Fine food.", ("food", "five", "9"))),
                             Expect("not integers", line=4, sentence_id="o3")),
    "offset-mismatch": (lambda tmp: (FIXTURES / "offset_mismatch.xml").read_bytes(), Expect("offset mismatch")),
    "unknown-polarity": (lambda tmp: (FIXTURES / "bad_polarity.xml").read_bytes(), Expect("unknown polarity")),
    "duplicate-ids": (lambda tmp: xml(GOOD_XML, sentence_xml("d1", "One."), sentence_xml("d1", "Two.")),
                      Expect("duplicate sentence id", line=5, sentence_id="d1")),
    "empty-text": (lambda tmp: xml(GOOD_XML, sentence_xml("e1", "   ")), Expect("empty", line=4, sentence_id="e1")),
    "no-id": (lambda tmp: xml(GOOD_XML, "<sentence><text>No id.</text></sentence>"), Expect("without an id", line=4)),
    "over-long-id": (lambda tmp: xml(GOOD_XML, sentence_xml("i" * 101, "Long id.")),
                     Expect(f"at most {MAX_LENGTHS['id']}", line=4)),
    "unescaped-html-in-text": (lambda tmp: xml(GOOD_XML, '<sentence id="h1"><text>Nice <b>food</b></text></sentence>'),
                               Expect("contains markup", line=4, sentence_id="h1")),
}


@pytest.mark.parametrize("case", list(XML_CASES))
def test_bad_semeval_xml_gets_a_located_error_and_changes_nothing(db, case, tmp_path):
    make, expect = XML_CASES[case]
    data = make(tmp_path)
    filename = f"{case}.xml"
    before = state(db)
    records, errors = parse_semeval(data, filename, "restaurant", "train")
    if not errors:  # what the parser lets through, the importer must still refuse (e.g. "<b>" inside <text>)
        with pytest.raises(InputRejected) as caught:
            import_sentences(db, records, filename)
        errors = caught.value.errors
    assert_located(errors, filename, expect)
    assert not any("PWNED" in e.message or "root:" in e.message for e in errors)  # nothing was resolved
    assert state(db) == before


def test_a_50_mb_semeval_file_is_parsed_and_its_last_error_located(db):
    data, last_line = _big_xml()
    assert len(data) > FIFTY_MB
    before = state(db)
    records, errors = parse_semeval(data, "big.xml", "restaurant", "train")
    assert_located(errors, "big.xml", Expect("duplicate sentence id", line=last_line, sentence_id="7"))
    assert len(records) > 5000
    assert state(db) == before


def test_a_sentence_that_differs_from_the_stored_one_is_refused_not_overwritten(db):
    records, errors = parse_semeval(xml(GOOD_XML, sentence_xml("3121", "But the staff was lovely.")), "again.xml",
                                    "restaurant", "train")
    assert not errors
    before = state(db)
    with pytest.raises(InputRejected) as caught:
        import_sentences(db, records, "again.xml")
    assert_located(caught.value.errors, "again.xml", Expect("already exists.*not overwritten", line=4,
                                                             sentence_id="3121"))
    assert state(db) == before


# ------------------------------------------------------------------ work files


def _big_work() -> tuple[bytes, int]:
    body = ("The staff was friendly. " * 420)[:10000]
    n = FIFTY_MB // 10100 + 1
    lines = [dict(SENTENCE, id=f"big-{i}", text=body, aspects=[]) for i in range(n)]
    return jsonl(*lines, dict(AWARE, sentence_id="big-3", phase="later")), n + 1


def _with(obj: dict, **changes) -> dict:
    return {**obj, **changes}


WORK_CASES = {
    "latin1-bytes": (jsonl(NEW) + '{"type": "sentence", "id": "c1", "text": "Caf\u00e9"}\n'.encode("latin-1"),
                     Expect("not valid UTF-8", line=2)),
    "utf16-with-bom": (jsonl(NEW).decode().encode("utf-16"), Expect("not valid UTF-8", line=1)),
    "utf16-without-bom": (jsonl(NEW).decode().encode("utf-16-le"), Expect("not valid JSON", line=1)),
    "not-json": (jsonl(NEW) + b"{not json\n", Expect("not valid JSON", line=2)),
    "deeply-nested": (jsonl(NEW) + b'{"type": "sentence", "aspects": ' + b"[" * 100000 + b"]" * 100000 + b"}\n",
                      Expect("not valid JSON", line=2)),
    "huge-number": (jsonl(NEW) + b'{"type": "sentence", "id": ' + b"9" * 5000 + b"}\n",
                    Expect("not valid JSON", line=2)),
    "not-an-object": (jsonl(NEW) + b'["sentence"]\n', Expect("must be an object", line=2)),
    "unknown-type": (jsonl(NEW, {"type": "comment", "text": "hi"}), Expect("must be an object with type", line=2)),
    "unknown-phase": (jsonl(NEW, _with(AWARE, phase="later")), Expect("unknown phase", line=2, sentence_id="3121")),
    "invalid-bio-i-after-o": (jsonl(NEW, _with(ANNOTATION, annotator="ravi", tags=["O", "I", "O", "O", "O", "O", "O", "O"])),
                              Expect("invalid BIO", line=2, sentence_id="3121")),
    "invalid-bio-unknown-tag": (jsonl(NEW, _with(ANNOTATION, annotator="ravi", tags=["X"] * 8)),
                                Expect("invalid BIO", line=2, sentence_id="3121")),
    "bio-length-mismatch": (jsonl(NEW, _with(ANNOTATION, annotator="ravi", tags=["O", "B"])),
                            Expect("2 tags for 8 tokens", line=2, sentence_id="3121")),
    "tokens-not-canonical": (jsonl(NEW, _with(ANNOTATION, annotator="ravi", tokens=["x"] * 8)),
                             Expect("tokens differ", line=2, sentence_id="3121")),
    "aspect-offsets-out-of-range": (jsonl(_with(NEW, aspects=[{"term": "staff", "from": 8, "to": 99}])),
                                    Expect("outside the text", line=1, sentence_id="new-1")),
    "aspect-offset-mismatch": (jsonl(_with(NEW, aspects=[{"term": "food", "from": 8, "to": 13}])),
                               Expect("offset mismatch", line=1, sentence_id="new-1")),
    "aspect-map-out-of-range": (jsonl(NEW, _with(AWARE, sentence_id="new-1", aspect_map=[{"aspect": 0, "from": 3,
                                                                                          "to": 999}])),
                                Expect("outside the translation", line=2, sentence_id="new-1")),
    "aspect-map-unknown-aspect": (jsonl(NEW, _with(AWARE, sentence_id="new-1", aspect_map=[{"aspect": 5, "from": 0,
                                                                                            "to": 5}])),
                                  Expect("refers to aspect 5", line=2, sentence_id="new-1")),
    "duplicate-sentence": (jsonl(NEW, NEW), Expect("duplicate sentence", line=2, sentence_id="new-1")),
    "duplicate-translation": (jsonl(NEW, _with(AWARE, sentence_id="new-1"), _with(AWARE, sentence_id="new-1")),
                              Expect("duplicate translation", line=3, sentence_id="new-1")),
    "unknown-sentence": (jsonl(NEW, _with(AWARE, sentence_id="nope", domain=None, split=None)),
                         Expect("unknown sentence", line=2, sentence_id="nope")),
    "differs-from-stored": (jsonl(NEW, _with(AWARE, text="कुछ और")),
                            Expect("differs from the stored one; not overwritten", line=2, sentence_id="3121")),
    "nul-in-translation": (jsonl(NEW, _with(AWARE, sentence_id="new-1", text="लेकिन\u0000स्टाफ़")),
                           Expect(r"control character \(U\+0000", line=2, sentence_id="new-1")),
    "bell-in-sentence": (jsonl(_with(NEW, text="Fine\u0007 food.")), Expect(r"control character \(U\+0007", line=1,
                                                                           sentence_id="new-1")),
    "c1-control-in-term": (jsonl(_with(NEW, text="Fine \u0085food.", aspects=[{"term": "\u0085food", "from": 5,
                                                                               "to": 10}])),
                           Expect(r"control character \(U\+0085", line=1, sentence_id="new-1")),
    "unpaired-surrogate": (jsonl(NEW) + b'{"type": "translation", "sentence_id": "new-1", "phase": "aware", '
                           b'"translator": "asha", "text": "x \\ud800 y"}\n',
                           Expect("unpaired surrogate", line=2, sentence_id="new-1")),
    "over-long-translator": (jsonl(NEW, _with(AWARE, sentence_id="new-1", translator="u" * 81)),
                             Expect("at most 80", line=2, sentence_id="new-1")),
    "over-long-domain": (jsonl(_with(NEW, domain="d" * 41)), Expect("at most 40", line=1, sentence_id="new-1")),
    "over-long-translation": (jsonl(NEW, _with(AWARE, sentence_id="new-1", text="क" * 10_001)),
                              Expect("at most 10000", line=2, sentence_id="new-1")),
    "over-long-sentence-id": (jsonl(_with(NEW, id="i" * 101)), Expect("at most 100", line=1)),
    "over-long-category": (jsonl(_with(NEW, categories=[{"category": "c" * 101}])),
                           Expect("at most 100", line=1, sentence_id="new-1")),
    "username-with-spaces": (jsonl(NEW, _with(AWARE, sentence_id="new-1", translator="asha verma")),
                             Expect("username cannot contain spaces", line=2, sentence_id="new-1")),
    "username-with-bidi-override": (jsonl(NEW, _with(AWARE, sentence_id="new-1", translator="ahsa\u202e")),
                                    Expect("invisible characters", line=2, sentence_id="new-1")),
    "time-spent-not-a-number": (jsonl(NEW, _with(AWARE, sentence_id="new-1", time_spent_s="long")),
                                Expect("time_spent_s", line=2, sentence_id="new-1")),
    "submitted-at-not-a-date": (jsonl(NEW, _with(AWARE, sentence_id="new-1", submitted_at="yesterday")),
                                Expect("not an ISO date-time", line=2, sentence_id="new-1")),
    "submitted-at-a-number": (jsonl(NEW, _with(AWARE, sentence_id="new-1", submitted_at=12)),
                              Expect("submitted_at", line=2, sentence_id="new-1")),
    "aspect-map-boolean-offsets": (jsonl(NEW, _with(AWARE, sentence_id="new-1",
                                                    aspect_map=[{"aspect": 0, "from": True, "to": 5}])),
                                   Expect("needs 0 <= from < to", line=2, sentence_id="new-1")),
    "empty-translation": (jsonl(NEW, _with(AWARE, sentence_id="new-1", text="   ")),
                          Expect("non-empty text", line=2, sentence_id="new-1")),
}


@pytest.mark.parametrize("case", list(WORK_CASES))
def test_bad_work_file_gets_a_located_error_and_changes_nothing(db, case):
    data, expect = WORK_CASES[case]
    filename = f"{case}.jsonl"
    before = state(db)
    with pytest.raises(InputRejected) as caught:
        import_work_file(db, data, filename)
    assert_located(caught.value.errors, filename, expect)
    assert state(db) == before


def test_a_50_mb_work_file_is_parsed_and_its_last_error_located(db):
    data, last_line = _big_work()
    assert len(data) > FIFTY_MB
    before = state(db)
    with pytest.raises(InputRejected) as caught:
        import_work_file(db, data, "big.jsonl")
    assert_located(caught.value.errors, "big.jsonl", Expect("unknown phase", line=last_line, sentence_id="big-3"))
    assert state(db) == before


# ------------------------------------------------------------------ legal but odd: stored as text


SCRIPT = '<script>alert("x")</script><img src=x onerror=alert(1)>'
BIDI = "स्टाफ़\u200f बहुत \u202bअच्छा\u202c था\u200e। \u2067Joe's\u2069"


def _odd_project() -> bytes:
    text = f"{SCRIPT} the staff"
    start = text.index("staff")
    sentence = {"type": "sentence", "id": f"<b>{SCRIPT[:40]}</b>", "domain": "rest", "split": "train",
                "text": text, "aspects": [{"term": "staff", "from": start, "to": start + 5, "polarity": "positive"}],
                "categories": [{"category": f"<u>{SCRIPT[:60]}</u>", "polarity": None}]}
    key = {"sentence_id": sentence["id"], "domain": sentence["domain"], "split": "train"}
    return jsonl(
        sentence,
        {"type": "translation", **key, "phase": "aware", "translator": "<script>alert(1)</script>",
         "text": f"{SCRIPT} स्टाफ़", "untranslatable": False, "guidelines_version": "<i>1</i>"},
        {"type": "translation", **key, "phase": "blind", "translator": "ravi", "text": None, "untranslatable": True,
         "reason": "other", "reason_text": SCRIPT},
        {"type": "translation", **key, "phase": "aware", "translator": "long", "text": "क" * 10_000,
         "untranslatable": False},
        {"type": "translation", **key, "phase": "aware", "translator": "bidi", "text": BIDI, "untranslatable": False},
        {"type": "annotation", **key, "phase": "aware", "translator": "bidi", "annotator": "<b>meera</b>",
         "tags": ["B"] + ["O"] * (len(tokenize(BIDI)) - 1)},
    )


def test_html_script_long_texts_and_bidi_marks_are_stored_as_plain_text(any_engine, tmp_path, migrated_sqlite):
    data = _odd_project()
    import_work_file(any_engine, data, "odd.jsonl")
    with Session(any_engine) as session:
        texts = set(session.scalars(select(Translation.text)))
        users = set(session.scalars(select(User.username)))
        source = session.scalars(select(SourceSentence)).one()
        notes = set(session.scalars(select(Translation.untranslatable_note)))
    assert f"{SCRIPT} स्टाफ़" in texts and BIDI in texts and "क" * 10_000 in texts
    assert {"<script>alert(1)</script>", "<b>meera</b>"} <= users
    assert source.text.startswith(SCRIPT) and source.sentence_id.startswith("<b><script>")
    assert SCRIPT in notes
    first = dump_work_file(load_work(any_engine))
    for fragment in (SCRIPT, BIDI, "क" * 10_000, "<i>1</i>"):  # a domain names export files: no markup there
        assert json.dumps(fragment, ensure_ascii=False)[1:-1] in first
    again = make_engine(copy_of(migrated_sqlite, tmp_path / "again.db"))
    import_work_file(again, first.encode("utf-8"), "dump.jsonl")
    assert dump_work_file(load_work(again)) == first


def test_escaped_markup_in_semeval_xml_is_stored_as_text(engine):
    plain = "Nice <script>alert(1)</script> food & drinks"
    start = str(plain.index("food"))
    escaped = plain.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    records, errors = parse_semeval(xml(sentence_xml("s1", escaped, ("food", start, str(int(start) + 4)))), "esc.xml",
                                    "restaurant", "train")
    assert not errors, errors
    import_sentences(engine, records, "esc.xml")
    with Session(engine) as session:
        assert session.scalars(select(SourceSentence.text)).one() == plain


def test_utf16_without_bom_or_declaration_is_detected_and_read_correctly():
    data = "<sentences><sentence id='u1'><text>Caf\u00e9 food.</text></sentence></sentences>".encode("utf-16-le")
    records, errors = parse_semeval(data, "u16.xml", "restaurant", "train")
    assert not errors and records[0].text == "Caf\u00e9 food."


def test_line_and_paragraph_separators_inside_texts_survive_a_work_file_round_trip(engine, tmp_path,
                                                                                  migrated_sqlite):
    text = "पहली पंक्ति\u2028दूसरी\u2029तीसरी\u0085"[:-1]
    data = jsonl(dict(NEW, text="But the staff\u2028was so horrible to us."), dict(AWARE, sentence_id="new-1", text=text))
    import_work_file(engine, data, "sep.jsonl")
    first = dump_work_file(load_work(engine))
    assert text in first
    again = make_engine(copy_of(migrated_sqlite, tmp_path / "again.db"))
    import_work_file(again, first.encode("utf-8"), "dump.jsonl")
    assert dump_work_file(load_work(again)) == first


def test_length_limits_match_the_database_columns():
    from db.models import AspectCategory

    columns = {"id": SourceSentence.__table__.c.sentence_id, "sentence_id": SourceSentence.__table__.c.sentence_id,
               "domain": SourceSentence.__table__.c.domain, "translator": User.__table__.c.username,
               "annotator": User.__table__.c.username, "category": AspectCategory.__table__.c.category,
               "guidelines_version": Translation.__table__.c.guidelines_version}
    assert {field: column.type.length for field, column in columns.items()} == MAX_LENGTHS


# ------------------------------------------------------------------ the command line


CLI_CASES = {
    "import-semeval-malformed": (["import-semeval", "{file}", "--domain", "restaurant", "--split", "train"],
                                 (FIXTURES / "malformed.xml").read_bytes(), r"^{file}:6: malformed XML"),
    "import-semeval-xxe": (["import-semeval", "{file}", "--domain", "restaurant", "--split", "train"],
                           (FIXTURES / "xxe.xml").read_bytes(), r"^{file}: forbidden XML construct"),
    "import-semeval-latin1": (["import-semeval", "{file}", "--domain", "laptop", "--split", "test"],
                              LATIN1_AS_UTF8, r"^{file}:3: malformed XML"),
    "import-semeval-duplicate-id": (["import-semeval", "{file}", "--domain", "restaurant", "--split", "train"],
                                    xml(GOOD_XML, GOOD_XML), r"^{file}:4 sentence new-1: duplicate sentence id"),
    "import-work-unknown-phase": (["import-work", "{file}"], jsonl(NEW, _with(AWARE, phase="later")),
                                  r"^{file}:2 sentence 3121: unknown phase"),
    "import-work-nul": (["import-work", "{file}"], jsonl(_with(NEW, text="a\u0000b")),
                        r"^{file}:1 sentence new-1: field 'text' contains a control character"),
    "import-work-missing-file": (["import-work", "{missing}"], None, r"^{missing}: cannot read file"),
}


@pytest.mark.parametrize("case", list(CLI_CASES))
def test_cli_prints_where_message_and_exits_non_zero_without_writing(case, tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    assert cli_main(["--db", url, "init"]) == 0
    engine = make_engine(url)
    import_work_file(engine, jsonl(SENTENCE, AWARE), "baseline.jsonl")
    before = state(engine)
    args, data, pattern = CLI_CASES[case]
    path, missing = tmp_path / f"{case}.input", tmp_path / "missing.jsonl"
    if data is not None:
        path.write_bytes(data)
    capsys.readouterr()
    code = cli_main(["--db", url, *[a.format(file=path, missing=missing) for a in args]])
    err = capsys.readouterr().err
    assert code != 0
    assert re.search(pattern.format(file=re.escape(str(path)), missing=re.escape(str(missing))), err, re.M), err
    assert "Traceback" not in err
    assert state(engine) == before
    engine.dispose()


@pytest.mark.parametrize(("args", "where"), [
    (["dump-work", "/nonexistent-dir/out.jsonl"], "/nonexistent-dir/out.jsonl: cannot write"),
    (["--db", "bogus://x", "stats"], "--db: not a usable database URL"),
    (["--db", "postgresql://postgres@127.0.0.1:1/none", "stats"], "postgresql://postgres@127.0.0.1:1/none: cannot use"),
], ids=["dump-work-unwritable", "bad-db-url", "unreachable-db"])
def test_cli_reports_environment_errors_as_where_message(args, where, tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    assert cli_main(["--db", url, "init"]) == 0  # a command that only reads refuses a database that does not exist
    argv = args if args[0] == "--db" else ["--db", url, *args]
    try:
        code = cli_main(argv)
    except Exception:  # noqa: BLE001 - an escaping exception is exactly the bug
        code = None
    assert code == 1
    assert capsys.readouterr().err.startswith(where)


def test_cli_dump_work_replaces_a_file_whole(tmp_path, capsys):
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    out = tmp_path / "work.jsonl"
    out.write_text("old content\n", encoding="utf-8")
    assert cli_main(["--db", url, "init", "--demo"]) == 0
    assert cli_main(["--db", url, "dump-work", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "old content" not in text and text.count("\n") > 10
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")] == []
