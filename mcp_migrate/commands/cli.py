"""The `mcp-migrate` command line: a click group whose commands share option decorators.

Exit codes: 0 no findings, 1 findings, 2 usage/config error, missing path, or a FileError,
130 interrupted (Ctrl-C), 128 + N ended by signal N (SIGTERM: 143, SIGHUP: 129).
Bad input never shows a traceback: `guarded` turns it into `mcp-migrate: error: ...` and 2.
Commands only parse options here; check.py, fix.py and config.py beside this module do the work.
"""

from __future__ import annotations

import errno
import functools
import json
import signal
import sys
import threading

import click

from mcp_migrate import __version__
from mcp_migrate.core.catalog import SEVERITIES, find_rule, load_catalog
from mcp_migrate.core.codes import EXIT_ERROR, EXIT_INTERRUPTED
from mcp_migrate.core.settings import STRATEGIES
from mcp_migrate.output import report
from mcp_migrate.output.printable import one_line, printable
from mcp_migrate.output.report import FORMATS, ColorChoice  # cheap: report imports rich only inside functions

PROG = "mcp-migrate"


def fail(message: str) -> click.exceptions.Exit:
    """Print the one-line error and return the exit to raise (exit code 2)."""
    click.echo(f"{PROG}: error: {printable(message)}", err=True)
    return click.exceptions.Exit(EXIT_ERROR)


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised in the main thread as Ctrl-C is: the pool stops at once and a
    write in progress removes its temporary file (the default action killed the process
    mid-write and left it behind)."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _terminate(signum, frame):
    raise Terminated(signum)


def _catch_termination() -> list:
    """Turn SIGTERM and SIGHUP into Terminated while a command runs, where nothing else has
    claimed them (an embedding program keeps its own); the handlers to restore afterwards."""
    if threading.current_thread() is not threading.main_thread():
        return []
    replaced = []
    for name in ("SIGTERM", "SIGHUP"):
        signum = getattr(signal, name, None)
        if signum is not None and signal.getsignal(signum) == signal.SIG_DFL:
            signal.signal(signum, _terminate)
            replaced.append(signum)
    return replaced


def _restore_signals(replaced: list) -> None:
    for signum in replaced:
        signal.signal(signum, signal.SIG_DFL)


def _tolerant_output() -> None:
    """Standard output and error write what their encoding cannot show as `\\xe9`: with
    PYTHONIOENCODING=ascii a file name like `café.py` made `fix` stop halfway (UnicodeEncodeError
    after writing some files). Every writer (click, rich, sys.std*.write) goes through them."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # closed, or a stream that refuses
                pass


def guarded(func):
    """Map known bad input (config, selection, missing paths) and any unexpected exception
    to one line on stderr and exit 2; an interrupt (Ctrl-C) to one line and exit 130, SIGTERM
    and SIGHUP to one line and 128 + the signal's number."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        from mcp_migrate.project.config import ConfigError
        from mcp_migrate.project.discovery import PathNotFoundError

        closed = sys.stdout is None  # started with no standard output (`>&-`)
        if closed:
            sys.stdout = _ClosedOutput()
        replaced = _catch_termination()
        _tolerant_output()
        try:
            return func(*args, **kwargs)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except (ConfigError, PathNotFoundError) as exc:
            raise fail(str(exc)) from None
        except Terminated as exc:
            click.echo(f"{PROG}: terminated ({signal.Signals(exc.signum).name})", err=True)
            raise click.exceptions.Exit(128 + exc.signum) from None
        except KeyboardInterrupt:  # Ctrl-C: no traceback, and not 1 (findings)
            click.echo(f"{PROG}: interrupted", err=True)
            raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
        except Exception as exc:  # one line, never a traceback
            raise fail(describe(exc)) from None
        finally:
            _restore_signals(replaced)
            if closed:
                sys.stdout = None

    return wrapper


class _ClosedOutput:
    """Standard output when the process has none (Python's sys.stdout is then None): a run
    that writes nothing there (`-q -o report.txt`) works; the first write is the one-line
    error, where it was "internal error: 'NoneType' object has no attribute 'write'"."""

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, "standard output is closed: nowhere to report")

    def flush(self) -> None:
        pass

    @property
    def buffer(self) -> _ClosedOutput:
        """The binary side (`fix --diff`, fixed source on standard output): the same first-write
        error, where it was "internal error: '_ClosedOutput' object has no attribute 'buffer'"."""
        return self


