"""`manage.py migrate_locked` (run by `bin/serve`): web servers starting together take turns to migrate.

The two-servers-on-a-fresh-database case runs in tests/e2e/test_scale_out.py; here the lock itself is
held by the test while a real `migrate_locked` process starts.
"""

import subprocess
import sys
import time

from django.db import connection
from django.test import TransactionTestCase

from portal.management.commands.migrate_locked import MIGRATE_LOCK
from tests.e2e.worker import ROOT, _environment, wait_for


def advisory_waiters() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
                       "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())")
        return cursor.fetchone()[0]


class MigrateLockedTests(TransactionTestCase):
    def test_a_migration_waits_while_another_process_migrates(self):
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s)", [MIGRATE_LOCK])  # "another server is migrating"
        process = subprocess.Popen([sys.executable, "manage.py", "migrate_locked", "--no-input"], cwd=ROOT,
                                   env=_environment({}), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            wait_for(advisory_waiters, timeout=60, what="migrate_locked to wait on the lock")
            time.sleep(1)
            self.assertIsNone(process.poll(), "it migrated while the lock was held")
        finally:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [MIGRATE_LOCK])
        output, _ = process.communicate(timeout=120)
        self.assertEqual(process.returncode, 0, output)
        self.assertIn("Another process is migrating this database; waiting", output)
        self.assertIn("No migrations to apply", output)
        self.assertEqual(advisory_waiters(), 0)
