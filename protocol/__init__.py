"""DCTP, the text protocol between a game platform and an engine: messages, the
engine-side loop, and the driver-side client."""
