"""What the customer reads, per agent and per language of the ticket: refusals and e-mail replies.

An agent's `ReplyTemplate` for the ticket's language wins; then, for refusals, the agent's own
refusal text (written for any language); then the portal's default, which the translation
catalogue has in Russian and English. The language is the customer's (`Ticket.language`,
detected when the ticket arrived), never the language of the staff member's admin.

A reply's `[n]` markers point at the draft's source snapshots, which staff open in the admin and
the customer cannot: the e-mail leaves them out (`customer_text`), or, for an agent with
`reply_links`, numbers the web pages cited again and lists them under the reply with their addresses.
"""

import re

from django.utils.translation import gettext_noop

from knowledge.search.citations import renumber_markers
from portal.languages import detect_language, supported, translate
from tickets.models import Agent, Message, ReplyTemplate, Ticket, TicketSource

DEFAULT_TEXTS = {
    ReplyTemplate.Kind.REFUSAL: gettext_noop(
        "Thank you for your message. We could not find a reliable answer in our documentation, "
        "so a member of our team will reply to you personally."),
    ReplyTemplate.Kind.EMAIL: gettext_noop("Hello,\n\n{reply}\n\nBest regards,\nThe support team"),
    ReplyTemplate.Kind.AUTO_REPLY: gettext_noop(
        "Hello,\n\n{reply}\n\nThis answer was written automatically from our documentation. If it does not "
        "help, reply to this e-mail and a member of our team will answer.\n\nBest regards,\nThe support team"),
}
DEFAULT_SUBJECT = gettext_noop("Your request")
SOURCES_HEADING = gettext_noop("Sources:")
# A page a customer can open: http(s), a host, no spaces or angle brackets that would break the line.
WEB_PAGE = re.compile(r"https?://[^\s<>\"]+\Z", re.IGNORECASE)
PLACEHOLDER = re.compile(r"\{(reply|agent|customer|ticket)\}")


def ticket_language(ticket: Ticket) -> str:
    """The customer's language: the one detected on arrival, or detected now for older tickets."""
    if ticket.language:
        return supported(ticket.language)
    return detect_language(f"{ticket.subject}\n{ticket.customer_text()}")


def template_text(agent: Agent | None, kind: str, language: str) -> str:
    """The agent's template of `kind` in `language`, else the agent's refusal text, else the default."""
    language = supported(language)
    if agent is not None and agent.pk:
        own = next((t.text for t in agent.templates.all() if t.kind == kind and t.language == language), "")
        if own.strip():
            return own
        if kind == ReplyTemplate.Kind.REFUSAL and agent.refusal_text.strip():
            return agent.refusal_text
    return translate(DEFAULT_TEXTS[kind], language)


def fill(template: str, **values: str) -> str:
    """Replace the known placeholders; any other brace stays as written (templates are staff text)."""
    return PLACEHOLDER.sub(lambda match: str(values.get(match.group(1), "")), template)


def refusal_text(agent: Agent | None, ticket: Ticket) -> str:
    """The refusal a draft becomes when the knowledge bases cannot support an answer."""
    text = template_text(agent, ReplyTemplate.Kind.REFUSAL, ticket_language(ticket))
    return fill(text, agent=agent.name if agent else "", customer=ticket.customer, ticket=str(ticket.pk))


def customer_text(reply: Message) -> str:
    """The reply without markers the customer cannot follow; with the agent's `reply_links`, the web
    pages it cites numbered by first use (two passages of one page are one source) and listed under it."""
    agent = reply.ticket.agent
    pages = {}  # the draft's source number → (title, address) of a web page
    if agent is not None and agent.reply_links and reply.draft_id:
        pages = {source.position: (source.document_title, source.source_uri)
                 for source in TicketSource.objects.filter(message_id=reply.draft_id)
                 if WEB_PAGE.match(source.source_uri)}
    numbers, titles = {}, {}  # address → its number for the customer, and its title

    def renumber(position: int) -> int | None:
        if position not in pages:
            return None
        title, address = pages[position]
        if title.strip():
            titles.setdefault(address, " ".join(title.split()))
        return numbers.setdefault(address, len(numbers) + 1)

    text = renumber_markers(reply.body, renumber)
    if not numbers:
        return text
    listed = [f"[{number}] {titles[address]}: {address}" if address in titles else f"[{number}] {address}"
              for address, number in numbers.items()]
    return "\n".join([text, "", translate(SOURCES_HEADING, ticket_language(reply.ticket)), *listed])


def email_body(reply: Message) -> str:
    """The e-mail a reply leaves as: the agent's (or default) wrapper in the customer's language."""
    ticket = reply.ticket
    kind = ReplyTemplate.Kind.AUTO_REPLY if reply.auto_sent else ReplyTemplate.Kind.EMAIL
    agent = ticket.agent
    text = template_text(agent, kind, ticket_language(ticket))
    return fill(text, reply=customer_text(reply), agent=agent.name if agent else "", customer=ticket.customer,
                ticket=str(ticket.pk))


def email_subject(ticket: Ticket) -> str:
    """The subject of a ticket without one, in the customer's language."""
    return translate(DEFAULT_SUBJECT, ticket_language(ticket))
