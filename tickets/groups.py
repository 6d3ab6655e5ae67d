"""The two staff groups and their permissions, kept in one place.

"Support staff" work tickets and may not touch knowledge; "Content managers" edit knowledge
(and crawler) models, measure and switch them with the evaluation app (golden sets, runs, feedback,
shadow switches: docs/evaluation.md is written for them), and never read tickets, only the
aggregated gap report. The data migration creates the groups; `post_migrate` re-applies them so
models added later (crawler, evaluation) are covered.
"""

SUPPORT_STAFF = "Support staff"
CONTENT_MANAGERS = "Content managers"

# app label -> model -> actions; "*" means every model the app has.
GROUP_PERMISSIONS = {
    SUPPORT_STAFF: {
        "tickets": {
            "ticket": ["view", "change", "view_gap_report"],
            "message": ["view", "add", "change"],
            "ticketsource": ["view"],
            "agent": ["view"],
        },
    },
    CONTENT_MANAGERS: {
        "knowledge": {"*": ["view", "add", "change", "delete"]},
        "crawler": {"*": ["view", "add", "change", "delete"]},
        "evaluation": {"*": ["view", "add", "change", "delete"]},
        "tickets": {"ticket": ["view_gap_report"]},
    },
}


def _codename(action: str, model: str) -> str:
    return action if "_" in action else f"{action}_{model}"


def sync_groups(apps, *, verbosity: int = 0) -> None:
    """Create the groups and set exactly the permissions declared above (those that exist yet)."""
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for group_name, spec in GROUP_PERMISSIONS.items():
        group, _ = Group.objects.get_or_create(name=group_name)
        wanted = []
        for app_label, models in spec.items():
            perms = Permission.objects.filter(content_type__app_label=app_label)
            for model, actions in models.items():
                if model == "*":
                    wanted += [p for p in perms if p.codename.split("_", 1)[0] in actions]
                else:
                    codenames = [_codename(action, model) for action in actions]
                    wanted += list(perms.filter(content_type__model=model, codename__in=codenames))
        group.permissions.set(wanted)
        if verbosity >= 2:
            print(f"Group {group_name!r}: {len(wanted)} permissions")
