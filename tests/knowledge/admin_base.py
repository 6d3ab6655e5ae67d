"""What the admin tests share: staff users with and without the knowledge permissions, a base."""

from django.contrib.auth.models import Permission, User
from django.test import TestCase

from tests.factories import make_document, make_kb

MODELS = ("knowledgebase", "document", "chunk", "job")
REFUNDS = ("# Refunds\n\nRefunds are paid within 14 days. " + "We check every request by hand. " * 12
           + "\n\n## Exceptions\n\nGift cards are never refunded. " + "Vouchers are not cash. " * 12)


def make_staff(username: str, *codenames: str) -> User:
    user = User.objects.create_user(username, password="pw", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(content_type__app_label="knowledge", codename__in=codenames))
    return user


def all_perms() -> list[str]:
    return [f"{action}_{model}" for model in MODELS for action in ("view", "add", "change", "delete")]


class AdminTestCase(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.manager = make_staff("manager", *all_perms())
        cls.viewer = make_staff("viewer", *[f"view_{model}" for model in MODELS])
        cls.outsider = make_staff("outsider")
        cls.kb = make_kb(name="Handbook")
        cls.doc = make_document(cls.kb, title="Refunds <script>alert(1)</script>", text=REFUNDS,
                                source_uri="file:refunds.md")

    def login(self, user: User) -> None:
        self.client.force_login(user)
