"""Answers without a language model: an FAQ entry's answer verbatim, or a short cited extract.

`compose()` is what `answers.answer()` uses when no chat model is configured:

- When the best source is an FAQ entry that clearly matches the question (`entry_match`), the
  answer is that entry's answer, verbatim (as clean text), cited `[1]`.
- Otherwise the few sentences of the top sources that share the most words with the question,
  in source order, each followed by its marker; never a sentence that only repeats the question.

Everything the customer reads goes through `clean_text`: Markdown and HTML become plain text
(no heading marks, link text without its target, emphasis markers dropped, list items on lines
of their own). Metadata columns never reach the text: they are not part of a chunk's content.
"""

import html
import re
from dataclasses import dataclass

from django.conf import settings

from knowledge.citations import MARKER

# An entry matches clearly when the question resembles the entry's question this much (calibrated
# relevance, 0..1, see retrieval.relevance) and no other entry comes as close.
DEFAULTS = {"ENTRY_MATCH_RELEVANCE": 0.6, "ENTRY_MATCH_MARGIN": 0.05, "EXTRACT_SENTENCES": 3,
            "EXTRACT_SOURCES": 3, "EXTRACT_MAX_CHARS": 700}

_FENCE = re.compile(r"^ {0,3}(```|~~~).*$", re.M)
_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$", re.M)
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\]\((?:[^()]|\([^)]*\))*\)")
_REF_LINK = re.compile(r"\[([^\]]+)\]\[[^\]]*\]")
_AUTOLINK = re.compile(r"<(https?://[^>\s]+)>")
_EMPHASIS = re.compile(r"(\*\*|__|\*|_|~~)(?=\S)(.+?)(?<=\S)\1")
_CODE_SPAN = re.compile(r"`([^`]+)`")
_BR = re.compile(r"<br\s*/?>", re.I)
# HTML elements left in Markdown (inline formatting, layout); other tags are text, not markup.
_TAG = re.compile(r"</?(?:a|abbr|b|blockquote|code|del|details|div|em|font|h[1-6]|hr|i|img|ins|kbd|li|mark|ol|p|pre"
                  r"|s|small|span|strong|sub|summary|sup|table|tbody|td|th|thead|tr|u|ul)\b[^<>]*>", re.I)
_BULLET = re.compile(r"^[ \t]*[-*+•][ \t]+", re.M)
_QUOTE = re.compile(r"^[ \t]*>[ \t]?", re.M)
_TABLE_SEPARATOR = re.compile(r"^[ \t]*\|?[ \t:|-]*-{3,}[ \t:|-]*$", re.M)
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|>])")
_SENTENCE = re.compile(r"(?<=[.!?…])[\"'»”)]*\s+(?=[\"'«“(]?[A-ZА-ЯЁ0-9•-])")
_WORD = re.compile(r"\w+", re.UNICODE)
_CYRILLIC = re.compile(r"[а-яё]", re.I)


def setting(name: str):
    return settings.PORTAL.get(name, DEFAULTS[name])


@dataclass
class Composition:
    text: str
    cited: list[int]  # source numbers, 1-based
    entry_match: bool  # the text is one FAQ entry's answer, verbatim


