"""Several game nodes as one server: room leases with fencing epochs, and the node directory."""
