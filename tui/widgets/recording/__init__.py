"""Widgets of the recording view: the call list, the call's tabs (request, transcript, events), find and go-to."""
