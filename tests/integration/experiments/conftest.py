"""One real MLflow SQLite store for the session: creating its tables takes seconds."""

from pathlib import Path

import pytest

from engine.adapters.tracking import TrackingStore, default_tracking_uri


@pytest.fixture(scope="session")
def store(tmp_path_factory: pytest.TempPathFactory) -> TrackingStore:
    home = tmp_path_factory.mktemp("thinkpath-home")
    return TrackingStore(default_tracking_uri(home), home / "mlartifacts")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path
