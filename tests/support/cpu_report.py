"""A measuring plugin, loaded by hand (``-p tests.support.cpu_report``): the CPU seconds each test cost its
worker (setup, call and teardown, its own process and the children it waited for), so the costly files of a
directory can be found and compared old against new in the same minutes. ``CPU_REPORT=path`` names a
tab-separated file each worker appends ``nodeid, cpu_s`` lines to; nothing is asserted."""

from __future__ import annotations

import os
import resource

import pytest


def _cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    started = _cpu_seconds()
    yield
    spent = _cpu_seconds() - started
    target = os.environ.get("CPU_REPORT")
    if target:
        with open(target, "a", encoding="utf-8") as out:
            out.write(f"{item.nodeid}\t{spent:.3f}\n")


def pytest_sessionfinish(session):
    target = os.environ.get("CPU_REPORT")
    if target:
        with open(target, "a", encoding="utf-8") as out:
            out.write(f"<process {os.getpid()} total>\t{_cpu_seconds():.3f}\n")
