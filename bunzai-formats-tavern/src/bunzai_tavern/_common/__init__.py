"""Support shared by the Tavern formats: the card containers every card format reads and writes
(``cards``), the chat line helpers of the JSON Lines chats (``chat``), writer options, SillyTavern's
``settings.json``, the neutral values of SillyTavern's own keys, and the Agnai memory book and
persona mappings."""
