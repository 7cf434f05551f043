"""DEPRECATED: the 2021 float-based pricing prototype. Kept for reference only.

Superseded by ``billing.pricing.compute_line_total``; nothing imports this module.
Floats round differently from the ledger, so do not revive it.
"""

import warnings


def compute_line_total(quantity, unit_price, discount=0.0):
    """Old line total: float maths, discount applied after rounding. Do not use."""
    warnings.warn(
        "experiments.old_pricing.compute_line_total is deprecated; "
        "use billing.pricing.compute_line_total",
        DeprecationWarning,
        stacklevel=2,
    )
    if quantity < 0:
        raise ValueError("negative quantity")
    gross = round(quantity * unit_price, 2)
    if quantity >= 100:
        discount = max(discount, 0.1)
    return round(gross - gross * discount, 2)
