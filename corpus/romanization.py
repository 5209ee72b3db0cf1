"""Phonetic Roman → Devanagari: ranked candidates for one Roman word as Hindi speakers type it (``khana``, ``achha``).

Two parts, both shipped in ``corpus/data/`` and built by ``corpus.romanization_build`` (credits in its README):

* a **joint-sequence model** learned from the Dakshina train pairs: a Roman word and a Devanagari word are cut into
  aligned chunks (1–2 Devanagari letters ↔ 1–4 Roman letters) and a Kneser-Ney 4-gram over those chunk pairs scores
  the pair. Loose spellings (``aa``/``a``, ``ee``/``i``, ``w``/``v``, ``z``/``j``, a dropped schwa, ``n`` for
  anusvara) are learned from how people actually romanized, not written down as rules. Letter-sized chunks from a
  second alignment (ौ ↔ ``au``, फ ↔ ``ff``) are tried only inside lexicon words, so a known word whose spelling
  needs a chunk the 4-gram never saw is still reached;
* a **lexicon** of Hindi words with frequencies (wordfreq, aspell-hi, hunspell-hi, apertium-hin's inflected forms,
  FreeDict eng-hin, the Dakshina train words): the prior that picks a real word among the spellings the channel
  allows.

Search is one left-to-right beam over the Roman letters with two budgets: hypotheses that are still a prefix of
some lexicon word (so a known word is never pruned away by a likelier non-word) and free ones (so a word outside
the lexicon can still be spelled). A finished candidate's score is log P(roman, devanagari) from the joint model
plus, for a lexicon word, ``LEX_WEIGHT * log frequency + LEX_BONUS`` (and ``MEASURED_BONUS`` when that frequency
was measured, not a word list's floor), plus ``LENGTH_WEIGHT`` per letter; the best ``RERANK`` add the lexicon's
character n-gram (``CHAR_WEIGHT``). Last, when the model file ships ``rerank_trees``, a small gradient-boosted tree
ensemble reorders the best ``RERANK_TOP`` from those numbers and how far each is from the best of its list (whether a
rare lexicon word should beat a likelier spelling depends on what else is on offer); it is fitted by
``romanization_build --fit-rerank-folds`` on the candidate lists of ten folds of the train words (each ranked by a model
built without its fold) and scored here in pure Python. A common word the hand-weighted score puts clearly first stays
first, and so does one the trees would replace with a much rarer word (``COMMON_LOG_FREQ``, ``COMMON_GAP``,
``CLEAR_MARGIN``).

The trees also weigh candidates the Roman search cannot find: for an English word (``character``, whose letters
say little of कैरेक्टर) the best spellings of a second joint model over its English phonemes (the CMU Pronouncing
Dictionary's, shipped in ``en_pronunciations.tsv.gz``); for a short input its letters spelled out by name, as Hindi
writes an acronym (``pcr`` → पीसीआर); and the lexicon's other spellings of the best three where Hindi spells freely
(a nukta, ँ/ं, खंड/खण्ड). Each comes with inputs that say where it came from, and the trees, fitted on the folds'
lists with these candidates in them, decide when they win.
"""

from __future__ import annotations

import gzip
import heapq
import json
import marshal
import math
import unicodedata
from array import array
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from typing import NamedTuple
from functools import lru_cache
from itertools import islice
from pathlib import Path
from types import CodeType

from corpus import model_cache

DATA = Path(__file__).resolve().parent / "data"
MODEL_PATH = DATA / "romanization_model.json.gz"
LEXICON_PATH = DATA / "hi_lexicon.tsv.gz"
PRONUNCIATIONS_PATH = DATA / "en_pronunciations.tsv.gz"

BOS, EOS = 0, 1
MAX_DEVA_UNITS = 2
MAX_ROMAN = 4

