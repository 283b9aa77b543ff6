"""OpenProgram: record real model calls at the provider boundary and replay them offline."""

__version__ = "0.1.0"
