"""The socket's protocol: NDJSON JSON-RPC, the method table every door follows, and the client."""
