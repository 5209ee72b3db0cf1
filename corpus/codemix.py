"""Code-mixing analytics for our Hindi output: per-token language tags and the Code-Mixing Index.

Tags follow LinCE's Hindi-English set: ``lang1`` (Roman script, English), ``lang2`` (Devanagari,
Hindi), ``ne`` (named entities kept in Roman by guideline 1) and ``other`` (punctuation, numbers,
symbols). Which entities a sentence has is decided once, by ``named_entities`` (keep-Roman glossary
terms and the names its English source capitalises), for the dashboard and the export alike.
Guideline 2 transliterates borrowed common nouns into Devanagari, so they count as ``lang2``: the
index measures script mixing, which is what the guidelines control.

CMI (Gambäck & Das 2014): for n tokens of which u are language-independent (``other`` and ``ne``)
and max(w) tokens in the dominant language, CMI = 100 × (1 − max(w) / (n − u)) when n > u, else 0.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain

import regex

from corpus.tokens import TOKENIZER_SIGNATURE, tokenize

LANG_TAGS = ("lang1", "lang2", "ne", "other")
LANGUAGE_INDEPENDENT = frozenset({"ne", "other"})
CMI_SIGNATURE = f"cmi-gamback-das-2014|tokens={TOKENIZER_SIGNATURE}|independent=ne+other"

_DEVANAGARI_LETTER = regex.compile(r"[\p{Devanagari}&&\p{L}]|[\p{Devanagari}&&\p{M}]", regex.V1)
_LATIN_LETTER = regex.compile(r"[\p{Latin}&&\p{L}]", regex.V1)


def token_language(token: str) -> str:
    """``lang2`` if it holds Devanagari letters, ``lang1`` if Latin letters, else ``other``.

    Letters of any other script are ``other`` too: neither language of the pair.
    """
    if _DEVANAGARI_LETTER.search(token):
        return "lang2"
    if _LATIN_LETTER.search(token):
        return "lang1"
    return "other"


#: ``token_language``, remembered per token text (a corpus repeats its words).
_language = lru_cache(maxsize=1 << 16)(token_language)


def _entity_sequences(named_entities: Iterable[str], fold: bool = True) -> list[tuple[str, ...]]:
    """Each known entity as a sequence of canonical tokens (case-folded if ``fold``), longest first."""
    seqs = {tuple(t.casefold() if fold else t for t in tokenize(ne)) for ne in named_entities}
    return sorted((s for s in seqs if s), key=lambda s: (-len(s), s))


@lru_cache(maxsize=4096)
def _cached_sequences(named_entities: tuple[str, ...], fold: bool) -> tuple[tuple[str, ...], ...]:
    """``_entity_sequences`` of one tuple of entities, remembered: the export tags every sentence with the same
    glossary terms."""
    return tuple(_entity_sequences(named_entities, fold))


def _sequences(named_entities: Iterable[str], fold: bool) -> Sequence[tuple[str, ...]]:
    entities = tuple(named_entities)
    if not entities:
        return ()
    try:
        return _cached_sequences(entities, fold)
    except TypeError:  # an entity that cannot be hashed: tokenized as it is
        return _entity_sequences(entities, fold)


_APOSTROPHES = frozenset({"'", "\u2019"})


def tag_tokens(tokens: Sequence[str], named_entities: Iterable[str] = (),
               ne_spans: Iterable[tuple[int, int]] = (), exact_names: Iterable[str] = ()) -> list[str]:
    """A language tag per canonical token.

    ``named_entities`` are known entity strings (one or more tokens, matched case-insensitively,
    longest first: keep-Roman glossary terms, which the lead declared names); ``exact_names`` are
    names matched case-sensitively, as LinCE does (the source's capitalised words: its "Pizza" of
    "Joe's Pizza" names nothing in a lowercase "pizza"); ``ne_spans`` are half-open token spans the
    caller already knows to be entities. A possessive ``' s`` after an entity is part of it (LinCE
    tags "Joe's" ``ne``). Only word tokens inside an entity become ``ne``; punctuation inside stays ``other``.
    """
    return _entity_tags(tokens, list(map(_language, tokens)), named_entities, ne_spans, exact_names)


def _entity_tags(tokens: Sequence[str], tags: list[str], named_entities: Iterable[str] = (),
                 ne_spans: Iterable[tuple[int, int]] = (), exact_names: Iterable[str] = ()) -> list[str]:
    """``tag_tokens`` from the tokens' ``token_language`` tags (``tags``, which may be returned as they are)."""
    n_tokens = len(tokens)
    in_entity = [False] * n_tokens
    for start, end in ne_spans:
        for i in range(max(0, start), min(end, n_tokens)):
            in_entity[i] = True
    folded_seqs, exact_seqs = _sequences(named_entities, True), _sequences(exact_names, False)
    folded = list(map(str.casefold, tokens)) if folded_seqs else None  # made when first needed
    exact = list(tokens)
    present: dict[int, set[str]] = {}  # per word list: its words, made on first use
    for words, seq in [(folded, s) for s in folded_seqs] + [(exact, s) for s in exact_seqs]:
        if id(words) not in present:
            present[id(words)] = set(words)
        first = seq[0]
        if first not in present[id(words)]:
            continue
        n = len(seq)
        i = 0  # the positions of the first word, left to right; a match skips its tokens
        while i + n <= n_tokens:
            try:
                i = words.index(first, i)
            except ValueError:
                break
            if i + n > n_tokens:
                break
            if (n == 1 or tuple(words[i:i + n]) == seq) and not any(in_entity[i:i + n]):
                for j in range(i, i + n):
                    in_entity[j] = True
                i += n
            else:
                i += 1
    if not any(in_entity):
        return tags
    if folded is None:
        folded = list(map(str.casefold, tokens))
    for i in range(n_tokens - 2):
        if in_entity[i] and tokens[i + 1] in _APOSTROPHES and folded[i + 2] == "s":
            in_entity[i + 1] = in_entity[i + 2] = True
    return ["ne" if in_entity[i] and tags[i] != "other" else tags[i] for i in range(n_tokens)]


