"""System checks that catch configuration mistakes at start-up (portal/checks.py)."""

import warnings

from django.conf import settings
from django.test import SimpleTestCase, override_settings

from portal.checks import check_settings


class SettingsCheckTests(SimpleTestCase):
    def ids(self):
        return {problem.id for problem in check_settings(None)}

    def test_the_shipped_settings_pass(self):
        self.assertFalse({"portal.E003", "portal.E004", "portal.E005", "portal.E006"} & self.ids())

    def test_server_side_binding_is_refused(self):
        default = {**settings.DATABASES["default"], "OPTIONS": {"server_side_binding": True}}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Django warns that overriding DATABASES is unusual
            with override_settings(DATABASES={**settings.DATABASES, "default": default}):
                self.assertIn("portal.E005", self.ids())

    def test_an_unknown_default_embedder_and_a_retry_shorter_than_the_timeout(self):
        with override_settings(PORTAL={**settings.PORTAL, "DEFAULT_EMBEDDER": "nope"},
                               Q_CLUSTER={**settings.Q_CLUSTER, "retry": 10, "timeout": 10}):
            self.assertLessEqual({"portal.E003", "portal.E004"}, self.ids())

    def test_a_heartbeat_slower_than_the_lease_is_refused(self):
        with override_settings(PORTAL={**settings.PORTAL, "JOB_HEARTBEAT_SECONDS": 120.0, "JOB_STALE_SECONDS": 60}):
            self.assertIn("portal.E006", self.ids())