# Ranking weights, tuned on a held-out 10% of the Dakshina train words (never on dev or test).
LEX_WEIGHT = 0.5
LEX_BONUS = 5.0
# A word with a measured frequency (wordfreq) over one only listed by a spell-checker or dictionary (the floor).
MEASURED_BONUS = 2.0
# Per Devanagari letter (a consonant with its nukta or virama counts once): the joint model's product of chunk
# probabilities favours short spellings.
LENGTH_WEIGHT = 0.5
BEAM_LEX = 24
BEAM_FREE = 8
OPTIONS_PER_CHUNK = 24
PRUNE_MARGIN = 12.0
# A chunk's spellings less likely than this (log) below its likeliest one are never tried.
OPTION_MARGIN = 4.0
LEXICON_OPTION_MARGIN = 5.0
LEXICON_ONLY_PER_CHUNK = 3
# Past this many letters (no Hindi word is that long) the rule-based converter answers, so pasted text stays fast.
LONG_INPUT = 32
MEMO_SIZE = 200_000
# Contexts whose resolved token probabilities are kept between calls (each holds a small dict).
RESOLVED_SIZE = 20_000
SUM_PATHS = True
# Weight of the lexicon's character n-gram (how Hindi-like a spelling is) on the best RERANK candidates.
CHAR_WEIGHT = 0.4
RERANK = 40
# How many of those the learned tree ensemble (``tree_score``) reorders last, when the model ships one.
RERANK_TOP = 10
# A word the caller's project already uses (``lexicon_extra``) beats a general-lexicon word the channel finds about
# as likely: its frequency alone counts for less at LEX_WEIGHT < 1. Not part of the held-out tuning (no project there).
PROJECT_BONUS = 8.0
# The trees learned from Dakshina's word types, where a word as common as नहीं is one row among thousands, so they
# may put a rare spelling (नही, नाहीं) above it. A word this common (log frequency this far above the lexicon's floor,
# about 1.3e-4 of running words) that the hand-weighted score puts first by this margin stays first. Leave-one-fold-out
# on all ten folds' lists it costs 0.0007 of top-1 (0.7040 → 0.7033); typists meet such words in every sentence.
COMMON_LOG_FREQ = 5.5
COMMON_MARGIN = 2.0
# Nor may a much rarer word (this much lower log frequency) take its place: the English and acronym candidates made the
# trees put मेन above मैं for ``main``, डॉ above दो for ``do``, यूएस above उस for ``us``. Leave-one-fold-out on all ten
# folds' lists this costs 0.0013 more of top-1 (0.7033 → 0.7020) and 0.00005 of top-5: Dakshina counts word types, where
# a rare word is as likely to be meant as a common one; what translators type is running text.
COMMON_GAP = 1.5
# The same holds for a less common word with a measured frequency when the hand-weighted score puts it this far ahead:
# the English model's spellings made the trees put मोबिल before मोबाइल, बेटरी before बैटरी, होटेल before होटल, words a
# review's translator types daily. Leave-one-fold-out it costs 0.00002 of top-1 (one row in 44,204).
CLEAR_MARGIN = 6.0
# English words typed as English (``character``, ``consumer``): their spellings from how they sound, by a second
# joint model over English phonemes (``english``); its best this many join the reranker's candidates.
ENGLISH_TOP = 3
# The best this many candidates' spelling variants (``spelling_variants``) that the lexicon has join the candidates.
VARIANTS_OF = 3
# Letters typed as an acronym (``pcr`` → पीसीआर): their spelled-out names join the candidates for inputs this short.
ACRONYM_LETTERS = 6
# The score inputs of a candidate that one of the two searches did not reach: this far below the worst it did reach.
NOT_REACHED = 10.0
LETTER_NAMES = dict(a="ए", b="बी", c="सी", d="डी", e="ई", f="एफ", g="जी", h="एच", i="आई", j="जे", k="के", l="एल",
                    m="एम", n="एन", o="ओ", p="पी", q="क्यू", r="आर", s="एस", t="टी", u="यू", v="वी", w="डब्ल्यू",
                    x="एक्स", y="वाई", z="ज़ेड")

# Chat spellings that Dakshina's annotators, asked to romanize one word at a time, did not write, but people type in
# running text (issue 26): their forms come first, in this order, before the model's. A short hand list, each entry
# checked by hand in tests/unit/test_chat_spellings.py; everything else is left to the model and, in a sentence, to the
# words before it (``corpus.transliterate.suggest``'s ``context``).
CHAT_SPELLINGS: dict[str, tuple[str, ...]] = {
    "h": ("है",),  # as in "kya h"
    "bohot": ("बहुत",), "bohat": ("बहुत",), "bahot": ("बहुत",), "bhot": ("बहुत",), "bht": ("बहुत",),
    "nhi": ("नहीं",), "nhin": ("नहीं",),
    "mai": ("मैं",),
    "maine": ("मैंने",), "mene": ("मैंने",), "mne": ("मैंने",),
    "me": ("में",),
    "hu": ("हूँ", "हूं"), "hun": ("हूँ", "हूं"),
    "chalu": ("चालू",),
    "saturday": ("सैटरडे", "शनिवार"),
    "dumplings": ("डंपलिंग्स",), "dumpling": ("डंपलिंग",),
}

_CONSONANT = set(chr(c) for c in range(0x0915, 0x093A)) | set(chr(c) for c in range(0x0958, 0x0960))
_NUKTA, _VIRAMA = "\u093c", "\u094d"
_VOWEL_SIGNS = set(chr(c) for c in range(0x093E, 0x094D)) | {"\u0962", "\u0963"}
_NASAL_SIGNS = {"\u0901", "\u0902", "\u0903"}


def joins(left: str, chunk: str) -> bool:
    """May ``chunk`` follow ``left`` in a well-formed word? (no vowel sign after a virama or another sign)."""
    return JOINS[left_class(left)][first_class(chunk)]


# What may follow what, by class: a chunk's first letter (vowel sign or nukta, independent vowel, nasal sign, other)
# against the word so far's last letter (nothing, consonant or nukta, virama, nasal sign, anything else).
_LEFT_EMPTY, _LEFT_CONSONANT, _LEFT_VIRAMA, _LEFT_NASAL, _LEFT_OTHER = range(5)
_FIRST_SIGN, _FIRST_VOWEL, _FIRST_NASAL, _FIRST_OTHER = range(4)
JOINS = (
    (False, True, False, True),  # nothing yet
    (True, True, True, True),  # after a consonant or nukta
    (False, False, False, True),  # after a virama
    (False, True, False, True),  # after a nasal sign
    (False, True, True, True),  # after a vowel, a vowel sign or anything else
)


def well_formed(word: str) -> bool:
    """Does every letter of the word follow what comes before it (``JOINS``)? Some word lists hold typing slips such as
    मेंं, अौर or काे (a sign doubled, a vowel sign on a vowel): never offer one."""
    return all(JOINS[left_class(word[:i])][first_class(ch)] for i, ch in enumerate(word))


