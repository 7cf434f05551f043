"""ctx/construct: gathering a decision's candidates, and the pure pipeline that fits them
under a token ceiling."""
