"""ROUGE-L F (beta = 1) between translations, over canonical words.

Values equal ``rouge_score.rouge_scorer.RougeScorer(['rougeL'], tokenizer=CanonicalWords())``'s
``fmeasure`` with the first text as target and the second as prediction: rouge-score's default
tokenizer drops Devanagari, so it must be given ours. The longest common subsequence is computed
bit-parallel over Python ints (Allison-Dix / Hyyrö), one mask per distinct word, which is what
makes agreement over a whole corpus take well under a second.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import chain

import numpy as np

from corpus.tokens import TOKENIZER_SIGNATURE, is_word, tokenize, words

ROUGE_SETTINGS = "rougeL F beta=1 (LCS, sentence level), no stemming, canonical words case-folded"
ROUGE_SIGNATURE = f"rougeL|f|beta=1|words={TOKENIZER_SIGNATURE}|casefold|nostem"


class CanonicalWords:
    """The tokenizer object rouge-score takes: our words, never its ASCII-only default."""

    def tokenize(self, text: str) -> list[str]:
        return words(text or "")


def word_lists(texts: Iterable[str | None]) -> list[list[str]]:
    """Canonical words of many texts, the same as ``words(text)`` for each, but fast.

    Whitespace never belongs to a word and NFC never composes across it, so a text's words are
    the words of its whitespace-separated pieces; pieces repeat a lot in a corpus, so each
    distinct piece is tokenized once.
    """
    cache: dict[str, list[str]] = {}
    out: list[list[str]] = []
    for text in texts:
        result: list[str] = []
        if text:
            for piece in text.split():
                found = cache.get(piece)
                if found is None:
                    found = cache[piece] = words(piece)
                result.extend(found)
        out.append(result)
    return out


def word_id_lists(texts: Iterable[str | None], vocabulary: dict[str, int] | None = None) -> list[list[int]]:
    """Like ``word_lists`` but each word replaced by an int (equal words, equal ints), for ``batch_lcs``."""
    vocabulary = {} if vocabulary is None else vocabulary
    cache: dict[str, list[int]] = {}
    out: list[list[int]] = []
    for text in texts:
        result: list[int] = []
        if text:
            for piece in text.split():
                found = cache.get(piece)
                if found is None:
                    found = cache[piece] = [vocabulary.setdefault(w, len(vocabulary)) for w in words(piece)]
                result.extend(found)
        out.append(result)
    return out


_BOUNDARY = "\x00"


def word_id_arrays(texts: Sequence[str | None]) -> tuple[np.ndarray, np.ndarray]:
    """All texts' words as ints in one flat array, with each text's word count.

    The corpus is split on whitespace in one call (a NUL piece marks where a text ends) and each
    distinct piece is tokenized once: far fewer Python steps than text by text.
    """
    texts = [t or "" for t in texts]
    joined = f" {_BOUNDARY} ".join(texts)
    if joined.count(_BOUNDARY) != max(len(texts) - 1, 0):  # a text holds a NUL itself: go text by text
        lists = word_id_lists(texts)
        lengths = np.fromiter((len(x) for x in lists), dtype=np.int64, count=len(lists))
        return np.fromiter(chain.from_iterable(lists), dtype=np.int64, count=int(lengths.sum())), lengths
    pieces = joined.split()
    index = dict.fromkeys(pieces)
    index.pop(_BOUNDARY, None)
    vocabulary: dict[str, int] = {}
    piece_words: list[int] = []
    piece_start = np.zeros(len(index) + 2, dtype=np.int64)  # the last piece is the boundary, with no words
    # The distinct pieces are tokenized in one pass too: a NUL token separates them, and neither NFC
    # nor the tokenizer lets anything cross it.
    current = 0
    for token in tokenize(f" {_BOUNDARY} ".join(index)) if index else ():
        if token == _BOUNDARY:
            current += 1
            piece_start[current] = len(piece_words)
        elif is_word(token):
            piece_words.append(vocabulary.setdefault(token.casefold(), len(vocabulary)))
    piece_start[current + 1:] = len(piece_words)
    for i, piece in enumerate(index):
        index[piece] = i
    index[_BOUNDARY] = len(index)
    piece_of = np.array(list(map(index.__getitem__, pieces)), dtype=np.int64)
    counts = np.diff(piece_start)[piece_of]
    within = np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    flat = np.asarray(piece_words, dtype=np.int64)[np.repeat(piece_start[piece_of], counts) + within]
    if not texts:
        return flat, np.zeros(0, dtype=np.int64)
    boundary = index[_BOUNDARY]
    text_of_piece = np.cumsum(piece_of == boundary)
    lengths = np.bincount(text_of_piece, weights=counts, minlength=len(texts)).astype(np.int64)
    return flat, lengths


def word_masks(target: Sequence[str]) -> dict[str, int]:
    """Bit i of ``masks[w]`` is set where ``target[i] == w``: the match table of the bit-parallel LCS."""
    masks: dict[str, int] = {}
    bit = 1
    for w in target:
        masks[w] = masks.get(w, 0) | bit
        bit <<= 1
    return masks


def lcs_with_masks(masks: Mapping[str, int], target_len: int, other: Sequence[str]) -> int:
    """LCS length of the masked target and ``other`` (Hyyrö 2004): zeros of V count matched rows."""
    if target_len == 0 or not other:
        return 0
    full = (1 << target_len) - 1
    v = full
    get = masks.get
    for w in other:
        u = v & get(w, 0)
        v = (v + u) | (v - u)
    return target_len - (v & full).bit_count()


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    return lcs_with_masks(word_masks(a), len(a), b)


def f_from_lcs(lcs: int, target_len: int, prediction_len: int) -> float:
    """rouge-score's arithmetic, operation for operation, so values are bit-identical."""
    if target_len == 0 or prediction_len == 0:
        return 0.0
    precision = lcs / prediction_len
    recall = lcs / target_len
    if precision + recall > 0:
        return 2 * precision * recall / (precision + recall)
    return 0.0


