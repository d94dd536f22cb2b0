"""One rules model for house-banked poker games (issue 14; docs/rules-model.md).

``model`` (the spec as data, read by ``certify.spec.load_spec`` for ``model: rules/1``),
``analysis`` (exact sheets: the one-decision shape), ``induction`` (exact sheets by backward
induction: no dealer hand), ``engine`` (the round state machine), ``kernel`` (the bulk kernel).
"""
