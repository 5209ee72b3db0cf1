"""Build the shipped Roman→Devanagari model (``corpus/data/``) from the Dakshina train pairs and Hindi word lists.

Run once by a developer, not by the app: ``python -m corpus.romanization_build`` (needs ``wordfreq`` importable and
the Debian packages ``aspell-hi``, ``hunspell-hi``, ``apertium-hin``, ``dict-freedict-eng-hin`` and ``festlex-cmu``
(the CMU Pronouncing Dictionary) installed; the app itself only reads the three files this writes).
``--english-only`` rebuilds just the English model and the pronunciations. ``--fit-rerank-folds`` then fits the
reranker on the candidate lists of models built without a fold of the words (scikit-learn, build time only) and stores
its trees in the shipped model.

The model is a joint-sequence model (Bisani & Ney 2008): each (Roman, Devanagari) pair is cut into aligned chunks
(1–2 Devanagari letters ↔ 1–4 Roman letters) by EM, and an n-gram over those chunk pairs scores how a Roman word and
a Devanagari word go together. The lexicon is a list of Devanagari words with frequencies, the prior that picks real
words among the spellings the channel allows.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import random
import re
import subprocess
import sys
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path

from corpus.romanization import (
    BOS, EOS, MAX_DEVA_UNITS, MAX_ROMAN, MODEL_PATH, LEXICON_PATH, PRONUNCIATIONS_PATH, deva_units,
    read_pronunciations, roman_letters,
)
from corpus.word_context import BIGRAMS_PATH

DAKSHINA = Path(__file__).resolve().parents[2] / "shared" / "data" / "dakshina-hi"
# Lexicon-only tokens (``add_lexicon_only``) count this much less (log) than their share of the small-chunk alignment;
# chosen on the held-out tenth of the train words.
LEXICON_ONLY_PENALTY = -6.0

# English loanwords as Hindi writes them, hand-checked: the Dakshina pairs hold few English spellings
# (``key`` → की, ``oa`` → ो), and translators of product reviews type many.
LOANWORDS = """
keyboard कीबोर्ड|mouse माउस|laptop लैपटॉप|computer कंप्यूटर|mobile मोबाइल|phone फ़ोन|screen स्क्रीन
battery बैटरी|camera कैमरा|display डिस्प्ले|charger चार्जर|software सॉफ़्टवेयर|hardware हार्डवेयर|speaker स्पीकर
service सर्विस|quality क्वालिटी|price प्राइस|design डिज़ाइन|delivery डिलीवरी|restaurant रेस्टोरेंट|menu मेन्यू
pizza पिज़्ज़ा|coffee कॉफ़ी|table टेबल|chair चेयर|staff स्टाफ़|waiter वेटर|food फ़ूड|order ऑर्डर|bill बिल
windows विंडोज़|memory मेमोरी|processor प्रोसेसर|graphics ग्राफ़िक्स|touchpad टचपैड|monitor मॉनिटर|bluetooth ब्लूटूथ
wifi वाईफ़ाई|internet इंटरनेट|online ऑनलाइन|email ईमेल|video वीडियो|music म्यूज़िक|game गेम|app ऐप|update अपडेट
key की|board बोर्ड|road रोड|boat बोट|coat कोट|team टीम|seat सीट|meeting मीटिंग|feature फ़ीचर|people पीपल
good गुड|nice नाइस|okay ओके|thanks थैंक्स|sorry सॉरी|please प्लीज़|office ऑफ़िस|doctor डॉक्टर|hospital हॉस्पिटल
school स्कूल|college कॉलेज|bus बस|car कार|ticket टिकट|station स्टेशन|hotel होटल|room रूम|service सर्विस
waqt वक़्त|qila क़िला|qeemat क़ीमत|keemat क़ीमत|zindagi ज़िंदगी|zyada ज़्यादा|fikr फ़िक्र|kharab ख़राब|khabar ख़बर
garib ग़रीब|qalam क़लम|qanoon क़ानून|zaroor ज़रूर|safar सफ़र|tareef तारीफ़|mazaa मज़ा|kaafi काफ़ी|tez तेज़
baaz बाज़|saaf साफ़|raaz राज़|roz रोज़|ghazal ग़ज़ल|aawaz आवाज़|awaaz आवाज़|fauj फ़ौज|sadak सड़क|padhna पढ़ना
""".split("|")


def read_pairs(path: Path) -> list[tuple[str, str, int]]:
    pairs = []
    for line in path.read_text(encoding="utf-8").splitlines():
        roman, deva, count = line.split("\t")
        pairs.append((roman_letters(roman), unicodedata.normalize("NFC", deva), int(count)))
    return [(r, d, c) for r, d, c in pairs if r and d]


def loanword_pairs() -> list[tuple[str, str, int]]:
    out = []
    for line in LOANWORDS:
        for item in line.split("\n"):
            item = item.strip()
            if item:
                roman, deva = item.split(" ")
                out.append((roman, unicodedata.normalize("NFC", deva), 3))
    return out


# --- alignment -----------------------------------------------------------------------------------------------

_NASAL_SIGNS = {"\u0901", "\u0902", "\u0903"}


def chunk_allowed(units: list[str], roman_length: int) -> bool:
    """May these Devanagari units form one chunk with that many Roman letters?

    Joint-multigram EM favours long chunks (fewer factors), and chunks like कौ ↔ ``kau`` never generalise to a word
    where ौ follows another consonant. Two units share a chunk only where one Roman letter stands for both
    (``x`` ↔ क्स) or the second is a nasal sign nobody types (ीं ↔ ``i``).
    """
    return len(units) == 1 or roman_length == 1 or units[-1] in _NASAL_SIGNS

def _chunks(units: list[str], roman: str):
    """Every (i, j, di, rj) step of the alignment lattice: units[i:i+di] ↔ roman[j:j+rj]."""
    for di in range(1, MAX_DEVA_UNITS + 1):
        for rj in range(1, MAX_ROMAN + 1):
            yield di, rj


def _forward_backward(units, roman, prob, floor, small=False):
    n, m = len(units), len(roman)
    fwd = [[0.0] * (m + 1) for _ in range(n + 1)]
    fwd[0][0] = 1.0
    for i in range(n + 1):
        for j in range(m + 1):
            f = fwd[i][j]
            if not f:
                continue
            for di in range(1, min(MAX_DEVA_UNITS, n - i) + 1):
                d = "".join(units[i:i + di])
                for rj in range(1, min(MAX_ROMAN, m - j) + 1):
                    if small and di > 1 and not chunk_allowed(units[i:i + di], rj):
                        continue
                    p = prob.get((d, roman[j:j + rj]), floor)
                    if p:
                        fwd[i + di][j + rj] += f * p
    total = fwd[n][m]
    if not total:
        return None, 0.0
    bwd = [[0.0] * (m + 1) for _ in range(n + 1)]
    bwd[n][m] = 1.0
    for i in range(n, -1, -1):
        for j in range(m, -1, -1):
            if i == n and j == m:
                continue
            s = 0.0
            for di in range(1, min(MAX_DEVA_UNITS, n - i) + 1):
                d = "".join(units[i:i + di])
                for rj in range(1, min(MAX_ROMAN, m - j) + 1):
                    if small and di > 1 and not chunk_allowed(units[i:i + di], rj):
                        continue
                    p = prob.get((d, roman[j:j + rj]), floor)
                    if p:
                        s += p * bwd[i + di][j + rj]
            bwd[i][j] = s
    return (fwd, bwd), total


def em_align(pairs, iterations: int = 4, small: bool = False):
    """Unigram joint-multigram EM; returns the chunk-pair probabilities (``small``: only ``chunk_allowed`` chunks)."""
    data = [(deva_units(d), r, c) for r, d, c in pairs]
    prob: dict[tuple[str, str], float] = {}
    floor = 1e-3  # first iteration: every chunk pair equally likely
    for it in range(iterations):
        counts: Counter = Counter()
        for units, roman, c in data:
            fb, total = _forward_backward(units, roman, prob, floor, small)
            if fb is None:
                continue
            fwd, bwd = fb
            n, m = len(units), len(roman)
            for i in range(n):
                for j in range(m):
                    f = fwd[i][j]
                    if not f:
                        continue
                    for di in range(1, min(MAX_DEVA_UNITS, n - i) + 1):
                        d = "".join(units[i:i + di])
                        for rj in range(1, min(MAX_ROMAN, m - j) + 1):
                            if small and di > 1 and not chunk_allowed(units[i:i + di], rj):
                                continue
                            key = (d, roman[j:j + rj])
                            p = prob.get(key, floor)
                            b = bwd[i + di][j + rj]
                            if p and b:
                                counts[key] += c * f * p * b / total
        z = sum(counts.values())
        prob = {k: v / z for k, v in counts.items() if v / z > 1e-7}
        floor = 0.0
        print(f"EM iteration {it + 1}{' (small chunks)' if small else ''}: {len(prob)} chunk pairs")
    return prob


def viterbi_align(units, roman, prob, small=False):
    n, m = len(units), len(roman)
    best = {(0, 0): (0.0, None)}
    for i in range(n + 1):
        for j in range(m + 1):
            if (i, j) not in best:
                continue
            s = best[(i, j)][0]
            for di in range(1, min(MAX_DEVA_UNITS, n - i) + 1):
                d = "".join(units[i:i + di])
                for rj in range(1, min(MAX_ROMAN, m - j) + 1):
                    if small and di > 1 and not chunk_allowed(units[i:i + di], rj):
                        continue
                    p = prob.get((d, roman[j:j + rj]))
                    if p:
                        cand = s + math.log(p)
                        key = (i + di, j + rj)
                        if key not in best or cand > best[key][0]:
                            best[key] = (cand, (i, j, d, roman[j:j + rj]))
    if (n, m) not in best:
        return None
    out = []
    key = (n, m)
    while best[key][1] is not None:
        i, j, d, r = best[key][1]
        out.append((d, r))
        key = (i, j)
    return out[::-1]


# --- joint n-gram ----------------------------------------------------------------------------------------------

def _chunk_ids(sequences):
    """The chunk-pair vocabulary (``<s>``, ``</s>``, then tokens in first-seen order) and each weighted
    sequence as token ids."""
    vocab = ["<s>", "</s>"]
    index = {v: i for i, v in enumerate(vocab)}
    seqs = []
    for seq, weight in sequences:
        ids = []
        for d, r in seq:
            tok = d + "\t" + r
            if tok not in index:
                index[tok] = len(vocab)
                vocab.append(tok)
            ids.append(index[tok])
        seqs.append((ids, weight))
    return vocab, seqs


def _context_counts(seqs, order):
    """``counts[k][context of k ids][next id]``: weighted raw counts of every order, padded sequences."""
    counts = [defaultdict(Counter) for _ in range(order)]
    for ids, weight in seqs:
        full = [BOS] * (order - 1) + ids + [EOS]
        for pos in range(order - 1, len(full)):
            for k in range(order):
                counts[k][tuple(full[pos - k:pos])][full[pos]] += weight
    return counts


def train_ngram(sequences, order: int, min_top_count: float = 0, prune_from: int | None = None):
    """Interpolated Witten-Bell n-gram over chunk-pair tokens, stored in back-off form.

    Returns ``(vocab, tables)``: ``tables[k]`` maps a context of k tokens (ids joined by spaces) to
    ``[log back-off weight, {token id: log p}]``. Contexts of ``prune_from`` tokens or more (default: only the
    longest) seen fewer than ``3 * min_top_count`` times are left out (their tokens back off).
    """
    vocab, seqs = _chunk_ids(sequences)
    counts = _context_counts(seqs, order)
    # unigram
    uni = counts[0][()]
    total = sum(uni.values())
    v = len(vocab)
    probs: list[dict] = [dict() for _ in range(order)]
    p_uni = {t: (uni.get(t, 0) + 0.1) / (total + 0.1 * v) for t in range(1, v)}
    probs[0][()] = (0.0, p_uni)
    for k in range(1, order):
        for ctx, c in counts[k].items():
            if k >= (order - 1 if prune_from is None else prune_from) and min_top_count \
                    and sum(c.values()) < min_top_count * 3:
                continue
            n, types = sum(c.values()), len(c)
            lam = types / (n + types)
            lower = ctx[1:]
            table = {}
            for t, ct in c.items():
                table[t] = (ct + types * _prob(probs, lower, t)) / (n + types)
            probs[k][ctx] = (lam, table)
    return vocab, _backoff_tables(probs)


def train_ngram_kn(sequences, order):
    """Interpolated modified Kneser-Ney (Chen & Goodman 1999), stored in back-off form like ``train_ngram``.

    Lower orders count the distinct tokens a context is seen before (continuation counts), except contexts that
    start at the word's padding, which have no left neighbour and keep their raw counts. Three discounts per order
    come from the counts of counts.
    """
    vocab, seqs = _chunk_ids(sequences)
    # counts[k][ctx][w]: raw for the top order, continuation counts below
    raw = _context_counts(seqs, order)
    counts = [defaultdict(Counter) for _ in range(order)]
    counts[order - 1] = raw[order - 1]
    for k in range(order - 1, 0, -1):
        for ctx, c in raw[k].items():
            for w in c:
                counts[k - 1][ctx[1:]][w] += 1  # continuation: distinct left extensions
    for k in range(order - 1):
        for ctx, c in raw[k].items():
            if ctx and ctx[0] == BOS:
                counts[k][ctx] = Counter(c)  # after the padding there is no left extension: raw counts
    discounts = []
    for k in range(order):
        coc = Counter()
        for c in counts[k].values():
            for v in c.values():
                if v <= 4:
                    coc[round(v)] += 1
        n1, n2, n3, n4 = (coc[i] or 1 for i in (1, 2, 3, 4))
        y = n1 / (n1 + 2 * n2)
        discounts.append((max(0.05, 1 - 2 * y * n2 / n1), max(0.05, 2 - 3 * y * n3 / n2),
                          max(0.05, 3 - 4 * y * n4 / n3)))
    v = len(vocab)
    probs: list[dict] = [{} for _ in range(order)]

    def disc(k, x):
        d = discounts[k]
        return 0.0 if x <= 0 else (d[0] if x < 1.5 else d[1] if x < 2.5 else d[2])
    c0 = counts[0][()]
    tot = sum(c0.values())
    gam = sum(disc(0, x) for x in c0.values()) / tot
    p_uni = {t: (max(c0.get(t, 0) - disc(0, c0.get(t, 0)), 0) / tot + gam / (v - 1)) for t in range(1, v)}
    probs[0][()] = (0.0, p_uni)
    for k in range(1, order):
        for ctx, c in counts[k].items():
            n = sum(c.values())
            g = sum(disc(k, x) for x in c.values()) / n
            lower = ctx[1:]
            probs[k][ctx] = (g, {t: (x - disc(k, x)) / n + g * _prob(probs, lower, t) for t, x in c.items()})
    return vocab, _backoff_tables(probs)


def _backoff_tables(probs):
    """The stored form: per order, context ids joined by spaces -> [log back-off weight, {id: log p}]."""
    return [{" ".join(map(str, ctx)): [round(math.log(lam), 4) if lam else 0.0,
                                       {str(t): round(math.log(p), 4) for t, p in table.items()}]
             for ctx, (lam, table) in level.items()}
            for level in probs]


def _prob(probs, ctx, t):
    k = len(ctx)
    entry = probs[k].get(ctx)
    if entry is None:
        return _prob(probs, ctx[1:], t)
    lam, table = entry
    if t in table:
        return table[t]
    if k == 0:
        return 1e-9
    return lam * _prob(probs, ctx[1:], t)


def option_logp(vocab: list[str], sequences) -> dict[str, float]:
    """log share of each token among all aligned chunks: how common a spelling of a chunk is, whatever the
    smoothing (the search tries a chunk's spellings by this, not by the smoothed unigram)."""
    index = {v: i for i, v in enumerate(vocab)}
    counts: Counter = Counter()
    for seq, weight in sequences:
        for d, r in seq:
            counts[index[d + "\t" + r]] += weight
    total = sum(counts.values())
    return {str(t): round(math.log(c / total), 4) for t, c in sorted(counts.items())}


def add_lexicon_only(model: dict, sequences, penalty: float = LEXICON_ONLY_PENALTY, min_count: int = 2) -> int:
    """Add the chunks of a small-chunk alignment that the model lacks as tokens tried only inside lexicon words,
    with their unigram log share plus ``penalty`` and no context of their own. Returns how many were added."""
    counts: Counter = Counter()
    for seq, weight in sequences:
        for d, r in seq:
            counts[d + "\t" + r] += weight
    total = sum(counts.values())
    index = {v: i for i, v in enumerate(model["vocab"])}
    added = []
    for tok, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        if tok in index or c < min_count:
            continue
        tid = len(model["vocab"])
        model["vocab"].append(tok)
        index[tok] = tid
        added.append(tid)
        lp = round(math.log(c / total) + penalty, 4)
        model["tables"][0][""][1][str(tid)] = lp
        model["option_logp"][str(tid)] = lp
    model["lexicon_only"] = added
    return len(added)


# --- English pronunciations -------------------------------------------------------------------------------

CMUDICT = Path("/usr/share/festival/dicts/cmu/cmudict-0.4.out")
# ARPAbet as festival writes it, one symbol per phoneme so the joint model's chunks of up to MAX_ROMAN "letters" span up
# to four phonemes: consonants as Latin letters, each vowel as two Greek ones (unstressed, stressed; the schwa ``ax``
# and an unstressed ``ah`` sound alike but are kept apart as the dictionary gives them).
CONSONANT_PHONES = dict(b="b", ch="c", d="d", dh="D", f="f", g="g", hh="h", jh="j", k="k", l="l", m="m", n="n", ng="N",
                        p="p", r="r", s="s", sh="S", t="t", th="T", v="v", w="w", y="y", z="z", zh="Z")
VOWEL_PHONES = ("aa", "ae", "ah", "ao", "aw", "ax", "ay", "eh", "er", "ey", "ih", "iy", "ow", "oy", "uh", "uw")
# Pronunciations kept per word (the dictionary's first ones: its variants by part of speech).
PRONUNCIATIONS_PER_WORD = 2


def phone_symbol(phone: str, stressed: bool) -> str:
    if phone in CONSONANT_PHONES:
        return CONSONANT_PHONES[phone]
    return chr(0x3B1 + 2 * VOWEL_PHONES.index(phone) + stressed)


def cmu_pronunciations(path: Path = CMUDICT) -> dict[str, list[str]]:
    """Each lower-case a–z word of festival's CMUdict 0.4 (Debian's festlex-cmu) with its pronunciations as phoneme
    symbols (``phone_symbol``), a syllable's stress carried by its vowel."""
    prons: dict[str, list[str]] = defaultdict(list)
    line_re = re.compile(r'\("([^"]+)" \S+ (.*)\)\s*$')
    syllable_re = re.compile(r"\(\(([a-z ]+)\) (\d)\)")
    for line in path.read_text(encoding="latin-1").splitlines():
        m = line_re.match(line)
        if not m or not re.fullmatch("[a-z]+", m.group(1)):
            continue
        phones = "".join(phone_symbol(ph, int(stress) > 0)
                         for syllable, stress in syllable_re.findall(m.group(2)) for ph in syllable.split())
        word = m.group(1)
        if phones and phones not in prons[word] and len(prons[word]) < PRONUNCIATIONS_PER_WORD:
            prons[word].append(phones)
    return dict(prons)


def write_pronunciations(prons: dict[str, list[str]], path: Path = PRONUNCIATIONS_PATH) -> None:
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=9) as fh:
        for word in sorted(prons):
            fh.write(word + "\t" + "\t".join(prons[word]) + "\n")


