"""What `z` offers for a difference: presets that hold on the next run (several when a string holds
several values that change by themselves), never an expression spelling out the values seen; and
the preview judges a rule together with the rules already in force."""

from __future__ import annotations

from openprogram.providers.recording.differences import FieldDifference
from openprogram.providers.recording.rules import MatchingRules, NormalizeRule
from tui.model.request_comparison import NO_PATTERN, absorbs, build_rules, offer

PROMPT = ("context", "system_prompt")


def session(uuid: str, day: str) -> str:
    return f"Session {uuid} on {day}. Answer briefly."


RECORDED = session("f9cf2c1e-0b7a-4d8e-9a55-3c2e1f0d9b8a", "2026-12-03")
INCOMING = session("62276b0d-5f0a-4a4e-8b6c-7d8e9f0a1b2c", "2026-12-04")


def test_z_offers_every_preset_the_string_needs_and_the_offer_absorbs_it() -> None:
    difference = FieldDifference(PROMPT, RECORDED, INCOMING, "changed")
    made = offer("normalize", difference)
    assert made.pattern == "iso-datetime, uuid"
    rules = build_rules("normalize", made.paths[0], made.pattern, made.replace)
    assert [rule.describe() for rule in rules] == [
        "normalize context.system_prompt iso-datetime",
        "normalize context.system_prompt uuid",
    ]
    assert absorbs(rules, difference)


def test_the_preview_counts_the_rules_already_in_force() -> None:
    difference = FieldDifference(PROMPT, RECORDED, INCOMING, "changed")
    uuid_saved = MatchingRules(
        normalize=(NormalizeRule(path="context.system_prompt", preset="uuid"),)
    )
    date_only = build_rules("normalize", "context.system_prompt", "iso-datetime")
    assert not absorbs(date_only, difference)  # alone it would not
    assert absorbs(date_only, difference, uuid_saved)  # with the saved uuid rule it does
    assert offer("normalize", difference, uuid_saved).pattern == "iso-datetime"


def test_no_rule_that_spells_out_the_values_seen_is_offered() -> None:
    # Two unrelated words with punctuation: no class covers both, so an expression would only be
    # an alternation of the two literals, which the next run would not match.
    difference = FieldDifference(PROMPT, "Mode: fast-ish!", "Mode: slow, sure?", "changed")
    made = offer("normalize", difference)
    assert made.pattern == ""
    assert made.why_empty == NO_PATTERN


def test_differing_digits_are_offered_as_a_class_not_the_numbers() -> None:
    difference = FieldDifference(PROMPT, "run 41 done", "run 42 done", "changed")
    made = offer("normalize", difference)
    assert (made.pattern, made.replace) == (r"(run )\d+", r"\1<changed>")
    rules = build_rules("normalize", made.paths[0], made.pattern, made.replace)
    assert absorbs(rules, difference)
    assert "41" not in made.pattern and "42" not in made.pattern
