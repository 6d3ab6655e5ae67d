from django.contrib.auth.models import Group, Permission
from django.core.management.sql import emit_post_migrate_signal
from django.test import TestCase

from tickets.groups import CONTENT_MANAGERS, SUPPORT_STAFF


class StaffGroupTests(TestCase):
    def perms(self, name):
        group = Group.objects.get(name=name)
        return {f"{p.content_type.app_label}.{p.codename}" for p in group.permissions.select_related("content_type")}

    def test_support_staff_work_tickets_but_cannot_edit_knowledge(self):
        perms = self.perms(SUPPORT_STAFF)
        self.assertTrue({"tickets.view_ticket", "tickets.change_ticket", "tickets.add_message",
                         "tickets.view_ticketsource", "tickets.view_gap_report"} <= perms)
        self.assertFalse([p for p in perms if p.startswith(("knowledge.", "crawler."))])
        self.assertNotIn("tickets.delete_ticket", perms)

    def test_content_managers_edit_knowledge_but_cannot_read_tickets(self):
        perms = self.perms(CONTENT_MANAGERS)
        self.assertTrue({"knowledge.change_knowledgebase", "knowledge.add_document", "knowledge.delete_document",
                         "knowledge.view_chunk", "knowledge.change_job", "tickets.view_gap_report"} <= perms)
        self.assertFalse([p for p in perms if p.startswith("tickets.") and p != "tickets.view_gap_report"])

    def test_content_managers_measure_and_switch_bases_with_the_evaluation_app(self):
        perms = self.perms(CONTENT_MANAGERS)
        self.assertTrue({"evaluation.add_goldenset", "evaluation.change_goldenset", "evaluation.add_goldenquestion",
                         "evaluation.view_evalrun", "evaluation.view_feedback", "evaluation.add_shadowswitch",
                         "evaluation.change_shadowswitch"} <= perms)
        self.assertFalse([p for p in self.perms(SUPPORT_STAFF) if p.startswith("evaluation.")])

    def test_the_groups_are_complete_after_permissions_are_created_anew(self):
        # What `flush` (and a test case that flushes) does: every permission gone, then post_migrate sent to
        # each app in turn. The groups were synced at the tickets app's turn, before the permissions of
        # the apps after it (evaluation, mail, webhooks) were created again, and went without them.
        Permission.objects.all().delete()
        emit_post_migrate_signal(verbosity=0, interactive=False, db="default")
        self.assertTrue({"evaluation.add_goldenset", "knowledge.add_document"} <= self.perms(CONTENT_MANAGERS))
