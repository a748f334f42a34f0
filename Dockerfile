# The Rebirth server image of compose.yaml: two of these run behind Caddy, on PostgreSQL and
# Redis, with the commands and settings of scripts/proxy-stack.sh (the set-up the tests run;
# tests/test_deploy.py checks that they agree).
FROM python:3.11-slim

WORKDIR /src
COPY . .
# The postgres extra brings psycopg; redis-py is a dependency of the server already.
RUN pip install --no-cache-dir ".[postgres]" \
    && useradd --system --create-home --home-dir /home/rebirth rebirth
USER rebirth
WORKDIR /home/rebirth
EXPOSE 8000
# /readyz answers 200 once the database answers and its migrations are applied.
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/readyz', timeout=4)"]
CMD ["rebirth", "serve", "--host", "0.0.0.0", "--port", "8000"]
