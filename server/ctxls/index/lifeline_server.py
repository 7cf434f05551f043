"""Imported by the scan's forkserver alone (a preload module): it dies with the server."""

from ctxls.index.lifeline import bind

bind()
