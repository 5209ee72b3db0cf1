"""The typing model read from the cache suggests exactly what the model built from the shipped files suggests.

Inputs: Roman words of the Dakshina dev lexicon (100 of the fixture's 2,000) and 40 dev sentences typed word by word with the words before
them as context (tests/fixtures/dakshina_dev, CC BY-SA 4.0, credit in its README).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.bench_typing_context import sentence_words  # the running-text benchmark's own word split
from corpus import model_cache, romanization, transliterate, word_context

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "dakshina_dev"


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """(built, read back): each model built from its files, and the copy ``corpus.model_cache`` read from disk."""
    folder = tmp_path_factory.mktemp("model-cache")
    built = romanization.build_model(), word_context.build_context_model()
    for name, model in zip(("romanization", "hi_bigrams"), built):  # written as built: the builds take seconds
        model_cache.cached(name, [Path(__file__)], lambda model=model: model, directory=folder)

    def must_not_build():
        raise AssertionError("the cached copy was not read")

    read = tuple(model_cache.cached(name, [Path(__file__)], must_not_build, directory=folder)
                 for name in ("romanization", "hi_bigrams"))
    return built, read


CACHES = {"_chains", "_resolved", "_is_prefix", "_char_memo", "_char_steps", "_compiled", "_compiled_for"}


def state(obj):
    """Everything a model holds, its own objects opened up, its caches aside (filled by the calls it answered): plain
    values that compare with ``==`` (the tables' dicts of tuples compare in C)."""
    if isinstance(obj, (romanization.RomanizationModel, romanization.Pronunciations, word_context.ContextModel)):
        return {k: state(v) for k, v in vars(obj).items() if k not in CACHES}
    if isinstance(obj, word_context._Level):
        return (obj.total, obj.kinds, obj.counts)
    if isinstance(obj, list) and obj and isinstance(obj[0], dict) and obj[0] and isinstance(
            next(iter(obj[0].values())), word_context._Level):
        return [state(level) for level in obj]
    if isinstance(obj, dict) and obj and isinstance(next(iter(obj.values())), word_context._Level):
        return {k: state(v) for k, v in obj.items()}
    return obj


def test_the_cached_models_hold_exactly_what_the_built_ones_hold(models):
    (built, built_context), (read, read_context) = models
    assert state(read) == state(built)
    assert state(read_context) == state(built_context)
    # The English model shares the main one's lexicon and character caches in the copy too (one copy in memory).
    assert read.english.lexicon is read.lexicon and read.english._char_memo is read._char_memo


def test_dakshina_dev_words_get_the_same_suggestions_from_the_cached_model(models):
    """Every 20th of the fixture's 2,000 words (about 5 ms a look-up, twice each): the state test above already
    shows the tables equal; this one shows the compiled reranker and the caches answer alike."""
    (built, _), (read, _) = models
    words = FIXTURES.joinpath("roman_words.txt").read_text(encoding="utf-8").split()
    assert len(words) == 2000
    for word in words[::20]:
        letters = romanization.roman_letters(word)
        assert read.rank(letters, 10) == built.rank(letters, 10), word


def test_dev_sentences_typed_with_context_get_the_same_suggestions_from_the_cached_models(models, monkeypatch):
    (built, built_context), (read, read_context) = models
    typed = []
    for line in FIXTURES.joinpath("sentences.tsv").read_text(encoding="utf-8").splitlines():
        roman, native = line.split("\t")
        roman_words, native_words = sentence_words(roman), sentence_words(native)
        typed += [(word, native_words[:i]) for i, word in enumerate(roman_words)]
    assert len(typed) > 300

    def suggestions(model, context_model):
        monkeypatch.setattr(romanization, "load_model", lambda: model)
        monkeypatch.setattr(transliterate, "load_context_model", lambda: context_model)
        return [transliterate.suggest(word, 5, context=context) for word, context in typed]

    assert suggestions(read, read_context) == suggestions(built, built_context)
