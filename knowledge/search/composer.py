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
import math
import re
from dataclasses import dataclass

from django.conf import settings

from knowledge.search.citations import MARKER

# An entry matches clearly when the question resembles the entry's question this much (calibrated
# relevance, 0..1, see retrieval.relevance) and no other entry comes as close.
DEFAULTS = {"ENTRY_MATCH_RELEVANCE": 0.6, "ENTRY_MATCH_MARGIN": 0.05, "EXTRACT_SENTENCES": 3,
            "EXTRACT_SOURCES": 3, "EXTRACT_MAX_CHARS": 700}

_FENCE = re.compile(r"^ {0,3}(```|~~~).*$", re.M)
_FENCE_INFO = re.compile(r"^ {0,3}(?:```|~~~)[ \t]*(\S*)")
_HEADING_LINE = re.compile(r"^ {0,3}#{1,6}(?:[ \t].*)?$", re.M)
_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$", re.M)
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\]\((?:[^()]|\([^)]*\))*\)")
_REF_LINK = re.compile(r"\[([^\]]+)\]\[[^\]]*\]")
_AUTOLINK = re.compile(r"<(https?://[^>\s]+)>")
# Underscores mark emphasis only at word edges (CommonMark): snake_case and ENV_VARS are words.
_EMPHASIS = re.compile(r"(\*\*|\*|~~)(?=\S)(.+?)(?<=\S)\1|(?<!\w)(__|_)(?=\S)(.+?)(?<=\S)\3(?!\w)")
_CODE_SPAN = re.compile(r"`([^`]+)`")
_CODE_PLACEHOLDER = re.compile("\x00(\\d+)\x00")  # NUL never occurs in stored text
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
# Questions that ask for a date or a number, and sentences that hold one (Russian and English).
_MONTHS = (r"январ|феврал|март|апрел|ма[йя]|июн|июл|август|сентябр|октябр|ноябр|декабр|january|february|march"
           r"|april|may|june|july|august|september|october|november|december")
