"""Token language IDs (LinCE labels) for the ``lince`` format and the card: the project's ``corpus.codemix``.

Named entities (``ne``, guideline 1) come from ``corpus.codemix.named_entities``, the rule the dashboard
uses too: keep-Roman glossary terms and the names the English source capitalises, so one sentence gets
the same tags and CMI in the export, on the card and on the dashboard.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from functools import lru_cache

from corpus.codemix import (
    CMI_SIGNATURE,
    LANG_TAGS,
    cmi,
    named_entities,
    source_proper_nouns,
    tag_tokens,
    token_language,
)

LID_LABELS = LANG_TAGS
SOURCE = f"corpus.codemix ({CMI_SIGNATURE})"

__all__ = ["LID_LABELS", "SOURCE", "cmi", "named_entities", "sentence_lid", "source_proper_nouns"]


_language = lru_cache(maxsize=65536)(token_language)


def sentence_lid(tokens: Sequence[str], proper_nouns: Collection[str] = ()) -> list[str]:
    """``corpus.codemix.tag_tokens``; keep-Roman entities can only match Roman tokens, so a sentence without
    one takes its per-token tags from a cache."""
    tags = [_language(t) for t in tokens]
    if proper_nouns and "lang1" in tags:
        return tag_tokens(tokens, proper_nouns)
    return tags
