"""What the server counts and times, as Prometheus metrics (``GET /metrics``).

One :class:`Metrics` per app, on its own ``CollectorRegistry``: two apps in one process
(tests) never share or double-register a series. Label values are fixed words (outcome,
source, a route's template), never a game id, a token or anything a player typed, so a
series cannot carry a secret and the number of series stays bounded.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, Metric
from prometheus_client.registry import Collector

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
"""Seconds: from a fast engine step to a slow disk."""

THINK_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
"""Seconds a bot thinks: a greedy move takes milliseconds, a hard one about a second."""


class _FunctionCounter(Collector):
    """A counter whose value is read from a function at scrape time (the broker keeps its own
    count; the metric only reads it)."""

    def __init__(self, name: str, doc: str, read: Callable[[], int]) -> None:
        self.name, self.doc, self.read = name, doc, read

    def collect(self) -> Iterator[Metric]:
        family = CounterMetricFamily(self.name, self.doc)
        family.add_metric([], float(self.read()))
        yield family


class Metrics:
    """The server's counters, gauges and histograms."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.actions = Counter(
            "rebirth_actions", "Actions submitted, by outcome (accepted/refused) and source (human/bot).",
            ["outcome", "source"], registry=r)
        self.action_seconds = Histogram(
            "rebirth_action_seconds", "Time from receiving an action to its broadcast (accepted only).",
            ["source"], buckets=LATENCY_BUCKETS, registry=r)
        self.connections = Gauge(
            "rebirth_connections", "Open game WebSockets.", registry=r)
        self.games_in_memory = Gauge(
            "rebirth_games_in_memory", "Games this process holds in memory.", registry=r)
        self.bot_think_seconds = Histogram(
            "rebirth_bot_think_seconds", "Time a bot took to choose one action.",
            buckets=THINK_BUCKETS, registry=r)
        self.store_commit_seconds = Histogram(
            "rebirth_store_commit_seconds", "Time to commit one accepted step to the database.",
            buckets=LATENCY_BUCKETS, registry=r)
        self.store_failures = Counter(
            "rebirth_store_failures", "Commits that failed (the step was undone).", registry=r)
        self.requests = Counter(
            "rebirth_http_requests", "HTTP requests, by method, route template and status.",
            ["method", "route", "status"], registry=r)
        self.request_seconds = Histogram(
            "rebirth_http_request_seconds", "HTTP request time, by route template.",
            ["route"], buckets=LATENCY_BUCKETS, registry=r)

        self.frames_serialised = Counter(
            "rebirth_frames_serialised", "Broadcast payloads serialised (one per distinct payload of a "
            "broadcast: spectators share one).", registry=r)
        self.rate_limited = Counter(
            "rebirth_rate_limited", "Requests and socket messages refused by a rate limit or a cap, by rule.",
            ["rule"], registry=r)
        self.hubs_dropped = Counter(
            "rebirth_games_dropped", "Idle or finished games dropped from memory (loaded again on demand).",
            registry=r)
        self._redis_reconnects: Callable[[], int] = lambda: 0
        r.register(_FunctionCounter("rebirth_redis_reconnects",
                                    "Times the Redis subscription was lost and made again.",
                                    lambda: self._redis_reconnects()))

    def track_redis_reconnects(self, count: Callable[[], int]) -> None:
        """Read the Redis reconnect count from ``count`` whenever metrics are scraped."""
        self._redis_reconnects = count

    def track_games(self, count: Callable[[], int]) -> None:
        """Read the number of games in memory from ``count`` whenever metrics are scraped."""
        self.games_in_memory.set_function(lambda: float(count()))

    @contextmanager
    def timed(self, histogram: Histogram) -> Iterator[None]:
        """Observe the time the block takes (also when it raises)."""
        start = time.perf_counter()
        try:
            yield
        finally:
            histogram.observe(time.perf_counter() - start)

    def exposition(self) -> tuple[bytes, str]:
        """The metrics in Prometheus' text format, with its content type."""
        return generate_latest(self.registry), CONTENT_TYPE_LATEST


__all__ = ["LATENCY_BUCKETS", "THINK_BUCKETS", "Metrics"]
