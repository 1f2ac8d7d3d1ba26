"""The security rules (RT101-RT103, HA001-HA002): their fixes proven on real inputs, their byte
screens proven lossless, precision against look-alikes, and the CLI surface."""

from __future__ import annotations

import json
import nturl2path
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mcp_migrate.api import check_source, default_settings, fix_bytes, fix_source
from mcp_migrate.core import screening
from mcp_migrate.core.rule import Rule
from mcp_migrate.rules import all_rules

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SECURITY = ("RT101", "RT102", "RT103", "HA001", "HA002")


def _codes(source: str) -> list:
    return [f.code for f in check_source(textwrap.dedent(source))]


def _unsafe_fix(source: str) -> str:
    """The security rules' suggestion, taken (they are display-only: `fix` never applies them,
    not even with unsafe fixes; issue 20 §4)."""
    source = textwrap.dedent(source)
    fixed = fix_source(source, unsafe=True, suggestions=True)
    assert fix_source(fixed, unsafe=True, suggestions=True) == fixed, "the suggestion is not idempotent"
    assert fix_source(source, unsafe=True) == source, "a display-only fix was applied by fix"
    compile(fixed, "<fixed>", "exec")
    return fixed


def _load(source: str) -> dict:
    namespace: dict = {}
    exec(compile(source, "<test>", "exec"), namespace)
    return namespace


# ----- RT102: the fix on the hard inputs -------------------------------------------------------
URI_TO_PATH = """\
from typing import TYPE_CHECKING
from urllib.parse import urlparse

if TYPE_CHECKING:
    from mcp.types import Root  # an MCP module: `root_uri` names a root's URI


def by_replace(uri):
    return uri.replace("file://", "")


def by_removeprefix(uri):
    return uri.removeprefix("file://")


def by_split(uri):
    return uri.split("file://")[1]


def by_slice(uri):
    return uri[len("file://"):]


def by_seven(root_uri):
    return root_uri[7:]


def by_urlparse(root_uri):
    return urlparse(root_uri).path
"""
NAMES = ("by_replace", "by_removeprefix", "by_split", "by_slice", "by_seven", "by_urlparse")


def test_rt102_fix_rewrites_every_spelling():
    fixed = _unsafe_fix(URI_TO_PATH)
    assert "from urllib.request import url2pathname" in fixed
    assert fixed.count("url2pathname(urlparse(") == len(NAMES)
    assert "RT102" not in _codes(fixed)


@pytest.mark.parametrize("name", NAMES)
def test_rt102_fix_decodes_percent_escapes(name):
    before, after = _load(URI_TO_PATH)[name], _load(_unsafe_fix(URI_TO_PATH))[name]
    uri = "file:///home/user/my%20project/notes.md"
    assert after(uri) == "/home/user/my project/notes.md"
    assert "%20" in before(uri)  # the string surgery kept the escape


@pytest.mark.parametrize("name", NAMES)
def test_rt102_fix_handles_windows_drive_letters(name):
    """Under ntpath semantics (`nturl2path` is what `url2pathname` is on Windows)."""
    before = _load(URI_TO_PATH)[name]
    namespace = _load(_unsafe_fix(URI_TO_PATH))
    namespace["url2pathname"] = nturl2path.url2pathname
    uri = "file:///C:/Users/me/My%20Repo"
    assert namespace[name](uri) == "C:\\Users\\me\\My Repo"
    assert before(uri) in ("/C:/Users/me/My%20Repo", "/C:/Users/me/My Repo")  # not a Windows path


@pytest.mark.parametrize("name", NAMES)
def test_rt102_fix_handles_a_host(name):
    before, after = _load(URI_TO_PATH)[name], _load(_unsafe_fix(URI_TO_PATH))[name]
    uri = "file://localhost/srv/data%20set"
    assert after(uri) == "/srv/data set"
    if name != "by_urlparse":
        assert not before(uri).startswith("/")  # surgery made `localhost/srv/...`, a relative path
    namespace = _load(_unsafe_fix(URI_TO_PATH))
    namespace["url2pathname"] = nturl2path.url2pathname
    assert namespace[name](uri) == "\\srv\\data set"


