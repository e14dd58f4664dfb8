"""Shared fixtures: the repository's hostile corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

#: The repository's hostile corpus (hostile-corpus/<format>/).
CORPUS = Path(__file__).resolve().parents[2] / "hostile-corpus"


@pytest.fixture
def corpus() -> Path:
    """The hostile corpus folder."""
    return CORPUS
