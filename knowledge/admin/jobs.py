"""Jobs in the admin: live progress, per-document detail, cancel."""

from django.contrib import admin, messages
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from knowledge import admin_views
from knowledge.admin.common import KnowledgeAdminMixin, pretty_json, status_badge
from knowledge.models import Job


@admin.register(Job)
class JobAdmin(KnowledgeAdminMixin, admin.ModelAdmin):
    list_display = ["__str__", "knowledge_base", "status_badge", "progress", "counters_display", "created_by",
                    "created_at", "finished_at"]
    list_filter = ["status", "kind", "knowledge_base"]
    list_select_related = ["knowledge_base", "created_by"]
    actions = ["cancel_jobs"]
    fields = ["kind", "knowledge_base", "status_badge", "created_by", "created_at", "started_at", "finished_at",
              "attempts", "worker", "task_id", "options_display"]
    readonly_fields = fields

    class Media:
        css = KnowledgeAdminMixin.css
        js = ["knowledge/job_progress.js"]

    def has_add_permission(self, request):
        return False  # jobs are started from knowledge bases and documents

    def has_delete_permission(self, request, obj=None):
        return False  # a job is a record of what happened

    @admin.display(description=_("Status"), ordering="status")
    def status_badge(self, job):
        return status_badge(job.status, job.status_label)

    @admin.display(description=_("Progress"))
    def progress(self, job):
        percent = job.percent  # a running job's reads its items being embedded: once per row
        return format_html('<span class="kp-mini-bar" title="{} / {}"><span style="width: {}%"></span></span> {}%',
                           job.progress_done, job.progress_total, percent, percent)

    @admin.display(description=_("Counters"))
    def counters_display(self, job):
        return ", ".join(f"{admin_views.counter_label(name)}: {value}"
                         for name, value in sorted(job.counters.items())) or "—"

    @admin.display(description=_("Options"))
    def options_display(self, job):
        return pretty_json(job.options)

    @admin.action(description=_("Cancel selected jobs"), permissions=["change"])
    def cancel_jobs(self, request, queryset):
        running = [job for job in queryset if not job.is_finished]
        for job in running:
            job.cancel()
        self.message_user(request, ngettext("Cancellation requested for %(count)d job.",
                                             "Cancellation requested for %(count)d jobs.", len(running))
                          % {"count": len(running)}, messages.SUCCESS)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        job = self.get_object(request, object_id)
        extra_context = {**(extra_context or {}), **(admin_views.job_detail(self, request, job) if job else {})}
        return super().change_view(request, object_id, form_url, extra_context)

    def get_urls(self):
        return [
            self.custom_url("activity/", admin_views.activity, "activity"),
            self.custom_url("<int:job_id>/progress/", admin_views.job_progress, "progress"),
            self.custom_url("<int:job_id>/cancel/", admin_views.job_cancel, "cancel"),
            self.custom_url("<int:job_id>/retry/", admin_views.job_retry, "retry"),
        ] + super().get_urls()
