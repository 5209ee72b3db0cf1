"""The data model holds the method's invariants as database constraints, on SQLite and PostgreSQL."""

import pytest
from sqlalchemy import inspect, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from db.models import AspectAlignment, AspectTerm, SourceSentence, Translation, User
from db.schema import default_project_id, upgrade


def _sentence(session) -> SourceSentence:
    s = SourceSentence(project_id=default_project_id(session), domain="laptop", split="train", sentence_id="1",
                       text="The cord is short.")
    session.add(s)
    session.flush()
    return s


def _user(session, name="asha") -> User:
    u = User(username=name)
    session.add(u)
    session.flush()
    return u


INVALID = [
    ("span start < end", lambda s, sent, u: AspectTerm(sentence_id=sent.id, position=0, term="x", start=5, end=5)),
    ("phase known", lambda s, sent, u: Translation(sentence_id=sent.id, phase="middle", translator_id=u.id, text="x")),
    ("submitted needs text", lambda s, sent, u: Translation(sentence_id=sent.id, phase="aware", translator_id=u.id,
                                                            text="  ", status="submitted")),
    ("polarity known", lambda s, sent, u: AspectTerm(sentence_id=sent.id, position=0, term="x", start=0, end=1,
                                                     polarity="great")),
    ("split known", lambda s, sent, u: SourceSentence(project_id=sent.project_id, domain="laptop", split="val",
                                                      sentence_id="2", text="x")),
]


@pytest.mark.parametrize("name,make", INVALID, ids=[i[0] for i in INVALID])
def test_invalid_rows_are_refused_by_the_database(any_engine, name, make):
    with Session(any_engine) as session:
        sent, user = _sentence(session), _user(session)
        session.add(make(session, sent, user))
        with pytest.raises(IntegrityError):
            session.flush()


def test_sentence_identity_is_unique_per_domain_and_split(any_engine):
    with Session(any_engine) as session:
        sent = _sentence(session)
        session.add(SourceSentence(project_id=sent.project_id, domain="restaurant", split="train", sentence_id="1", text="y"))
        session.flush()
        session.add(SourceSentence(project_id=sent.project_id, domain="laptop", split="train", sentence_id="1", text="z"))
        with pytest.raises(IntegrityError):
            session.flush()


def test_one_translation_per_translator_sentence_and_phase(any_engine):
    with Session(any_engine) as session:
        sent, user = _sentence(session), _user(session)
        session.add(Translation(sentence_id=sent.id, phase="aware", translator_id=user.id, text="a"))
        session.flush()
        session.add(Translation(sentence_id=sent.id, phase="aware", translator_id=user.id, text="b"))
        with pytest.raises(IntegrityError):
            session.flush()


def test_aspect_alignment_is_a_span_or_dropped(any_engine):
    with Session(any_engine) as session:
        sent, user = _sentence(session), _user(session)
        term = AspectTerm(sentence_id=sent.id, position=0, term="cord", start=4, end=8)
        t = Translation(sentence_id=sent.id, phase="aware", translator_id=user.id, text="कॉर्ड छोटी है।")
        session.add_all([term, t])
        session.flush()
        session.add(AspectAlignment(translation_id=t.id, aspect_term_id=term.id, start=None, end=None, dropped=False))
        with pytest.raises(IntegrityError):
            session.flush()


def test_stale_version_save_is_refused(any_engine):
    """Two people load the same translation; the second save, made against the old version, is refused."""
    from sqlalchemy.orm.exc import StaleDataError

    with Session(any_engine) as session:
        sent, user = _sentence(session), _user(session)
        t = Translation(sentence_id=sent.id, phase="blind", translator_id=user.id, text="पहला")
        session.add(t)
        session.commit()
        tid = t.id
    loaded = []
    for _ in range(2):
        with Session(any_engine, expire_on_commit=False) as session:
            loaded.append(session.get(Translation, tid))
    mine, theirs = loaded
    with Session(any_engine) as session:
        session.add(mine)
        mine.text = "दूसरा"
        session.commit()
    with Session(any_engine) as session:
        session.add(theirs)
        theirs.text = "तीसरा"
        with pytest.raises(StaleDataError):
            session.commit()
    with Session(any_engine) as session:
        assert session.scalars(select(Translation.text)).one() == "दूसरा"


