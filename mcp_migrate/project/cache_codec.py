"""A results-cache table as bytes and back: signed JSON lines, data only, every field checked.

A table file is one header line, `mcp-migrate-cache <schema> <mac>`, then one line per file,
sorted: the file's display path as a JSON string, a tab, and its entry as a JSON object
`{"digest": hex, "stat": [5 ints] | null, "result": {...}}` (or `"empty": previewed` for a
result with nothing to say). JSON escapes tabs and line ends inside strings, so neither splits
a line. The MAC (cache_key.sign) covers the table's name and every line, so nothing is parsed
before it is known to be this user's own. A line per file lets a warm run read only the entry
it looks up (project.cache_table): a table decoded at once held about 2 KB a file (issue 37:
16 copies of a 1,151-file tree peaked at 95 MiB against 26 MiB for one). An entry that fails
any field check is a miss for its file; `decode_table`, which decodes a whole table (the
tests read tables with it; a save merges undecoded lines), says None for the table. Nothing here can run code: the standard `json`
module builds only dicts, lists, strings and numbers.
"""

from __future__ import annotations

import base64
import json

from mcp_migrate.core.catalog import SEVERITIES
from mcp_migrate.core.coordination import ClientCall, KeptPlumbing, MigratedTool
from mcp_migrate.core.findings import FIX_KINDS, FileResult, Finding, HelperSite, Related, Suppressed, Via
from mcp_migrate.core.record import replace
from mcp_migrate.project.cache_key import sign, signer, verify

#: Bumped whenever the layout below changes: a table of another schema is a miss.
SCHEMA = 10
MAGIC = b"mcp-migrate-cache"
SUPPRESSION_KINDS = ("noqa", "ignore", "lint-fixme")
_FINDING_INTS = ("line", "column", "end_line", "end_column")
_FINDING_STRS = ("path", "code", "name", "message", "help")
_FINDING_FIELDS = frozenset(_FINDING_INTS + _FINDING_STRS + ("severity", "fix"))
#: A finding's optional fields (core.callers): its related locations, and a caller's Via.
_FINDING_EXTRAS = frozenset(("related", "via"))


class Malformed(ValueError):
    """A field of a table that is not what this schema writes."""


def path_key(path: str) -> bytes:
    """How a line of a table starts: the display path as a JSON string (ASCII, no tab)."""
    return json.dumps(path, ensure_ascii=True).encode("ascii")


def entry_line(path: str, digest: str, stat, result: FileResult) -> bytes:
    """One file's line: its path key, a tab, its entry as JSON, a line end."""
    entry = {"digest": digest, "stat": list(stat) if stat else None, **_stored(result)}
    text = json.dumps(entry, ensure_ascii=True, separators=(",", ":")).encode("ascii")
    return b"%s\t%s\n" % (path_key(path), text)


def line_path(line: bytes) -> bytes:
    """The path key a table line starts with."""
    return line[: line.find(b"\t")]


def encode_lines(key: bytes, name: str, lines) -> bytes:
    """The bytes of a table named `name` holding these entry lines (sorted here)."""
    body = b"".join(sorted(lines))
    return header(key, name, body) + body


def encode_table(key: bytes, name: str, entries: dict) -> bytes:
    """The bytes of a table named `name` holding `entries` (path -> (digest, stat, FileResult))."""
    return encode_lines(key, name, [entry_line(path, *entry) for path, entry in entries.items()])


def header(key: bytes, name: str, body: bytes) -> bytes:
    """The header line of table `name` whose lines are `body`: the magic, the schema, the MAC."""
    return b"%s %d %s\n" % (MAGIC, SCHEMA, sign(key, _signed(name, body)).encode("ascii"))


def header_mac(line: bytes) -> str | None:
    """The MAC a table's header line holds, or None when it is not this schema's header."""
    parts = line.rstrip(b"\n").split(b" ")
    if len(parts) != 3 or parts[0] != MAGIC or parts[1] != str(SCHEMA).encode() or not line.endswith(b"\n"):
        return None
    try:
        return parts[2].decode("ascii")
    except UnicodeDecodeError:
        return None


