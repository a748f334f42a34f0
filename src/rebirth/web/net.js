// The game socket: hello with the last version seen, reconnect with exponential backoff and
// jitter, keep-alive pings. Messages go to `onMessage`; connection changes to `onStatus`.

export class GameSocket {
  constructor(gameId, token, { onMessage, onStatus, getVersion, onOpen }) {
    this.url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/games/${encodeURIComponent(gameId)}`;
    this.token = token;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.getVersion = getVersion;
    this.onOpen = onOpen;  // after each hello: what the page tells a new connection (its visibility)
    this.attempt = 0;
    this.reconnects = 0;
    this.ws = null;
    this.closed = false;
    this.timer = null;
    this.ping = null;
  }

  /** Delay before reconnect attempt `n` (0-based): 0.5 s doubling to 30 s, full jitter. */
  static backoff(n) {
    const cap = Math.min(30000, 500 * 2 ** n);
    return Math.round(cap / 2 + Math.random() * (cap / 2));
  }

  connect() {
    this.onStatus("connecting");
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.attempt = 0;
      // Resync by version: the server sends only the steps after `since`.
      ws.send(JSON.stringify({ type: "hello", token: this.token, since: this.getVersion() }));
      this.onOpen?.();
      this.onStatus("open");
      clearInterval(this.ping);
      this.ping = setInterval(() => this.send({ type: "ping" }), 25000);
    });
    ws.addEventListener("message", (e) => {
      let msg;
      try { msg = JSON.parse(e.data); } catch { return; }
      this.onMessage(msg);
    });
    ws.addEventListener("close", () => {
      clearInterval(this.ping);
      if (this.closed) return;
      const wait = GameSocket.backoff(this.attempt++);
      this.onStatus("retry", wait);
      this.timer = setTimeout(() => { this.reconnects += 1; this.connect(); }, wait);
    });
  }

  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(msg));
      return true;
    }
    return false;
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.ping);
    if (this.ws) this.ws.close();
  }
}