def describe(exc: BaseException) -> str:
    """One clear line for an exception nothing more specific caught: a file that cannot be
    written (`-o`, `--report`) says which and why; memory and nesting limits say so; anything
    else is a bug in mcp-migrate and says that, with the exception for the bug report."""
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.filename}: {exc.strerror}" if exc.filename else exc.strerror
    if isinstance(exc, MemoryError):
        return "out of memory"
    if isinstance(exc, RecursionError):
        return "input nested too deeply for Python's recursion limit"
    text = " ".join(str(exc).split())
    name = type(exc).__name__
    return f"internal error, please report it: {name}: {text}" if text else f"internal error, please report it: {name}"


def _codes_option(name: str, help_text: str):
    def convert(ctx, param, value):
        if value is None:
            return None
        from mcp_migrate.project import selection

        codes = selection.split_codes(value) or ("",)  # `--select ""` is an error, as `select = [""]` is
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


def _strategy(ctx, param, value):
    if value is None:
        return None
    from mcp_migrate.project.config import ConfigError, check_strategy

    try:
        return check_strategy(value, "--strategy")
    except ConfigError as exc:
        raise fail(str(exc)) from None


paths_argument = click.argument("paths", nargs=-1, type=click.Path(), metavar="[PATH]...")
select_options = _compose(
    _codes_option("--select", "Rules to check, comma-separated; prefixes allowed (RT, RT00). Replaces the config."),
    _codes_option("--extend-select", "Rules to add to the selection, comma-separated; prefixes allowed."),
    _codes_option("--ignore", "Rules to skip, comma-separated; prefixes allowed."),
)
config_option = click.option(
    "--config",
    "config_file",
    metavar="FILE",
    help="Use this pyproject.toml / TOML file for every file, instead of each file's closest config.",
)
isolated_option = click.option("--isolated", is_flag=True, help="Ignore all config files (defaults and flags only).")
color_option = _compose(
    click.option(
        "--color",
        "color_when",
        type=click.Choice(["auto", "always", "never"]),
        default=None,
        help="Colour: auto (the default: on a terminal, unless NO_COLOR is set), always (even piped), never.",
    ),
    click.option("--no-color", is_flag=True, help="Plain output, as --color never (NO_COLOR is honoured too)."),
)


def color_choice(color_when, no_color) -> ColorChoice:
    """`report.use_color`'s answer for `--color` / `--no-color` (which is `--color never`)."""
    if no_color and color_when not in (None, "never"):
        raise fail(f"--no-color and --color {color_when} cannot be combined")
    return report.use_color(no_color, color_when)


jobs_option = click.option(
    "--jobs", "-j", type=click.IntRange(min=0), default=0, show_default=True, help="Worker processes; 0 = auto."
)
strategy_option = click.option(
    "--strategy",
    metavar="NAME",
    callback=_strategy,
    help=f"Migration strategy for RT001-RT003: {', '.join(STRATEGIES)} (overrides the config).",
)


def _raw(ctx, param, value):
    """A repeatable glob option's values, checked as soon as they are parsed (one-line error)."""
    from mcp_migrate.project import overrides
    from mcp_migrate.project.config import ConfigError

    check = overrides.split_pairs if "per-file" in param.opts[0] else overrides.split_globs
    try:
        check(value, param.opts[0])
    except ConfigError as exc:
        raise fail(str(exc)) from None
    return value