def table_signer(key: bytes, name: str):
    """The MAC of a table named `name`, to be fed its lines one by one (`update`): what
    `header` signs, for a reader that never holds the whole body."""
    return signer(key, _signed(name, b""))


def table_lines(key: bytes, name: str, data: bytes) -> list | None:
    """The entry lines (each with its line end) of a table written with this key and name, or
    None when it is not one: its header, its MAC, a line without a path and a tab."""
    first, _, body = data.partition(b"\n")
    mac = header_mac(first + b"\n")
    if mac is None or not verify(key, _signed(name, body), mac):
        return None
    if body and not body.endswith(b"\n"):
        return None
    lines = [line + b"\n" for line in body.split(b"\n")[:-1]]  # (only "\n" ends a line, as a reader reads)
    return None if any(b"\t" not in line for line in lines) else lines


def decode_table(key: bytes, name: str, data: bytes) -> dict | None:
    """`entries` of a table written by encode_table with this key and name, or None (any
    malformed entry, or a path on two lines, makes the whole table None)."""
    lines = table_lines(key, name, data)
    if lines is None:
        return None
    out: dict = {}
    try:
        for line in lines:
            path = json.loads(line_path(line).decode("ascii"))
            if type(path) is not str or path in out:
                return None
            out[path] = decode_entry(path, line[line.find(b"\t") + 1 : -1])
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return out


def decode_entry(path: str, text: bytes) -> tuple:
    """(digest, stat, FileResult) of one line's entry JSON; raises ValueError (Malformed, a
    JSON error) or RecursionError when it is not what this schema writes."""
    entry = _of(json.loads(text.decode("ascii")), dict)
    digest = _of(entry.get("digest"), str)
    stat = entry.get("stat")
    if stat is not None:
        stat = tuple(_int(v) for v in _of(stat, list))
        if len(stat) != 5:
            raise Malformed("stat")
    if "empty" in entry:  # `_stored`: nothing to say, previewed or not
        if "result" in entry:
            raise Malformed("entry")
        return digest, stat, FileResult(path, previewed=_of(entry["empty"], bool))
    return digest, stat, _file_result(path, _of(entry.get("result"), dict))


def _signed(name: str, body: bytes) -> bytes:
    return name.encode("utf-8", "surrogateescape") + b"\n" + body


# --------------------------------------------------------------------------- writing


def _finding_json(finding: Finding) -> dict:
    """A finding as JSON, with the Via of a caller's finding (never reported, but joined on
    every run: core.callers)."""
    raw = finding.to_json()
    if finding.via is not None:
        raw["via"] = list(finding.via)
    return raw


def _result(result: FileResult) -> dict:
    return {
        "findings": [_finding_json(f) for f in result.findings],
        "suppressed": [[_finding_json(f), kind, reason] for f, kind, reason in result.suppressed],
        "notes": {
            "tools": [[t.tool, t.parameter, t.optional, t.single] for t in result.notes.tools],
            "still_asks": result.notes.still_asks,
            "suggested_tools": [[t.tool, t.parameter, t.optional, t.single] for t in result.notes.suggested_tools],
            "asks_past_suggestions": result.notes.asks_past_suggestions,
            "env_vars": list(result.notes.env_vars),
            "client_calls": [[c.target, c.passes, c.kind] for c in result.notes.client_calls],
            "kept": [[k.kind, k.name, k.owner] for k in result.notes.kept],
            "keeps_roots": result.notes.keeps_roots,
            "warned_names": list(result.notes.warned_names),
            "private_removals": list(result.notes.private_removals),
            "called_tools": list(result.notes.called_tools),
            "served_tools": list(result.notes.served_tools),
        },
        "fix_previews": [
            [code, unsafe, base64.b64encode(data).decode("ascii")]
            for (code, unsafe), data in result.fix_previews.items()
            if data is not None
        ],
        "finding_fixes": [
            [code, line, column, unsafe, hunks] for (code, line, column, unsafe), hunks in result.finding_fixes.items()
        ],
        "previewed": result.previewed,
        "depends": [list(entry) for entry in result.depends],
        "helpers": [list(site) for site in result.helpers],
        "plan_asked": None if result.plan_asked is None else [_as_lists(item) for item in result.plan_asked],
    }


