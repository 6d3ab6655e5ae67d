"""Model instances from hand-written SQL, for the reads every API request makes.

`Manager.raw()` maps the cursor's columns onto the model and builds each instance through a
`RawQuerySet`, every call; for the two reads of each API request (its key, the bases it may
search) that machinery cost more than the statements themselves (0.23 of the key's 0.42 ms on the
bench machine). Here the statement selects `select_list(model)` — every concrete column, in field
order — and `instance` makes a row an instance through `Model.from_db`, exactly what the ORM does
after a query, so it behaves as a loaded one (`save()` updates, nothing deferred).
"""

from django.db import connection, models


def select_list(model: type[models.Model], alias: str) -> str:
    """`alias.col, …` for every concrete field of `model`, in the order `instance` reads them."""
    return ", ".join(f'{alias}."{field.column}"' for field in model._meta.concrete_fields)


def fetch(query: str, params) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(query, params)
        return cursor.fetchall()


def instance(model: type[models.Model], values: tuple) -> models.Model:
    """An instance of `model` from the values of `select_list(model, …)`."""
    return model.from_db(connection.alias, [field.attname for field in model._meta.concrete_fields], values)


def values(obj: models.Model) -> tuple:
    """What `instance` would need to build `obj` again."""
    return tuple(getattr(obj, field.attname) for field in obj._meta.concrete_fields)
