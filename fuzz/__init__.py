"""Coverage-guided fuzzing of scrapy-cetd with atheris: ``make fuzz``, not part of ``make test``."""
