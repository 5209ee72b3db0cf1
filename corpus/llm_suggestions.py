"""Suggestions from an optional local language model: the question, and what of its answer may become a span.

A project may name an OpenAI-compatible chat endpoint on the team's own machine (Ollama, vLLM: ``base_url`` and a
model name; off while the address is empty). For an item the projection rules (``corpus.projection``) left some
English aspects unfound in, the model is asked where those aspects are in the item's Hindi tokens; what it
answers joins the dashed suggestions with the source ``llm``, never a tag until accepted.

The answer is untrusted text: only a JSON object naming, for one of the asked aspects, a run of existing tokens
becomes a span. Non-JSON, unknown aspects, numbers out of range, runs of punctuation or function words, runs
longer than an aspect phrase, spans whose stated words are not the tokens there (unless those words occur
exactly once elsewhere), spans that overlap each other, and more spans than the English has occurrences of the
aspect: none of these gives a suggestion. Pure functions over plain values; ``db.llm_suggestions`` makes the
call, ``db.projection`` joins the spans to the others.
"""

from __future__ import annotations

import json
import math
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from corpus.projection import FUNCTION_WORDS
from corpus.tokens import is_word, normalize, tokenize

LLM = "llm"
#: Seconds an item's opening waits for the model at most (per network step), unless the project says otherwise.
DEFAULT_TIMEOUT_S = 5.0
TIMEOUT_RANGE_S = (0.5, 60.0)
#: The longest aspect phrase a span may be, in tokens ("कैमरे का ऐप" is 3).
MAX_SPAN_TOKENS = 6
#: Characters of an answer read at most; an aspect list's JSON is a few hundred.
MAX_ANSWER_CHARS = 64_000
MAX_MODEL_CHARS = 200
MAX_URL_CHARS = 500

Span = tuple[int, int]

SYSTEM_PROMPT = (
    "You mark aspect terms in Hindi translations of English review sentences (SemEval-2014 aspect terms). "
    "You answer with one JSON object and nothing else.")


@dataclass(frozen=True)
class LlmSpan:
    """A token span the model proposed for an English aspect, after validation."""

    span: Span
    term: str


def chat_url(base_url: str) -> str:
    """Where an OpenAI-compatible server takes chat requests: ``{base_url}/chat/completions``
    (Ollama: ``http://127.0.0.1:11434/v1``; vLLM: ``http://127.0.0.1:8000/v1``)."""
    return base_url.strip().rstrip("/") + "/chat/completions"


def endpoint_problems(base_url: str, model: str, timeout_s: float) -> list[str]:
    """What is wrong with a project's model settings; an empty address turns the model off and is never wrong."""
    url = (base_url or "").strip()
    if not url:
        return []
    problems = []
    parts = urlsplit(url) if _printable(url) and len(url) <= MAX_URL_CHARS else None
    try:
        port_ok = parts is not None and (parts.port is None or parts.port > 0)
    except ValueError:
        port_ok = False
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname or not port_ok:
        problems.append("the local model's address must be an http:// or https:// URL with a host "
                        "(e.g. http://127.0.0.1:11434/v1)")
    elif parts.username is not None or parts.password is not None:
        problems.append("the local model's address must not carry a user name or password")
    elif parts.query or parts.fragment:
        problems.append("the local model's address must not carry a query or a fragment")
    name = (model or "").strip()
    if not name:
        problems.append("name the local model (e.g. llama3.1:8b) or leave its address empty")
    elif len(name) > MAX_MODEL_CHARS or not _printable(name):
        problems.append(f"the local model's name must be printable and at most {MAX_MODEL_CHARS} characters")
    if not (isinstance(timeout_s, (int, float)) and math.isfinite(timeout_s)
            and TIMEOUT_RANGE_S[0] <= timeout_s <= TIMEOUT_RANGE_S[1]):
        problems.append(f"the local model's timeout must be between {TIMEOUT_RANGE_S[0]:g} and "
                        f"{TIMEOUT_RANGE_S[1]:g} seconds")
    return problems


def _printable(text: str) -> bool:
    return not any(c.isspace() or unicodedata.category(c).startswith("C") for c in text)


def _term_key(term: str) -> str:
    return " ".join(normalize(term).casefold().split())


def term_counts(aspects: Iterable[str]) -> dict[str, int]:
    """How often each English aspect (case aside) occurs: a term twice in English may be marked twice."""
    counts: dict[str, int] = {}
    for term in aspects:
        key = _term_key(term)
        if key:
            counts[key] = counts.get(key, 0) + 1
    return counts


def unfound(aspects: Iterable[str], found_terms: Iterable[str]) -> list[str]:
    """The aspects (a term once per occurrence) left after each found term takes one occurrence of its own: what
    the model is asked about. An aspect twice in English and found once is asked once more."""
    found = term_counts(found_terms)
    out = []
    for term in aspects:
        key = _term_key(term)
        if found.get(key, 0) > 0:
            found[key] -= 1
        elif key:
            out.append(term)
    return out


