class WebhookError(Exception):
    """A webhook endpoint or delivery cannot be used as asked."""
