from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from mail.models import Attachment, MailMessage
from portal.stored_text import translated


class AttachmentInline(admin.TabularInline):
    model = Attachment
    fields = ("filename", "content_type", "size", "file")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(MailMessage)
class MailMessageAdmin(admin.ModelAdmin):
    list_display = ("created_at", "direction", "status", "sender", "recipients", "subject", "ticket_link",
                    "reason_text")
    list_filter = ("direction", "status")
    search_fields = ("message_id", "sender", "recipients", "subject")
    list_select_related = ("ticket",)
    readonly_fields = ("direction", "status", "message_id", "in_reply_to", "references", "sender", "recipients",
                       "subject", "ticket_link", "reason_text", "attempts", "next_attempt_at", "raw", "size",
                       "created_at")
    exclude = ("ticket", "ticket_message")
    inlines = [AttachmentInline]
    show_full_result_count = False

    def has_add_permission(self, request):
        return False

    @admin.display(description=_("reason"))
    def reason_text(self, mail: MailMessage) -> str:
        return translated(mail.reason)

    @admin.display(description=_("ticket"))
    def ticket_link(self, mail: MailMessage) -> str:
        if mail.ticket_id is None:
            return "—"
        return format_html('<a href="{}">#{}</a>', reverse("admin:tickets_ticket_change", args=[mail.ticket_id]),
                           mail.ticket_id)
