"""The HTTP vendor providers: SSE parsing, the streamed POST and its errors, and one module per api.

Part of the provider boundary: imports only `openprogram.providers` boundary modules and httpx.
"""
