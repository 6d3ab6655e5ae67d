"""Answers without a language model: an FAQ entry's answer verbatim, or a short cited extract.

`compose()` is what `answers.answer()` uses when no chat model is configured:

- When the best source is an FAQ entry that clearly matches the question (`entry_match`), the
  answer is that entry's answer, verbatim (as clean text), cited `[1]`.
- Otherwise the few sentences of the top sources that share the most words with the question,
  in source order, each followed by its marker; never a sentence that only repeats the question.

Everything the customer reads goes through `source_text` (Markdown and HTML as plain text, code
left out but for a short command after the sentence that introduces it, sentences). Metadata
columns never reach the text: they are not part of a chunk's content.
"""

import math
import re
from dataclasses import dataclass

from django.conf import settings

from knowledge.search.source_text import COMMAND, ITEM, clean_text, quotable_text, sentences

# An entry matches clearly when the question resembles the entry's question this much (calibrated
# relevance, 0..1, see retrieval.relevance) and no other entry comes as close.
DEFAULTS = {"ENTRY_MATCH_RELEVANCE": 0.6, "ENTRY_MATCH_MARGIN": 0.05, "EXTRACT_SENTENCES": 3,
            "EXTRACT_SOURCES": 3, "EXTRACT_MAX_CHARS": 700}

_WORD = re.compile(r"\w+", re.UNICODE)
_CYRILLIC = re.compile(r"[а-яё]", re.I)
_ENDS = re.compile(r"[.!?…:;][\"'»”)]*$")  # a sentence ends so; a heading does not
# A list item or heading that opens with a question word names a topic ("• What a component is",
# "• Как написать компонент"): a table of contents, not an answer.
_TOPIC = re.compile(r"^(?:• |\d{1,3}[.)] )?(?:what|how|why|when|which|who|where|что|как|какой|какая|какое|какие"
                    r"|какую|каким|почему|зачем|когда|где|кто|чем)\b", re.I)
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


def setting(name: str):
    return settings.PORTAL.get(name, DEFAULTS[name])


@dataclass
class Composition:
    text: str
    cited: list[int]  # source numbers, 1-based
    entry_match: bool  # the text is one FAQ entry's answer, verbatim


def compose(question: str, sources: list, *, entry_match: bool) -> Composition:
    """The answer text from the sources (see the module docstring)."""
    if entry_match and sources:
        return Composition(f"{clean_text(sources[0].content)} [1]", [1], True)
    return _extract(question, sources)


def _extract(question: str, sources: list) -> Composition:
    asked = _stems(question)
    items, brought = [], []  # (source number, position, sentence, stems); brought: only after their introduction
    for number, hit in enumerate(sources[:setting("EXTRACT_SOURCES")], start=1):
        source = sentences(quotable_text(hit.content))
        for position, sentence in enumerate(source):
            if sentence.startswith(COMMAND):  # never chosen for its words; shown after its introduction
                brought.append((number, position, sentence, set()))
                continue
            stems = _stems(sentence)
            if _answers(stems, asked, sentence, alone=len(source) == 1):
                items.append((number, position, sentence, stems))
            elif ITEM.match(sentence):  # "• Install Node.js" is no answer, but reads well after "To start:"
                brought.append((number, position, sentence, set()))
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
    listed = _list_after(chosen, sorted(items + brought, key=lambda item: item[:2]), budget)
    chosen += listed
    chosen += _expected_kind(question, ranked[0], chosen, items, budget - sum(len(item[2]) for item in listed))
    chosen.sort(key=lambda item: (item[0], item[1]))
    text = ""
    for number, _, sentence, _ in chosen:
        # List items keep their lines, commands too (as written, indented); sentences run on as a paragraph.
        if sentence.startswith(COMMAND):
            text += ("" if text.endswith("\n") else "\n") + f"    {sentence[len(COMMAND):]}\n"
        else:
            text += ("\n" if sentence.startswith("• ") else "" if text.endswith("\n") else " ")
            text += f"{_clip(sentence)} [{number}]"
    return Composition(text.strip(" \n"), sorted({item[0] for item in chosen}), False)


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
    """A chosen sentence that introduces a list ("…include:") or a command brings them along."""
    extra, taken = [], {(item[0], item[1]) for item in chosen}
    for number, position, sentence, _ in list(chosen):
        if not sentence.endswith(":"):
            continue
        following = position + 1  # a command must come right after the introduction or the last line
        for item in items:
            if item[0] != number or item[1] <= position:
                continue
            if (number, item[1]) in taken:
                if not item[2].startswith(("• ", COMMAND)):
                    break  # a sentence of its own ends the list
                following = item[1] + 1
                continue
            if not item[2].startswith(("• ", COMMAND)) or len(item[2]) > budget or item[1] > position + 6:
                break
            if item[2].startswith(COMMAND) and item[1] != following:
                break
            extra.append(item)
            taken.add((number, item[1]))
            budget -= len(item[2])
            following = item[1] + 1
    return extra


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


def _answers(stems: set[str], asked: set[str], sentence: str, *, alone: bool) -> bool:
    """Whether a sentence is content that may be quoted as an answer: not the question again, not a
    fragment of a few characters (a caption, an OCR misreading), not a heading, not a list item that
    only restates words of the question (a table of contents). `alone`: the only sentence of its
    source (a table row has no full stop and is no heading)."""
    if not stems or _echoes(stems, asked, sentence):
        return False
    words = len(_WORD.findall(sentence))
    if words < 3 or len(sentence) < 10:
        return False
    if ITEM.match(sentence) and not stems - asked:
        return False  # a list item of nothing but the question's words
    if _ENDS.search(sentence):
        return True
    if _TOPIC.match(sentence):
        return False
    # Without a full stop: a list item of a few words, a heading (one of a table row's cells is no heading).
    return words > 4 if ITEM.match(sentence) else alone or words >= 8


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
