"""Two requests side by side: the mismatch view (path bar, two JSON panes, a string diff) that the check view and the diff view both show."""
