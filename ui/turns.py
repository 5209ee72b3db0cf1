"""Callbacks of one browser session that take turns: with fast reruns a new run starts while the stopped one
still finishes its callback (a save), and the later one must see what the earlier one stored (the version it
saved), never send the same expected version again."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import TypeVar

import streamlit as st

F = TypeVar("F", bound=Callable)


def one_at_a_time(lock_key: str) -> Callable[[F], F]:
    """A decorator: the callback runs holding this session's lock under ``lock_key`` (re-entrant)."""
    if lock_key not in st.session_state:
        st.session_state[lock_key] = threading.RLock()

    def decorate(callback: F) -> F:
        @functools.wraps(callback)
        def serialized(*args, **kwargs):
            with st.session_state[lock_key]:
                return callback(*args, **kwargs)

        return serialized  # type: ignore[return-value]

    return decorate