def rouge_l_f(target: Sequence[str], prediction: Sequence[str]) -> float:
    """ROUGE-L F of two word lists (target first, as rouge-score's ``score(target, prediction)``)."""
    return f_from_lcs(lcs_length(target, prediction), len(target), len(prediction))


def rouge_l_f_text(target: str, prediction: str) -> float:
    return rouge_l_f(words(target), words(prediction))


def pairwise_f(group: Sequence[Sequence[str]]) -> dict[tuple[int, int], float]:
    """ROUGE-L F for every pair ``(i, j)``, ``i < j``, of a group's word lists (i is the target)."""
    scores: dict[tuple[int, int], float] = {}
    n = len(group)
    for i in range(n - 1):
        a = group[i]
        la = len(a)
        masks = word_masks(a) if la else {}
        for j in range(i + 1, n):
            b = group[j]
            lcs = la if (a == b) else lcs_with_masks(masks, la, b)
            scores[(i, j)] = f_from_lcs(lcs, la, len(b))
    return scores


_WORD_BITS = 64
_ALL_ONES = np.uint64(0xFFFFFFFFFFFFFFFF)
_CHUNK = 1 << 16


def _full_masks(lengths: np.ndarray) -> np.ndarray:
    short = np.minimum(lengths, _WORD_BITS - 1).astype(np.uint64)
    return np.where(lengths >= _WORD_BITS, _ALL_ONES, (np.uint64(1) << short) - np.uint64(1))


