"""Pure FTL formulas: write amplification, mapping-table caches, logical-address patterns. No queueing here."""