def chat_messages(tokens: Sequence[str], english: str, aspects: Sequence[str]) -> list[dict[str, str]]:
    """The chat messages that ask where ``aspects`` (the English terms still unfound, a term once per
    occurrence) are among the item's ``tokens``, numbered from 0, with the English sentence for context."""
    terms: dict[str, tuple[str, int]] = {}
    for term in aspects:
        key = _term_key(term)
        if key:
            first, n = terms.get(key, (term.strip(), 0))
            terms[key] = (first, n + 1)
    listed = "\n".join(f"- {json.dumps(t, ensure_ascii=False)}" + (f" (occurs {n} times)" if n > 1 else "")
                       for t, n in terms.values())
    numbered = "\n".join(f"{i} {normalize(t)}" for i, t in enumerate(tokens))
    user = (
        f"English sentence: {json.dumps(normalize(english), ensure_ascii=False)}\n"
        f"English aspect terms:\n{listed}\n"
        f"Hindi translation, one token per line with its number:\n{numbered}\n\n"
        "For each English aspect term, find the Hindi tokens that render it in this translation. Mark the noun "
        "phrase only: a transliterated word with its Hindi inflection counts, postpositions such as का, की, में "
        "outside it do not. If the translation leaves an aspect out, give nothing for it; never guess.\n"
        'Answer with one JSON object: {"spans": [{"aspect": "<the English term>", "first": <number of its first '
        'token>, "last": <number of its last token>, "text": "<those Hindi tokens>"}]}')
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def request_body(model: str, messages: Sequence[Mapping[str, str]]) -> dict:
    """The chat-completions request: deterministic, one JSON object as the answer, not streamed."""
    return {"model": model.strip(), "messages": list(messages), "temperature": 0, "stream": False,
            "response_format": {"type": "json_object"}}


def answer_content(raw: bytes | str | None) -> str | None:
    """The assistant's text in an OpenAI-style chat-completions response (``choices[0].message.content``);
    None for anything else."""
    if raw is None:
        return None
    try:
        data = json.loads(raw)
    except (ValueError, TypeError, RecursionError):
        return None
    try:
        content = data["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return None
    return content[:MAX_ANSWER_CHARS] if isinstance(content, str) else None


def _json_in(content: str) -> object | None:
    """The JSON the model answered: the whole text, else inside a ``` fence, else from the first { to the last }."""
    text = content.strip()
    candidates = [text]
    if "```" in text:
        inner = text.split("```")[1]
        candidates.append(inner[4:] if inner.lower().startswith("json") else inner)
    if "{" in text and "}" in text:
        candidates.append(text[text.index("{"):text.rindex("}") + 1])
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except (ValueError, RecursionError):
            continue
    return None


def _index(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _squeezed(words: Iterable[str]) -> str:
    return "".join(normalize(w) for w in words).replace(" ", "")


def _windows(tokens: Sequence[str], words: Sequence[str]) -> list[Span]:
    n = len(words)
    return [(i, i + n) for i in range(len(tokens) - n + 1) if n and [normalize(t) for t in tokens[i:i + n]] == words]


def _entry_span(entry: Mapping, tokens: Sequence[str]) -> Span | None:
    """The token span one answer entry names, or None: its first/last numbers, checked against the words it
    says are there (a stated run found exactly once elsewhere is taken from there: models miscount)."""
    first, last = _index(entry.get("first")), _index(entry.get("last"))
    span = (first, last + 1) if first is not None and last is not None and 0 <= first <= last < len(tokens) else None
    text = entry.get("text")
    if isinstance(text, str) and text.strip():
        words = [normalize(w) for w in tokenize(text)]
        if span is None or _squeezed(tokens[span[0]:span[1]]) != _squeezed(words):
            found = _windows(tokens, words)
            span = found[0] if len(found) == 1 else None
    return span


def _plausible(span: Span, tokens: Sequence[str]) -> bool:
    run = tokens[span[0]:span[1]]
    return (span[1] - span[0] <= MAX_SPAN_TOKENS and any(is_word(t) for t in run)
            and not all(normalize(t) in FUNCTION_WORDS or not is_word(t) for t in run))


def parse_answer(content: str | None, tokens: Sequence[str], aspects: Sequence[str]) -> list[LlmSpan]:
    """The spans a model's answer proposes that may become suggestions (see the module's rules), sorted."""
    if not content or not tokens:
        return []
    data = _json_in(content[:MAX_ANSWER_CHARS])
    entries = data.get("spans") if isinstance(data, dict) else data
    if not isinstance(entries, list):
        return []
    names = {}
    for term in aspects:
        names.setdefault(_term_key(term), term.strip())
    proposed: dict[Span, str] = {}
    clash: set[Span] = set()
    for entry in entries[:100]:
        if not isinstance(entry, dict) or not isinstance(entry.get("aspect"), str):
            continue
        key = _term_key(entry["aspect"])
        span = _entry_span(entry, tokens) if key in names else None
        if span is None or not _plausible(span, tokens):
            continue
        if span in proposed:
            if proposed[span] != key:
                clash.add(span)  # one run named as two aspects
            continue
        proposed[span] = key
    spans = sorted(proposed)
    overlapping = {a for a in spans for b in spans if a != b and a[0] < b[1] and b[0] < a[1]}
    counts = term_counts(aspects)
    out: list[LlmSpan] = []
    used: dict[str, int] = {}
    for span in spans:
        key = proposed[span]
        if span in clash or span in overlapping or used.get(key, 0) >= counts[key]:
            continue
        used[key] = used.get(key, 0) + 1
        out.append(LlmSpan(span, names[key]))
    return out


def joined(spans: Iterable[LlmSpan], taken: Iterable[Span]) -> list[LlmSpan]:
    """The model's spans that may join the suggestions already made (``taken``: spans of the item's own map, the
    rules and the CRF): none that overlaps one of them."""
    occupied = list(taken)
    return [s for s in spans if not any(s.span[0] < o[1] and o[0] < s.span[1] for o in occupied)]
