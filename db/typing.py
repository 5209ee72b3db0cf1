"""Phonetic typing for one project: the model's candidates, with what the team accepted before first.

``suggest_for`` is what the translate editor asks on every word (through the JSON route in
``ui/api_routes.py``, never a page rerun): the shipped model (``corpus.transliterate.suggest``) ranks
Devanagari spellings of a Roman word; the project's own words (its glossary and the Hindi of its
translations) join the model's lexicon, and the word pairs of its translations join the bigram counts that
rank by the words typed before (``context``); and a form translators accepted for that Roman word in this
project comes first (``prefer``), most used first (in a sentence, the words before may still reorder it). ``record_accepted`` stores what they accept, in
batches sent with the autosave; ``learned_forms`` shows the lead what the team has taught it.
"""

from __future__ import annotations

import threading
import time
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from corpus import transliterate, word_context
from corpus.tokens import normalize, words
from corpus.vocabulary import Role
from db import typing_model
from db.access import SessionEnded, check_writer
from db.engine import INTERACTIVE_BUSY_S, reader, transaction
from db.models import GlossaryTerm, SourceSentence, Translation, TypedForm, User, utcnow
from db.schema import default_project_id

MAX_ROMAN = 60
MAX_DEVANAGARI = 120
MAX_BATCH = 200
# ``ctx`` of GET /api/suggest: up to this many preceding words, this many characters in all.
MAX_CONTEXT_WORDS = 3
MAX_CONTEXT_CHARS = 200
LEXICON_TTL_S = 300.0


@dataclass(frozen=True)
class LearnedForm:
    roman: str
    devanagari: str
    uses: int
    first_user: str | None
    last_used_at: datetime


def roman_key(roman: str) -> str:
    """How a Roman word is looked up and learned: trimmed, lower case (``Mera`` and ``mera`` are one input)."""
    return roman.strip().lower()


def is_roman_word(roman: str) -> bool:
    return 0 < len(roman) <= MAX_ROMAN and roman.isascii() and roman.isalpha()


def is_devanagari_form(text: str) -> bool:
    """One word in Devanagari (signs, nukta, joiners); digits and spaces are not a learned form."""
    if not 0 < len(text) <= MAX_DEVANAGARI:
        return False
    return all("\u0900" <= c <= "\u097f" or c in "\u200c\u200d" for c in text) and any(
        unicodedata.category(c) == "Lo" for c in text)


def context_words(raw: object) -> tuple[str, ...]:
    """The preceding words a caller sent (``ctx``: Devanagari words separated by single spaces, most recent last),
    NFC, the last ``MAX_CONTEXT_WORDS`` of them that are Devanagari words; anything too long, or not a string: none."""
    if not isinstance(raw, str) or not raw or len(raw) > MAX_CONTEXT_CHARS:
        return ()
    return transliterate.usable_context([w for w in normalize(raw).split(" ") if w][-MAX_CONTEXT_WORDS:])


def accepted_pairs(raw: object) -> list[tuple[str, str]]:
    """The well-formed (roman, devanagari) pairs of a batch the browser sent; anything else is dropped."""
    out: list[tuple[str, str]] = []
    if not isinstance(raw, list):
        return out
    for item in raw[:MAX_BATCH]:
        if not (isinstance(item, (list, tuple)) and len(item) == 2):
            continue
        roman, deva = item
        if not (isinstance(roman, str) and isinstance(deva, str)):
            continue
        roman, deva = roman_key(roman), normalize(deva.strip())
        if is_roman_word(roman) and is_devanagari_form(deva):
            out.append((roman, deva))
    return out


def record_accepted(engine: Engine, project_id: int, user_id: int | None, pairs: Iterable[tuple[str, str]]) -> int:
    """Count each accepted (roman, devanagari) pair once more for the project; returns how many were stored."""
    batch = Counter(accepted_pairs([list(p) for p in pairs]))
    if not batch:
        return 0
    now = utcnow()
    with transaction(engine, busy_timeout_s=INTERACTIVE_BUSY_S) as session:  # a page's write: ProjectBusy within 3 s
        try:
            check_writer(session, user_id, roles=(Role.TRANSLATOR,))
        except SessionEnded:  # an ended session teaches nothing; the save that follows says why
            return 0
        romans = sorted({r for r, _ in batch})
        rows = {(r.roman, r.devanagari): r for r in session.scalars(
            select(TypedForm).where(TypedForm.project_id == project_id, TypedForm.roman.in_(romans)))}
        for (roman, deva), n in batch.items():
            row = rows.get((roman, deva))
            if row is None:
                session.add(TypedForm(project_id=project_id, roman=roman, devanagari=deva, uses=n,
                                      first_user_id=user_id, last_used_at=now))
            else:
                row.uses += n
                row.last_used_at = now
    return sum(batch.values())


