"""One module per check of Delta's conflict checker; ``registry.RULES`` holds them in order."""
