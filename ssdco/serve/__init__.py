"""``ssdco serve``: a local web page to explore one design live.

:mod:`ssdco.serve.design` turns the page's controls into a design and an answer (pure, no web framework);
:mod:`ssdco.serve.jobs` runs the DES in the background; :mod:`ssdco.serve.app` is the Dash page (the ``serve``
extra).
"""
