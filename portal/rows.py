"""Model instances from hand-written SQL, for the reads every API request makes.

`Manager.raw()` maps the cursor's columns onto the model and builds each instance through a
`RawQuerySet`, every call; for the two reads of each API request (its key, the bases it may
search) that machinery cost more than the statements themselves (0.23 of the key's 0.42 ms on the
bench machine). Here the statement selects `select_list(model)` — every concrete column, in field
order — and `instance` makes a row an instance through `Model.from_db`, exactly what the ORM does
after a query, so it behaves as a loaded one (`save()` updates, nothing deferred).
"""

from functools import cache

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
    return model.from_db(connection.alias, _attnames(model), values)


def values(obj: models.Model) -> tuple:
    """What `instance` would need to build `obj` again."""
    return tuple(getattr(obj, name) for name in _attnames(type(obj)))


@cache
def _attnames(model: type[models.Model]) -> tuple[str, ...]:
    """The attribute names of `model`'s concrete fields, in field order (fixed once the models are loaded)."""
    return tuple(field.attname for field in model._meta.concrete_fields)
