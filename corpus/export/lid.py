"""Token language IDs (LinCE labels) for the ``lince`` format and the card: the project's ``corpus.codemix``.

Named entities (``ne``, guideline 1) come from ``corpus.codemix.named_entities``, the rule the dashboard
uses too: keep-Roman glossary terms and the names the English source capitalises, so one sentence gets
the same tags and CMI in the export, on the card and on the dashboard.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from corpus.codemix import (
    CMI_SIGNATURE,
    LANG_TAGS,
    _entity_tags,  # tag_tokens from tags already made
    _language,  # token_language, remembered per token
    cmi,
    named_entities,
    source_proper_nouns,
)

LID_LABELS = LANG_TAGS
SOURCE = f"corpus.codemix ({CMI_SIGNATURE})"

__all__ = ["LID_LABELS", "SOURCE", "cmi", "named_entities", "sentence_lid", "source_proper_nouns"]


def sentence_lid(tokens: Sequence[str], proper_nouns: Collection[str] = (),
                 source_names: Collection[str] = ()) -> list[str]:
    """``corpus.codemix.tag_tokens``, as ``corpus.codemix.sentence_tags`` calls it: keep-Roman glossary terms
    (``proper_nouns``) in any case, the English source's names (``source_names``) case-sensitively, as
    LinCE matches names. Entities can only match Roman tokens, so a sentence without one takes its
    per-token tags from a cache."""
    tags = list(map(_language, tokens))
    if (proper_nouns or source_names) and "lang1" in tags:
        return _entity_tags(tokens, tags, proper_nouns, exact_names=source_names)
    return tags
