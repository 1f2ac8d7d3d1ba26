"""The three migration strategies of RT001, one class each: where the directories come from.

  tool-parameter  the tool gains `directories: Annotated[list[str], Field(description=...)]`
  resource-uri    the tool gains `uris: ...` (file:// URIs), converted once by a helper
  server-config   a module constant read once from an environment variable at start-up

The default is tool-parameter inside a tool function and server-config elsewhere. A strategy
names the local the rewritten code reads (`target`), refuses names the function already uses,
and provides the directories (`provide`) to a site rewrite (site.SiteRewrite).
"""

from __future__ import annotations

import re
import textwrap
from abc import ABC, abstractmethod
from typing import ClassVar

import libcst as cst

from mcp_migrate.core.coordination import MigratedTool, note_env_var, note_migrated_tool
from mcp_migrate.core.fix.edits import Insert, Replace
from mcp_migrate.core.fix.layout import line_length, union_types_run
from mcp_migrate.core.sdk import SERVER_CLASSES
from mcp_migrate.core.syntax import (
    all_params,
    code_of,
    is_docstring,
    iter_nodes,
    module_binding,
    parent_map,
    parse_stmt,
)
from mcp_migrate.rewrites.names import bound_names, free_reads
from mcp_migrate.rewrites.rt001.flow import tolerates_none
from mcp_migrate.rewrites.rt001.outcomes import CannotApply
from mcp_migrate.rewrites.rt001.signature import NewParam
from mcp_migrate.rewrites.rt001.tools import tool_name

URI_HELPER = "_file_uri_to_path"
PARAM_DESCRIPTION = "Absolute paths of the directories to work in."
URI_DESCRIPTION = "file:// URIs of the directories to work in."


class Strategy(ABC):
    """Where one rewrite takes the directories from."""

    NAME: ClassVar[str] = ""

    def __init__(self, settings) -> None:
        self.settings = settings

    @property
    @abstractmethod
    def target(self) -> str:
        """The local name the rewritten code reads the directories from."""

    @abstractmethod
    def check_names(self, site) -> None:
        """Raise CannotApply when the function already uses a name this strategy introduces."""

    @abstractmethod
    def provide(self, site) -> None:
        """Add what makes `target` hold the directories (a parameter, a constant)."""


class ServerConfig(Strategy):
    """A module constant read once from an environment variable at start-up."""

    NAME = "server-config"

    @property
    def target(self) -> str:
        return constant_name(self.settings.env_var)

    def check_names(self, site) -> None:
        if self.target in bound_names(site.func):
            raise CannotApply(f"the function binds `{self.target}` itself; set `env-var` to another name")
        existing = module_binding(site.module, self.target)
        if existing is not None and not _our_constant(existing, self.settings.env_var):
            raise CannotApply(
                f"the module already binds `{self.target}` to something else; set `env-var` to another name"
            )

    def provide(self, site) -> None:
        name = self.target
        if module_binding(site.module, name) is not None:
            return
        env = self.settings.env_var
        note_env_var(site.context, env)
        text = "Directories this server works in, from its configuration (replaces MCP Roots, SEP-2577)."
        width = line_length(
            site.context.path, site.context.settings.view
        )  # a module-level comment: no new E501 (issue 20 §4)
        comments = [cst.EmptyLine(comment=cst.Comment(f"# {line}")) for line in textwrap.wrap(text, width - 2)]
        const = parse_stmt(f'{name} = [d for d in os.environ.get("{env}", "").split(os.pathsep) if d]\n')
        const = const.with_changes(leading_lines=[cst.EmptyLine(), *comments])
        site.imports.append(("os", None))
        site.edits.append(Insert(config_anchor(site.module, site.resolver), (const,)))


#: The `parameter` setting's default, and what takes its place where the tool already reads a
#: name of that spelling (a module global, a builtin): a configured name is never replaced.
DEFAULT_PARAMETER = "directories"
PARAMETER_ALTERNATIVES = ("directories", "root_directories", "work_directories")


