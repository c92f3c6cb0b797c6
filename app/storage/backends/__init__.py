"""The databases the live-room journal can be kept in, one module each."""
