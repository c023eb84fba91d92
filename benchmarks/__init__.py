"""Benchmarks of scrapy-cetd (run each module with ``python -m benchmarks.NAME``)."""
