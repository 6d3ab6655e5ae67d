"""Errors of the tickets app: messages staff or an integrator can read and act on."""


class TicketError(Exception):
    """Base class of the tickets app's errors."""


class NoDraftError(TicketError):
    """The ticket has no current draft to send or reject."""


class TicketClosedError(TicketError):
    """The ticket was already answered or rejected."""


class UnknownSourceError(TicketError):
    """A reply's [n] marker names a source the draft has no snapshot for."""
