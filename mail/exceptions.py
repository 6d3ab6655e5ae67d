class MailError(Exception):
    """A message that cannot become a ticket (no sender, too large), or a mailbox that cannot be read."""