def _as_lists(value):
    """A plan question with its arguments and answer (core.coordination.plain), tuples as lists."""
    return [_as_lists(item) for item in value] if isinstance(value, tuple) else value


def _stored(result: FileResult) -> dict:
    """An entry's result: `{"result": ...}`, or `{"empty": previewed}` for a result with nothing
    to say (most of a tree's files), which a warm run of a large tree reads without building
    its twenty-odd empty containers (16 copies of a 1,151-file tree: 11.7 MB of table)."""
    raw = _result(result)
    empty = {**raw, "previewed": False, "plan_asked": None} == _EMPTY_RESULT  # (nothing to check again)
    return {"empty": raw["previewed"]} if empty else {"result": raw}


# --------------------------------------------------------------------------- reading

#: The entry of a file with nothing to say, as the JSON decoder gives it back.
_EMPTY_RESULT = _result(FileResult(""))


def _file_result(path: str, raw: dict) -> FileResult:
    """The FileResult of one entry. Most of a tree's files hold no finding and store the same
    empty result: one comparison decodes those (a warm run of 1,993 files, 1,828 of them empty)."""
    if raw == _EMPTY_RESULT and raw["previewed"] is False and raw["notes"]["still_asks"] is False:
        return FileResult(path)  # `is False`: 0 equals False, and the field check refuses it
    return _checked_result(path, raw)


def _migrated_tool(item) -> MigratedTool:
    item = _of(item, list)
    if len(item) != 4:
        raise Malformed("migrated tool")
    tool, parameter, optional, single = item
    return MigratedTool(_of(tool, str), _of(parameter, str), _of(optional, bool), _of(single, bool))


def _checked_result(path: str, raw: dict) -> FileResult:
    result = FileResult(path)
    result.findings = [_finding(path, item) for item in _of(raw.get("findings"), list)]
    for item in _of(raw.get("suppressed"), list):
        finding, kind, reason = _triple(item)
        if kind not in SUPPRESSION_KINDS:
            raise Malformed("suppression kind")
        result.suppressed.append(Suppressed(_finding(path, finding), kind, _of(reason, str)))
    notes = _of(raw.get("notes"), dict)
    result.notes.tools = [_migrated_tool(item) for item in _of(notes.get("tools"), list)]
    result.notes.suggested_tools = [_migrated_tool(item) for item in _of(notes.get("suggested_tools", []), list)]
    result.notes.still_asks = _of(notes.get("still_asks"), bool)
    result.notes.asks_past_suggestions = _of(notes.get("asks_past_suggestions", False), bool)
    result.notes.keeps_roots = _of(notes.get("keeps_roots", False), bool)
    result.notes.warned_names = [n for n in _of(notes.get("warned_names", []), list) if isinstance(n, str)]
    result.notes.private_removals = [_of(name, str) for name in _of(notes.get("private_removals", []), list)]
    result.notes.called_tools = [_of(name, str) for name in _of(notes.get("called_tools", []), list)]
    result.notes.served_tools = [_of(name, str) for name in _of(notes.get("served_tools", []), list)]
    result.notes.env_vars = [_of(name, str) for name in _of(notes.get("env_vars"), list)]
    for item in _of(notes.get("client_calls"), list):
        target, passes, kind = _triple(item)
        result.notes.client_calls.append(ClientCall(_of(target, str), _of(passes, str), _of(kind, str)))
    for item in _of(notes.get("kept"), list):
        kind, name, owner = _triple(item)
        result.notes.kept.append(KeptPlumbing(_of(kind, str), _of(name, str), _of(owner, str)))
    for item in _of(raw.get("fix_previews"), list):
        code, unsafe, data = _triple(item)
        result.fix_previews[(_of(code, str), _of(unsafe, bool))] = base64.b64decode(_of(data, str), validate=True)
    for item in _of(raw.get("finding_fixes"), list):
        if not isinstance(item, list) or len(item) != 5:
            raise Malformed("finding fix")
        code, line, column, unsafe, hunks = item
        key = (_of(code, str), _int(line), _int(column), _of(unsafe, bool))
        result.finding_fixes[key] = [_hunk(hunk) for hunk in _of(hunks, list)]
    result.previewed = _of(raw.get("previewed"), bool)
    depends = []
    for item in _of(raw.get("depends", []), list):
        if not isinstance(item, list) or len(item) != 3:
            raise Malformed("dependency")
        depends.append((_of(item[0], str), _int(item[1]), _int(item[2])))
    result.depends = tuple(depends)
    helpers = []
    for item in _of(raw.get("helpers"), list):
        if not isinstance(item, list) or len(item) != 5:
            raise Malformed("helper")
        code, owner, name, line, column = item
        helpers.append(HelperSite(_of(code, str), _optional_str(owner), _of(name, str), _int(line), _int(column)))
    result.helpers = tuple(helpers)
    asked = raw.get("plan_asked")
    if asked is not None:
        result.plan_asked = tuple(_plan_question(item) for item in _of(asked, list))
    return result


