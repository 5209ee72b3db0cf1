"""Smoke test of `python -m bench.load`: a short run saves through the pages' save functions, reports latency,
and verifies nothing was lost."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


USERS = 4


def _run(*args: str, seconds: int = 1) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bench.load", "--seconds", str(seconds), "--users", str(USERS), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)


def _figures(out: str) -> dict[str, float]:
    saves = int(re.search(r"^saves: (\d+)", out, re.M).group(1))
    failures = int(re.search(r"^failures: (\d+)", out, re.M).group(1))
    lost = int(re.search(r"^lost: (\d+)", out, re.M).group(1))
    p50, p95 = map(float, re.search(r"p50 ([\d.]+), p95 ([\d.]+)", out).groups())
    conflicts = int(re.search(r"^conflicts \(stale tab refused\): (\d+)", out, re.M).group(1))
    submits = int(re.search(r"of which submits: (\d+)", out).group(1))
    return {"saves": saves, "failures": failures, "lost": lost, "p50": p50, "p95": p95, "conflicts": conflicts,
            "submits": submits}


def test_load_script_on_a_temporary_sqlite_file_loses_nothing():
    result = _run("--think-ms", "20", "--stale-share", "0.3", "--submit-share", "0.1", seconds=3)
    assert result.returncode == 0, result.stdout + result.stderr
    figures = _figures(result.stdout)
    assert "database: sqlite" in result.stdout
    assert figures["saves"] >= USERS  # every user saved; how many fit in 3 s is the benchmark's business
    assert figures["conflicts"] > 0  # stale tabs were refused, not written over newer saves
    assert figures["submits"] > 0
    assert figures["failures"] == 0 and figures["lost"] == 0
    assert "verification problems: 0" in result.stdout
    assert 0 < figures["p50"] <= figures["p95"]


def test_load_script_against_postgresql_loses_nothing(pg_url):
    result = _run("--db", pg_url)
    assert result.returncode == 0, result.stdout + result.stderr
    figures = _figures(result.stdout)
    assert "database: postgresql" in result.stdout
    assert figures["saves"] >= USERS and figures["lost"] == 0 and figures["failures"] == 0


def test_load_script_fails_when_the_latency_goal_is_missed():
    result = _run("--p95-goal-ms", "0.001")
    assert result.returncode == 1
    assert "above the goal" in result.stderr


@pytest.mark.parametrize("flag", ["--help"])
def test_load_script_documents_its_flags(flag, capsys):
    from bench.load import main  # the script's own entry point, in this process (the runs above are processes)

    with pytest.raises(SystemExit) as done:
        main([flag])
    assert done.value.code == 0
    out = capsys.readouterr().out
    for option in ("--seconds", "--db", "--users", "--think-ms", "--submit-share", "--tasks"):
        assert option in out