def english_model(pairs, prons) -> dict:
    """The joint model of English phonemes and Devanagari, from the pairs whose Roman side is an English word (its first
    pronunciation): how Hindi writes an English word it borrows (``character`` → कैरेक्टर), which the Roman letters
    say poorly. Some pairs are Hindi words that happen to spell an English one (``main`` → मैं); they are few."""
    english = [(prons[r][0], d, c) for r, d, c in pairs if r in prons]
    seqs = [(seq, 1) for seq, _ in align(english, 4)]
    vocab, tables = train_ngram_kn(seqs, 4)
    print(f"English model: {len(english)} pairs, {len(vocab)} chunk pairs")
    return {"order": 4, "vocab": vocab, "tables": tables, "option_logp": option_logp(vocab, seqs)}


# --- lexicon -----------------------------------------------------------------------------------------------

def is_devanagari_word(w: str) -> bool:
    return bool(w) and all("\u0900" <= ch <= "\u097f" or ch in "\u200c\u200d" for ch in w) and not any(
        "\u0966" <= ch <= "\u096f" or ch in "\u0964\u0965" for ch in w)


HUNSPELL_DIC = Path("/usr/share/hunspell/hi_IN.dic")
APERTIUM_ATT = Path("/usr/share/apertium/apertium-hin/hin.automorf.att.gz")
FREEDICT = Path("/usr/share/dictd/freedict-eng-hin.dict.dz")
# Vowels of South Indian scripts' transliteration (ऎ ऒ ॆ ॊ): Hindi never writes them; apertium's paradigms do.
_NOT_HINDI = set("\u090e\u0912\u0946\u094a")


