"""pygls wiring only: a table of requests answered from snapshots, and the background scan."""
