"""The ``rebirth`` command line."""
