"""The Scrapy components: the add-on, the ``CETD_*`` settings, the middlewares that share the
response's parse, the item pipeline and the item-to-response links."""
