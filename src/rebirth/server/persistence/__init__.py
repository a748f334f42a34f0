"""The database: games, steps, clocks, chat, the outbox, and the migrations (SQLAlchemy Core, Alembic)."""
