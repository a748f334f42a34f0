"""The authority: the one commit path of every change to a game or a table (propose on a copy,
write, accept, publish) and the values it holds."""
