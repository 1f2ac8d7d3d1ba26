"""The gitignore matcher against git's documented semantics."""

import re
import shutil
import subprocess

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mcp_migrate.project.gitignore import IgnoreStack, PatternSet, compile_pattern, find_git_root


def match(patterns, path, is_dir=False):
    return PatternSet.from_lines("/base", patterns).matches("/base/" + path, is_dir)


@pytest.mark.parametrize(
    "pattern, path, is_dir, expected",
    [
        ("*.py", "a.py", False, True),
        ("*.py", "x/y/a.py", False, True),
        ("*.py", "a.pyc", False, False),
        ("foo", "x/foo", True, True),
        ("foo", "x/foo", False, True),
        ("foo/", "x/foo", True, True),
        ("foo/", "x/foo", False, False),  # dir-only
        ("/foo", "foo", False, True),  # anchored
        ("/foo", "x/foo", False, False),
        ("a/b", "a/b", False, True),  # inner slash anchors
        ("a/b", "x/a/b", False, False),
        ("**/foo", "x/y/foo", False, True),
        ("**/foo", "foo", False, True),
        ("a/**/b", "a/b", False, True),
        ("a/**/b", "a/x/y/b", False, True),
        ("a/**", "a/x/y.py", False, True),
        ("a/**", "a", True, False),
        ("a*b", "axyb", False, True),
        ("a*b", "ax/yb", False, False),  # * does not cross /
        ("a?c", "abc", False, True),
        ("a?c", "a/c", False, False),
        ("[ab].py", "a.py", False, True),
        ("[ab].py", "c.py", False, False),
        ("[!ab].py", "c.py", False, True),
        ("[a-c].py", "b.py", False, True),
        ("\\#x", "#x", False, True),
        ("\\!x", "!x", False, True),
        ("list[str].py", "lists.py", False, True),  # a real character class
        ("foo  ", "foo", False, True),  # trailing spaces dropped
        ("foo\\ ", "foo ", False, True),  # unless escaped
    ],
)
def test_patterns(pattern, path, is_dir, expected):
    assert match([pattern], path, is_dir) is expected


def test_comments_and_blanks_are_not_patterns():
    assert compile_pattern("# comment") is None
    assert compile_pattern("   ") is None
    assert compile_pattern("") is None


def test_negation_last_match_wins():
    patterns = ["*.py", "!keep.py"]
    assert match(patterns, "drop.py")
    assert not match(patterns, "keep.py")
    assert match(patterns + ["keep.py"], "keep.py")


def test_matches_with_parents():
    ps = PatternSet.from_lines("/base", ["tests/"])
    assert ps.matches_with_parents("/base/tests/a/b.py")
    assert not ps.matches_with_parents("/base/src/a.py")


def test_nested_gitignore_overrides_parent(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("*.gen.py\n")
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / ".gitignore").write_text("!keep.gen.py\n")
    top = IgnoreStack.for_root(str(tmp_path))
    inner = top.child(str(sub))
    assert top.ignored(str(tmp_path / "x.gen.py"), False)
    assert inner.ignored(str(sub / "x.gen.py"), False)
    assert not inner.ignored(str(sub / "keep.gen.py"), False)
    assert top.ignored(str(tmp_path / "keep.gen.py"), False)  # the negation is sub/ only


def test_ancestor_gitignore_up_to_git_root_only(tmp_path):
    (tmp_path / ".gitignore").write_text("*.py\n")  # above the repository: not honoured
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".gitignore").write_text("gen/\n")
    src = repo / "src"
    src.mkdir()
    assert find_git_root(str(src)) == str(repo)
    stack = IgnoreStack.for_root(str(src))
    assert stack.ignored(str(src / "gen"), True)
    assert not stack.ignored(str(src / "a.py"), False)


