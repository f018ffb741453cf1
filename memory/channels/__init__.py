"""Chat imports and live chats: one parser an export format, messages to sessions and turns
(each stored once), the people in them and corrections."""