_ANSWER_KINDS = {
    "time": (re.compile(r"^\W*(когда|when)\b|\b(в|на|in|on)\s+(каком|какой|which|what)\s+(году|год|веке|дату|день|year"
                        r"|century|date|day)\b|\bwhat (year|date|century)\b", re.I),
             re.compile(rf"\b(1\d{{3}}|20\d{{2}})\b|\b\d{{1,2}}\s+({_MONTHS})|\b({_MONTHS})\w*\s+\d{{1,2}}\b"
                        r"|\b[IVX]+\s+(век|в\.)|\bcentury\b", re.I)),
    "number": (re.compile(r"^\W*(сколько|how (many|much|long|tall|high|deep|far|old|big|large))\b|\b(как(ая|ой|ова|ов)"
                          r"|what is the|what's the)\s+(длина|высота|глубина|протяж[её]нность|площадь|численность"
                          r"|население|масса|вес|ширина|скорость|стоимость|цена|length|height|depth|area|population"
                          r"|weight|width|speed|size|price|cost)\b", re.I),
               re.compile(r"\d")),
}
# Abbreviations a full stop follows without ending the sentence (lower case, without their last stop).
_ABBREVIATIONS = frozenset("""e.g i.e etc vs cf approx dr mr mrs ms jr sr fig
г гг род ум см ср т.е т.д т.п т.к др пр напр им ул стр рис тыс млн млрд руб коп""".split())
_CODE_CHARACTERS = set("{}[]()<>=;:\"'$/\\|&*#@`_")


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
    # Code spans are literal: no emphasis or escapes inside (`*args`, `a_b_c`), set aside until the end.
    spans: list[str] = []

    def set_aside(match: re.Match) -> str:
        spans.append(match.group(1))
        return f"\x00{len(spans) - 1}\x00"

    text = _CODE_SPAN.sub(set_aside, text)
    for _ in range(2):  # nested emphasis (***bold italic***)
        text = _EMPHASIS.sub(lambda m: m.group(2) or m.group(4), text)
    text = _QUOTE.sub("", text)
    text = _BULLET.sub("• ", text)
    text = _ESCAPE.sub(r"\1", text)
    text = _CODE_PLACEHOLDER.sub(lambda m: spans[int(m.group(1))], text)
    # Table rows read as their cells; runs of spaces (and indentation) collapse.
    lines = [" ".join((line.replace("|", " ") if line.strip().startswith("|") else line).split())
             for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def prose_without_code(text: str) -> str:
    """`text` without its fenced code blocks, which read as nothing a customer should be sent (JSON, shell).

    A chunk may start or end inside a block. A fence with an info string (```json) opens one; a
    bare fence closes one, or opens one when nothing is open. With an odd number of fences, one end
    of the chunk is inside a block: the end an opening fence points to, else the end that looks
    more like code.
    """
    fences = list(_FENCE.finditer(text))
    if not fences:
        return text
    opens = [bool(_FENCE_INFO.match(fence.group(0)).group(1)) for fence in fences]
    if len(fences) % 2 == 0:
        inside = not opens[0] and opens[1]  # a bare fence and then an opening one: the first closed a block
    elif opens[0] or opens[-1]:
        inside = False
    else:
        inside = _code_likeness(text[:fences[0].start()]) > _code_likeness(text[fences[-1].end():])
    kept, start = [], 0
    for fence in fences:
        if not inside:
            kept.append(text[start:fence.start()])
        inside, start = not inside, fence.end()
    if not inside:
        kept.append(text[start:])
    return "\n".join(kept)


def _code_likeness(text: str) -> float:
    """The share of characters that are code punctuation (quotes, brackets, operators): prose has few."""
    text = "".join(text.split())
    return sum(char in _CODE_CHARACTERS for char in text) / len(text) if text else 0.0



def compose(question: str, sources: list, *, entry_match: bool) -> Composition:
    """The answer text from the sources (see the module docstring)."""
    if entry_match and sources:
        return Composition(f"{clean_text(sources[0].content)} [1]", [1], True)
    return _extract(question, sources)


def _extract(question: str, sources: list) -> Composition:
    asked = _stems(question)
    items = []  # (source number, position, sentence, stems)
    for number, hit in enumerate(sources[:setting("EXTRACT_SOURCES")], start=1):
        text = clean_text(_HEADING_LINE.sub("", prose_without_code(hit.content)))
        for position, sentence in enumerate(sentences(text)):
            stems = _stems(sentence)
            if stems and not _echoes(stems, asked, sentence):
                items.append((number, position, sentence, stems))
    if not items:
        return Composition("", [], False)
    # Words every candidate shares ("React" in React docs) say little: weigh them by rarity.
    weight = {stem: math.log(1 + len(items) / sum(stem in item[3] for item in items) if any(
        stem in item[3] for item in items) else 1.0) for stem in asked}
    total = sum(weight.values()) or 1.0

    def score(item) -> float:
        # Earlier sources and sentences win ties: retrieval ranked them.
        return sum(weight[stem] for stem in item[3] & asked) / total + 0.05 / item[0] - 0.001 * item[1]

    ranked = sorted(items, key=score, reverse=True)
    best, chosen, budget = score(ranked[0]), [], setting("EXTRACT_MAX_CHARS")
    for item in ranked:
        if len(chosen) >= setting("EXTRACT_SENTENCES") or (chosen and score(item) < max(0.1, best / 2)):
            break
        if len(item[2]) <= budget or not chosen:
            chosen.append(item)
            budget -= len(item[2])
    chosen += _list_after(chosen, items, budget)
    chosen += _expected_kind(question, ranked[0], chosen, items, budget)
    chosen.sort(key=lambda item: (item[0], item[1]))
    text = ""
    for number, _, sentence, _ in chosen:
        # List items keep their lines; sentences run on as a paragraph.
        text += ("\n" if sentence.startswith("• ") else " ") + f"{_clip(sentence)} [{number}]"
    return Composition(text.strip(), sorted({item[0] for item in chosen}), False)


def _expected_kind(question: str, best: tuple, chosen: list, items: list, budget: int) -> list:
    """For a "when" or "how many" question whose extract holds no date or number: the sentence of the
    best sentence's source that does, nearest to it (the answer is often the next sentence, which
    names the subject as "it" and shares no word with the question)."""
    kind = next((kind for kind, (asks, _) in _ANSWER_KINDS.items() if asks.search(question)), None)
    if kind is None or any(_ANSWER_KINDS[kind][1].search(item[2]) for item in chosen):
        return []
    holding = [item for item in items if item[0] == best[0] and _ANSWER_KINDS[kind][1].search(item[2])
               and item not in chosen and len(item[2]) <= budget]
    return sorted(holding, key=lambda item: abs(item[1] - best[1]))[:1]


def _list_after(chosen: list, items: list, budget: int) -> list:
    """A chosen sentence that introduces a list ("…include:") brings the list's items along."""
    extra, taken = [], {(item[0], item[1]) for item in chosen}
    for number, position, sentence, _ in list(chosen):
        if not sentence.endswith(":"):
            continue
        for item in items:
            if item[0] == number and item[1] > position and (number, item[1]) not in taken:
                if not item[2].startswith("• ") or len(item[2]) > budget or item[1] > position + 6:
                    break
                extra.append(item)
                taken.add((number, item[1]))
                budget -= len(item[2])
    return extra


def sentences(text: str) -> list[str]:
    """Sentences and list items of clean text, each on one line.

    A full stop does not end a sentence after an initial ("J. R. R. Tolkien", "А. С. Пушкин") or a
    common abbreviation ("e.g.", "род.", "см."), nor inside brackets that close later on
    ("Голикова (род. 9 февраля 1966)")."""
    out = []
    for block in re.split(r"\n\s*\n|\n(?=• )", text):
        block = " ".join(block.split())
        start = 0
        for match in _SENTENCE.finditer(block):
            if _ends_sentence(block[start:match.start()], block[match.end():]):
                out.append(block[start:match.start()].strip())
                start = match.end()
        out.append(block[start:].strip())
    return [sentence for sentence in out if len(sentence) > 1]


def _ends_sentence(before: str, after: str) -> bool:
    """Whether the full stop (or ! ? …) at the end of `before` ends a sentence, `after` following it."""
    if before.count("(") > before.count(")") and ")" in after:
        return False
    last = before.split()[-1] if before.split() else ""
    if not last.rstrip("\"'»”)").endswith("."):
        return True
    word = last.rstrip("\"'»”)")[:-1].lstrip("(«\"'“").lower()
    return not ((len(word) == 1 and word.isalpha()) or word in _ABBREVIATIONS)


def _clip(sentence: str, limit: int = 400) -> str:
    if len(sentence) <= limit:
        return sentence
    cut = sentence.rfind(" ", 0, limit)
    return sentence[: cut if cut > limit // 2 else limit] + " …"


STOP_WORDS = set("""the and for are but not you your can how what which who why when where does did was were has have
had this that these those with from into about there their them then than should would could will shall may might
must also just only any all some its our out use using get один как что это для или при его она они так там где
когда какой какая какие каком чем кто ли же бы вы мне меня мой моя нужно можно есть был была были если
чтобы""".split())


def _stems(text: str) -> set[str]:
    return {word[:5] for word in _WORD.findall(text.lower()) if len(word) > 2 and word not in STOP_WORDS}


def shares_words(question: str, sources: list) -> bool:
    """Whether a word of `question` (not a stop word; compared by its first five letters) occurs in a
    source's text, title or heading path; True for a question with no such word at all ("hi?")."""
    asked = _stems(question)
    return not asked or any(asked & _stems(f"{hit.document_title} {hit.section_path} {hit.content}")
                            for hit in sources)


def _echoes(stems: set[str], asked: set[str], sentence: str) -> bool:
    """A sentence that is the question again (a heading, a restated query) answers nothing."""
    if sentence.rstrip().endswith("?"):
        return True
    # Nothing but the question's own words, and most of them: a heading or the question restated.
    return bool(asked) and not stems - asked and len(stems) >= 0.8 * len(asked)


def is_russian(text: str) -> bool:
    return bool(_CYRILLIC.search(text))


def match_entry(question: str, hits: list, kbs: dict,
                query_embeddings: dict | None = None) -> tuple[int, float, bool] | None:
    """(index among `hits`, closeness, clear) of the FAQ entry whose question is the one asked.

    Each entry's own question is compared with the incoming one (both embedded as queries: a
    symmetric comparison) on its base's calibrated scale. The best must reach ENTRY_MATCH_RELEVANCE;
    it matches clearly when it also leads every other entry with a different answer by
    ENTRY_MATCH_MARGIN (two near-identical questions with different answers are for a person).
    `kbs`: {id: base}; `query_embeddings`: the question's vectors by embedder, when already embedded.
    """
    from knowledge.search.retrieval import relevance

    scored = []
    for index, hit in enumerate(hits):
        asked = (hit.metadata.get("entry") or {}).get("question")
        if asked:
            kb = kbs[hit.knowledge_base_id]
            vector = (query_embeddings or {}).get(kb.embedder)
            if vector is None:
                vector = _query_vector(kb.embedder, question)
            similarity = float(vector @ _query_vector(kb.embedder, asked))
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
    from knowledge.indexing.embedding import get_embedder

    key = (embedder_name, text)
    if key not in _vectors:
        if len(_vectors) > 4096:
            _vectors.clear()
        _vectors[key] = get_embedder(embedder_name).embed_query(text)
    return _vectors[key]
