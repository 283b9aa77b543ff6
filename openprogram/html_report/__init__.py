"""One self-contained HTML page of a recording, a check or a diff: what a CI job uploads.

`show --html`, `check --html` and `diff --html` write it (`openprogram.html_report.page`). The page
needs nothing but itself (no network, fonts, external scripts or styles; a Content-Security-Policy
that forbids them), opens from disk or a CI artifact viewer, and treats every string of the
recording as text: the data goes through the one sanitiser (`visible_text.visible`) and is put on
the page with `textContent` only. Each call's details are built when it is opened, so a big
recording stays usable: the page holds the data, not a DOM of it.
"""
