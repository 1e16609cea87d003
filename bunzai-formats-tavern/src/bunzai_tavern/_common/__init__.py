"""Support shared by the Tavern formats: writer options, SillyTavern's ``settings.json``, the
neutral values of SillyTavern's own keys, and the Agnai memory book and persona mappings."""