def is_hindi_form(w: str) -> bool:
    return is_devanagari_word(w) and not (set(w) & _NOT_HINDI)


def hunspell_words(path: Path = HUNSPELL_DIC) -> set[str]:
    """The hunspell-hi stems (its .aff has no affix rules, so the stems are the forms)."""
    lines = path.read_text(encoding="utf-8").splitlines()[1:]
    return {unicodedata.normalize("NFC", line.split("/")[0].strip()) for line in lines if line.strip()}


def apertium_forms(path: Path = APERTIUM_ATT) -> set[str]:
    """Every surface form apertium-hin's analyser accepts (lemma × paradigm: the inflections), read from its
    AT&T transducer by walking each section's paths without revisiting a state."""
    sections: list[tuple[dict[int, list[tuple[int, str]]], set[int]]] = [(defaultdict(list), set())]
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            parts = line.rstrip("\n").split("\t")
            if parts[0].startswith("--"):
                sections.append((defaultdict(list), set()))
            elif len(parts) >= 4:
                sections[-1][0][int(parts[0])].append((int(parts[1]), parts[2]))
            elif parts[0]:
                sections[-1][1].add(int(parts[0]))
    forms: set[str] = set()
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 100_000))
    try:
        for arcs, finals in sections:
            _walk(arcs, finals, 0, "", set(), forms)
    finally:
        sys.setrecursionlimit(limit)
    return {unicodedata.normalize("NFC", w) for w in forms}


