"""Every rule's VALID examples stay silent and every INVALID example fires (as in Fixit 2)."""

import pytest

from mcp_migrate.api import check_source, fix_source
from mcp_migrate.rules import all_rules

CASES = [
    pytest.param(rule, example, kind, id=f"{rule.CODE}-{kind}-{i}")
    for rule in all_rules()
    for kind, examples in (("valid", rule.VALID), ("invalid", rule.INVALID))
    for i, example in enumerate(examples)
]


@pytest.mark.parametrize("rule,example,kind", CASES)
def test_example(rule, example, kind):
    codes = [f.code for f in check_source(example.code)]
    if kind == "valid":
        assert rule.CODE not in codes, example.reason
    else:
        assert rule.CODE in codes, example.reason


FIXED = [
    pytest.param(rule, example, id=f"{rule.CODE}-fixed-{i}")
    for rule in all_rules()
    for i, example in enumerate(rule.INVALID)
    if example.fixed is not None
]


@pytest.mark.parametrize("rule,example", FIXED)
def test_invalid_example_fixes_to_its_fixed_source(rule, example):
    assert fix_source(example.code, unsafe=True) == example.fixed, example.reason
    assert fix_source(example.fixed, unsafe=True) == example.fixed, "fixing the fixed source changes nothing"


def test_some_examples_carry_their_fixed_source():
    assert len(FIXED) >= 3


def test_every_rule_has_examples_with_reasons():
    for rule in all_rules():
        assert rule.VALID and rule.INVALID, rule.CODE
        for example in rule.VALID + rule.INVALID:
            assert example.reason.strip(), (rule.CODE, example.code)
