from django import forms
from django.contrib import admin, messages
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from portal.stored_text import translated
from webhooks import delivery as deliveries
from webhooks.exceptions import WebhookError
from webhooks.models import Delivery, Endpoint, Event


@admin.register(Endpoint)
class EndpointAdmin(admin.ModelAdmin):
    list_display = ("name", "url", "event_list", "is_active", "consecutive_failures", "disabled_reason_text")
    list_filter = ("is_active",)
    search_fields = ("name", "url")
    readonly_fields = ("secret", "consecutive_failures", "disabled_at", "disabled_reason_text", "api_key",
                       "created_at", "updated_at")
    raw_id_fields = ("owner",)
    actions = ["enable", "rotate_secret"]

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        if db_field.name == "url":
            kwargs["assume_scheme"] = "https"  # an address typed without a scheme is https
        if db_field.name == "events":  # a box per event, not a comma-separated list of names to spell right
            return forms.TypedMultipleChoiceField(choices=Event.choices, widget=forms.CheckboxSelectMultiple,
                                                  label=db_field.verbose_name, help_text=db_field.help_text)
        return super().formfield_for_dbfield(db_field, request, **kwargs)

    @admin.display(description=_("disabled reason"))
    def disabled_reason_text(self, endpoint: Endpoint) -> str:
        return translated(endpoint.disabled_reason)

    @admin.display(description=_("events"))
    def event_list(self, endpoint: Endpoint) -> str:
        return ", ".join(endpoint.events)

    def save_model(self, request, obj, form, change):
        switched_on = change and obj.is_active and "is_active" in form.changed_data
        if not change or "url" in form.changed_data or switched_on:
            try:
                deliveries.check_url(obj.url)
            except WebhookError as exc:
                # Saved, but off, so the refusal is visible and nothing is sent.
                obj.is_active, obj.disabled_reason = False, str(exc)[:500]
                self.message_user(request, _("Not enabled: %(error)s") % {"error": exc}, messages.ERROR)
            else:
                if switched_on:  # as "Enable" and the API do
                    for field, value in Endpoint.CLEARED_FAILURES.items():
                        setattr(obj, field, value)
        if not change and obj.owner is None:
            obj.owner = request.user
        super().save_model(request, obj, form, change)

    @admin.action(description=_("Enable (and reset the failure count)"))
    def enable(self, request, queryset):
        enabled = 0
        for endpoint in queryset:
            try:
                deliveries.update_endpoint(endpoint, is_active=True)  # its URL checked again
            except WebhookError as exc:
                self.message_user(request, _("Not enabled: %(error)s") % {"error": exc}, messages.ERROR)
            else:
                enabled += 1
        self.message_user(request, ngettext("%(count)d endpoint enabled", "%(count)d endpoints enabled", enabled)
                          % {"count": enabled})

    @admin.action(description=_("Rotate the signing secret"))
    def rotate_secret(self, request, queryset):
        for endpoint in queryset:
            endpoint.rotate_secret()
        self.message_user(request, ngettext("%(count)d secret rotated; give receivers the new one",
                                             "%(count)d secrets rotated; give receivers the new ones", len(queryset))
                          % {"count": len(queryset)})


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin):
    list_display = ("created_at", "event", "endpoint", "status", "attempts", "response_status", "short_error",
                    "next_attempt_at")
    list_filter = ("status", "event")
    list_select_related = ("endpoint",)
    search_fields = ("event_id", "endpoint__name", "endpoint__url")
    # Everything is a record; the attempts are shown as a list rather than as raw JSON.
    readonly_fields = [field.name for field in Delivery._meta.fields if field.name != "log"] + ["attempt_log"]
    exclude = ("log",)
    show_full_result_count = False
    actions = ["retry"]

    def has_add_permission(self, request):
        return False

    @admin.display(description=_("error"))
    def short_error(self, delivery: Delivery) -> str:
        return translated(delivery.error)[:120]

    @admin.display(description=_("attempts log"))
    def attempt_log(self, delivery: Delivery) -> str:
        if not delivery.log:
            return "—"
        rows = format_html_join("", "<li>{} — {} {} ({} ms)</li>", (
            (entry.get("at", ""), entry.get("status") or _("no answer"), entry.get("error", ""), entry.get("ms", ""))
            for entry in delivery.log))
        return format_html("<ul>{}</ul>", rows)

    @admin.action(description=_("Send again"))
    def retry(self, request, queryset):
        for item in queryset:
            deliveries.retry_now(item)
        self.message_user(request, ngettext("%(count)d delivery queued again", "%(count)d deliveries queued again",
                                             len(queryset)) % {"count": len(queryset)})
