"""Strict offline replay: the public names (the implementation is `openprogram.providers.recording`).

`ReplayProvider(path)` answers every call from a recording and raises `ReplayMismatch` on the first
request that differs from the recorded one (`MismatchReport` is its JSON form);
`find_first_difference` is the walk it uses, which never compares the fields named in
`NON_DETERMINISTIC_FIELD_NAMES`. `ReplayProvider(path, fault=StreamFault(kind="cut", call=1))`
breaks one recorded stream the way a live one breaks (`stream_faults`).

The names load on first use (`openprogram.lazy_names`): a replay that passes never imports the
mismatch report, the check protocol's rows or the stream faults.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openprogram import lazy_names

if TYPE_CHECKING:
    from openprogram.providers.recording.differences import (
        NON_DETERMINISTIC_FIELD_NAMES,
        find_first_difference,
    )
    from openprogram.providers.recording.errors import RecordingFileError
    from openprogram.providers.recording.mismatch import (
        MismatchKind,
        MismatchReport,
        ReplayMismatch,
    )
    from openprogram.providers.recording.replayer import ReplayProvider
    from openprogram.providers.recording.stream_faults import StreamFault

__all__, __getattr__, __dir__ = lazy_names.lazy_facade(__name__)
"""The public names: the imports above, each loaded from its module the first time it is asked for."""
