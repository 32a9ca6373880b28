"""Loading and validating user data (series CSV, track CSV/GPX) and built-in demo data."""
