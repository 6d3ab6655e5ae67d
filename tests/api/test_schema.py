"""Schemathesis over the live OpenAPI schema: every operation, generated inputs, no server errors.

The app is called through WSGI in this process, so it sees the test's database transaction.
Examples are few and derandomized, to keep the run near a minute and the failures reproducible.
(Hypothesis drives each operation's strategy directly: schemathesis' pytest plugin does not work
with pytest 9 yet.)
"""

import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.test import TestCase, override_settings
from hypothesis import HealthCheck, given, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from tests.api.base import make_key
from tests.factories import make_document, make_kb

EXAMPLES = 15


@override_settings(API={"RATE_LIMIT_PER_MINUTE": 1_000_000, "PAGE_SIZE": 20, "MAX_PAGE_SIZE": 100})
class OpenApiSchemaTests(TestCase):
    @classmethod
    def setUpTestData(cls):
        cls.kb = make_kb()
        cls.document = make_document(cls.kb, text="# Hello\n\nA first document.")
        cls.token = make_key()[1]

    def setUp(self):
        # As Django's test client does: the request signals must not close the connection that
        # holds the test's transaction.
        request_started.disconnect(close_old_connections)
        request_finished.disconnect(close_old_connections)
        self.addCleanup(request_started.connect, close_old_connections)
        self.addCleanup(request_finished.connect, close_old_connections)

    def test_no_operation_fails_on_generated_input(self):
        schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", get_wsgi_application())
        headers = {"Authorization": f"Bearer {self.token}"}
        operations = [result.ok() for result in schema.get_all_operations()]
        self.assertGreaterEqual(len(operations), 20)
        for operation in operations:
            with self.subTest(operation.label):

                @given(case=operation.as_strategy())
                @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                          suppress_health_check=list(HealthCheck))
                def check(case):
                    # Rejecting schema-valid text that PostgreSQL cannot store (NUL) is correct.
                    case.call_and_validate(headers=headers, excluded_checks=[positive_data_acceptance])

                check()
