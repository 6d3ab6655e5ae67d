"""The access version (portal/access.py): a one-row table, a sequence, and the triggers that set it.

Any change to an API key other than its last use, to a key's base limits (and, from knowledge's
0016, to a knowledge base) gives the row a new number from the sequence, in the changing
transaction. Statement-level where the rows do not matter, so a bulk change costs one update.
"""

from django.db import migrations, models

BUMP = """
CREATE SEQUENCE portal_access_version_seq;
CREATE FUNCTION portal_bump_access_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO portal_accessversion (id, value) VALUES (1, nextval('portal_access_version_seq'))
    ON CONFLICT (id) DO UPDATE SET value = EXCLUDED.value;
    RETURN NULL;
END $$;
INSERT INTO portal_accessversion (id, value) VALUES (1, nextval('portal_access_version_seq'));

CREATE TRIGGER portal_apikey_access_rows AFTER INSERT OR DELETE OR TRUNCATE ON portal_apikey
    FOR EACH STATEMENT EXECUTE FUNCTION portal_bump_access_version();
-- Recording a key's last use (at most once a minute per key) is the one change that does not count.
CREATE TRIGGER portal_apikey_access_update AFTER UPDATE ON portal_apikey FOR EACH ROW
    WHEN (to_jsonb(OLD) - 'last_used_at' IS DISTINCT FROM to_jsonb(NEW) - 'last_used_at')
    EXECUTE FUNCTION portal_bump_access_version();
CREATE TRIGGER portal_apikey_bases_access AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON portal_apikey_knowledge_bases FOR EACH STATEMENT EXECUTE FUNCTION portal_bump_access_version();
"""
UNDO = """
DROP TRIGGER portal_apikey_bases_access ON portal_apikey_knowledge_bases;
DROP TRIGGER portal_apikey_access_update ON portal_apikey;
DROP TRIGGER portal_apikey_access_rows ON portal_apikey;
DROP FUNCTION portal_bump_access_version();
DROP SEQUENCE portal_access_version_seq;
"""


class Migration(migrations.Migration):

    dependencies = [
        ('portal', '0008_alter_apikey_knowledge_bases'),
    ]

    operations = [
        migrations.CreateModel(
            name='AccessVersion',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('value', models.BigIntegerField(verbose_name='value')),
            ],
            options={
                'verbose_name': 'access version',
                'verbose_name_plural': 'access version',
            },
        ),
        migrations.RunSQL(BUMP, UNDO),
    ]