#: ruff's file-selection flags, laid over every config file (project.overrides).
override_options = _compose(
    click.option(
        "--exclude",
        metavar="GLOBS",
        multiple=True,
        callback=_raw,
        help="Files and folders to skip, comma-separated globs relative to the current folder;"
        " replaces the config's `exclude` (default: .git, .venv, build, ...). Repeatable.",
    ),
    click.option(
        "--extend-exclude",
        metavar="GLOBS",
        multiple=True,
        callback=_raw,
        help="Like --exclude, but added to the config's `exclude` and `extend-exclude`. Repeatable.",
    ),
    click.option(
        "--per-file-ignores",
        metavar="GLOB:CODES",
        multiple=True,
        callback=_raw,
        help="Rules to skip in files matching GLOB (relative to the current folder), e.g."
        " 'tests/*:RT004,RT005'; replaces the config's `per-file-ignores`. Repeatable.",
    ),
    click.option(
        "--extend-per-file-ignores",
        metavar="GLOB:CODES",
        multiple=True,
        callback=_raw,
        help="Like --per-file-ignores, but added to the config's `per-file-ignores`. Repeatable.",
    ),
    click.option(
        "--include-templates/--no-include-templates",
        default=None,
        help="Also check template folders (a name holding `{{`, `}}` or `{%`, as cookiecutter's"
        " `{{cookiecutter.slug}}`), which are skipped by default.",
    ),
)
force_exclude_option = click.option(
    "--force-exclude/--no-force-exclude",
    default=None,
    help="Apply exclude/extend-exclude (and skip non-Python files) even for files named explicitly.",
)
stdin_option = click.option(
    "--stdin-filename",
    metavar="PATH",
    help="Read the source from standard input (PATH `-`) and treat it as PATH for config and ignores.",
)
exit_zero_option = click.option(
    "--exit-zero", is_flag=True, help="Exit 0 even when findings remain (internal errors still exit 2)."
)
quiet_option = click.option("--quiet", "-q", is_flag=True, help="Print findings only: no summary, no progress.")
verbose_option = click.option(
    "--verbose", "-v", is_flag=True, help="Say on stderr which configs apply and how long each phase took."
)


def timings(verbose: bool, quiet: bool):
    """The run's commands.timing.Timings (`-v`); `-q` and `-v` cannot both hold, as in ruff."""
    if verbose and quiet:
        raise fail("--verbose and --quiet cannot be combined")
    from mcp_migrate.commands.timing import Timings

    return Timings(verbose)


unsafe_option = click.option(
    "--unsafe-fixes/--no-unsafe-fixes", "unsafe", default=None, help="Also apply fixes marked unsafe."
)
severity_option = click.option(
    "--severity",
    "--fail-on",
    "fail_on",
    type=click.Choice(SEVERITIES),
    default=None,
    help="Lowest severity that makes the run exit 1 (default: the config's `fail-on`, else warning:"
    " info findings are reported but do not fail).",
)
report_option = click.option(
    "--report", "report_file", metavar="FILE.md", help="Also write a Markdown migration report to FILE.md."
)
show_fixes_option = click.option("--show-fixes", is_flag=True, help="After fixing, list what was fixed per file.")
exit_non_zero_on_fix_option = click.option(
    "--exit-non-zero-on-fix", is_flag=True, help="Exit 1 when anything was fixed (pre-commit style)."
)
fix_only_option = click.option(
    "--fix-only",
    is_flag=True,
    help="Apply fixes, but do not report what remains nor exit 1 for it (implies --fix).",
)


#: The environment variable that sets check's and fix's `--output-format` (ruff's RUFF_OUTPUT_FORMAT).
OUTPUT_FORMAT_ENV = "MCP_MIGRATE_OUTPUT_FORMAT"


def output_format_option(help_text: str, choices=FORMATS, default: str = "full", envvar=None):
    """`--output-format` (ruff's name) with `--format` kept as an alias."""
    return click.option(
        "--output-format",
        "--format",
        "output_format",
        type=click.Choice(list(choices)),
        default=default,
        show_default=True,
        envvar=envvar,
        show_envvar=envvar is not None,
        help=help_text,
    )


output_file_option = click.option(
    "--output-file", "-o", metavar="FILE", help="Write the report to FILE; the terminal gets the summary."
)


#: The options every file-processing command takes.
check_options = _compose(
    paths_argument,
    select_options,
    config_option,
    isolated_option,
    jobs_option,
    strategy_option,
    force_exclude_option,
    override_options,
)