def _plan_question(raw) -> tuple:
    """(question, arguments, answer) of core.coordination.AskedPlan: names and plain data."""
    name, args, answer = _triple(raw)
    return _of(name, str), tuple(_of(arg, str) for arg in _of(args, list)), _plain(answer)


def _plain(value):
    """Plain data (core.coordination.plain): strings, booleans, None and tuples of them."""
    if value is None or type(value) in (str, bool):
        return value
    return tuple(_plain(item) for item in _of(value, list))


def _optional_str(value) -> str | None:
    return None if value is None else _of(value, str)


def _hunk(raw) -> list:
    """[first, last, removed lines, added lines] of one diff hunk."""
    if not isinstance(raw, list) or len(raw) != 4:
        raise Malformed("hunk")
    first, last, removed, added = raw
    lines = [_of(text, str) for text in _of(removed, list)], [_of(text, str) for text in _of(added, list)]
    return [_int(first), _int(last), *lines]


def _finding(path: str, raw) -> Finding:
    """One finding, every field checked (a warm run reads thousands: the checks are unrolled)."""
    if type(raw) is not dict:
        raise Malformed("finding fields")
    if raw.keys() != _FINDING_FIELDS:
        return _finding_with_extras(path, raw)
    line, column, end_line, end_column = raw["line"], raw["column"], raw["end_line"], raw["end_column"]
    code, name, message, help_ = raw["code"], raw["name"], raw["message"], raw["help"]
    if not type(line) is type(column) is type(end_line) is type(end_column) is int:  # bool is not a position
        raise Malformed("int")
    if not type(code) is type(name) is type(message) is type(help_) is type(raw["path"]) is str:
        raise Malformed("str")
    if raw["path"] != path or raw["severity"] not in SEVERITIES or raw["fix"] not in FIX_KINDS:
        raise Malformed("finding")
    if min(line, column, end_line, end_column) < 0:
        raise Malformed("position")
    return Finding(path, line, column, end_line, end_column, code, name, message, raw["severity"], raw["fix"], help_)


def _finding_with_extras(path: str, raw: dict) -> Finding:
    """A finding with related locations or a caller's Via (core.callers), each checked."""
    extras = raw.keys() - _FINDING_FIELDS
    if not extras or not extras <= _FINDING_EXTRAS or not _FINDING_FIELDS <= raw.keys():
        raise Malformed("finding fields")
    finding = _finding(path, {key: raw[key] for key in _FINDING_FIELDS})
    related = []
    for item in _of(raw.get("related", []), list):
        if type(item) is not dict or item.keys() != {"path", "line", "column", "message"}:
            raise Malformed("related")
        related.append(
            Related(_of(item["path"], str), _int(item["line"]), _int(item["column"]), _of(item["message"], str))
        )
    via = raw.get("via")
    if via is not None:
        if not isinstance(via, list) or len(via) != 4:
            raise Malformed("via")
        via = Via(_of(via[0], str), _of(via[1], str), _optional_str(via[2]), _of(via[3], str))
    return replace(finding, related=tuple(related), via=via)


def _triple(raw) -> list:
    if not isinstance(raw, list) or len(raw) != 3:
        raise Malformed("triple")
    return raw


def _int(value) -> int:
    if type(value) is not int:  # bool is an int subclass: not a position
        raise Malformed("int")
    return value


def _of(value, kind):
    if type(value) is not kind:
        raise Malformed(kind.__name__)
    return value
