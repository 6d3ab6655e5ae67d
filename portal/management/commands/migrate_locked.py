"""`manage.py migrate_locked`: `migrate` under a PostgreSQL advisory lock.

Several web servers starting together (`bin/serve` on each machine, or containers scaled out) each
migrate before serving. Two `migrate` runs at once on one database race: both try to create the
same tables, one fails, or both record the same migration. Holding one advisory lock around the
run makes them take turns: the first applies the migrations, the next ones find nothing to do.
"""

from django.core.management.commands.migrate import Command as MigrateCommand

from portal.db_locks import held

# Any fixed 64-bit number, the same in every process of the portal.
MIGRATE_LOCK = 0x706F7274616C6D69  # "portalmi"


class Command(MigrateCommand):
    help = "Apply migrations while holding a PostgreSQL advisory lock, so servers starting together migrate once."

    def handle(self, *args, **options):
        def waiting():
            self.stdout.write("Another process is migrating this database; waiting for it to finish.")

        with held(MIGRATE_LOCK, waiting=waiting, using=options["database"]):
            super().handle(*args, **options)
