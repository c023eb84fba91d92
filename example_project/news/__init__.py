"""The ``news`` Scrapy project (see "The example project" in ``docs/quickstart.md``)."""