def test_rt102_reverse_fix_encodes_and_makes_absolute(tmp_path, monkeypatch):
    source = """\
    try:
        import mcp  # an MCP server's helpers for roots: RT102 looks at roots and resources code
    except ImportError:
        pass


    def root_plus(path):
        return "file://" + path


    def root_fstring(path):
        return f"file://{path}"
    """
    fixed = _unsafe_fix(source)
    assert "from pathlib import Path" in fixed and "Path(path).absolute().as_uri()" in fixed
    monkeypatch.chdir(tmp_path)
    before, after = _load(textwrap.dedent(source)), _load(fixed)
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    linked = str(tmp_path / "link" / "x")
    for name in ("root_plus", "root_fstring"):
        assert before[name]("my docs") == "file://my docs"  # a host named "my docs"
        assert after[name]("my docs") == (Path.cwd() / "my docs").as_uri()
        assert "%20" in after[name]("my docs")
        # Like the f-string, the fix neither follows symlinks nor touches the file system: a
        # project test comparing the URI with the path it built (a symlinked temp folder) passes.
        assert after[name](linked) == before[name](linked) == "file://" + linked


def test_rt102_fix_keeps_the_file_own_names():
    """A file that binds `Path` itself gets `pathlib.Path` and `import pathlib`."""
    source = """\
    from mcp.server.fastmcp import FastMCP
    class Path:
        pass


    def to_root_uri(path):
        return f"file://{path}"
    """
    fixed = _unsafe_fix(source)
    assert "import pathlib" in fixed and "pathlib.Path(path).absolute().as_uri()" in fixed


def test_rt102_uri_words_count_only_in_mcp_code():
    source = """\
    from urllib.parse import urlparse

    def f(root_uri):
        return urlparse(root_uri).path
    """
    assert _codes(source) == []
    assert _codes("import fastmcp\n" + textwrap.dedent(source)) == ["RT102"]


def test_rt102_names_resolve_through_imports():
    own = """\
    def urlparse(value):
        return value

    def f(root_uri):
        return urlparse(root_uri).path
    """
    assert "RT102" not in _codes(own)
    aliased = """\
    from urllib.parse import urlsplit as split_url
    import mcp.types

    def f(root_uri):
        return split_url(root_uri).path
    """
    assert "RT102" in _codes(aliased)


# ----- RT103: the fix against a real directory tree ---------------------------------------------
SANDBOX = """\
# An MCP server's path checks (the security rules look at MCP code only).
try:
    import mcp
except ImportError:
    pass
import os
from pathlib import Path


def by_prefix(path, root):
    return path.startswith(root)


def by_str_prefix(p, roots):
    return any(str(p).startswith(str(r)) for r in roots)


def by_commonprefix(path, root):
    return os.path.commonprefix([path, root]) == root


def by_relative(path, workspace):
    return Path(path).is_relative_to(workspace)


def by_commonpath(path, root):
    return os.path.commonpath([path, root]) == root


def by_relative_to(target, root):
    try:
        Path(target).relative_to(root)
    except ValueError:
        return False
    return True


def tool(path, roots: "list[Root]"):
    # The client roots reach every check above (issue 35 §4: RT103 looks at nothing else).
    root = str(roots[0].uri)
    return [
        by_prefix(path, root),
        by_str_prefix(path, [root]),
        by_commonprefix(path, root),
        by_relative(path, root),
        by_commonpath(path, root),
        by_relative_to(path, root),
    ]
"""


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "srv" / "app"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "ok.txt").write_text("ok")
    secrets = tmp_path / "srv" / "app-secrets"
    secrets.mkdir()
    (secrets / "key").write_text("secret")
    (root / "link").symlink_to(secrets, target_is_directory=True)
    return {
        "root": str(root),
        "inside": str(root / "docs" / "ok.txt"),
        "sibling": str(secrets / "key"),
        "dotdot": str(root) + "/../app-secrets/key",
        "symlink": str(root / "link" / "key"),
    }


def _call(namespace, name, path, root):
    if name == "by_str_prefix":
        return namespace[name](Path(path), [root])
    return namespace[name](path, root)


def test_rt103_fix_rewrites_every_spelling():
    fixed = _unsafe_fix(SANDBOX)
    assert fixed.count(".resolve().is_relative_to(Path(") == 5
    assert "Path(target).resolve().relative_to(Path(root).resolve())" in fixed
    # Still decisions against client roots (issue 35 §4), now sound ones: none says "unsound".
    messages = [f.message for f in check_source(fixed) if f.code == "RT103"]
    assert len(messages) == 6 and not any("unsound" in m for m in messages)


