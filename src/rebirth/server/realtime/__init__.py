"""The live side: WebSocket frames and the Redis broker between workers (docs/server.md)."""