def _walk(arcs, finals, state: int, word: str, on_path: set[int], out: set[str]) -> None:
    if state in finals:
        out.add(word)
    if len(word) > 24:
        return
    on_path.add(state)
    tried = set()
    for nxt, sym in arcs[state]:
        ch = "" if sym in ("ε", "@0@") else sym
        if nxt in on_path or (ch and not ("\u0900" <= ch <= "\u097f")) or (nxt, ch) in tried:
            continue
        tried.add((nxt, ch))
        _walk(arcs, finals, nxt, word + ch, on_path, out)
    on_path.discard(state)


def freedict_words(path: Path = FREEDICT) -> set[str]:
    """The Hindi words of the FreeDict English–Hindi dictionary (dictzip is gzip-readable)."""
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        text = fh.read()
    words, run = set(), []
    for ch in text + " ":
        if "\u0900" <= ch <= "\u097f" or ch in "\u200c\u200d":
            run.append(ch)
        elif run:
            words.add(unicodedata.normalize("NFC", "".join(run)))
            run = []
    return words


def build_lexicon(train_words) -> dict[str, float]:
    import wordfreq  # build-time only

    lex: dict[str, float] = {}
    for w, f in wordfreq.get_frequency_dict("hi").items():
        w = unicodedata.normalize("NFC", w)
        if is_devanagari_word(w):
            lex[w] = max(lex.get(w, 0.0), f)
    floor = min(lex.values())
    dump = subprocess.run("aspell -d hi dump master | aspell -l hi expand", shell=True, check=True,
                          capture_output=True, text=True).stdout
    for line in dump.split():
        w = unicodedata.normalize("NFC", line.strip())
        if is_devanagari_word(w) and w not in lex:
            lex[w] = floor / 2
    for w in train_words:
        if is_devanagari_word(w) and w not in lex:
            lex[w] = floor / 2
    # Spell-checker and dictionary word lists: more inflected forms (coverage of held-out train words 70% → 76%).
    for w in sorted(hunspell_words() | apertium_forms() | freedict_words()):
        if is_hindi_form(w) and w not in lex:
            lex[w] = floor / 2
    return lex


