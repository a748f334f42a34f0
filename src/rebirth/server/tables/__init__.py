"""The table companion's authority: physical games recorded entry by entry."""