class ToolParameter(Strategy):
    """The tool gains a `directories` parameter (named by the `parameter` setting)."""

    NAME = "tool-parameter"
    DESCRIPTION = PARAM_DESCRIPTION

    def __init__(self, settings) -> None:
        super().__init__(settings)
        self._target = settings.parameter

    @property
    def target(self) -> str:
        return self._target

    @property
    def parameter(self) -> str:
        """The name of the parameter the tool gains."""
        return self.target

    def introduced(self) -> set:
        return {self.target}

    def check_names(self, site) -> None:
        self._avoid_shadowing(site)
        params = {p.name.value for p in all_params(site.func.params)}
        clash = self.introduced() & bound_names(site.func)
        # A second request in a tool that already gained the parameter reuses it.
        if clash and not (clash <= params and self._already_migrated(site, params)) and not self.own_prologue(site):
            name = sorted(clash)[0]
            raise CannotApply(f"the function already uses the name `{name}`; set `parameter` to another name")

    def _avoid_shadowing(self, site) -> None:
        """The new local must not capture a name the tool reads from outside (`directories` a
        module global, `len` a builtin): the default name gives way to a free one; a configured
        name is refused with the reason."""
        reads = free_reads(site.func)
        if self._target not in reads:
            return
        if self.settings.parameter == DEFAULT_PARAMETER:
            taken = reads | bound_names(site.func)
            free = [name for name in PARAMETER_ALTERNATIVES if name not in taken]
            if free:
                self._target = free[0]
                return
        raise CannotApply(
            f"the function reads `{self._target}` from outside it (a module global or a builtin), which the new"
            " parameter would shadow; set `parameter` to another name"
        )

    def own_prologue(self, site) -> bool:
        """Whether an earlier pass already bound `target` in a line of this strategy's own."""
        return False

    def _already_migrated(self, site, names: set) -> bool:
        return self.parameter in names and _param_marker_present(site.func)

    def provide(self, site) -> None:
        names = {p.name.value for p in all_params(site.func.params)}
        site.imports += [("typing", "Annotated"), ("pydantic", "Field")]
        fallback_for = _fallback_for(site)
        # Roots only stood in for a missing argument: callers that pass it need nothing new, and
        # without directories (None) the tool takes its old no-roots branch.
        optional = fallback_for is not None and tolerates_none(site.func, site.edits, self.target)
        self.prepare(site, optional)
        if self.parameter in names:
            return
        field = f'Field(description="{self.DESCRIPTION}")'
        if optional:
            field = f'Field(description="{self.DESCRIPTION[:-1]} (used when `{fallback_for}` is not given).")'
            if union_types_run(site.context.path, site.context.module, site.context.settings.view):
                site.new_param = NewParam(self.parameter, "list[str] | None", field, "None")
            else:  # a project that declares Python 3.9: `X | None` raises TypeError at import
                site.imports.append(("typing", "Optional"))
                site.new_param = NewParam(self.parameter, "Optional[list[str]]", field, "None")
        else:
            site.new_param = NewParam(self.parameter, "list[str]", field)
        note_migrated_tool(site.context, MigratedTool(tool_name(site.func), self.parameter, optional=optional))

    def prepare(self, site, optional: bool) -> None:
        """Anything the tool body needs before the directories can be read (nothing here)."""


class ResourceUri(ToolParameter):
    """The tool gains `uris` (file:// URIs), turned into the directories by one helper."""

    NAME = "resource-uri"
    DESCRIPTION = URI_DESCRIPTION

    @property
    def parameter(self) -> str:
        return "uris"

    def introduced(self) -> set:
        return {self.target, self.parameter}

    def own_prologue(self, site) -> bool:
        """resource-uri binds `directories` in its own prologue line on an earlier pass."""
        if not isinstance(site.func.body, cst.IndentedBlock):
            return False
        prologues = {uri_prologue(self.target, optional) for optional in (False, True)}
        return any(code_of(stmt).strip() in prologues for stmt in site.func.body.body[:2])

    def prepare(self, site, optional: bool) -> None:
        if _reads(site, self.target):
            self._uri_prologue(site, optional)

    def _uri_prologue(self, site, optional: bool) -> None:
        body = site.func.body
        if not isinstance(body, cst.IndentedBlock):
            raise CannotApply("a one-line function body")
        first = body.body[0]
        anchor = body.body[1] if is_docstring(first) and len(body.body) > 1 else first
        prologue = parse_stmt(uri_prologue(self.target, optional) + "\n")
        site.edits.append(Insert(anchor, (prologue,), before=True))
        if module_binding(site.module, URI_HELPER) is None:
            helper = parse_stmt(
                f"def {URI_HELPER}(uri: str) -> str:\n"
                f'    """The local path of a file:// URI (percent-decoded; Windows drives handled)."""\n'
                f"    parsed = urlparse(uri)\n"
                f'    if parsed.scheme != "file":\n'
                f'        raise ValueError(f"expected a file:// URI, got {{uri!r}}")\n'
                f'    if parsed.netloc not in ("", "localhost"):\n'
                f'        raise ValueError(f"a file:// URI on another host cannot be used: {{uri!r}}")\n'
                f"    return url2pathname(parsed.path)\n"
            )
            helper = helper.with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()])
            site.imports += [("urllib.parse", "urlparse"), ("urllib.request", "url2pathname")]
            site.edits.append(Insert(config_anchor(site.module, site.resolver), (helper,)))


