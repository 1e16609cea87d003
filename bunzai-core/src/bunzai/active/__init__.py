"""Active content: what a file will run or render when an app opens it (scripts, triggers,
HTML and CSS, remote resources), found in canonical entities and removed on request.

:mod:`.markup` reads text as a browser would and finds what in it is active; :mod:`.findings`
walks an entity with what every format declares its app runs (:class:`.runs.Runs`);
:mod:`.strip` takes out what was found.  Reading files and reporting on them is the engine's
(:mod:`bunzai.engine.audit`).
"""
