"""`python -m bench.load`: simulated users saving translations and tags at once, then proof that none was lost.

Each simulated user works in two browser tabs on their own translations and on tags of other people's
translations. Most saves go through the tab that saw the latest version; some go through the other,
stale tab and must be refused as an edit conflict, never written over the newer save. Every save
acknowledged to a user is checked afterwards: its revision is stored with exactly the content saved,
no revision exists that was not acknowledged, and each record holds its last acknowledged content.

With the default 50 ms mean think time the 20 users make ~250-330 saves/s, far more than a lab of a
dozen people autosaving every few seconds; ``--think-ms`` sets a gentler pace.

Without ``--db`` a temporary SQLite file is created and removed; with ``--db`` the database must be
migrated or empty, and the load users and sentences are added to it (domain ``load``).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session, lazyload

from corpus.records import SentenceKey, SentenceRecord
from corpus.tokens import TOKENIZER_SIGNATURE, tokenize
from db.models import Annotation, Revision, TaggingItem, Translation, User, UserRole, utcnow
from db.saving import EditConflict, create_with_revision, run_transaction, save_with_version
from corpus.vocabulary import Status

LOAD_DOMAIN = "load"
LOAD_ACTION = "autosave"
SENTENCES = [
    "The staff was friendly and the pizza was great.",
    "Battery life is short but the screen is bright.",
    "We waited an hour for the soup.",
    "The keyboard feels cheap, the trackpad is fine.",
]
HINDI = ["स्टाफ़", "मिलनसार", "था", "और", "पिज़्ज़ा", "बढ़िया", "बैटरी", "स्क्रीन", "चमकदार", "सूप", "कीबोर्ड", "।"]


@dataclass(frozen=True)
class Seed:
    """Row ids the simulated users work on."""

    users: list[int]
    # per user: (sentence row id, phase) tasks they translate
    translation_tasks: dict[int, list[tuple[int, str]]]
    # per user: tagging item ids they tag, with their token counts
    tagging_tasks: dict[int, list[tuple[int, int]]]


@dataclass(frozen=True)
class Ack:
    """A save the user was told succeeded."""

    entity: str
    entity_id: int
    version: int
    content: str


@dataclass
class Results:
    acks: list[Ack] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)
    conflicts: int = 0
    failures: Counter = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def saves(self) -> int:
        return len(self.acks)


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


# ------------------------------------------------------------------ seeding


def seed_load_data(engine: Engine, users: int, tasks_per_user: int = 6, prefix: str = "load") -> Seed:
    """Users (translator + annotator), sentences, and submitted translations with frozen tagging items."""
    from db.importing import insert_sentences
    from db.schema import default_project_id

    with Session(engine, expire_on_commit=False) as session, session.begin():
        project_id = default_project_id(session)
        run = session.scalar(select(func.count()).select_from(User).where(User.username.like(f"{prefix}-%-u0")))
        tag = f"{prefix}-{run}"
        people = []
        for u in range(users + 1):  # the last one only writes the texts others tag
            user = User(username=f"{tag}-u{u}", display_name=f"Load user {u}",
                        roles=[UserRole(role="translator"), UserRole(role="annotator")])
            session.add(user)
            people.append(user)
        session.flush()
        n_sentences = users * tasks_per_user
        records = [
            SentenceRecord(SentenceKey(LOAD_DOMAIN, "train", f"{tag}-{i}"), SENTENCES[i % len(SENTENCES)])
            for i in range(n_sentences)
        ]
        by_key = insert_sentences(session, project_id, records)
        sentence_ids = [by_key[r.key] for r in records]
        writer = people[-1]
        items = []
        for i, sid in enumerate(sentence_ids):
            text = " ".join(HINDI[(i + k) % len(HINDI)] for k in range(5 + i % 4))
            tr = Translation(sentence_id=sid, phase="aware", translator_id=writer.id, text=text, status=Status.SUBMITTED,
                             submitted_at=utcnow())
            session.add(tr)
            items.append((tr, text))
        session.flush()
        tagging_rows = []
        for tr, text in items:
            tokens = tokenize(text)
            tagging_rows.append((TaggingItem(translation_id=tr.id, tokens=tokens, tokenizer=TOKENIZER_SIGNATURE,
                                             translation_version=tr.version), len(tokens)))
        session.add_all([row for row, _ in tagging_rows])
        session.flush()
        user_ids = [p.id for p in people[:-1]]
        translation_tasks = {}
        tagging_tasks = {}
        for u, uid in enumerate(user_ids):
            mine = sentence_ids[u * tasks_per_user:(u + 1) * tasks_per_user]
            translation_tasks[uid] = [(sid, phase) for sid in mine for phase in ("blind", "aware")]
            others = [tagging_rows[(u * tasks_per_user + tasks_per_user + k) % len(tagging_rows)] for k in range(tasks_per_user)]
            tagging_tasks[uid] = [(item.id, n) for item, n in others]
        return Seed(user_ids, translation_tasks, tagging_tasks)


# ------------------------------------------------------------------ the two kinds of save


def save_translation_text(
    engine: Engine, user_id: int, sentence_row_id: int, phase: str, text: str, expected_version: int | None,
    action: str = LOAD_ACTION,
) -> tuple[int, int]:
    """A translator's autosave: create on first save, else a version-checked update. Returns (row id, version)."""

    def find(session: Session) -> Translation | None:
        return session.scalars(select(Translation).options(lazyload("*")).where(
            Translation.sentence_id == sentence_row_id, Translation.phase == phase,
            Translation.translator_id == user_id)).first()

    def work(session: Session) -> tuple[int, int]:
        row = find(session)
        if row is None:
            if expected_version is not None:
                raise EditConflict("translation", None, expected_version, None, {"text": text}, None)
            row = Translation(sentence_id=sentence_row_id, phase=phase, translator_id=user_id, text=text,
                              status=Status.DRAFT, updated_at=utcnow())
            version = create_with_revision(session, row, author_id=user_id, action=action, existing=find)
            return row.id, version
        version = save_with_version(session, row, expected_version, {"text": text, "updated_at": utcnow()},
                                    author_id=user_id, action=action)
        return row.id, version

    return run_transaction(engine, work)


