"""Whether a triaged ticket's draft may go to the customer without a person reading it.

`decide()` is the one place the rule lives; `TriageOrchestrator.decide` calls it and records the
outcome. A draft goes out automatically only when the risk is low, the agent allows it, and:

- without a chat model: the draft is one clearly matching FAQ entry's answer, verbatim
  (`Answer.entry_match`), never an extract stitched from several sources;
- with a chat model: every sentence of the draft cites a source;
- either way: the confidence clears the agent's auto-reply bar, no cited document waits for a
  parse-quality check (`knowledge.quality`), and the outgoing text itself passes `tickets.outgoing`
  (no injected instructions, foreign contacts, credential requests or unasked high-risk phrases).

Every reason is a sentence a support agent can read, in Russian when the ticket is in Russian,
else in English (`explain` does the same for the answer's reason codes). Other checks (for
instance on the outgoing text itself) add their reasons to the same decision.
"""

from dataclasses import dataclass, field

from django.utils.translation import gettext_noop

from knowledge import quality
from knowledge.search import answers, reasons, source_text, words
from knowledge.search.citations import MARKER
from portal.languages import translate
from tickets import outgoing
from tickets.models import Agent, RiskLevel

# Per reason code of `knowledge.search.reasons` (its sentences) and of this module: English msgids of the translation
# catalogue (locale/ru has them in Russian); `sentence` gives them in the ticket's language.
SENTENCES = {
    **reasons.REASON_SENTENCES,
    "risk": gettext_noop("The ticket's risk is %(level)s: a person should answer it."),
    "no_agent": gettext_noop("No agent handles this ticket."),
    "not_allowed": gettext_noop("%(agent)s does not send replies automatically."),
    "no_draft": gettext_noop("There is no draft."),
    "refused": gettext_noop("No answer was written: the sources do not support one."),
    "not_one_entry": gettext_noop(
        "The draft is an extract from the sources, not the answer of one matching FAQ entry."),
    "uncited_sentence": gettext_noop("A sentence of the draft cites no source."),
    "below_bar": gettext_noop("Confidence %(confidence).2f is below the auto-reply bar %(bar).2f."),
    "source_quality": gettext_noop("A cited document was parsed poorly and needs a person first: %(reason)s."),
    "outgoing_text": gettext_noop("The draft must be read before it goes out: %(reason)s."),
    "auto_reply": gettext_noop(
        "Low risk, the answer of a clearly matching FAQ entry, and allowed: sent automatically."),
    "auto_reply_model": gettext_noop("Low risk, every sentence cited, confident and allowed: sent automatically."),
}

@dataclass
class Decision:
    reasons: list[str] = field(default_factory=list)  # sentences; empty: send automatically
    codes: list[str] = field(default_factory=list)

    @property
    def allowed(self) -> bool:
        return not self.codes

    def block(self, code: str, russian: bool, **values) -> None:
        self.add(code, sentence(code, russian, **values))

    def add(self, code: str, reason: str) -> None:
        self.codes.append(code)
        self.reasons.append(reason)


# The msgids of RiskLevel's labels, to name a level in the ticket's language whatever the active one.
RISK_LEVEL_NAMES = {RiskLevel.LOW: "Low", RiskLevel.MEDIUM: "Medium", RiskLevel.HIGH: "High"}


def sentence(code: str, russian: bool, **values) -> str:
    """The sentence for a reason code, in Russian or English (unknown codes are shown as they are)."""
    if code not in SENTENCES:
        return code
    language = "ru" if russian else "en"
    if "level" in values:  # a risk level's label in the same language
        values["level"] = translate(RISK_LEVEL_NAMES.get(values["level"], values["level"]), language).lower()
    return translate(SENTENCES[code], language) % values if values else translate(SENTENCES[code], language)


def explain(codes: list[str], language: str) -> list[str]:
    """The answer's reason codes as sentences in `language` (the ticket's: `replies.ticket_language`)."""
    return [sentence(code, language == "ru") for code in codes]


def decide(*, agent: Agent | None, risk_level: str, result: answers.Answer | None, text: str) -> Decision:
    """Whether the draft may be sent automatically; if not, why (see the module docstring)."""
    russian = words.is_russian(text)
    decision = Decision()
    if risk_level != RiskLevel.LOW:
        decision.block("risk", russian, level=risk_level)
    if agent is None:
        decision.block("no_agent", russian)
    elif not agent.auto_reply:
        decision.block("not_allowed", russian, agent=agent.name)
    if result is None:
        decision.block("no_draft", russian)
    elif result.refused:
        decision.block("refused", russian)
    elif "generator_failed" in result.reasons:
        decision.block("generator_failed", russian)
    elif not result.citations:
        decision.block("no_citations", russian)
    elif result.generator == "extractive" and not result.entry_match:
        decision.block("not_one_entry", russian)
    elif result.generator != "extractive" and not every_sentence_cited(result.text):
        decision.block("uncited_sentence", russian)
    if result is not None and not result.refused and agent is not None \
            and result.confidence < agent.auto_reply_threshold:
        decision.block("below_bar", russian, confidence=result.confidence, bar=agent.auto_reply_threshold)
    for reason in quality.auto_reply_blockers(result):  # poorly parsed sources wait for a person
        decision.add("source_quality", sentence("source_quality", russian, reason=reason))
    if result is not None and not result.refused:
        for reason in outgoing.review_reasons(question=text, result=result):
            decision.add("outgoing_text", sentence("outgoing_text", russian, reason=reason))
    return decision


def every_sentence_cited(text: str) -> bool:
    """Each sentence (or list item) of a model's draft carries a citation marker."""
    parts = source_text.sentences(text)
    return bool(parts) and all(MARKER.search(part) for part in parts)
