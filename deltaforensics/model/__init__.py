"""Value types and frame schemas shared by every layer."""
