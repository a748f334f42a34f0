"""What the pages are served besides the routes: the board facts and the shipped data files."""
