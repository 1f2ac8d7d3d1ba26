"""Shapes real diffs showed (issue 20 §4), each fixed where the first look found it wrong."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import mcp_migrate
from mcp_migrate.commands.cli import cli
from mcp_migrate.core.fix.layout import python_floor

REPO = Path(mcp_migrate.__file__).resolve().parent.parent
#: Two tools whose roots stand in for a missing `repo_path` without an answer of their own when
#: there are none (no `else:`): each gains an optional `directories` (fallback_parameter.py's
#: tools with a no-roots answer reuse their own parameter instead).
FALLBACK_SOURCE = '''"""Roots stand in for a missing argument."""
import json
from typing import Optional

from mcp.server.fastmcp import FastMCP

mcp = FastMCP("commits")


@mcp.tool()
async def commit_context(cursor: Optional[str] = None, repo_path: Optional[str] = None) -> str:
    if repo_path is None:
        roots_result = await mcp.get_context().session.list_roots()
        if roots_result.roots:
            repo_path = roots_result.roots[0].uri.path
    return json.dumps({"repo": repo_path, "cursor": cursor})


@mcp.tool()
async def first_file(name: str, base: str = "") -> str:
    if not base:
        roots = await mcp.get_context().session.list_roots()
        if roots.roots:
            base = roots.roots[0].uri.path
    return f"{base}/{name}"
'''


def run(*args):
    return CliRunner().invoke(cli, list(args), env={"NO_COLOR": "1"}, catch_exceptions=False)


@pytest.mark.parametrize(
    ("config", "annotation"),
    [
        ('[project]\nname = "p"\nrequires-python = ">=3.9"\n', "Optional[list[str]]"),
        ('[tool.ruff]\ntarget-version = "py38"\n', "Optional[list[str]]"),
        ('[project]\nname = "p"\nrequires-python = ">=3.10"\n', "list[str] | None"),
        ("", "list[str] | None"),
    ],
)
def test_an_optional_parameter_is_spelled_for_the_oldest_python_the_project_declares(
    tmp_path, monkeypatch, config, annotation
):
    """`list[str] | None` in an Annotated[...] is evaluated when the tool is defined: a
    TypeError at import on Python 3.9, which the project declares."""
    monkeypatch.chdir(tmp_path)
    if config:
        (tmp_path / "pyproject.toml").write_text(config)
    (tmp_path / "tools.py").write_text(FALLBACK_SOURCE)
    run("fix", "-q", "--unsafe-fixes", "--exit-zero", "tools.py")
    fixed = (tmp_path / "tools.py").read_text()
    assert fixed.count(f"        {annotation},\n") == 2
    other = "list[str] | None" if annotation.startswith("Optional") else "Optional[list[str]]"
    assert other not in fixed
    compile(fixed, "tools.py", "exec")


def test_a_module_with_postponed_annotations_keeps_the_union(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\nrequires-python = ">=3.8"\n')
    text = FALLBACK_SOURCE.replace("import json\n", "from __future__ import annotations\n\nimport json\n", 1)
    (tmp_path / "tools.py").write_text(text)
    run("fix", "-q", "--unsafe-fixes", "--exit-zero", "tools.py")
    assert "        list[str] | None,\n" in (tmp_path / "tools.py").read_text()


def test_python_floor_reads_requires_python_then_ruff(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "pyproject.toml").write_text('[project]\nrequires-python = "~=3.9"\n')
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "ruff.toml").write_text('target-version = "py311"\n')
    assert python_floor(str(tmp_path / "a" / "x.py")) == (3, 9)
    assert python_floor(str(tmp_path / "b" / "x.py")) == (3, 11)


GUARDED = """\
import os

from mcp.types import Root

if os.name == "nt":
    from urllib.request import url2pathname


def open_root(root: Root):
    return open(str(root.uri).replace("file://", ""))
