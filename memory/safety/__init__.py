"""Text from people as data: the neutraliser (the one path into a prompt), prompt-injection rules
and secrets kept out of packs."""
