"""A change to a knowledge base (added, edited, deleted) changes the access version (portal/access.py),
so API processes read the bases a key may search afresh."""

from django.db import migrations

BUMP = """
CREATE TRIGGER knowledge_knowledgebase_access AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON knowledge_knowledgebase FOR EACH STATEMENT EXECUTE FUNCTION portal_bump_access_version();
"""
UNDO = "DROP TRIGGER knowledge_knowledgebase_access ON knowledge_knowledgebase;"


class Migration(migrations.Migration):

    dependencies = [
        ('knowledge', '0015_query_vectors'),
        ('portal', '0009_access_version'),
    ]

    operations = [migrations.RunSQL(BUMP, UNDO)]
