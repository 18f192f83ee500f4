"""Stage 3, candidate paths: the templates plus the live detour arms, in the policy's arm order."""

from collections.abc import Mapping, Sequence

from engine.core.records import PathDefinition, TemplateLike
from engine.errors import ConfigError


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
