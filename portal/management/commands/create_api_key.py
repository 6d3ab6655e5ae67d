"""manage.py create_api_key — an API key from the command line; the key is printed once."""

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone

from knowledge.models import KnowledgeBase
from portal.models import ApiKey, Scope


class Command(BaseCommand):
    help = "Create an API key and print it (it is stored only as a hash and cannot be shown again)."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--owner", required=True, help="Username of the key's owner.")
        parser.add_argument("--scope", action="append", choices=Scope.values, dest="scopes",
                            help="Repeat for several; default: all scopes.")
        parser.add_argument("--kb", action="append", default=[], dest="slugs",
                            help="Slug of a knowledge base the key is limited to; repeat for several.")
        parser.add_argument("--allow-ip", action="append", default=[], dest="allowed_ips",
                            help="IP address or CIDR network the key may be used from; repeat for several.")
        parser.add_argument("--expires-in-days", type=int)

    @transaction.atomic
    def handle(self, *args, name, owner, scopes, slugs, allowed_ips, expires_in_days, **options):
        user = get_user_model().objects.filter(username=owner).first()
        if user is None:
            raise CommandError(f"No user {owner!r}")
        kbs = list(KnowledgeBase.objects.filter(slug__in=slugs))
        if len(kbs) != len(set(slugs)):
            raise CommandError(f"Unknown knowledge base slug(s): {sorted(set(slugs) - {kb.slug for kb in kbs})}")
        if expires_in_days is not None and expires_in_days < 1:
            raise CommandError("--expires-in-days must be at least 1 (leave it out for a key that does not expire)")
        expires_at = timezone.now() + timedelta(days=expires_in_days) if expires_in_days else None
        key = ApiKey(name=name, owner=user, scopes=scopes or list(Scope.values), allowed_ips=allowed_ips,
                     expires_at=expires_at)
        token = key.issue_token()
        try:
            key.full_clean()
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from None
        key.save()
        key.knowledge_bases.set(kbs)
        self.stdout.write(token)