def save_tags(
    engine: Engine, user_id: int, item_id: int, tags: list[str], expected_version: int | None,
    action: str = LOAD_ACTION,
) -> tuple[int, int]:
    """An annotator's autosave of BIO tags over a frozen item. Returns (row id, version)."""

    def find(session: Session) -> Annotation | None:
        return session.scalars(select(Annotation).options(lazyload("*")).where(
            Annotation.item_id == item_id, Annotation.annotator_id == user_id)).first()

    def work(session: Session) -> tuple[int, int]:
        row = find(session)
        if row is None:
            if expected_version is not None:
                raise EditConflict("annotation", None, expected_version, None, {"tags": tags}, None)
            row = Annotation(item_id=item_id, annotator_id=user_id, tags=tags, status=Status.DRAFT, updated_at=utcnow())
            version = create_with_revision(session, row, author_id=user_id, action=action, existing=find)
            return row.id, version
        version = save_with_version(session, row, expected_version, {"tags": tags, "updated_at": utcnow()},
                                    author_id=user_id, action=action)
        return row.id, version

    return run_transaction(engine, work)


def random_tags(rng: random.Random, n: int) -> list[str]:
    tags, previous = [], "O"
    for _ in range(n):
        choice = rng.choice(["O", "O", "B", "I"] if previous != "O" else ["O", "O", "B"])
        tags.append(choice)
        previous = choice
    return tags


# ------------------------------------------------------------------ simulated users


