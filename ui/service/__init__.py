"""The REST service: a versioned JSON API over the engine, with the playground mounted beside it."""
