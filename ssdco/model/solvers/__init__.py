"""The analytic solvers behind ``whatif``, each with a declared domain, and the registry that picks one.

See :mod:`ssdco.model.solvers.registry` for the precedence and docs/model.md for each solver's method and accuracy.
"""

from ssdco.model.solvers.base import EFFORTS, Answer, Context, Fit, Solver
from ssdco.model.solvers.registry import PRIMARY, REFINERS, SOLVER_NAMES, all_but, answer, context

__all__ = ["EFFORTS", "PRIMARY", "REFINERS", "SOLVER_NAMES", "Answer", "Context", "Fit", "Solver",
           "all_but", "answer", "context"]
