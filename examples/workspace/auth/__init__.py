"""Authentication: token minting, verification and session bookkeeping."""
