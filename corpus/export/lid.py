"""Token language IDs (LinCE labels) for the ``lince`` format and the card: the project's ``corpus.codemix``.

Named entities (``ne``, guideline 1) are the ones known: keep-Roman glossary terms, and Roman words
the English source writes capitalised inside the sentence (proper nouns kept in Roman script).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from functools import lru_cache

from corpus.codemix import CMI_SIGNATURE, LANG_TAGS, cmi, tag_tokens, token_language

LID_LABELS = LANG_TAGS
SOURCE = f"corpus.codemix ({CMI_SIGNATURE})"

__all__ = ["LID_LABELS", "SOURCE", "cmi", "sentence_lid", "source_proper_nouns"]


def source_proper_nouns(en_tokens: Sequence[str]) -> list[str]:
    """Capitalised Latin words of the English source that do not start it: proper nouns where known."""
    return [t for i, t in enumerate(en_tokens) if i > 0 and t[:1].isupper() and t.isalpha() and t.isascii()]


_language = lru_cache(maxsize=65536)(token_language)


def sentence_lid(tokens: Sequence[str], proper_nouns: Collection[str] = ()) -> list[str]:
    """``corpus.codemix.tag_tokens``; keep-Roman entities can only match Roman tokens, so a sentence without
    one takes its per-token tags from a cache."""
    tags = [_language(t) for t in tokens]
    if proper_nouns and "lang1" in tags:
        return tag_tokens(tokens, proper_nouns)
    return tags
