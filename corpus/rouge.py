"""ROUGE-L F (beta = 1) between translations, over canonical words.

Values equal ``rouge_score.rouge_scorer.RougeScorer(['rougeL'], tokenizer=CanonicalWords())``'s
``fmeasure`` with the first text as target and the second as prediction: rouge-score's default
tokenizer drops Devanagari, so it must be given ours. The longest common subsequence is computed
bit-parallel over Python ints (Allison-Dix / Hyyrö), one mask per distinct word, which is what
makes agreement over a whole corpus take well under a second.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import chain

import numpy as np

from corpus.tokens import TOKENIZER_SIGNATURE, is_word, tokenize, words

ROUGE_SETTINGS = "rougeL F beta=1 (LCS, sentence level), no stemming, canonical words case-folded"
ROUGE_SIGNATURE = f"rougeL|f|beta=1|words={TOKENIZER_SIGNATURE}|casefold|nostem"


class CanonicalWords:
    """The tokenizer object rouge-score takes: our words, never its ASCII-only default."""

    def tokenize(self, text: str) -> list[str]:
        return words(text or "")


_BOUNDARY = "\x00"


class WordNumbering:
    """Numbers words (equal words, equal ints) and remembers each whitespace piece's word numbers,
    so that pieces seen in an earlier chunk of a corpus are not tokenized again."""

    def __init__(self) -> None:
        self.vocabulary: dict[str, int] = {}
        self.pieces: dict[str, tuple[int, ...]] = {}

    def _tokenize(self, pieces: list[str]) -> None:
        """Tokenizes new pieces in one pass: a NUL token separates them, and neither NFC nor the
        tokenizer lets anything cross it (pieces holding a NUL themselves go one by one)."""
        vocabulary = self.vocabulary
        joined = f" {_BOUNDARY} ".join(pieces)
        if joined.count(_BOUNDARY) != len(pieces) - 1:
            for piece in pieces:
                self.pieces[piece] = tuple(vocabulary.setdefault(w, len(vocabulary)) for w in words(piece))
            return
        current: list[int] = []
        found = iter(pieces)
        for token in tokenize(joined):
            if token == _BOUNDARY:
                self.pieces[next(found)] = tuple(current)
                current = []
            elif is_word(token):
                current.append(vocabulary.setdefault(token.casefold(), len(vocabulary)))
        self.pieces[next(found)] = tuple(current)

    def piece_words(self, pieces: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Word numbers of the given pieces, flat, and where each piece's start (one extra end entry)."""
        known = self.pieces
        new = [p for p in pieces if p not in known]
        if new:
            self._tokenize(new)
        numbers = list(map(known.__getitem__, pieces))
        piece_start = np.zeros(len(pieces) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, numbers), dtype=np.int64, count=len(numbers)), out=piece_start[1:])
        flat = np.fromiter(chain.from_iterable(numbers), dtype=np.int64, count=int(piece_start[-1]))
        return flat, piece_start


