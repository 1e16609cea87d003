"""Loss: what a conversion could not carry, found by one rule and told to people.

:mod:`.report` is the loss report itself, :mod:`.neutral` the values that ask nothing of an
app (never a loss), and :mod:`.rule` the loss rule every write goes through: what a target
does not carry, and what changed when an output is read back.
"""