def simulate_user(
    engine: Engine, seed: Seed, user_id: int, stop_at: float, results: Results, rng: random.Random,
    think_ms: float, stale_tab_share: float,
) -> None:
    """Two tabs; each knows the versions it last saw. A save from a stale tab must come back as a conflict."""
    tabs: list[dict[tuple, int | None]] = [{}, {}]
    n = 0
    while time.monotonic() < stop_at:
        tab = tabs[1] if rng.random() < stale_tab_share else tabs[0]
        if rng.random() < 0.6:
            sid, phase = rng.choice(seed.translation_tasks[user_id])
            key = ("translation", sid, phase)
            content = f"उपयोगकर्ता {user_id} सहेजना {n} {rng.choice(HINDI)}"
            call = lambda: save_translation_text(engine, user_id, sid, phase, content, tab.get(key))  # noqa: E731
        else:
            item_id, n_tokens = rng.choice(seed.tagging_tasks[user_id])
            key = ("annotation", item_id)
            tags = random_tags(rng, n_tokens)
            content = " ".join(tags)
            call = lambda: save_tags(engine, user_id, item_id, tags, tab.get(key))  # noqa: E731
        n += 1
        started = time.perf_counter()
        try:
            row_id, version = call()
        except EditConflict as conflict:
            elapsed = (time.perf_counter() - started) * 1000
            with results.lock:
                results.conflicts += 1
                results.latencies_ms.append(elapsed)
            tab[key] = conflict.current_version  # the tab reloads and shows theirs
        except Exception as exc:  # noqa: BLE001 - counted and reported, the run goes on
            with results.lock:
                results.failures[f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"] += 1
        else:
            elapsed = (time.perf_counter() - started) * 1000
            with results.lock:
                results.acks.append(Ack(key[0], row_id, version, content))
                results.latencies_ms.append(elapsed)
            tab[key] = version
            if rng.random() < 0.5:  # the other tab refreshes now and then
                tabs[1 if tab is tabs[0] else 0][key] = version
        if think_ms:
            time.sleep(rng.uniform(0, 2 * think_ms) / 1000)


def run_load(
    engine: Engine, users: int = 20, seconds: float = 60, think_ms: float = 50, stale_tab_share: float = 0.1,
    rng_seed: int = 7,
) -> tuple[Results, Seed]:
    seed = seed_load_data(engine, users)
    results = Results()
    stop_at = time.monotonic() + seconds
    threads = [
        threading.Thread(
            target=simulate_user,
            args=(engine, seed, uid, stop_at, results, random.Random(rng_seed * 1000 + i), think_ms, stale_tab_share),
            name=f"user-{i}",
        )
        for i, uid in enumerate(seed.users)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results, seed


# ------------------------------------------------------------------ verification


def verify(engine: Engine, results: Results, seed: Seed) -> list[str]:
    """Problems found: acknowledged saves missing or altered, unacknowledged revisions, stale final rows."""
    problems: list[str] = []
    users = set(seed.users)
    with Session(engine) as session:
        stored: dict[tuple[str, int, int], list[str]] = {}
        for rev in session.scalars(
            select(Revision).where(Revision.action == LOAD_ACTION, Revision.author_id.in_(users))
        ):
            content = rev.payload.get("text") if rev.entity == "translation" else " ".join(rev.payload.get("tags", []))
            stored.setdefault((rev.entity, rev.entity_id, rev.version), []).append(content)
        latest: dict[tuple[str, int], Ack] = {}
        for ack in results.acks:
            got = stored.get((ack.entity, ack.entity_id, ack.version))
            if not got:
                problems.append(f"lost: {ack.entity} {ack.entity_id} version {ack.version}")
            elif got != [ack.content]:
                problems.append(f"altered or duplicated: {ack.entity} {ack.entity_id} v{ack.version}: {got!r}")
            current = latest.get((ack.entity, ack.entity_id))
            if current is None or ack.version > current.version:
                latest[(ack.entity, ack.entity_id)] = ack
        acked = {(a.entity, a.entity_id, a.version) for a in results.acks}
        for key in stored.keys() - acked:
            problems.append(f"unacknowledged revision stored: {key}")
        for (entity, entity_id), ack in latest.items():
            row = session.get(Translation if entity == "translation" else Annotation, entity_id)
            content = row.text if entity == "translation" else " ".join(row.tags)
            if row.version != ack.version or content != ack.content:
                problems.append(f"{entity} {entity_id} holds v{row.version} {content!r}, last acknowledged v{ack.version}")
    return problems


def report(results: Results, problems: list[str], seconds: float, dialect: str, users: int, extra: str = "") -> str:
    lat = results.latencies_ms
    lines = [
        f"database: {dialect}; {users} users for {seconds:g} s{extra}",
        f"saves: {results.saves} ({results.saves / seconds:.1f}/s)",
        f"conflicts (stale tab refused): {results.conflicts}",
        f"failures: {sum(results.failures.values())}",
        *[f"  {count} x {message}" for message, count in results.failures.most_common(5)],
        f"latency ms: p50 {_percentile(lat, 50):.1f}, p95 {_percentile(lat, 95):.1f}, "
        f"p99 {_percentile(lat, 99):.1f}, max {max(lat) if lat else float('nan'):.1f}",
        f"lost: {sum(1 for p in problems if p.startswith('lost'))}; verification problems: {len(problems)}",
        *[f"  {p}" for p in problems[:10]],
    ]
    return "\n".join(lines)


def load_engine(url: str, pool_size: int | None = None) -> Engine:
    """The app's engine; on PostgreSQL optionally with a pool big enough for every user at once
    (SQLAlchemy's default keeps 5 and closes the overflow on return, so 20 users keep reconnecting)."""
    from sqlalchemy import create_engine

    from db.engine import make_engine, normalize_url

    url = normalize_url(url)
    if pool_size and url.startswith("postgresql"):
        return create_engine(url, pool_pre_ping=True, pool_size=pool_size, max_overflow=10)
    return make_engine(url)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="database URL (default: a temporary SQLite file)")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--think-ms", type=float, default=50,
                        help="mean pause between one user's saves (uniform 0..2x; default 50)")
    parser.add_argument("--stale-share", type=float, default=0.1, help="share of saves sent from the stale tab")
    parser.add_argument("--pool-size", type=int,
                        help="PostgreSQL only: connection pool size (default: the app's engine as db.engine makes it)")
    parser.add_argument("--p95-goal-ms", type=float, help="exit 1 if p95 latency exceeds this")
    args = parser.parse_args(argv)

    from db.schema import upgrade

    with tempfile.TemporaryDirectory(prefix="corpus-load-") as tmp:
        url = args.db or f"sqlite:///{Path(tmp) / 'load.db'}"
        engine = load_engine(url, args.pool_size)
        try:
            upgrade(engine)
            results, seed = run_load(engine, args.users, args.seconds, args.think_ms, args.stale_share)
            problems = verify(engine, results, seed)
            pool = engine.pool.size() if hasattr(engine.pool, "size") else None
            extra = f", think {args.think_ms:g} ms, pool {pool}"
            print(report(results, problems, args.seconds, engine.dialect.name, args.users, extra))
        finally:
            engine.dispose()
    failed = bool(problems) or results.saves == 0 or sum(results.failures.values()) > 0
    if args.p95_goal_ms is not None and _percentile(results.latencies_ms, 95) > args.p95_goal_ms:
        print(f"p95 latency above the goal of {args.p95_goal_ms:g} ms", file=sys.stderr)
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