def test_upgrade_is_idempotent_and_creates_every_table(any_engine):
    upgrade(any_engine)
    tables = set(inspect(any_engine).get_table_names())
    assert {"translations", "annotations", "adjudications", "final_choices", "revisions", "aspect_alignments",
            "tagging_items", "translation_assignments", "annotation_assignments", "glossary_terms"} <= tables


def test_sqlite_runs_in_wal_with_foreign_keys_on(engine):
    with engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA foreign_keys")).scalar() == 1


def _item(session):
    from db.models import TaggingItem

    sent, user = _sentence(session), _user(session)
    t = Translation(sentence_id=sent.id, phase="aware", translator_id=user.id, text="कॉर्ड छोटी है।")
    session.add(t)
    session.flush()
    item = TaggingItem(translation_id=t.id, tokens=["कॉर्ड", "छोटी", "है", "।"], tokenizer="hi-canon/1.0",
                       translation_version=1)
    session.add(item)
    session.flush()
    return item


@pytest.mark.parametrize(
    ("source", "tags"),
    [("withdrawn", ["O", "O", "O", "O"]), ("agreed", None), ("accepted", None), ("guessed", ["O", "O", "O", "O"])],
    ids=["withdrawal-with-tags", "agreed-without-tags", "lead-without-tags", "unknown-source"],
)
def test_gold_decisions_carry_tags_exactly_unless_withdrawn(any_engine, source, tags):
    from db.models import Adjudication

    with Session(any_engine) as session:
        item = _item(session)
        session.add(Adjudication(item_id=item.id, tags=["O", "O", "O", "O"], source="single"))
        session.add(Adjudication(item_id=item.id, tags=None, source="withdrawn"))
        session.flush()
        session.add(Adjudication(item_id=item.id, tags=tags, source=source))
        with pytest.raises(IntegrityError):
            session.flush()


def _upgrade_to(url: str, revision: str) -> None:
    """As ``db.schema.upgrade``, to a given revision."""
    from alembic import command
    from sqlalchemy import create_engine, pool

    from db.schema import alembic_config

    cfg = alembic_config(url)
    migration_engine = create_engine(url, poolclass=pool.NullPool)
    with migration_engine.connect() as conn:
        if conn.dialect.name == "sqlite":
            conn.exec_driver_sql("PRAGMA foreign_keys=OFF")
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)
        conn.commit()
    migration_engine.dispose()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_upgrade_from_the_first_schema_keeps_every_gold_decision(request, backend):
    """A database made by revision 0001, with decisions in it, upgrades to head without losing any;
    only then can a withdrawal be stored."""
    from db.engine import make_engine
    from db.models import Adjudication
    from db.schema import ensure_default_project

    url = request.getfixturevalue("sqlite_url" if backend == "sqlite" else "pg_url")
    engine = make_engine(url)
    try:
        _upgrade_to(url, "0001")
        ensure_default_project(engine)
        with Session(engine) as session:
            item_id = _item(session).id
            session.add_all([Adjudication(item_id=item_id, tags=["B", "O", "O", "O"], source="agreed"),
                             Adjudication(item_id=item_id, tags=["O", "B", "O", "O"], source="edited")])
            session.commit()
            session.add(Adjudication(item_id=item_id, tags=None, source="withdrawn"))
            with pytest.raises(IntegrityError):
                session.flush()
        upgrade(engine)
        with Session(engine) as session:
            session.add(Adjudication(item_id=item_id, tags=None, source="withdrawn"))
            session.commit()
            rows = session.execute(select(Adjudication.source, Adjudication.tags).order_by(Adjudication.id)).all()
        assert [tuple(r) for r in rows] == [("agreed", ["B", "O", "O", "O"]), ("edited", ["O", "B", "O", "O"]),
                                            ("withdrawn", None)]
        assert [i["name"] for i in inspect(engine).get_indexes("adjudications")] == ["ix_adjudications_item"]
    finally:
        engine.dispose()
