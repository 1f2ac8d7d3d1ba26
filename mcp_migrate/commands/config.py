"""`mcp-migrate config`: the effective configuration, and where each value came from
(`default`, `pyproject` — or `config` for a standalone `--config` file — or `flag`)."""

from __future__ import annotations

import dataclasses
import json
import os
import sys

from mcp_migrate.core.catalog import DEFAULT_FAIL_ON
from mcp_migrate.core.settings import Settings
from mcp_migrate.output.printable import printable, printable_data
from mcp_migrate.output.sarif import DOCS_URL
from mcp_migrate.project.discovery import DEFAULT_EXCLUDE
from mcp_migrate.project.overrides import Overrides
from mcp_migrate.project.paths import display_path
from mcp_migrate.run.plan import resolver_for, selector_for


def _toml(value) -> str:
    """A TOML rendering of the scalars, lists and tables config values are made of."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + " }" if value else "{}"
    return "[" + ", ".join(_toml(v) for v in value) + "]"


def effective(paths, options, unsafe: bool | None) -> tuple:
    """(config file or None, [(key, value, origin)]) for the run `check`/`fix` would do."""
    resolver = resolver_for(paths, options)
    for warning in resolver.warnings:
        sys.stderr.write(printable(f"mcp-migrate: warning: {warning}") + "\n")
    config = resolver.base
    flags = config.overrides or Overrides(os.getcwd())
    file_origin = "pyproject" if config.path and os.path.basename(config.path) == "pyproject.toml" else "config"
    defaults = {f.name: f.default for f in dataclasses.fields(Settings)}

    def origin(key: str, flag=None) -> str:
        if flag is not None:
            return "flag"
        return file_origin if key in config.keys else "default"

    rows = [
        ("select", list(options.select or config.select or ["ALL"]), origin("select", options.select)),
        (
            "extend-select",
            list(options.extend_select or config.extend_select),
            origin("extend-select", options.extend_select),
        ),
        ("ignore", list(options.ignore or config.ignore), origin("ignore", options.ignore)),
        (
            "exclude",
            list(flags.exclude if flags.exclude is not None else config.exclude or [f"{n}/" for n in DEFAULT_EXCLUDE]),
            origin("exclude", flags.exclude),
        ),
        (
            "extend-exclude",
            list(config.extend_exclude + flags.extend_exclude),
            origin("extend-exclude", flags.extend_exclude or None),
        ),
        (
            "per-file-ignores",
            {
                glob: sorted(codes)
                for glob, codes in (
                    (flags.per_file_ignores if flags.per_file_ignores is not None else config.per_file_ignores)
                    + flags.extend_per_file_ignores
                )
            },
            origin("per-file-ignores", flags.per_file_ignores or flags.extend_per_file_ignores or None),
        ),
        ("extend-apis", {code: list(names) for code, names in config.extend_apis}, origin("extend-apis")),
        ("unsafe-fixes", bool(unsafe if unsafe is not None else config.unsafe_fixes), origin("unsafe-fixes", unsafe)),
        ("fixable", list(config.fixable if config.fixable is not None else ["ALL"]), origin("fixable")),
        ("unfixable", list(config.unfixable), origin("unfixable")),
        ("extend-safe-fixes", list(config.extend_safe_fixes), origin("extend-safe-fixes")),
        ("extend-unsafe-fixes", list(config.extend_unsafe_fixes), origin("extend-unsafe-fixes")),
        (
            "force-exclude",
            bool(options.force_exclude if options.force_exclude is not None else config.force_exclude),
            origin("force-exclude", options.force_exclude),
        ),
        (
            "include-templates",
            config.templates_included,
            origin("include-templates", flags.include_templates),
        ),
        ("strategy", options.strategy or config.strategy, origin("strategy", options.strategy)),
        ("parameter", config.parameter or defaults["parameter"], origin("parameter")),
        ("env-var", config.env_var or defaults["env_var"], origin("env-var")),
        ("fail-on", options.fail_on or config.fail_on or DEFAULT_FAIL_ON, origin("fail-on", options.fail_on)),
        ("docs-url", config.docs_url or DOCS_URL, origin("docs-url")),
    ]
    selected = sorted(selector_for(config, options).selected)
    flagged = options.select or options.ignore or options.extend_select
    rows.append(("rules", selected, "flag" if flagged else origin("select")))
    return config.path, rows


def print_config(paths, options, unsafe: bool | None, output_format: str = "text") -> None:
    path, rows = effective(paths, options, unsafe)
    shown = display_path(path) if path else None
    if output_format == "json":
        doc = {"config_file": shown, "settings": {key: {"value": v, "origin": o} for key, v, o in rows}}
        sys.stdout.write(json.dumps(printable_data(doc), indent=2) + "\n")
        return
    lines = [f"# config file: {shown or 'none (defaults)'}", "[tool.mcp-migrate]"]
    for key, value, origin in rows:
        if value is None:
            lines.append(f"# {key}: not set  # {origin}")
        else:
            prefix = "# effective " if key == "rules" else ""
            lines.append(f"{prefix}{key} = {_toml(value)}  # {origin}")
    sys.stdout.write(printable("\n".join(lines)) + "\n")