def left_class(left: str) -> int:
    """The class of a word-so-far that decides which chunks may follow it (see ``JOINS``)."""
    if not left:
        return _LEFT_EMPTY
    last = left[-1]
    if last in _CONSONANT or last == _NUKTA:
        return _LEFT_CONSONANT
    if last == _VIRAMA:
        return _LEFT_VIRAMA
    if last in _NASAL_SIGNS:
        return _LEFT_NASAL
    return _LEFT_OTHER


def first_class(chunk: str) -> int:
    """The class of a chunk's first letter (see ``JOINS``)."""
    first = chunk[0]
    if first in _VOWEL_SIGNS or first == _NUKTA:
        return _FIRST_SIGN
    if "\u0904" <= first <= "\u0914":
        return _FIRST_VOWEL
    if first in _NASAL_SIGNS:
        return _FIRST_NASAL
    return _FIRST_OTHER


def deva_units(word: str) -> list[str]:
    """Letters as the alignment sees them: a consonant keeps its nukta and virama (क्, ज़), everything else alone."""
    units: list[str] = []
    for ch in word:
        if units and ch == _NUKTA and units[-1][-1] in _CONSONANT:
            units[-1] += ch
        elif units and ch == _VIRAMA and (units[-1][0] in _CONSONANT) and not units[-1].endswith(_VIRAMA):
            units[-1] += ch
        else:
            units.append(ch)
    return units


def roman_letters(text: str) -> str:
    """The Roman letters a model reads: lower case a–z only (apostrophes, hyphens and accents dropped)."""
    folded = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in folded if "a" <= ch <= "z")


def has_devanagari(text: str) -> bool:
    return any("\u0900" <= ch <= "\u097f" for ch in text)


