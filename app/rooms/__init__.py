"""Live rooms: seats, matches, presence and the per-player views sent over WebSockets."""
