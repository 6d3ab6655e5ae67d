"""Why a ticket's draft must not be sent automatically, judged on the draft itself.

Risk assessment reads the customer's message; this reads what would be sent back. The answer's
outgoing-text flags (`knowledge/outgoing.py`: injected instructions in the draft or its sources,
foreign e-mail addresses and links, credential requests) and high-risk phrases the draft has but the
customer's message has not (a draft bringing up a court or a chargeback because a source did)
each hold the draft for review, with the reason shown on the ticket.
"""

from django.utils.translation import gettext

from knowledge.search.answers import Answer
from tickets import risk


def review_reasons(*, question: str, result: Answer) -> list[str]:
    """Reasons the draft needs a person before it goes out; empty when it may be auto-replied."""
    reasons = [gettext("outgoing text check: %(flag)s") % {"flag": flag} for flag in result.flags]
    asked = {reason.code for reason in risk.RuleClassifier().assess(question).reasons}
    for reason in risk.RuleClassifier().assess(result.text).reasons:
        # Only high-risk phrases: a draft may well quote a refund policy, but one that brings up
        # courts, chargebacks or fraud unasked is not for sending unread.
        if reason.code not in asked and reason.level == risk.RiskLevel.HIGH:
            level = str(risk.RiskLevel(reason.level).label).lower()  # "high", in the active language
            reasons.append(gettext("the draft itself is %(level)s risk: %(reason)s («%(match)s»)")
                           % {"level": level, "reason": gettext(reason.reason), "match": reason.match})
    return reasons
