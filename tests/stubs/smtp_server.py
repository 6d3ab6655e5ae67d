"""A real SMTP server (aiosmtpd) on 127.0.0.1 that keeps every message it accepts (and refuses the
next ones with the answers put in `handler.answers`)."""

from email import message_from_bytes, policy

from aiosmtpd.controller import Controller

from tests.net import free_port


class _Keep:
    def __init__(self):
        self.envelopes = []
        self.answers = []  # what to answer the next messages instead of taking them ("451 …", "550 …")

    async def handle_DATA(self, server, session, envelope):
        if self.answers:
            return self.answers.pop(0)
        self.envelopes.append(envelope)
        return "250 OK"


class SmtpServer:
    def __init__(self):
        self.handler = _Keep()
        self.port = free_port()

    def start(self) -> "SmtpServer":
        # A controller runs once; starting again (after stop) takes a new one on the same port.
        self.controller = Controller(self.handler, hostname="127.0.0.1", port=self.port)
        self.controller.start()
        return self

    def stop(self) -> None:
        self.controller.stop(no_assert=True)

    @property
    def messages(self) -> list:
        """(envelope recipients, parsed message) per accepted message."""
        return [(env.rcpt_tos, message_from_bytes(env.original_content or env.content, policy=policy.default))
                for env in self.handler.envelopes]

    def settings(self) -> dict:
        return {"EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend", "EMAIL_HOST": "127.0.0.1",
                "EMAIL_PORT": self.port, "EMAIL_USE_TLS": False, "EMAIL_USE_SSL": False, "EMAIL_HOST_USER": "",
                "EMAIL_HOST_PASSWORD": ""}
