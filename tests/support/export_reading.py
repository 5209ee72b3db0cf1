"""Readers of exported files for tests: CoNLL sentences, BIO spans, token offsets."""

from __future__ import annotations


def read_conll(text: str, columns: int = 2, ids: str | None = None) -> list[tuple[str | None, list[list[str]]]]:
    """Sentences of a CoNLL file: (id or None, rows of columns). Ids come from the file's side file
    ``X.ids.tsv`` (``ids``), by position; LinCE's ``# sent_enum = N`` lines must number the sentences 1, 2, ..."""
    sentences, rows, enum = [], [], None
    for line in text.split("\n"):
        if line == "":
            if rows:
                assert enum in (None, len(sentences) + 1), (enum, len(sentences))
                sentences.append((None, rows))
            rows, enum = [], None
        elif line.startswith("# sent_enum = ") and not rows:
            enum = int(line[len("# sent_enum = "):])
        else:
            cells = line.split("\t")
            assert len(cells) == columns, line
            rows.append(cells)
    assert not rows, "file must end with a blank line"
    if ids is not None:
        lines = ids.split("\n")
        assert lines[0] == "sentence\tid" and lines[-1] == ""
        pairs = [line.split("\t") for line in lines[1:-1]]
        assert [int(n) for n, _ in pairs] == list(range(1, len(sentences) + 1))
        sentences = [(sid, rows) for (_, sid), (_, rows) in zip(pairs, sentences)]
    return sentences


def spans_from_tags(tags: list[str]) -> list[tuple[int, int]]:
    spans, start = [], None
    for i, tag in enumerate(tags + ["O"]):
        if tag in ("B", "O") and start is not None:
            spans.append((start, i))
            start = None
        if tag == "B":
            start = i
        assert tag in ("B", "I", "O")
        assert not (tag == "I" and start is None), "I without B"
    return spans


def char_offsets(text: str, tokens: list[str]) -> list[tuple[int, int]]:
    out, pos = [], 0
    for tok in tokens:
        start = text.index(tok, pos)
        assert text[pos:start].strip() == "", "tokens must cover the text in order"
        out.append((start, start + len(tok)))
        pos = start + len(tok)
    return out
