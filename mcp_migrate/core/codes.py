"""Codes and exit statuses every layer shares, each said once."""

from __future__ import annotations

from typing import NamedTuple


class FileCode(NamedTuple):
    """One of the engine's own file-level codes: its code, kebab-case name and summary."""

    code: str
    name: str
    summary: str


#: A file that cannot be decoded or parsed (as in ruff and flake8).
SYNTAX_ERROR_CODE = "E999"
#: A file or folder that cannot be read (as in ruff).
IO_ERROR_CODE = "E902"
#: A file the parser cannot handle although Python may: nested too deeply for it (beyond
#: CPython's own 200 brackets, or a chain of thousands of operators), its process crashed on
#: it, or valid syntax its grammar lacks. The file is not analysed; the run goes on.
PARSER_LIMIT_CODE = "E998"
#: A file over `max-file-size` bytes, or over one token per 4 of them (core.limits.size_problem):
#: not analysed (parsing is linear but heavy: about 0.3 GB of memory and 10 s per MB of source).
FILE_TOO_LARGE_CODE = "E997"
#: An internal error as the public API reports it (check_source's findings): not a rule finding.
INTERNAL_ERROR_CODE = "E900"
#: Codes select/ignore never filter: a file we could not look at is always reported.
UNFILTERED_CODES = (SYNTAX_ERROR_CODE, IO_ERROR_CODE, PARSER_LIMIT_CODE, FILE_TOO_LARGE_CODE, INTERNAL_ERROR_CODE)
#: The engine's own file-level codes, outside the rule catalog (like ruff's E902/E999): code,
#: name, summary. Reporters that list rules (SARIF) list these too.
FILE_CODES = (
    FileCode(SYNTAX_ERROR_CODE, "syntax-error", "The file cannot be decoded or parsed"),
    FileCode(IO_ERROR_CODE, "io-error", "The file or folder cannot be read"),
    FileCode(
        PARSER_LIMIT_CODE, "parser-limit", "The parser cannot handle the file (nesting too deep, or syntax it lacks)"
    ),
    FileCode(
        FILE_TOO_LARGE_CODE, "file-too-large", "The file exceeds `max-file-size` (bytes, or tokens at one per 4 bytes)"
    ),
    FileCode(INTERNAL_ERROR_CODE, "internal-error", "An internal error stopped the analysis or fix of the file"),
)
#: `max-file-size` when the config does not say: 4 MiB, three times the largest real module
#: we know of (a generated 1.26 MB test module with 1,889 findings, analysed in 13 s).
DEFAULT_MAX_FILE_SIZE = 4 * 1024 * 1024
#: A suppression comment that matches no finding (ruff's RUF100 in spirit).
UNUSED_SUPPRESSION_CODE = "RT900"

#: Exit statuses of every command: nothing to report, findings (or changes), an error.
EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
#: A run stopped by Ctrl-C (SIGINT): 128 + 2, as shells report it; never 1, the code of findings.
EXIT_INTERRUPTED = 130
#: A `# mcp-migrate: CODE review: ...` marker that `fix` left for a human (scanned from comments).
REVIEW_PENDING_CODE = "RT901"
#: The bytes every review marker (RT901) holds.
REVIEW_TOKEN = b"mcp-migrate:"
#: Codes the engine itself produces (from comments, not from a rule class's visit methods).
ENGINE_CODES = (UNUSED_SUPPRESSION_CODE, REVIEW_PENDING_CODE)
