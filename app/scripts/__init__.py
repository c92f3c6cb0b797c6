"""Operational entry points: starting the server in a container, its health check."""