@pytest.mark.parametrize("name", ["by_prefix", "by_str_prefix", "by_commonprefix"])
def test_rt103_prefix_checks_accepted_every_escape_and_the_fix_refuses_them(tree, name):
    before, after = _load(SANDBOX), _load(_unsafe_fix(SANDBOX))
    root = tree["root"]
    assert _call(before, name, tree["inside"], root) and _call(after, name, tree["inside"], root)
    for escape in ("sibling", "dotdot", "symlink"):
        assert _call(before, name, tree[escape], root), f"{escape} was refused before the fix"
        assert not _call(after, name, tree[escape], root), f"{escape} is accepted after the fix"


@pytest.mark.parametrize("name", ["by_relative", "by_commonpath", "by_relative_to"])
def test_rt103_unresolved_checks_accepted_escapes_and_the_fix_refuses_them(tree, name):
    before, after = _load(SANDBOX), _load(_unsafe_fix(SANDBOX))
    root = tree["root"]
    assert _call(before, name, tree["inside"], root) and _call(after, name, tree["inside"], root)
    for escape in ("dotdot", "symlink"):
        assert _call(before, name, tree[escape], root), f"{escape} was refused before the fix"
    for escape in ("sibling", "dotdot", "symlink"):
        assert not _call(after, name, tree[escape], root), f"{escape} is accepted after the fix"


@pytest.mark.parametrize(
    "source",
    [
        'def f(name):\n    return name.startswith("_")\n',
        'def f(url):\n    return url.startswith("https://")\n',
        'def f(line):\n    return line.startswith("#")\n',
        "from pathlib import Path\n\ndef f(p, r):\n    return Path(p).resolve().is_relative_to(Path(r).resolve())\n",
        "def f(text, prefix):\n    return text.startswith(prefix)\n",
        "def f(rootLogger, name):\n    return name.startswith(rootLogger)\n",
    ],
)
def test_rt103_negatives(source):
    assert "RT103" not in _codes(source)


def test_rt103_data_flow_from_roots():
    source = """\
    from mcp.server.fastmcp import FastMCP
    async def f(session, path):
        result = await session.list_roots()
        dirs = [r.uri.path for r in result.roots]
        for d in dirs:
            if path.startswith(d):
                return True
    """
    # The awaited session-named list_roots() in MCP code is itself an RT001 (issue 10 §2.5).
    assert _codes(source) == ["RT001", "RT103"]
    unrelated = """\
    from mcp.server.fastmcp import FastMCP
    def f(items, path):
        for d in items:
            if path.startswith(d):
                return True
    """
    assert _codes(unrelated) == []


# ----- HA001 / HA002 / RT101 --------------------------------------------------------------------
def test_ha001_needs_the_approval_api_to_resolve():
    own = """\
    class MCPServerStdio:
        def __init__(self, **kw): ...

    s = MCPServerStdio(require_approval=lambda c, a, t: not t.annotations.readOnlyHint)
    """
    assert "HA001" not in _codes(own)
    real = "from agents.mcp import MCPServerStdio\n" + textwrap.dedent(own).split("\n\n", 1)[1]
    assert "HA001" in _codes(real)


def test_ha001_missing_annotation_message():
    source = """\
    def needs_approval(tool):
        return not tool.annotations or tool.annotations.destructiveHint
    """
    findings = check_source(textwrap.dedent(source))
    assert [f.code for f in findings] == ["HA001"]
    assert findings[0].message.endswith("; missing counts as safe")
    assert "missing ones default to readOnlyHint=false" in findings[0].help


def test_ha002_is_a_warning_and_suppressible_per_line():
    source = 'from agents.mcp import MCPServerStdio\nMCPServerStdio(params={}, require_approval="never")\n'
    findings = check_source(source)
    assert [(f.code, f.severity) for f in findings] == [("HA002", "warning")]
    assert check_source(source.rstrip("\n") + "  # noqa: HA002\n") == []


def test_rt101_is_breaks():
    findings = check_source('from mcp.types import Root\nRoot(uri="https://example.com")\n')
    assert [(f.code, f.severity) for f in findings] == [("RT101", "breaks")]


# ----- screens never lose a finding -------------------------------------------------------------
def _security_sources() -> list:
    sources = [p.read_bytes() for p in sorted(FIXTURES.glob("*/*.py"))]
    for rule in all_rules():
        if rule.CODE in SECURITY:
            sources.extend(e.code.encode() for e in rule.VALID + rule.INVALID)
    return sources