# Plain names and endings are told without a regex; the last match still wins ----------------
def _by_regex(patterns: PatternSet, path: str, is_dir: bool):
    """The verdict as git's rule says it: the last pattern whose regex matches decides."""
    rel = patterns.relative(path)
    for pat in reversed(patterns.patterns):
        if (is_dir or not pat.dir_only) and pat.regex.match(rel):
            return not pat.negated
    return None


def test_plain_names_and_endings_are_sorted_out_of_the_regexes():
    pats = [compile_pattern(line) for line in ("node_modules", "*.log", "dist/", "/build", "a*b", "!keep.log")]
    assert [(p.name, p.suffix) for p in pats] == [
        ("node_modules", None),
        (None, ".log"),
        ("dist", None),
        (None, None),
        (None, None),
        ("keep.log", None),
    ]


LINES = st.sampled_from(
    [
        "foo",
        "bar",
        "foo/",
        "!foo",
        "*.py",
        "!*.py",
        "*",
        "!keep.py",
        "keep.py",
        "/foo",
        "a/foo",
        "**/bar",
        "*.py/",
        "!bar/",
        "b*r",
        "f?o",
        "[fb]oo",
        "\\!foo",
        "a/**",
        "*o",
        "!*o",
        "**",
        "!**",
        "f**",
        "**o",
        "[!b]o",
        "?",
        "fo[/]o",
    ]
)
PARTS = st.sampled_from(["foo", "bar", "a", "keep.py", "x.py", "bo", "!foo", "b", "fo"])


@settings(max_examples=500, deadline=None)
@given(st.lists(LINES, max_size=8), st.lists(PARTS, min_size=1, max_size=4).map("/".join), st.booleans())
def test_the_verdict_is_the_last_matching_patterns(lines, rel, is_dir):
    patterns = PatternSet.from_lines("/base", lines)
    path = "/base/" + rel
    assert patterns.verdict(path, is_dir) == _by_regex(patterns, path, is_dir), (lines, rel, is_dir)


# Brackets as git's wildmatch reads them, held to `git check-ignore` itself --------------------
BRACKETS = ["[z-a]", "b[z-a]c", "[a-c-a]", "[a--]", "[!z-a]x", "[a-c-e]", "[]-a]q", "[\\z-a]", "[a-\\c]", "[z-a-c]"]
NAMES = ["z", "a", "m", "-", "b", "c", "e", "d", "bzc", "bac", "zx", "ax", "]q", "aq", "-q", "\\"]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize("line", BRACKETS)
def test_brackets_match_what_git_check_ignore_says(tmp_path, line):
    """A backwards range (`[z-a]`) is its first character alone in git, and a `-` after a range
    is itself: a `.gitignore` git reads never stops a run (it raised re.error, exit 2)."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text(line + "\n")
    for name in NAMES:
        (tmp_path / name).write_text("")
    said = subprocess.run(
        ["git", "check-ignore", "--no-index", "--", *NAMES], cwd=tmp_path, capture_output=True, text=True
    )
    expected = set(said.stdout.split())
    patterns = PatternSet.from_lines(str(tmp_path), [line])
    assert {name for name in NAMES if patterns.matches(str(tmp_path / name))} == expected


def test_a_config_glob_with_a_backwards_range_is_still_refused():
    with pytest.raises(re.error):
        compile_pattern("[z-a]", strict=True)


@settings(max_examples=500, deadline=None)
@example("[9-0-0]")  # a `-` after a backwards range (raised re.error: bad character range 9-0)
@given(st.text(alphabet=st.sampled_from(list("[]-!^\\az*?/.Z09")), min_size=1, max_size=10))
def test_no_gitignore_line_raises(line):
    """Whatever a `.gitignore` holds, reading it and matching paths against it never stops the
    run (its regexes are compiled when first asked for: a verdict asks for them)."""
    pattern = compile_pattern(line)
    if pattern is not None:
        pattern.regex  # noqa: B018
    patterns = PatternSet.from_lines("/base", [line, "keep/"])
    for is_dir in (False, True):
        patterns.verdict("/base/a/x.py", is_dir)
