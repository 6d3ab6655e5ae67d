"""Words of opposite meaning: a sentence saying the opposite of what a how-to asks is no answer to it, however close
in meaning an embedder finds the two ("How do I enable CORS for all routes?" and cors' "Enable CORS for a Single
Route:" share every word but one; so do "How do I disable …?" and "To enable …").

Each pair is two patterns over lower-case text, English and Russian. A text contradicts a question when the question
says one side and not the other, and the text says the other side and not the asked one (`contradicts`): a sentence
naming both ("set true to enable it, false to disable it") answers either.
"""

import re

_PAIRS = [
    (r"\ball\b|\bevery\b|\bglobal(?:ly)?\b|\bentire\b|\bwhole\b|\bвсе[хм]?\b|\bглобальн",
     r"\bsingle\b|\bindividual\b|\bотдельн"),
    (r"\benabl|\bturn on\b|\bвключ", r"\bdisabl|\bturn off\b|\bвыключ|\bотключ"),
    (r"\badd(?:s|ed|ing)?\b|\bдобав", r"\bremov|\bdelet|\bудал"),
    (r"(?<!a)\bsync(?:hronous(?:ly)?)?\b|\bсинхрон", r"\basync(?:hronous(?:ly)?)?\b|\bасинхрон"),
    (r"\bincreas|\bувелич", r"\bdecreas|\bуменьш"),
    (r"\binclud|\bвключа", r"\bexclud|\bисключ"),
    (r"\ballow|\bразреш", r"\bden(?:y|ies|ied)\b|\bdisallow|\bforbid|\bзапрет"),
    (r"\bshow(?:s|n|ing)?\b|\bпоказ", r"\bhid(?:e|es|den|ing)\b|\bскры"),
    (r"\bstart|\bзапуст|\bзапуск", r"\bstop|\bостанов"),
    (r"\bopen(?:s|ed|ing)?\b|\bоткры", r"\bclos(?:e|es|ed|ing)\b|\bзакры"),
    (r"\bencod", r"\bdecod"),
    (r"\bseriali[sz]", r"\bdeseriali[sz]"),
    (r"\bimport(?:s|ed|ing)?\b|\bимпорт", r"\bexport(?:s|ed|ing)?\b|\bэкспорт"),
    (r"\bminim|\bmin\b|\bминимал", r"\bmaxim|\bmax\b|\bмаксимал"),
    (r"\block(?:s|ed|ing)?\b|\bблокир", r"\bunlock|\bразблокир"),
]
_OPPOSITES = [(re.compile(one), re.compile(other)) for one, other in _PAIRS]
# A sentence saying what something is not for ("Bleach's clean is not for sanitizing entire HTML documents.", a
# non-goal) says the opposite of a question asking how to do it, unless the question says "not" too.
_PURPOSE = r"(?:meant\s+|intended\s+|designed\s+|suitable\s+)?for\b"
_NOT_FOR = re.compile(rf"\b(?:is|are|was|were)\s+(?:\w+\s+)?not\s+{_PURPOSE}|\b(?:isn't|aren't)\s+{_PURPOSE}"
                      r"|\bне\s+предназначен")
_NEGATION = re.compile(r"\bnot\b|n't\b|\bне\b|\bнет\b")


def contradicts(question: str, text: str) -> bool:
    """Whether `text` says the opposite of something `question` says, and not that thing itself, or what something is
    not for (`_NOT_FOR`) to a question saying no "not"."""
    question, text = question.lower(), text.lower()
    if _NOT_FOR.search(text) and not _NEGATION.search(question):
        return True
    for one, other in _OPPOSITES:
        for asked, opposite in ((one, other), (other, one)):
            if (asked.search(question) and not opposite.search(question)
                    and opposite.search(text) and not asked.search(text)):
                return True
    return False
