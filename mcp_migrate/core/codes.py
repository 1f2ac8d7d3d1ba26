"""Codes and exit statuses every layer shares, each said once."""

from __future__ import annotations

#: A file that cannot be decoded or parsed (as in ruff and flake8).
SYNTAX_ERROR_CODE = "E999"
#: A file or folder that cannot be read (as in ruff).
IO_ERROR_CODE = "E902"
#: Codes select/ignore never filter: a file we could not look at is always reported.
UNFILTERED_CODES = (SYNTAX_ERROR_CODE, IO_ERROR_CODE)
#: A suppression comment that matches no finding (ruff's RUF100 in spirit).
UNUSED_SUPPRESSION_CODE = "RT900"

#: Exit statuses of every command: nothing to report, findings (or changes), an error.
EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
#: A run stopped by Ctrl-C (SIGINT): 128 + 2, as shells report it; never 1, the code of findings.
EXIT_INTERRUPTED = 130
#: A `# mcp-migrate: CODE review: ...` marker that `fix` left for a human (scanned from comments).
REVIEW_PENDING_CODE = "RT901"
#: Codes the engine itself produces (from comments, not from a rule class's visit methods).
ENGINE_CODES = (UNUSED_SUPPRESSION_CODE, REVIEW_PENDING_CODE)