# --- learned reranker ------------------------------------------------------------------------------------------

# The gradient-boosted trees that reorder the best RERANK_TOP candidates: small, so scoring stays well under a
# millisecond a word in pure Python; chosen leave-one-fold-out on the ten folds' lists (``--fit-rerank-folds``):
# 30 trees of depth 4 at rate 0.2 gave top-1 0.6839, 60 of depth 5 at 0.1 0.6898, 100 of depth 6 0.6955, 200 0.6974
# (top-5 0.871 throughout).
RERANK_TREES, RERANK_DEPTH, RERANK_RATE = 100, 6, 0.1
# Train words are held out fold by fold (``--fold``) to give the reranker lists from models that never saw them.
FOLDS = 10


def rerank_lists(model, rows) -> list[tuple[list[list[float]], int, str]]:
    """For each (roman, gold) row: the feature rows of the candidates the trees reorder (the best RERANK_TOP, then the
    English, acronym and variant candidates), the gold's index among them (-1 if absent) and the gold word, exactly as
    ``RomanizationModel.rank`` computes them."""
    lists = []
    for roman, gold in rows:
        letters = roman_letters(roman)
        words, feats = model.rerank_rows(letters, *model.ranked(letters))
        if not words:
            continue
        words = [unicodedata.normalize("NFC", w) for w in words]
        lists.append((feats, words.index(gold) if gold in words else -1, gold))
    return lists


def fit_trees(lists, trees: int = RERANK_TREES, depth: int = RERANK_DEPTH, rate: float = RERANK_RATE):
    """A gradient-boosted classifier of "is this the gold spelling" over the candidates' feature rows (scikit-learn,
    build time only), exported for ``tree_score``."""
    import numpy as np
    from sklearn.ensemble import HistGradientBoostingClassifier

    x = np.array([row for feats, *_ in lists for row in feats])
    y = np.array([i == gold for feats, gold, *_ in lists for i in range(len(feats))])
    clf = HistGradientBoostingClassifier(max_iter=trees, learning_rate=rate, max_depth=depth,
                                         max_leaf_nodes=2 ** depth, early_stopping=False, random_state=0)
    clf.fit(x, y)
    return export_trees(clf)