def word_id_arrays(texts: Sequence[str | None], numbering: WordNumbering | None = None) -> tuple[np.ndarray, np.ndarray]:
    """All texts' words as ints in one flat array (equal words, equal ints), with each text's word count.

    A text's words are the words of its whitespace-separated pieces (whitespace never belongs to a
    word and NFC never composes across it), and pieces repeat a lot in a corpus: Arrow splits the
    texts and numbers the distinct pieces in C, each distinct piece is tokenized once (``numbering``
    carries that over calls), and numpy lays the pieces' words out text by text.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if not len(texts):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    numbering = WordNumbering() if numbering is None else numbering
    # Split at ASCII whitespace only (cheaper than Unicode's): other spaces stay inside pieces,
    # where the tokenizer drops them like any space.
    pieces = pc.ascii_split_whitespace(pa.array([t or "" for t in texts], type=pa.large_string()))
    text_start = pieces.offsets.to_numpy()
    encoded = pc.dictionary_encode(pieces.flatten())
    piece_of = encoded.indices.to_numpy(zero_copy_only=False)
    piece_words, piece_start = numbering.piece_words(encoded.dictionary.to_pylist())
    counts = np.diff(piece_start)[piece_of]
    ends = np.cumsum(counts)
    flat = piece_words[np.repeat(piece_start[piece_of] - (ends - counts), counts) + np.arange(int(ends[-1]) if len(ends) else 0)]
    words_before = np.r_[0, ends]
    return flat, words_before[text_start[1:]] - words_before[text_start[:-1]]


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


# A group's dense match table holds a mask per (text, word of the group); past this many entries per
# word of the corpus (one group with a huge vocabulary) the masks are looked up by binary search instead.
DENSE_TABLE_LIMIT = 16


def _components(n_texts: int, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Texts compared with each other, directly or through others, share a group."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    graph = coo_matrix((np.ones(len(left), dtype=np.int8), (left, right)), shape=(n_texts, n_texts))
    return connected_components(graph, directed=False)[1].astype(np.int64)


def _dense_lookup(flat: np.ndarray, lengths: np.ndarray, owner: np.ndarray, position: np.ndarray, groups: np.ndarray):
    """Match masks in one flat table: each group's words numbered 0..V-1, each text a row of V masks.

    Returns ``mask_of(texts, occurrences)`` (the mask, in each text, of the word at each flat
    position; that word must belong to the text's group) or None when the table would be too big.
    """
    vocabulary = int(flat.max()) + 1
    group_of = groups[owner]
    key = group_of * vocabulary + flat
    order = np.argsort(key)
    sorted_key = key[order]
    fresh = np.r_[True, sorted_key[1:] != sorted_key[:-1]]
    n_groups = int(groups.max()) + 1
    group_vocabulary = np.bincount(sorted_key[fresh] // vocabulary, minlength=n_groups)
    group_size = np.bincount(groups, minlength=n_groups)
    block = group_size * group_vocabulary
    if int(block.sum()) > DENSE_TABLE_LIMIT * len(flat) + _CHUNK:
        return None
    local = np.empty(len(flat), dtype=np.int64)
    local[order] = np.cumsum(fresh) - 1 - (np.cumsum(group_vocabulary) - group_vocabulary)[group_of[order]]
    by_group = np.argsort(groups, kind="stable")
    rank = np.empty(len(groups), dtype=np.int64)
    rank[by_group] = np.arange(len(groups)) - np.repeat(np.cumsum(group_size) - group_size, group_size)
    row = (np.cumsum(block) - block)[groups] + rank * group_vocabulary[groups]
    table = np.zeros(int(block.sum()), dtype=np.uint64)
    usable = position < _WORD_BITS
    np.bitwise_or.at(table, row[owner[usable]] + local[usable], np.uint64(1) << position[usable].astype(np.uint64))

    def mask_of(texts: np.ndarray, occurrences: np.ndarray) -> np.ndarray:
        return table[row[texts] + local[occurrences]]

    return mask_of


def _sorted_lookup(flat: np.ndarray, owner: np.ndarray, position: np.ndarray):
    """Match masks of every (text, word) sorted by key, found by binary search."""
    vocabulary = int(flat.max()) + 1
    usable = position < _WORD_BITS
    keys = owner[usable] * vocabulary + flat[usable]
    bits = np.uint64(1) << position[usable].astype(np.uint64)
    order = np.argsort(keys, kind="stable")
    keys, bits = keys[order], bits[order]
    first = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    mask_keys = keys[first]
    masks = np.bitwise_or.reduceat(bits, first) if len(first) else bits

    def mask_of(texts: np.ndarray, occurrences: np.ndarray) -> np.ndarray:
        wanted = texts * vocabulary + flat[occurrences]
        at = np.minimum(np.searchsorted(mask_keys, wanted), len(mask_keys) - 1)
        return np.where(mask_keys[at] == wanted, masks[at], np.uint64(0))

    return mask_of


def batch_lcs_flat(
    flat: np.ndarray, lengths: np.ndarray, left: np.ndarray, right: np.ndarray, groups: np.ndarray | None = None
) -> np.ndarray:
    """LCS lengths for every pair p of texts ``left[p]``, ``right[p]`` given as one flat word-id array.

    The same bit-parallel recurrence as ``lcs_with_masks``, run on numpy uint64 vectors (one lane
    per pair) with the shorter text of each pair as the bit vector; pairs where both texts have
    more than 64 words fall back to Python ints. ``groups`` (one id per text, both texts of a pair
    in the same group, e.g. the sentence and phase) lets the match masks sit in small dense
    tables; without it the groups are the connected components of the pairs.
    """
    left = np.asarray(left, dtype=np.int64)
    right = np.asarray(right, dtype=np.int64)
    flat = np.asarray(flat, dtype=np.int64)
    lengths = np.asarray(lengths, dtype=np.int64)
    n_pairs = len(left)
    if groups is not None:
        groups = np.unique(np.asarray(groups), return_inverse=True)[1].astype(np.int64).ravel()
        if len(groups) != len(lengths) or np.any(groups[left] != groups[right]):
            raise ValueError("batch_lcs_flat: groups must give one group per text, the same for both texts of a pair")
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
    for p in np.flatnonzero(bit_len > _WORD_BITS).tolist():
        result[p] = lcs_length(text(int(left[p])), text(int(right[p])))
    fast = np.flatnonzero((bit_len <= _WORD_BITS) & (bit_len > 0) & (lengths[other] > 0))
    if len(fast) == 0:
        return result

    groups = _components(len(lengths), left, right) if groups is None else groups
    owner = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    position = np.arange(len(flat), dtype=np.int64) - starts[owner]
    mask_of = _dense_lookup(flat, lengths, owner, position, groups) or _sorted_lookup(flat, owner, position)

    # Lanes sorted by the other text's length: at step j the lanes still walking are a suffix.
    fast = fast[np.argsort(lengths[other[fast]], kind="stable")]
    for begin in range(0, len(fast), _CHUNK):
        lanes = fast[begin:begin + _CHUNK]
        b_side = bit_side[lanes]
        o_start = starts[other[lanes]]
        o_len = lengths[other[lanes]]
        full = _full_masks(lengths[b_side])
        v = full.copy()
        first_active = np.searchsorted(o_len, np.arange(int(o_len[-1])), side="right")
        for j, k in enumerate(first_active.tolist()):
            tail = v[k:]
            u = tail & mask_of(b_side[k:], o_start[k:] + j)
            tail[:] = (tail + u) | (tail - u)
        result[lanes] = lengths[b_side] - np.bitwise_count(v & full).astype(np.int64)
    return result


# Texts per chunk of ``grouped_pair_f``: every array of a chunk is a few MB, so the allocator reuses
# the same memory chunk after chunk instead of faulting in fresh pages for corpus-sized arrays.
TEXT_CHUNK = 1 << 15


def grouped_pair_f(
    texts: Sequence[str | None], groups: np.ndarray, left: np.ndarray, right: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """ROUGE-L F of every pair (``left[p]`` the target) and every text's word count.

    Texts come sorted by group (e.g. sentence and phase), both texts of a pair in one group, and
    pairs sorted by ``left``. Word ids only need to agree within a group, so the corpus is scored
    in chunks of whole groups.
    """
    groups = np.asarray(groups)
    left = np.asarray(left, dtype=np.int64)
    right = np.asarray(right, dtype=np.int64)
    n = len(texts)
    if len(groups) != n or np.any(groups[1:] < groups[:-1]) or np.any(left[1:] < left[:-1]):
        raise ValueError("grouped_pair_f: texts must be sorted by group and pairs by their left text")
    lengths = np.zeros(n, dtype=np.int64)
    f = np.zeros(len(left), dtype=np.float64)
    group_starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]]) if n else np.zeros(0, np.int64)
    cuts = np.unique(np.r_[group_starts[np.searchsorted(group_starts, np.arange(0, n, TEXT_CHUNK), side="right") - 1], n])
    numbering = WordNumbering()
    for t0, t1 in zip(cuts[:-1].tolist(), cuts[1:].tolist()):
        flat, chunk_lengths = word_id_arrays(texts[t0:t1], numbering)
        lengths[t0:t1] = chunk_lengths
        p0, p1 = np.searchsorted(left, [t0, t1]).tolist()
        a, b = left[p0:p1] - t0, right[p0:p1] - t0
        if len(a) and (a.min() < 0 or b.min() < 0 or a.max() >= t1 - t0 or b.max() >= t1 - t0):
            raise ValueError("grouped_pair_f: a pair joins two groups")
        lcs = batch_lcs_flat(flat, chunk_lengths, a, b, groups=groups[t0:t1])
        f[p0:p1] = batch_f(lcs, chunk_lengths[a], chunk_lengths[b])
    return f, lengths


def word_counts(texts: Sequence[str | None]) -> np.ndarray:
    """Canonical words per text (``len(words(text))``), chunk by chunk."""
    numbering = WordNumbering()
    counts = [word_id_arrays(texts[i:i + TEXT_CHUNK], numbering)[1] for i in range(0, len(texts), TEXT_CHUNK)]
    return np.concatenate(counts) if counts else np.zeros(0, dtype=np.int64)


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
