"""Model against DES: one design compared, and random designs to compare on."""
