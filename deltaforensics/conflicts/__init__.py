"""A model of Delta's conflict checker: rules in Delta's order, parameterised by engine profile."""