# Words that open English sentences (or are shouted in capitals) without naming anything, as SemEval
# reviews use them, and their most frequent aspect nouns; "don", "isn"... are what the tokenizer leaves of "Don't", "Isn't".
COMMON_CAPITALISED = frozenset({
    "a", "about", "after", "again", "all", "also", "although", "always", "an", "and", "another", "any",
    "anything", "are", "as", "at", "avoid", "awesome", "bad", "be", "beautiful", "because", "been",
    "before", "being", "best", "better", "big", "both", "but", "by", "came", "can", "cannot", "cheap",
    "clean", "come", "could", "decent", "definitely", "delicious", "did", "didn", "do", "does", "doesn",
    "don", "dont", "each", "either", "enjoy", "enjoyed", "even", "ever", "every", "everyone", "everything",
    "excellent", "expensive", "fantastic", "fast", "first", "food", "for", "from", "fresh", "friendly",
    "get", "go", "good", "got", "great", "had", "has", "hasn", "have", "haven", "he", "her", "here",
    "highly", "his", "how", "however", "i", "if", "in", "is", "isn", "it", "its", "just", "last", "let",
    "like", "little", "love", "loved", "lovely", "make", "many", "may", "me", "more", "most", "much",
    "must", "my", "never", "new", "next", "nice", "no", "none", "nor", "not", "nothing", "now", "of", "off",
    "ok", "okay", "on", "once", "one", "only", "or", "other", "our", "out", "over", "overall", "perfect",
    "please", "poor", "pretty", "price", "prices", "quality", "quite", "rather", "really", "recommend",
    "same", "service", "she", "should", "since", "so", "some", "something", "staff", "still", "such",
    "sure", "terrible", "than", "thank", "thanks", "that", "the", "their", "them", "then", "there", "these",
    "they", "this", "those", "though", "to", "too", "totally", "try", "two", "unfortunately", "until", "up",
    "very", "was", "wasn", "we", "well", "went", "were", "weren", "what", "when", "where", "whether",
    "which", "while", "who", "why", "will", "with", "won", "worst", "would", "wow", "yes", "yet", "you",
    "your",
    "ambience", "atmosphere", "battery", "breakfast", "coffee", "computer", "decor", "design", "dessert",
    "dinner", "drinks", "keyboard", "laptop", "lunch", "menu", "performance", "pizza", "place", "portions",
    "restaurant", "screen", "size", "speed", "sushi", "waiter", "waiters", "waitress", "wine",
})
_SENTENCE_END = frozenset({".", "!", "?", "…", "।"})


def source_proper_nouns(source_tokens: Sequence[str]) -> list[str]:
    """Words of the English source that name something: guideline 1 keeps them in Roman script.

    A capitalised word inside a sentence is a name. At the start of a sentence (the first word, or the
    first after . ! ?) or in all capitals the capital may be grammar or emphasis, so there it counts only
    when it is not a common English word and the source never writes it in lower case. "I" never counts.
    """
    lower = None  # the words the source writes in lower case, collected when first needed
    found: list[str] = []
    at_start = True
    for token in source_tokens:
        if token in _SENTENCE_END:
            at_start = True
            continue
        if not (token.isalnum() or any(ch.isalnum() for ch in token)):
            continue
        starts, at_start = at_start, False
        # a capitalised ASCII word? (the cheapest test first: most words are not capitalised)
        if not (token[:1].isupper() and token.isascii() and token.isalpha()) or token == "I" or token in found:
            continue
        unsure = starts or (token.isupper() and len(token) > 1)
        if unsure:
            if token.casefold() in COMMON_CAPITALISED:
                continue
            if lower is None:
                lower = {t for t in source_tokens if t.isalpha() and t.islower()}
            if token.casefold() in lower:
                continue
        found.append(token)
    return found


