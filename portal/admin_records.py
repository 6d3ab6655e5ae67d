"""Admin pages of records: what happened is shown, never added, edited or deleted by hand."""


class RecordAdminMixin:
    """A read-only admin: view permission decides who sees it; nobody adds, changes or deletes."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