#: Every strategy by its setting's name, in the order the CLI lists them (core.settings.STRATEGIES).
STRATEGY_CLASSES = {cls.NAME: cls for cls in (ToolParameter, ResourceUri, ServerConfig)}


def strategy_for(name: str, settings) -> Strategy:
    """The strategy called `name` (one of core.settings.STRATEGIES)."""
    return STRATEGY_CLASSES[name](settings)


def _our_constant(binding, env_var: str) -> bool:
    """The module's binding of the constant is the one this strategy writes (an earlier pass)."""
    return f'os.environ.get("{env_var}"' in code_of(binding)


def constant_name(env_var: str) -> str:
    name = "".join(ch if ch.isalnum() else "_" for ch in env_var.upper())
    return name if name and not name[0].isdigit() else f"_{name}"


def uri_prologue(target: str, optional: bool) -> str:
    """resource-uri's first line: the paths of the given URIs (none when `uris` is optional)."""
    return f"{target} = [{URI_HELPER}(uri) for uri in {'uris or []' if optional else 'uris'}]"


def config_anchor(module: cst.Module, resolver) -> cst.BaseStatement:
    """The statement after which module-level configuration goes: the server's assignment, else
    the last import at the top of the module."""
    last_import = None
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign) and isinstance(small.value, cst.Call):
                    if resolver.sdk_name(small.value.func) in SERVER_CLASSES:
                        return stmt
                if isinstance(small, (cst.Import, cst.ImportFrom)):
                    last_import = stmt
    if last_import is None:
        raise CannotApply("no module-level place for the configuration")
    return last_import


def _param_marker_present(func: cst.FunctionDef) -> bool:
    """A parameter this rewrite added on an earlier pass (its `Field(description=...)`)."""
    for p in all_params(func.params):
        if p.annotation is not None and re.search(r"Field\(\s*description=", code_of(p.annotation.annotation)):
            return True  # one line, or split at the project's line length
    return False


def _fallback_for(site) -> str | None:
    """The parameter (with a default) whose absence the roots stood in for: the request sits
    in `if p is None:` / `if not p:`."""
    optional = {p.name.value for p in all_params(site.func.params) if p.default is not None}
    parents = parent_map(site.func)
    node = site.value
    while node is not None and node is not site.func:
        parent = parents.get(id(node))
        if isinstance(parent, cst.If) and parent.body is node and _absent(parent.test) in optional:
            return _absent(parent.test)
        node = parent
    return None


def _reads(site, name: str) -> bool:
    """Some rewritten code reads `name` (a settled test may leave none that does: then the
    prologue would be an unused local)."""
    return any(
        isinstance(node, cst.Name) and node.value == name
        for edit in site.edits
        if isinstance(edit, Replace)
        for node in iter_nodes(edit.new)
    )


def _absent(test: cst.BaseExpression) -> str | None:
    """`p` for the tests `p is None` and `not p`."""
    if (
        isinstance(test, cst.UnaryOperation)
        and isinstance(test.operator, cst.Not)
        and isinstance(test.expression, cst.Name)
    ):
        return test.expression.value
    if (
        isinstance(test, cst.Comparison)
        and isinstance(test.left, cst.Name)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, cst.Is)
        and isinstance(test.comparisons[0].comparator, cst.Name)
        and test.comparisons[0].comparator.value == "None"
    ):
        return test.left.value
    return None
