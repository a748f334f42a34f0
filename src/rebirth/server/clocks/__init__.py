"""Game clocks on the server: kept here, never trusted from a page (issue 16 item 1)."""
