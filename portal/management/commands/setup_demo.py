"""manage.py setup_demo — an admin login and a demo knowledge base, for a first start."""

import secrets
from contextlib import ExitStack
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.files import File
from django.core.management.base import BaseCommand

from knowledge import bases, jobs
from knowledge.models import KnowledgeBase

DEMO_SLUG = "portal-docs"


class Command(BaseCommand):
    help = "Create the admin login (printed) and a demo knowledge base built from the project's own docs."

    def handle(self, *args, **options):
        username, password = self.ensure_admin()
        self.stdout.write(self.style.SUCCESS(f"Admin login: {username} / {password}"))
        self.ensure_demo_base()

    def ensure_admin(self) -> tuple[str, str]:
        User = get_user_model()
        username = "admin"
        password_file = settings.VAR_DIR / "admin-password"
        user = User.objects.filter(username=username).first()
        if user and password_file.exists():
            return username, password_file.read_text().strip()
        password = secrets.token_urlsafe(12)
        if user is None:
            user = User.objects.create_superuser(username, email="", password=password)
        else:
            user.set_password(password)
            user.save(update_fields=["password"])
        password_file.parent.mkdir(parents=True, exist_ok=True)
        password_file.write_text(password)
        password_file.chmod(0o600)
        return username, password

    def ensure_demo_base(self) -> None:
        if KnowledgeBase.objects.filter(slug=DEMO_SLUG).exists():
            return
        kb = bases.create_knowledge_base(
            name="Portal documentation", slug=DEMO_SLUG,
            description="The portal's own README and docs, ingested on first start as a demo.")
        paths = [settings.BASE_DIR / "README.md", *sorted((settings.BASE_DIR / "docs").glob("*.md"))]
        with ExitStack() as stack:
            handles = [stack.enter_context(open(path, "rb")) for path in paths if path.exists()]
            job, refused = jobs.add_uploads(kb, [File(handle, name=Path(handle.name).name) for handle in handles])
        self.stdout.write(f"Demo knowledge base '{kb.name}' created; ingestion job #{job.pk} queued "
                          f"for {len(handles) - len(refused)} documents.")
