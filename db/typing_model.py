"""The phonetic typing model in this process: loaded once, asked one call at a time.

The model (``corpus.transliterate``, with the word bigrams of ``corpus.word_context``) is read from disk on its
first call, seconds on a busy machine. ``db.typing.suggest_for`` ranks through ``suggest``; ``warm_model``
loads it ahead (the Translate page's route, and ``db.projection`` in the background, whose loanword rule
needs it). A reader of shipped data only, apart from the typing service, so a reader may load it too.
"""

from __future__ import annotations

import threading

from corpus import transliterate, word_context

# One model call at a time: the model is pure Python (the GIL runs one anyway), and the first call loads
# it; concurrent first calls from the route's worker threads would each load their own copy.
_model_lock = threading.Lock()


def suggest(roman: str, k: int, **options) -> list[str]:
    """``corpus.transliterate.suggest`` under the model's lock."""
    with _model_lock:
        return transliterate.suggest(roman, k, **options)


def warm_model() -> None:
    """Load the model and the word bigrams now (the first call reads them from disk: seconds on a busy machine)."""
    with _model_lock:
        transliterate.suggest("namaste", 1)
        word_context.load_context_model()
