"""The ``news`` Scrapy project (see ``example_project/README`` in the main README)."""