"""


def test_a_name_imported_under_a_platform_guard_is_not_used_as_if_always_bound():
    """`url2pathname` imported only under `if os.name == "nt":` is unbound on POSIX: the
    suggestion must not call it bare without an import of its own (a NameError pyflakes
    cannot see)."""
    from mcp_migrate.api import check_source, fix_source

    fixed = fix_source(GUARDED, "g.py", unsafe=True, suggestions=True)
    body = fixed.split("def open_root", 1)[1]
    top = fixed.split("if os.name", 1)[0]
    assert "url2pathname(" not in body or "from urllib.request import url2pathname\n" in top
    assert [f.code for f in check_source(GUARDED, "g.py")] == ["RT102"]  # still reported


def test_an_import_under_an_if_without_else_does_not_stand_for_the_one_a_fix_needs():
    import libcst as cst

    from mcp_migrate.core.fix.import_block import add_imports, unconditional_import_names

    module = cst.parse_module(GUARDED)
    assert "url2pathname" not in unconditional_import_names(module)
    both = cst.parse_module("import sys\nif sys.platform == 'win32':\n    import a as b\nelse:\n    import c as b\n")
    assert "b" in unconditional_import_names(both)
    added = add_imports(module, [("urllib.request", "url2pathname")]).code
    assert added.split("if os.name", 1)[0].count("from urllib.request import url2pathname\n") == 1


def test_a_long_field_description_is_split_at_the_projects_line_length(tmp_path, monkeypatch):
    """Issue 20 §3: no new ruff E501 in a project that configures ruff. The optional
    parameter's `Field(description="... (used when `repo_path` is not given).")` was 112
    characters in a project of line length 100."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    (tmp_path / "tools.py").write_text(FALLBACK_SOURCE)
    run("fix", "-q", "--unsafe-fixes", "--exit-zero", "tools.py")
    fixed = (tmp_path / "tools.py").read_text()
    assert max(len(line) for line in fixed.splitlines()) <= 100
    assert (
        "        Field(\n"
        '            description="Absolute paths of the directories to work in"\n'
        '            " (used when `repo_path` is not given).",\n'
        "        ),\n"
    ) in fixed
    compile(fixed, "tools.py", "exec")
    again = run("fix", "--diff", "--unsafe-fixes", "--exit-zero", "tools.py")
    assert again.stdout == ""


def test_the_server_config_comment_fits_the_projects_line_length(tmp_path, monkeypatch):
    """Issue 20 §4: a generated comment over the project's line length (a new E501)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 79\n")
    shutil.copy(REPO / "fixtures" / "migrate" / "lowlevel_call_tool.py", tmp_path / "server.py")
    run("fix", "-q", "--unsafe-fixes", "--exit-zero", "server.py")
    fixed = (tmp_path / "server.py").read_text()
    assert (
        "# Directories this server works in, from its configuration (replaces MCP Roots,\n# SEP-2577).\nMCP_ROOTS = ["
    ) in fixed
    assert run("fix", "--diff", "--unsafe-fixes", "--exit-zero", "server.py").stdout == ""


UNSEPARATED = """import logging
from typing import List, Sequence
from mcp.server import Server
from mcp.types import (
    ClientCapabilities,
    TextContent,
    Tool,
    ListRootsResult,
    RootsCapability,
)
import os

mcp_server = Server("git")
logger = logging.getLogger(__name__)


async def list_repos() -> Sequence[str]:
    if not mcp_server.request_context.session.check_client_capability(
        ClientCapabilities(roots=RootsCapability())
    ):
        return []
    roots_result: ListRootsResult = await mcp_server.request_context.session.list_roots()
    repo_paths: List[str] = []
    for root in roots_result.roots:
        repo_paths.append(str(root.uri.path))
    return repo_paths


def text(x) -> TextContent:
    return TextContent(type="text", text=x)


def tools() -> list[Tool]:
    return []
"""


def test_removed_last_names_keep_the_closing_parenthesis_and_the_modules_section_style(tmp_path, monkeypatch):
    """mcp-devtools (session 50's first look): the fix dropped the last names of a one-per-line
    `from mcp.types import (...)` and left `    Tool)`, and put a blank line between
    `from typing import ...` and `from mcp.server import Server`, which the module writes
    together. The closing parenthesis stays on its line with a trailing comma; the sections
    stay as the module wrote them."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "server.py").write_text(UNSEPARATED)
    CliRunner().invoke(cli, ["fix", "--unsafe-fixes", "server.py"])
    fixed = (tmp_path / "server.py").read_text()
    assert fixed.startswith(
        "import logging\nfrom typing import List, Sequence\nfrom mcp.server import Server\n"
        "from mcp.types import (\n    TextContent,\n    Tool,\n)\nimport os\n"
    )


def test_an_import_removal_generates_the_imports_code_only_where_one_closes_on_its_last_name(monkeypatch):
    """`_closing_on_its_line` compares the imports a removal changed with the module's before by
    their code: it generates that code only where an import of the result closes on its last
    name (issue 37: each preview's removal generated every import of both modules, 11 % of
    python-sdk's `test_otel.py` check), and walks the statements alone."""
    import libcst as cst

    from mcp_migrate.core.fix import imports

    generated: list = []
    real = imports.code_of
    monkeypatch.setattr(imports, "code_of", lambda node: generated.append(type(node).__name__) or real(node))
    before = cst.parse_module("from a import (\n    b,\n    c,\n)\nfrom d import e, f\n\nx = [b(c) for _ in e(f)]\n")
    after = before.with_changes(body=before.body[:1] + before.body[2:])
    assert imports._closing_on_its_line(before, after) is after
    assert "ImportFrom" not in generated
    closing = cst.parse_module("from a import (\n    b,\n    c)\n")
    assert imports._closing_on_its_line(before, closing).code == "from a import (\n    b,\n    c,\n)\n"
    assert generated.count("ImportFrom") == 3  # the one closing, and the two of before