def export_trees(clf) -> list:
    """A fitted HistGradientBoostingClassifier's trees as nested lists: a leaf value, or [feature, threshold, left,
    right] (left when the feature is <= threshold, as scikit-learn decides for numeric features)."""
    def node(nodes, i):
        nd = nodes[i]
        if nd["is_leaf"]:
            return round(float(nd["value"]), 5)
        return [int(nd["feature_idx"]), float(nd["num_threshold"]), node(nodes, nd["left"]), node(nodes, nd["right"])]
    return [node(pred[0].nodes, 0) for pred in clf._predictors]


def rerank_accuracy(lists, trees) -> tuple[float, float]:
    """Top-1 and top-5 over the lists after ordering them by the trees (no trees: the hand-weighted order)."""
    from corpus.romanization import tree_score

    top1 = top5 = 0
    for feats, gold, *_ in lists:
        if gold < 0:
            continue
        scores = [tree_score(trees, row) for row in feats] if trees else [-i for i in range(len(feats))]
        pos = sum(1 for i, sc in enumerate(scores) if sc > scores[gold] or (sc == scores[gold] and i < gold))
        top1 += pos == 0
        top5 += pos < 5
    return top1 / len(lists), top5 / len(lists)


def cross_validate(lists, folds: int = 5) -> tuple[float, float, float, float]:
    """Held-out figures of the reranker: (top-1, top-5) of the hand-weighted order and of trees fitted on the other
    folds, over lists that have at least one candidate. A gold word's lists share a fold, so no fold is scored by
    trees that saw another romanization of its words."""
    word_fold = {w: i % folds for i, w in enumerate(sorted({x[2] for x in lists}))}
    return grouped_accuracy([[x for x in lists if word_fold[x[2]] == f] for f in range(folds)])


def grouped_accuracy(groups) -> tuple[float, float, float, float]:
    """(top-1, top-5) of the hand-weighted order over every group's lists, then of each group ordered by trees fitted
    on the other groups only."""
    every = [x for group in groups for x in group]
    base = rerank_accuracy(every, [])
    hits1 = hits5 = 0.0
    for i, test in enumerate(groups):
        t1, t5 = rerank_accuracy(test, fit_trees([x for j, group in enumerate(groups) if j != i for x in group]))
        hits1 += t1 * len(test)
        hits5 += t5 * len(test)
    return base[0], base[1], hits1 / len(every), hits5 / len(every)


def fit_rerank(rows_path: Path, model_path: Path, lexicon_path: Path, into: Path, folds: int = 5) -> None:
    """Fit the reranker on a held-out model's candidate lists for its held-out rows and store the trees in the
    model file ``into`` (the shipped one: the features are relative, so lists from the held-out model carry over)."""
    lists = heldout_lists(model_path, lexicon_path, rows_path)
    if folds:
        b1, b5, c1, c5 = cross_validate(lists, folds)
        print(f"reranker, {folds}-fold on {len(lists)} held-out lists: top-1 {b1:.4f} -> {c1:.4f}, "
              f"top-5 {b5:.4f} -> {c5:.4f}")
    store_trees(fit_trees(lists), into)


def heldout_lists(model_path: Path, lexicon_path: Path, rows_path: Path) -> list:
    """``rerank_lists`` of a held-out model (without its trees) for the rows it never saw."""
    from corpus import romanization

    model = romanization.RomanizationModel(
        json.loads(gzip.decompress(model_path.read_bytes()).decode("utf-8")) | {"rerank_trees": []},
        romanization.read_lexicon(lexicon_path), read_pronunciations(PRONUNCIATIONS_PATH))
    rows = []
    for line in rows_path.read_text(encoding="utf-8").splitlines():
        roman, deva, _ = line.split("\t")
        rows.append((roman, unicodedata.normalize("NFC", deva)))
    return rerank_lists(model, rows)


def store_trees(trees: list, into: Path) -> None:
    """Write the reranker's trees into the model file ``into``, leaving the rest of it as it is."""
    replace_in_model(into, rerank_trees=trees)
    print(f"reranker: {len(trees)} trees written to {into}")


def replace_in_model(path: Path, **parts) -> None:
    """Replace these parts of the model file at ``path`` (the reranker, the English model), keeping the rest."""
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        model = json.load(fh)
    model.update(parts)
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=9) as fh:
        json.dump(model, fh, ensure_ascii=False, separators=(",", ":"))


def fold_words(words: Sequence[str], fold: int, folds: int = FOLDS) -> set[str]:
    """The train words fold ``fold`` holds out: a seeded shuffle cut into ``folds`` parts, so the folds partition
    the words and every word's lists come from a model that never saw it."""
    order = sorted(words)
    random.Random(12).shuffle(order)
    return set(order[fold::folds])


def fit_rerank_folds(root: Path, into: Path) -> None:
    """Fit the reranker on every fold's candidate lists (``--fold``): ten times the rows of one held-out tenth, so the
    trees can use more inputs without learning one tenth's accidents. The figure printed first is leave-one-fold-out:
    each fold's lists ordered by trees fitted on the other folds only."""
    by_fold = []
    for fold_dir in sorted(d for d in root.glob("fold*") if d.is_dir()):
        by_fold.append(heldout_lists(fold_dir / "model.json.gz", fold_dir / "lexicon.tsv.gz", fold_dir / "holdout.tsv"))
        print(f"{fold_dir.name}: {len(by_fold[-1])} lists", flush=True)
    every = [x for lists in by_fold for x in lists]
    b1, b5, c1, c5 = grouped_accuracy(by_fold)
    print(f"reranker, leave-one-fold-out on {len(every)} lists of {len(by_fold)} folds: top-1 {b1:.4f} -> {c1:.4f}, "
          f"top-5 {b5:.4f} -> {c5:.4f}")
    store_trees(fit_trees(every), into)