def batch_lcs(lists: Sequence[Sequence[int]], left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """LCS lengths of ``lists[left[p]]`` and ``lists[right[p]]`` for every pair p, all pairs at once."""
    lengths = np.fromiter((len(x) for x in lists), dtype=np.int64, count=len(lists))
    flat = np.fromiter(chain.from_iterable(lists), dtype=np.int64, count=int(lengths.sum()))
    return batch_lcs_flat(flat, lengths, left, right)


def batch_lcs_flat(flat: np.ndarray, lengths: np.ndarray, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """LCS lengths for every pair p of texts ``left[p]``, ``right[p]`` given as one flat word-id array.

    The same bit-parallel recurrence as ``lcs_with_masks``, run on numpy uint64 vectors (one lane
    per pair) with the shorter text of each pair as the bit vector; pairs where both texts have
    more than 64 words fall back to Python ints.
    """
    left = np.asarray(left, dtype=np.int64)
    right = np.asarray(right, dtype=np.int64)
    flat = np.asarray(flat, dtype=np.int64)
    lengths = np.asarray(lengths, dtype=np.int64)
    n_pairs = len(left)
    result = np.zeros(n_pairs, dtype=np.int64)
    if n_pairs == 0:
        return result
    starts = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])

    def text(i: int) -> list[int]:
        return flat[starts[i]:starts[i + 1]].tolist()

    swap = lengths[right] < lengths[left]
    bit_side = np.where(swap, right, left)
    other = np.where(swap, left, right)
    bit_len = lengths[bit_side]
    long_pairs = np.flatnonzero(bit_len > _WORD_BITS)
    for p in long_pairs.tolist():
        result[p] = lcs_length(text(int(left[p])), text(int(right[p])))
    fast = np.flatnonzero(bit_len <= _WORD_BITS)
    if len(fast) == 0:
        return result

    # Match masks per (text, word): bit i set where the text's i-th word is that word.
    vocabulary = int(flat.max()) + 1 if len(flat) else 1
    owner = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    position = np.arange(len(flat), dtype=np.int64) - starts[owner]
    usable = position < _WORD_BITS
    keys = owner[usable] * vocabulary + flat[usable]
    bits = np.uint64(1) << position[usable].astype(np.uint64)
    order = np.argsort(keys, kind="stable")
    keys, bits = keys[order], bits[order]
    first = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    mask_keys = keys[first]
    masks = np.bitwise_or.reduceat(bits, first) if len(first) else bits

    # Walk the other text word by word; lanes are sorted by its length so chunks stay dense.
    fast = fast[np.argsort(lengths[other[fast]], kind="stable")]
    for begin in range(0, len(fast), _CHUNK):
        lanes = fast[begin:begin + _CHUNK]
        b_side, o_side = bit_side[lanes], other[lanes]
        o_len = lengths[o_side]
        width = int(o_len.max())
        full = _full_masks(lengths[b_side])
        v = full.copy()
        if width:
            lane_of = np.repeat(np.arange(len(lanes)), o_len)
            step = np.arange(int(o_len.sum())) - np.repeat(np.cumsum(o_len) - o_len, o_len)
            wanted = b_side[lane_of] * vocabulary + flat[starts[o_side][lane_of] + step]
            at = np.minimum(np.searchsorted(mask_keys, wanted), len(mask_keys) - 1)
            found = np.where(mask_keys[at] == wanted, masks[at], np.uint64(0))
            table = np.zeros((width, len(lanes)), dtype=np.uint64)
            table[step, lane_of] = found
            for j in range(width):
                u = v & table[j]
                v = (v + u) | (v - u)
        result[lanes] = lengths[b_side] - np.bitwise_count(v & full).astype(np.int64)
    return result


def batch_f(lcs: np.ndarray, target_len: np.ndarray, prediction_len: np.ndarray) -> np.ndarray:
    """``f_from_lcs`` elementwise with the same float operations in the same order (identical values)."""
    lcs = np.asarray(lcs, dtype=np.float64)
    target_len = np.asarray(target_len, dtype=np.float64)
    prediction_len = np.asarray(prediction_len, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = lcs / prediction_len
        recall = lcs / target_len
        total = precision + recall
        f = 2 * precision * recall / total
    ok = (target_len > 0) & (prediction_len > 0) & (total > 0)
    return np.where(ok, f, 0.0)
