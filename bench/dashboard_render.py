"""Dashboard render timing for ``python -m bench.bench_agreement``: kept out of ``corpus/``, which never imports Streamlit."""

from __future__ import annotations

import os
import time
from pathlib import Path


def render_times(db_url: str) -> tuple[float, float, float]:
    """Dashboard render (AppTest, through the app's router as a browser gets there: the page links to the
    sentence view need its pages): the first run in a fresh process (imports, engine, schema check, login
    check), a run with nothing changed (warm caches), and a run right after a save (every data cache cold)."""
    from sqlalchemy import update
    from streamlit.testing.v1 import AppTest

    from db.auth import create_user, start_session
    from db.engine import make_engine
    from db.models import Translation

    app = Path(__file__).resolve().parents[1] / "app.py"
    os.environ["DATABASE_URL"] = db_url
    engine = make_engine(db_url)
    token = start_session(engine, create_user(engine, "bench-lead", {"lead"}, "bench-password"))
    at = AppTest.from_file(str(app), default_timeout=300)
    at.session_state["session_token"] = token
    at.switch_page("pages/dashboard.py")  # before the first run: the page is told by its file name

    def run() -> float:
        t0 = time.perf_counter()
        at.run()
        if at.exception:
            raise RuntimeError(f"dashboard raised: {at.exception[0].message}")
        if not [t for t in at.title if t.value == "Agreement dashboard"]:
            raise RuntimeError("the run did not render the dashboard")
        return time.perf_counter() - t0

    first = run()
    warm = run()
    with engine.begin() as conn:
        conn.execute(update(Translation).where(Translation.id == 1).values(text="नया अनुवाद", version=Translation.version + 1))
    cold = run()
    engine.dispose()
    return first, warm, cold