def align(pairs, iterations: int, small: bool = False) -> list:
    """EM, then each pair's Viterbi chunk sequence (weighted by its annotator count)."""
    prob = em_align(pairs, iterations, small)
    seqs = []
    for r, d, c in pairs:
        seq = viterbi_align(deva_units(d), r, prob, small)
        if seq:
            seqs.append((seq, c))
    print(f"aligned {len(seqs)} of {len(pairs)} pairs{' (small chunks)' if small else ''}")
    return seqs


# Hindi running text for the word bigrams (``corpus.word_context``): LibreOffice's Hindi help and interface messages,
# as Debian's ``libreoffice-help-hi`` and ``libreoffice-l10n-hi`` install them (or ``dpkg-deb -x`` unpacks them).
LIBREOFFICE_HELP = Path("/usr/share/libreoffice/help/hi")
LIBREOFFICE_MESSAGES = Path("/usr/lib/libreoffice/program/resource/hi/LC_MESSAGES")
_BLOCK_TAGS = {"p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "td", "th", "div", "title", "br", "tr", "table", "dt",
               "dd"}


def html_blocks(html: str) -> list[str]:
    """The text of each block element (paragraph, heading, list item, cell) of an HTML page, scripts left out."""
    from html.parser import HTMLParser

    blocks: list[str] = []

    class Blocks(HTMLParser):
        def __init__(self):
            super().__init__(convert_charrefs=True)
            self.parts: list[str] = []
            self.skip = 0

        def flush(self):
            if self.parts:
                blocks.append("".join(self.parts))
                self.parts = []

        def handle_starttag(self, tag, attrs):
            if tag in ("script", "style"):
                self.skip += 1
            elif tag in _BLOCK_TAGS:
                self.flush()

        def handle_endtag(self, tag):
            if tag in ("script", "style"):
                self.skip = max(0, self.skip - 1)
            elif tag in _BLOCK_TAGS:
                self.flush()

        def handle_data(self, data):
            if not self.skip:
                self.parts.append(data)

    parser = Blocks()
    parser.feed(html)
    parser.close()
    parser.flush()
    return blocks


def message_texts(mo_path: Path) -> list[str]:
    """The translated messages of a gettext .mo file, without the ``~``/``_`` that mark a menu's access key."""
    import gettext

    with mo_path.open("rb") as fh:
        catalog = gettext.GNUTranslations(fh)._catalog  # the only way gettext lists a .mo file's messages
    return [re.sub(r"[~_&]", "", v) for k, v in sorted(catalog.items(), key=lambda kv: str(kv[0])) if k and v]


def libreoffice_texts(help_dir: Path = LIBREOFFICE_HELP, messages_dir: Path = LIBREOFFICE_MESSAGES) -> list[str]:
    """Every Hindi text block of the LibreOffice help pages and interface messages, NFC, in a fixed order."""
    texts: list[str] = []
    for page in sorted(help_dir.rglob("*.html")):
        texts.extend(html_blocks(page.read_text(encoding="utf-8", errors="replace")))
    for mo in sorted(messages_dir.glob("*.mo")):
        texts.extend(message_texts(mo))
    return [unicodedata.normalize("NFC", t) for t in texts if t.strip()]


