"""Property-based run of the published OpenAPI schema (schemathesis): no input makes a 5xx."""

import tempfile
from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from tests.unit.ui.conftest import scripted_engine
from ui.service.api import create_api

# One engine for the whole run: schemathesis loads the schema when this module is imported.
_HOME = Path(tempfile.mkdtemp(prefix="thinkpath-schema-fuzz-"))
# schemathesis calls the app as "testserver": allow that name past the Host allow-list.
_APP = create_api(scripted_engine(_HOME), allowed_hosts=["testserver"])
schema = schemathesis.openapi.from_asgi("/openapi.json", _APP)


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_input_makes_a_server_error(case: schemathesis.Case) -> None:  # type: ignore[type-arg]
    case.call_and_validate(checks=[not_a_server_error])