def make_options(
    select,
    ignore,
    config_file,
    jobs,
    strategy=None,
    force_exclude=None,
    extend_select=None,
    unsafe=None,
    fail_on=None,
    isolated=False,
    overrides=None,
):
    """CheckOptions of the shared options; `overrides` the dict of override_options' values."""
    from mcp_migrate.project.overrides import from_flags
    from mcp_migrate.run.records import CheckOptions

    if config_file and isolated:
        raise fail(f"--config {config_file} cannot be used with --isolated, which reads no config file")
    return CheckOptions(
        select=select,
        ignore=ignore,
        config=config_file,
        jobs=jobs,
        strategy=strategy,
        force_exclude=force_exclude,
        extend_select=extend_select,
        unsafe=unsafe,
        fail_on=fail_on,
        isolated=isolated,
        overrides=from_flags(**overrides) if overrides else None,
    )


def concise(output_format: str) -> str:
    """`text` is the older name of `concise`."""
    return "concise" if output_format == "text" else output_format


def stdin_mode(paths, stdin_filename) -> bool:
    """Whether the source comes from standard input (`-`, or --stdin-filename with no PATH)."""
    if "-" in paths:
        if len(paths) != 1:
            raise fail("`-` (standard input) cannot be combined with other paths")
        return True
    if stdin_filename is not None:
        if paths:
            raise fail("--stdin-filename reads standard input: pass `-` instead of paths")
        return True
    return False


def read_stdin() -> bytes:
    """Standard input's bytes; closed or unreadable, one line and exit 2 (not AttributeError)."""
    stream = getattr(sys.stdin, "buffer", None)  # None when the process was started with it closed
    if stream is None:
        raise fail("cannot read standard input: it is closed")
    try:
        return stream.read()
    except (OSError, ValueError) as exc:  # EBADF, EIO; ValueError: closed inside this process
        raise fail(f"cannot read standard input: {getattr(exc, 'strerror', None) or exc}") from None


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name=PROG, message="%(prog)s %(version)s")
def cli():
    """Find uses of the deprecated MCP Roots feature (SEP-2577) in Python code."""


FORMAT_HELP = (
    "full: each finding with its source, a caret under it and the proposed fix (the default, as in"
    " ruff); concise: one line per finding (`text` is its older name); grouped: by file; json,"
    " json-lines, junit, sarif, github, gitlab (Code Quality)."
)


@cli.command()
@check_options
@output_format_option(FORMAT_HELP, envvar=OUTPUT_FORMAT_ENV)
@output_file_option
@click.option("--fix", "apply_fixes", is_flag=True, help="Apply fixes, as `mcp-migrate fix` does.")
@fix_only_option
@exit_non_zero_on_fix_option
@unsafe_option
@click.option("--diff", "show_diff", is_flag=True, help="Print the diff fixes would make; write nothing.")
@show_fixes_option
@click.option("--show-files", is_flag=True, help="List the files that would be checked, then exit.")
@severity_option
@report_option
@exit_zero_option
@quiet_option
@verbose_option
@click.option("--statistics", is_flag=True, help="Count findings per rule instead of listing them.")
@click.option("--baseline", metavar="FILE", help="Report and fail only on findings FILE does not record.")
@click.option("--write-baseline", metavar="FILE", help="Record the current findings in FILE and exit 0.")
@click.option("--add-noqa", is_flag=True, help="Append `# noqa: CODE` to each finding's line.")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the results cache (.mcp_migrate_cache/).")
@stdin_option
@color_option
@guarded
def check(
    paths, select, extend_select, ignore, config_file, isolated, jobs, strategy, force_exclude, output_format, output_file,
    apply_fixes, unsafe, show_diff, show_fixes, show_files, fail_on, report_file, exit_zero, quiet, statistics,
    baseline, write_baseline, add_noqa, no_cache, stdin_filename, no_color, color_when, fix_only,
    exit_non_zero_on_fix, verbose, **overrides,
):  # fmt: skip
    """Check PATHs (default: the current folder) for Roots usage.

    With --fix (or --diff), fix as `mcp-migrate fix` does; --unsafe-fixes alone counts unsafe
    fixes as fixable in the summary, as in ruff."""
    output_format = concise(output_format)
    options = make_options(
        select, ignore, config_file, jobs, strategy, force_exclude, extend_select, unsafe, fail_on, isolated, overrides
    )
    options.cache = not no_cache
    options.timings = timings(verbose, quiet)
    color = color_choice(color_when, no_color)
    if show_files:
        raise click.exceptions.Exit(_show_files(list(paths) or ["."], options))
    from_stdin = stdin_mode(paths, stdin_filename)
    apply_fixes = apply_fixes or fix_only
    modes = [
        name
        for name, on in (
            ("--fix", apply_fixes),
            ("--diff", show_diff and not apply_fixes),
            ("--baseline", baseline),
            ("--write-baseline", write_baseline),
            ("--add-noqa", add_noqa),
        )
        if on
    ]
    if len(modes) > 1:
        raise fail(f"{modes[0]} and {modes[1]} cannot be combined")
    if apply_fixes or show_diff:
        code = _fix(
            paths, stdin_filename, options, from_stdin, unsafe=unsafe, show_diff=show_diff, quiet=quiet,
            exit_zero=exit_zero, color=color, output_format=output_format, show_fixes=show_fixes,
            report=report_file, output_file=output_file, fix_only=fix_only, exit_non_zero_on_fix=exit_non_zero_on_fix,
        )  # fmt: skip
        options.timer.total()
        raise click.exceptions.Exit(code)
    if add_noqa and from_stdin:
        raise fail("--add-noqa edits files: it cannot read standard input")
    if statistics and output_format not in ("full", "concise", "grouped", "json"):
        raise fail("--statistics works with --output-format full, concise, grouped or json")
    from mcp_migrate.commands.check import OutputOptions, run_check_command

    output = OutputOptions(
        output_format=output_format,
        output_file=output_file,
        color=color,
        quiet=quiet,
        statistics=statistics,
        exit_zero=exit_zero,
        report=report_file,
    )
    code = run_check_command(
        list(paths) or ["."],
        options,
        output,
        stdin=read_stdin() if from_stdin else None,
        stdin_filename=stdin_filename,
        baseline=baseline,
        write_baseline=write_baseline,
        add_noqa=add_noqa,
    )
    options.timer.total()
    raise click.exceptions.Exit(code)


