"""The server's HTTP and WebSocket routes, a router per area (docs/protocol.md); each declares its answers."""
