"""Load templates from TOML: the built-in set shipped with the package, and the user's folders.

A template file holds one template as top-level keys:

    id = "first_principles"
    name = "First principles"
    description = "Rebuild the answer from the basic facts and rules that apply."
    tags = ["general", "math"]
    prompt = \"\"\"
    Question: {query}
    ...
    End with a line 'Answer: <answer>'.
    \"\"\"

Every problem is reported as a `TemplateError` naming the file and the field.

User templates may not reuse a built-in id (nor each other's). The policies keep their statistics
per template id, so an "override" would silently credit the built-in's record to a different
prompt; a changed strategy must take a new id and earn its own record.
"""

import tomllib
import unicodedata
from collections.abc import Iterable, Sequence
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from pydantic import ValidationError

from templates.errors import TemplateError
from templates.model import Template, template_key

__all__ = ["load_templates", "parse_template", "template_to_toml"]

MAX_FILE_BYTES = 64 * 1024  # ten times the longest valid template; refuses a mistaken huge file
FIELD_ORDER = ("id", "name", "description", "tags", "procedure", "prompt")


def parse_template(text: str, source_name: str) -> Template:
    """Parse one template from TOML text; `source_name` names it in error messages.

    >>> t = parse_template('id = "x"\\nname = "X"\\ndescription = "d"\\nprompt = "{query}"', "x")
    >>> (t.id, t.tags)
    ('x', ())
    >>> parse_template('id = "x"\\nname = "X"\\ndescription = "d"', "mine.toml")
    Traceback (most recent call last):
    ...
    templates.errors.TemplateError: mine.toml: field 'prompt': missing (required)
    """
    if not isinstance(text, str):
        raise TemplateError(f"{source_name}: expected TOML text, got {type(text).__name__}")
    if len(text.encode("utf-8", errors="surrogatepass")) > MAX_FILE_BYTES:
        raise TemplateError(f"{source_name}: larger than {MAX_FILE_BYTES} bytes")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise TemplateError(f"{source_name}: not valid TOML: {error}") from None
    try:
        return Template.model_validate(data)
    except ValidationError as error:
        raise TemplateError(_describe(error, source_name)) from None


def _describe(error: ValidationError, source_name: str) -> str:
    """Turn pydantic's report into one line per problem, each naming the file and field."""
    lines = []
    for problem in error.errors(include_url=False):
        location = problem["loc"]
        field = str(location[0]) if location else "(file)"
        if len(location) > 1:  # an item of a list: tags[2]
            field += "".join(f"[{part}]" for part in location[1:])
        if problem["type"] == "missing":
            message = "missing (required)"
        elif problem["type"] == "extra_forbidden":
            message = f"unknown field (known: {', '.join(FIELD_ORDER)})"
        elif problem["type"] == "string_pattern_mismatch":
            message = (
                f"{problem['input']!r} is not a slug (lowercase letters and digits, "
                f"joined by single '_' or '-'){_offending(str(problem['input']))}"
            )
        elif problem["type"] == "string_too_long":
            limit = problem.get("ctx", {}).get("max_length")
            message = (
                f"{len(str(problem['input'])):,} characters long; at most {limit:,} are allowed"
            )
        else:
            message = problem["msg"].removeprefix("Value error, ")
        lines.append(f"{source_name}: field '{field}': {message}")
    return "\n".join(lines)


def _offending(text: str) -> str:
    """The first character a slug cannot hold, named ("the 'с' at position 1 is CYRILLIC SMALL
    LETTER ES"): a look-alike letter from another script is otherwise invisible in the message.

    >>> _offending("сheck_units")
    ": the 'с' at position 1 is CYRILLIC SMALL LETTER ES"
    >>> _offending("My Id")
    ": the 'M' at position 1 is LATIN CAPITAL LETTER M"
    """
    for position, char in enumerate(text, start=1):
        if not (char.isascii() and (char.islower() or char.isdigit() or char in "_-")):
            name = unicodedata.name(char, f"U+{ord(char):04X}")
            return f": the {char!r} at position {position} is {name}"
    return ""


def template_to_toml(template: Template) -> str:
    """Write a template as TOML that `parse_template` reads back to an equal template.

    >>> t = Template(id="x", name="X", description="d", prompt='Say "hi"\\n{query}', tags=("a",))
    >>> parse_template(template_to_toml(t), "x.toml") == t
    True
    """
    procedure = ""
    if template.procedure != "single":  # the default stays unwritten, as in hand-written files
        procedure = f"procedure = {_basic(template.procedure)}\n"
    return (
        f"id = {_basic(template.id)}\n"
        f"name = {_basic(template.name)}\n"
        f"description = {_basic(template.description)}\n"
        f"tags = [{', '.join(_basic(tag) for tag in template.tags)}]\n"
        f"{procedure}"
        f'prompt = """\n{_escape(template.prompt, multiline=True)}\n"""\n'
    )


def _basic(value: str) -> str:
    return f'"{_escape(value, multiline=False)}"'


def _escape(value: str, *, multiline: bool) -> str:
    """Escape for a TOML basic string; a multi-line one keeps its newlines as they are."""
    out = []
    for char in value:
        if char in '"\\':
            out.append("\\" + char)
        elif char == "\t" or (char == "\n" and multiline):
            out.append(char)
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04X}")
        else:
            out.append(char)
    return "".join(out)


def load_templates(extra_dirs: Sequence[Path] = ()) -> list[Template]:
    """Load the built-in templates, then every `*.toml` in each of `extra_dirs`, in that order.

    Files load in name order within a folder. A missing folder, an unreadable or invalid file, or
    an id that is already taken raises `TemplateError` naming the file; nothing is half-loaded.
    """
    builtin = resources.files("templates").joinpath("builtin")
    sources: list[tuple[str, Traversable]] = [
        (f"templates/builtin/{entry.name}", entry) for entry in _toml_files(builtin.iterdir())
    ]
    for extra in extra_dirs:
        folder = Path(extra)
        if not folder.is_dir():
            raise TemplateError(f"{folder}: not a folder of templates")
        sources.extend((str(folder / entry.name), entry) for entry in _toml_files(folder.iterdir()))

    loaded: list[Template] = []
    where: dict[str, tuple[str, str]] = {}  # template_key -> (id, file)
    for source_name, entry in sources:
        template = parse_template(_read(entry, source_name), source_name)
        key = template_key(template.id)
        if key in where:
            taken, taken_in = where[key]
            close = "" if taken == template.id else f" (close to {taken!r}: '-' and '_' are one)"
            raise TemplateError(
                f"{source_name}: field 'id': {template.id!r} is already used by "
                f"{taken_in}{close}; give this template its own id"
            )
        where[key] = (template.id, source_name)
        loaded.append(template)
    return loaded


def _toml_files(entries: Iterable[Traversable]) -> list[Traversable]:
    return sorted(
        (entry for entry in entries if entry.name.endswith(".toml") and entry.is_file()),
        key=lambda entry: entry.name,
    )


def _read(entry: Traversable, source_name: str) -> str:
    try:
        data = entry.read_bytes()
    except OSError as error:
        raise TemplateError(f"{source_name}: cannot be read: {error.strerror or error}") from None
    if len(data) > MAX_FILE_BYTES:
        raise TemplateError(f"{source_name}: larger than {MAX_FILE_BYTES} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise TemplateError(f"{source_name}: not UTF-8 text ({error.reason})") from None
