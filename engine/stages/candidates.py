"""Stage 3, candidate paths: the templates plus the live detour arms, in the policy's arm order."""

from collections.abc import Collection, Mapping, Sequence

from engine.domain.records import PathDefinition, TemplateLike
from engine.errors import ConfigError, TemplateError
from templates.model import template_key


def paths_from_templates(templates: Sequence[TemplateLike]) -> list[PathDefinition]:
    """Turn templates into path definitions; duplicate ids or no templates are a config error."""
    if not templates:
        raise ConfigError("no reasoning-path templates: the engine needs at least one")
    paths: list[PathDefinition] = []
    seen: set[str] = set()
    for template in templates:
        if template.id in seen:
            raise ConfigError(f"two templates share the id {template.id!r}")
        seen.add(template.id)
        paths.append(PathDefinition.from_template(template))
    return paths


def live_candidates(
    arm_ids: Sequence[str], definitions: Mapping[str, PathDefinition]
) -> list[PathDefinition]:
    """The paths the policy can choose now (retired detour arms are gone from `arm_ids`)."""
    return [definitions[arm] for arm in arm_ids if arm in definitions]


def _read_alike(name: str) -> str:
    return " ".join(name.casefold().split())


def admit_template(
    path: PathDefinition,
    paths: Mapping[str, PathDefinition],
    live_templates: int,
    cap: int,
    *,
    max_kept: int | None = None,
    archived: Collection[str] = (),
) -> None:
    """Raise `TemplateError` unless `path` may join `paths` as a new template arm.

    Its id must be new, also as people read it ('-' and '_' are one separator), and retired ids,
    `archived` ones included, stay taken: an arm's statistics (and its outcomes in the log)
    belong to the prompt that earned them. Its name must not
    read like another path's (case and spacing aside). The live templates
    must stay within `cap`: each one is a candidate in the rating prompt. The templates kept,
    live and retired, must stay within `max_kept`; archived ones (`arm_book.archived_paths`) are
    not in `paths` and count towards nothing, so retiring always makes room in the end.
    """
    key = template_key(path.arm_id)
    twin = next((arm for arm in (*paths, *archived) if template_key(arm) == key), None)
    if twin is not None:
        close = "" if twin == path.arm_id else f" (too close to {path.arm_id!r})"
        raise TemplateError(f"a path with the id {twin!r} exists already{close}")
    # Names are what people pick by: two that read alike (case and spacing aside) would pass
    # for one another. Names are printable ASCII (templates.text), so no other script's
    # look-alike letters can get past this comparison.
    shown = _read_alike(path.name)
    named = next((arm for arm, other in paths.items() if _read_alike(other.name) == shown), None)
    if named is not None:
        raise TemplateError(
            f"the name {path.name!r} reads like that of the path {named!r}; choose another name"
        )
    kept = sum(1 for other in paths.values() if other.origin == "template")
    if max_kept is not None and kept >= max_kept:
        raise TemplateError(
            f"the namespace keeps {kept} templates ({live_templates} live, "
            f"{kept - live_templates} retired, each kept with its statistics and history); the "
            f"cap is {max_kept} (THINKPATH_MAX_TEMPLATES_KEPT), so no more can be added now: "
            "retired paths past the newest 64 are archived and count no more; or "
            "use another namespace (THINKPATH_NAMESPACE) or raise the cap"
        )
    if live_templates >= cap:
        raise TemplateError(
            f"the namespace has {live_templates} live templates, the cap is {cap} "
            "(THINKPATH_MAX_TEMPLATES); retire one first"
        )
