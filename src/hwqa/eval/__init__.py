"""``hwqa eval``: answer quality measured on question sets, and the scorer fitted on their training part.

- :mod:`.sets`: question sets (YAML), the frozen train/test split; :mod:`.evaluate`: a set's index
  opened and its questions scored; :mod:`.report`: the tables for people;
- :mod:`.fit`: the scorer's features and weights chosen on the training part; :mod:`.fitreport`: its
  report (``eval/fit-report.md``).
"""

__all__ = ["evaluate", "fit", "fitreport", "report", "sets"]