def _show_files(paths, options) -> int:
    """`--show-files`: the files a run would check, one per line, sorted (as ruff), on standard
    output; on standard error, the run's warnings and each template folder skipped, so the
    list stays one path a line for scripts."""
    from mcp_migrate.run.plan import plan

    p = plan(paths, options)
    for warning in p.warnings:
        click.echo(one_line(f"{PROG}: warning: {warning}"), err=True)
    for folder in p.templates:
        click.echo(one_line(f"{PROG}: skipped (template folder): {folder}  (--include-templates checks it)"), err=True)
    for source, _settings in sorted(p.items, key=lambda item: item[0].display):
        click.echo(one_line(source.display))
    return 0


def _fix(paths, stdin_filename, options, from_stdin: bool, **flags) -> int:
    """`check --fix` / `check --diff` and the `fix` command: one implementation."""
    from mcp_migrate.commands.fix import FixOptions, run_fix_command, run_fix_stdin

    fix_flags = FixOptions(**flags)
    if from_stdin:
        return run_fix_stdin(stdin_filename, options, fix_flags, read_stdin())
    return run_fix_command(list(paths) or ["."], options, fix_flags)


@cli.command()
@check_options
@click.option("--diff", "show_diff", is_flag=True, help="Print a unified diff per changed file; write nothing.")
@unsafe_option
@click.option(
    "--apply-suggestions",
    is_flag=True,
    help="Also apply the suggestions (display-only fixes `check` shows and `fix` otherwise never applies);"
    " implies --unsafe-fixes.",
)
@output_format_option("How remaining findings are shown: " + FORMAT_HELP, envvar=OUTPUT_FORMAT_ENV)
@output_file_option
@show_fixes_option
@severity_option
@report_option
@exit_non_zero_on_fix_option
@fix_only_option
@exit_zero_option
@quiet_option
@verbose_option
@click.option("--no-cache", is_flag=True, help="Neither read nor write the results cache (.mcp_migrate_cache/).")
@stdin_option
@color_option
@guarded
def fix(
    paths, select, extend_select, ignore, config_file, isolated, jobs, strategy, force_exclude, show_diff, unsafe,
    apply_suggestions, output_format, output_file, show_fixes, fail_on, report_file, exit_non_zero_on_fix, exit_zero,
    quiet, no_cache, stdin_filename, no_color, color_when, fix_only, verbose, **overrides,
):  # fmt: skip
    """Apply fixes to PATHs, then report what remains.

    With --diff, print what would change and exit 1 when anything would. With standard input
    (`--stdin-filename PATH -`), print the fixed source and report what remains on stderr.
    With --report FILE.md, write the migration report for the pull request. With
    --apply-suggestions, also apply the suggestions `check` shows."""
    output_format = concise(output_format)
    # A suggestion is less sure than an unsafe fix: taking suggestions takes those too (a
    # suggested removal may rely on the unsafe removal of what refers to it).
    if apply_suggestions:  # (unsafe is None when neither flag is given: the config decides)
        unsafe = True
    options = make_options(
        select, ignore, config_file, jobs, strategy, force_exclude, extend_select, unsafe, fail_on, isolated, overrides
    )
    options.apply_suggestions = apply_suggestions
    options.cache = not no_cache
    options.timings = timings(verbose, quiet)
    code = _fix(
        paths, stdin_filename, options, stdin_mode(paths, stdin_filename), unsafe=unsafe, show_diff=show_diff,
        quiet=quiet, exit_zero=exit_zero, color=color_choice(color_when, no_color), output_format=output_format,
        show_fixes=show_fixes, report=report_file, exit_non_zero_on_fix=exit_non_zero_on_fix, output_file=output_file,
        fix_only=fix_only,
    )  # fmt: skip
    options.timer.total()
    raise click.exceptions.Exit(code)


