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

from knowledge import quality
from knowledge.search import answers, composer
from knowledge.search.citations import MARKER
from tickets import outgoing
from tickets.models import Agent, RiskLevel

# (English, Russian) per reason code of `knowledge.answers` and of this module.
SENTENCES = {
    "no_hits": ("Nothing in the knowledge bases matches the question.",
                "В базах знаний не нашлось ничего по этому вопросу."),
    "low_top_score": ("The closest source is only loosely related to the question.",
                      "Даже самый близкий источник связан с вопросом слабо."),
    "single_source": ("Only one source supports the answer.", "Ответ опирается только на один источник."),
    "keyword_fallback_used": ("The sources were found by matching words, not by meaning.",
                              "Источники найдены по совпадению слов, а не по смыслу."),
    "no_vector_scores": ("The sources were found by keywords alone, so how close they are is unknown.",
                         "Источники найдены только по ключевым словам; насколько они близки, неизвестно."),
    "below_threshold": ("The sources do not support an answer well enough, so none was written.",
                        "Источники недостаточно подтверждают ответ, поэтому он не составлен."),
    "generator_failed": ("The language model failed; the draft is an extract of the sources.",
                         "Языковая модель не ответила; черновик составлен из фрагментов источников."),
    "dropped_markers": ("The draft cited sources that do not exist; those citations were removed.",
                        "Черновик ссылался на несуществующие источники; эти ссылки удалены."),
    "no_citations": ("The draft cites no source.", "Черновик не ссылается ни на один источник."),
    "risk": ("The ticket's risk is {level}: a person should answer it.",
             "Риск обращения — {level}: ответить должен сотрудник."),
    "no_agent": ("No agent handles this ticket.", "Обращение не передано ни одному агенту."),
    "not_allowed": ("{agent} does not send replies automatically.", "{agent} не отправляет ответы автоматически."),
    "no_draft": ("There is no draft.", "Черновика нет."),
    "refused": ("No answer was written: the sources do not support one.",
                "Ответ не составлен: источники его не подтверждают."),
    "not_one_entry": ("The draft is an extract from the sources, not the answer of one matching FAQ entry.",
                      "Черновик составлен из фрагментов источников, а не взят из одной подходящей записи FAQ."),
    "uncited_sentence": ("A sentence of the draft cites no source.",
                         "Одно из предложений черновика без ссылки на источник."),
    "below_bar": ("Confidence {confidence:.2f} is below the auto-reply bar {bar:.2f}.",
                  "Уверенность {confidence:.2f} ниже порога автоответа {bar:.2f}."),
    "source_quality": ("A cited document was parsed poorly and needs a person first: {reason}.",
                       "Цитируемый документ распознан плохо, сначала его должен проверить сотрудник: {reason}."),
    "outgoing_text": ("The draft must be read before it goes out: {reason}.",
                      "Черновик нужно прочитать перед отправкой: {reason}."),
    "auto_reply": ("Low risk, the answer of a clearly matching FAQ entry, and allowed: sent automatically.",
                   "Риск низкий, ответ взят из точно подходящей записи FAQ, автоответ разрешён: "
                   "отправлено автоматически."),
    "auto_reply_model": ("Low risk, every sentence cited, confident and allowed: sent automatically.",
                         "Риск низкий, каждое предложение со ссылкой, уверенность достаточна, автоответ разрешён: "
                         "отправлено автоматически."),
}

RISK_LEVELS_RU = {RiskLevel.MEDIUM: "средний", RiskLevel.HIGH: "высокий"}


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


def sentence(code: str, russian: bool, **values) -> str:
    """The sentence for a reason code (unknown codes are shown as they are)."""
    english, russian_text = SENTENCES.get(code, (code, code))
    return (russian_text if russian else english).format(**values)


def explain(codes: list[str], text: str) -> list[str]:
    """The answer's reason codes as sentences in the language of `text`."""
    russian = composer.is_russian(text)
    return [sentence(code, russian) for code in codes]


def decide(*, agent: Agent | None, risk_level: str, result: answers.Answer | None, text: str) -> Decision:
    """Whether the draft may be sent automatically; if not, why (see the module docstring)."""
    russian = composer.is_russian(text)
    decision = Decision()
    if risk_level != RiskLevel.LOW:
        level = RISK_LEVELS_RU.get(risk_level, risk_level) if russian else str(risk_level)
        decision.block("risk", russian, level=level)
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
    parts = composer.sentences(text)
    return bool(parts) and all(MARKER.search(part) for part in parts)
