"""Browser-test fixtures shared by the content manager's pages."""

import pytest
from django.contrib.auth.models import Permission, User

from tests.browser import admin_login


@pytest.fixture
def manager(db):
    """A staff member holding every knowledge permission (not a superuser)."""
    user = User.objects.create_user("manager", password="s3cret-pass", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(content_type__app_label="knowledge"))
    return user


@pytest.fixture
def logged_in(page, manager):
    admin_login(page, "manager", "s3cret-pass")
    return page