def named_entities(source_text: str, keep_roman: Iterable[str] = ()) -> list[str]:
    """The named entities of one sentence: keep-Roman glossary forms and the names of its English source.

    The one rule behind ``ne`` on the dashboard, in the ``lince`` export and on the dataset card.
    """
    out: list[str] = []
    for form in (*keep_roman, *source_proper_nouns(tokenize(source_text))):
        if form not in out:
            out.append(form)
    return out


def sentence_tags(translation: str, source_text: str, keep_roman: Iterable[str] = ()) -> list[str]:
    """Language tags of a Hindi translation's canonical tokens, entities from ``named_entities``: keep-Roman
    terms in any case, the source's names as the source writes them."""
    return tag_tokens(tokenize(translation), keep_roman, exact_names=source_proper_nouns(tokenize(source_text)))


def sentence_lid(tokens: Sequence[str], proper_nouns: Iterable[str] = ()) -> list[str]:
    """LinCE labels for one sentence's tokens (the name the ``lince`` exporter looks for)."""
    return tag_tokens(tokens, proper_nouns)


def keep_roman_entities(glossary: Iterable[object]) -> list[str]:
    """Named entities from glossary entries marked keep-roman (guideline 1), in both their forms.

    Entries need ``english``, ``hindi`` and ``rule`` attributes (e.g. corpus.glossary.GlossaryEntry).
    """
    out: list[str] = []
    for entry in glossary:
        if getattr(entry, "rule", None) != "keep-roman":
            continue
        for form in (getattr(entry, "english", ""), getattr(entry, "hindi", "")):
            if form and form not in out:
                out.append(form)
    return out


def cmi(tags: Sequence[str]) -> float:
    """Code-Mixing Index of one utterance from its token tags (0 for monolingual or empty)."""
    if isinstance(tags, (list, tuple)):  # four counts in C rather than a Counter of a short sentence
        counts = {t: tags.count(t) for t in LANG_TAGS}
        if sum(counts.values()) != len(tags):
            counts = Counter(tags)
    else:
        counts = Counter(tags)
    unknown = set(counts) - set(LANG_TAGS)
    if unknown:
        raise ValueError(f"cmi: unknown language tag(s) {sorted(unknown)}; expected {LANG_TAGS}")
    n = len(tags)
    u = sum(counts[t] for t in LANGUAGE_INDEPENDENT)
    if n <= u:
        return 0.0
    dominant = max(counts["lang1"], counts["lang2"])
    return 100.0 * (1.0 - dominant / (n - u))


@dataclass(frozen=True)
class CorpusCMI:
    """Corpus CMI: mean over all sentences and over code-mixed (CMI > 0) sentences only."""

    sentences: int
    code_mixed: int
    cmi_all: float
    cmi_mixed: float
    tag_counts: dict[str, int]
    signature: str = CMI_SIGNATURE

    @property
    def code_mixed_pct(self) -> float:
        return 100.0 * self.code_mixed / self.sentences if self.sentences else 0.0

    def to_dict(self) -> dict:
        return {
            "sentences": self.sentences,
            "code_mixed": self.code_mixed,
            "code_mixed_pct": self.code_mixed_pct,
            "cmi_all": self.cmi_all,
            "cmi_mixed": self.cmi_mixed,
            "tag_counts": {t: self.tag_counts.get(t, 0) for t in LANG_TAGS},
            "signature": self.signature,
        }


def corpus_cmi(tagged_sentences: Iterable[Sequence[str]]) -> CorpusCMI:
    """Aggregate CMI from each sentence's tags."""
    values: list[float] = []
    tag_lists = []
    for tags in tagged_sentences:
        values.append(cmi(tags))
        tag_lists.append(tags)
    totals = Counter(chain.from_iterable(tag_lists))
    mixed = [v for v in values if v > 0]
    return CorpusCMI(
        sentences=len(values),
        code_mixed=len(mixed),
        cmi_all=sum(values) / len(values) if values else 0.0,
        cmi_mixed=sum(mixed) / len(mixed) if mixed else 0.0,
        tag_counts={t: totals.get(t, 0) for t in LANG_TAGS},
    )
