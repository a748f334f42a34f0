"""The browser game's server: FastAPI app, lobby REST, game WebSocket, persistence (docs/server.md)."""