class RomanizationModel:
    """The loaded joint n-gram and lexicon; immutable after construction, shared by every call."""

    def __init__(self, model: dict, lexicon: dict[str, float], pronunciations: Pronunciations | None = None,
                 share: RomanizationModel | None = None):
        self.order = model["order"]
        vocab = model["vocab"]
        self.tables = _read_tables(model["tables"])
        if share is None:
            self.char_tables = _read_tables(model.get("char_tables", []))
            self.char_index = {ch: i for i, ch in enumerate(model.get("char_vocab", []))}
        else:  # the English model ranks the same Devanagari words: one character n-gram and lexicon for both
            self.char_tables, self.char_index = share.char_tables, share.char_index
        self.unigram = self.tables[0][()][1]
        option_logp = {int(t): p for t, p in model["option_logp"].items()} if "option_logp" in model else self.unigram
        # Letter-sized spellings (ौ ↔ ``au``, फ ↔ ``ff``) from a second, small-chunk alignment: tried only inside a
        # lexicon word, after the model's own spellings of that chunk, so a known word is still reached when its
        # romanization needs a chunk the main model never learned.
        lexicon_only = set(model.get("lexicon_only", ()))
        by_roman: dict[str, list[tuple[float, int, str]]] = {}
        extra_by_roman: dict[str, list[tuple[float, int, str]]] = {}
        for tid, tok in enumerate(vocab[2:], start=2):
            deva, roman = tok.split("\t")
            target = extra_by_roman if tid in lexicon_only else by_roman
            target.setdefault(roman, []).append((option_logp.get(tid, -30.0), tid, deva))
        self.options = {}
        for r, opts in by_roman.items():
            opts.sort(key=lambda o: (-o[0], o[1]))
            best = opts[0][0]
            self.options[r] = tuple((tid, d, lp >= best - OPTION_MARGIN, first_class(d), left_class(d))
                                    for lp, tid, d in opts[:OPTIONS_PER_CHUNK] if lp >= best - LEXICON_OPTION_MARGIN)
        for r, opts in extra_by_roman.items():
            opts.sort(key=lambda o: (-o[0], o[1]))
            self.options[r] = self.options.get(r, ()) + tuple(
                (tid, d, False, first_class(d), left_class(d)) for lp, tid, d in opts[:LEXICON_ONLY_PER_CHUNK])
        # The same spellings split by the class of the word so far (``JOINS``), so the search never tries a chunk
        # that cannot follow it.
        # Each as the search's inner loop reads it, (token, (token,), chunk, common, class after it), and for each
        # class (at 2 * class) every spelling, for a lexicon-prefix hypothesis, then (at 2 * class + 1) the common
        # ones only, for a free one. The tuples are shared between the lists (the model's memory is budgeted).
        ones: dict[int, tuple[int]] = {}
        steps = {o: (o[0], ones.setdefault(o[0], (o[0],)), o[1], o[2], o[4])
                 for opts in self.options.values() for o in opts}
        self.options_after = {}
        for r, opts in self.options.items():
            by_class = []
            for cls in range(len(JOINS)):
                every = tuple(steps[o] for o in opts if JOINS[cls][o[3]])
                common = tuple(o for o in every if o[3])
                by_class += (every, every if len(common) == len(every) else common)
            self.options_after[r] = tuple(by_class)
        # Caches only: results never depend on them. Those of the lexicon and the character n-gram are one for both
        # models (they hold the same Devanagari words); each model's own tables have their own.
        self._chains: dict[tuple[int, ...], tuple] = {}
        self._resolved: dict[tuple[int, ...], dict[int, float]] = {}  # context -> token -> log p
        if share is None:
            self._is_prefix: dict[str, bool] = {}
            self._char_memo: dict[str, float] = {}
            self._char_steps: dict[tuple[int, ...], float] = {}  # context + letter -> log p(letter | context)
        else:
            self._is_prefix, self._char_memo, self._char_steps = share._is_prefix, share._char_memo, share._char_steps
        self.lexicon = lexicon
        self.log_floor = math.log(min(lexicon.values())) if lexicon else 0.0
        # Above this a frequency was measured; word-list entries all share the floor.
        self.measured = 1.01 * math.exp(self.log_floor)
        self.sorted_words = sorted(lexicon) if share is None else share.sorted_words
        self.rerank_trees = model.get("rerank_trees", [])
        self._compiled_for = self._compiled = None
        self._tree_code: tuple[list, bytes | None] | None = None  # (the trees, their trees_code as marshal bytes)
        self.pronunciations = pronunciations
        self.english = (RomanizationModel(model["english"], lexicon, share=self)
                        if model.get("english") and pronunciations is not None and share is None else None)

    def char_logp(self, word: str) -> float:
        """log P(word) under the character n-gram of the lexicon: how Hindi-like a spelling is."""
        if not self.char_tables:
            return 0.0
        found = self._char_memo.get(word)
        if found is None:
            if len(self._char_memo) > MEMO_SIZE:
                self._char_memo.clear()
            found = self._char_memo[word] = self._char_logp(word)
        return found

    def _char_logp(self, word: str) -> float:
        ids = [self.char_index.get(ch, -1) for ch in word] + [EOS]
        ctx = (BOS,) * (len(self.char_tables) - 1)
        total = 0.0
        # Step by step through a memo of (context + letter): the candidates of one word share most of their steps.
        steps = self._char_steps
        if len(steps) > RESOLVED_SIZE * 5:
            steps.clear()
        for t in ids:
            step = ctx + (t,)
            p = steps.get(step)
            if p is None:
                p = steps[step] = _backoff_logp(self.char_tables, ctx, t)
            total += p
            ctx = step[1:]
        return total

    def chain(self, ctx: tuple[int, ...]) -> tuple[tuple[float, dict[int, float]], ...]:
        """The (back-off weight, probabilities) tables a token after ``ctx`` is looked up in, longest first."""
        found = self._chains.get(ctx)
        if found is None:
            if len(self._chains) > MEMO_SIZE:
                self._chains.clear()
            found = tuple(entry for k in range(len(ctx), 0, -1)
                          if (entry := self.tables[k].get(ctx[-k:])) is not None)
            self._chains[ctx] = found
        return found

    def logp(self, ctx: tuple[int, ...], token: int) -> float:
        return _backoff_logp(self.tables, ctx, token)

    def is_prefix(self, prefix: str) -> bool:
        i = bisect_left(self.sorted_words, prefix)
        return i < len(self.sorted_words) and self.sorted_words[i].startswith(prefix)

    def search(self, roman: str, beam_lex: int, beam_free: int,
               extra_prefixes: frozenset[str] = frozenset()) -> dict[str, float]:
        """Devanagari spellings of ``roman`` with log P(roman, devanagari), summed over their segmentations."""
        n = len(roman)
        history = self.order - 1
        # agenda[i]: (devanagari so far, n-gram context) -> (log p, still a lexicon prefix, its JOINS class)
        agenda: list[dict[tuple[str, tuple[int, ...]], tuple[float, bool, int]]] = [{} for _ in range(n + 1)]
        agenda[0][("", (BOS,) * history)] = (0.0, True, _LEFT_EMPTY)
        prefix_memo = self._is_prefix
        if len(prefix_memo) > MEMO_SIZE:
            prefix_memo.clear()
        prefix_get = prefix_memo.get
        is_prefix = self.is_prefix
        expand = self.options_after
        all_resolved = self._resolved
        logaddexp = _logaddexp
        for i in range(n):
            # The chunks that start here, each with the agenda it ends in (one lookup per position, not per hyp).
            steps = [(by_class, agenda[i + length]) for length in range(1, min(MAX_ROMAN, n - i) + 1)
                     if (by_class := expand.get(roman[i:i + length]))]
            if not steps:
                continue
            for (deva, ctx), (score, in_lex, cls) in self._prune(agenda[i], beam_lex, beam_free):
                resolved = all_resolved.get(ctx)
                if resolved is None:
                    if len(all_resolved) > RESOLVED_SIZE:
                        all_resolved.clear()
                    resolved = all_resolved[ctx] = {}
                resolve = _Resolver(self, ctx, resolved)
                tail = ctx[1:]
                check = in_lex and beam_lex
                for by_class, nxt in steps:
                    # A rare spelling of a chunk is tried only inside a lexicon word: a free hypothesis (or one with
                    # no lexicon beam) takes the common ones only.
                    for token, one, chunk, common, last in by_class[2 * cls + (0 if check else 1)]:
                        new = deva + chunk
                        if check:
                            if extra_prefixes and new in extra_prefixes:
                                lex = True
                            else:
                                lex = prefix_get(new)
                                if lex is None:
                                    lex = prefix_memo[new] = is_prefix(new)
                            if not (common or lex):
                                continue
                        else:
                            lex = False
                        p = resolved.get(token)
                        if p is None:
                            p = resolve(token)
                        s = score + p
                        key = (new, tail + one)
                        old = nxt.get(key)
                        if old is None:
                            nxt[key] = (s, lex, last)
                        elif SUM_PATHS:
                            nxt[key] = (logaddexp(old[0], s), lex, last)
                        elif s > old[0]:
                            nxt[key] = (s, lex, last)
        finals: dict[str, float] = {}
        for (deva, ctx), (score, _, _) in agenda[n].items():
            if deva.endswith(_VIRAMA):
                continue
            # An expanded context's memo takes the end too (the same back-off sum as ``logp``).
            resolved = all_resolved.get(ctx)
            p = None if resolved is None else resolved.get(EOS)
            if p is None:
                p = self.logp(ctx, EOS)
                if resolved is not None:
                    resolved[EOS] = p
            s = score + p
            old = finals.get(deva)
            finals[deva] = s if old is None else logaddexp(old, s)
        return finals

    @staticmethod
    def _prune(hyps, beam_lex: int, beam_free: int):
        """The best ``beam_lex`` lexicon-prefix and ``beam_free`` free hypotheses, each within PRUNE_MARGIN of the
        best of its kind (ties keep the order they were made in, so results are deterministic)."""
        if not hyps:
            return []
        lex = [kv for kv in hyps.items() if kv[1][1]]
        free = [kv for kv in hyps.items() if not kv[1][1]]
        kept = []
        for items, beam in ((lex, beam_lex), (free, beam_free)):
            if not items or not beam:
                continue
            # heapq.nlargest's result (ties in the order made), by the C sort: quicker for the agenda's sizes.
            best = sorted(items, key=_score, reverse=True)[:beam]
            floor = best[0][1][0] - PRUNE_MARGIN
            kept.extend(kv for kv in best if kv[1][0] >= floor)
        return kept

    def _tree_scorer(self):
        """``tree_score`` over ``rerank_trees``, compiled once (and again if the trees are replaced)."""
        if self._compiled_for is not self.rerank_trees:
            trees, code = self._tree_code or (None, None)
            ahead = marshal.loads(code) if code and trees is self.rerank_trees else None
            self._compiled = compile_trees(self.rerank_trees, ahead)
            self._compiled_for = self.rerank_trees
        return self._compiled

    def compile_trees_ahead(self) -> None:
        """Compile the reranker now and keep the result as bytes (``marshal``), which a pickled copy of the model
        carries: a process that reads it from ``corpus.model_cache`` need not compile on its first ranking."""
        code = trees_code(self.rerank_trees) if self.rerank_trees else None
        self._tree_code = (self.rerank_trees, marshal.dumps(code) if code is not None else None)

    def rank(self, roman: str, k: int, lexicon_extra: Mapping[str, float] | None = None) -> list[str]:
        scored, finals = self.ranked(roman, lexicon_extra)
        if self.rerank_trees and not (lexicon_extra and any(d in lexicon_extra for _, d in scored[:RERANK_TOP])):
            words, rows = self.rerank_rows(roman, scored, finals)
            if not words:
                return [rule_based(roman)]
            score = self._tree_scorer()
            order = sorted(range(len(words)), key=lambda i: (-score(rows[i]), i))
            if scored and self.hand_weighted_first_stays(scored, words[order[0]]):
                order = [0] + [i for i in order if i != 0]
            seen = set(words)
            ranked = [words[i] for i in order] + [d for _, d in scored[RERANK_TOP:] if d not in seen]
        else:
            ranked = [d for _, d in scored]
        offered = list(islice((d for d in ranked if well_formed(d)), k))
        if not offered:
            return [rule_based(roman)]
        return [unicodedata.normalize("NFC", d) for d in offered]

    def english_scored(self, roman: str) -> list[tuple[float, str]]:
        """The English model's (negated score, spelling) pairs for a Roman word with a known pronunciation, best first
        over its pronunciations; empty for any other word."""
        if self.english is None or self.pronunciations is None:
            return []
        best: dict[str, float] = {}
        for phones in self.pronunciations.get(roman):
            for s, d in self.english.ranked(phones)[0]:
                if s < best.get(d, math.inf):
                    best[d] = s
        return sorted((s, d) for d, s in best.items())

    def hand_weighted_first_stays(self, scored, tree_first: str) -> bool:
        """Does the hand-weighted best stay first, whatever the trees say? A common word does when the hand-weighted
        score puts it ahead of the next by ``COMMON_MARGIN``; a common word, or a measured one that score puts far
        ahead (``CLEAR_MARGIN``), does when the trees' choice is a much rarer word (``COMMON_GAP``)."""
        best = scored[0][1]
        best_freq = self.log_freq(best)
        common = best_freq >= COMMON_LOG_FREQ
        margin = math.inf if len(scored) == 1 else scored[1][0] - scored[0][0]
        if common and margin > COMMON_MARGIN:
            return True
        if best_freq - self.log_freq(tree_first) <= COMMON_GAP:
            return False
        return common or (self.lexicon.get(best, 0.0) > self.measured and margin > CLEAR_MARGIN)

    def log_freq(self, word: str) -> float:
        """The word's log frequency above the lexicon's floor (0 for a word outside the lexicon)."""
        freq = self.lexicon.get(word, 0.0)
        return max(0.0, math.log(freq) - self.log_floor) if freq > 0 else 0.0

    def ranked(self, roman: str, lexicon_extra: Mapping[str, float] | None = None):
        """``(scored, finals)``: the best ``RERANK`` (negated score, spelling) pairs, best first, by the hand-weighted
        score, and the search's joint log p of every spelling found."""
        extra = _prefixes(frozenset(lexicon_extra)) if lexicon_extra else frozenset()
        finals = self.search(roman, BEAM_LEX, BEAM_FREE, extra) if len(roman) <= LONG_INPUT else {}
        if not finals:
            return [], finals
        scored = []
        for deva, s in finals.items():
            freq = self.lexicon.get(deva, 0.0)
            if lexicon_extra and deva in lexicon_extra:
                freq = max(freq, float(lexicon_extra.get(deva, 0.0) or 0.0))
                s += PROJECT_BONUS
            if freq > 0:
                s += LEX_WEIGHT * max(0.0, math.log(freq) - self.log_floor) + LEX_BONUS
                if freq > self.measured:
                    s += MEASURED_BONUS
            s += LENGTH_WEIGHT * (len(deva) - deva.count(_NUKTA) - deva.count(_VIRAMA))
            scored.append((-s, deva))
        scored.sort()
        if CHAR_WEIGHT:
            scored = sorted((s - CHAR_WEIGHT * self.char_logp(d), d) for s, d in scored[:RERANK])
        return scored, finals

    def rerank_rows(self, roman: str, scored, finals) -> tuple[list[str], list[list[float]]]:
        """The candidates the trees reorder and their feature rows (``rerank_features``): the best ``RERANK_TOP`` of
        ``ranked``, then the English model's best ``ENGLISH_TOP``, the spelled-out letters of a short input and the
        lexicon's spelling variants of the best ``VARIANTS_OF``, where those are not among them already."""
        top = scored[:RERANK_TOP]
        english = self.english_scored(roman)[:ENGLISH_TOP]
        acronym = letter_names(roman) if len(roman) <= ACRONYM_LETTERS else ""
        words = [d for _, d in top]
        variants = [v for d in words[:VARIANTS_OF] for v in spelling_variants(d) if v in self.lexicon]
        words += [d for d in dict.fromkeys([d for _, d in english] + ([acronym] if acronym else []) + variants)
                  if d not in words]
        variants = set(variants)
        if not words:
            return [], []
        totals = {d: -s for s, d in scored}
        lowest_total = min(totals.values(), default=0.0) - NOT_REACHED
        lowest_joint = min(finals.values(), default=0.0) - NOT_REACHED
        english_rank = {d: i for i, (_, d) in enumerate(english)}
        english_best = english[0][0] if english else 0.0
        cands = []
        for deva in words:
            freq = self.lexicon.get(deva, 0.0)
            reached = deva in finals
            cands.append(Candidate(
                total=totals.get(deva, lowest_total), joint=finals[deva] if reached else lowest_joint,
                log_freq=self.log_freq(deva), in_lexicon=freq > 0, measured=freq > self.measured,
                letters=len(deva) - deva.count(_NUKTA) - deva.count(_VIRAMA), char=self.char_logp(deva),
                reached=reached,
                english=english_best - english[english_rank[deva]][0] if deva in english_rank else None,
                english_rank=english_rank.get(deva, ENGLISH_TOP), acronym=deva == acronym,
                variant=deva in variants))
        return words, rerank_features(cands, roman, len(scored), bool(english))


