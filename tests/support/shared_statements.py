"""One compiled-statement cache for every engine of one kind in a test process.

A test worker makes hundreds of engines, one per test database (and the app under AppTest and the commands run in
process make their own). SQLAlchemy caches each statement's compiled SQL per engine, keyed by the engine's dialect
object, so every test compiled each statement it ran again: a quarter of the database and page tests' CPU time
(181 of them: 74 CPU-s, 55 with one cache). The app itself makes one engine per process and is not changed.

Once an engine's dialect has connected (and so knows its server), later engines whose dialect was built the same
way (same class, driver and settings) take that dialect and its cache. An engine built any other way keeps its own.
"""

from __future__ import annotations

import inspect
from types import BuiltinFunctionType, FunctionType

from sqlalchemy import util
from sqlalchemy.engine import base

CACHE_SIZE = 5000  # statements; the product's 500 per engine is for one app, this serves a worker's whole run

_SIMPLE = (str, int, float, bool, type(None), tuple, FunctionType, BuiltinFunctionType)
_shared: dict[tuple, tuple[list, util.LRUCache]] = {}  # how a dialect was built -> (dialects of that build, cache)
_original_init = base.Engine.__init__


def _built_as(dialect, url) -> tuple:
    """What the dialect was built from: its class, the URL's driver and its own simple settings (JSON encoders,
    isolation level, paramstyle...), before it first connects."""
    settings = tuple(sorted((k, v if not callable(v) else id(v)) for k, v in vars(dialect).items()
                            if isinstance(v, _SIMPLE)))
    return (type(dialect), url.drivername, settings)


def _init(self, pool, dialect, url, logging_name=None, echo=None, query_cache_size=500, execution_options=None,
          hide_parameters=False) -> None:
    # Engine.__init__'s own parameters, spelled out: create_engine reads the names to sort its keyword arguments.
    _original_init(self, pool, dialect, url, logging_name=logging_name, echo=echo, query_cache_size=query_cache_size,
                   execution_options=execution_options, hide_parameters=hide_parameters)
    if self._compiled_cache is None:  # caching switched off for this engine: leave it so
        return
    try:
        dialects, cache = _shared.setdefault(_built_as(dialect, url), ([], util.LRUCache(CACHE_SIZE)))
    except TypeError:  # a setting that cannot be compared: not shared
        return
    self._compiled_cache = cache
    connected = next((d for d in dialects if d.server_version_info is not None), None)
    if connected is not None:
        self.dialect = connected
    else:  # none of its kind has connected yet: this one may be the one shared
        dialects.append(dialect)


def _parameters(function) -> list[tuple]:
    return [(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values()]


def install() -> None:
    if _parameters(_init) != _parameters(_original_init):
        raise RuntimeError(f"SQLAlchemy's Engine.__init__ is now {inspect.signature(_original_init)}: "
                           "tests/support/shared_statements.py must take the same parameters")
    base.Engine.__init__ = _init

