"""What every request passes (limits, caps, the security guard) and where the server can be reached."""
