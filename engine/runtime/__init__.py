"""What builds and runs the engine: the composition root (``composition``), the parts it
builds (``services``), the jobs it owns, the daemon (``serve``) and the supervisor of
``serve --workers N``."""