def preferred(engine: Engine, project_id: int, roman: str) -> list[str]:
    """The forms the project accepted for this Roman word, most used (then most recent) first."""
    with Session(reader(engine)) as session:
        return list(session.scalars(
            select(TypedForm.devanagari)
            .where(TypedForm.project_id == project_id, TypedForm.roman == roman_key(roman))
            .order_by(TypedForm.uses.desc(), TypedForm.last_used_at.desc(), TypedForm.id)))


def learned_forms(engine: Engine, project_id: int) -> list[LearnedForm]:
    """Everything the project's translators taught the typing help, for the lead (most used first)."""
    with Session(reader(engine)) as session:
        rows = session.execute(
            select(TypedForm, User.username).outerjoin(User, User.id == TypedForm.first_user_id)
            .where(TypedForm.project_id == project_id)
            .order_by(TypedForm.uses.desc(), TypedForm.roman, TypedForm.devanagari))
        return [LearnedForm(r.roman, r.devanagari, r.uses, name, r.last_used_at) for r, name in rows]


_lexicons: dict[tuple[str, int], tuple[float, dict[str, float]]] = {}
_lexicon_lock = threading.Lock()


def project_lexicon(engine: Engine, project_id: int, *, max_age_s: float = LEXICON_TTL_S) -> dict[str, float]:
    """The project's own Hindi words (glossary and translations) with their share of the project's running
    words (the unit of the shipped lexicon), re-read at most every few minutes: words the team already
    writes are candidates even when the shipped lexicon lacks them."""
    cache_key = (engine.url.render_as_string(hide_password=True), project_id)
    now = time.monotonic()
    with _lexicon_lock:
        hit = _lexicons.get(cache_key)
        if hit is not None and now - hit[0] < max_age_s:
            return hit[1]
    counts: Counter[str] = Counter()
    with Session(reader(engine)) as session:
        for hindi in session.scalars(select(GlossaryTerm.hindi).where(GlossaryTerm.project_id == project_id)):
            counts.update(w for w in words(hindi or "") if is_devanagari_form(w))
        texts = session.scalars(
            select(Translation.text).join(SourceSentence, SourceSentence.id == Translation.sentence_id)
            .where(SourceSentence.project_id == project_id, Translation.text.is_not(None)))
        for text in texts:
            counts.update(w for w in words(text) if is_devanagari_form(w))
    total = sum(counts.values())
    lexicon = {w: n / total for w, n in counts.items()}
    with _lexicon_lock:
        _lexicons[cache_key] = (now, lexicon)
    return lexicon


_bigrams: dict[tuple[str, int], tuple[float, dict[str, dict[str, int]]]] = {}


def project_bigrams(engine: Engine, project_id: int, *, max_age_s: float = LEXICON_TTL_S) -> dict[str, dict[str, int]]:
    """The word pairs of the project's translations (previous word → word → count), re-read at most every few
    minutes: how this team writes joins the shipped bigram counts (``corpus.word_context``)."""
    cache_key = (engine.url.render_as_string(hide_password=True), project_id)
    now = time.monotonic()
    with _lexicon_lock:
        hit = _bigrams.get(cache_key)
        if hit is not None and now - hit[0] < max_age_s:
            return hit[1]
    with Session(reader(engine)) as session:
        texts = [normalize(t) for t in session.scalars(
            select(Translation.text).join(SourceSentence, SourceSentence.id == Translation.sentence_id)
            .where(SourceSentence.project_id == project_id, Translation.text.is_not(None)))]
    counts = word_context.bigram_counts(texts)
    with _lexicon_lock:
        _bigrams[cache_key] = (now, counts)
    return counts


def suggest_for(engine: Engine, project_id: int | None, roman: str, k: int = 5,
                context: Sequence[str] = ()) -> list[str]:
    """Ranked Devanagari candidates for one Roman word in this project (``None``: the default one):
    learned forms first, then the model's (over its lexicon plus the project's words); no duplicates,
    at most ``k``. ``context``: the Devanagari words typed before it in the sentence (most recent last),
    which reorder the candidates by the shipped and the project's word bigrams."""
    key = roman_key(roman)
    if not is_roman_word(key):
        return []
    if project_id is None:
        with Session(reader(engine)) as session:
            project_id = default_project_id(session)
    prefer = preferred(engine, project_id, key)
    lexicon = project_lexicon(engine, project_id)
    ctx = transliterate.usable_context(context)
    with_context = {"context": ctx, "context_extra": project_bigrams(engine, project_id)} if ctx else {}
    ranked = typing_model.suggest(key, k, lexicon_extra=lexicon, prefer=tuple(prefer), **with_context)
    out: list[str] = []
    for form in [*([] if ctx else prefer), *ranked]:
        if form not in out:
            out.append(form)
    return out[:k]
