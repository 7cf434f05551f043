"""The answer to each request family: pure functions of (snapshot, params)."""
