"""Imports that would go wrong quietly (issue 28): a file imported into the wrong split, and the removal of
an import nobody has worked on yet. Pure rules; ``db.importing`` reads and writes.

A sentence whose text is already stored in another split of the same domain is almost always the wrong
file for the split (the laptop train file imported as ``--split test`` repeats 3,044 train sentences in
test): such a file is refused, naming the first sentences, unless the lead allows duplicates.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from corpus.errors import LocatedError
from corpus.records import SentenceRecord

#: Located errors naming a repeated sentence each, before the one that counts them all.
SHOWN_DUPLICATES = 5
#: The review flag of a sentence imported with ``allow_duplicates`` whose text is in another split.
IN_OTHER_SPLIT = "text-in-other-split"


def text_key(text: str) -> bytes:
    """What two sentence texts are compared by: the text without surrounding whitespace (SemEval files copy
    a sentence verbatim), as a 16-byte digest, so a domain's stored texts take little memory."""
    return hashlib.blake2b(text.strip().encode("utf-8", "surrogatepass"), digest_size=16).digest()


@dataclass
class OtherSplitDuplicates:
    """Collects, record by record (a file read in batches), the new sentences whose text is stored in another
    split of their domain. ``stored``: ``text_key`` -> (split, sentence id) of the first stored sentence with
    that text, in the domain's other splits."""

    source: str
    domain: str
    split: str
    stored: dict[bytes, tuple[str, str]]
    count: int = 0
    by_split: dict[str, int] = field(default_factory=dict)
    first: list[LocatedError] = field(default_factory=list)

    def check(self, record: SentenceRecord) -> bool:
        """Whether the record's text is stored in another split (and counts it)."""
        found = self.stored.get(text_key(record.text))
        if found is None:
            return False
        other_split, other_id = found
        self.count += 1
        self.by_split[other_split] = self.by_split.get(other_split, 0) + 1
        if len(self.first) < SHOWN_DUPLICATES:
            self.first.append(LocatedError(
                self.source, f"its text is already in {self.domain}/{other_split} as sentence {other_id}",
                line=record.line, sentence_id=record.key.id))
        return True

    def errors(self) -> list[LocatedError]:
        """The refusal: the first repeated sentences, then one error that counts them all and says what to
        do. Empty when no text repeats."""
        if not self.count:
            return []
        where = ", ".join(f"{n:,} in {self.domain}/{s}" for s, n in sorted(self.by_split.items()))
        ids = ", ".join(e.sentence_id or "?" for e in self.first)
        more = ", …" if self.count > len(self.first) else ""
        return [*self.first, LocatedError(
            self.source,
            f"{self.count:,} sentence(s) of this file repeat texts already stored in another split of "
            f"{self.domain} ({where}; first: {ids}{more}): is this the {self.domain} file for the "
            f"{self.split} split? Import with --allow-duplicates (on the Import page: 'Import sentences "
            "already in another split') to import them anyway")]


@dataclass(frozen=True)
class RemovalPlan:
    """What removing a domain's split takes away, and the work that forbids it: sentences with a translation,
    an assignment or a final choice (everything else of the project hangs from those)."""

    domain: str
    split: str
    sentences: int
    aspect_terms: int
    categories: int
    sentences_with_work: int = 0
    first_with_work: tuple[str, ...] = ()

    @property
    def allowed(self) -> bool:
        return self.sentences > 0 and self.sentences_with_work == 0

    def what(self) -> str:
        return (f"{self.sentences:,} sentences, {self.aspect_terms:,} aspect terms and {self.categories:,} "
                f"aspect categories of {self.domain}/{self.split}")

    def refusal(self) -> str | None:
        """Why the split cannot be removed (to follow its ``domain/split: ``), or None."""
        if self.sentences == 0:
            return "no sentences: nothing to remove"
        if self.sentences_with_work:
            more = ", …" if self.sentences_with_work > len(self.first_with_work) else ""
            return (f"{self.sentences_with_work:,} of its {self.sentences:,} sentences have work on them (a "
                    f"translation, an assignment or a final choice; first: {', '.join(self.first_with_work)}{more}): "
                    "an import is removed only before anyone works on it")
        return None
