"""``evaluate`` inputs: a file over the cap is refused from its size before it is read, a stream that cannot
tell its size is refused once it goes past the cap, and reading keeps memory bounded whatever the file
holds (at most the test split's sentences plus one, at most MAX_ERRORS errors)."""

from __future__ import annotations

import io
import tracemalloc

from corpus.baseline import LabelledSequence
from corpus.evaluation import MAX_ERRORS, MAX_LINE_BYTES, check_predictions

GOLD = [
    LabelledSequence("restaurant/test/1", "restaurant", "test", ("खाना", "अच्छा", "था"), ("B", "O", "O")),
    LabelledSequence("restaurant/test/2", "restaurant", "test", ("स्टाफ़", "बुरा"), ("B", "O")),
    LabelledSequence("laptop/test/3", "laptop", "test", ("बैटरी", "कम"), ("B", "O")),
]
GOOD_CONLL = "खाना\tB\nअच्छा\tO\nथा\tO\n\nस्टाफ़\tB\nबुरा\tO\n\nबैटरी\tB\nकम\tO\n"


class CountingBytes(io.BytesIO):
    """A seekable file that counts the bytes handed out."""

    def __init__(self, data: bytes):
        super().__init__(data)
        self.handed_out = 0

    def read(self, size=-1):
        chunk = super().read(size)
        self.handed_out += len(chunk)
        return chunk

    def readline(self, size=-1):
        line = super().readline(size)
        self.handed_out += len(line)
        return line


class Endless(io.RawIOBase):
    """A stream that cannot tell its size (no fileno, no seek): ``block`` over and over, ``total`` bytes."""

    def __init__(self, block: bytes, total: int):
        self.block, self.left, self.at = block, total, 0
        self.handed_out = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = min(len(buffer), self.left)
        out = bytearray()
        while len(out) < n:
            take = self.block[self.at:self.at + n - len(out)]
            out += take
            self.at = (self.at + len(take)) % len(self.block)
        buffer[:n] = out
        self.left -= n
        self.handed_out += n
        return n


def test_a_file_over_the_cap_is_refused_from_its_size_before_a_byte_is_read():
    stream = CountingBytes(GOOD_CONLL.encode() * 20)
    _, _, errors = check_predictions(stream, "pred.conll", GOLD, max_bytes=100)
    [error] = errors
    assert (error.file, error.line, error.sentence_id) == ("pred.conll", 1, "(none)")
    assert "at most 100 bytes" in error.message and "was not read" in error.message
    assert stream.handed_out == 0


def test_bytes_over_the_cap_are_refused_alike():
    _, _, errors = check_predictions(GOOD_CONLL.encode() * 20, "pred.jsonl", GOLD, max_bytes=100)
    assert [e.line for e in errors] == [1] and "at most 100 bytes" in errors[0].message


def test_a_file_at_the_cap_is_read_and_scored():
    data = GOOD_CONLL.encode()
    tags, _, errors = check_predictions(CountingBytes(data), "pred.conll", GOLD, max_bytes=len(data))
    assert errors == [] and tags == {g.key: g.tags for g in GOLD}


def test_a_stream_of_unknown_size_is_refused_at_the_line_where_it_passes_the_cap():
    block = GOOD_CONLL.encode() + b"\n"
    stream = Endless(block, 5000 * len(block))
    _, _, errors = check_predictions(io.BufferedReader(stream), "pred.conll", GOLD, max_bytes=len(block) * 3)
    [error] = errors
    assert "goes on past" in error.message
    assert error.line == 3 * GOOD_CONLL.count("\n") + 3 + 1  # three blocks of lines, three blank lines, then
    assert stream.handed_out <= len(block) * 3 + 2 * io.DEFAULT_BUFFER_SIZE  # the cap and a read-ahead


def test_more_sentences_than_the_test_split_are_counted_not_kept_and_refused_at_the_first_extra():
    many = (GOOD_CONLL + "\n") * 1000
    _, _, errors = check_predictions(many.encode(), "pred.conll", GOLD)
    assert errors[0].message.startswith("3000 sentences, but the test split has 3")
    assert (errors[0].line, errors[0].sentence_id) == (11, "4 (no test sentence)")


def test_more_sentences_than_the_test_split_with_ids_name_a_repeated_one_and_the_count():
    with_ids = "".join(f"# id = {g.key}\n" + "".join(f"{t}\t{x}\n" for t, x in zip(g.tokens, g.tags)) + "\n"
                       for g in GOLD) * 10
    _, _, errors = check_predictions(with_ids.encode(), "pred.conll", GOLD)
    messages = [e.message for e in errors]
    assert messages[0].startswith("30 sentences, but the test split has 3")
    assert errors[0].sentence_id == "restaurant/test/1"
    assert any(m.startswith("predicted twice") for m in messages)
    assert not any("ends without a prediction" in m for m in messages)  # those past the kept ones are unread


def test_reading_stops_at_the_error_cap():
    stream = CountingBytes(b"no-tag-here\n" * 10_000)
    _, _, errors = check_predictions(stream, "pred.conll", GOLD)
    assert len(errors) == MAX_ERRORS
    assert stream.handed_out < 100 * len(b"no-tag-here\n")


def test_a_line_longer_than_the_line_cap_is_a_located_error_and_never_parsed():
    data = b'{"tokens": ["' + b"x" * (MAX_LINE_BYTES + 10) + b'"], "tags": ["O"]}\n{"tokens": [], "tags": []}\n'
    _, _, errors = check_predictions(data, "pred.jsonl", GOLD)
    assert (errors[0].line, errors[0].sentence_id) == (1, "#1")
    assert errors[0].message.startswith("line longer than")


def test_memory_stays_bounded_however_many_sentences_the_file_holds():
    """1 MB of sentences: the reading keeps four of them, so its traced peak is a small part of the file."""
    block = (GOOD_CONLL + "\n").encode()
    total = (1024 * 1024 // len(block)) * len(block)
    tracemalloc.start()
    try:
        _, _, errors = check_predictions(io.BufferedReader(Endless(block, total)), "pred.conll", GOLD,
                                         max_bytes=total)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert errors[0].message.startswith(f"{3 * total // len(block)} sentences, but the test split has 3")
    assert peak < total / 8, peak
