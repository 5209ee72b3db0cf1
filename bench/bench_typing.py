"""Time per typing look-up through the JSON route: ``python -m bench.bench_typing``.

What the translate editor waits for when a word's candidates are not cached yet: one
``GET /api/suggest`` (session check, the project's learned forms and words, the model), measured
in-process through the Starlette routes of ``ui/api_routes.py`` on a throwaway SQLite database with a
project of ``--translations`` Hindi translations. Prints the first call (it loads the model), then
mean, median and p99 over the Dakshina-style words below; network time is not included. ``--context`` sends each
word with the one before it as ``ctx`` (the first candidate the route gave it), as the editor does in a sentence.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

WORDS = ("mera keyboard bahut achha hai khana thanda tha lekin staff ne muskurakar maafi maangi "
         "screen ki quality shandaar hai battery jaldi khatam hoti hai price ke hisaab se theek").split()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_typing", description=__doc__.splitlines()[0])
    parser.add_argument("--translations", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--context", action="store_true", help="send the previous word's first candidate as ctx")
    args = parser.parse_args(argv)

    from starlette.applications import Starlette
    from starlette.testclient import TestClient

    from corpus.vocabulary import Phase, Role
    from db.access import hash_password
    from db.auth import start_session
    from db.engine import make_engine, transaction
    from db.models import SourceSentence, Translation, User, UserRole
    from db.schema import default_project_id, upgrade

    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        os.environ["DATABASE_URL"] = url
        engine = make_engine(url)
        upgrade(engine)
        with transaction(engine) as session:
            user = User(username="asha", display_name="asha", password_hash=hash_password("x" * 12),
                        roles=[UserRole(role=Role.TRANSLATOR)])
            session.add(user)
            session.flush()
            pid = default_project_id(session)
            for n in range(args.translations):
                s = SourceSentence(project_id=pid, domain="laptop", split="train", sentence_id=str(n), text=f"s{n}")
                session.add(s)
                session.flush()
                session.add(Translation(sentence_id=s.id, phase=Phase.BLIND, translator_id=user.id,
                                        text=f"मेरा कीबोर्ड बहुत अच्छा है और बैटरी {n} घंटे चलती है"))
            uid = user.id
        token = start_session(engine, uid)

        from ui import api_routes as _api

        _api._engine_for.cache_clear()
        ration = getattr(_api, "_ration", None)
        if ration is not None and hasattr(ration, "rate"):
            ration.rate = 1e9  # one look-up's time is measured here, not the per-session rate limit
        with TestClient(Starlette(routes=_api.ROUTES)) as client:
            before: list[str] = []

            def look(word: str) -> float:
                params = {"q": word} | ({"ctx": before[-1]} if args.context and before else {})
                t0 = time.perf_counter()
                r = client.get("/api/suggest", params=params, headers={"X-Corpus-Session": token})
                elapsed = time.perf_counter() - t0
                assert r.status_code == 200, r.status_code
                before[:] = r.json()["candidates"][:1]
                return elapsed

            first = look("namaste")
            times = [look(w) for _ in range(args.rounds) for w in WORDS]
        engine.dispose()

    ms = sorted(t * 1000 for t in times)
    p99 = ms[min(len(ms) - 1, int(round(0.99 * (len(ms) - 1))))]
    print(f"typing look-up through GET /api/suggest ({args.translations} translations in the project, "
          f"{len(ms)} look-ups{', each with the word before as ctx' if args.context else ''})")
    print(f"  first call (loads the model): {first * 1000:8.1f} ms")
    print(f"  mean {statistics.fmean(ms):6.1f} ms   median {statistics.median(ms):6.1f} ms   p99 {p99:6.1f} ms")


if __name__ == "__main__":
    main()