def write_bigrams(texts: Sequence[str], out: Path, holdout: float = 0.0, holdout_out: Path | None = None) -> None:
    """Count the texts' word bigrams into ``out`` (``prev<TAB>word<TAB>count``, sorted); with ``holdout`` a share of
    the distinct texts (seeded) is left out and written to ``holdout_out``, one per line, for tuning."""
    from corpus.word_context import bigram_counts

    distinct = list(dict.fromkeys(texts))
    held: set[str] = set()
    if holdout:
        held = set(random.Random(26).sample(distinct, int(len(distinct) * holdout)))
        assert holdout_out is not None
        holdout_out.write_text("".join(t.replace("\n", " ") + "\n" for t in distinct if t in held), encoding="utf-8")
    counts = bigram_counts([t for t in texts if t not in held])
    rows = sorted((prev, word, n) for prev, followers in counts.items() for word, n in followers.items())
    out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(out, "wt", encoding="utf-8", compresslevel=9) as fh:
        for prev, word, n in rows:
            fh.write(f"{prev}\t{word}\t{n}\n")
    print(f"bigrams: {len(rows)} distinct pairs, {sum(n for *_, n in rows)} in all, from {len(texts)} text blocks")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", type=Path, default=DAKSHINA / "hi.translit.sampled.train.tsv")
    ap.add_argument("--order", type=int, default=4)
    ap.add_argument("--char-order", type=int, default=6)
    ap.add_argument("--iterations", type=int, default=4)
    ap.add_argument("--smoothing", choices=("kn", "wb"), default="kn", help="Kneser-Ney or Witten-Bell")
    ap.add_argument("--count-weighted", action="store_true",
                    help="weight each pair by its annotator count in the n-gram (default: each pair once)")
    ap.add_argument("--no-lexicon-only", dest="lexicon_only", action="store_false",
                    help="skip the small-chunk alignment's lexicon-only tokens")
    ap.add_argument("--holdout", type=float, default=0.0,
                    help="leave out this share of train words (for tuning); written to --holdout-out, "
                         "and the model and lexicon built without them (give --model-out and --lexicon-out)")
    ap.add_argument("--holdout-out", type=Path, default=Path("/tmp/translit_holdout.tsv"))
    ap.add_argument("--fold", type=int, metavar="K",
                    help=f"leave out the train words of fold K of {FOLDS} instead (0..{FOLDS - 1}): every train word is "
                         "held out by exactly one fold; writes holdout.tsv, model.json.gz and lexicon.tsv.gz into --fold-dir")
    ap.add_argument("--fold-dir", type=Path, default=Path("/tmp/translit_folds"))
    ap.add_argument("--fit-rerank", type=Path, metavar="ROWS",
                    help="instead of building: fit the reranker on these held-out rows with the held-out model and "
                         "lexicon given as --model-out and --lexicon-out, and store it in --rerank-into")
    ap.add_argument("--fit-rerank-folds", type=Path, metavar="DIR",
                    help="instead of building: fit the reranker on the candidate lists of every fold built into DIR "
                         "by --fold (each fold's rows by the model that never saw them), scored fold by fold first, "
                         "and store it in --rerank-into")
    ap.add_argument("--english-only", action="store_true",
                    help="only (re)build the English model and the pronunciations, into the model already at "
                         "--model-out (or the --fold's), from the same pairs a full build would use")
    ap.add_argument("--bigrams-only", action="store_true",
                    help="only (re)build the word bigram counts of corpus.word_context (--bigrams-out) from the Hindi "
                         "LibreOffice help and messages (--libreoffice-help, --libreoffice-messages)")
    ap.add_argument("--bigrams-out", type=Path, default=BIGRAMS_PATH)
    ap.add_argument("--bigrams-holdout", type=float, default=0.0,
                    help="leave out this share of the text blocks (written to --bigrams-holdout-out) for tuning")
    ap.add_argument("--bigrams-holdout-out", type=Path, default=Path("/tmp/bigrams_holdout.txt"))
    ap.add_argument("--libreoffice-help", type=Path, default=LIBREOFFICE_HELP)
    ap.add_argument("--libreoffice-messages", type=Path, default=LIBREOFFICE_MESSAGES)
    ap.add_argument("--rerank-into", type=Path, default=MODEL_PATH)
    ap.add_argument("--model-out", type=Path, default=MODEL_PATH)
    ap.add_argument("--lexicon-out", type=Path, default=LEXICON_PATH)
    args = ap.parse_args(argv)
    if args.bigrams_only:
        write_bigrams(libreoffice_texts(args.libreoffice_help, args.libreoffice_messages), args.bigrams_out,
                      args.bigrams_holdout, args.bigrams_holdout_out)
        return
    if args.fit_rerank:
        fit_rerank(args.fit_rerank, args.model_out, args.lexicon_out, args.rerank_into)
        return
    if args.fit_rerank_folds:
        fit_rerank_folds(args.fit_rerank_folds, args.rerank_into)
        return

    pairs = read_pairs(args.train)
    words = sorted({d for _, d, _ in pairs})
    held: set[str] = set()
    if args.fold is not None:
        fold_dir = args.fold_dir / f"fold{args.fold}"
        fold_dir.mkdir(parents=True, exist_ok=True)
        held = fold_words(words, args.fold)
        args.holdout_out = fold_dir / "holdout.tsv"
        args.model_out, args.lexicon_out = fold_dir / "model.json.gz", fold_dir / "lexicon.tsv.gz"
    elif args.holdout:
        rng = random.Random(12)
        held = set(rng.sample(words, int(len(words) * args.holdout)))
    if held:
        with args.holdout_out.open("w", encoding="utf-8") as fh:
            for r, d, c in pairs:
                if d in held:
                    fh.write(f"{r}\t{d}\t{c}\n")  # Dakshina's column order: bench_translit --dev reads it
        pairs = [p for p in pairs if p[1] not in held]
    pairs += loanword_pairs()
    prons = cmu_pronunciations()
    if args.fold is None and not args.holdout:
        write_pronunciations(prons)
    if args.english_only:
        replace_in_model(args.model_out, english=english_model(pairs, prons))
        return
    seqs = align(pairs, args.iterations)
    if not args.count_weighted:
        seqs = [(seq, 1) for seq, _ in seqs]  # each attested romanization once: its variety matters, not its votes
    vocab, tables = (train_ngram_kn if args.smoothing == "kn" else train_ngram)(seqs, args.order)
    model = {"order": args.order, "vocab": vocab, "tables": tables, "option_logp": option_logp(vocab, seqs)}
    if args.lexicon_only:
        print(f"lexicon-only tokens: {add_lexicon_only(model, align(pairs, args.iterations, small=True))}")
    model["english"] = english_model(pairs, prons)
    args.model_out.parent.mkdir(parents=True, exist_ok=True)
    lex = build_lexicon([w for w in words if w not in held])
    char_vocab, char_tables = train_ngram([([(ch, "") for ch in w], 1) for w in sorted(lex)], args.char_order,
                                          min_top_count=2, prune_from=min(4, args.char_order - 1))
    with gzip.open(args.model_out, "wt", encoding="utf-8", compresslevel=9) as fh:
        json.dump({**model, "char_order": args.char_order, "char_vocab": [v.split("\t")[0] for v in char_vocab],
                   "char_tables": char_tables}, fh, ensure_ascii=False, separators=(",", ":"))
    with gzip.open(args.lexicon_out, "wt", encoding="utf-8", compresslevel=9) as fh:
        for w, f in sorted(lex.items(), key=lambda kv: (-kv[1], kv[0])):
            fh.write(f"{w}\t{f:.3g}\n")
    print(f"model: {len(model['vocab'])} chunk pairs, lexicon: {len(lex)} words")


if __name__ == "__main__":
    main()
