"""From a mismatch to a rule: ignore the field (`i`) or normalise its values (`z`), then save it.

The dialog is prefilled from the offers of `request_comparison` (exact path or every index as
`[*]`; the presets that fit, else an expression built from the differing substrings) and says, as
the user edits, the rules it will save and whether replay would then absorb this difference
together with the rules already in force. It saves to the recording's header or to the project's
`pyproject.toml`; the check screen writes them and runs again: `z` then `enter` from the mismatch
to the next run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from pydantic import ValidationError
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, Label, RadioButton, RadioSet, Static

from openprogram.providers.recording.differences import FieldDifference
from openprogram.providers.recording.rules import (
    NO_RULES,
    PRESETS,
    IgnoreRule,
    MatchingRules,
    NormalizeRule,
    RulesConfigError,
)
from tui.model.request_comparison import (
    RuleKind,
    RuleScope,
    absorbs,
    build_rules,
    offer,
    preset_names,
)
from tui.model.state_dir import display_path
from tui.screens.dialog import DialogScreen
from tui.theme import rich_style

TITLES: dict[RuleKind, str] = {
    "ignore": "Ignore this field in every comparison",
    "normalize": "Normalise this field before comparing",
}
PATTERN_HELP = f"a regular expression, or presets (comma-separated): {', '.join(PRESETS)}"


@dataclass(frozen=True)
class RuleChoice:
    """The rules to save (one per preset) and where: the recording's header or the project's
    `pyproject.toml`."""

    rules: tuple[IgnoreRule | NormalizeRule, ...]
    scope: RuleScope

    def describe(self) -> str:
        """`normalize context.system_prompt uuid`, `normalize … iso-datetime` joined by `; `."""
        return "; ".join(rule.describe() for rule in self.rules)


class RuleEditorScreen(DialogScreen[RuleChoice | None]):
    """Choose the path, (to normalise) the pattern and replacement, and the scope; enter saves."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="rule-editor.cancel"),
        Binding("enter,ctrl+s", "save", "Save", priority=True, id="rule-editor.save"),
        Binding("ctrl+t", "toggle_scope", "Recording/project", id="rule-editor.scope"),
    ]
    DEFAULT_CSS = """
    RuleEditorScreen {
        & > Vertical { padding: 0 1; }
        & RadioSet, & RadioSet:focus {
            width: 1fr; height: auto; border: none; padding: 0; background: $panel;
        }
        & .rule-editor--row { height: auto; margin: 0 0 1 0; }
        & .rule-editor--label { width: 9; padding: 0 1 0 0; color: $text-muted; }
        & Input { width: 1fr; }
        & #rule-replace-row.-preset { display: none; }
        & .rule-editor--note { color: $text-muted; }
        & #rule-preview { margin: 1 0 0 0; }
    }
    """

    def __init__(
        self,
        kind: RuleKind,
        difference: FieldDifference,
        recording: Path,
        project_file: Path,
        in_force: MatchingRules = NO_RULES,
    ) -> None:
        super().__init__()
        self.kind = kind
        self.difference = difference
        self.in_force = in_force
        """The rules already in force for this recording: the preview judges the new ones with them."""
        self.offer = offer(kind, difference, in_force)
        self.recording = recording
        self.project_file = project_file
        self.rules: tuple[IgnoreRule | NormalizeRule, ...] = ()
        """The rules as the dialog stands (empty while what is typed cannot be used)."""

    def compose(self) -> ComposeResult:
        with Vertical() as dialog:
            dialog.border_title = TITLES[self.kind]
            with Horizontal(classes="rule-editor--row"):
                yield Label("Field", classes="rule-editor--label")
                with RadioSet(id="rule-path"):
                    for number, path in enumerate(self.offer.paths):
                        yield RadioButton(path, value=number == 0)
            if self.kind == "normalize":
                with Horizontal(classes="rule-editor--row"):
                    yield Label("Pattern", classes="rule-editor--label")
                    yield Input(
                        self.offer.pattern,
                        placeholder=PATTERN_HELP,
                        select_on_focus=False,
                        compact=True,
                        id="rule-pattern",
                    )
                with Horizontal(classes="rule-editor--row", id="rule-replace-row"):
                    yield Label("Replace", classes="rule-editor--label")
                    yield Input(
                        self.offer.replace, select_on_focus=False, compact=True, id="rule-replace"
                    )
            with Horizontal(classes="rule-editor--row"):
                yield Label("Save to", classes="rule-editor--label")
                with RadioSet(id="rule-scope"):
                    yield RadioButton(f"this recording's header ({self.recording.name})", True)
                    yield RadioButton(f"the project: {display_path(self.project_file)}")
            yield Static(id="rule-preview")
            yield Static(
                Text(
                    "enter saves and runs again · ctrl+t recording/project · tab moves · "
                    "↑↓ space pick · esc cancels"
                ),
                classes="rule-editor--note",
            )

    def on_mount(self) -> None:
        focus = "#rule-pattern" if self.kind == "normalize" else "#rule-path"
        self.query_one(focus).focus()
        self._update()

    # -- the rule as it stands --

    def _choice(self, radio_id: str) -> int:
        return max(self.query_one(radio_id, RadioSet).pressed_index, 0)

    def _build(self) -> tuple[IgnoreRule | NormalizeRule, ...]:
        path = self.offer.paths[self._choice("#rule-path")]
        if self.kind == "ignore":
            return build_rules("ignore", path)
        pattern = self.query_one("#rule-pattern", Input).value.strip()
        if not pattern and self.offer.why_empty:
            raise ValueError(self.offer.why_empty)
        replace = self.query_one("#rule-replace", Input).value
        return build_rules("normalize", path, pattern, replace)

    def _style(self, style: str) -> str:
        return rich_style(self.app.theme_variables, style)

    def _update(self) -> None:
        preview = self.query_one("#rule-preview", Static)
        if self.kind == "normalize":
            pattern = self.query_one("#rule-pattern", Input).value.strip()
            presets = preset_names(pattern) is not None
            self.query_one("#rule-replace-row").set_class(presets, "-preset")
        try:
            self.rules = self._build()
        except (RulesConfigError, ValidationError, ValueError) as exc:
            self.rules = ()
            reason = exc.reason if isinstance(exc, RulesConfigError) else str(exc).splitlines()[0]
            preview.update(Text(f"✗ {reason}", style=self._style("bold $text-error")))
            return
        text = Text()
        text.append("Rules  " if len(self.rules) > 1 else "Rule  ", "dim")
        text.append("; ".join(rule.describe() for rule in self.rules), "bold")
        if self._choice("#rule-scope") == 1:
            text.append(f"\nGoes into {display_path(self.project_file)}", "dim")
        else:
            text.append(f"\nGoes into the header of {self.recording.name}", "dim")
        if absorbs(self.rules, self.difference, self.in_force):
            text.append("\n✓ replay will not count this difference", self._style("$text-success"))
        else:
            text.append(
                "\n⚠ this rule would not absorb this difference", self._style("$text-warning")
            )
        preview.update(text)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._update()

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        event.stop()
        self._update()

    # -- actions --

    def action_save(self) -> None:
        if not self.rules:
            self.notify("Fix the rule first: the line in red says what is wrong.", severity="error")
            return
        scope: RuleScope = "project" if self._choice("#rule-scope") == 1 else "recording"
        self.dismiss(RuleChoice(self.rules, scope))

    def action_toggle_scope(self) -> None:
        scope = self.query_one("#rule-scope", RadioSet)
        buttons = list(scope.query(RadioButton))
        buttons[1 - self._choice("#rule-scope")].value = True

    def action_cancel(self) -> None:
        self.dismiss(None)
