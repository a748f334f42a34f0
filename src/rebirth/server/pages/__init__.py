"""The pages and the board facts they are served."""
