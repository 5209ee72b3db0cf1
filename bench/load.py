"""`python -m bench.load`: simulated users saving translations and tags at once, then proof that none was lost.

Each simulated user is logged in (a session, checked on every save as in the app) and works in two
browser tabs on their own translation tasks (blind first; the aware task opens once the blind one is
submitted) and on tagging items they share with one colleague, staying on a task until they submit it
(now and then moving on to another). Every save goes through the functions
the Translate and Tag aspects pages call, ``db.translation.save_translation`` and
``db.tagging.save_annotation``, as an autosave or, now and then, a submit, and is handled as those
pages handle it: a save refused because someone saved first (``db.conflicts.SavedFirst``) makes the
tab show the stored version, and half the time the user keeps their own text over it knowingly (the
conflict panel's "keep mine"); a task or item the tab knows is submitted is read-only; a save the server
refuses because the task was submitted in the other tab is counted as refused.

Most saves go through the tab that saw the latest version; some go through the other, stale tab and
must be refused, never written over the newer save. Every save acknowledged to a user is checked
afterwards: its revision is stored with exactly the content saved, no revision exists that was not
acknowledged, and each record holds its last acknowledged content and status.

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
from sqlalchemy.orm import Session

from corpus.records import SentenceKey, SentenceRecord
from corpus.vocabulary import SAVE_ACTIONS, Phase, RevisionAction, Role, Status
from db.auth import start_session
from db.conflicts import SavedFirst
from db.engine import reader, transaction
from db.importing import insert_sentences
from db.models import (
    Annotation,
    AnnotationAssignment,
    Revision,
    Translation,
    TranslationAssignment,
    User,
    UserRole,
    utcnow,
)
from db.schema import default_project_id
from db.tagging import AnnotationState, freeze_item
from db.workflows import save_annotation
from db.translation import (
    Draft,
    InputRefused,
    SubmissionRefused,
    TaskView,
    save_translation,
)

LOAD_DOMAIN = "load"
SWITCH_SHARE = 0.05  # saves after which the user moves to another open task without submitting
SENTENCES = [
    "The staff was friendly and the pizza was great.",
    "Battery life is short but the screen is bright.",
    "We waited an hour for the soup.",
    "The keyboard feels cheap, the trackpad is fine.",
]
HINDI = ["स्टाफ़", "मिलनसार", "था", "और", "पिज़्ज़ा", "बढ़िया", "बैटरी", "स्क्रीन", "चमकदार", "सूप", "कीबोर्ड", "।"]


@dataclass(frozen=True)
class TranslationTask:
    assignment_id: int
    sentence_id: int
    phase: str


@dataclass(frozen=True)
class TaggingTask:
    item_id: int
    n_tokens: int


@dataclass(frozen=True)
class Seed:
    """What the simulated users work on."""

    users: list[int]
    tokens: dict[int, str]  # each user's login session
    # per user: their translation tasks, each sentence's blind task before its aware one
    translation_tasks: dict[int, list[TranslationTask]]
    # per user: the tagging items assigned to them (each shared with one colleague)
    tagging_tasks: dict[int, list[TaggingTask]]


@dataclass(frozen=True)
class Ack:
    """A save the user was told succeeded."""

    entity: str
    entity_id: int
    version: int
    content: str
    status: str


@dataclass
class Results:
    acks: list[Ack] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)
    conflicts: int = 0
    kept_mine: int = 0
    refused_submitted: int = 0
    submits: int = 0
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
    """Users (translator + annotator), each logged in, with ``tasks_per_user`` sentences to translate blind
    then aware, and ``2 x tasks_per_user`` tagging items (submitted translations by one more user, tokens
    frozen as when an annotator first opens them), each item assigned to two users."""
    with transaction(engine) as session:
        project_id = default_project_id(session)
        run = session.scalar(select(func.count()).select_from(User).where(User.username.like(f"{prefix}-%-u0")))
        tag = f"{prefix}-{run}"
        people = []
        for u in range(users + 1):  # the last one only writes the texts others tag
            user = User(username=f"{tag}-u{u}", display_name=f"Load user {u}",
                        roles=[UserRole(role=Role.TRANSLATOR), UserRole(role=Role.ANNOTATOR)])
            session.add(user)
            people.append(user)
        session.flush()
        # Sentences to translate, then as many others whose translations are tagged: a person who translates a
        # sentence never tags a colleague's translation of it (corpus.assignment.tagging_refusal).
        n = users * tasks_per_user
        records = [
            SentenceRecord(SentenceKey(LOAD_DOMAIN, "train", f"{tag}-{i}"), SENTENCES[i % len(SENTENCES)])
            for i in range(2 * n)
        ]
        by_key = insert_sentences(session, project_id, records)
        sentence_ids = [by_key[r.key] for r in records[:n]]
        tagged_ids = [by_key[r.key] for r in records[n:]]
        user_ids = [p.id for p in people[:-1]]
        writer = people[-1]
        assignments: dict[int, list[TranslationAssignment]] = {}
        for u, uid in enumerate(user_ids):
            mine = sentence_ids[u * tasks_per_user:(u + 1) * tasks_per_user]
            assignments[uid] = [TranslationAssignment(user_id=uid, sentence_id=sid, phase=phase, status=Status.ASSIGNED)
                                for sid in mine for phase in (Phase.BLIND, Phase.AWARE)]
            session.add_all(assignments[uid])
        written = []
        for i, sid in enumerate(tagged_ids):
            text = " ".join(HINDI[(i + k) % len(HINDI)] for k in range(5 + i % 4))
            written.append(Translation(sentence_id=sid, phase=Phase.AWARE, translator_id=writer.id, text=text,
                                       status=Status.SUBMITTED, submitted_at=utcnow()))
        session.add_all(written)
        session.flush()
        items = [freeze_item(session, tr) for tr in written]
        tagging: dict[int, list[TaggingTask]] = {uid: [] for uid in user_ids}
        for j, (tr, item) in enumerate(zip(written, items)):
            owners = {user_ids[j // tasks_per_user], user_ids[(j // tasks_per_user + 1) % len(user_ids)]}
            for uid in owners:
                session.add(AnnotationAssignment(user_id=uid, translation_id=tr.id, status=Status.ASSIGNED))
                tagging[uid].append(TaggingTask(item.id, len(item.tokens)))
        session.flush()
        translation_tasks = {uid: [TranslationTask(a.id, a.sentence_id, a.phase) for a in rows]
                             for uid, rows in assignments.items()}
    tokens = {uid: start_session(engine, uid) for uid in user_ids}
    return Seed(user_ids, tokens, translation_tasks, tagging)


# ------------------------------------------------------------------ the pages' two saves


def save_text(
    engine: Engine, user_id: int, task: TranslationTask, text: str, expected_version: int,
    action: str = RevisionAction.AUTOSAVE, session_token: str | None = None,
) -> TaskView:
    """What the Translate page's save does with the editor's text (version 0: nothing saved yet)."""
    return save_translation(engine, user_id, task.assignment_id, Draft(text), expected_version=expected_version,
                            action=action, session_token=session_token)


def save_tags(
    engine: Engine, user_id: int, task: TaggingTask, tags: list[str], expected_version: int | None,
    action: str = RevisionAction.AUTOSAVE, session_token: str | None = None,
) -> AnnotationState:
    """What the Tag aspects page's save does with the span editor's tags (version None: nothing saved yet);
    all-O tags are saved as "No aspects in this sentence", so they may be submitted."""
    return save_annotation(engine, user_id, task.item_id, tags, all(t == "O" for t in tags), expected_version,
                           action, session_token=session_token)


def random_tags(rng: random.Random, n: int) -> list[str]:
    tags, previous = [], "O"
    for _ in range(n):
        choice = rng.choice(["O", "O", "B", "I"] if previous != "O" else ["O", "O", "B"])
        tags.append(choice)
        previous = choice
    return tags


def likely_tags(rng: random.Random, task: TaggingTask) -> list[str]:
    """Half the time the item's one right answer (so two annotators often agree and gold is decided
    while others save), else random valid tags."""
    if rng.random() < 0.5:
        return ["B" if i == task.item_id % task.n_tokens else "O" for i in range(task.n_tokens)]
    return random_tags(rng, task.n_tokens)


# ------------------------------------------------------------------ simulated users


@dataclass
class Seen:
    """What a tab shows of one record: the version it loaded, and whether it is submitted (read-only)."""

    version: int | None
    submitted: bool = False


def _seen(state: TaskView | AnnotationState | None, translation: bool) -> Seen:
    """What a tab shows after a save or a conflict (a task's status is its assignment's)."""
    if state is None:
        return Seen(0 if translation else None)
    return Seen(state.version, state.status == Status.SUBMITTED)


class SimulatedUser:
    """One simulated user: two tabs, the tasks still open, what each tab has seen. The stale tab now
    and then still shows a task or item the user has submitted since (in the other tab)."""

    def __init__(self, engine: Engine, seed: Seed, user_id: int, results: Results, rng: random.Random,
                 stale_tab_share: float, submit_share: float):
        self.engine, self.user_id, self.results, self.rng = engine, user_id, results, rng
        self.token = seed.tokens[user_id]
        self.stale_tab_share, self.submit_share = stale_tab_share, submit_share
        self.tabs: list[dict[tuple, Seen]] = [{}, {}]
        tasks = seed.translation_tasks[user_id]
        self.open_translations = [t for t in tasks if t.phase == Phase.BLIND]
        self.aware_of = {t.sentence_id: t for t in tasks if t.phase == Phase.AWARE}
        self.open_items = list(seed.tagging_tasks[user_id])
        self.current: dict[type, TranslationTask | TaggingTask] = {}
        self.recent: list[TranslationTask | TaggingTask] = []  # submitted lately
        self.n = 0

    def step(self) -> bool:
        """One save from one tab; False once every task and item is submitted."""
        if not self.open_translations and not self.open_items:
            return False
        tab_no = 1 if self.rng.random() < self.stale_tab_share else 0
        tab = self.tabs[tab_no]
        if tab_no == 1 and self.recent and self.rng.random() < 0.3:
            task = self.rng.choice(self.recent)
        else:
            translating = bool(self.open_translations) and (not self.open_items or self.rng.random() < 0.6)
            task = self._current(self.open_translations if translating else self.open_items)
        translating = isinstance(task, TranslationTask)
        key = ("translation", task.assignment_id) if translating else ("annotation", task.item_id)
        seen = tab.get(key) or Seen(0 if translating else None)
        if seen.submitted:
            return True  # the page shows it read-only: nothing to save
        action = RevisionAction.SUBMIT if self.rng.random() < self.submit_share else RevisionAction.AUTOSAVE
        self.n += 1
        if translating:
            content = f"उपयोगकर्ता {self.user_id} सहेजना {self.n} {self.rng.choice(HINDI)}"
            self._save(key, tab, tab_no, task, content, seen.version, action)
        else:
            self._save(key, tab, tab_no, task, likely_tags(self.rng, task), seen.version, action)
        return True

    def _current(self, open_tasks: list):
        """The task or item the user is on: kept until submitted, now and then left for another (a skip)."""
        kind = TranslationTask if open_tasks is self.open_translations else TaggingTask
        task = self.current.get(kind)
        if task not in open_tasks or self.rng.random() < SWITCH_SHARE:
            task = self.current[kind] = self.rng.choice(open_tasks)
        return task

    def _call(self, task, content, version, action):
        if isinstance(task, TranslationTask):
            view = save_text(self.engine, self.user_id, task, content, version, action, self.token)
            return view, Ack("translation", view.translation_id, view.version, view.text, view.translation_status)
        state = save_tags(self.engine, self.user_id, task, content, version, action, self.token)
        return state, Ack("annotation", state.annotation_id, state.version, " ".join(state.tags), state.status)

    def _save(self, key, tab, tab_no, task, content, version, action) -> None:
        translating = isinstance(task, TranslationTask)
        started = time.perf_counter()
        try:
            state, ack = self._call(task, content, version, action)
        except SavedFirst as conflict:  # the page's conflict panel: show theirs, sometimes keep mine
            self._timed(started)
            theirs = _seen(conflict.theirs, translating)
            tab[key] = theirs
            with self.results.lock:
                self.results.conflicts += 1
            if not theirs.submitted and self.rng.random() < 0.5:
                with self.results.lock:
                    self.results.kept_mine += 1
                self._save(key, tab, tab_no, task, content, theirs.version, RevisionAction.SAVE)
        except InputRefused as exc:  # the project is busy (or the input unstorable): the page keeps the text
            self._fail(exc)
        except SubmissionRefused:  # submitted in the other tab meanwhile: the page says so
            self._timed(started)
            with self.results.lock:
                self.results.refused_submitted += 1
            tab[key] = Seen(tab[key].version if key in tab else None, True)
        except Exception as exc:  # noqa: BLE001 - counted and reported, the run goes on
            self._fail(exc)
        else:
            self._timed(started)
            with self.results.lock:
                self.results.acks.append(ack)
                self.results.submits += action == RevisionAction.SUBMIT
            tab[key] = _seen(state, translating)
            if self.rng.random() < 0.5:  # the other tab refreshes now and then
                self.tabs[1 - tab_no][key] = tab[key]
            if tab[key].submitted:
                self._submitted(task)

    def _submitted(self, task) -> None:
        if task not in self.recent:
            self.recent = [*self.recent[-2:], task]
        if isinstance(task, TranslationTask):
            if task in self.open_translations:
                self.open_translations.remove(task)
                aware = self.aware_of.get(task.sentence_id) if task.phase == Phase.BLIND else None
                if aware is not None:
                    self.open_translations.append(aware)  # the aware task opens
        elif task in self.open_items:
            self.open_items.remove(task)

    def _timed(self, started: float) -> None:
        with self.results.lock:
            self.results.latencies_ms.append((time.perf_counter() - started) * 1000)

    def _fail(self, exc: Exception) -> None:
        with self.results.lock:
            self.results.failures[f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}"] += 1


def simulate_user(
    engine: Engine, seed: Seed, user_id: int, stop_at: float, results: Results, rng: random.Random,
    think_ms: float, stale_tab_share: float, submit_share: float, min_saves: int = 0,
) -> None:
    user = SimulatedUser(engine, seed, user_id, results, rng, stale_tab_share, submit_share)
    while (time.monotonic() < stop_at or results.saves < min_saves) and user.step():
        if think_ms:
            time.sleep(rng.uniform(0, 2 * think_ms) / 1000)


def run_load(
    engine: Engine, users: int = 20, seconds: float = 60, think_ms: float = 50, stale_tab_share: float = 0.1,
    submit_share: float = 0.03, tasks_per_user: int = 40, rng_seed: int = 7, min_saves: int = 0,
) -> tuple[Results, Seed]:
    """``seconds`` of load, and longer until ``min_saves`` saves were made (a test's workload, not its speed)."""
    seed = seed_load_data(engine, users, tasks_per_user)
    results = Results()
    stop_at = time.monotonic() + seconds
    threads = [
        threading.Thread(
            target=simulate_user,
            args=(engine, seed, uid, stop_at, results, random.Random(rng_seed * 1000 + i), think_ms, stale_tab_share,
                  submit_share, min_saves),
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


def _content(entity: str, payload: dict) -> str:
    return payload.get("text") if entity == "translation" else " ".join(payload.get("tags", []))


def verify(engine: Engine, results: Results, seed: Seed) -> list[str]:
    """Problems found: acknowledged saves missing or altered, unacknowledged revisions, stale final rows."""
    problems: list[str] = []
    with Session(reader(engine)) as session:
        stored: dict[tuple[str, int, int], list[str]] = {}
        for rev in session.scalars(select(Revision).where(
            Revision.entity.in_(("translation", "annotation")), Revision.action.in_(SAVE_ACTIONS),
            Revision.author_id.in_(seed.users),
        )):
            stored.setdefault((rev.entity, rev.entity_id, rev.version), []).append(_content(rev.entity, rev.payload))
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
        for key in sorted(stored.keys() - acked):
            problems.append(f"unacknowledged revision stored: {key}")
        for (entity, entity_id), ack in latest.items():
            row = session.get(Translation if entity == "translation" else Annotation, entity_id)
            content = row.text if entity == "translation" else " ".join(row.tags)
            if (row.version, content, row.status) != (ack.version, ack.content, ack.status):
                problems.append(f"{entity} {entity_id} holds v{row.version} {row.status} {content!r}, "
                                f"last acknowledged v{ack.version} {ack.status}")
    return problems


def report(results: Results, problems: list[str], seconds: float, dialect: str, users: int, extra: str = "") -> str:
    lat = results.latencies_ms
    lines = [
        f"database: {dialect}; {users} users for {seconds:g} s{extra}",
        f"saves: {results.saves} ({results.saves / seconds:.1f}/s), of which submits: {results.submits}",
        f"conflicts (stale tab refused): {results.conflicts}; kept mine after a conflict: {results.kept_mine}",
        f"refused (submitted in the other tab): {results.refused_submitted}",
        f"failures: {sum(results.failures.values())}",
        *[f"  {count} x {message}" for message, count in results.failures.most_common(5)],
        (f"latency ms: p50 {_percentile(lat, 50):.1f}, p95 {_percentile(lat, 95):.1f}, "
         f"p99 {_percentile(lat, 99):.1f}, max {max(lat) if lat else float('nan'):.1f}"),
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
    parser.add_argument("--submit-share", type=float, default=0.03, help="share of saves that submit (default 0.03)")
    parser.add_argument("--tasks", type=int, default=40,
                        help="sentences each user translates (both phases) and half the items they tag (default 40)")
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
            results, seed = run_load(engine, args.users, args.seconds, args.think_ms, args.stale_share,
                                     args.submit_share, args.tasks)
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
