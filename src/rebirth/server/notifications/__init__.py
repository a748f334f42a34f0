"""Turn notifications (webhooks, e-mail) and the guard that keeps webhooks off the server's own network."""