def clean_text(text: str) -> str:
    """Markdown/HTML as plain text a customer can read (see the module docstring)."""
    text = MARKER.sub("", text)  # "[3]" inside a source would read as our citation
    text = _FENCE.sub("", text)
    text = _TABLE_SEPARATOR.sub("", text)
    text = _HEADING.sub(r"\1", text)
    text = _IMAGE.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    text = _REF_LINK.sub(r"\1", text)
    text = _AUTOLINK.sub(r"\1", text)
    text = _BR.sub("\n", text)
    text = _TAG.sub("", text)
    text = html.unescape(text)
    text = _CODE_SPAN.sub(r"\1", text)
    for _ in range(2):  # nested emphasis (***bold italic***)
        text = _EMPHASIS.sub(r"\2", text)
    text = _QUOTE.sub("", text)
    text = _BULLET.sub("• ", text)
    text = _ESCAPE.sub(r"\1", text)
    # Table rows read as their cells; runs of spaces (and indentation) collapse.
    lines = [" ".join((line.replace("|", " ") if line.strip().startswith("|") else line).split())
             for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def compose(question: str, sources: list, *, entry_match: bool) -> Composition:
    """The answer text from the sources (see the module docstring)."""
    if entry_match and sources:
        return Composition(f"{clean_text(sources[0].content)} [1]", [1], True)
    return _extract(question, sources)


def _extract(question: str, sources: list) -> Composition:
    asked = _stems(question)
    candidates = []  # (score, source number, position, sentence)
    for number, hit in enumerate(sources[:setting("EXTRACT_SOURCES")], start=1):
        for position, sentence in enumerate(sentences(clean_text(hit.content))):
            stems = _stems(sentence)
            if not stems or _echoes(stems, asked, sentence):
                continue
            shared = len(stems & asked)
            # Earlier sources and earlier sentences win ties: retrieval ranked them.
            candidates.append((shared / (len(asked) or 1) + 0.05 / number, number, position, sentence))
    if not candidates:
        return Composition("", [], False)
    best = sorted(candidates, key=lambda item: -item[0])
    chosen, budget = [], setting("EXTRACT_MAX_CHARS")
    for item in best:
        if len(chosen) >= setting("EXTRACT_SENTENCES") or (chosen and item[0] < 0.1):
            break
        if len(item[3]) > budget and chosen:
            continue
        chosen.append(item)
        budget -= len(item[3])
    chosen.sort(key=lambda item: (item[1], item[2]))
    text = " ".join(f"{_clip(sentence)} [{number}]" for _, number, _, sentence in chosen)
    return Composition(text, sorted({number for _, number, _, _ in chosen}), False)


def sentences(text: str) -> list[str]:
    """Sentences and list items of clean text, each on one line."""
    out = []
    for block in re.split(r"\n\s*\n|\n(?=• )", text):
        block = " ".join(block.split())
        out.extend(part.strip() for part in _SENTENCE.split(block) if len(part.strip()) > 1)
    return out


def _clip(sentence: str, limit: int = 400) -> str:
    if len(sentence) <= limit:
        return sentence
    cut = sentence.rfind(" ", 0, limit)
    return sentence[: cut if cut > limit // 2 else limit] + " …"


def _stems(text: str) -> set[str]:
    return {word[:5] for word in _WORD.findall(text.lower()) if len(word) > 2}


def _echoes(stems: set[str], asked: set[str], sentence: str) -> bool:
    """A sentence that is the question again (a heading, a restated query) answers nothing."""
    if sentence.rstrip().endswith("?"):
        return True
    # Nothing but the question's own words, and most of them: a heading or the question restated.
    return bool(asked) and not stems - asked and len(stems) >= 0.8 * len(asked)


def is_russian(text: str) -> bool:
    return bool(_CYRILLIC.search(text))


def match_entry(question: str, hits: list, kbs: dict) -> tuple[int, float, bool] | None:
    """(index among `hits`, closeness, clear) of the FAQ entry whose question is the one asked.

    Each entry's own question is compared with the incoming one (both embedded as queries: a
    symmetric comparison) on its base's calibrated scale. The best must reach ENTRY_MATCH_RELEVANCE;
    it matches clearly when it also leads every other entry with a different answer by
    ENTRY_MATCH_MARGIN (two near-identical questions with different answers are for a person).
    `kbs`: {id: base}.
    """
    from knowledge.retrieval import relevance

    scored = []
    for index, hit in enumerate(hits):
        asked = (hit.metadata.get("entry") or {}).get("question")
        if asked:
            kb = kbs[hit.knowledge_base_id]
            similarity = float(_query_vector(kb.embedder, question) @ _query_vector(kb.embedder, asked))
            scored.append((relevance(similarity, kb) or 0.0, index))
    if not scored:
        return None
    best, index = max(scored, key=lambda item: (item[0], -item[1]))
    if best < setting("ENTRY_MATCH_RELEVANCE"):
        return None
    answer = clean_text(hits[index].content)
    rivals = [score for score, other in scored if other != index and clean_text(hits[other].content) != answer]
    return index, best, all(best - rival >= setting("ENTRY_MATCH_MARGIN") for rival in rivals)


_vectors: dict[tuple[str, str], object] = {}


def _query_vector(embedder_name: str, text: str):
    """Entry questions recur from one question to the next: their vectors are kept (a bounded cache)."""
    from knowledge.embedding import get_embedder

    key = (embedder_name, text)
    if key not in _vectors:
        if len(_vectors) > 4096:
            _vectors.clear()
        _vectors[key] = get_embedder(embedder_name).embed_query(text)
    return _vectors[key]