class Candidate(NamedTuple):
    """What the reranker knows of one candidate: its score so far and the parts it was summed from."""
    total: float  # the score the candidates were ranked by (joint + lexicon + length + character n-gram)
    joint: float  # log P(roman, devanagari) under the joint model
    log_freq: float  # log frequency above the lexicon's floor (0 outside the lexicon)
    in_lexicon: bool
    measured: bool
    letters: int
    char: float  # the lexicon character n-gram's log P
    reached: bool = True  # found by the Roman search (else its total and joint are NOT_REACHED below the worst)
    english: float | None = None  # the English model's score, minus its best (None: not among its best)
    english_rank: int = ENGLISH_TOP
    acronym: bool = False  # the input's letters spelled out by name
    variant: bool = False  # a lexicon word spelled like one of the best but for a nukta or nasal (spelling_variants)


# The reranker's inputs, in the order the shipped trees index them (``rerank_features``).
RERANK_FEATURES = ("total_rel", "joint_rel", "log_freq", "log_freq_rel", "in_lexicon", "measured", "letters",
                   "roman_letters", "char", "char_rel", "rank", "in_lexicon_count", "candidates", "channel",
                   "channel_rel", "reached", "english_rel", "english_rank", "english_word", "acronym",
                   "roman_vowels", "variant")
