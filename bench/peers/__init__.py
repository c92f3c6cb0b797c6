"""The peer servers of the comparison (Colyseus, boardgame.io, a Node relay) and its generator."""
