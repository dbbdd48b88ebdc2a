"""What users read: the study report, the optimizer's text/JSON/CSV/TOML, and the PNG plots."""