# ``english_rel`` of a candidate the English model did not offer.
NOT_ENGLISH = -50.0


def rerank_features(cands: Sequence[Candidate], roman: str, n_candidates: int,
                    english_word: bool = False) -> list[list[float]]:
    """One row per candidate (best first): its own numbers and how far each is from the best in the list, since
    whether a lexicon word should beat a likelier spelling depends on what else is on offer.

    ``channel`` is joint minus char, about log P(roman | devanagari): how well the spelling explains what was typed,
    apart from how Hindi-like it is. Trees split one input at a time, so a difference they need is given to them.
    ``english_word`` says the input has an English pronunciation, ``roman_vowels`` how many vowel letters it has (an
    input without any is most often an acronym)."""
    if not cands:
        return []
    top_total = max(c.total for c in cands)
    top_joint = max(c.joint for c in cands)
    top_freq = max(c.log_freq for c in cands)
    top_char = max(c.char for c in cands)
    top_channel = max(c.joint - c.char for c in cands)
    in_lex = sum(1 for c in cands if c.in_lexicon)
    vowels = float(sum(roman.count(v) for v in "aeiou"))
    return [[c.total - top_total, c.joint - top_joint, c.log_freq, c.log_freq - top_freq, float(c.in_lexicon),
             float(c.measured), float(c.letters), float(len(roman)), c.char, c.char - top_char, float(rank),
             float(in_lex), float(n_candidates), c.joint - c.char, c.joint - c.char - top_channel,
             float(c.reached), NOT_ENGLISH if c.english is None else c.english, float(c.english_rank),
             float(english_word), float(c.acronym), vowels, float(c.variant)]
            for rank, c in enumerate(cands)]


