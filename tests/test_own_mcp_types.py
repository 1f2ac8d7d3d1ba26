"""A project's own MCP implementation: a module inside its `mcp` package is MCP code even when
it imports only pydantic (issue 10 §2 item 4)."""

from mcp_migrate.api import check_source

MODEL = (
    "from typing import Optional\n\nfrom pydantic import BaseModel\n\n\n"
    "class ClientRootsCapability(BaseModel):\n    listChanged: Optional[bool] = None\n"
)


def test_roots_capability_model_in_an_mcp_package():
    found = [(f.line, f.column, f.code) for f in check_source(MODEL, "src/mcp/types/capabilities.py")]
    assert found == [(6, 1, "RT003")]


def test_same_model_outside_mcp_code_is_not_a_finding():
    assert check_source(MODEL, "src/geometry/types.py") == []
