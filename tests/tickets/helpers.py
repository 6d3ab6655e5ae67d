"""Shared set-up of the tickets tests: a small help-centre knowledge base and its agents."""

from tests.factories import make_document, make_kb
from tickets.models import Agent

REFUNDS = """# Refunds

## Refund policy
Refunds are paid back to the original card within five working days after the returned parcel arrives.
A refund request needs the order number and the reason for the return.

## Exchanges
An exchange for another size is free of charge within thirty days of delivery."""

DELIVERY = """# Delivery

## How long does delivery take?
Standard delivery takes three to five working days. Express delivery arrives the next working day
when the order is placed before noon.

## How do I track a parcel?
Every parcel gets a tracking number by e-mail once it leaves the warehouse; enter it on the tracking page."""

PASSWORDS = """# Account

## Resetting a password
To reset a password open the login page, press "Forgot password" and follow the link sent by e-mail.
The reset link is valid for one hour."""


def make_help_centre(**agent_fields):
    """A knowledge base with three documents and an auto-replying agent that answers from it."""
    kb = make_kb(name="Help centre")
    documents = {
        "refunds": make_document(kb, REFUNDS, title="Refunds", source_uri="https://help.example/refunds"),
        "delivery": make_document(kb, DELIVERY, title="Delivery", source_uri="https://help.example/delivery"),
        "passwords": make_document(kb, PASSWORDS, title="Account", source_uri="https://help.example/account"),
    }
    fields = {"name": "Help desk", "auto_reply": True, "confidence_threshold": 0.5, "is_default": True,
              "instructions": "Answer politely and briefly."}
    fields.update(agent_fields)
    agent = Agent.objects.create(**fields)
    agent.knowledge_bases.add(kb)
    return kb, documents, agent
