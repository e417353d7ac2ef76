"""Judge backends and the layer that makes them dependable (see ``_base``)."""
