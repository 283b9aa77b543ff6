"""Keep Python's cyclic garbage collector out of the frames that must be quick.

A full collection walks every object alive. Once the call detail and the library's models are
loaded that is about 100k objects, 80–110 ms on the 2-core machine, and a jump allocates enough
to start one while it is drawn. Two remedies, both invisible to users:

- `freeze_startup_objects`: what is alive once a recording is shown lives as long as the app, so
  later collections skip it (`gc.freeze`); `release` undoes that when the app exits.
- `pause`: no collection at all until the frame being prepared is drawn.
"""

from __future__ import annotations

import gc

_frozen = False
_paused = False


def freeze_startup_objects() -> None:
    """Leave every object alive now out of later collections (once, until `release`)."""
    global _frozen
    if not _frozen:
        _frozen = True
        gc.freeze()


def pause() -> None:
    """Stop collecting until `resume` (only if collection is on: others may pause it too)."""
    global _paused
    if not _paused and gc.isenabled():
        _paused = True
        gc.disable()


def resume() -> None:
    """Undo `pause` (safe to call more than once)."""
    global _paused
    if _paused:
        _paused = False
        gc.enable()


def release() -> None:
    """Resume collecting and put the frozen objects back under the collector."""
    global _frozen
    resume()
    if _frozen:
        _frozen = False
        gc.unfreeze()