def test_screens_lose_no_finding(monkeypatch):
    sources = _security_sources()
    settings = default_settings()
    screened = [[(f.line, f.column, f.code) for f in check_source(s, settings=settings)] for s in sources]
    monkeypatch.setattr(screening, "gate_open", lambda data, settings, classes=None: True)
    monkeypatch.setattr(Rule, "screen", classmethod(lambda cls, data: True))
    for rule in all_rules():
        monkeypatch.setattr(rule, "screen", classmethod(lambda cls, data: True))
    unscreened = [[(f.line, f.column, f.code) for f in check_source(s, settings=settings)] for s in sources]
    assert screened == unscreened


def test_screens_skip_unrelated_files():
    data = b"import os\n\ndef main():\n    print(os.getcwd())\n"
    for rule in all_rules():
        if rule.CODE in SECURITY:
            assert not rule.screen(data), rule.CODE


# ----- golden fixes and the CLI -----------------------------------------------------------------
@pytest.mark.parametrize("code", ["RT102", "RT103"])
def test_golden_fixes_exist(code):
    inputs = sorted((FIXTURES / code).glob("fix_*.py"))
    assert inputs
    for path in inputs:
        assert Path(str(path) + ".suggested").is_file()
        assert Path(str(path) + ".fixed").read_bytes() == path.read_bytes()  # never applied by fix
        result = fix_bytes(path.read_bytes(), str(path), unsafe=True, suggestions=True)
        assert result.applied and all(applied.code == code for applied in result.applied)


def _cli(*args: str):
    exe = Path(sys.executable).with_name("mcp-migrate")
    command = [str(exe)] if exe.exists() else [sys.executable, "-m", "mcp_migrate"]
    return subprocess.run(command + list(args), capture_output=True, text=True, cwd=FIXTURES.parent)


def test_cli_rules_and_explain_cover_the_new_codes():
    listing = _cli("rules")
    assert listing.returncode == 0
    for code in SECURITY:
        assert code in listing.stdout
        explained = _cli("explain", code)
        assert explained.returncode == 0
        for heading in (
            "## What it finds",
            "## Why",
            "## What to do instead",
            "## Example",
            "## Fix",
            "## Not flagged",
        ):
            assert heading in explained.stdout, (code, heading)


def test_cli_select_prefixes():
    result = _cli("check", "--select", "RT1,HA", "--format", "json", "fixtures")
    assert result.returncode == 1, result.stderr
    codes = {f["code"] for f in json.loads(result.stdout)["findings"]}
    assert codes == set(SECURITY)


def test_security_rules_look_at_mcp_code_only():
    """`path.startswith(root)` or `uri[7:]` in a library with no MCP import is out of scope:
    those spellings are everywhere, and parsing every such file would cost more than the run."""
    plain = (
        'def inside(path, root):\n    return path.startswith(root)\n\n\ndef f(uri):\n    return uri.replace("file://", "")\n'
        "\n\ndef g(path, listed: list[Root]):\n    return inside(path, str(listed[0].uri))\n"
    )
    assert _codes(plain) == []
    assert sorted(_codes("import mcp\nfrom mcp.types import Root\n" + plain)) == ["RT102", "RT103"]


@pytest.mark.parametrize("name", ["no_double_decode.py", "neg_scheme_known.py", "neg_root_uri_path.py"])
def test_rt102_no_fix_where_the_meaning_would_change(name):
    """Issue 12 #1: never url2pathname under an existing unquote, never on test-only paths."""
    data = (FIXTURES / "RT102" / name).read_bytes()
    result = fix_bytes(data, name, unsafe=True, suggestions=True)
    assert not any(applied.code == "RT102" for applied in result.applied)


def test_rt103_separator_terminated_check_is_never_rewritten():
    """Issue 12 #7: `p.startswith(a.rstrip(os.sep) + os.sep)` compares whole components; a
    rewrite to `Path(a).resolve()` turned the `/` root into the current directory."""
    path = FIXTURES / "RT103" / "separator_and_derived_roots.py"
    result = fix_bytes(path.read_bytes(), str(path), unsafe=True, suggestions=True)
    assert b"p.startswith(root.rstrip(os.sep) + os.sep)" in result.fixed_source
