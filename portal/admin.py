"""API keys in the admin: created here, shown once, revoked here; the secret is never shown again."""

from auditlog.admin import LogEntryAdmin
from auditlog.models import LogEntry
from django import forms
from django.contrib import admin, messages
from django.utils.html import format_html
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from portal.admin_records import RecordAdminMixin
from portal.models import ApiKey, ApiRequest, Scope


class ApiKeyForm(forms.ModelForm):
    scopes = forms.MultipleChoiceField(choices=Scope.choices, widget=forms.CheckboxSelectMultiple)
    allowed_ips = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("One IP address or CIDR network per line (e.g. 203.0.113.7 or 10.0.0.0/8); empty means anywhere."),
    )

    class Meta:
        model = ApiKey
        fields = ["name", "owner", "scopes", "knowledge_bases", "expires_at", "allowed_ips"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.initial["allowed_ips"] = "\n".join(self.instance.allowed_ips)

    def clean_allowed_ips(self) -> list[str]:
        return [line.strip() for line in self.cleaned_data["allowed_ips"].splitlines() if line.strip()]


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    form = ApiKeyForm
    list_display = ["name", "owner", "key_prefix", "scope_list", "state", "expires_at", "last_used_at", "created_at"]
    list_filter = ["revoked_at", "created_at"]
    list_select_related = ["owner"]
    search_fields = ["name", "prefix", "owner__username"]
    raw_id_fields = ["owner"]
    filter_horizontal = ["knowledge_bases"]
    readonly_fields = ["key_prefix", "last_used_at", "revoked_at", "created_at"]
    actions = ["revoke_keys"]

    def get_fieldsets(self, request, obj=None):
        main = ["name", "owner", "scopes", "knowledge_bases", "expires_at", "allowed_ips"]
        if obj is None:
            return [(None, {"fields": main})]
        return [(None, {"fields": ["key_prefix", *main]}),
                (_("Use"), {"fields": ["last_used_at", "revoked_at", "created_at"]})]

    def get_changeform_initial_data(self, request):
        return {"owner": request.user.pk, "scopes": [Scope.READ, Scope.SEARCH]}

    def save_model(self, request, obj, form, change):
        token = None if change else obj.issue_token()
        super().save_model(request, obj, form, change)
        if token:
            self.message_user(request, format_html(
                _("The API key is <code>{}</code>. Copy it now: it is stored only as a hash and will not be shown "
                  "again."),
                token), messages.WARNING)

    @admin.display(description=_("Key"))
    def key_prefix(self, obj: ApiKey) -> str:
        return f"kp_{obj.prefix}_…" if obj.prefix else "—"

    @admin.display(description=_("Scopes"))
    def scope_list(self, obj: ApiKey) -> str:
        return ", ".join(obj.scopes)

    @admin.display(description=_("State"))
    def state(self, obj: ApiKey) -> str:
        return gettext("revoked") if obj.revoked_at else gettext("expired") if obj.is_expired else gettext("active")

    @admin.action(description=_("Revoke selected API keys"))
    def revoke_keys(self, request, queryset):
        for key in queryset:
            key.revoke()
        self.message_user(request, ngettext("%(count)d API key revoked", "%(count)d API keys revoked", len(queryset))
                          % {"count": len(queryset)})


@admin.register(ApiRequest)
class ApiRequestAdmin(RecordAdminMixin, admin.ModelAdmin):
    """The API audit trail: read-only, filterable; entries leave only by retention (portal/audit.py)."""

    list_display = ["created_at", "key_prefix", "api_key", "method", "route", "status", "knowledge_base_id",
                    "remote_addr"]
    list_filter = ["status", "method", "api_key", "created_at"]
    search_fields = ["path", "route", "key_prefix"]
    date_hierarchy = "created_at"
    list_select_related = ["api_key"]
    readonly_fields = [field.name for field in ApiRequest._meta.fields]
    show_full_result_count = False



# django-auditlog's model change log, kept append-only: its admin adds and changes nothing; here it
# deletes nothing either (retention does).
admin.site.unregister(LogEntry)


@admin.register(LogEntry)
class AppendOnlyLogEntryAdmin(LogEntryAdmin):
    def has_delete_permission(self, request, obj=None):
        return False
