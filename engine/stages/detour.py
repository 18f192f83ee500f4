"""Stage 6, the aha detour: when no path is convincing, or failures repeat, invent fresh ones.

Each generated path becomes a new arm with its own statistics (origin "detour", its definition
kept in the arm catalogue so every process sharing the store knows it), and is retired once it has
had a fair trial and keeps failing. Triggers and retirements carry their reason into the trace and
the catalogue.
"""

import hashlib
import re
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from engine.domain.config import DetourRules
from engine.domain.ports import LLM
from engine.domain.records import ArmTally, ChatMessage, PathDefinition
from engine.domain.structured import ask_structured
from engine.stages.prompting import neutralise

ANSWER_LINE = "End with a line 'Answer: <answer>'."


def detour_trigger(
    prob_best: Mapping[str, float],
    recent_rewards: Sequence[float],
    rules: DetourRules,
    *,
    any_cold: bool,
) -> str | None:
    """Why a detour should fire now, or None.

    P(best) means little while arms are cold, so that trigger waits for warm arms; repeated
    failures count at any time.

    >>> detour_trigger({"a": 0.5, "b": 0.5}, [0.0, 0.1, 0.0], DetourRules(), any_cold=False)
    'failures repeat: the last 3 rewards for this kind of query were all below 0.5'
    >>> detour_trigger({"a": 0.9, "b": 0.1}, [1.0], DetourRules(), any_cold=False) is None
    True
    """
    streak = list(recent_rewards)[-rules.failure_streak :]
    if len(streak) == rules.failure_streak and all(r < rules.failure_below for r in streak):
        return (
            f"failures repeat: the last {rules.failure_streak} rewards for this kind of query "
            f"were all below {rules.failure_below:g}"
        )
    if not any_cold and prob_best:
        best = max(prob_best.values())
        if best < rules.prob_best_floor:
            return (
                f"no path is convincing: the highest P(best) is {best:.2f} "
                f"< {rules.prob_best_floor:g}"
            )
    return None


def retirement_reason(tally: ArmTally, rules: DetourRules) -> str | None:
    """Why a detour arm should be retired now, or None while it is on trial or doing well.

    >>> retirement_reason(ArmTally(pulls=4.0, reward_sum=0.4, outcomes=4), DetourRules())
    'keeps failing: mean reward 0.10 over 4 effective pulls is below 0.3'
    """
    mean = tally.mean
    if tally.pulls < rules.retire_min_pulls or mean is None or mean >= rules.retire_below:
        return None
    return (
        f"keeps failing: mean reward {mean:.2f} over {tally.pulls:g} effective pulls "
        f"is below {rules.retire_below:g}"
    )


class FreshPath(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=3, max_length=60)
    approach: str = Field(min_length=20, max_length=600)


class FreshPaths(BaseModel):
    model_config = ConfigDict(extra="forbid")
    paths: list[FreshPath] = Field(min_length=1, max_length=3)


def detour_messages(
    query: str, current: Sequence[PathDefinition], count: int
) -> tuple[ChatMessage, ...]:
    names = ", ".join(neutralise(p.name, 60) for p in current)
    system = (
        "You invent reasoning strategies. Each strategy is an instruction to a problem solver, "
        "different in approach and answer format from the existing ones."
    )
    user = (
        f"The strategies tried so far ({names}) are not working for questions like:\n"
        f"{neutralise(query, 600)}\n\nInvent {count} fresh, creative strategies. Give each a short "
        f"name and an approach of 1-3 sentences. Reply with JSON."
    )
    return (ChatMessage("system", system), ChatMessage("user", user))


def generate_paths(
    llm: LLM,
    query: str,
    current: Sequence[PathDefinition],
    rules: DetourRules,
    *,
    known_ids: set[str],
    retries: int,
    timeout_s: float,
) -> list[PathDefinition]:
    """One structured call for fresh paths; raises `LLMError` (the pipeline degrades).

    A path whose id is in `known_ids` (live or retired) is dropped: a retired path stays retired
    even if the model invents it again.
    """
    parsed = ask_structured(
        llm,
        detour_messages(query, current, rules.paths_per_detour),
        FreshPaths,
        purpose="detour",
        max_tokens=120 * rules.paths_per_detour,
        timeout_s=timeout_s,
        retries=retries,
    )
    known = set(known_ids)
    fresh = []
    for item in parsed.paths[: rules.paths_per_detour]:
        arm_id = detour_arm_id(item.name, item.approach)
        if arm_id in known:
            continue
        known.add(arm_id)
        approach = neutralise(item.approach, 600)
        prompt = f"{approach}\n\nQuestion: {{query}}\n\n{{seed}}\n\n{ANSWER_LINE}"
        fresh.append(
            PathDefinition(arm_id, neutralise(item.name, 60), approach, prompt, origin="detour")
        )
    return fresh


def detour_arm_id(name: str, approach: str) -> str:
    """A stable id: a slug of the name plus a short hash, so two detours never collide.

    >>> detour_arm_id("Draw a picture!", "Sketch the situation first.")[:21]
    'detour-draw-a-picture'
    """
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:32] or "path"
    digest = hashlib.sha256(f"{name}\n{approach}".encode()).hexdigest()[:6]
    return f"detour-{slug}-{digest}"