@cli.command("config")
@check_options
@unsafe_option
@output_format_option("text or json.", choices=("text", "json"), default="text")
@guarded
def config_command(
    paths, select, extend_select, ignore, config_file, isolated, jobs, strategy, force_exclude, unsafe, output_format,
    **overrides,
):  # fmt: skip
    """Print the effective configuration for PATHs and where each value came from
    (default, pyproject, flag)."""
    from mcp_migrate.commands.config import print_config

    options = make_options(
        select,
        ignore,
        config_file,
        jobs,
        strategy,
        force_exclude,
        extend_select,
        isolated=isolated,
        overrides=overrides,
    )
    print_config(list(paths) or ["."], options, unsafe, output_format)


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path())
@config_option
@isolated_option
@quiet_option
@guarded
def clean(paths, config_file, isolated, quiet):
    """Remove the results caches mcp-migrate made for PATHs (default: the current folder), as
    `ruff clean`: the one the configuration names, and every `.mcp_migrate_cache` below PATHs.

    Only a folder that carries mcp-migrate's owner mark for this user is touched; only the
    files the cache wrote are removed, and the folder only when nothing else is left in it."""
    from mcp_migrate.commands.clean import run_clean

    raise click.exceptions.Exit(run_clean(list(paths) or ["."], config_file, isolated, quiet))


@cli.command()
@output_format_option("text or json.", choices=("text", "json"), default="text")
@color_option
@guarded
def rules(output_format, no_color, color_when):
    """List every rule: code, name, fix kind, severity, summary."""
    if output_format == "json":
        click.echo(json.dumps(report.rules_document(load_catalog()), indent=2))
        return
    report.print_rules(load_catalog(), color=color_choice(color_when, no_color))


@cli.command()
@click.argument("rule", metavar="CODE|NAME")
@color_option
@guarded
def explain(rule, no_color, color_when):
    """Show the documentation of a rule, named by its code (RT001) or its name (roots-request).

    Rendered as Markdown on a terminal; the page's Markdown as written when piped."""
    from mcp_migrate.project.config import did_you_mean

    info = find_rule(rule)
    if info is None:
        known = [*load_catalog(), *(i.name for i in load_catalog().values())]
        raise fail(f"unknown rule code or name: {rule}{did_you_mean(rule.strip(), known)}")
    report.print_explain(info, color=color_choice(color_when, no_color))


def main(argv=None) -> None:
    """Console-script entry point."""
    cli.main(args=argv, prog_name=PROG)


if __name__ == "__main__":  # pragma: no cover
    main()