_TAKES_NUKTA = set("कखगजडढफ")
_CLASS_NASAL = {**dict.fromkeys("कखगघ", "ङ"), **dict.fromkeys("चछजझ", "ञ"), **dict.fromkeys("टठडढ", "ण"),
                **dict.fromkeys("तथदध", "न"), **dict.fromkeys("पफबभ", "म")}


def spelling_variants(word: str) -> list[str]:
    """The word with one of Hindi's free spelling choices made the other way: a nukta dropped or added (ज़/ज, and
    ड़/ढ़, which typists and word lists also write without it), a chandrabindu for an anusvara or back (ँ/ं), an
    anusvara before a consonant for that consonant's nasal (खंड/खण्ड) or back. Typists write them alike, and Hindi
    text has both; the trees decide which to offer."""
    out = []
    for i, ch in enumerate(word):
        nxt = word[i + 1] if i + 1 < len(word) else ""
        if ch == _NUKTA:
            out.append(word[:i] + word[i + 1:])
        elif ch in _TAKES_NUKTA and nxt != _NUKTA:
            out.append(word[:i + 1] + _NUKTA + word[i + 1:])
        elif ch == "\u0902":
            out.append(word[:i] + "\u0901" + word[i + 1:])
            if nxt in _CLASS_NASAL:
                out.append(word[:i] + _CLASS_NASAL[nxt] + _VIRAMA + word[i + 1:])
        elif ch == "\u0901":
            out.append(word[:i] + "\u0902" + word[i + 1:])
        elif ch in _CLASS_NASAL.values() and nxt == _VIRAMA and word[i + 2:i + 3] in _CLASS_NASAL:
            out.append(word[:i] + "\u0902" + word[i + 2:])
    return out


def letter_names(roman: str) -> str:
    """The Roman letters read out by name, as Hindi writes an acronym (``pcr`` → पीसीआर)."""
    return "".join(LETTER_NAMES.get(ch, "") for ch in roman)


class Pronunciations:
    """English words and their pronunciations as phoneme symbols (``romanization_build.phone_symbol``), kept as two long
    strings and their offsets, sorted by word: as a dict, 100,000 words would cost the model about 20 MB."""

    def __init__(self, entries: Sequence[tuple[str, Sequence[str]]]):
        entries = sorted(entries)
        self._words, self._word_at = _joined([w for w, _ in entries])
        self._phones, self._phones_at = _joined(["\t".join(p) for _, p in entries])

    def __len__(self) -> int:
        return len(self._word_at) - 1

    def _word(self, i: int) -> str:
        return self._words[self._word_at[i]:self._word_at[i + 1] - 1]

    def get(self, word: str) -> tuple[str, ...]:
        """The word's pronunciations (none for a word the dictionary lacks)."""
        lo, hi = 0, len(self)
        while lo < hi:
            mid = (lo + hi) // 2
            if self._word(mid) < word:
                lo = mid + 1
            else:
                hi = mid
        if lo < len(self) and self._word(lo) == word:
            return tuple(self._phones[self._phones_at[lo]:self._phones_at[lo + 1] - 1].split("\t"))
        return ()


def _joined(items: Sequence[str]) -> tuple[str, array]:
    """The items as one string, each followed by a newline, and where each starts (one more offset: the end)."""
    offsets = array("I", [0])
    for item in items:
        offsets.append(offsets[-1] + len(item) + 1)
    return "".join(item + "\n" for item in items), offsets


def read_pronunciations(path: Path) -> Pronunciations | None:
    """The shipped English pronunciations (``word<TAB>phones[<TAB>phones]`` lines), or None if the file is absent."""
    if not path.exists():
        return None
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return Pronunciations([(word, tuple(phones)) for word, *phones in
                               (line.rstrip("\n").split("\t") for line in fh) if phones])


def tree_score(trees: Sequence, row: Sequence[float]) -> float:
    """Sum of the trees' leaves for one feature row. A tree is a leaf value or ``[feature, threshold, left, right]``
    (left when ``row[feature] <= threshold``), as ``romanization_build --fit-rerank`` exports a gradient-boosted
    ensemble."""
    total = 0.0
    for node in trees:
        while type(node) is list:
            node = node[2] if row[node[0]] <= node[1] else node[3]
        total += node
    return total


def compile_trees(trees: Sequence, code: CodeType | None = None):
    """A function of one feature row equal to ``tree_score(trees, row)`` (the same comparisons, the leaves summed in
    the same order), as straight-line Python: walking the nested lists costs more than the sums. ``code``, when
    given, is ``trees_code(trees)`` compiled earlier (compiling takes a few tenths of a second)."""
    code = code or trees_code(trees)
    if code is None:
        return lambda row: tree_score(trees, row)
    namespace: dict = {}
    exec(code, namespace)
    return namespace["score"]


def trees_code(trees: Sequence) -> CodeType | None:
    """The compiled module that defines ``compile_trees``'s function, or None when a tree holds a number that is not
    finite (``tree_score`` then walks the trees)."""
    def expr(node) -> str:
        if type(node) is list:
            return f"({expr(node[2])} if r[{int(node[0])}] <= {node[1]!r} else {expr(node[3])})"
        return repr(node)

    def finite(node) -> bool:
        if type(node) is list:
            return type(node[1]) in (int, float) and math.isfinite(node[1]) and finite(node[2]) and finite(node[3])
        return type(node) in (int, float) and math.isfinite(node)

    if not all(finite(t) for t in trees):
        return None
    lines = ["def score(r):", "    t = 0.0"] + [f"    t += {expr(t)}" for t in trees] + ["    return t"]
    return compile("\n".join(lines), "<rerank trees>", "exec")


