"""The service API: what every door (socket, CLI, MCP, proxy, dashboard) calls.

``Services.open(config, data_dir, workspace)`` builds the whole engine over one data dir;
its attributes are the services: ``memories`` (reads), ``memory_writes``, ``conversations``, ``persona``,
``workspace``, ``jobs`` and ``costs``. A door translates its protocol into one call on
one of them and the result back; it holds no logic of its own.
"""
