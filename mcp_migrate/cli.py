"""The `mcp-migrate` command line: a click group whose commands share option decorators.

Exit codes: 0 no findings, 1 findings, 2 usage/config error, missing path, or a FileError.
Bad input never shows a traceback: `guarded` turns it into `mcp-migrate: error: ...` and 2.
New commands (`fix`, `config`) reuse `check_options` and `runner.plan` / `runner.run_check`.
"""
from __future__ import annotations

import functools

import click

from mcp_migrate import __version__

PROG = "mcp-migrate"
EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def fail(message: str) -> "click.exceptions.Exit":
    """Print the one-line error and return the exit to raise (exit code 2)."""
    click.echo(f"{PROG}: error: {message}", err=True)
    return click.exceptions.Exit(EXIT_ERROR)


def guarded(func):
    """Map known bad input (config, selection, missing paths) and any unexpected exception
    to one line on stderr and exit 2."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        from mcp_migrate.config import ConfigError
        from mcp_migrate.discovery import PathNotFoundError

        try:
            return func(*args, **kwargs)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except (ConfigError, PathNotFoundError) as exc:
            raise fail(str(exc)) from None
        except Exception as exc:  # one line, never a traceback
            text = " ".join(str(exc).split())
            raise fail(f"{type(exc).__name__}: {text}" if text else type(exc).__name__) from None

    return wrapper


def _codes_option(name: str, help_text: str):
    def convert(ctx, param, value):
        if value is None:
            return None
        from mcp_migrate import selection

        codes = selection.split_codes(value)
        try:
            selection.expand(codes)
        except selection.UnknownCodeError as exc:
            raise fail(f"{param.opts[0]}: {exc}") from None
        return codes

    return click.option(name, metavar="CODES", callback=convert, help=help_text)


def _compose(*decorators):
    def apply(func):
        for decorator in reversed(decorators):
            func = decorator(func)
        return func

    return apply


paths_argument = click.argument("paths", nargs=-1, type=click.Path(), metavar="[PATH]...")
select_options = _compose(
    _codes_option("--select", "Rules to check, comma-separated; prefixes allowed (RT, RT00). Replaces the config."),
    _codes_option("--ignore", "Rules to skip, comma-separated; prefixes allowed."),
)
config_option = click.option(
    "--config", "config_file", metavar="FILE", help="Use this pyproject.toml / TOML file instead of searching."
)
color_option = click.option("--no-color", is_flag=True, help="Plain output (NO_COLOR is honoured too).")
jobs_option = click.option(
    "--jobs", "-j", type=click.IntRange(min=0), default=0, show_default=True, help="Worker processes; 0 = auto."
)
#: The options every file-processing command takes.
check_options = _compose(paths_argument, select_options, config_option, jobs_option)


def make_options(select, ignore, config_file, jobs):
    from mcp_migrate.runner import CheckOptions

    return CheckOptions(select=select, ignore=ignore, config=config_file, jobs=jobs)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name=PROG, message="%(prog)s %(version)s")
def cli():
    """Find uses of the deprecated MCP Roots feature (SEP-2577) in Python code."""


@cli.command()
@check_options
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@color_option
@guarded
def check(paths, select, ignore, config_file, jobs, output_format, no_color):
    """Check PATHs (default: the current folder) for Roots usage."""
    from mcp_migrate import report
    from mcp_migrate.runner import run_check

    run = run_check(list(paths) or ["."], make_options(select, ignore, config_file, jobs))
    if output_format == "json":
        report.print_json(run)
    else:
        if run.files_checked == 0 and not run.results:
            click.echo(f"{PROG}: warning: no Python files found", err=True)
        report.print_text(run, color=report.use_color(no_color))
    raise click.exceptions.Exit(exit_code(run))


@cli.command()
@check_options
@click.option("--diff", "show_diff", is_flag=True, help="Print a unified diff per changed file; write nothing.")
@click.option("--unsafe-fixes/--no-unsafe-fixes", "unsafe", default=None, help="Also apply fixes marked unsafe.")
@color_option
@guarded
def fix(paths, select, ignore, config_file, jobs, show_diff, unsafe, no_color):
    """Apply fixes to PATHs, then report what remains.

    With --diff, print what would change and exit 1 when anything would."""
    from mcp_migrate.fixcmd import run_fix_command

    code = run_fix_command(
        list(paths) or ["."], make_options(select, ignore, config_file, jobs), unsafe, show_diff, no_color
    )
    raise click.exceptions.Exit(code)


def exit_code(run) -> int:
    if run.errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if any(r.findings for r in run.results) else EXIT_CLEAN


@cli.command()
@color_option
@guarded
def rules(no_color):
    """List every rule: code, name, fix kind, severity, summary."""
    from mcp_migrate import report
    from mcp_migrate.catalog import load_catalog

    report.print_rules(load_catalog(), color=report.use_color(no_color))


@cli.command()
@click.argument("code")
@color_option
@guarded
def explain(code, no_color):
    """Show the documentation of rule CODE."""
    from mcp_migrate import report
    from mcp_migrate.catalog import load_catalog

    info = load_catalog().get(code.strip().upper())
    if info is None:
        raise fail(f"unknown rule code: {code}")
    report.print_explain(info, color=report.use_color(no_color))


def main(argv=None) -> None:
    """Console-script entry point."""
    cli.main(args=argv, prog_name=PROG)


if __name__ == "__main__":  # pragma: no cover
    main()