@lru_cache(maxsize=8)
def _prefixes(words: frozenset[str]) -> frozenset[str]:
    """Every prefix of the caller's extra words, so the lexicon beam follows them too (cached: the page passes
    the same project words on every keystroke)."""
    return frozenset(w[:i] for w in words if isinstance(w, str) for i in range(1, len(w) + 1))


def rule_based(roman: str) -> str:
    """The strict ITRANS converter's reading of lower-case letters: the answer when the model has none."""
    from corpus.transliterate import to_devanagari  # that module re-exports suggest from here

    return to_devanagari(roman, "itrans")


def _read_tables(raw) -> list[dict[tuple[int, ...], tuple[float, dict[int, float]]]]:
    """The stored tables with tuple contexts and int tokens. Equal tokens and equal (rounded) probabilities share one
    object each: the tables hold about a million entries, and a Python int or float costs 24–28 bytes apiece."""
    tables = []
    ints: dict[str, int] = {}
    floats: dict[float, float] = {}
    for table in raw:
        conv = {}
        for ctx, (bow, probs) in table.items():
            key = tuple(ints.setdefault(t, int(t)) for t in ctx.split()) if ctx else ()
            conv[key] = (floats.setdefault(bow, bow),
                         {ints.setdefault(t, int(t)): floats.setdefault(p, p) for t, p in probs.items()})
        tables.append(conv)
    return tables


def _chain_logp(chain, unigram: dict[int, float], token: int) -> float:
    """log p(token | context) from the context's back-off chain (``RomanizationModel.chain``)."""
    backoff = 0.0
    for bow, probs in chain:
        p = probs.get(token)
        if p is not None:
            return backoff + p
        backoff += bow
    return backoff + unigram.get(token, -30.0)


class _Resolver:
    """log p(token | ctx) on a miss of the per-context memo, fetching the back-off chain only when first needed."""
    __slots__ = ("model", "ctx", "memo", "chain")

    def __init__(self, model, ctx, memo):
        self.model, self.ctx, self.memo, self.chain = model, ctx, memo, None

    def __call__(self, token: int) -> float:
        if self.chain is None:
            self.chain = self.model.chain(self.ctx)
        p = self.memo[token] = _chain_logp(self.chain, self.model.unigram, token)
        return p


def _score(item) -> float:
    return item[1][0]


def _backoff_logp(tables, ctx: tuple[int, ...], token: int) -> float:
    backoff = 0.0
    for k in range(len(ctx), 0, -1):
        entry = tables[k].get(ctx[-k:])
        if entry is not None:
            p = entry[1].get(token)
            if p is not None:
                return backoff + p
            backoff += entry[0]
    return backoff + tables[0][()][1].get(token, -30.0)


def _logaddexp(a: float, b: float) -> float:
    hi, lo = (a, b) if a >= b else (b, a)
    return hi + math.log1p(math.exp(lo - hi))


def read_lexicon(path: Path = LEXICON_PATH) -> dict[str, float]:
    lex = {}
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            word, freq = line.rstrip("\n").split("\t")
            lex[word] = float(freq)
    return lex


@lru_cache(maxsize=1)
def load_model() -> RomanizationModel:
    """The shipped model, once per process; later calls share it. Built from the shipped files by ``build_model``
    (about 5 CPU-seconds) once per change of them or of this module, then read from ``corpus.model_cache``."""
    return model_cache.cached("romanization", (MODEL_PATH, LEXICON_PATH, PRONUNCIATIONS_PATH, Path(__file__)),
                              build_model, licences=(DATA / "romanization.LICENSE",))


def build_model() -> RomanizationModel:
    """The model built from the shipped files (what ``load_model`` caches)."""
    with gzip.open(MODEL_PATH, "rt", encoding="utf-8") as fh:
        model = json.load(fh)
    built = RomanizationModel(model, read_lexicon(LEXICON_PATH), read_pronunciations(PRONUNCIATIONS_PATH))
    built.compile_trees_ahead()
    return built


def suggest(roman: str, k: int = 5, *, lexicon_extra: Mapping[str, float] | None = None,
            prefer: Sequence[str] = ()) -> list[str]:
    """Ranked NFC Devanagari candidates for one Roman word, best first, no duplicates.

    Devanagari input comes back unchanged (it is already typed); digits and other letterless input too.
    ``lexicon_extra`` adds words the caller knows (e.g. the project's own translations) with a frequency in
    wordfreq's unit (share of running words); ``prefer`` lists forms to put first, in that order, then come the
    ``CHAT_SPELLINGS`` of the input, then the model's candidates.
    """
    if k <= 0 or not roman or not roman.strip():
        return []
    text = roman.strip()
    if has_devanagari(text):
        return [unicodedata.normalize("NFC", text)]
    letters = roman_letters(text)
    if not letters or any(ch.isdigit() for ch in text):
        return [text]
    chat = CHAT_SPELLINGS.get(letters, ())
    ranked = load_model().rank(letters, k + len(prefer) + len(chat), lexicon_extra)
    out: list[str] = []
    for word in [unicodedata.normalize("NFC", p) for p in prefer] + list(chat) + ranked:
        if word and word not in out:
            out.append(word)
    return out[:k]
