"""The root of every error OpenProgram raises, so one `except OpenProgramError` catches them all.

Each error keeps the builtin base callers relied on before it had a root (a `ReplayMismatch` is
still an `AssertionError`, so test runners report it as a failure; a `RecordingWriteError` is still
an `OSError`). The tree, with the module that defines each error:

    OpenProgramError
    ├── the provider boundary (openprogram.providers)
    │   ├── UnknownApiError (LookupError) ............ api_registry: no provider for `model.api`
    │   ├── ProviderRuntimeInitializationError (RuntimeError)  runtime: the runtime cannot start
    │   ├── ProviderStreamError ...................... http.transport: a vendor call cannot finish
    │   ├── StreamEndedWithoutResultError (RuntimeError)  stream: no `done` or `error` event came
    │   └── AccumulatorError (ValueError) ............ accumulator: events that do not fold
    ├── recording files (openprogram.providers.recording)
    │   ├── RecordingFileError (ValueError) .......... errors: the strict reader refuses a file
    │   ├── RecordingWriteError (OSError) ............ writer: a row could not be written or synced
    │   ├── NonFiniteNumberError (ValueError) ........ row_encoding: NaN or an infinity in a row to write
    │   ├── RequestReferenceError (ValueError) ....... request_references: a reference not followed
    │   ├── RecordingSelectorError (ValueError) ...... store: an unusable recording ID or path
    │   ├── ConfigError (ValueError) ................. state_files: an unreadable configuration
    │   │   └── UnsafeDirectoryError ................. state_files: a symlinked or foreign directory
    │   ├── RunSpecError (ValueError) ................ check_protocol: a child run spec not honoured
    │   ├── FieldPatternError (ValueError) ........... field_patterns: an unreadable field pattern
    │   ├── RuleExpressionError (ValueError) ......... rule_expressions: RE2 refuses an expression
    │   └── RulesConfigError (ValueError) ............ rules: matching rules that cannot be used
    ├── replay (openprogram.providers.recording)
    │   ├── ReplayMismatch (AssertionError) .......... mismatch: the run diverged from the recording
    │   ├── RecordedCallError (RuntimeError) ......... replayer: the recorded call itself failed
    │   ├── StreamFaultError (ValueError) ............ stream_faults: a fault the recording cannot have
    │   ├── RecordReplayBlockedError (RuntimeError) .. activation: configured but cannot start
    │   └── ActivationError .......................... activation: why (becomes the blocked cause)
    ├── management and tools
    │   ├── RecordingRemovalError (RuntimeError) ..... recordings.removal: refused or failed delete
    │   ├── CheckUsageError (ValueError) ............. recordings.check: a check that cannot start
    │   ├── RuleEditError (ValueError) ............... recordings.rule_edits: a rule not written
    │   ├── RewriteRefused (RuntimeError) ............ recordings.versions: accept/rerecord wrote no version
    │   ├── VersionError (ValueError) ................ recordings.versions: no such kept version
    │   ├── UnusedListMissing (FileNotFoundError) .... recordings.unused_removal: no pytest list here
    │   ├── MigrationError (ValueError) .............. recordings.migrate: a file that cannot be migrated
    │   ├── TraceImportError (ValueError) ............ recordings.otlp_import: a trace not imported
    │   ├── TraceContentError (ValueError) ........... recordings.otlp_mapping: a span's value unread
    │   ├── CommandNotStarted ........................ recordings.oneshot: `record --` could not start it
    │   ├── AgentTurnLimitError (RuntimeError) ....... agent.loop: the loop did not stop in time
    │   ├── AgentAnswerBrokeError (RuntimeError) ..... agent.loop: a model answer whose stream broke
    │   ├── RecordingUnavailable ..................... testing.session: no recording for a test
    │   └── UsageRefused ............................. cli.output: bad usage or a refused prompt
"""

from __future__ import annotations


class OpenProgramError(Exception):
    """Any error raised by OpenProgram (see the tree in this module's docstring)."""
