"""Live chat messages: the webhook listener for Telegram's Bot API and Slack's Events API."""
